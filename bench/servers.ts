/**
 * Servers under test and baselines, one per process: `node bench/servers.ts <kind>`.
 * Reads a JSON object on the first line of stdin, starts, prints
 * `{"url": …, "pid": …}` on stdout, and exits on SIGTERM or when stdin
 * closes (the benchmark went away). Each later stdin line is a command,
 * answered, in order, by one stdout line of JSON:
 *
 * - `cpu`: `process.cpuUsage()` of this process (µs), every kind.
 * - `memory`: a full garbage collection (the process must run with
 *   `--expose-gc`; without it the answer is an error), then
 *   `process.memoryUsage()` (bytes: rss, heapTotal, heapUsed, external,
 *   arrayBuffers), every kind.
 * - `memory-now`: `process.memoryUsage()` as it is, garbage included.
 * - `capture-start`, `capture-stop` (teamchat): record every SQL statement
 *   the server sends in between (bench/sqlCapture.ts); `capture-stop`
 *   answers `{"statements": […]}`. Nothing is recorded, and no statement
 *   does any extra work, outside a capture.
 * - `run <name> <seconds> <concurrency>` (raw-sql): replays the captured
 *   request `name` in `concurrency` loops for `seconds`; answers
 *   `{"requests", "seconds", "p50", "p99", "failures", "firstFailure"}`.
 *
 * Kinds:
 * - `teamchat`: the standalone server (Server.ts, `Server.start`) on the
 *   in-memory backend or the `database` of the input (as the server's
 *   configuration spells it), the demo organization, rate limiting and
 *   request logging off; `"fastPaths": false` in the input passes
 *   `fastPaths: false` to `Server.start` (ignored once the option is gone).
 * - `me`: the equal-work baseline of GET /api/v1/users/me: node:http that
 *   parses the Basic header, finds the API key in a Map holding as many
 *   users as the organization, compares it in constant time
 *   (`crypto.timingSafeEqual`) and checks the email, then JSON-encodes the
 *   user (teamchat's own answer, taken at start-up) in the same envelope,
 *   per request, with the same headers. Unknown keys get Zulip's 401.
 * - `raw-sql`: the raw SQL baseline: the database of the input opened as
 *   the server opens it (`Persistence.layerPglite` / `layerPostgres`: the
 *   same driver, pool and settings), replaying captured requests through
 *   it (`run`), each statement with its own method, in its own transaction
 *   blocks, and checked to answer as many rows as it did for the server.
 * - `constant`: node:http answering every request with the given status,
 *   headers and bytes. No per-request baseline (it does no work a server
 *   does); the floor of the RSS benchmark and the load generator's own
 *   ceiling in the load test.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import { timingSafeEqual } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { performance } from "node:perf_hooks"
import { createInterface } from "node:readline"
import { Persistence } from "@teamchat/core"
import type { Database } from "@teamchat/http/Config"
import type { CapturedStatement } from "./sqlCapture.ts"
import { replay } from "./sqlCapture.ts"

interface ConstantInput {
  readonly status: number
  readonly headers: Record<string, string>
  /** base64 */
  readonly body: string
}

interface MeInput {
  /** teamchat's answer to GET /users/me, parsed: the envelope's fields, then the user's. */
  readonly answer: Record<string, unknown>
  /** teamchat's answer headers but Date, Connection, Keep-Alive and Content-Length (computed per answer). */
  readonly headers: Record<string, string>
  readonly email: string
  readonly apiKey: string
  /** How many users the organization has: the Map holds as many keys. */
  readonly users: number
}

interface RawInput {
  /** PGlite's own directory (the server's data directory's `pgdata`), or PostgreSQL's URL. */
  readonly database: { readonly pglite: string } | { readonly postgres: string }
  readonly requests: Record<string, ReadonlyArray<CapturedStatement>>
}

const kind = process.argv[2]

// Lines are queued from the start: none may be lost while the server starts.
const lines = createInterface({ input: process.stdin })
const queued: Array<string> = []
let waiter: ((line: string | undefined) => void) | undefined
let closed = false
lines.on("line", (line) => {
  if (waiter !== undefined) {
    const resolve = waiter
    waiter = undefined
    resolve(line)
  } else queued.push(line)
})
const nextLine = () =>
  new Promise<string | undefined>((resolve) => {
    const line = queued.shift()
    if (line !== undefined || closed) resolve(line)
    else waiter = resolve
  })

const input = JSON.parse((await nextLine()) ?? "{}") as unknown

let stop: () => Promise<void>
let url = ""
/** Commands of this kind beyond `cpu`. */
let commands: (words: ReadonlyArray<string>) => Promise<unknown> = async (words) => ({ error: `unknown command ${words[0]}` })

const listen = async (server: http.Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  stop = () =>
    new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
}

if (kind === "teamchat") {
  // Loaded here, so the baselines' processes hold node:http only.
  const { startTeamchat } = await import("./teamchat.ts")
  const Capture = await import("./sqlCapture.ts")
  const options = input as { database?: Database; fastPaths?: boolean }
  const running = await startTeamchat(options.database, options.fastPaths === false ? { fastPaths: false } : {})
  url = running.url
  stop = running.close
  let capturing: (() => ReadonlyArray<CapturedStatement>) | undefined
  commands = async ([command]) => {
    if (command === "capture-start") {
      if (capturing !== undefined) return { error: "already capturing" }
      capturing = Capture.start()
      return {}
    }
    if (command === "capture-stop") {
      if (capturing === undefined) return { error: "not capturing" }
      const statements = capturing()
      capturing = undefined
      return { statements }
    }
    return { error: `unknown command ${command}` }
  }
} else if (kind === "me") {
  const { answer, apiKey, email, headers, users } = input as MeInput
  // The user as teamchat answered it, without the envelope's own fields.
  const { msg: _msg, result: _result, ...user } = answer
  interface Account {
    readonly key: Buffer
    readonly email: string
    readonly user: Record<string, unknown>
  }
  const accounts = new Map<string, Account>()
  accounts.set(apiKey, { key: Buffer.from(apiKey), email, user })
  for (let i = 1; i < users; i++) {
    // Other users' keys: the same length and alphabet, never sent.
    const key = `${String(i).padStart(8, "0")}${apiKey.slice(8)}`.slice(0, apiKey.length)
    accounts.set(key, { key: Buffer.from(key), email: `user${i}@example.com`, user: { ...user, user_id: -i } })
  }
  const unauthorized = JSON.stringify({ result: "error", msg: "Invalid API key", code: "INVALID_API_KEY" })
  const refuse = (response: http.ServerResponse) => {
    response.writeHead(401, { "content-type": "application/json", "content-length": Buffer.byteLength(unauthorized) })
    response.end(unauthorized)
  }
  const server = http.createServer((request, response) => {
    const authorization = request.headers.authorization
    if (authorization === undefined || !authorization.startsWith("Basic ")) return refuse(response)
    const decoded = Buffer.from(authorization.slice(6), "base64").toString("utf8")
    const colon = decoded.indexOf(":")
    if (colon < 0) return refuse(response)
    const key = decoded.slice(colon + 1).trim()
    const account = accounts.get(key)
    const sent = Buffer.from(key)
    if (account === undefined || sent.length !== account.key.length || !timingSafeEqual(sent, account.key)) return refuse(response)
    if (account.email.toLowerCase() !== decoded.slice(0, colon).trim().toLowerCase()) return refuse(response)
    const body = JSON.stringify({ result: "success", msg: "", ...account.user })
    response.writeHead(200, { ...headers, "content-length": Buffer.byteLength(body) })
    response.end(body)
  })
  await listen(server)
} else if (kind === "raw-sql") {
  const { database, requests } = input as RawInput
  const layer: Layer.Layer<SqlClient.SqlClient, unknown> = "pglite" in database
    ? Persistence.layerPglite(database.pglite)
    : Persistence.layerPostgres(database.postgres)
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const sql = Context.get(context, SqlClient.SqlClient)
  const replays = new Map(Object.entries(requests).map(([name, statements]) => [name, replay(sql, statements)]))
  stop = () => Effect.runPromise(Scope.close(scope, Exit.void))
  url = ""
  commands = async ([command, name, seconds, concurrency]) => {
    if (command !== "run") return { error: `unknown command ${command}` }
    const replay = replays.get(name ?? "")
    if (replay === undefined) return { error: `no captured request ${name}` }
    const deadline = performance.now() + Number(seconds) * 1000
    const latencies: Array<number> = []
    let failures = 0
    let firstFailure: string | undefined
    const loop = Effect.gen(function*() {
      while (performance.now() < deadline && failures < 100) {
        const started = performance.now()
        const exit = yield* Effect.exit(replay)
        if (Exit.isSuccess(exit)) latencies.push(performance.now() - started)
        else {
          failures++
          firstFailure ??= String(exit.cause)
        }
      }
    })
    const started = performance.now()
    await Effect.runPromise(Effect.forEach(Array.from({ length: Number(concurrency) }), () => loop, { concurrency: "unbounded", discard: true }))
    const elapsed = (performance.now() - started) / 1000
    latencies.sort((a, b) => a - b)
    const at = (p: number) => latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!
    return { requests: latencies.length, seconds: elapsed, p50: at(0.5), p99: at(0.99), failures, firstFailure }
  }
} else if (kind === "constant") {
  const { body, headers, status } = input as ConstantInput
  const bytes = Buffer.from(body, "base64")
  await listen(http.createServer((_request, response) => {
    response.writeHead(status, headers)
    response.end(bytes)
  }))
} else {
  console.error(`usage: node bench/servers.ts teamchat|me|raw-sql|constant`)
  process.exit(2)
}

// `BENCH_SERVER_CPU_PROFILE=<dir>`: a V8 CPU profile of the whole server
// process (start-up and warm-up included), written to
// `<dir>/server-<kind>-<pid>.cpuprofile` when it stops.
const profileDir = process.env.BENCH_SERVER_CPU_PROFILE
const profiling = profileDir === undefined || profileDir === "" ? undefined : await (async () => {
  const { Session } = await import("node:inspector/promises")
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.setSamplingInterval", { interval: 100 })
  await session.post("Profiler.start")
  return async () => {
    const { profile } = await session.post("Profiler.stop")
    session.disconnect()
    const { mkdirSync, writeFileSync } = await import("node:fs")
    mkdirSync(profileDir!, { recursive: true })
    writeFileSync(`${profileDir}/server-${kind}-${process.pid}.cpuprofile`, JSON.stringify(profile))
  }
})()

let stopping = false
const shutdown = () => {
  if (stopping) return
  stopping = true
  const done = (code: number) => () => {
    if (profiling === undefined) process.exit(code)
    else profiling().finally(() => process.exit(code))
  }
  stop().then(done(0), done(1))
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)
lines.on("close", () => {
  closed = true
  waiter?.(undefined)
})
process.stdout.write(`${JSON.stringify({ url, pid: process.pid })}\n`)

/**
 * The memory in use once garbage is collected: two full collections with a
 * macrotask between them (finalizers and weak callbacks queued by the first
 * run before the second), so what remains is what the process still holds.
 */
async function collectedMemory(): Promise<NodeJS.MemoryUsage | { error: string }> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) return { error: "memory needs node --expose-gc" }
  gc()
  await new Promise((resolve) => setImmediate(resolve))
  gc()
  return process.memoryUsage()
}

// Commands, one at a time, answered in order.
for (let line = await nextLine(); line !== undefined; line = await nextLine()) {
  const words = line.trim().split(/\s+/)
  const answer = words[0] === "cpu"
    ? process.cpuUsage()
    : words[0] === "memory"
    ? await collectedMemory()
    : words[0] === "memory-now"
    ? process.memoryUsage()
    : await commands(words).catch((error: unknown) => ({ error: String((error as Error)?.stack ?? error) }))
  process.stdout.write(`${JSON.stringify(answer)}\n`)
}
shutdown()
