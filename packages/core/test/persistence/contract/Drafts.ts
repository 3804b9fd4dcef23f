/**
 * Drafts and saved snippets: ids in insertion order, each user's rows only,
 * the edit-time orders (ties by id) and register's limit, microseconds
 * kept, removal of one user's drafts, and nothing left by a rollback.
 */
import { assert } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { Draft } from "../../../src/domain/Draft.ts"
import type { UserId } from "../../../src/domain/Ids.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { DraftRepo } from "../../../src/ports/DraftRepo.ts"
import type { Insert } from "../../../src/ports/Repositories.ts"
import { SavedSnippetRepo } from "../../../src/ports/SavedSnippetRepo.ts"
import { Transactor } from "../../../src/ports/Transactor.ts"
import { Boom, seed } from "./fixtures.ts"

const row = (user_id: UserId, last_edit_time: number, content: string): Insert<Draft> => ({
  user_id,
  type: "",
  to: [],
  topic: "",
  content,
  last_edit_time
})

export const draftsTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  it.effect("drafts: ids in the rows' order, listed by edit time with ties by id, per user", () =>
    Effect.gen(function*() {
      const repo = yield* DraftRepo
      const { alice, bob } = yield* seed
      const created = yield* repo.insertMany([
        row(alice.id, 30, "c"),
        { ...row(alice.id, 10.123456, "a"), type: "stream", to: [7], topic: "t" },
        { ...row(alice.id, 30, "d"), type: "private", to: [bob.id, 99] },
        row(bob.id, 20, "bob's")
      ])
      assert.deepStrictEqual(created.map((d) => d.content), ["c", "a", "d", "bob's"])
      for (let i = 1; i < created.length; i++) assert.isTrue(created[i]!.id > created[i - 1]!.id)
      const [c, a, d, b] = created
      assert.deepStrictEqual(yield* repo.listByUser(alice.id, "oldest"), [a, c, d])
      assert.deepStrictEqual(yield* repo.listByUser(alice.id, "newest"), [d, c, a])
      assert.deepStrictEqual(yield* repo.listByUser(alice.id, "newest", 2), [d, c])
      assert.deepStrictEqual(yield* repo.listByUser(bob.id, "oldest"), [b])
      assert.strictEqual((yield* repo.lock(a!.id))!.last_edit_time, 10.123456)
      assert.deepStrictEqual(yield* repo.insertMany([]), [])

      const edited: Draft = { ...a!, type: "private", to: [bob.id], topic: "", content: "a2", last_edit_time: 40 }
      yield* repo.update(edited)
      assert.deepStrictEqual(yield* repo.lock(a!.id), edited)
      yield* repo.delete(c!.id)
      assert.strictEqual(yield* repo.lock(c!.id), undefined)
      assert.deepStrictEqual(yield* repo.listByUser(alice.id, "oldest"), [d, edited])

      yield* repo.deleteByUser(alice.id)
      assert.deepStrictEqual(yield* repo.listByUser(alice.id, "oldest"), [])
      assert.deepStrictEqual(yield* repo.listByUser(bob.id, "oldest"), [b])
    }))

  it.effect("saved snippets: per user by id; updates and deletes", () =>
    Effect.gen(function*() {
      const repo = yield* SavedSnippetRepo
      const { alice, bob } = yield* seed
      const first = yield* repo.insert({ user_id: alice.id, title: "one", content: "1", date_created: 1_700_000_000 })
      const other = yield* repo.insert({ user_id: bob.id, title: "bob", content: "b", date_created: 1_700_000_001 })
      const second = yield* repo.insert({ user_id: alice.id, title: "two", content: "2", date_created: 1_700_000_002 })
      assert.isTrue(second.id > first.id)
      assert.deepStrictEqual(yield* repo.listByUser(alice.id), [first, second])
      assert.deepStrictEqual(yield* repo.listByUser(bob.id), [other])
      yield* repo.update({ ...first, title: "uno" })
      assert.deepStrictEqual(yield* repo.lock(first.id), { ...first, title: "uno" })
      yield* repo.delete(second.id)
      assert.strictEqual(yield* repo.lock(second.id), undefined)
      assert.deepStrictEqual(yield* repo.listByUser(alice.id), [{ ...first, title: "uno" }])
    }))

  it.effect("a rolled-back transaction leaves no draft or snippet behind", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const drafts = yield* DraftRepo
      const snippets = yield* SavedSnippetRepo
      const { alice } = yield* seed
      const [kept] = yield* drafts.insertMany([row(alice.id, 1, "kept")])
      const keptSnippet = yield* snippets.insert({ user_id: alice.id, title: "kept", content: "k", date_created: 1 })
      const exit = yield* Effect.exit(tx.withTransaction(Effect.gen(function*() {
        yield* drafts.insertMany([row(alice.id, 2, "lost")])
        yield* drafts.update({ ...kept!, content: "changed" })
        yield* snippets.insert({ user_id: alice.id, title: "lost", content: "l", date_created: 2 })
        yield* snippets.delete(keptSnippet.id)
        return yield* new Boom()
      })))
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(yield* drafts.listByUser(alice.id, "oldest"), [kept])
      assert.deepStrictEqual(yield* snippets.listByUser(alice.id), [keptSnippet])
    }))
}
