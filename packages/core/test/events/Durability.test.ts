/**
 * Queues and pending events survive a restart (the core built twice on the
 * same PGlite directory / PostgreSQL database), and two independent
 * processes on one PostgreSQL database share queues: a poll blocked on one
 * wakes when the other commits an event (observed, not timed).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EventStore } from "../../src/ports/EventStore.ts"
import { EventQueues } from "../../src/services/events/EventQueues.ts"
import * as Persistence from "../../src/Persistence.ts"
import { AlertWords } from "../../src/services/AlertWords.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import type * as Teamchat from "../../src/Teamchat.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { alertWordsOf, core, makeOrg } from "./fixtures.ts"

type Core = Teamchat.Services | Persistence.Persistence

/** Runs `f` against a freshly built core, closing it afterwards (a "process"). */
const run = <A, E, E2>(stack: Layer.Layer<Core, E2>, f: Effect.Effect<A, E, Core>) =>
  Effect.scoped(Effect.flatMap(Layer.build(stack), (context) => Effect.provide(f, context)))

/** Waits until a poll waits on the queue (its stored `blocked_until` is set), as another process sees it. */
const blocked = (on: <X, Y>(f: Effect.Effect<X, Y, Core>) => Effect.Effect<X, Y>, queueId: string) =>
  on(Effect.gen(function*() {
    const store = yield* EventStore
    const deadline = Date.now() + hangCeilingMs
    while (((yield* store.findQueue(queueId))?.blocked_until ?? 0) === 0) {
      if (Date.now() > deadline) return yield* Effect.die(new Error("the poll never blocked"))
      yield* Effect.sleep("5 millis")
    }
  }))

/**
 * A poll's answer. The ceiling only guards against a hang; it is below the
 * heartbeat (45 s), so a poll that was not woken fails here rather than
 * answering with a heartbeat.
 */
const hangCeilingMs = 30_000
const joinWithin = <A, E>(fiber: Fiber.Fiber<A, E>) =>
  Effect.timeoutOrElse(Fiber.join(fiber), {
    duration: hangCeilingMs,
    orElse: () => Effect.die(new Error(`the poll did not answer within ${hangCeilingMs} ms`))
  })

const restartScenario = <E>(open: () => Layer.Layer<Core, E>) =>
  Effect.gen(function*() {
    const { principal, queueId } = yield* run(open(), Effect.gen(function*() {
      const org = yield* makeOrg
      const queue = yield* (yield* EventQueues).register(org.member, {})
      yield* (yield* AlertWords).add(org.member, ["before restart"])
      return { principal: org.member as Principal, queueId: queue.id }
    }))
    const events = yield* run(open(), Effect.gen(function*() {
      const queues = yield* EventQueues
      const first = yield* queues.getEvents(principal, { queue_id: queueId, last_event_id: -1, dont_block: true })
      yield* (yield* AlertWords).add(principal, ["after restart"])
      const second = yield* queues.getEvents(principal, { queue_id: queueId, last_event_id: first.events[0]!.id, dont_block: true })
      return [...first.events, ...second.events]
    }))
    assert.deepStrictEqual(events.map(alertWordsOf), [["before restart"], ["after restart", "before restart"]])
  })

describe("durability", () => {
  it.live("PGlite: a queue and its pending events survive a restart on the same data directory", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "teamchat-events-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      yield* restartScenario(() => core(Persistence.layerPglite(dir)))
    }), 120_000)

  describe("PostgreSQL", () => {
    it.live("a queue and its pending events survive a restart on the same database", () =>
      Effect.gen(function*() {
        const database = yield* TestDatabase.TestDatabase
        yield* restartScenario(() => core(Persistence.layerPostgres(database.url, { maxConnections: 3 })))
      }).pipe(Effect.provide(TestDatabase.postgresLayer())), 120_000)

    it.live("two processes: a poll blocked on A wakes when B commits; a queue registered via A is served by B", () =>
      Effect.gen(function*() {
        const database = yield* TestDatabase.TestDatabase
        const process = () => core(Persistence.layerPostgres(database.url, { maxConnections: 3 }))
        const a = yield* Layer.build(process())
        const b = yield* Layer.build(process())
        const onA = <X, Y>(f: Effect.Effect<X, Y, Core>) => Effect.provide(f, a)
        const onB = <X, Y>(f: Effect.Effect<X, Y, Core>) => Effect.provide(f, b)
        const org = yield* onA(makeOrg)
        const queue = yield* onA(Effect.flatMap(EventQueues, (q) => q.register(org.member, {})))
        const poll = yield* Effect.forkChild(onA(Effect.flatMap(EventQueues, (q) =>
          q.getEvents(org.member, { queue_id: queue.id, last_event_id: -1 })
        )))
        yield* blocked(onB, queue.id)
        assert.isUndefined(poll.pollUnsafe())
        yield* onB(Effect.flatMap(AlertWords, (w) => w.add(org.member, ["from B"])))
        // Only B's notice can end A's wait before the heartbeat (45 s or more).
        const result = yield* joinWithin(poll)
        assert.deepStrictEqual(result.events.map(alertWordsOf), [["from B"]])
        // B serves the queue A registered, from the shared tables.
        yield* onA(Effect.flatMap(AlertWords, (w) => w.add(org.member, ["from A"])))
        const served = yield* onB(Effect.flatMap(EventQueues, (q) =>
          q.getEvents(org.member, { queue_id: queue.id, last_event_id: result.events[0]!.id, dont_block: true })
        ))
        assert.deepStrictEqual(served.events.map(alertWordsOf), [["from A", "from B"]])
        // A newer poll on B finishes an older one waiting on A.
        assert.strictEqual((yield* onB(Effect.flatMap(EventStore, (s) => s.findQueue(queue.id))))?.blocked_until, 0)
        const older = yield* Effect.forkChild(onA(Effect.flatMap(EventQueues, (q) =>
          q.getEvents(org.member, { queue_id: queue.id, last_event_id: served.events[0]!.id })
        )))
        yield* blocked(onB, queue.id)
        assert.isUndefined(older.pollUnsafe())
        const newer = yield* onB(Effect.flatMap(EventQueues, (q) =>
          q.getEvents(org.member, { queue_id: queue.id, last_event_id: served.events[0]!.id, dont_block: true })
        ))
        assert.deepStrictEqual(newer.events, [])
        assert.deepStrictEqual((yield* joinWithin(older)).events, [])
      }).pipe(Effect.provide(TestDatabase.postgresLayer())), 120_000)
  })
})
