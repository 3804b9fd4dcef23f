/**
 * Ids on a fresh database: from 1, ascending per table, never reused after a
 * rollback.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Persistence } from "../../../src/Persistence.ts"
import { ChannelRepo, GroupRepo, RealmRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { Transactor } from "../../../src/ports/Transactor.ts"
import type { Vitest } from "@effect/vitest"
import { newRealm, newUser, newGroup, newChannel, ids } from "./fixtures.ts"

export const idsTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  it.effect("ids start at 1 and ascend in insertion order, per table", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const users = yield* UserRepo
      const groups = yield* GroupRepo
      const channels = yield* ChannelRepo

      const r1 = yield* realms.insert(newRealm())
      const r2 = yield* realms.insert(newRealm())
      const r3 = yield* realms.insert(newRealm())
      assert.deepStrictEqual([r1.id, r2.id, r3.id], [1, 2, 3])

      const seen: Array<number> = []
      const u1 = yield* users.insert((id) => (seen.push(id), newUser(r1.id)(id)))
      const u2 = yield* users.insert((id) => (seen.push(id), newUser(r2.id)(id)))
      const u3 = yield* users.insert((id) => (seen.push(id), newUser(r1.id)(id)))
      assert.deepStrictEqual([u1.id, u2.id, u3.id], [1, 2, 3])
      assert.deepStrictEqual(seen, [1, 2, 3])

      const g = [
        yield* groups.insert(newGroup(r1.id)),
        yield* groups.insert(newGroup(r2.id)),
        yield* groups.insert(newGroup(r1.id))
      ]
      assert.deepStrictEqual(ids(g), [1, 2, 3])

      const c = [
        yield* channels.insert(newChannel(r2.id)),
        yield* channels.insert(newChannel(r1.id)),
        yield* channels.insert(newChannel(r1.id))
      ]
      assert.deepStrictEqual(ids(c), [1, 2, 3])

      assert.deepStrictEqual(ids(yield* realms.list), [1, 2, 3])
      assert.deepStrictEqual(ids(yield* users.listByRealm(r1.id)), [1, 3])
      assert.deepStrictEqual(ids(yield* groups.listByRealm(r1.id)), [1, 3])
      assert.deepStrictEqual(ids(yield* channels.listByRealm(r1.id)), [2, 3])
    }))

  it.effect("ids used by a rolled-back insert are not reused", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const users = yield* UserRepo
      const groups = yield* GroupRepo
      const channels = yield* ChannelRepo
      const tx = yield* Transactor

      const before = yield* tx.withTransaction(Effect.gen(function*() {
        const realm = yield* realms.insert(newRealm())
        return {
          realm,
          user: yield* users.insert(newUser(realm.id)),
          group: yield* groups.insert(newGroup(realm.id)),
          channel: yield* channels.insert(newChannel(realm.id))
        }
      }))

      const rolledBack = yield* tx.withTransaction(Effect.gen(function*() {
        const realm = yield* realms.insert(newRealm())
        const user = yield* users.insert(newUser(realm.id))
        const group = yield* groups.insert(newGroup(realm.id))
        const channel = yield* channels.insert(newChannel(realm.id))
        return yield* Effect.fail({ realm, user, group, channel })
      })).pipe(Effect.flip)

      assert.strictEqual(rolledBack.realm.id, before.realm.id + 1)
      assert.strictEqual(rolledBack.user.id, before.user.id + 1)
      assert.strictEqual(rolledBack.group.id, before.group.id + 1)
      assert.strictEqual(rolledBack.channel.id, before.channel.id + 1)
      assert.strictEqual(yield* realms.findById(rolledBack.realm.id), undefined)
      assert.strictEqual(yield* users.findById(rolledBack.user.id), undefined)

      const realm = yield* realms.insert(newRealm())
      const user = yield* users.insert(newUser(realm.id))
      const group = yield* groups.insert(newGroup(realm.id))
      const channel = yield* channels.insert(newChannel(realm.id))
      assert.strictEqual(realm.id, before.realm.id + 2)
      assert.strictEqual(user.id, before.user.id + 2)
      assert.strictEqual(group.id, before.group.id + 2)
      assert.strictEqual(channel.id, before.channel.id + 2)
    }))
}
