/**
 * The shortcuts of GET /api/v1/users/me and GET /api/v1/messages
 * (src/FastPaths.ts), in front of node:http and of a web handler:
 *
 * - on started servers, one with the shortcut and one without, seeded alike
 *   (test secrets, a frozen clock): every request, the plain success case
 *   and every case that falls through, gets the very same bytes from both
 *   (the Date header aside, which says when), and the request log gets the
 *   same lines (the duration and fiber aside), with request logging and
 *   rate limiting off (the benchmark's configuration) and on (the standalone
 *   server's), in memory, on PGlite and on PostgreSQL (where the core, and
 *   there the rate limit store, answer asynchronously);
 * - with rate limiting on, the limit is reached at the same request, with
 *   the same 429, requests answered by the shortcut and by the routes
 *   counting in the same window;
 * - on the shortcut alone, in front of a stand-in for the routes: it answers
 *   the plain case itself (counting it and logging it when asked) and hands
 *   every other request on untouched, uncounted and unlogged, a user over
 *   the limit too; in front of a web handler as well;
 * - `Http.makeWebHandler` with them answers as without them, counting in
 *   the routes' limiter.
 */
import { assert, describe, it } from "@effect/vitest"
import { Organizations } from "@teamchat/core/services/Organizations"
import { Users } from "@teamchat/core/services/Users"
import { Messages } from "@teamchat/core/services/Messages"
import { Authentication as CoreAuthentication } from "@teamchat/core/services/Authentication"
import { userId } from "@teamchat/core/domain/Ids"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as CheckedEvents from "@teamchat/core/testing/CheckedEvents"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import { layerRateLimitsMemory } from "@teamchat/core/Persistence"
import { RateLimitStore, RateLimitStoreUnavailable } from "@teamchat/core/ports/RateLimitStore"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as HttpServer from "effect/http/HttpServer"
import * as TestConsole from "effect/testing/TestConsole"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import type { AddressInfo } from "node:net"
import * as net from "node:net"
import type { ServerConfig } from "../src/Config.ts"
import * as FastPaths from "../src/FastPaths.ts"
import * as Http from "../src/Http.ts"
import * as RateLimitMiddleware from "../src/middleware/RateLimit.ts"
import * as Server from "../src/Server.ts"

const externalUrl = "http://chat.example"
const host = "chat.example"

const config: ServerConfig = {
  port: 0,
  host: "127.0.0.1",
  database: { _tag: "Memory" },
  demo: true,
  externalUrl,
  rateLimit: false,
  logLevel: "None",
  logFormat: "logfmt"
}

/** The real clock's timers at a frozen time, so two servers seed the same join dates. */
const frozenClock = Effect.clockWith((real) => Effect.succeed<Clock.Clock>({
  currentTimeMillisUnsafe: () => 1_780_000_000_000,
  currentTimeMillis: Effect.succeed(1_780_000_000_000),
  currentTimeNanosUnsafe: () => 1_780_000_000_000_000_000n,
  currentTimeNanos: Effect.succeed(1_780_000_000_000_000_000n),
  monotonicTimeNanosUnsafe: () => real.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: real.monotonicTimeNanos,
  sleep: (duration) => real.sleep(duration)
}))

/** A started server: its port and the lines its loggers wrote. */
const start = (options: Server.Options, overrides: Partial<ServerConfig> = {}) =>
  Effect.gen(function*() {
    const clock = yield* frozenClock
    const console = yield* TestConsole.make
    const context = yield* Layer.build(
      Server.layer({ ...config, ...overrides }, {
        secrets: Teamchat.layerSecretsTest,
        output: () => {},
        ...options,
        http: { log: false, ...options.http }
      })
    ).pipe(Effect.provideService(Clock.Clock, clock), Effect.provideService(Console.Console, console))
    const address = Context.get(context, HttpServer.HttpServer).address
    // Whether the shortcut is on: the comparisons would pass with it off.
    assert.strictEqual(Context.get(context, FastPaths.FastPaths) !== undefined, options.fastPaths !== false)
    return { port: "port" in address ? address.port : 0, logLines: console.logLines }
  })

/** A log line, but for what differs between any two runs: the duration and the fiber. */
const logLine = (line: unknown) =>
  String(line).replace(/ duration_ms=\d+/, " duration_ms=-").replace(/ fiber=#\d+/, " fiber=#-")

/** The raw bytes of one response read off `socket` (no body after HEAD). */
const readResponse = (socket: net.Socket, head: boolean) =>
  new Promise<string>((resolve, reject) => {
    let received = ""
    const onData = (data: string) => {
      received += data
      const end = received.indexOf("\r\n\r\n")
      if (end === -1) return
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(received.slice(0, end + 2))
      const total = end + 4 + (head || length === null ? 0 : Number(length[1]))
      if (received.length >= total) {
        socket.off("data", onData)
        socket.off("error", reject)
        resolve(received)
      }
    }
    socket.on("data", onData)
    socket.on("error", reject)
  })

/** Sends each request on one connection, in turn, and returns the responses' bytes. */
const exchange = (port: number, requests: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const socket = net.connect(port, "127.0.0.1")
    socket.setEncoding("latin1")
    await new Promise((resolve) => socket.once("connect", resolve))
    const responses: Array<string> = []
    for (const request of requests) {
      const response = readResponse(socket, request.startsWith("HEAD "))
      socket.write(request)
      responses.push(await response)
    }
    socket.destroy()
    return responses
  })

/** The Date header says when; everything else must match. */
const withoutDate = (response: string) => response.replace(/\r\nDate: [^\r]*\r\n/, "\r\nDate: -\r\n")

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

const get = (headers: Record<string, string>, path = "/api/v1/users/me", method = "GET", version = "1.1") =>
  `${method} ${path} HTTP/${version}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`

/** A form POST of `body` (a form's text, sent as is) with `headers`, its length declared. */
const post = (headers: Record<string, string>, body: string, path = "/api/v1/messages", type = "application/x-www-form-urlencoded") =>
  get({ ...headers, "content-type": type, "content-length": String(Buffer.byteLength(body)) }, path, "POST") + body

/** A form's text. */
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

const devKey = (port: number, email: string) =>
  Effect.promise(() =>
    fetch(`http://127.0.0.1:${port}/api/v1/dev_fetch_api_key`, {
      method: "POST",
      headers: { host },
      body: new URLSearchParams({ username: email })
    }).then((r) => r.json() as Promise<{ api_key: string; user_id: number }>)
  )

/**
 * The requests compared: the plain case (the shortcut's) and every case
 * around it, which falls through to the routes.
 */
const requests = (keys: { readonly iago: string; readonly hamlet: string; readonly bot: string }) => {
  const iago = basic("iago@zulip.com", keys.iago)
  const plain = { host, authorization: iago }
  return [
    get(plain),
    get(plain),
    // Another request on the same keep-alive connection, and HTTP/1.0.
    get({ ...plain, connection: "close" }, "/api/v1/users/me", "GET", "1.0").replace("connection: close\r\n", ""),
    get({ ...plain, connection: "keep-alive" }, "/api/v1/users/me", "GET", "1.0"),
    // Hosts: none, one naming no organization, another spelling of the organization's.
    get({ authorization: iago }, "/api/v1/users/me", "GET", "1.0"),
    get({ host: "127.0.0.1:9", authorization: iago }),
    get({ host: "CHAT.example", authorization: iago }),
    // A bot, and credentials in other spellings.
    get({ host, authorization: basic("default-bot@zulip.com", keys.bot) }),
    get({ host, authorization: basic("IAGO@zulip.com", keys.iago) }),
    get({ host, authorization: `basic   ${iago.slice(6)}` }),
    get({ host, authorization: basic("iago@zulip.com", ` ${keys.iago} `) }),
    // No credentials or bad ones.
    get({ host }),
    get({ host, authorization: "" }),
    get({ host, authorization: "Bearer abc" }),
    get({ host, authorization: "Basic" }),
    get({ host, authorization: "Basic !!!!" }),
    get({ host, authorization: basic("iago@zulip.com", "short") }),
    get({ host, authorization: basic("iago@zulip.com", "a".repeat(32)) }),
    get({ host, authorization: basic("hamlet@zulip.com", keys.iago) }),
    get({ host, authorization: basic("iago@zulip.com", `${keys.iago}:x`) }),
    // A deactivated account.
    get({ host, authorization: basic("hamlet@zulip.com", keys.hamlet) }),
    // Other paths, query strings, methods.
    get(plain, "/api/v1/users/me/"),
    get(plain, "/api/v1/users/me?"),
    get(plain, "/api/v1/users/me?client_gravatar=false"),
    get(plain, "/api/v1/users/me?unknown=1"),
    get(plain, "/api/v1/users/me#fragment"),
    get(plain, "/api/v1/users/%6De"),
    get(plain, "/api/v1//users/me"),
    get(plain, "/api/v1/users/me", "HEAD"),
    get(plain, "/api/v1/users/me", "POST"),
    get(plain, "/api/v1/users/me", "OPTIONS"),
    get(plain, "/json/users/me"),
    // A body on a GET.
    `GET /api/v1/users/me HTTP/1.1\r\nhost: ${host}\r\nauthorization: ${iago}\r\n` +
    `content-type: application/x-www-form-urlencoded\r\ncontent-length: 5\r\n\r\nfoo=1`,
    `GET /api/v1/users/me HTTP/1.1\r\nhost: ${host}\r\nauthorization: ${iago}\r\n` +
    `transfer-encoding: chunked\r\n\r\n0\r\n\r\n`,
    get(plain),
    ...messagesRequests(keys)
  ]
}

/** A page of Verona's messages, GET /messages's plain case. */
const page = `/api/v1/messages?anchor=newest&num_before=5&num_after=0&narrow=${
  encodeURIComponent(JSON.stringify([{ operator: "channel", operand: "Verona" }]))
}`

/** GET /messages: its plain cases (the shortcut's), then every case around them, which falls through. */
const messagesRequests = (keys: Keys) => {
  const iago = basic("iago@zulip.com", keys.iago)
  const plain = { host, authorization: iago }
  const range = "num_before=1&num_after=0"
  return [
    get(plain, page),
    get(plain, "/api/v1/messages?anchor=newest&num_before=3&num_after=0"),
    get(plain, "/api/v1/messages?anchor=oldest&num_before=0&num_after=2&apply_markdown=false&client_gravatar=false"),
    get(plain, "/api/v1/messages?anchor=first_unread&num_before=1&num_after=1&include_anchor=true"),
    get(plain, "/api/v1/messages?use_first_unread_anchor=true&anchor=0&num_before=1&num_after=1"),
    get(plain, `/api/v1/messages?anchor=newest&${range}&narrow=%5B%5D&allow_empty_topic_name=true`),
    // No query string, no anchor, bad values of each kind.
    get(plain, "/api/v1/messages"),
    get(plain, "/api/v1/messages?"),
    get(plain, `/api/v1/messages?${range}`),
    get(plain, `/api/v1/messages?anchor=banana&${range}`),
    get(plain, "/api/v1/messages?anchor=newest&num_before=-1&num_after=0"),
    get(plain, "/api/v1/messages?anchor=newest&num_before=x&num_after=0"),
    get(plain, "/api/v1/messages?anchor=newest&num_before=5000&num_after=5000"),
    get(plain, "/api/v1/messages?anchor=10&num_before=1&num_after=1&include_anchor=false"),
    get(plain, `/api/v1/messages?anchor=newest&${range}&narrow=%5B`),
    get(plain, `/api/v1/messages?anchor=newest&${range}&narrow=${encodeURIComponent("[{\"operator\":\"bogus\",\"operand\":1}]")}`),
    get(plain, `/api/v1/messages?anchor=newest&${range}&apply_markdown=maybe`),
    // A parameter the endpoint does not declare, a repeated one, a NUL byte.
    get(plain, `/api/v1/messages?anchor=newest&${range}&unknown=1`),
    get(plain, `/api/v1/messages?anchor=newest&anchor=oldest&${range}`),
    get(plain, `/api/v1/messages?anchor=newest%00&${range}`),
    // Other paths and methods, another organization's host, a deactivated account, no credentials.
    get(plain, `/api/v1/messages/?anchor=newest&${range}`),
    get(plain, page, "HEAD"),
    get({ host: "127.0.0.1:9", authorization: iago }, page),
    get({ host, authorization: basic("hamlet@zulip.com", keys.hamlet) }, page),
    get({ host }, page),
    get(plain, page),
    ...sendRequests(keys)
  ]
}

/** The newest messages, to see what the sends before wrote (each once). */
const newest = "/api/v1/messages?anchor=newest&num_before=30&num_after=0"

/** POST /messages: its plain cases (the shortcut's), then every case around them, which falls through. */
const sendRequests = (keys: Keys) => {
  const iago = basic("iago@zulip.com", keys.iago)
  const plain = { host, authorization: iago }
  const verona = { type: "stream", to: "Verona", topic: "sends", content: "plain **send**" }
  return [
    post(plain, form(verona)),
    post({ ...plain, "user-agent": "ZulipMobile/27.1 (Android 14)" }, form({ ...verona, content: "from the app" })),
    post(plain, form({ type: "channel", to: "\"Verona\"", subject: "old name", content: "subject" })),
    post(plain, form({ type: "direct", to: "[\"cordelia@zulip.com\"]", content: "to Cordelia" })),
    post(plain, form({ type: "private", to: "othello@zulip.com,cordelia@zulip.com", content: "group" })),
    post({ host, authorization: basic("default-bot@zulip.com", keys.bot) }, form({ ...verona, content: "a bot's" })),
    post({ ...plain, "content-type": "application/x-www-form-urlencoded; charset=UTF-8" }, form({ ...verona, content: "charset" })),
    // Refused by the core, by the parameters' schemas, by the parsing of the form.
    post(plain, form({ ...verona, to: "No such channel" })),
    post(plain, form({ ...verona, subject: "both" })),
    post(plain, form({ ...verona, to: "1.5" })),
    post(plain, form({ ...verona, type: "bogus" })),
    post(plain, form({ type: "stream", to: "Verona", topic: "sends" })),
    post(plain, form({ ...verona, content: "" })),
    post(plain, form({ ...verona, content: "x".repeat(10_001) })),
    post(plain, ""),
    // An undeclared parameter (the answer names it), a repeated one, a NUL byte, a leading "?".
    post(plain, `${form(verona)}&unknown=1`),
    post(plain, `${form(verona)}&topic=again`),
    post(plain, `${form(verona)}&queue_id=%00`),
    post(plain, `?${form(verona)}`),
    // Parameters in the query string too, or only there; other bodies.
    post(plain, form(verona), "/api/v1/messages?read_by_sender=true"),
    post(plain, "", `/api/v1/messages?${form(verona)}`),
    post(plain, JSON.stringify(verona), "/api/v1/messages", "application/json"),
    post(plain, form(verona), "/api/v1/messages", "text/plain"),
    `POST /api/v1/messages HTTP/1.1\r\nhost: ${host}\r\nauthorization: ${iago}\r\n` +
    `content-type: application/x-www-form-urlencoded\r\ntransfer-encoding: chunked\r\n\r\n` +
    `${form(verona).length.toString(16)}\r\n${form(verona)}\r\n0\r\n\r\n`,
    // Other paths, credentials and hosts; a deactivated account.
    post(plain, form(verona), "/api/v1/messages/"),
    post({ host }, form(verona)),
    post({ host, authorization: basic("iago@zulip.com", "a".repeat(32)) }, form(verona)),
    post({ host: "127.0.0.1:9", authorization: iago }, form(verona)),
    post({ host, authorization: basic("hamlet@zulip.com", keys.hamlet) }, form(verona)),
    post(plain, form({ ...verona, content: "last" })),
    get(plain, newest)
  ]
}

/**
 * Fewer requests, for PGlite (whose servers are slow to start): the plain
 * case, answered asynchronously, and failures of the core, falling through
 * asynchronously.
 */
const fewRequests = (keys: Keys) => {
  const plain = { host, authorization: basic("iago@zulip.com", keys.iago) }
  return [
    get(plain),
    get({ host: "127.0.0.1:9", authorization: plain.authorization }),
    get({ host, authorization: basic("default-bot@zulip.com", keys.bot) }),
    get({ host, authorization: basic("iago@zulip.com", "a".repeat(32)) }),
    get({ host, authorization: basic("hamlet@zulip.com", keys.hamlet) }),
    get(plain, "/api/v1/users/me?unknown=1"),
    get(plain),
    get(plain, page),
    get({ host, authorization: basic("hamlet@zulip.com", keys.hamlet) }, page),
    get(plain, `${page}&unknown=1`),
    get(plain, "/api/v1/messages?anchor=newest&num_before=1&num_after=0&narrow=%5B"),
    get(plain, page),
    post(plain, form({ type: "stream", to: "Verona", topic: "sends", content: "plain" })),
    post(plain, form({ type: "stream", to: "No such channel", topic: "sends", content: "refused" })),
    post({ host, authorization: basic("hamlet@zulip.com", keys.hamlet) }, form({ type: "stream", to: "Verona", topic: "t", content: "c" })),
    post(plain, `${form({ type: "stream", to: "Verona", topic: "sends", content: "named" })}&unknown=1`),
    get(plain, newest)
  ]
}

type Keys = { readonly iago: string; readonly hamlet: string; readonly bot: string }

/** The keys of the test accounts, after Hamlet's deactivation. */
const setUp = (port: number) =>
  Effect.gen(function*() {
    const iago = yield* devKey(port, "iago@zulip.com")
    const hamlet = yield* devKey(port, "hamlet@zulip.com")
    const bot = yield* devKey(port, "default-bot@zulip.com")
    // Messages for GET /messages to read: to Verona, and to Hamlet.
    const sends = [
      { type: "stream", to: "Verona", topic: "shortcut", content: "**hello** 1" },
      { type: "stream", to: "Verona", topic: "shortcut", content: "hello 2 @**King Hamlet**" },
      { type: "stream", to: "Verona", topic: "other", content: "hello 3" },
      { type: "direct", to: JSON.stringify([hamlet.user_id]), content: "hello Hamlet" }
    ]
    for (const form of sends) {
      const sent = yield* Effect.promise(() =>
        fetch(`http://127.0.0.1:${port}/api/v1/messages`, {
          method: "POST",
          headers: { host, authorization: basic("iago@zulip.com", iago.api_key) },
          body: new URLSearchParams(form)
        })
      )
      assert.strictEqual(sent.status, 200)
    }
    const deactivate = yield* Effect.promise(() =>
      fetch(`http://127.0.0.1:${port}/api/v1/users/${hamlet.user_id}`, {
        method: "DELETE",
        headers: { host, authorization: basic("iago@zulip.com", iago.api_key) }
      })
    )
    assert.strictEqual(deactivate.status, 200)
    return { iago: iago.api_key, hamlet: hamlet.api_key, bot: bot.api_key } satisfies Keys
  })

type Started = Effect.Success<ReturnType<typeof start>> & { readonly keys: Keys }

/** Starts a server with the shortcut and one without, alike, set up alike. */
type Pair = (log: boolean, overrides: Partial<ServerConfig>) => Effect.Effect<
  { readonly fast: Started; readonly routes: Started },
  unknown,
  Scope.Scope
>

/** Each server on a database of its own that `database` makes, set up through its API. */
const fresh = (database: Effect.Effect<ServerConfig["database"], never, Scope.Scope>): Pair => (log, overrides) =>
  Effect.gen(function*() {
    const started = (fastPaths: boolean) =>
      Effect.gen(function*() {
        const server = yield* start({ fastPaths, http: { log } }, { ...overrides, database: yield* database })
        return { ...server, keys: yield* setUp(server.port) }
      })
    return { fast: yield* started(true), routes: yield* started(false) }
  })

const memory = fresh(Effect.succeed({ _tag: "Memory" } as const))

/** A database of its own for each server, dropped with the scope. */
const postgres = fresh(
  Layer.build(TestDatabase.postgresLayer()).pipe(
    Effect.map((context) => ({ _tag: "Postgres", url: Context.get(context, TestDatabase.TestDatabase).url }) as const),
    Effect.orDie
  )
)

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-fastpaths-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * PGlite: one data directory, seeded and set up by a server of its own
 * (stopped then), copied for each server of the pair. A server takes
 * seconds to create and seed a new one.
 */
const pglite: Pair = (log, overrides) =>
  Effect.gen(function*() {
    const seeded = yield* tempDir
    const keys = yield* Effect.scoped(Effect.flatMap(
      start({ fastPaths: false }, { ...overrides, database: { _tag: "Pglite", dataDir: seeded } }),
      ({ port }) => setUp(port)
    ))
    const started = (fastPaths: boolean) =>
      Effect.gen(function*() {
        const dataDir = yield* tempDir
        fs.cpSync(seeded, dataDir, { recursive: true })
        const server = yield* start({ fastPaths, http: { log } }, { ...overrides, database: { _tag: "Pglite", dataDir } })
        return { ...server, keys }
      })
    return { fast: yield* started(true), routes: yield* started(false) }
  })

/** Request logging and rate limiting as the standalone server has them (a larger limit: no request is refused). */
const production = (overrides: Partial<ServerConfig> = {}) => ({
  log: true,
  overrides: { logLevel: "Info", rateLimit: { requests: 1000, windowSeconds: 60 }, ...overrides } as Partial<ServerConfig>
})

const variants: ReadonlyArray<{
  readonly name: string
  readonly pair: Pair
  readonly log: boolean
  readonly overrides: Partial<ServerConfig>
  readonly requests: typeof requests
}> = [
  { name: "in memory, rate limiting and request logging off", pair: memory, log: false, overrides: {}, requests },
  { name: "in memory, rate limiting and request logging on", pair: memory, ...production(), requests },
  // Fewer requests on PGlite, whose every query takes a while.
  { name: "on PGlite, rate limiting and request logging on", pair: pglite, ...production(), requests: fewRequests },
  {
    name: "on PostgreSQL, rate limits counted there, request logging on",
    pair: postgres,
    ...production({ rateLimitStore: { _tag: "Postgres" } }),
    requests
  }
]

/** Asserts the two servers wrote the same log lines (and some, when `log`). */
const sameLogLines = (servers: { readonly fast: Started; readonly routes: Started }, log: boolean) =>
  Effect.gen(function*() {
    const fast = (yield* servers.fast.logLines).map(logLine)
    const routes = (yield* servers.routes.logLines).map(logLine)
    assert.deepStrictEqual(fast, routes)
    if (log) assert.isTrue(fast.some((line) => line.includes(" path=/api/v1/users/me status=200 ")), fast.join("\n"))
    return fast
  })

/** Each server answers the requests `list` makes with its keys, on one connection: the answers, the same from both. */
const sameAnswers = (servers: { readonly fast: Started; readonly routes: Started }, list: (keys: Keys) => ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const answers: Record<string, ReadonlyArray<string>> = {}
    for (const [name, { keys, port }] of Object.entries(servers)) answers[name] = (yield* exchange(port, list(keys))).map(withoutDate)
    const [fast, routes] = [answers.fast!, answers.routes!]
    assert.strictEqual(fast.length, routes.length)
    for (let i = 0; i < fast.length; i++) assert.strictEqual(fast[i], routes[i], `response ${i}`)
    return fast
  })

/** Each answer's status line and X-RateLimit-Remaining. */
const remainders = (answers: ReadonlyArray<string>) =>
  answers.map((r) => [r.slice(0, 12), /x-ratelimit-remaining: (\d+)/i.exec(r)?.[1]])

describe("GET /users/me and GET /messages shortcuts", () => {
  for (const variant of variants) {
    it.live(`answers every request with the very bytes of the routes, ${variant.name}`, () =>
      Effect.scoped(Effect.gen(function*() {
        const servers = yield* variant.pair(variant.log, variant.overrides)
        const answers: Record<string, ReadonlyArray<string>> = {}
        for (const [name, { keys, port }] of Object.entries(servers)) {
          const list = variant.requests(keys)
          // Each request on a connection of its own, then all of them on one.
          const alone: Array<string> = []
          for (const request of list) alone.push(...yield* exchange(port, [request]))
          const together = yield* exchange(port, list.filter((r) => !r.includes("HTTP/1.0") && !r.startsWith("HEAD ")))
          answers[name] = [...alone, ...together].map(withoutDate)
        }
        const [fast, routes] = [answers.fast!, answers.routes!]
        assert.strictEqual(fast.length, routes.length)
        for (let i = 0; i < fast.length; i++) assert.strictEqual(fast[i], routes[i], `response ${i}`)
        // The comparison covers successes and failures alike.
        assert.match(fast[0]!, /^HTTP\/1\.1 200 OK\r\n/)
        assert.match(fast[0]!, /"full_name":"Iago"/)
        assert.isTrue(fast.some((r) => r.startsWith("HTTP/1.1 401 ")))
        assert.isTrue(fast.some((r) => r.includes("\"code\":\"USER_DEACTIVATED\"")))
        assert.isTrue(fast.some((r) => r.includes("\"ignored_parameters_unsupported\":[\"unknown\"]")))
        // GET /messages: a page of Verona's messages, and refusals.
        assert.isTrue(fast.some((r) => r.startsWith("HTTP/1.1 200 ") && r.includes("\"display_recipient\":\"Verona\"")))
        assert.isTrue(fast.some((r) => r.includes("\"msg\":\"narrow is not valid JSON\"")))
        // POST /messages: sends, refusals, and what they wrote.
        assert.isTrue(fast.some((r) => /^HTTP\/1\.1 200 [^]*\r\n\r\n\{"result":"success","msg":"","id":\d+\}$/.test(r)))
        assert.isTrue(fast.some((r) => r.includes("\"code\":\"STREAM_DOES_NOT_EXIST\"")))
        assert.isTrue(fast.some((r) => r.includes("\"content\":\"<p>plain</p>\"") || r.includes("\"content\":\"<p>plain <strong>send</strong></p>\"")))
        if (variant.overrides.rateLimit !== undefined) assert.match(fast[0]!, /\r\nX-RateLimit-Remaining: \d+\r\n/i)
        else assert.notMatch(fast[0]!, /X-RateLimit/i)
        yield* sameLogLines(servers, variant.log)
      })), 240_000)
  }

  it.live("other methods on the shortcuts' paths: HEAD answers as GET without its body, others a 405 naming the path's methods", () =>
    Effect.scoped(Effect.gen(function*() {
      const { port } = yield* start({})
      const plain = { host, authorization: basic("iago@zulip.com", (yield* devKey(port, "iago@zulip.com")).api_key) }
      const [getMe, headMe, getPage, headPage, putMe, putMessages, headMessages] = yield* exchange(port, [
        get(plain),
        get(plain, "/api/v1/users/me", "HEAD"),
        get(plain, page),
        get(plain, page, "HEAD"),
        get(plain, "/api/v1/users/me", "PUT"),
        get(plain, "/api/v1/messages", "PUT"),
        get({ ...plain, authorization: "Basic !!!!" }, "/api/v1/messages", "HEAD")
      ])
      const head = (response: string) => withoutDate(response.slice(0, response.indexOf("\r\n\r\n") + 4))
      assert.match(getMe!, /^HTTP\/1\.1 200 OK\r\n/)
      assert.strictEqual(withoutDate(headMe!), head(getMe!))
      assert.match(getPage!, /^HTTP\/1\.1 200 OK\r\n/)
      assert.strictEqual(withoutDate(headPage!), head(getPage!))
      const notAllowed = (allowed: ReadonlyArray<string>) => {
        const body = JSON.stringify({ result: "error", msg: "Method Not Allowed", allowed_methods: allowed })
        return `HTTP/1.1 405 Method Not Allowed\r\nallow: ${allowed.join(", ")}\r\ncontent-type: application/json\r\n` +
          `content-length: ${body.length}\r\nDate: -\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n${body}`
      }
      // /users/me's own methods: the static path shadows /users/{user_id_or_email}.
      assert.strictEqual(withoutDate(putMe!), notAllowed(["GET", "DELETE", "HEAD"]))
      assert.strictEqual(withoutDate(putMessages!), notAllowed(["GET", "POST", "HEAD"]))
      // HEAD is GET's: refused as GET would be, without the body.
      assert.match(headMessages!, /^HTTP\/1\.1 401 Unauthorized\r\n[^]*\r\n\r\n$/)
    })), 60_000)

  it.live("GET /messages asked again with the same query string: answered afresh, for whoever asks, as by the routes", () =>
    Effect.scoped(Effect.gen(function*() {
      const servers = yield* memory(false, {})
      const fast = yield* sameAnswers(servers, (keys) => {
        const iago = { host, authorization: basic("iago@zulip.com", keys.iago) }
        const bot = { host, authorization: basic("default-bot@zulip.com", keys.bot) }
        const verona = encodeURIComponent(JSON.stringify([{ operator: "channel", operand: "Verona" }]))
        const newest = `/api/v1/messages?anchor=newest&num_before=2&num_after=0&narrow=${verona}`
        const refused = `/api/v1/messages?anchor=banana&num_before=2&num_after=0&narrow=${verona}`
        const star = form({ anchor: "newest", num_before: "1", num_after: "0", narrow: decodeURIComponent(verona), op: "add", flag: "starred" })
        return [
          get(iago, newest),
          post(iago, form({ type: "stream", to: "Verona", topic: "again", content: "a new one" })),
          get(iago, newest),
          post(iago, star, "/api/v1/messages/flags/narrow"),
          get(iago, newest),
          get(bot, newest),
          get(iago, refused),
          get(iago, refused)
        ]
      })
      const messages = (answer: string) =>
        (JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { messages: Array<{ content: string; flags: Array<string> }> })
          .messages.map((m) => [m.content, m.flags])
      // The same text each time; what changed between them shows, and the
      // flags are the asker's.
      const [before, sent, starred, ofBot] = [0, 2, 4, 5].map((i) => messages(fast[i]!))
      assert.strictEqual(before!.length, 2)
      assert.deepStrictEqual(sent!.map(([content]) => content), [before![1]![0], "<p>a new one</p>"])
      assert.deepStrictEqual(starred![1], ["<p>a new one</p>", [...sent![1]![1], "starred"]])
      assert.deepStrictEqual(ofBot!.map(([content]) => content), starred!.map(([content]) => content))
      assert.notInclude(ofBot![1]![1], "starred")
      for (const answer of fast.slice(6)) assert.include(answer, "\"code\":\"BAD_REQUEST\"")
    })), 60_000)

  it.live("rate limiting on: the limit is reached at the same request, shortcut and routes counting together", () =>
    Effect.scoped(Effect.gen(function*() {
      const servers = yield* memory(true, { logLevel: "Info", rateLimit: { requests: 10, windowSeconds: 60 } })
      const fast = yield* sameAnswers(servers, (keys) => {
        const plain = { host, authorization: basic("iago@zulip.com", keys.iago) }
        // "?" takes the routes, the plain path the shortcut (on its server).
        return [
          get(plain),
          get(plain, "/api/v1/users/me?"),
          get(plain),
          get(plain),
          get(plain, "/api/v1/users/me?"),
          get(plain),
          get(plain, "/api/v1/users/me?"),
          get(plain)
        ]
      })
      // The counts in the window, request after request, are the remainders
      // (five requests before: Iago's four sends and Hamlet's deactivation).
      assert.deepStrictEqual(
        remainders(fast),
        [
          ["HTTP/1.1 200", "4"],
          ["HTTP/1.1 200", "3"],
          ["HTTP/1.1 200", "2"],
          ["HTTP/1.1 200", "1"],
          ["HTTP/1.1 200", "0"],
          ["HTTP/1.1 429", "0"],
          ["HTTP/1.1 429", "0"],
          ["HTTP/1.1 429", "0"]
        ]
      )
      assert.include(fast[5]!, "\"code\":\"RATE_LIMIT_HIT\"")
      const lines = yield* sameLogLines(servers, true)
      // One line per request: the shortcut's answers and the refusals it handed on alike.
      assert.strictEqual(lines.filter((line) => line.includes(" path=/api/v1/users/me ")).length, 8)
    })), 60_000)
})

describe("POST /messages shortcut", () => {
  it.live("rate limiting on: a send is counted once, whether sent, refused by the core or over the limit", () =>
    Effect.scoped(Effect.gen(function*() {
      const servers = yield* memory(true, { logLevel: "Info", rateLimit: { requests: 10, windowSeconds: 60 } })
      const fast = yield* sameAnswers(servers, (keys) => {
        const plain = { host, authorization: basic("iago@zulip.com", keys.iago) }
        const send = (content: string, to = "Verona") => post(plain, form({ type: "stream", to, topic: "limits", content }))
        return [
          send("one"),
          send("refused", "No such channel"),
          send("two"),
          post(plain, `${form({ type: "stream", to: "Verona", topic: "limits", content: "named" })}&unknown=1`),
          send("three"),
          send("over"),
          send("over", "No such channel")
        ]
      })
      // Five requests before (Iago's four sends and Hamlet's deactivation): each of these counted once.
      assert.deepStrictEqual(
        remainders(fast),
        [
          ["HTTP/1.1 200", "4"],
          ["HTTP/1.1 400", "3"],
          ["HTTP/1.1 200", "2"],
          ["HTTP/1.1 200", "1"],
          ["HTTP/1.1 200", "0"],
          ["HTTP/1.1 429", "0"],
          ["HTTP/1.1 429", "0"]
        ]
      )
      assert.include(fast[3]!, "\"ignored_parameters_unsupported\":[\"unknown\"]")
      // The same lines (no GET /users/me among them): one per send, the set-up's four and these seven.
      const lines = yield* sameLogLines(servers, false)
      assert.strictEqual(lines.filter((line) => line.includes(" method=POST path=/api/v1/messages ")).length, 4 + 7, lines.join("\n"))
      // What was written: the four sends accepted, once each (read by the bot, whose own limit has room).
      const narrow = encodeURIComponent(JSON.stringify([{ operator: "channel", operand: "Verona" }, { operator: "topic", operand: "limits" }]))
      const page = (yield* exchange(servers.fast.port, [
        get(
          { host, authorization: basic("default-bot@zulip.com", servers.fast.keys.bot) },
          `/api/v1/messages?anchor=newest&num_before=10&num_after=0&narrow=${narrow}`
        )
      ]))[0]!
      const messages = JSON.parse(page.slice(page.indexOf("\r\n\r\n") + 4)).messages as ReadonlyArray<{ content: string }>
      assert.deepStrictEqual(messages.map((m) => m.content), ["<p>one</p>", "<p>two</p>", "<p>named</p>", "<p>three</p>"])
    })), 60_000)
})

describe("FastPaths.make", () => {
  const core = CheckedEvents.layerMemory()
  const noLimits = RateLimitMiddleware.limiterLayer({ user: false, anonymous: false }).pipe(
    Layer.provide(layerRateLimitsMemory)
  )

  /** The demo organization and another, Hamlet deactivated: Iago's and Hamlet's keys. */
  const seeded = Effect.gen(function*() {
    yield* Server.seedDemo(externalUrl, () => {})
    const organizations = yield* Organizations
    yield* organizations.create({
      string_id: "lear",
      name: "Lear & Co.",
      url: "http://lear.example",
      owner: { email: "king@lear.example", full_name: "King Lear", password: "a password" }
    })
    const realm = (yield* organizations.list).find((r) => r.url === externalUrl)!
    const auth = yield* CoreAuthentication
    const iago = yield* auth.devFetchApiKey(realm.id, "iago@zulip.com")
    const hamlet = yield* auth.devFetchApiKey(realm.id, "hamlet@zulip.com")
    yield* (yield* Users).deactivate(userId(hamlet.user_id))
    return { iago, hamlet }
  })

  /** A server of the shortcut in front of a stand-in for the routes, which answers 599 and records what it got. */
  const standIn = (shortcuts: FastPaths.Shortcuts) =>
    Effect.gen(function*() {
      const passed: Array<string> = []
      const bodies: Array<string> = []
      const server = http.createServer(shortcuts.node((request, response) => {
        passed.push(`${request.method} ${request.url}`)
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          bodies.push(Buffer.concat(chunks).toString())
          response.writeHead(599)
          response.end("routes")
        })
      }))
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
        () => Effect.promise(() => new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }))
      )
      return { port: (server.address() as AddressInfo).port, passed, bodies }
    })

  it.live("answers the plain case itself and hands every other request to the routes", () =>
    Effect.scoped(Effect.gen(function*() {
      const { hamlet, iago } = yield* seeded
      const wrap = (yield* FastPaths.make({ log: false, maxBodyBytes: 1024 }))!
      const { passed, port } = yield* standIn(wrap)
      const plain = { host, authorization: basic("iago@zulip.com", iago.api_key) }
      const status = (request: string) => Effect.map(exchange(port, [request]), ([r]) => r!.slice(9, 12))

      for (const request of [
        get(plain),
        get({ authorization: plain.authorization }, "/api/v1/users/me", "GET", "1.0"),
        get({ ...plain, host: "127.0.0.1:1" }),
        get({ ...plain, host: "CHAT.EXAMPLE" }),
        get(plain, "/api/v1/messages?anchor=newest&num_before=2&num_after=0")
      ]) {
        assert.strictEqual(yield* status(request), "200", request)
      }
      assert.deepStrictEqual(passed, [])
      const fallThrough = [
        get({ host }),
        get({ host, authorization: "Bearer x" }),
        get({ host, authorization: "Basic !!!!" }),
        get({ host, authorization: basic("iago@zulip.com", "a".repeat(32)) }),
        get({ host, authorization: basic("iago@zulip.com", "short") }),
        get({ host, authorization: basic("hamlet@zulip.com", iago.api_key) }),
        get({ host, authorization: basic("hamlet@zulip.com", hamlet.api_key) }),
        get({ ...plain, host: "lear.example" }),
        get(plain, "/api/v1/users/me/"),
        get(plain, "/api/v1/users/me?"),
        get(plain, "/api/v1/users/me?a=b"),
        get(plain, "/api/v1/users/me", "HEAD"),
        get(plain, "/api/v1/users/me", "POST"),
        get({ ...plain, "content-length": "0" }),
        get(plain, "/api/v1/messages"),
        get(plain, "/api/v1/messages?anchor=newest&num_before=2&num_after=0&unknown=1"),
        get(plain, "/api/v1/messages?anchor=banana&num_before=2&num_after=0"),
        get({ host, authorization: basic("hamlet@zulip.com", hamlet.api_key) }, "/api/v1/messages?anchor=newest&num_before=2&num_after=0"),
        `GET /api/v1/users/me HTTP/1.1\r\nhost: ${host}\r\nauthorization: ${plain.authorization}\r\n` +
        `transfer-encoding: chunked\r\n\r\n0\r\n\r\n`
      ]
      for (const request of fallThrough) assert.strictEqual(yield* status(request), "599", request)
      assert.strictEqual(passed.length, fallThrough.length)
    }).pipe(Effect.provide(Layer.merge(noLimits, core))))
  , 60_000)

  it.live("POST /messages on node:http: sends the plain case itself; hands every other send on with its body", () =>
    Effect.scoped(Effect.gen(function*() {
      const { hamlet, iago } = yield* seeded
      const wrap = (yield* FastPaths.make({ log: false, maxBodyBytes: 1024 }))!
      const { bodies, passed, port } = yield* standIn(wrap)
      const plain = { host, authorization: basic("iago@zulip.com", iago.api_key) }
      const verona = form({ type: "stream", to: "Verona", topic: "stand-in", content: "hello" })
      const answer = (request: string) => Effect.map(exchange(port, [request]), ([r]) => r!)

      const sent = yield* answer(post(plain, verona))
      assert.match(sent, /^HTTP\/1\.1 200 OK\r\ncontent-type: application\/json\r\ncontent-length: \d+\r\n/)
      assert.match(sent, /\r\n\r\n\{"result":"success","msg":"","id":\d+\}$/)
      // A body of the routes' largest size is still the shortcut's.
      const atLimit = form({ type: "stream", to: "Verona", topic: "t", content: "x".repeat(1024) }).slice(0, 1024)
      for (const request of [post({ ...plain, "content-type": "application/x-www-form-urlencoded;charset=utf-8" }, verona), post(plain, atLimit)]) {
        assert.strictEqual((yield* answer(request)).slice(9, 12), "200", request)
      }
      assert.deepStrictEqual(passed, [])

      const fallThrough: ReadonlyArray<readonly [string, string]> = [
        [post(plain, form({ type: "stream", to: "No such channel", topic: "t", content: "c" })), "POST /api/v1/messages"],
        [post({ host, authorization: basic("hamlet@zulip.com", hamlet.api_key) }, verona), "POST /api/v1/messages"],
        [post({ host }, verona), "POST /api/v1/messages"],
        [post({ ...plain, host: "lear.example" }, verona), "POST /api/v1/messages"],
        [post(plain, `${verona}&unknown=1`), "POST /api/v1/messages"],
        [post(plain, `${verona}&content=again`), "POST /api/v1/messages"],
        [post(plain, `?${verona}`), "POST /api/v1/messages"],
        [post(plain, `${verona}&${"a".repeat(1025 - verona.length - 1)}`), "POST /api/v1/messages"],
        [post(plain, verona, "/api/v1/messages?a=b"), "POST /api/v1/messages?a=b"],
        [post(plain, verona, "/api/v1/messages/"), "POST /api/v1/messages/"],
        [post(plain, verona, "/api/v1/messages", "multipart/form-data; boundary=x"), "POST /api/v1/messages"],
        [
          `POST /api/v1/messages HTTP/1.1\r\nhost: ${host}\r\nauthorization: ${plain.authorization}\r\n` +
          `content-type: application/x-www-form-urlencoded\r\ntransfer-encoding: chunked\r\n\r\n` +
          `${verona.length.toString(16)}\r\n${verona}\r\n0\r\n\r\n`,
          "POST /api/v1/messages"
        ]
      ]
      for (const [request, line] of fallThrough) {
        const before = passed.length
        const response = yield* answer(request)
        assert.strictEqual(response.slice(9, 12), "599", request)
        assert.deepStrictEqual(passed.slice(before), [line], request)
        // Handed on with its body, as sent.
        assert.strictEqual(bodies[bodies.length - 1], request.slice(request.indexOf("\r\n\r\n") + 4).replace(/^[0-9a-f]+\r\n([^]*)\r\n0\r\n\r\n$/, "$1"), request)
      }
    }).pipe(Effect.provide(Layer.merge(noLimits, core))))
  , 60_000)

  it.live("POST /messages on node:http: a client that leaves before its body is in gets no answer, and nothing hangs or is sent", () =>
    Effect.scoped(Effect.gen(function*() {
      const { iago } = yield* seeded
      const wrap = (yield* FastPaths.make({ log: false, maxBodyBytes: 1024 }))!
      const { passed, port } = yield* standIn(wrap)
      const body = form({ type: "stream", to: "Verona", topic: "left", content: "never" })
      const head = post({ host, authorization: basic("iago@zulip.com", iago.api_key) }, body).slice(0, -body.length)
      const closed = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          const socket = net.connect(port, "127.0.0.1", () => {
            socket.write(head + body.slice(0, 10))
            setTimeout(() => socket.destroy(), 50)
          })
          let received = ""
          socket.on("data", (data) => received += data.toString())
          socket.on("close", () => resolve(received))
        })
      )
      assert.strictEqual(closed, "")
      assert.deepStrictEqual(passed, [])
      // The server still answers; the one message in the topic is the one sent in full.
      const plain = { host, authorization: basic("iago@zulip.com", iago.api_key) }
      const [next] = yield* exchange(port, [post(plain, body)])
      assert.strictEqual(next!.slice(9, 12), "200")
      const narrow = encodeURIComponent(JSON.stringify([{ operator: "channel", operand: "Verona" }, { operator: "topic", operand: "left" }]))
      const [page] = yield* exchange(port, [get(plain, `/api/v1/messages?anchor=newest&num_before=5&num_after=0&narrow=${narrow}`)])
      const messages = JSON.parse(page!.slice(page!.indexOf("\r\n\r\n") + 4)).messages as ReadonlyArray<{ content: string }>
      assert.deepStrictEqual(messages.map((m) => m.content), ["<p>never</p>"])
    }).pipe(Effect.provide(Layer.merge(noLimits, core))))
  , 60_000)

  it.live("with rate limiting and request logging: counts and logs its answers; hands on a user over the limit, uncounted, unlogged", () => {
    const lines: Array<{ readonly message: unknown; readonly annotations: Record<string, unknown> }> = []
    const capture = Logger.layer([
      Logger.make((options) =>
        void lines.push({
          message: options.message,
          annotations: { ...options.fiber.getRef(References.CurrentLogAnnotations) }
        })
      )
    ])
    const limits = RateLimitMiddleware.limiterLayer({ user: { requests: 3, windowSeconds: 60 }, anonymous: false }).pipe(
      Layer.provideMerge(layerRateLimitsMemory)
    )
    return Effect.scoped(Effect.gen(function*() {
      const { iago } = yield* seeded
      const wrap = (yield* FastPaths.make({ log: true, maxBodyBytes: 1024 }))!
      const { passed, port } = yield* standIn(wrap)
      const plain = { host, authorization: basic("iago@zulip.com", iago.api_key) }
      lines.length = 0
      const responses = yield* exchange(port, [get(plain), get(plain), get(plain), get(plain), get({ host, authorization: basic("iago@zulip.com", "a".repeat(32)) })])
      assert.deepStrictEqual(
        responses.map((r) => [r.slice(9, 12), /\r\nx-ratelimit-remaining: (\d+)\r\n/.exec(r)?.[1]]),
        [["200", "2"], ["200", "1"], ["200", "0"], ["599", undefined], ["599", undefined]]
      )
      assert.match(responses[0]!, /^HTTP\/1\.1 200 OK\r\ncontent-type: application\/json\r\ncontent-length: \d+\r\nx-ratelimit-limit: 3\r\nx-ratelimit-remaining: 2\r\nx-ratelimit-reset: \d+\r\n/)
      assert.deepStrictEqual(passed, ["GET /api/v1/users/me", "GET /api/v1/users/me"])
      // Three counted, the refused fourth not: a fourth fits under a limit of 4.
      const store = yield* RateLimitStore
      const now = yield* Clock.currentTimeMillis
      const hit = yield* store.hit(`user:${iago.user_id}`, 4, 60_000, now)
      assert.deepStrictEqual([hit.accepted, hit.count], [true, 4])
      // The answers' lines, as the routes' middleware writes them; none for what was handed on.
      assert.deepStrictEqual(
        lines.map((line) => {
          const { duration_ms, ...rest } = line.annotations
          assert.isNumber(duration_ms)
          return [line.message, rest]
        }),
        Array.from({ length: 3 }, () => [
          ["request"],
          { method: "GET", path: "/api/v1/users/me", status: 200, user_id: iago.user_id }
        ])
      )
    }).pipe(Effect.provide(Layer.mergeAll(limits, core, capture))))
  }, 60_000)

  it.live("a rate limit store that fails: the answer goes out without headers, a warning logged, as from the routes", () => {
    const lines: Array<unknown> = []
    const capture = Logger.layer([Logger.make((options) => void lines.push([options.logLevel, options.message]))])
    const failing = Layer.succeed(RateLimitStore)({
      hit: () => Effect.fail(new RateLimitStoreUnavailable({ store: "test", cause: new Error("down") })),
      uncount: () => Effect.void,
      clear: () => Effect.void
    })
    const limits = RateLimitMiddleware.limiterLayer({ user: { requests: 3, windowSeconds: 60 }, anonymous: false }).pipe(
      Layer.provide(failing)
    )
    return Effect.scoped(Effect.gen(function*() {
      const { iago } = yield* seeded
      const wrap = (yield* FastPaths.make({ log: false, maxBodyBytes: 1024 }))!
      const { passed, port } = yield* standIn(wrap)
      lines.length = 0
      const [response] = yield* exchange(port, [get({ host, authorization: basic("iago@zulip.com", iago.api_key) })])
      assert.match(response!, /^HTTP\/1\.1 200 OK\r\ncontent-type: application\/json\r\n/)
      assert.notMatch(response!, /x-ratelimit/i)
      assert.deepStrictEqual(passed, [])
      assert.deepStrictEqual(lines, [["Warn", ["rate limit not applied", "the test rate-limit store failed: down"]]])
    }).pipe(Effect.provide(Layer.mergeAll(limits, core, capture))))
  }, 60_000)
  it.live("in front of a web handler: answers the plain cases itself and hands every other request on, untouched", () =>
    Effect.scoped(Effect.gen(function*() {
      const { hamlet, iago } = yield* seeded
      const shortcuts = (yield* FastPaths.make({ log: false, maxBodyBytes: 1024 }))!
      const passed: Array<Request> = []
      const handler = shortcuts.web((request) => {
        passed.push(request)
        return Promise.resolve(new Response("routes", { status: 599 }))
      })
      const authorization = basic("iago@zulip.com", iago.api_key)
      const call = (path: string, init: RequestInit = {}, headers: Record<string, string> = { authorization }) =>
        Effect.promise(async () => {
          const response = await handler(new Request(`${externalUrl}${path}`, { ...init, headers }))
          return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() }
        })
      const me = yield* call("/api/v1/users/me")
      assert.strictEqual(me.status, 200)
      assert.deepStrictEqual(me.headers, { "content-type": "application/json", "content-length": String(Buffer.byteLength(me.text)) })
      assert.include(me.text, "\"full_name\":\"Iago\"")
      const listed = yield* call("/api/v1/messages?anchor=newest&num_before=2&num_after=0")
      assert.strictEqual(listed.status, 200, listed.text)
      assert.strictEqual(JSON.parse(listed.text).result, "success")
      // The host is the URL's when no Host header says otherwise.
      assert.strictEqual((yield* call("/api/v1/users/me", {}, { authorization, host: "chat.example" })).status, 200)
      assert.deepStrictEqual(passed, [])

      const fallThrough: ReadonlyArray<readonly [string, RequestInit?, Record<string, string>?]> = [
        ["/api/v1/users/me", {}, {}],
        ["/api/v1/users/me", {}, { authorization: basic("hamlet@zulip.com", hamlet.api_key) }],
        ["/api/v1/users/me", {}, { authorization, host: "lear.example" }],
        ["/api/v1/users/me?a=b"],
        ["/api/v1/users/me/"],
        ["/api/v1/users/me", { method: "POST" }],
        ["/api/v1/users/me", { method: "HEAD" }],
        ["/api/v1/messages"],
        ["/api/v1/messages?num_before=1&num_after=0"],
        ["/api/v1/messages?anchor=banana&num_before=1&num_after=0"],
        ["/api/v1/messages?anchor=newest&num_before=1&num_after=0&unknown=1"],
        ["/api/v1/messages?anchor=newest&anchor=oldest&num_before=1&num_after=0"],
        ["/api/v1/messages?anchor=newest&num_before=1&num_after=0&narrow=%5B"],
        ["/api/v1/messages?anchor=newest&num_before=1&num_after=0", { method: "POST", body: "a=b" }]
      ]
      for (const [path, init, headers] of fallThrough) {
        const answer = yield* call(path, init, headers)
        assert.strictEqual(answer.status, 599, path)
      }
      assert.strictEqual(passed.length, fallThrough.length)
      // Handed on untouched: the very request.
      assert.strictEqual(new URL(passed[0]!.url).pathname, "/api/v1/users/me")
    }).pipe(Effect.provide(Layer.merge(noLimits, core))))
  , 60_000)
  it.live("POST /messages in front of a web handler: sends the plain case itself; hands every other send on with its body, as sent", () =>
    Effect.scoped(Effect.gen(function*() {
      const { iago } = yield* seeded
      const shortcuts = (yield* FastPaths.make({ log: false, maxBodyBytes: 1024 }))!
      const passed: Array<{ readonly url: string; readonly body: string; readonly type: string | null }> = []
      const handler = shortcuts.web(async (request) => {
        passed.push({ url: request.url, body: await request.text().catch((error: Error) => `failed: ${error.message}`), type: request.headers.get("content-type") })
        return new Response("routes", { status: 599 })
      })
      const authorization = basic("iago@zulip.com", iago.api_key)
      const call = (body: RequestInit["body"] & {}, headers: Record<string, string> = {}, path = "/api/v1/messages") =>
        Effect.promise(async () => {
          const response = await handler(new Request(`${externalUrl}${path}`, {
            method: "POST",
            headers: { authorization, ...headers },
            body,
            ...(body instanceof ReadableStream ? { duplex: "half" } : {})
          } as RequestInit))
          return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() }
        })
      const verona = { type: "stream", to: "Verona", topic: "web", content: "hello" }

      const sent = yield* call(new URLSearchParams(verona))
      assert.strictEqual(sent.status, 200, sent.text)
      assert.deepStrictEqual(sent.headers, { "content-type": "application/json", "content-length": String(Buffer.byteLength(sent.text)) })
      assert.match(sent.text, /^\{"result":"success","msg":"","id":\d+\}$/)
      assert.deepStrictEqual(passed, [])

      const long = `${form(verona)}&${"a".repeat(2000)}`
      const fallThrough: ReadonlyArray<readonly [RequestInit["body"] & {}, Record<string, string>?, string?]> = [
        [new URLSearchParams({ ...verona, to: "No such channel" })],
        [`${form(verona)}&unknown=1`, { "content-type": "application/x-www-form-urlencoded" }],
        [new URLSearchParams(verona), { authorization: basic("iago@zulip.com", "a".repeat(32)) }],
        [new URLSearchParams(verona), { host: "lear.example" }],
        [new URLSearchParams(verona), {}, "/api/v1/messages?a=b"],
        [JSON.stringify(verona), { "content-type": "application/json" }],
        // Larger than the routes take: declared, or found while reading (the rest of it unread then).
        [long, { "content-type": "application/x-www-form-urlencoded", "content-length": String(long.length) }],
        [
          new ReadableStream({
            start: (controller) => {
              for (let i = 0; i < long.length; i += 500) controller.enqueue(new TextEncoder().encode(long.slice(i, i + 500)))
              controller.close()
            }
          }),
          { "content-type": "application/x-www-form-urlencoded" }
        ]
      ]
      for (const [body, headers, path] of fallThrough) {
        const before = passed.length
        const answer = yield* call(body, headers, path)
        assert.strictEqual(answer.status, 599, String(body))
        assert.strictEqual(passed.length, before + 1)
        const expected = body instanceof ReadableStream ? long : String(body)
        assert.strictEqual(passed[before]!.body, expected)
        assert.strictEqual(passed[before]!.url, `${externalUrl}${path ?? "/api/v1/messages"}`)
      }
      // A body that fails while it is read: handed on, failing where the routes read it.
      const broken = yield* call(
        new ReadableStream({
          start: (controller) => {
            controller.enqueue(new TextEncoder().encode("type=stream&to=Ver"))
            controller.error(new Error("connection reset"))
          }
        }),
        { "content-type": "application/x-www-form-urlencoded" }
      )
      assert.strictEqual(broken.status, 599)
      assert.strictEqual(passed[passed.length - 1]!.body, "failed: connection reset")
      assert.strictEqual(passed[0]!.type, "application/x-www-form-urlencoded;charset=UTF-8")
    }).pipe(Effect.provide(Layer.merge(noLimits, core))))
  , 60_000)
})

describe("Http.makeWebHandler with the shortcuts", () => {
  it.live("answers as without them, counting in the routes' rate limiter", () =>
    Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(CheckedEvents.layerMemory())
      yield* Effect.provideContext(Server.seedDemo(externalUrl, () => {}), context)
      const options = { demo: true, rateLimit: { requests: 100, windowSeconds: 60 } } as const
      const made = [
        Http.makeWebHandler(Layer.succeedContext(context), options),
        Http.makeWebHandler(Layer.succeedContext(context), { ...options, fastPaths: false })
      ]
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(made.map((m) => m.dispose()))))
      const [fast, routes] = made.map(({ handler }) => (path: string, authorization?: string) =>
        Effect.promise(async () => {
          const response = await handler(new Request(`${externalUrl}${path}`, authorization === undefined ? {} : { headers: { authorization } }))
          const headers = Object.fromEntries(response.headers)
          // When the window ends: the same second for both, but for a tick of the clock between them.
          delete headers["x-ratelimit-reset"]
          return { status: response.status, headers, text: await response.text() }
        })
      )
      const login = yield* Effect.promise(() =>
        made[1]!.handler(new Request(`${externalUrl}/api/v1/dev_fetch_api_key`, {
          method: "POST",
          body: new URLSearchParams({ username: "iago@zulip.com" })
        })).then((r) => r.json() as Promise<{ api_key: string }>)
      )
      const iago = basic("iago@zulip.com", login.api_key)
      const paths = [
        "/api/v1/users/me",
        "/api/v1/users/me?client_gravatar=false",
        "/api/v1/messages?anchor=newest&num_before=5&num_after=0",
        "/api/v1/messages?anchor=newest&num_before=5&num_after=0&unknown=1",
        "/api/v1/messages?anchor=banana&num_before=5&num_after=0",
        "/api/v1/users/me"
      ]
      const remaining: Array<string | undefined> = []
      for (const path of paths) {
        const [a, b] = [yield* fast!(path, iago), yield* routes!(path, iago)]
        assert.deepStrictEqual(a, b, path)
        remaining.push(a.headers["x-ratelimit-remaining"])
      }
      // Answered by the shortcut and by the routes alike, one window (the routes' other handler counted its login).
      assert.deepStrictEqual(remaining, ["99", "98", "97", "96", "95", "94"])
      assert.deepStrictEqual((yield* fast!("/api/v1/users/me")).status, 401)
    })), 60_000)
})


describe("a send that fails after its commit", () => {
  // A lost connection after COMMIT went out (the message is written, the
  // answer never came back) surfaces as a failure of the send, not as a
  // refusal: the request must not be sent again by anything else.
  it.live("is sent once and answered with the routes' 500, on a web handler with the shortcuts", () =>
    Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(Teamchat.layerMemory(Teamchat.layerSecretsTest))
      yield* Effect.provideContext(Server.seedDemo(externalUrl, () => {}), context)
      const messages = Context.get(context, Messages)
      const afterCommit = <A, E, R>(send: Effect.Effect<A, E, R>) =>
        Effect.andThen(send, Effect.die(new Error("Connection terminated unexpectedly")))
      const failing = Context.add(context, Messages, Messages.of({
        ...messages,
        send: (...args) => afterCommit(messages.send(...args)),
        sendDeferred: (...args) => afterCommit(messages.sendDeferred(...args))
      }))
      const made = Http.makeWebHandler(Layer.succeedContext(failing), { demo: true, rateLimit: false })
      yield* Effect.addFinalizer(() => Effect.promise(() => made.dispose()))
      const call = (path: string, init: RequestInit = {}) =>
        Effect.promise(async () => {
          const response = await made.handler(new Request(`${externalUrl}${path}`, init))
          return { status: response.status, body: await response.json() as Record<string, unknown> }
        })
      const login = yield* call("/api/v1/dev_fetch_api_key", {
        method: "POST",
        body: new URLSearchParams({ username: "iago@zulip.com" })
      })
      const iago = basic("iago@zulip.com", String(login.body.api_key))
      const sent = yield* call("/api/v1/messages", {
        method: "POST",
        headers: { authorization: iago },
        body: new URLSearchParams({ type: "stream", to: "Verona", topic: "once only", content: "sent once" })
      })
      assert.deepStrictEqual(sent, { status: 500, body: { result: "error", msg: "Internal server error", code: "BAD_REQUEST" } })
      const read = yield* call(
        `/api/v1/messages?anchor=newest&num_before=10&num_after=0&narrow=${encodeURIComponent(JSON.stringify([{ operator: "topic", operand: "once only" }]))}`,
        { headers: { authorization: iago } }
      )
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual((read.body.messages as Array<{ content: string }>).map((m) => m.content), ["<p>sent once</p>"])
    })), 60_000)
})
