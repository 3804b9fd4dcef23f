/**
 * Exactly-once delivery across server processes on one PostgreSQL database
 * (a fresh one per test, from TEST_DATABASE_URL): two independent cores,
 * each with its own pool and running worker, and many messages due in the
 * same second; and a process whose database connection dies in the middle
 * of a delivery (the server aborts its transaction), after which the other
 * process sends the message once.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as TestClock from "effect/testing/TestClock"
import * as Persistence from "../../src/Persistence.ts"
import { ScheduledMessageRepo } from "../../src/ports/ScheduledMessageRepo.ts"
import { Messages } from "../../src/services/Messages.ts"
import { ScheduledDelivery, ScheduledDeliveryConfig } from "../../src/services/ScheduledDelivery.ts"
import { ScheduledMessages } from "../../src/services/ScheduledMessages.ts"
import type * as Teamchat from "../../src/Teamchat.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { core, makeScene, messagesOf, nowSeconds, sleepProbe } from "./fixtures.ts"

type Core = Teamchat.Services | Persistence.Persistence

/** Messages whose sends are counted, one per message of a batch (and optionally held after writing). */
const wrappedMessages = (onSent: Effect.Effect<void>) =>
  Layer.effect(
    Messages,
    Effect.gen(function*() {
      const real = yield* Messages
      return Messages.of({
        ...real,
        sendMany: (items) =>
          Effect.tap(real.sendMany(items), (results) =>
            Effect.forEach(results.filter((r) => r._tag === "Success"), () => onSent, { discard: true }))
      })
    })
  )

/** A delivery service of one process, with its own Messages wrapper. */
const deliveryOf = (context: Layer.Layer<Core>, onSent: Effect.Effect<void>) =>
  Layer.fresh(ScheduledDelivery.layer).pipe(Layer.provide(wrappedMessages(onSent)), Layer.provide(context))

describe("scheduled delivery across two processes on PostgreSQL", () => {
  it.effect("N messages due in the same second: both workers run, each message is delivered exactly once", () =>
    Effect.gen(function*() {
      const database = yield* TestDatabase.TestDatabase
      const open = () => core(Persistence.layerPostgres(database.url, { maxConnections: 6 }))
      // Built one after the other: the second finds the migrations done.
      const a = yield* Layer.build(open())
      const b = yield* Layer.build(open())
      const onA = <X, Y>(f: Effect.Effect<X, Y, Core>) => Effect.provide(f, a)
      const scene = yield* onA(makeScene)
      const n = 120
      const at = (yield* nowSeconds) + 6
      const ids = yield* onA(Effect.gen(function*() {
        const scheduled = yield* ScheduledMessages
        return yield* Effect.forEach(
          Array.from({ length: n }, (_, i) => i),
          (i) =>
            scheduled.create(scene.member, {
              type: i % 2 === 0 ? "channel" : "direct",
              to: i % 2 === 0 ? scene.channel.id : [scene.other.user.id],
              topic: "batch",
              content: `batch ${i}`,
              scheduled_delivery_timestamp: at
            }),
          { concurrency: 4 }
        )
      }))
      const sends = { a: 0, b: 0 }
      // Small batches, so that both processes find due rows to claim; no
      // look before the due second.
      const config = { ...ScheduledDeliveryConfig.defaultValue(), concurrency: 3, batchSize: 5, maxWaitMillis: 60_000 }
      const start = (context: typeof a, count: () => void) =>
        Effect.gen(function*() {
          const probe = yield* sleepProbe
          const delivery = yield* Layer.build(deliveryOf(Layer.succeedContext(context), Effect.sync(count)))
          const fiber = yield* Effect.forkChild(
            Effect.provide(
              Effect.flatMap(ScheduledDelivery, (d) => Effect.provideService(d.run, Clock.Clock, probe.clock)),
              delivery
            ).pipe(Effect.provideService(ScheduledDeliveryConfig, config))
          )
          return { fiber, probe }
        })
      const workerA = yield* start(a, () => sends.a++)
      const workerB = yield* start(b, () => sends.b++)
      // Both asleep until the due second, then woken by it together.
      assert.deepStrictEqual([yield* workerA.probe.nextSleep(), yield* workerB.probe.nextSleep()], [6_000, 6_000])
      yield* TestClock.adjust(6_000)
      // Each has finished the pass that second started: every row is taken.
      yield* workerA.probe.nextSleep()
      yield* workerB.probe.nextSleep()
      yield* Fiber.interrupt(workerA.fiber)
      yield* Fiber.interrupt(workerB.fiber)
      assert.strictEqual(sends.a + sends.b, n, `sends: ${JSON.stringify(sends)}`)
      // Both processes took part (they wake at the same second and share the rows).
      assert.isAbove(Math.min(sends.a, sends.b), 0, `sends: ${JSON.stringify(sends)}`)
      const rows = yield* Effect.provide(
        Effect.forEach(ids, (id) => Effect.flatMap(ScheduledMessageRepo, (r) => r.findById(id))),
        b
      )
      assert.isTrue(rows.every((r) => r?.delivered === true && r.failed === false))
      assert.strictEqual(new Set(rows.map((r) => r!.delivered_message_id)).size, n)
      const received = yield* Effect.provide(messagesOf(scene.other.user.id), b)
      const contents = received.map((m) => m.content).filter((c) => c.startsWith("batch ")).sort()
      assert.deepStrictEqual(contents, Array.from({ length: n }, (_, i) => `batch ${i}`).sort())
      assert.isTrue(received.every((m) => !m.content.startsWith("batch ") || m.date_sent === at))
      // How late, on a real clock: bench/scheduled.ts (two processes).
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 120_000)

  it.effect("a delivery whose connection dies mid-transaction is run again on a new one: sent once, nothing left for the other process", () =>
    Effect.gen(function*() {
      const database = yield* TestDatabase.TestDatabase
      const open = () => core(Persistence.layerPostgres(database.url, { maxConnections: 3 }))
      const a = yield* Layer.build(open())
      const b = yield* Layer.build(open())
      const scene = yield* Effect.provide(makeScene, a)
      const at = (yield* nowSeconds) + 1
      const id = yield* Effect.provide(
        Effect.flatMap(ScheduledMessages, (s) =>
          s.create(scene.member, {
            type: "direct",
            to: [scene.other.user.id],
            content: "survives a crash",
            scheduled_delivery_timestamp: at
          })),
        a
      )
      yield* TestClock.adjust(1_000)
      const sent = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holding = yield* Layer.build(
        deliveryOf(Layer.succeedContext(a), Effect.andThen(Deferred.succeed(sent, undefined), Deferred.await(release)))
      )
      const crashing = yield* Effect.forkChild(
        Effect.provide(Effect.flatMap(ScheduledDelivery, (d) => d.deliverOne([])), holding)
      )
      yield* Deferred.await(sent)
      // The message row is written but not committed; kill A's connection.
      const killed = yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ pid: unknown }>`
            SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
            WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`),
        b
      )
      assert.lengthOf(killed, 1)
      yield* Deferred.succeed(release, undefined)
      // Nothing of the first attempt committed, so the transaction is run
      // again (once) on another connection, and delivers.
      const exit = yield* Fiber.await(crashing)
      assert.isTrue(Exit.isSuccess(exit))
      const delivered = yield* Effect.provide(Effect.flatMap(ScheduledMessageRepo, (r) => r.findById(id)), b)
      assert.deepStrictEqual([delivered?.delivered, delivered?.failed], [true, false])
      const outcomes = yield* Effect.provide(Effect.flatMap(ScheduledDelivery, (d) => d.runDue), b)
      assert.deepStrictEqual(outcomes, [])
      const received = (yield* Effect.provide(messagesOf(scene.other.user.id), a))
        .filter((m) => m.content === "survives a crash")
      assert.lengthOf(received, 1)
      assert.strictEqual(received[0]!.date_sent, at)
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 120_000)
})
