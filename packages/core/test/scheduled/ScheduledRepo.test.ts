/**
 * The scheduled-message store on every backend (memory, PGlite,
 * PostgreSQL): the same observable results, and on PostgreSQL the row
 * locking that makes delivery exactly-once (`claimDue` skips rows another
 * transaction holds; `lock` waits for it).
 *
 * Each test runs inside a transaction it rolls back, so the tests of a block
 * share a database without seeing each other's rows.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { channelId, messageId } from "../../src/domain/Ids.ts"
import type { ScheduledMessage } from "../../src/domain/ScheduledMessage.ts"
import type { Insert } from "../../src/ports/Repositories.ts"
import { ScheduledMessageRepo } from "../../src/ports/ScheduledMessageRepo.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import { backends, makeOrg, realSleep } from "./fixtures.ts"
import type { Org } from "./fixtures.ts"

class Rollback extends Data.TaggedError("Rollback")<{ readonly value: unknown }> {}

/** Runs `effect` in a transaction that is rolled back; returns its value. */
const rolledBack = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const tx = yield* Transactor
    const result = yield* tx.withTransaction(Effect.flatMap(effect, (value) => Effect.fail(new Rollback({ value })))).pipe(
      Effect.flip
    )
    if (result instanceof Rollback) return result.value as A
    return yield* Effect.die(result)
  })

const draft = (org: Org, overrides: Partial<Insert<ScheduledMessage>> = {}): Insert<ScheduledMessage> => ({
  realm_id: org.realm.id,
  sender_id: org.member.user.id,
  type: "private",
  channel_id: null,
  topic: "",
  dm_user_ids: [org.member.user.id, org.other.user.id].sort((a, b) => a - b),
  content: "hello",
  rendered_content: "<p>hello</p>",
  scheduled_timestamp: 1_000,
  read_by_sender: true,
  client: "ZulipMobile",
  delivered: false,
  delivered_message_id: null,
  failed: false,
  failure_message: null,
  ...overrides
})

const contract = (name: keyof typeof backends) =>
  layer(backends[name](), { timeout: "120 seconds" })(`scheduled message store on ${name}`, (it) => {
    it.effect("insert and find keep every field", () =>
      rolledBack(Effect.gen(function*() {
        const repo = yield* ScheduledMessageRepo
        const org = yield* makeOrg
        const a = yield* repo.insert(draft(org))
        const b = yield* repo.insert(draft(org, {
          type: "stream",
          channel_id: channelId(77),
          topic: "",
          dm_user_ids: [],
          failed: true,
          failure_message: "Account is deactivated",
          read_by_sender: false,
          client: "website"
        }))
        assert.isAbove(b.id, a.id)
        assert.deepStrictEqual(yield* repo.findById(a.id), a)
        assert.deepStrictEqual(yield* repo.findById(b.id), b)
        assert.deepStrictEqual(yield* repo.lock(b.id), b)
        const delivered = { ...a, delivered: true, delivered_message_id: messageId(5), content: "edited" }
        yield* repo.update(delivered)
        assert.deepStrictEqual(yield* repo.findById(a.id), delivered)
        yield* repo.delete(a.id)
        assert.isUndefined(yield* repo.findById(a.id))
        assert.isUndefined(yield* repo.lock(a.id))
      })))

    it.effect("listUndelivered: the sender's pending and failed rows, by delivery time then id", () =>
      rolledBack(Effect.gen(function*() {
        const repo = yield* ScheduledMessageRepo
        const org = yield* makeOrg
        const late = yield* repo.insert(draft(org, { scheduled_timestamp: 3_000 }))
        const early = yield* repo.insert(draft(org, { scheduled_timestamp: 2_000 }))
        const tie = yield* repo.insert(draft(org, { scheduled_timestamp: 2_000, failed: true, failure_message: "x" }))
        yield* repo.insert(draft(org, { scheduled_timestamp: 1_000, delivered: true, delivered_message_id: messageId(1) }))
        yield* repo.insert(draft(org, { sender_id: org.other.user.id }))
        const listed = yield* repo.listUndelivered(org.member.user.id)
        assert.deepStrictEqual(listed.map((m) => m.id), [early.id, tie.id, late.id])
      })))

    it.effect("claimDue: pending rows due at the given second, oldest first, limited, skipping ids", () =>
      rolledBack(Effect.gen(function*() {
        const repo = yield* ScheduledMessageRepo
        const org = yield* makeOrg
        // Far in the past of every other block's rows: 1..5.
        const r3 = yield* repo.insert(draft(org, { scheduled_timestamp: 3 }))
        const r1 = yield* repo.insert(draft(org, { scheduled_timestamp: 1 }))
        const r2 = yield* repo.insert(draft(org, { scheduled_timestamp: 2 }))
        yield* repo.insert(draft(org, { scheduled_timestamp: 1, failed: true, failure_message: "x" }))
        yield* repo.insert(draft(org, { scheduled_timestamp: 1, delivered: true }))
        yield* repo.insert(draft(org, { scheduled_timestamp: 4 }))
        assert.deepStrictEqual((yield* repo.claimDue(3, 10)).map((m) => m.id), [r1.id, r2.id, r3.id])
        assert.deepStrictEqual((yield* repo.claimDue(3, 2)).map((m) => m.id), [r1.id, r2.id])
        assert.deepStrictEqual((yield* repo.claimDue(2, 10)).map((m) => m.id), [r1.id, r2.id])
        assert.deepStrictEqual((yield* repo.claimDue(3, 10, [r1.id, r3.id])).map((m) => m.id), [r2.id])
        assert.deepStrictEqual(yield* repo.claimDue(0, 10), [])
      })))

    it.effect("nextDue: the earliest pending delivery time", () =>
      rolledBack(Effect.gen(function*() {
        const repo = yield* ScheduledMessageRepo
        const org = yield* makeOrg
        const before = yield* repo.nextDue
        assert.isNull(before)
        yield* repo.insert(draft(org, { scheduled_timestamp: 9, failed: true, failure_message: "x" }))
        yield* repo.insert(draft(org, { scheduled_timestamp: 8, delivered: true }))
        assert.isNull(yield* repo.nextDue)
        const b = yield* repo.insert(draft(org, { scheduled_timestamp: 50 }))
        const a = yield* repo.insert(draft(org, { scheduled_timestamp: 20 }))
        assert.strictEqual(yield* repo.nextDue, 20)
        yield* repo.update({ ...a, delivered: true })
        assert.strictEqual(yield* repo.nextDue, 50)
        yield* repo.delete(b.id)
        assert.isNull(yield* repo.nextDue)
      })))

    if (name === "PostgreSQL") {
      it.effect("claimDue skips rows another transaction claimed; lock waits for that transaction", () =>
        Effect.gen(function*() {
          const repo = yield* ScheduledMessageRepo
          const tx = yield* Transactor
          const org = yield* makeOrg
          const first = yield* repo.insert(draft(org, { scheduled_timestamp: 100 }))
          const second = yield* repo.insert(draft(org, { scheduled_timestamp: 100 }))
          const claimed = yield* Deferred.make<ReadonlyArray<number>>()
          const release = yield* Deferred.make<void>()
          const holder = yield* Effect.forkChild(tx.withTransaction(Effect.gen(function*() {
            const rows = yield* repo.claimDue(100, 1)
            yield* Deferred.succeed(claimed, rows.map((r) => r.id))
            yield* Deferred.await(release)
            yield* repo.update({ ...rows[0]!, delivered: true })
          })))
          assert.deepStrictEqual(yield* Deferred.await(claimed), [first.id])
          // Another transaction, meanwhile: the held row is skipped.
          const other = yield* tx.withTransaction(repo.claimDue(100, 10))
          assert.deepStrictEqual(other.map((r) => r.id), [second.id])
          // An edit of the held row waits, then sees it delivered.
          const edit = yield* Effect.forkChild(tx.withTransaction(repo.lock(first.id)))
          yield* realSleep(200)
          assert.isUndefined(edit.pollUnsafe())
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holder)
          const seen = yield* Fiber.join(edit)
          assert.strictEqual(seen?.delivered, true)
          yield* repo.delete(first.id)
          yield* repo.delete(second.id)
        }))
    }
  })

contract("memory")
contract("PGlite")
describe("PostgreSQL", () => {
  contract("PostgreSQL")
})
