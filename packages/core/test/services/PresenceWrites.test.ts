/**
 * Presence writes off the locked path: the repository's conditional write
 * (`writeIfUnchanged`) and its last-read rows (`latest`, and the SQL
 * repository's rows kept between lists) on memory, PGlite and PostgreSQL;
 * then two processes on one PostgreSQL database, whose kept rows lag each
 * other, and concurrent pings of one user with presence switched on and off.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import type { Presence as PresenceRow } from "../../src/domain/Presence.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import * as Persistence from "../../src/Persistence.ts"
import { PresenceRepo } from "../../src/ports/PresenceRepo.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import { Presence } from "../../src/services/Presence.ts"
import { UserSettings } from "../../src/services/UserSettings.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { backends, core, makeOrg } from "../events/fixtures.ts"

const ping = Effect.fnUntraced(function*(principal: Principal, lastUpdateId = 0) {
  const presence = yield* Presence
  const reply = yield* presence.ping(principal, {
    status: "active",
    last_update_id: lastUpdateId,
    ping_only: false,
    new_user_input: true,
    slim_presence: true
  })
  return { id: reply.presence_last_update_id, users: "presences" in reply ? Object.keys(reply.presences) : [] }
})

const rowOf = Effect.fnUntraced(function*(principal: Principal) {
  return yield* (yield* PresenceRepo).find(principal.user.id)
})

const latestOf = Effect.fnUntraced(function*(principal: Principal) {
  return yield* (yield* PresenceRepo).latest(principal.realm.id, principal.user.id)
})

const setPresenceEnabled = Effect.fnUntraced(function*(principal: Principal, enabled: boolean) {
  yield* (yield* UserSettings).update(principal, { presence_enabled: enabled })
})

/** Rows as the repository lists them: user, update id, last active time. */
const listed = Effect.fnUntraced(function*(principal: Principal) {
  const rows = yield* (yield* PresenceRepo).list(principal.realm.id, {})
  return rows.map((r: PresenceRow) => [r.user_id as number, r.last_update_id, r.last_active_time] as const)
})

for (const [name, backend] of Object.entries(backends)) {
  describe(`presence writes on ${name}`, () => {
    layer(backend(), { timeout: "60 seconds" })((it) => {
      it.effect("writeIfUnchanged writes while the row is the expected one, with the next update id", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const repo = yield* PresenceRepo
          yield* ping(org.member)
          const before = (yield* rowOf(org.member))!
          assert.deepStrictEqual(yield* latestOf(org.member), before)
          const times = { last_active_time: 120_000, last_connected_time: 120_000 }
          const id = yield* repo.writeIfUnchanged(org.realm.id, org.member.user.id, before.last_update_id, times)
          assert.strictEqual(id, before.last_update_id + 1)
          assert.deepStrictEqual(yield* rowOf(org.member), { ...before, ...times, last_update_id: id! })
          // The same expectation again: the row has moved on, nothing is written.
          const stale = yield* repo.writeIfUnchanged(org.realm.id, org.member.user.id, before.last_update_id, {
            last_active_time: 999_000,
            last_connected_time: 999_000
          })
          assert.isUndefined(stale)
          assert.deepStrictEqual(yield* rowOf(org.member), { ...before, ...times, last_update_id: id! })
          // No row at all: nothing is written either.
          assert.isUndefined(yield* repo.writeIfUnchanged(org.realm.id, org.other.user.id, 0, times))
          assert.isUndefined(yield* rowOf(org.other))
        }))

      it.effect("concurrent conditional writes (one batch on SQL): each applies or not on its own", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const repo = yield* PresenceRepo
          const people = [org.owner, org.admin, org.member, org.other]
          for (const person of people) yield* ping(person)
          const rows = new Map<number, PresenceRow>()
          for (const person of people) rows.set(person.user.id, (yield* rowOf(person))!)
          const times = (n: number) => ({ last_active_time: n * 1000, last_connected_time: n * 1000 })
          const write = (principal: Principal, expected: number, n: number) =>
            repo.writeIfUnchanged(org.realm.id, principal.user.id, expected, times(n))
          const [owner, admin, stale, twice, again, none] = yield* Effect.all([
            write(org.owner, rows.get(org.owner.user.id)!.last_update_id, 1),
            write(org.admin, rows.get(org.admin.user.id)!.last_update_id, 2),
            // An expectation the row no longer meets.
            write(org.member, rows.get(org.member.user.id)!.last_update_id - 1, 3),
            // One user twice: at most one of the two is written.
            write(org.other, rows.get(org.other.user.id)!.last_update_id, 4),
            write(org.other, rows.get(org.other.user.id)!.last_update_id, 5),
            // A user without a row.
            write(org.guest, 0, 6)
          ], { concurrency: "unbounded" })
          assert.isUndefined(stale)
          assert.isUndefined(none)
          assert.strictEqual([twice, again].filter((id) => id !== undefined).length, 1)
          const written = [owner, admin, twice ?? again]
          assert.strictEqual(new Set(written).size, 3)
          const highest = Math.max(...Array.from(rows.values(), (row) => row.last_update_id))
          for (const id of written) assert.isAbove(id!, highest)
          assert.deepStrictEqual(yield* rowOf(org.owner), { ...rows.get(org.owner.user.id)!, ...times(1), last_update_id: owner! })
          assert.deepStrictEqual(yield* rowOf(org.admin), { ...rows.get(org.admin.user.id)!, ...times(2), last_update_id: admin! })
          assert.deepStrictEqual(yield* rowOf(org.member), rows.get(org.member.user.id))
          const other = (yield* rowOf(org.other))!
          assert.strictEqual(other.last_update_id, twice ?? again)
          assert.strictEqual(other.last_active_time, twice !== undefined ? 4000 : 5000)
          assert.isUndefined(yield* rowOf(org.guest))
          // What the repository lists (kept rows on SQL) is what the table holds.
          const listedRows = yield* listed(org.member)
          for (const person of [org.owner, org.admin, org.member, org.other]) {
            const row = (yield* rowOf(person))!
            assert.deepStrictEqual(
              listedRows.find(([user]) => user === person.user.id),
              [person.user.id, row.last_update_id, row.last_active_time]
            )
          }
        }))

      it.effect("writeIfUnchanged leaves a user who turned presence off as they are", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const repo = yield* PresenceRepo
          yield* ping(org.member)
          yield* setPresenceEnabled(org.member, false)
          const hidden = (yield* rowOf(org.member))!
          const id = yield* repo.writeIfUnchanged(org.realm.id, org.member.user.id, hidden.last_update_id, {
            last_active_time: 120_000,
            last_connected_time: 120_000
          })
          assert.isUndefined(id)
          assert.deepStrictEqual(yield* rowOf(org.member), hidden)
        }))

      it.effect("a ping a minute later moves the row once; one within the minute writes nothing", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const first = yield* ping(org.member)
          const row = (yield* rowOf(org.member))!
          yield* TestClock.adjust("30 seconds")
          yield* ping(org.member)
          assert.deepStrictEqual(yield* rowOf(org.member), row)
          yield* TestClock.adjust("40 seconds")
          const third = yield* ping(org.member, first.id)
          const moved = (yield* rowOf(org.member))!
          assert.strictEqual(moved.last_update_id, row.last_update_id + 1)
          assert.strictEqual(moved.last_active_time, row.last_active_time! + 70_000)
          assert.strictEqual(third.id, moved.last_update_id)
          assert.deepStrictEqual(third.users, [String(org.member.user.id)])
        }))

      it.effect("a ping while another transaction runs and rolls back keeps its write", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const tx = yield* Transactor
          yield* ping(org.member)
          const before = (yield* rowOf(org.member))!
          yield* TestClock.adjust("1 minute")
          const started = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const other = yield* Effect.forkChild(Effect.exit(tx.withTransaction(Effect.gen(function*() {
            yield* setPresenceEnabled(org.other, true)
            yield* Deferred.succeed(started, undefined)
            yield* Deferred.await(release)
            return yield* Effect.fail("roll back" as const)
          }))))
          yield* Deferred.await(started)
          const pinging = yield* Effect.forkChild(ping(org.member))
          for (let i = 0; i < 20; i++) yield* Effect.yieldNow
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(other)
          const answer = yield* Fiber.join(pinging)
          const after = (yield* rowOf(org.member))!
          assert.isAbove(after.last_update_id, before.last_update_id)
          assert.strictEqual(after.last_active_time, before.last_active_time! + 60_000)
          assert.strictEqual(answer.id, after.last_update_id)
        }))

      it.effect("a presence write rolled back is never listed, and its update id is handed out again", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const repo = yield* PresenceRepo
          const tx = yield* Transactor
          yield* ping(org.member)
          const before = yield* listed(org.member)
          const failed = yield* tx.withTransaction(Effect.gen(function*() {
            const id = yield* repo.write(org.realm.id, org.other.user.id, {
              last_active_time: 5_000,
              last_connected_time: 5_000
            })
            // Inside its transaction the write is listed.
            assert.deepStrictEqual(
              (yield* listed(org.member)).find(([user]) => user === org.other.user.id),
              [org.other.user.id, id, 5_000]
            )
            return yield* Effect.fail("roll back" as const)
          })).pipe(Effect.exit)
          assert.isTrue(Exit.isFailure(failed))
          assert.deepStrictEqual(yield* listed(org.member), before)
          assert.isUndefined(yield* latestOf(org.other))
          const again = yield* repo.write(org.realm.id, org.other.user.id, {
            last_active_time: 6_000,
            last_connected_time: 6_000
          })
          assert.strictEqual(again, Math.max(...before.map(([, id]) => id)) + 1)
          assert.deepStrictEqual(
            (yield* listed(org.member)).find(([user]) => user === org.other.user.id),
            [org.other.user.id, again, 6_000]
          )
        }))
    })
  })
}

/** Two cores (two server processes) on the test's PostgreSQL database, and an organization made through the first. */
const twoProcesses = Effect.gen(function*() {
  const database = yield* TestDatabase.TestDatabase
  const open = () => core(Persistence.layerPostgres(database.url, { maxConnections: 6 }))
  const a = yield* Layer.build(open())
  const b = yield* Layer.build(open())
  const on = (process: typeof a) => <X, Y, R>(f: Effect.Effect<X, Y, R>) => Effect.provide(f, process) as Effect.Effect<X, Y>
  const onA = on(a)
  return { onA, onB: on(b), org: yield* onA(makeOrg) }
})

describe("presence across two processes on PostgreSQL", () => {
  it.effect("each process lists the other's writes, and a ping decided on a lagging row is redone under lock", () =>
    Effect.gen(function*() {
      const { onA, onB, org } = yield* twoProcesses
      yield* onA(ping(org.member))
      yield* onB(ping(org.other))
      // Both processes now hold both rows.
      assert.deepStrictEqual(yield* onA(listed(org.member)), yield* onB(listed(org.member)))
      // A moves the member's row; B still holds the old one.
      yield* TestClock.adjust("2 minutes")
      yield* onA(ping(org.member))
      const held = (yield* onB(latestOf(org.member)))!
      const current = (yield* onA(rowOf(org.member)))!
      assert.isBelow(held.last_update_id, current.last_update_id)
      // B's ping of the same user a minute later is decided on the old row:
      // its conditional write fails and the locked path writes from the current one.
      yield* TestClock.adjust("1 minute")
      const answer = yield* onB(ping(org.member, current.last_update_id))
      const after = (yield* onA(rowOf(org.member)))!
      assert.strictEqual(after.last_update_id, answer.id)
      assert.isAbove(after.last_update_id, current.last_update_id)
      assert.strictEqual(after.last_active_time, current.last_active_time! + 60_000)
      assert.deepStrictEqual(yield* onA(listed(org.member)), yield* onB(listed(org.member)))
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 60_000)

  it.effect("a ping's answer holds the other process's write committed before its own, though its batch came right after", () =>
    Effect.gen(function*() {
      const { onA, onB, org } = yield* twoProcesses
      const first = yield* onA(ping(org.member))
      yield* onB(ping(org.other))
      yield* onA(listed(org.member))
      // A minute on: both pings take the conditional write (not "back online", which is announced under lock).
      yield* TestClock.adjust("1 minute")
      // B writes the next id; A has not read it when its own write takes the one after.
      const other = yield* onB(ping(org.other))
      const answer = yield* onA(ping(org.member, first.id))
      assert.deepStrictEqual(answer.users.sort(), [String(org.member.user.id), String(org.other.user.id)].sort())
      assert.isAbove(answer.id, other.id)
      // A holds B's write (a watermark moved past it would hide it for good).
      const otherRow = (yield* onB(rowOf(org.other)))!
      assert.strictEqual(otherRow.last_update_id, other.id)
      assert.deepStrictEqual(yield* onA(latestOf(org.other)), otherRow)
      assert.deepStrictEqual(yield* onA(listed(org.member)), yield* onB(listed(org.member)))
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 60_000)

  it.effect("concurrent pings of one user while presence is switched off and on: none fails, the row is consistent", () =>
    Effect.gen(function*() {
      const { onA, onB, org } = yield* twoProcesses
      yield* onA(ping(org.member))
      for (let round = 0; round < 5; round++) {
        yield* TestClock.adjust("1 minute")
        const work = [
          ...Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? onA : onB)(ping(org.member))),
          (round % 2 === 0 ? onA : onB)(setPresenceEnabled(org.member, round % 2 === 1))
        ]
        const outcomes = yield* Effect.forEach(work, (w: Effect.Effect<unknown, unknown>) => Effect.exit(w), {
          concurrency: "unbounded"
        })
        assert.deepStrictEqual(outcomes.filter(Exit.isFailure), [])
      }
      const rows = yield* onA(listed(org.member))
      assert.deepStrictEqual(yield* onB(listed(org.member)), rows)
      // Ids are distinct: every write took its own.
      assert.strictEqual(new Set(rows.map(([, id]) => id)).size, rows.length)
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 60_000)
})
