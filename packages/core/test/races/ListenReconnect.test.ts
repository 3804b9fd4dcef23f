/**
 * Two server processes on one PostgreSQL database: when their LISTEN
 * connections are killed (`pg_terminate_backend`, as a restart or a network
 * blip would), each listens again, and a poll blocked on one process still
 * wakes at once when the other commits, both for an event committed while
 * it was disconnected and for one committed after it listens again.
 *
 * Heartbeats stay at their 45-55 s default: a poll's answer is its events
 * (a heartbeat would answer with a heartbeat), and the ceiling it is given
 * only guards against a hang, below the heartbeat, so that a slow machine
 * is no failure.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schedule from "effect/Schedule"
import { EventQueues } from "../../src/services/events/EventQueues.ts"
import { NotifyChannel } from "../../src/sql/SqlEventStore.ts"
import * as Persistence from "../../src/Persistence.ts"
import * as PgClientLayer from "../../src/sql/PgClientLayer.ts"
import { AlertWords } from "../../src/services/AlertWords.ts"
import type * as Teamchat from "../../src/Teamchat.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { alertWordsOf, core, makeOrg } from "../events/fixtures.ts"

type Core = Teamchat.Services | Persistence.Persistence

/** A ceiling against hangs for a blocked poll's wake-up, below the first heartbeat (45 s). */
const WakeWithin = "30 seconds"

/** Checks `condition` every 20 ms until it holds (for state another connection moves). */
const until = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.repeat(condition, { schedule: Schedule.spaced("20 millis"), until: (ok) => ok }).pipe(
    Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die("condition not reached in 10 s") })
  )

describe("LISTEN connection lost on PostgreSQL", () => {
  it.live("both processes listen again; polls wake for events committed during and after the loss", () =>
    Effect.gen(function*() {
      const database = yield* TestDatabase.TestDatabase
      const logs: Array<string> = []
      const capture = Logger.layer([
        Logger.make(({ logLevel, message }) => {
          logs.push(`${logLevel}: ${Array.isArray(message) ? String(message[0]) : String(message)}`)
        })
      ])
      const process = () => core(Persistence.layerPostgres(database.url, { maxConnections: 3 })).pipe(Layer.provide(capture))
      const a = yield* Layer.build(process())
      const b = yield* Layer.build(process())
      const onA = <X, Y>(f: Effect.Effect<X, Y, Core>) => Effect.provide(f, a)
      const onB = <X, Y>(f: Effect.Effect<X, Y, Core>) => Effect.provide(f, b)
      // A third connection, as an administrator's.
      const admin = yield* PgClientLayer.make(database.url, { maxConnections: 1 })
      const listeners = admin<{ n: unknown }>`
        SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE ${`LISTEN%${NotifyChannel}%`}`.pipe(
          Effect.map((rows) => Number(rows[0]!.n))
        )
      const terminateListeners = admin<{ pid: unknown }>`
        SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE ${`LISTEN%${NotifyChannel}%`}`.pipe(
          Effect.map((rows) => rows.length)
        )
      assert.strictEqual(yield* Effect.orDie(listeners), 2)

      const org = yield* onA(makeOrg)
      const queue = yield* onA(Effect.flatMap(EventQueues, (q) => q.register(org.member, {})))
      let lastEventId = -1
      /** A poll on A, blocked before `act` runs; its answer, woken by `act`'s commit. */
      const pollOnAAround = (act: Effect.Effect<void, unknown>) =>
        Effect.gen(function*() {
          const poll = yield* Effect.forkChild(onA(Effect.flatMap(EventQueues, (q) =>
            q.getEvents(org.member, { queue_id: queue.id, last_event_id: lastEventId })
          )))
          yield* until(onA(Effect.map(Effect.flatMap(EventQueues, (q) => q.waitingPolls), (n) => n === 1)))
          yield* Effect.orDie(act)
          const result = yield* Fiber.join(poll).pipe(
            Effect.timeoutOrElse({ duration: WakeWithin, orElse: () => Effect.die(`no wake-up within ${WakeWithin}`) })
          )
          lastEventId = result.events[result.events.length - 1]!.id
          return result.events.map(alertWordsOf)
        })
      const addOnB = (word: string) => onB(Effect.flatMap(AlertWords, (w) => w.add(org.member, [word])))

      // Both LISTEN backends are killed; B commits at once, while A may still be reconnecting.
      assert.deepStrictEqual(
        yield* pollOnAAround(Effect.andThen(
          Effect.flatMap(terminateListeners, (n) => Effect.sync(() => assert.strictEqual(n, 2))),
          addOnB("during")
        )),
        [["during"]]
      )
      // Once both listen again, B's NOTIFY reaches A.
      yield* until(Effect.map(Effect.orDie(listeners), (n) => n === 2))
      assert.deepStrictEqual(yield* pollOnAAround(addOnB("after")), [["after", "during"]])
      // Each process logged the loss once and the restoration once.
      const lost = logs.filter((line) => line.startsWith("Warn") && line.includes("LISTEN"))
      const restored = logs.filter((line) => line.startsWith("Info") && line.includes("LISTEN"))
      assert.strictEqual(lost.length, 2, logs.join("\n"))
      assert.strictEqual(restored.length, 2, logs.join("\n"))
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 60_000)
})
