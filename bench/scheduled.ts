/**
 * Scheduled-message delivery: 1,000 messages due in the same second.
 *
 * In this process, on an embedded PGlite (and on PostgreSQL when
 * `TEST_DATABASE_URL` or `DATABASE_URL` is set: a fresh database is created
 * there and dropped afterwards), the demo organization is seeded and King
 * Hamlet schedules 1,000 messages to #Verona through the service
 * (`ScheduledMessages.create`, validated like sends). Their delivery time is
 * then set to the same second T, two seconds ahead, and the worker runs
 * (`ScheduledDelivery.run`, as the server starts it). Each message's
 * lateness is the time from T until its delivery transaction committed.
 *
 * Baseline, same run and database: the 1,000 message rows and their
 * recipients' rows written with the repository's plain INSERTs, one
 * transaction each (what a send stores, without validation, rendering,
 * flags, events or the scheduled row's claim and update).
 *
 * A second reference, also measured in the run: the same 1,000 messages
 * sent by hand through `Messages.send`, one after the other (the path every
 * delivery takes), which bounds what the worker can reach.
 *
 * On PostgreSQL also two processes (two cores on one fresh database, each
 * with its own pool and worker, as two servers run them): the same batch,
 * each message delivered once, its lateness beside one process's.
 *
 * Targets: all delivered within 5 s of T, p99 lateness under 1 s. The
 * harness knows floors only, so they are reported as ratios that must reach
 * 1 (5 s / time to the last delivery; 1 s / p99 lateness).
 *
 * `SCHEDULED_COUNT` changes the number of messages; `SCHEDULED_CONCURRENCY`
 * the worker's parallel deliveries on PostgreSQL (default 4; PGlite has one
 * connection, so 1); `SCHEDULED_BATCH` its rows per transaction (default:
 * the worker's, 100).
 */
import * as DemoOrganization from "../packages/core/src/demo/DemoOrganization.ts"
import * as Persistence from "../packages/core/src/Persistence.ts"
import { MessageRepo, SubscriptionRepo } from "../packages/core/src/ports/Repositories.ts"
import { Transactor } from "../packages/core/src/ports/Transactor.ts"
import { Channels } from "../packages/core/src/services/Channels.ts"
import { Messages } from "../packages/core/src/services/Messages.ts"
import { Organizations } from "../packages/core/src/services/Organizations.ts"
import { ScheduledDelivery, ScheduledDeliveryConfig } from "../packages/core/src/services/ScheduledDelivery.ts"
import { ScheduledMessages } from "../packages/core/src/services/ScheduledMessages.ts"
import { Users } from "../packages/core/src/services/Users.ts"
import * as Teamchat from "../packages/core/src/Teamchat.ts"
import * as TestDatabase from "../packages/core/src/testing/TestDatabase.ts"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as SqlClient from "effect/sql/SqlClient"
import { PgliteClient } from "../packages/core/src/sql/PgliteClient.ts"
import type { Benchmark, Metric } from "./harness.ts"

const count = Number(process.env.SCHEDULED_COUNT ?? 1000)

interface Result {
  readonly scheduleMs: number
  readonly lastMs: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly baselineMs: number
  readonly sendMs: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!

/** Records when each delivery's transaction commits. */
const recordingMessages = (commits: Array<number>) =>
  Layer.effect(
    Messages,
    Effect.gen(function*() {
      const real = yield* Messages
      const tx = yield* Transactor
      return Messages.of({
        ...real,
        sendMany: (items) =>
          Effect.tap(real.sendMany(items), (results) =>
            tx.afterCommit(Effect.sync(() => {
              const at = Date.now()
              for (const r of results) if (r._tag === "Success") commits.push(at)
            })))
      })
    })
  )

/**
 * Seeds the demo organization; King Hamlet schedules `count` messages to
 * #Verona (the service path), far ahead; then all move to one second, two
 * seconds from now.
 */
const scheduleBatch = (log: (line: string) => void) =>
  Effect.gen(function*() {
    yield* DemoOrganization.seed("http://localhost:9991")
    const organizations = yield* Organizations
    const realm = (yield* organizations.findByStringId("zulip"))!
    const hamlet = (yield* (yield* Users).findByEmail(realm.id, "hamlet@zulip.com"))!
    const principal = { user: hamlet, realm }
    const verona = (yield* (yield* Channels).findByName(realm.id, "Verona"))!
    const scheduled = yield* ScheduledMessages
    const sql = yield* SqlClient.SqlClient

    const scheduleStart = Date.now()
    const later = Math.floor(Date.now() / 1000) + 3600
    for (let i = 0; i < count; i++) {
      yield* scheduled.create(principal, {
        type: "channel",
        to: verona.id,
        topic: `bench ${i % 10}`,
        content: `Scheduled message **${i}**`,
        scheduled_delivery_timestamp: later
      }, { client: "website" })
    }
    const scheduleMs = Date.now() - scheduleStart
    log(`scheduled ${count} messages in ${scheduleMs} ms`)
    const due = Math.floor(Date.now() / 1000) + 2
    yield* sql`UPDATE scheduled_messages SET scheduled_timestamp = ${due} WHERE NOT delivered`
    return { scheduleMs, due, realm, hamlet, principal, verona }
  })

/** A delivery worker, as the server runs it, whose commits are recorded. */
const startWorker = (commits: Array<number>, concurrency: number) =>
  Effect.gen(function*() {
    const delivery = yield* Layer.build(Layer.fresh(ScheduledDelivery.layer).pipe(Layer.provide(recordingMessages(commits))))
    return yield* Effect.forkChild(
      Effect.provide(Effect.flatMap(ScheduledDelivery, (d) => d.run), delivery).pipe(
        Effect.provideService(ScheduledDeliveryConfig, {
          ...ScheduledDeliveryConfig.defaultValue(),
          concurrency,
          ...(process.env.SCHEDULED_BATCH === undefined ? {} : { batchSize: Number(process.env.SCHEDULED_BATCH) })
        })
      )
    )
  })

/** Waits for every delivery, then checks that each row was delivered once; returns the sorted lateness (ms). */
const awaitDeliveries = (recorded: ReadonlyArray<ReadonlyArray<number>>, due: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const deadline = due * 1000 + 60_000
    const all = () => recorded.flat()
    let commits = all()
    while ((commits = all()).length < count) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`only ${commits.length} of ${count} delivered after 60 s`))
      yield* Effect.sleep("10 millis")
    }
    const [{ n }] = yield* sql<{ n: unknown }>`SELECT count(*) AS n FROM scheduled_messages WHERE delivered`
    if (Number(n) !== count || commits.length !== count) {
      return yield* Effect.die(new Error(`${n} rows marked delivered and ${commits.length} sends, expected ${count}`))
    }
    return commits.map((t) => t - due * 1000).sort((a, b) => a - b)
  })

const measure = (concurrency: number, log: (line: string) => void) =>
  Effect.gen(function*() {
    const { due, hamlet, principal, realm, scheduleMs, verona } = yield* scheduleBatch(log)
    const commits: Array<number> = []
    const worker = yield* startWorker(commits, concurrency)
    const lateness = yield* awaitDeliveries([commits], due)
    yield* Fiber.interrupt(worker)

    // Baseline: the same rows with plain INSERTs, one transaction each.
    const messages = yield* MessageRepo
    const tx = yield* Transactor
    const recipients = (yield* (yield* SubscriptionRepo).listByChannel(verona.id))
      .filter((s) => s.active)
      .map((s) => ({ user_id: s.user_id, flags: s.user_id === hamlet.id ? 1 : 0 }))
    const baselineStart = Date.now()
    for (let i = 0; i < count; i++) {
      const content = `Scheduled message **${i}**`
      yield* tx.withTransaction(messages.insert({
        realm_id: realm.id,
        sender_id: hamlet.id,
        type: "stream",
        channel_id: verona.id,
        topic: `bench ${i % 10}`,
        dm_user_ids: [],
        content,
        rendered_content: `<p>Scheduled message <strong>${i}</strong></p>`,
        date_sent: due,
        client: "website",
        has_attachment: false,
        has_image: false,
        has_link: false,
        last_edit_time: null
      }, recipients))
    }
    const baselineMs = Date.now() - baselineStart

    // Second reference: the same messages sent by hand (Messages.send), one after the other.
    const sendStart = Date.now()
    for (let i = 0; i < count; i++) {
      yield* (yield* Messages).send(principal, {
        type: "stream",
        to: verona.id,
        topic: `bench ${i % 10}`,
        content: `Scheduled message **${i}**`
      }, { client: "website" })
    }
    const sendMs = Date.now() - sendStart
    return {
      scheduleMs,
      lastMs: lateness[lateness.length - 1]!,
      p50Ms: percentile(lateness, 0.5),
      p99Ms: percentile(lateness, 0.99),
      baselineMs,
      sendMs
    } satisfies Result
  })

interface TwoProcessResult {
  readonly lastMs: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly sends: readonly [number, number]
}

/**
 * Two server processes on one PostgreSQL database (two cores, each with
 * its own pool and worker, as two servers would run them) and the same
 * batch due in one second: each message must go out once, and the lateness
 * is reported beside one process's from the same run.
 */
const measureTwoProcesses = (adminUrl: string, concurrency: number, log: (line: string) => void) =>
  Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      const database = yield* Layer.build(TestDatabase.postgresLayer({ adminUrl }))
      const url = Context.get(database, TestDatabase.TestDatabase).url
      const open = () =>
        Teamchat.layerServices.pipe(
          Layer.provideMerge(Persistence.layerPostgres(url, { maxConnections: concurrency + 2 })),
          Layer.provide(Teamchat.layerSecretsTest)
        )
      // One after the other: the second finds the migrations done.
      const a = yield* Layer.build(open())
      const b = yield* Layer.build(open())
      const { due } = yield* Effect.provide(scheduleBatch(log), a)
      const commitsA: Array<number> = []
      const commitsB: Array<number> = []
      const workerA = yield* Effect.provide(startWorker(commitsA, concurrency), a)
      const workerB = yield* Effect.provide(startWorker(commitsB, concurrency), b)
      const lateness = yield* Effect.provide(awaitDeliveries([commitsA, commitsB], due), a)
      yield* Fiber.interrupt(workerA)
      yield* Fiber.interrupt(workerB)
      return {
        lastMs: lateness[lateness.length - 1]!,
        p50Ms: percentile(lateness, 0.5),
        p99Ms: percentile(lateness, 0.99),
        sends: [commitsA.length, commitsB.length]
      } satisfies TwoProcessResult
    })).pipe(Effect.provideService(References.MinimumLogLevel, "Warn")) as Effect.Effect<TwoProcessResult, unknown>
  )

const twoProcessMetrics = (one: Result, two: TwoProcessResult): ReadonlyArray<Metric> => [
  { name: `PostgreSQL, two processes: all ${count} delivered, after the due second`, value: two.lastMs, unit: "ms" },
  { name: "PostgreSQL, two processes: p50 lateness", value: two.p50Ms, unit: "ms" },
  { name: "PostgreSQL, two processes: p99 lateness", value: two.p99Ms, unit: "ms" },
  { name: "PostgreSQL: ratio one process/two processes (time to the last delivery)", value: one.lastMs / Math.max(1, two.lastMs), unit: "" },
  { name: "PostgreSQL, two processes: 5 s / time to the last delivery", value: 5000 / Math.max(1, two.lastMs), unit: "", min: 1 }
]

const run = (
  core: Layer.Layer<Teamchat.Services | Persistence.Persistence | SqlClient.SqlClient, unknown>,
  concurrency: number,
  log: (line: string) => void
) =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(Layer.build(core), (context) => Effect.provide(measure(concurrency, log), context))).pipe(
      Effect.provideService(References.MinimumLogLevel, "Warn")
    ) as Effect.Effect<Result, unknown>
  )

const metrics = (label: string, r: Result): ReadonlyArray<Metric> => [
  { name: `${label}: scheduling ${count} (service)`, value: r.scheduleMs, unit: "ms" },
  { name: `${label}: all ${count} delivered, after the due second`, value: r.lastMs, unit: "ms" },
  { name: `${label}: p50 lateness`, value: r.p50Ms, unit: "ms" },
  { name: `${label}: p99 lateness`, value: r.p99Ms, unit: "ms" },
  { name: `${label}: baseline, ${count} plain message inserts`, value: r.baselineMs, unit: "ms" },
  { name: `${label}: ratio baseline/delivery time`, value: r.baselineMs / Math.max(1, r.lastMs), unit: "" },
  { name: `${label}: reference, ${count} sent by hand (Messages.send)`, value: r.sendMs, unit: "ms" },
  { name: `${label}: ratio sent by hand/delivery time`, value: r.sendMs / Math.max(1, r.lastMs), unit: "" },
  { name: `${label}: 5 s / time to the last delivery`, value: 5000 / Math.max(1, r.lastMs), unit: "", min: 1 },
  { name: `${label}: 1 s / p99 lateness`, value: 1000 / Math.max(1, r.p99Ms), unit: "", min: 1 }
]

const describe = (label: string, r: Result) =>
  `${label}: last delivery ${r.lastMs} ms after the due second, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms; ` +
  `baseline inserts ${r.baselineMs} ms; sent by hand ${r.sendMs} ms`

export const scheduledBenchmark: Benchmark = {
  name: "scheduling",
  description: `${count} scheduled messages due in one second: time to deliver all, p99 lateness; vs plain inserts`,
  run: async (_options, log) => {
    const out: Array<Metric> = []
    log(`PGlite (in memory), ${count} messages …`)
    const pglite = await run(
      Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgliteClient.layer({}))),
      1,
      log
    )
    log(describe("PGlite", pglite))
    out.push(...metrics("PGlite", pglite))
    const admin = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL
    if (admin !== undefined && admin !== "") {
      const concurrency = Number(process.env.SCHEDULED_CONCURRENCY ?? 4)
      log(`PostgreSQL (a fresh database via ${new URL(admin).host}), ${count} messages, ${concurrency} at once …`)
      const postgres = await run(
        Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(
          Layer.provideMerge(TestDatabase.postgresLayer({ adminUrl: admin }))
        ),
        concurrency,
        log
      )
      log(describe("PostgreSQL", postgres))
      out.push(...metrics("PostgreSQL", postgres))
      log(`PostgreSQL, two processes on one fresh database, ${count} messages, ${concurrency} at once each …`)
      const two = await measureTwoProcesses(admin, concurrency, log)
      log(
        `PostgreSQL, two processes: last delivery ${two.lastMs} ms after the due second, p50 ${two.p50Ms} ms, ` +
          `p99 ${two.p99Ms} ms; sends ${two.sends[0]} + ${two.sends[1]}; one process: ${postgres.lastMs} ms`
      )
      out.push(...twoProcessMetrics(postgres, two))
    } else {
      log("PostgreSQL skipped (set TEST_DATABASE_URL or DATABASE_URL)")
    }
    return out
  }
}
