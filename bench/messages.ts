/**
 * Messages: what a send, a narrowed read and a bulk flag change cost, beside
 * the raw SQL of the same rows in the same run, on PGlite (embedded) and on
 * PostgreSQL (a fresh database, dropped afterwards; skipped with one line
 * only when no server answers).
 *
 * - send: POST /messages to a channel with 100 subscribers through the whole
 *   API (the web handler with its shortcuts, as an embedder gets it: auth,
 *   parsing, permissions, rendering, flags, events), p50 and p99,
 *   next to inserting the same message and its 100 rows with two plain SQL
 *   statements in one transaction on the same database. The two alternate,
 *   one of each in turn, so neither gets a quieter stretch of the machine or
 *   caches warmed by a run of its own kind.
 * - read: GET /messages with a channel + topic narrow, 50 messages, p50,
 *   next to the very SELECT the endpoint runs for it (the same text and
 *   parameters, sent by hand), alternating the same way. A read is timed
 *   until its answer's text is in hand; the client's parse and check of
 *   it come after the round (the raw read's time includes decoding its
 *   rows, the driver's part).
 * - flags: POST /messages/flags/narrow marking 5,000 unread messages read.
 *
 * Each figure is measured once per round (`--rounds`, default 5); the
 * median is the result and the spread (lowest-highest) is printed beside it.
 * Requests are handed to the web handler directly: no sockets, so the
 * figures are the server's own work. `MESSAGES_BACKENDS=pglite` skips
 * PostgreSQL.
 */
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import { realmId } from "@teamchat/core/domain/Ids"
import { HistoricalFlags } from "@teamchat/core/ports/MessageSearch"
import { UserRepo } from "@teamchat/core/ports/Repositories"
import { Channels } from "@teamchat/core/services/Channels"
import { Users } from "@teamchat/core/services/Users"
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import { messageSelectList } from "@teamchat/core/sql/SqlMessageRepo"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import { makeWebHandler } from "../packages/http/src/Http.ts"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { profiled } from "./profile.ts"
import { describeSpread, percentile, postgresAdminUrl, spread } from "./stats.ts"

const origin = "http://localhost:9991"
const subscriberCount = 100
const sendSamplesPerRound = 100
const readSamplesPerRound = 40

/** Lets anything a request left running finish, so it is not timed in the next one. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1))

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

type Core = Layer.Layer<Teamchat.Services | SqlClient.SqlClient, unknown>

interface Round {
  /** CPU time of this process (µs, process.cpuUsage), p50: PGlite works in this thread, so on PGlite it is the whole cost. */
  readonly sendCpuP50: number
  readonly rawSendCpuP50: number
  readonly readCpuP50: number
  readonly rawReadCpuP50: number
  readonly sendP50: number
  readonly sendP99: number
  readonly rawSendP50: number
  readonly readP50: number
  readonly rawReadP50: number
}

const measure = async (label: string, core: Core, rounds: number, log: (line: string) => void) => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(core, scope).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
  )
  const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(Effect.provideContext(effect, context) as Effect.Effect<A, E>)
  try {
    log("seeding the demo organization and 100 more subscribers")
    await run(DemoOrganization.seed(origin))
    const { channel: benchChannel, iago: iagoId } = await run(Effect.gen(function*() {
      const users = yield* Users
      const channels = yield* Channels
      const realm = realmId(1)
      const ids = []
      for (let i = 0; i < subscriberCount; i++) {
        const user = yield* users.create(realm, { email: `bench${i}@zulip.com`, full_name: `Bench ${i}`, role: 400 })
        ids.push(user.id)
      }
      const iago = yield* (yield* UserRepo).findByDeliveryEmail(realm, "iago@zulip.com")
      const created = yield* channels.create(realm, { name: "bench" })
      yield* channels.subscribe(created.id, [...ids, iago!.id])
      return { channel: created.id, iago: iago!.id }
    }))
    const { handler, dispose } = makeWebHandler(Layer.succeedContext(context), { demo: true, rateLimit: false })
    const call = async (method: string, path: string, auth: string, form?: Record<string, string>, query?: Record<string, string>) => {
      const url = new URL(path, origin)
      for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v)
      const response = await handler(new Request(url, {
        method,
        headers: { authorization: auth },
        ...(form === undefined ? {} : { body: new URLSearchParams(form) })
      }))
      const text = await response.text()
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text}`)
      return JSON.parse(text)
    }
    const login = await handler(new Request(`${origin}/api/v1/dev_fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username: "iago@zulip.com" })
    }))
    const key = ((await login.json()) as { api_key: string }).api_key
    const auth = basic("iago@zulip.com", key)
    const send = (i: number) =>
      call("POST", "/api/v1/messages", auth, { type: "stream", to: String(benchChannel), topic: `topic ${i % 10}`, content: `message ${i} with **bold** text` })

    const recipients = await run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ user_id: number }>`SELECT user_id FROM subscriptions WHERE channel_id = ${benchChannel} AND active`
      return rows.map((r) => Number(r.user_id))
    }))
    const rawInsert = (i: number) =>
      run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ id: number }>`
            INSERT INTO messages (realm_id, sender_id, type, channel_id, topic, dm_key, dm_user_ids, content,
              rendered_content, date_sent, client, has_attachment, has_image, has_link)
            VALUES (1, ${iagoId}, 'stream', ${benchChannel}, ${`topic ${i % 10}`}, NULL, '[]'::jsonb, ${`message ${i} with **bold** text`},
              ${`<p>message ${i} with <strong>bold</strong> text</p>`}, 1700000000, 'API', false, false, false)
            RETURNING id`
          yield* sql`INSERT INTO user_messages (user_id, message_id, flags)
            SELECT u, ${row!.id}, 0 FROM unnest(${sql.literal(`ARRAY[${recipients.join(",")}]::bigint[]`)}) AS u`
        }))
      }))

    const narrow = JSON.stringify([{ operator: "channel", operand: benchChannel }, { operator: "topic", operand: "topic 3" }])
    const readUrl = new URL("/api/v1/messages", origin)
    for (const [k, v] of Object.entries({ anchor: "newest", num_before: "50", num_after: "0", narrow })) readUrl.searchParams.set(k, v)
    /** The endpoint's answer as the client receives it: status and body text, not yet parsed. */
    const readText = async () => {
      const response = await handler(new Request(readUrl, { method: "GET", headers: { authorization: auth } }))
      const text = await response.text()
      if (response.status !== 200) throw new Error(`GET /messages: ${response.status} ${text}`)
      return text
    }
    /** The client's check of an answer: parsed, 50 messages. */
    const checkRead = (text: string) => {
      const body = JSON.parse(text) as { messages: ReadonlyArray<unknown> }
      if (body.messages.length !== 50) throw new Error(`GET /messages answered ${body.messages.length} messages, not 50`)
    }
    const read = async () => checkRead(await readText())
    // The statement the endpoint runs for this narrow (SqlMessageSearch: a
    // public channel the viewer may read the history of, so the LEFT JOIN
    // form; the anchor "newest" reads 50 before, newest first), sent by hand
    // with the same parameters, and its rows decoded to plain objects.
    const columns = messageSelectList("m")
    const rawRead = () =>
      run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<Record<string, unknown>>`
          SELECT ${sql.literal(columns)}, COALESCE(um.flags, ${HistoricalFlags}::integer) AS um_flags
          FROM messages m LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${iagoId}
          WHERE m.realm_id = ${1} AND (um.user_id IS NOT NULL OR m.channel_id = ANY(${`{${benchChannel}}`}::bigint[]))
            AND ((m.channel_id IS NOT NULL AND m.channel_id = ${benchChannel})
            AND (m.channel_id IS NOT NULL AND lower(m.topic) = lower(${"topic 3"}::text))) AND TRUE
          ORDER BY m.id DESC LIMIT ${50}`
        if (rows.length !== 50) throw new Error(`the raw narrow read ${rows.length} rows, not 50`)
        return rows
      }))

    log(`warming up: 60 sends and raw inserts (60 of each in "topic 3", so the read has its 50), 20 reads and raw reads`)
    for (let i = 3; i < 600; i += 10) {
      await send(i)
      await rawInsert(i)
    }
    for (let i = 0; i < 20; i++) {
      await read()
      await rawRead()
    }
    const results: Array<Round> = []
    await profiled(`messages-${label}`, async () => {
    for (let round = 1; round <= rounds; round++) {
      // Sends and raw inserts alternate, so both see the same machine and
      // the same table sizes: the ratio is not skewed by a noisy stretch.
      const sendTimes: Array<number> = []
      const rawTimes: Array<number> = []
      const cpu = { send: [] as Array<number>, raw: [] as Array<number>, read: [] as Array<number>, rawRead: [] as Array<number> }
      const timed = async (f: () => Promise<unknown>, times: Array<number>, cpuTimes: Array<number>) => {
        const c = process.cpuUsage()
        const t = performance.now()
        await f()
        times.push(performance.now() - t)
        const used = process.cpuUsage(c)
        cpuTimes.push(used.user + used.system)
      }
      for (let i = 0; i < sendSamplesPerRound; i++) {
        await timed(() => send(i), sendTimes, cpu.send)
        await settle()
        await timed(() => rawInsert(i), rawTimes, cpu.raw)
        await settle()
      }
      const readTimes: Array<number> = []
      const rawReadTimes: Array<number> = []
      // Timed until the answer's text is in hand: parsing it is the
      // client's work (as the raw read's rows are its driver's), so each
      // answer is checked after the round, untimed.
      const answers: Array<string> = []
      for (let i = 0; i < readSamplesPerRound; i++) {
        await timed(async () => answers.push(await readText()), readTimes, cpu.read)
        await timed(rawRead, rawReadTimes, cpu.rawRead)
      }
      answers.forEach(checkRead)
      const r: Round = {
        sendCpuP50: percentile(cpu.send, 0.5),
        rawSendCpuP50: percentile(cpu.raw, 0.5),
        readCpuP50: percentile(cpu.read, 0.5),
        rawReadCpuP50: percentile(cpu.rawRead, 0.5),
        sendP50: percentile(sendTimes, 0.5),
        sendP99: percentile(sendTimes, 0.99),
        rawSendP50: percentile(rawTimes, 0.5),
        readP50: percentile(readTimes, 0.5),
        rawReadP50: percentile(rawReadTimes, 0.5)
      }
      results.push(r)
      log(
        `round ${round}: send p50 ${r.sendP50.toFixed(2)} ms (raw ${r.rawSendP50.toFixed(2)}, ratio ${(r.rawSendP50 / r.sendP50).toFixed(2)}), ` +
          `read p50 ${r.readP50.toFixed(2)} ms (raw ${r.rawReadP50.toFixed(2)}, ratio ${(r.rawReadP50 / r.readP50).toFixed(2)})`
      )
    }
    })

    log("POST /messages/flags/narrow marking 5,000 messages read")
    await run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE user_messages SET flags = flags & ~1 WHERE user_id = ${iagoId}`
      const [{ n }] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM user_messages WHERE user_id = ${iagoId} AND (flags & 1) = 0`
      for (let i = Number(n); i < 5000; i += 500) {
        yield* sql`WITH m AS (
            INSERT INTO messages (realm_id, sender_id, type, channel_id, topic, dm_key, dm_user_ids, content,
              rendered_content, date_sent, client, has_attachment, has_image, has_link)
            SELECT 1, ${iagoId}, 'stream', ${benchChannel}, 'filler', NULL, '[]'::jsonb, 'x', '<p>x</p>', 1700000000, 'API', false, false, false
            FROM generate_series(1, 500) RETURNING id)
          INSERT INTO user_messages (user_id, message_id, flags) SELECT ${iagoId}, id, 0 FROM m`
      }
    }))
    const t = performance.now()
    const flags = await call("POST", "/api/v1/messages/flags/narrow", auth, {
      anchor: "oldest",
      num_before: "0",
      num_after: "5000",
      narrow: JSON.stringify([{ operator: "is", operand: "unread" }]),
      op: "add",
      flag: "read"
    })
    const flagsMs = performance.now() - t
    log(`flags/narrow processed ${flags.processed_count}, updated ${flags.updated_count}`)
    await dispose()
    return { rounds: results, flagsMs }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const metrics = (label: string, result: Awaited<ReturnType<typeof measure>>, log: (line: string) => void) => {
  const of = (f: (r: Round) => number) => spread(result.rounds.map(f))
  const sendRatio = of((r) => r.rawSendP50 / r.sendP50)
  const readRatio = of((r) => r.rawReadP50 / r.readP50)
  log(`${label}: send p50 ${describeSpread(of((r) => r.sendP50))} ms, raw SQL ${describeSpread(of((r) => r.rawSendP50))} ms`)
  log(`${label}: raw/send ${describeSpread(sendRatio)}`)
  log(`${label}: narrowed read p50 ${describeSpread(of((r) => r.readP50))} ms, raw SQL ${describeSpread(of((r) => r.rawReadP50))} ms`)
  log(`${label}: raw/read ${describeSpread(readRatio)}`)
  log(`${label}: CPU time p50: send ${describeSpread(of((r) => r.sendCpuP50), 0)} µs, raw ${describeSpread(of((r) => r.rawSendCpuP50), 0)} µs, ` +
    `read ${describeSpread(of((r) => r.readCpuP50), 0)} µs, raw read ${describeSpread(of((r) => r.rawReadCpuP50), 0)} µs`)
  log(`${label}: CPU raw/send ${describeSpread(of((r) => r.rawSendCpuP50 / r.sendCpuP50))}, raw/read ${describeSpread(of((r) => r.rawReadCpuP50 / r.readCpuP50))}`)
  return [
    { name: `${label}: send p50 (ms)`, value: of((r) => r.sendP50).median, unit: "" },
    { name: `${label}: send p99 (ms)`, value: of((r) => r.sendP99).median, unit: "" },
    { name: `${label}: raw SQL insert p50 (ms)`, value: of((r) => r.rawSendP50).median, unit: "" },
    // Reported as raw/send so that, like every floor here, higher is better.
    { name: `${label}: send vs raw SQL p50 (raw/send; target ≥ 0.8)`, value: sendRatio.median, unit: "", min: 0.5 },
    { name: `${label}: GET /messages narrowed p50 (ms)`, value: of((r) => r.readP50).median, unit: "" },
    { name: `${label}: raw SQL of the narrowed read p50 (ms)`, value: of((r) => r.rawReadP50).median, unit: "" },
    { name: `${label}: narrowed read vs raw SQL p50 (raw/read; target ≥ 0.7)`, value: readRatio.median, unit: "" },
    { name: `${label}: flags/narrow 5,000 read (ms)`, value: result.flagsMs, unit: "" },
    // The same ratios in this process's CPU time, which a busy machine skews
    // less than wall time; on PGlite the database works in this thread, on
    // PostgreSQL its own processes' time is not in it.
    { name: `${label}: send vs raw SQL, CPU p50 (raw/send)`, value: of((r) => r.rawSendCpuP50 / r.sendCpuP50).median, unit: "" },
    { name: `${label}: narrowed read vs raw SQL, CPU p50 (raw/read)`, value: of((r) => r.rawReadCpuP50 / r.readCpuP50).median, unit: "" }
  ] satisfies ReadonlyArray<Metric>
}

export const messagesBenchmark: Benchmark = {
  name: "messages",
  description: "send to 100 subscribers and a narrowed read vs their raw SQL, flags on 5,000 messages (PGlite, PostgreSQL)",
  run: async (options: BenchOptions, log) => {
    const out: Array<Metric> = []
    log(`PGlite (in memory), ${options.rounds} rounds`)
    const pglite = await measure("PGlite", Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgliteClient.layer({}))), options.rounds, log)
    out.push(...metrics("PGlite", pglite, log))
    if (process.env.MESSAGES_BACKENDS === "pglite") return out
    const admin = await postgresAdminUrl()
    if ("skip" in admin) {
      log(admin.skip)
      return out
    }
    log(`PostgreSQL (a fresh database via ${new URL(admin.url).host}), ${options.rounds} rounds`)
    const postgres = await measure(
      "PostgreSQL",
      Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(TestDatabase.postgresLayer({ adminUrl: admin.url }))),
      options.rounds,
      log
    )
    out.push(...metrics("PostgreSQL", postgres, log))
    return out
  }
}
