/**
 * The node:http shortcut of GET /api/v1/users/me (src/FastPaths.ts):
 *
 * - on started servers, one with the shortcut and one without, seeded alike
 *   (test secrets, a frozen clock): every request, the plain success case
 *   and every case that falls through, gets the very same bytes from both
 *   (the Date header aside, which says when);
 * - on the shortcut alone, in front of a stand-in for the routes: it answers
 *   the plain case itself and hands every other request on untouched;
 * - it is off when rate limiting or request logging is on, and a server
 *   with rate limiting answers GET /users/me with its rate limit headers.
 */
import { assert, describe, it } from "@effect/vitest"
import { Organizations } from "@teamchat/core/services/Organizations"
import { Users } from "@teamchat/core/services/Users"
import { Authentication as CoreAuthentication } from "@teamchat/core/services/Authentication"
import { userId } from "@teamchat/core/domain/Ids"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import type { AddressInfo } from "node:net"
import * as net from "node:net"
import type { ServerConfig } from "../src/Config.ts"
import * as FastPaths from "../src/FastPaths.ts"
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

const start = (options: Server.Options, overrides: Partial<ServerConfig> = {}) =>
  Effect.gen(function*() {
    const clock = yield* frozenClock
    const context = yield* Layer.build(
      Server.layer({ ...config, ...overrides }, {
        secrets: Teamchat.layerSecretsTest,
        output: () => {},
        http: { log: false },
        ...options
      })
    ).pipe(Effect.provideService(Clock.Clock, clock))
    const address = Context.get(context, HttpServer.HttpServer).address
    return "port" in address ? address.port : 0
  })

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
    get(plain)
  ]
}

/** A database of its own for each server, removed with the scope. */
const databases: ReadonlyArray<readonly [string, Effect.Effect<ServerConfig["database"], never, Scope.Scope>]> = [
  ["memory", Effect.succeed({ _tag: "Memory" } as const)],
  [
    "PGlite",
    Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-fastpaths-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    ).pipe(Effect.map((dataDir) => ({ _tag: "Pglite", dataDir }) as const))
  ],
  [
    "PostgreSQL",
    Layer.build(TestDatabase.postgresLayer()).pipe(
      Effect.map((context) => ({ _tag: "Postgres", url: Context.get(context, TestDatabase.TestDatabase).url }) as const),
      Effect.orDie
    )
  ]
]

describe("GET /users/me shortcut", () => {
  for (const [name, database] of databases) {
    it.live(`answers every request with the very bytes of the routes, on ${name}`, () =>
      Effect.scoped(Effect.gen(function*() {
        const ports = {
          fast: yield* start({ fastPaths: true }, { database: yield* database }),
          routes: yield* start({ fastPaths: false }, { database: yield* database })
        }
        const answers: Record<string, ReadonlyArray<string>> = {}
        for (const [name, port] of Object.entries(ports)) {
          const iago = yield* devKey(port, "iago@zulip.com")
          const hamlet = yield* devKey(port, "hamlet@zulip.com")
          const bot = yield* devKey(port, "default-bot@zulip.com")
          const deactivate = yield* Effect.promise(() =>
            fetch(`http://127.0.0.1:${port}/api/v1/users/${hamlet.user_id}`, {
              method: "DELETE",
              headers: { host, authorization: basic("iago@zulip.com", iago.api_key) }
            })
          )
          assert.strictEqual(deactivate.status, 200)
          const list = requests({ iago: iago.api_key, hamlet: hamlet.api_key, bot: bot.api_key })
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
        assert.isTrue(fast.some((r) => r.startsWith("HTTP/1.1 400 ")))
        assert.isTrue(fast.some((r) => r.includes("\"code\":\"USER_DEACTIVATED\"")))
        assert.isTrue(fast.some((r) => r.includes("\"ignored_parameters_unsupported\":[\"unknown\"]")))
      })), 240_000)
  }

  it.live("rate limiting on: GET /users/me counts and carries the rate limit headers", () =>
    Effect.scoped(Effect.gen(function*() {
      const port = yield* start({}, { rateLimit: { requests: 3, windowSeconds: 60 } })
      const iago = yield* devKey(port, "iago@zulip.com")
      const plain = { host, authorization: basic("iago@zulip.com", iago.api_key) }
      const responses = yield* exchange(port, [get(plain), get(plain), get(plain), get(plain)])
      assert.deepStrictEqual(
        responses.map((r) => [r.slice(0, 12), /x-ratelimit-remaining: (\d+)/i.exec(r)?.[1]]),
        [["HTTP/1.1 200", "2"], ["HTTP/1.1 200", "1"], ["HTTP/1.1 200", "0"], ["HTTP/1.1 429", "0"]]
      )
    })), 60_000)
})

describe("FastPaths.make", () => {
  const core = Teamchat.layerMemory(Teamchat.layerSecretsTest)

  it.effect("off when rate limiting or request logging is on", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* FastPaths.make({ rateLimit: { requests: 200, windowSeconds: 60 }, log: false }))
      assert.isUndefined(yield* FastPaths.make({ rateLimit: false, log: true }))
      assert.isDefined(yield* FastPaths.make({ rateLimit: false, log: false }))
    }).pipe(Effect.provide(core)))

  it.live("answers the plain case itself and hands every other request to the routes", () =>
    Effect.scoped(Effect.gen(function*() {
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
      const wrap = (yield* FastPaths.make({ rateLimit: false, log: false }))!
      const passed: Array<string> = []
      const server = http.createServer(wrap((request, response) => {
        passed.push(`${request.method} ${request.url}`)
        response.writeHead(599)
        response.end("routes")
      }))
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
        () => Effect.promise(() => new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }))
      )
      const port = (server.address() as AddressInfo).port
      const plain = { host, authorization: basic("iago@zulip.com", iago.api_key) }
      const status = (request: string) => Effect.map(exchange(port, [request]), ([r]) => r!.slice(9, 12))

      for (const request of [
        get(plain),
        get({ authorization: plain.authorization }, "/api/v1/users/me", "GET", "1.0"),
        get({ ...plain, host: "127.0.0.1:1" }),
        get({ ...plain, host: "CHAT.EXAMPLE" })
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
        `GET /api/v1/users/me HTTP/1.1\r\nhost: ${host}\r\nauthorization: ${plain.authorization}\r\n` +
        `transfer-encoding: chunked\r\n\r\n0\r\n\r\n`
      ]
      for (const request of fallThrough) assert.strictEqual(yield* status(request), "599", request)
      assert.strictEqual(passed.length, fallThrough.length)
    }).pipe(Effect.provide(core)))
  , 60_000)
})
