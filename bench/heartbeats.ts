/**
 * Heartbeats: N long polls (1,000) of one organization whose heartbeats come
 * due together, beside one event reaching the same N polls, in the same run,
 * on PostgreSQL (a fresh database, dropped afterwards; skipped with one line
 * when no server answers) and on embedded PGlite.
 *
 * A poll that waits with nothing to send gets a heartbeat after 45–55 s: a
 * fresh id from the log's sequence (taken under the organization's lock, so
 * that it comes after every committed event), saved on its queue, then the
 * queue's contents. With thousands of clients, every second brings many of
 * them, and those that come due together are answered together.
 *
 * Each round, alternating, the same N polls (ten users' queues in turn,
 * through the core's `EventQueues`, no HTTP) wait twice:
 * - event: once all wait, one event addressed to all of them; the time from
 *   its publication until the last poll has its answer;
 * - heartbeat: with the heartbeat delay set to 2 s; the time from the last
 *   poll's deadline (its queue's `last_connected`, the moment it began to
 *   wait, plus the delay) until the last poll has its answer.
 *
 * Reported: the median of `--rounds` rounds (default 5) of each, and their
 * ratio event/heartbeat (1: a heartbeat burst is answered as fast as an
 * event). `HEARTBEATS_BACKENDS=postgres` skips PGlite, `=pglite` skips
 * PostgreSQL; `HEARTBEATS_POLLS=N` changes the number of polls.
 */
import { Audience } from "@teamchat/core/domain/Event"
import type { Principal } from "@teamchat/core/domain/Principal"
import type { User } from "@teamchat/core/domain/User"
import { Transactor } from "@teamchat/core/ports/Transactor"
import * as Persistence from "@teamchat/core/Persistence"
import { EventQueues, EventQueuesConfig } from "@teamchat/core/services/events/EventQueues"
import { Events } from "@teamchat/core/services/events/Events"
import { Organizations } from "@teamchat/core/services/Organizations"
import { Users } from "@teamchat/core/services/Users"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { describeSpread, postgresAdminUrl, spread } from "./stats.ts"

/** The number of polls: 1,000, or `HEARTBEATS_POLLS`. */
const pollCountOf = (): number => {
  const n = Number(process.env.HEARTBEATS_POLLS ?? 1000)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`HEARTBEATS_POLLS must be a positive integer, not ${process.env.HEARTBEATS_POLLS}`)
  return n
}
const userCount = 10
const heartbeatMs = 2_000

/** The server's timings, but heartbeats at exactly `heartbeatMs`, so the deadlines follow the polls' start. */
const config = { ...EventQueuesConfig.defaultValue(), heartbeatMinMs: heartbeatMs, heartbeatMaxMs: heartbeatMs }

interface Round {
  readonly eventMs: number
  readonly heartbeatMs: number
}

const measure = async (
  persistence: Layer.Layer<Persistence.Persistence | SqlClient.SqlClient, unknown>,
  pollCount: number,
  rounds: number,
  log: (line: string) => void
): Promise<ReadonlyArray<Round>> => {
  const core = Teamchat.layerServices.pipe(Layer.provideMerge(persistence), Layer.provide(Teamchat.layerSecretsTest))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(core, scope).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
  )
  const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
    Effect.runPromise(
      effect.pipe(Effect.provideService(EventQueuesConfig, config), Effect.provideContext(context)) as Effect.Effect<A, E>
    )
  try {
    const { principals, realm } = await run(Effect.gen(function*() {
      const organizations = yield* Organizations
      const users = yield* Users
      const { realm } = yield* organizations.create({
        string_id: "beats",
        name: "Beats",
        url: "http://beats.example.test",
        owner: { email: "owner@beats.test", full_name: "Owner" }
      })
      const principals: Array<Principal> = []
      for (let i = 0; i < userCount; i++) {
        const user: User = yield* users.create(realm.id, { email: `u${i}@beats.test`, full_name: `U${i}`, role: 400 })
        principals.push({ realm, user })
      }
      return { principals, realm }
    }))
    const queues = await run(Effect.gen(function*() {
      const eventQueues = yield* EventQueues
      const made = []
      for (let i = 0; i < pollCount; i++) {
        const principal = principals[i % userCount]!
        made.push({ principal, id: (yield* eventQueues.register(principal, { event_types: ["alert_words"] })).id, last: -1 })
      }
      return made
    }))
    const blocked = () =>
      run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ n: unknown; latest: unknown }>`
          SELECT count(*) AS n, max(last_connected) AS latest FROM event_queues WHERE blocked_until > 0`
        return { count: Number(row!.n), latest: Number(row!.latest) }
      }))
    /** Every poll, started; resolves with the time the last one had its answer. */
    const pollAll = () => {
      let last = 0
      const answers = queues.map((queue) =>
        run(Effect.gen(function*() {
          const eventQueues = yield* EventQueues
          return yield* eventQueues.getEvents(queue.principal, { queue_id: queue.id, last_event_id: queue.last })
        })).then((result) => {
          last = Math.max(last, performance.now())
          const newest = result.events.at(-1)
          if (newest !== undefined) queue.last = newest.id
        })
      )
      return Promise.all(answers).then(() => last)
    }
    /** Until every poll waits; the newest start of a wait (the clock's milliseconds). */
    const allWaiting = async () => {
      const giveUp = performance.now() + 60_000
      for (;;) {
        const { count, latest } = await blocked()
        if (count === pollCount) return latest
        if (performance.now() > giveUp) throw new Error(`only ${count} of ${pollCount} polls wait after 60 s`)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    const event = async (n: number) => {
      const answered = pollAll()
      await allWaiting()
      const start = performance.now()
      await run(Effect.gen(function*() {
        const events = yield* Events
        yield* (yield* Transactor).withTransaction(
          events.publish(realm.id, { type: "alert_words", alert_words: [`w${n}`] }, Audience.users(principals.map((p) => p.user.id)))
        )
      }))
      return (await answered) - start
    }
    const heartbeat = async () => {
      const answered = pollAll()
      const latest = await allWaiting()
      // The last deadline on this process's clock: the wait's start (Date
      // milliseconds, as the queue records it) plus the delay.
      const due = performance.now() + (latest + heartbeatMs - Date.now())
      return (await answered) - due
    }
    log(`${pollCount} queues of ${userCount} users; warming up: 2 events, 2 heartbeats`)
    for (let i = 0; i < 2; i++) {
      await event(i)
      await heartbeat()
    }
    const results: Array<Round> = []
    for (let round = 1; round <= rounds; round++) {
      const r = { eventMs: await event(100 + round), heartbeatMs: await heartbeat() }
      results.push(r)
      log(`round ${round}: event ${r.eventMs.toFixed(1)} ms, heartbeats ${r.heartbeatMs.toFixed(1)} ms after the last was due`)
    }
    return results
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const metrics = (label: string, pollCount: number, rounds: ReadonlyArray<Round>, log: (line: string) => void): Array<Metric> => {
  const event = spread(rounds.map((r) => r.eventMs))
  const heartbeat = spread(rounds.map((r) => r.heartbeatMs))
  const ratio = spread(rounds.map((r) => r.eventMs / Math.max(r.heartbeatMs, 0.1)))
  log(`${label}: one event to ${pollCount} polls ${describeSpread(event, 1)} ms; ${pollCount} heartbeats due together ${describeSpread(heartbeat, 1)} ms`)
  log(`${label}: event/heartbeat ${describeSpread(ratio)}`)
  return [
    { name: `${label}: one event to ${pollCount} polls, last answer (ms)`, value: event.median, unit: "" },
    { name: `${label}: ${pollCount} heartbeats due together, last answer after the last deadline (ms)`, value: heartbeat.median, unit: "" },
    { name: `${label}: event/heartbeat (1: heartbeats answered as fast as an event)`, value: ratio.median, unit: "" }
  ]
}

export const heartbeatsBenchmark: Benchmark = {
  name: "heartbeats",
  description: "1,000 heartbeats due together vs one event to the same 1,000 polls (PostgreSQL, PGlite)",
  run: async (options: BenchOptions, log) => {
    const pollCount = pollCountOf()
    const out: Array<Metric> = []
    const admin = process.env.HEARTBEATS_BACKENDS === "pglite" ? { skip: "PostgreSQL skipped (HEARTBEATS_BACKENDS=pglite)" } : await postgresAdminUrl()
    if ("skip" in admin) {
      log(admin.skip)
    } else {
      log(`PostgreSQL (a fresh database via ${new URL(admin.url).host}), ${options.rounds} rounds`)
      const rounds = await measure(
        Persistence.layerSql.pipe(Layer.provideMerge(TestDatabase.postgresLayer({ adminUrl: admin.url }))),
        pollCount,
        options.rounds,
        log
      )
      out.push(...metrics("PostgreSQL", pollCount, rounds, log))
    }
    if (process.env.HEARTBEATS_BACKENDS === "postgres") return out
    log(`PGlite (in memory), ${options.rounds} rounds`)
    const rounds = await measure(Persistence.layerSql.pipe(Layer.provideMerge(TestDatabase.pgliteMigratedLayer())), pollCount, options.rounds, log)
    out.push(...metrics("PGlite", pollCount, rounds, log))
    return out
  }
}
