/**
 * Scaling: what one request costs the server as the organization's messages
 * grow, on every backend. GET /users/me, GET /messages narrowed to a channel
 * and topic (50 messages, anchor newest) and POST /messages to a channel
 * with 100 subscribers, each measured at 1,000, 10,000 and 100,000 messages
 * on the in-memory backend, PGlite (in memory) and PostgreSQL (a fresh
 * database, dropped afterwards; skipped with one line only when no server
 * answers). Every figure is printed beside the same backend's figure at
 * 1,000 messages as a ratio: flat is 1.0.
 *
 * - The figure is CPU time per request: this process's (`process.cpuUsage`)
 *   over a run of requests handed to the web handler one after another (no
 *   sockets, no load generator: the time is the server's own work; on
 *   PGlite the database works in this thread too). On PostgreSQL the
 *   database's own processes' time (`/proc/<pid>/schedstat` of the backends
 *   serving the benchmark's database) is reported beside it, since a
 *   missing index would show there and not here.
 * - Every answer is checked after its run (status 200; GET /users/me is
 *   iago's, with the newest message id; GET /messages has 50 messages, all
 *   in the channel and topic; each send has a new id), untimed.
 * - Setup, unmeasured: the 60 messages of the read topic are sent through
 *   `Messages.sendMany` (the core's batch send: rendering, flags, events).
 *   The fill between sizes goes through `MessageStore.insertMany`, the bulk
 *   write that batch send ends in (messages and their rows, 1,000 messages
 *   a transaction, no rendering or events), so 100,000 messages take
 *   seconds: a fifth in other topics of the read channel, the rest in ten
 *   other channels, each message with rows for iago (the sender, in every
 *   channel, so his rows grow with the total) and three other users.
 * - Each size measures `--rounds` rounds (default 5) of 100 requests of
 *   each GET and 40 sends (after 100, 100 and 20 unmeasured); the median
 *   over the rounds is the figure, the spread (lowest-highest) printed
 *   beside it. The measured sends add `rounds × 40 + 20` messages per size.
 *
 * `SCALING_SIZES=1000,10000` and `SCALING_BACKENDS=memory,pglite,postgres`
 * choose what runs (`--quick`: 1,000 and 10,000 only).
 */
import { readFileSync } from "node:fs"
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import type { ChannelId, UserId } from "@teamchat/core/domain/Ids"
import { realmId } from "@teamchat/core/domain/Ids"
import type { Principal } from "@teamchat/core/domain/Principal"
import { FlagBits } from "@teamchat/core/domain/Message"
import type { Message } from "@teamchat/core/domain/Message"
import { MessageStore } from "@teamchat/core/ports/MessageStore"
import { UserRepo } from "@teamchat/core/ports/Repositories"
import type { Insert } from "@teamchat/core/ports/Repositories"
import { Transactor } from "@teamchat/core/ports/Transactor"
import { Authentication } from "@teamchat/core/services/Authentication"
import { Channels } from "@teamchat/core/services/Channels"
import { Messages } from "@teamchat/core/services/Messages"
import type { BatchItem } from "@teamchat/core/services/Messages"
import { Users } from "@teamchat/core/services/Users"
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import { makeWebHandler } from "@teamchat/http/Http"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { profiled } from "./profile.ts"
import { describeSpread, postgresAdminUrl, spread } from "./stats.ts"

const origin = "http://localhost:9991"
const subscriberCount = 100
const fillChannelCount = 10
const readTopic = "topic 3"
const readTopicMessages = 60
const kinds = ["GET /users/me", "GET /messages", "POST /messages"] as const
type Kind = typeof kinds[number]

const requestsPerRound: Record<Kind, number> = { "GET /users/me": 100, "GET /messages": 100, "POST /messages": 40 }
const warmupRequests: Record<Kind, number> = { "GET /users/me": 100, "GET /messages": 100, "POST /messages": 20 }
const fillBatch = 1000

const quick = process.argv.includes("--quick")
const sizes: ReadonlyArray<number> = process.env.SCALING_SIZES
  ? process.env.SCALING_SIZES.split(",").map(Number)
  : quick
  ? [1_000, 10_000]
  : [1_000, 10_000, 100_000]
const backends = (process.env.SCALING_BACKENDS ?? "memory,pglite,postgres").split(",")

/** Per kind, per round: CPU µs per request of this process, and of PostgreSQL's backends (when measured). */
type Rounds = Record<Kind, { readonly own: Array<number>; readonly database: Array<number> }>

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

type Core = Layer.Layer<Teamchat.Services | SqlClient.SqlClient | TestDatabase.TestDatabase, unknown> | Layer.Layer<Teamchat.Services, unknown>

/** CPU time (µs) of the PostgreSQL backends serving this database, from /proc: the first field of schedstat (ns on a CPU). */
const makeDatabaseCpu = (run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>) => async (): Promise<number> => {
  const pids = await run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`
    return rows.map((r) => Number(r.pid))
  }))
  let nanoseconds = 0
  for (const pid of pids) {
    try {
      nanoseconds += Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0])
    } catch {
      // A backend that ended meanwhile, or a server on another machine: counted as nothing.
    }
  }
  return nanoseconds / 1000
}

const measure = async (
  label: string,
  core: Core,
  options: { readonly rounds: number; readonly postgres: boolean },
  log: (line: string) => void
): Promise<Map<number, Rounds>> => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(core as Layer.Layer<Teamchat.Services, unknown>, scope).pipe(
      Effect.provideService(References.MinimumLogLevel, "Warn")
    )
  )
  const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
    Effect.runPromise(
      Effect.provideContext(effect, context).pipe(Effect.provideService(References.MinimumLogLevel, "Warn")) as Effect.Effect<A, E>
    )
  const databaseCpu = options.postgres ? makeDatabaseCpu(run) : async () => 0
  const { dispose, handler } = makeWebHandler(Layer.succeedContext(context), { demo: true, rateLimit: false })
  try {
    await run(DemoOrganization.seed(origin))
    const realm = realmId(1)
    const setup = await run(Effect.gen(function*() {
      const users = yield* Users
      const channels = yield* Channels
      const iago = (yield* (yield* UserRepo).findByDeliveryEmail(realm, "iago@zulip.com"))!
      const others = (yield* (yield* UserRepo).listByRealm(realm)).filter((u) => !u.is_bot && u.id !== iago.id).slice(0, 3)
      const bench: Array<UserId> = []
      for (let i = 0; i < subscriberCount; i++) {
        bench.push((yield* users.create(realm, { email: `bench${i}@zulip.com`, full_name: `Bench ${i}`, role: 400 })).id)
      }
      const few = [iago.id, ...others.map((u) => u.id)]
      const sendTo = yield* channels.create(realm, { name: "bench" })
      yield* channels.subscribe(sendTo.id, [...bench, iago.id])
      const read = yield* channels.create(realm, { name: "read" })
      yield* channels.subscribe(read.id, few)
      const fill: Array<ChannelId> = []
      for (let i = 0; i < fillChannelCount; i++) {
        const created = yield* channels.create(realm, { name: `fill ${i}` })
        yield* channels.subscribe(created.id, few)
        fill.push(created.id)
      }
      const principal: Principal = yield* (yield* Authentication).basic("iago@zulip.com", iago.api_key)
      return { iago: iago.id, key: iago.api_key, sendTo: sendTo.id, read: read.id, fill, few, principal }
    }))
    const auth = basic("iago@zulip.com", setup.key)

    /** Messages in the database, and the newest one's id. */
    let count = 0
    let newest = 0
    log(`${label}: ${readTopicMessages} messages in the read topic`)
    const items: Array<BatchItem> = Array.from({ length: readTopicMessages }, (_, i) => ({
      principal: setup.principal,
      request: { type: "stream", to: setup.read, topic: readTopic, content: `message ${i} with **bold** text` }
    }))
    for (const result of await run(Effect.flatMap(Messages, (messages) => messages.sendMany(items)))) {
      if (result._tag !== "Success") throw new Error(`a send failed: ${JSON.stringify(result)}`)
      newest = Math.max(newest, result.success.id)
      count++
    }

    /** Adds `n` messages through the bulk write (setup only): a fifth in other topics of the read channel. */
    const fillUp = async (n: number) => {
      const recipients = setup.few.map((user_id) => ({ user_id, flags: user_id === setup.iago ? FlagBits.read : 0 }))
      for (let start = 0; start < n; start += fillBatch) {
        const batch: Array<{ readonly message: Insert<Message>; readonly recipients: typeof recipients }> = []
        for (let i = count + start; i < count + Math.min(n, start + fillBatch); i++) {
          const inRead = i % 5 === 0
          batch.push({
            message: {
              realm_id: realm,
              sender_id: setup.iago,
              type: "stream",
              channel_id: inRead ? setup.read : setup.fill[i % fillChannelCount]!,
              topic: inRead ? `topic ${10 + (i % 97)}` : `topic ${i % 50}`,
              dm_user_ids: [],
              content: `message ${i} with **bold** text`,
              rendered_content: `<p>message ${i} with <strong>bold</strong> text</p>`,
              date_sent: 1_700_000_000 + i,
              client: "API",
              has_attachment: false,
              has_image: false,
              has_link: false,
              last_edit_time: null
            },
            recipients
          })
        }
        const inserted = await run(
          Effect.flatMap(Transactor, (tx) => tx.withTransaction(Effect.flatMap(MessageStore, (store) => store.insertMany(batch))))
        )
        newest = Math.max(newest, ...inserted.map((m) => m.id))
      }
      count += n
    }

    const narrow = JSON.stringify([{ operator: "channel", operand: setup.read }, { operator: "topic", operand: readTopic }])
    const readUrl = new URL("/api/v1/messages", origin)
    for (const [k, v] of Object.entries({ anchor: "newest", num_before: "50", num_after: "0", narrow })) {
      readUrl.searchParams.set(k, v)
    }
    let sent = 0
    const requestOf: Record<Kind, () => Request> = {
      "GET /users/me": () => new Request(new URL("/api/v1/users/me", origin), { headers: { authorization: auth } }),
      "GET /messages": () => new Request(readUrl, { headers: { authorization: auth } }),
      "POST /messages": () =>
        new Request(new URL("/api/v1/messages", origin), {
          method: "POST",
          headers: { authorization: auth },
          body: new URLSearchParams({
            type: "stream",
            to: String(setup.sendTo),
            topic: `sent ${sent % 10}`,
            content: `sent ${sent++} with **bold** text`
          })
        })
    }
    /** The client's checks of a run's answers, after it: `previous` is the newest message id before the run. */
    const check = (kind: Kind, answers: ReadonlyArray<{ readonly status: number; readonly text: string }>) => {
      for (const { status, text } of answers) {
        if (status !== 200) throw new Error(`${kind}: ${status} ${text}`)
        const body = JSON.parse(text)
        switch (kind) {
          case "GET /users/me":
            // iago is in every channel: his newest row is the newest message.
            if (body.user_id !== setup.iago || body.max_message_id !== newest) {
              throw new Error(`GET /users/me answered ${text.slice(0, 300)}, the newest message being ${newest}`)
            }
            break
          case "GET /messages":
            if (
              body.messages.length !== 50 ||
              !body.messages.every((m: { stream_id: number; subject: string }) =>
                m.stream_id === setup.read && m.subject === readTopic
              )
            ) throw new Error(`GET /messages answered ${body.messages?.length} messages, not the topic's newest 50`)
            break
          case "POST /messages":
            if (!(body.id > newest)) throw new Error(`POST /messages answered ${text}, the newest message being ${newest}`)
            newest = body.id
            count++
            break
        }
      }
    }
    /** `n` requests of a kind, one after another; CPU µs per request (this process, the database's). */
    const runOf = async (kind: Kind, n: number) => {
      const requests = Array.from({ length: n }, requestOf[kind])
      const answers: Array<{ status: number; text: string }> = []
      const database = await databaseCpu()
      const own = process.cpuUsage()
      for (const request of requests) {
        const response = await handler(request)
        answers.push({ status: response.status, text: await response.text() })
      }
      const used = process.cpuUsage(own)
      const databaseUsed = (await databaseCpu()) - database
      check(kind, answers)
      return { own: (used.user + used.system) / n, database: databaseUsed / n }
    }

    const results = new Map<number, Rounds>()
    for (const size of sizes) {
      if (size > count) {
        const started = performance.now()
        const cpu = process.cpuUsage()
        await fillUp(size - count)
        const used = process.cpuUsage(cpu)
        log(
          `${label}: filled to ${count} messages in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
            `(${((used.user + used.system) / 1e6).toFixed(1)} s CPU here)`
        )
      }
      for (const kind of kinds) await runOf(kind, warmupRequests[kind])
      const rounds: Rounds = {
        "GET /users/me": { own: [], database: [] },
        "GET /messages": { own: [], database: [] },
        "POST /messages": { own: [], database: [] }
      }
      await profiled(`scaling-${label}-${size}`, async () => {
        for (let round = 0; round < options.rounds; round++) {
          for (const kind of kinds) {
            const { database, own } = await runOf(kind, requestsPerRound[kind])
            rounds[kind].own.push(own)
            rounds[kind].database.push(database)
          }
        }
      })
      results.set(size, rounds)
      log(
        `${label} at ${size}: ` +
          kinds.map((kind) => `${kind} ${spread(rounds[kind].own).median.toFixed(0)} µs`).join(", ") +
          (options.postgres
            ? `; PostgreSQL's own: ` + kinds.map((kind) => `${spread(rounds[kind].database).median.toFixed(0)} µs`).join(", ")
            : "")
      )
    }
    return results
  } finally {
    await dispose()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const metrics = (label: string, results: Map<number, Rounds>, postgres: boolean, log: (line: string) => void) => {
  const out: Array<Metric> = []
  const base = results.get(sizes[0]!)!
  const report = (kind: Kind, what: "own" | "database", name: string) => {
    const first = spread(base[kind][what]).median
    for (const size of sizes) {
      const figure = spread(results.get(size)![kind][what])
      const ratio = figure.median / first
      log(
        `${label}: ${name} at ${String(size).padStart(7)} messages: ${describeSpread(figure, 0)} µs` +
          (size === sizes[0] ? "" : `, ${ratio.toFixed(2)}× the figure at ${sizes[0]}`)
      )
      out.push({ name: `${label}: ${name} at ${size} (µs)`, value: figure.median, unit: "" })
      if (size !== sizes[0]) out.push({ name: `${label}: ${name} at ${size} / at ${sizes[0]}`, value: ratio, unit: "" })
    }
  }
  for (const kind of kinds) {
    report(kind, "own", `${kind} CPU per request`)
    if (postgres) report(kind, "database", `${kind} PostgreSQL's CPU per request`)
  }
  return out
}

export const scalingBenchmark: Benchmark = {
  name: "scaling",
  description: `per-request CPU of GET /users/me, a narrowed GET /messages and POST /messages at ${
    sizes.join(", ")
  } messages (memory, PGlite, PostgreSQL)`,
  run: async (options: BenchOptions, log) => {
    const out: Array<Metric> = []
    const rounds = options.rounds
    if (backends.includes("memory")) {
      log(`memory, ${rounds} rounds`)
      const results = await measure("memory", Teamchat.layerMemory(Teamchat.layerSecretsTest), { rounds, postgres: false }, log)
      out.push(...metrics("memory", results, false, log))
    }
    if (backends.includes("pglite")) {
      log(`PGlite (in memory), ${rounds} rounds`)
      const results = await measure(
        "PGlite",
        Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgliteClient.layer({}))),
        { rounds, postgres: false },
        log
      )
      out.push(...metrics("PGlite", results, false, log))
    }
    if (backends.includes("postgres")) {
      const admin = await postgresAdminUrl()
      if ("skip" in admin) {
        log(admin.skip)
        return out
      }
      log(`PostgreSQL (a fresh database via ${new URL(admin.url).host}), ${rounds} rounds`)
      const results = await measure(
        "PostgreSQL",
        Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(TestDatabase.postgresLayer({ adminUrl: admin.url }))),
        { rounds, postgres: true },
        log
      )
      out.push(...metrics("PostgreSQL", results, true, log))
    }
    return out
  }
}
