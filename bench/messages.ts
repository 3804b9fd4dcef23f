/**
 * Messages: what a send and a narrowed read cost through the server, beside
 * the very SQL the server sends for them, on PGlite and on PostgreSQL
 * (`BENCH_BACKENDS` picks; PostgreSQL is skipped with one line only when
 * no server answers), and a bulk flag change.
 *
 * - The organization: the demo organization, a channel with 100 more
 *   subscribers (101 with iago), 60 messages in its topic "topic 3", and
 *   5,000 unread messages for iago elsewhere (for the flags figure); on
 *   PGlite seeded once and copied, so every process has the same data.
 * - teamchat: the standalone server (`Server.start`, bench/servers.ts
 *   `teamchat`) in its own process, one worker, no rate limit, no request
 *   log (`--fast-paths off|both` as for the http benchmark). wrk
 *   (bench/wrk.ts) sends, as iago, GET /messages with a channel + topic
 *   narrow, anchor newest, 50 before (read), and POST /messages of a
 *   new text each time to the channel (send); every answer is checked
 *   while timing (status 200 and a success envelope), and before and after
 *   each run a plain request's answer is checked whole (read: 50 messages
 *   of the topic; send: an id).
 * - raw: the statements the server sent for that very request, captured
 *   from the server process (bench/sqlCapture.ts: text, parameters, client
 *   method and transaction, for one request after a warm-up; three
 *   captures must agree) and replayed by a process of their own
 *   (bench/servers.ts `raw-sql`) that opens the database as the server
 *   does (same driver, pool and settings; on PGlite its own copy of the
 *   data), in the same transaction blocks, each statement checked to answer
 *   as many rows as it did for the server; as many loops as wrk has
 *   connections.
 *
 * Each of teamchat and raw runs `--duration` seconds per round, the order
 * reversed every other round. Measured per request: the process's CPU
 * (PGlite runs inside it) and, on PostgreSQL, the database backends' CPU
 * (from /proc, when PostgreSQL runs on this machine). The ratios, per round
 * and then the median: raw/read and raw/send = (raw's CPU per request) ÷
 * (teamchat's), process and database together, target ≥ 0.7 (issue #33);
 * beside them the same ratio of request rates (teamchat's req/s ÷ raw's,
 * both closed loops of as many requests in flight, wrk's CPU on the same
 * cores included). flags: POST /messages/flags/narrow marking the 5,000
 * read, once, wall time.
 */
import { Authentication, DemoOrganization, Ids, Persistence, Teamchat, Users, Channels, Messages } from "@teamchat/core"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Database } from "@teamchat/http/Config"
import { pgliteSubdirectory } from "@teamchat/http/Server"
import type { Benchmark, BenchOptions, Metric, ServerProcess } from "./harness.ts"
import { fastPathVariants, selectedBackends, startServer } from "./harness.ts"
import type { PostgresCpu } from "./proc.ts"
import { machineLoad, postgresCpu } from "./proc.ts"
import type { CapturedStatement } from "./sqlCapture.ts"
import { describe as describeStatements, transactionsOf } from "./sqlCapture.ts"
import { describeSpread, postgresAdminUrl, spread } from "./stats.ts"
import { assertClean, ensureWrk, wrk } from "./wrk.ts"
import type { WrkRequest } from "./wrk.ts"

/** The seeded organization's URL: requests carry its host. */
const organizationUrl = "http://localhost:9991"
const organizationHost = new URL(organizationUrl).host
const subscriberCount = 100
const topicMessages = 60
const unreadFiller = 5000
const readTopic = "topic 3"

type Operation = "read" | "send"
const operations: ReadonlyArray<Operation> = ["read", "send"]

// -----------------------------------------------------------------------------
// seeding
// -----------------------------------------------------------------------------

interface Seeded {
  readonly channel: number
  readonly iago: number
}

/** The organization of the benchmark, on the database `persistence` opens (migrated). */
const seed = (persistence: Layer.Layer<Persistence.Persistence | SqlClient.SqlClient, unknown>): Promise<Seeded> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(
      Teamchat.layerServices.pipe(Layer.provideMerge(persistence), Layer.provide(Teamchat.layerSecretsTest))
    )
    return yield* Effect.gen(function*() {
      yield* DemoOrganization.seed(organizationUrl)
      const users = yield* Users.Users
      const channels = yield* Channels.Channels
      const messages = yield* Messages.Messages
      const realm = Ids.realmId(1)
      const ids = []
      for (let i = 0; i < subscriberCount; i++) {
        ids.push((yield* users.create(realm, { email: `bench${i}@zulip.com`, full_name: `Bench ${i}`, role: 400 })).id)
      }
      const iago = (yield* users.findByEmail(realm, "iago@zulip.com"))!
      const channel = yield* channels.create(realm, { name: "bench" })
      yield* channels.subscribe(channel.id, [...ids, iago.id])
      const principal = yield* (yield* Authentication.Authentication).basic(iago.delivery_email, iago.api_key)
      for (let i = 0; i < topicMessages; i++) {
        yield* messages.send(principal, { type: "stream", to: channel.id, topic: readTopic, content: `message ${i} with **bold** text` })
      }
      // Unread messages for the flags figure, in a channel of their own (the
      // read's channel keeps its 60), written directly (quicker than 5,000 sends).
      const filler = yield* channels.create(realm, { name: "filler" })
      yield* channels.subscribe(filler.id, [ids[0]!, iago.id])
      const sql = yield* SqlClient.SqlClient
      for (let i = 0; i < unreadFiller; i += 500) {
        yield* sql`WITH m AS (
            INSERT INTO messages (realm_id, sender_id, type, channel_id, topic, dm_key, dm_user_ids, content,
              rendered_content, date_sent, client, has_attachment, has_image, has_link)
            SELECT 1, ${ids[0]!}, 'stream', ${filler.id}, 'filler', NULL, '[]'::jsonb, 'x', '<p>x</p>', 1700000000, 'API', false, false, false
            FROM generate_series(1, 500) RETURNING id)
          INSERT INTO user_messages (user_id, message_id, flags) SELECT ${iago.id}, id, 0 FROM m`
      }
      return { channel: channel.id, iago: iago.id }
    }).pipe(Effect.provideContext(context))
  })) as Effect.Effect<Seeded, unknown>)

// -----------------------------------------------------------------------------
// requests
// -----------------------------------------------------------------------------

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

const requestsFor = (seeded: Seeded, authorization: string): Record<Operation, WrkRequest> => {
  const narrow = JSON.stringify([{ operator: "channel", operand: seeded.channel }, { operator: "topic", operand: readTopic }])
  const headers = { Authorization: authorization, Host: organizationHost }
  return {
    read: {
      method: "GET",
      path: `/api/v1/messages?${new URLSearchParams({ anchor: "newest", num_before: "50", num_after: "0", narrow })}`,
      headers
    },
    send: {
      method: "POST",
      path: "/api/v1/messages",
      headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
      // `{n}`: wrk makes each text new (bench/wrk.ts).
      body: `type=stream&to=${seeded.channel}&topic=bench+send&content=message+{n}+with+**bold**+text`
    }
  }
}

/** One plain request of `operation`, its answer checked whole. */
const sample = async (url: string, request: WrkRequest, operation: Operation, n: number): Promise<void> => {
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: { ...request.headers },
    ...(request.body === undefined ? {} : { body: request.body.replaceAll("{n}", `sample-${n}`) })
  })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${operation}: ${response.status} ${text.slice(0, 200)}`)
  const body = JSON.parse(text) as { result?: string; id?: unknown; messages?: ReadonlyArray<{ subject?: string }> }
  if (body.result !== "success") throw new Error(`${operation}: ${text.slice(0, 200)}`)
  if (operation === "read" && (body.messages?.length !== 50 || body.messages.some((m) => m.subject !== readTopic))) {
    throw new Error(`read: ${body.messages?.length} messages, not 50 of "${readTopic}"`)
  }
  if (operation === "send" && typeof body.id !== "number") throw new Error(`send: no id in ${text.slice(0, 200)}`)
}

/**
 * The statements `server` sends for one request: captured three times
 * (each after the previous one's answer); the sequence (methods and texts)
 * at least two agree on, with the parameters of its last capture.
 */
const capture = async (server: ServerProcess, send: () => Promise<void>, label: string): Promise<ReadonlyArray<CapturedStatement>> => {
  const captures: Array<ReadonlyArray<CapturedStatement>> = []
  for (let i = 0; i < 3; i++) {
    await server.ask("capture-start")
    try {
      await send()
    } finally {
      captures.push((await server.ask("capture-stop")).statements)
    }
  }
  const shape = (c: ReadonlyArray<CapturedStatement>) => c.map((s) => `${s.method} ${s.sql}`).join("\n;\n")
  const agreed = captures.filter((c, _, all) => all.filter((o) => shape(o) === shape(c)).length >= 2).at(-1)
  if (agreed === undefined || agreed.length === 0) {
    throw new Error(`${label}: the captures disagree or are empty:\n${captures.map((c) => describeStatements(transactionsOf(c))).join("\n--\n")}`)
  }
  const refused = agreed.find((s) => s.error !== undefined)
  if (refused !== undefined) throw new Error(`${label}: cannot replay ${refused.sql.slice(0, 80)}: ${refused.error}`)
  return agreed
}

// -----------------------------------------------------------------------------
// one backend
// -----------------------------------------------------------------------------

interface Measured {
  readonly rps: number
  /** µs per request: the process's CPU, the database backends' (PostgreSQL). */
  readonly cpu: number
  readonly postgres: number
  readonly p50: number
  readonly wrkCpu: number | undefined
}

const measureBackend = async (
  label: string,
  /** The database each teamchat process opens, and the one the raw process opens. */
  databases: { readonly teamchat: ReadonlyArray<Database>; readonly raw: { pglite: string } | { postgres: string } },
  seeded: Seeded,
  pg: PostgresCpu | undefined,
  options: BenchOptions,
  log: (line: string) => void
): Promise<Array<Metric>> => {
  const variants = fastPathVariants(options)
  const started: Array<ServerProcess> = []
  try {
    const servers: Array<{ name: string; server: ServerProcess; requests: Record<Operation, WrkRequest> }> = []
    const captured: Record<string, ReadonlyArray<CapturedStatement>> = {}
    let samples = 0
    for (const [i, variant] of variants.entries()) {
      const server = await startServer("teamchat", { database: databases.teamchat[i], ...variant.input })
      started.push(server)
      const grant = await fetch(`${server.url}/api/v1/dev_fetch_api_key`, {
        method: "POST",
        headers: { Host: organizationHost },
        body: new URLSearchParams({ username: "iago@zulip.com" })
      }).then((r) => r.json() as Promise<{ api_key: string }>)
      const requests = requestsFor(seeded, basic("iago@zulip.com", grant.api_key))
      const name = `teamchat${variant.suffix}`
      for (const operation of operations) {
        // Warm, so that what is captured is what a request costs from then on.
        for (let j = 0; j < 10; j++) await sample(server.url, requests[operation], operation, ++samples)
        const statements = await capture(server, () => sample(server.url, requests[operation], operation, ++samples), `${label} ${name} ${operation}`)
        captured[`${operation}${i}`] = statements
        log(`${label} ${name} ${operation}: the server sent\n${describeStatements(transactionsOf(statements), "      ")}`)
      }
      servers.push({ name, server, requests })
    }
    const raw = await startServer("raw-sql", { database: databases.raw, requests: captured })
    started.push(raw)

    const measureTeamchat = async (i: number, operation: Operation, seconds: number): Promise<Measured> => {
      const { requests, server } = servers[i]!
      await sample(server.url, requests[operation], operation, ++samples)
      const pgBefore = await pg?.sample()
      const before = await server.cpu()
      const result = await wrk({
        url: server.url,
        request: requests[operation],
        check: { status: 200, contains: "\"result\":\"success\"" },
        connections: options.connections,
        seconds
      })
      const cpu = (await server.cpu()) - before
      const pgAfter = await pg?.sample()
      assertClean(`${label} ${servers[i]!.name} ${operation}`, result)
      await sample(server.url, requests[operation], operation, ++samples)
      const n = Math.max(1, result.requests)
      return {
        rps: result.rps,
        cpu: cpu / n,
        postgres: pg === undefined ? 0 : (pg.used(pgBefore!, pgAfter!) * 1e6) / n,
        p50: result.latency.p50,
        wrkCpu: (result.cpuSeconds * 1e6) / n
      }
    }
    const measureRaw = async (i: number, operation: Operation, seconds: number): Promise<Measured> => {
      const pgBefore = await pg?.sample()
      const before = await raw.cpu()
      const result = await raw.ask(`run ${operation}${i} ${seconds} ${options.connections}`) as {
        requests: number
        seconds: number
        p50: number
        failures: number
        firstFailure?: string
      }
      const cpu = (await raw.cpu()) - before
      const pgAfter = await pg?.sample()
      if (result.failures > 0 || result.requests === 0) {
        throw new Error(`${label} raw ${operation}: ${result.failures} failed replays of ${result.requests + result.failures}: ${result.firstFailure}`)
      }
      const n = result.requests
      return {
        rps: n / result.seconds,
        cpu: cpu / n,
        postgres: pg === undefined ? 0 : (pg.used(pgBefore!, pgAfter!) * 1e6) / n,
        p50: result.p50,
        wrkCpu: undefined
      }
    }

    const describe = (name: string, m: Measured) =>
      `${name.padEnd(34)} ${m.rps.toFixed(0).padStart(6)} req/s  process ${m.cpu.toFixed(0).padStart(5)} µs CPU/request` +
      (pg === undefined ? "" : `  PostgreSQL ${m.postgres.toFixed(0).padStart(5)} µs`) +
      `  p50 ${m.p50.toFixed(2)} ms` + (m.wrkCpu === undefined ? "" : `  wrk ${m.wrkCpu.toFixed(0)} µs`)

    type Entry = { readonly name: string; readonly run: (seconds: number) => Promise<Measured> }
    const metrics: Array<Metric> = []
    for (const operation of operations) {
      for (const [i, variant] of variants.entries()) {
        const entries: Array<Entry> = [
          { name: `raw ${operation}`, run: (s) => measureRaw(i, operation, s) },
          { name: `${servers[i]!.name} ${operation}`, run: (s) => measureTeamchat(i, operation, s) }
        ]
        const name = `${label}${variant.suffix}: ${operation}`
        log(`${name}: warming up each for ${options.warmup} s …`)
        for (const entry of entries) await entry.run(options.warmup)
        const results: Array<[Measured, Measured]> = []
        for (let round = 1; round <= options.rounds; round++) {
          log(`${name}: round ${round}, ${machineLoad()}`)
          const order = round % 2 === 1 ? entries : [...entries].reverse()
          const got = new Map<string, Measured>()
          for (const entry of order) {
            const m = await entry.run(options.duration)
            got.set(entry.name, m)
            log(`  ${describe(entry.name, m)}`)
          }
          results.push([got.get(entries[0]!.name)!, got.get(entries[1]!.name)!])
        }
        const of = (f: (raw: Measured, teamchat: Measured) => number) => spread(results.map(([r, t]) => f(r, t)))
        const total = (m: Measured) => m.cpu + m.postgres
        const cpuRatio = of((r, t) => total(r) / total(t))
        const rateRatio = of((r, t) => t.rps / r.rps)
        const what = `raw/${operation}`
        log(
          `${name}: teamchat ${describeSpread(of((_, t) => total(t)), 0)} µs CPU/request, raw ${describeSpread(of((r) => total(r)), 0)} µs` +
            (pg === undefined ? "" : ` (of which PostgreSQL: teamchat ${describeSpread(of((_, t) => t.postgres), 0)}, raw ${describeSpread(of((r) => r.postgres), 0)})`)
        )
        log(`${name}: ${what} CPU ${describeSpread(cpuRatio)}; ${what} req/s ${describeSpread(rateRatio)}`)
        metrics.push(
          { name: `${name}: teamchat req/s`, value: of((_, t) => t.rps).median, unit: "req/s" },
          { name: `${name}: raw req/s`, value: of((r) => r.rps).median, unit: "req/s" },
          { name: `${name}: teamchat process CPU/request`, value: of((_, t) => t.cpu).median, unit: "µs" },
          { name: `${name}: raw process CPU/request`, value: of((r) => r.cpu).median, unit: "µs" },
          ...(pg === undefined ? [] : [
            { name: `${name}: teamchat PostgreSQL CPU/request`, value: of((_, t) => t.postgres).median, unit: "µs" },
            { name: `${name}: raw PostgreSQL CPU/request`, value: of((r) => r.postgres).median, unit: "µs" }
          ]),
          { name: `${name}: ${what}, CPU per request`, value: cpuRatio.median, unit: "", target: { at: "least", value: 0.7 } },
          { name: `${name}: ${what}, req/s`, value: rateRatio.median, unit: "" },
          { name: `${name}: teamchat p50 (ms)`, value: of((_, t) => t.p50).median, unit: "" },
          { name: `${name}: raw p50 (ms)`, value: of((r) => r.p50).median, unit: "" }
        )
      }
    }

    // flags: once, on the first server.
    const first = servers[0]!
    const t = performance.now()
    const response = await fetch(`${first.server.url}/api/v1/messages/flags/narrow`, {
      method: "POST",
      headers: { Authorization: first.requests.read.headers!.Authorization!, Host: organizationHost },
      body: new URLSearchParams({
        anchor: "oldest",
        num_before: "0",
        num_after: String(unreadFiller),
        narrow: JSON.stringify([{ operator: "is", operand: "unread" }]),
        op: "add",
        flag: "read"
      })
    })
    const flags = (await response.json()) as { processed_count?: number; updated_count?: number }
    const flagsMs = performance.now() - t
    if (response.status !== 200) throw new Error(`flags/narrow: ${response.status} ${JSON.stringify(flags)}`)
    log(`${label}: flags/narrow processed ${flags.processed_count}, updated ${flags.updated_count} in ${flagsMs.toFixed(0)} ms`)
    metrics.push({ name: `${label}: flags/narrow ${unreadFiller} read (ms)`, value: flagsMs, unit: "" })
    return metrics
  } finally {
    await Promise.all(started.map((s) => s.stop()))
  }
}

export const messagesBenchmark: Benchmark = {
  name: "messages",
  description: "send to 100 subscribers and a narrowed read vs the SQL the server sends for them (captured), flags on 5,000 (PGlite, PostgreSQL; wrk)",
  run: async (options: BenchOptions, log) => {
    ensureWrk(log)
    log(`${machineLoad()}, --fast-paths ${options.fastPaths}`)
    const out: Array<Metric> = []
    const count = fastPathVariants(options).length
    for (const backend of selectedBackends(["pglite", "postgres"])) {
      if (backend === "pglite") {
        const dirs = Array.from({ length: count + 1 }, () => fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-bench-messages-")))
        try {
          log("PGlite: seeding the organization (once, then copied for each process)")
          const seeded = await seed(Persistence.layerPglite(path.join(dirs[0]!, pgliteSubdirectory)))
          for (const dir of dirs.slice(1)) fs.cpSync(dirs[0]!, dir, { recursive: true })
          out.push(...(await measureBackend(
            "PGlite",
            {
              teamchat: dirs.slice(1).map((dataDir) => ({ _tag: "Pglite", dataDir })),
              raw: { pglite: path.join(dirs[0]!, pgliteSubdirectory) }
            },
            seeded,
            undefined,
            options,
            log
          )))
        } finally {
          for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
        }
      } else {
        const admin = await postgresAdminUrl()
        if ("skip" in admin) {
          log(admin.skip)
          continue
        }
        const name = `teamchat_bench_messages_${process.pid}`
        await Effect.runPromise(TestDatabase.createDatabase(admin.url, name) as Effect.Effect<void>)
        const pg = await postgresCpu(admin.url, name, log)
        try {
          const url = TestDatabase.databaseUrl(admin.url, name)
          log(`PostgreSQL: seeding the organization in a fresh database via ${new URL(admin.url).host}`)
          const seeded = await seed(Persistence.layerPostgres(url))
          out.push(...(await measureBackend(
            "PostgreSQL",
            { teamchat: Array.from({ length: count }, () => ({ _tag: "Postgres", url })), raw: { postgres: url } },
            seeded,
            pg,
            options,
            log
          )))
        } finally {
          await pg?.close()
          await Effect.runPromise(TestDatabase.dropDatabase(admin.url, name) as Effect.Effect<void>)
        }
      }
    }
    return out
  }
}
