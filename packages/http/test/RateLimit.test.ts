/**
 * Rate limiting per user and per client address, on a clock the tests move.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import * as http from "node:http"
import { defaultHttpOptions } from "../src/Http.ts"
import * as StandaloneServer from "../src/Server.ts"
import type { Reply } from "./support/Harness.ts"
import { accounts, demoLayer, demoPassword, layerServer, Server } from "./support/Harness.ts"

const headersOf = (reply: Reply) => ({
  limit: reply.headers.get("x-ratelimit-limit"),
  remaining: reply.headers.get("x-ratelimit-remaining"),
  reset: reply.headers.get("x-ratelimit-reset")
})

const limited = (retryAfter: number) => ({
  result: "error",
  msg: "API usage exceeded rate limit",
  code: "RATE_LIMIT_HIT",
  "retry-after": retryAfter
})

describe("rate limits", () => {
  it_defaults()

  layer(layerServer((clock) => demoLayer("memory", clock), {
    rateLimit: { requests: 3, windowSeconds: 60 },
    anonymousRateLimit: { requests: 2, windowSeconds: 10 }
  }))((it) => {
    it.effect("per user: headers on every request, 429 over the limit, freed as the window slides", () =>
      Effect.gen(function*() {
        const server = yield* Server
        // Log in before counting: dev_fetch_api_key is limited by address.
        const hamlet = yield* server.login(accounts.member)
        server.clock.advance(10_000)
        const now = () => Math.floor(server.clock.now() / 1000)
        const first = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
        assert.strictEqual(first.status, 200)
        assert.deepStrictEqual(headersOf(first), { limit: "3", remaining: "2", reset: String(now()) })
        server.clock.advance(500)
        // Errors count and carry the headers too.
        const failed = yield* server.fetch("GET", "/api/v1/users/424242", { as: hamlet })
        assert.strictEqual(failed.status, 400)
        assert.deepStrictEqual(headersOf(failed), { limit: "3", remaining: "1", reset: String(now()) })
        server.clock.advance(500)
        const third = yield* server.fetch("GET", "/api/v1/streams", { as: hamlet })
        assert.deepStrictEqual(headersOf(third), { limit: "3", remaining: "0", reset: String(now()) })
        server.clock.advance(12_250)
        const over = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
        assert.strictEqual(over.status, 429)
        assert.strictEqual(over.headers.get("content-type"), "application/json")
        // The first request (13.25 s ago) leaves the window 60 s after it was made.
        assert.deepStrictEqual(over.json, limited(46.75))
        assert.strictEqual(over.headers.get("retry-after"), "46.75")
        assert.deepStrictEqual(headersOf(over), {
          limit: "3",
          remaining: "0",
          reset: String(Math.floor(server.clock.now() / 1000 + 46.75))
        })
        // Rejected requests do not count; another user is not affected.
        const iago = yield* server.login(accounts.admin)
        const other = yield* server.fetch("GET", "/api/v1/users/me", { as: iago })
        assert.strictEqual(other.status, 200)
        assert.strictEqual(headersOf(other).remaining, "2")
        server.clock.advance(46_750)
        const freed = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
        assert.strictEqual(freed.status, 200)
        assert.strictEqual(headersOf(freed).remaining, "0")
        const again = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
        assert.strictEqual(again.status, 429)
        assert.deepStrictEqual(again.json, limited(0.5))
      }))

    it.effect("per address for requests without credentials", () =>
      Effect.gen(function*() {
        const server = yield* Server
        server.clock.advance(3_600_000)
        const first = yield* server.fetch("GET", "/api/v1/server_settings")
        assert.strictEqual(first.status, 200)
        assert.deepStrictEqual(headersOf(first), {
          limit: "2",
          remaining: "1",
          reset: String(Math.floor(server.clock.now() / 1000))
        })
        const second = yield* server.fetch("POST", "/api/v1/fetch_api_key", { form: { username: "x@y.z", password: "p" } })
        assert.strictEqual(second.status, 401)
        assert.strictEqual(headersOf(second).remaining, "0")
        const third = yield* server.fetch("GET", "/api/v1/users")
        assert.strictEqual(third.status, 429)
        assert.deepStrictEqual(third.json, limited(10))
        assert.strictEqual(third.headers.get("retry-after"), "10")
        // Unknown routes are not rate limited.
        const unknown = yield* server.fetch("GET", "/api/v1/nothing")
        assert.strictEqual(unknown.status, 404)
        assert.isNull(unknown.headers.get("x-ratelimit-limit"))
        server.clock.advance(10_000)
        const later = yield* server.fetch("GET", "/api/v1/server_settings")
        assert.strictEqual(later.status, 200)
      }))
  })

  layer(layerServer((clock) => demoLayer("memory", clock), {
    rateLimit: { requests: 100, windowSeconds: 60 },
    anonymousRateLimit: { requests: 100, windowSeconds: 60 },
    authenticationRateLimit: { requests: 3, windowSeconds: 1800 }
  }))((it) => {
    it.effect("password logins per username: every attempt counts, a success clears the count", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const login = (username: string, password: string) =>
          server.fetch("POST", "/api/v1/fetch_api_key", { form: { username, password } })
        const now = () => Math.floor(server.clock.now() / 1000)
        const failed = { result: "error", msg: "Your username or password is incorrect", code: "AUTHENTICATION_FAILED" }
        for (const remaining of ["2", "1", "0"]) {
          const reply = yield* login(accounts.member, "a guess")
          assert.strictEqual(reply.status, 401)
          assert.deepStrictEqual(reply.json, failed)
          // The smaller of the two limits that apply (per address: 100 per minute).
          assert.deepStrictEqual(headersOf(reply), { limit: "3", remaining, reset: String(now()) })
          server.clock.advance(60_000)
        }
        // The right password too, and the address by any name.
        for (const username of [accounts.member, " HAMLET@zulip.com "]) {
          const over = yield* login(username, demoPassword)
          assert.strictEqual(over.status, 429)
          assert.deepStrictEqual(over.json, limited(1620))
          assert.strictEqual(over.headers.get("retry-after"), "1620")
          assert.deepStrictEqual(headersOf(over), { limit: "3", remaining: "0", reset: String(now() + 1620) })
        }
        // Another account is not affected.
        const iago = yield* login(accounts.admin, demoPassword)
        assert.strictEqual(iago.status, 200)
        // Rejected attempts do not count: the first guess leaves the window 30 minutes after it was made.
        server.clock.advance(1_620_000)
        assert.strictEqual((yield* login(accounts.member, demoPassword)).status, 200)
        // A success starts the count again.
        for (let i = 0; i < 2; i++) assert.strictEqual((yield* login(accounts.member, "a guess")).status, 401)
        assert.strictEqual((yield* login(accounts.member, demoPassword)).status, 200)
        for (let i = 0; i < 3; i++) assert.strictEqual((yield* login(accounts.member, "a guess")).status, 401)
        assert.strictEqual((yield* login(accounts.member, demoPassword)).status, 429)
      }))
  })

  layer(layerServer((clock) => demoLayer("memory", clock), { rateLimit: false }))((it) => {
    it.effect("rateLimit: false turns limiting off", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        for (let i = 0; i < 250; i++) {
          const reply = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
          assert.strictEqual(reply.status, 200)
          assert.isNull(reply.headers.get("x-ratelimit-limit"))
        }
      }))
  })
})

/** POST /fetch_api_key over a real connection from `localAddress` (any of 127.0.0.0/8 on Linux). */
const fetchApiKeyFrom = (base: string, localAddress: string, username: string, password: string) =>
  Effect.promise(() =>
    new Promise<{ status: number; json: any; retryAfter: string | undefined }>((resolve, reject) => {
      const body = new URLSearchParams({ username, password }).toString()
      const request = http.request(`${base}/api/v1/fetch_api_key`, {
        method: "POST",
        localAddress,
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) }
      }, (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk) => text += chunk)
        response.on("end", () =>
          resolve({
            status: response.statusCode!,
            json: JSON.parse(text),
            retryAfter: response.headers["retry-after"] as string | undefined
          }))
      })
      request.on("error", reject)
      request.end(body)
    })
  )

describe("password logins per client address", () => {
  it.effect("failures from one address count across usernames; another address is not affected", () =>
    Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(StandaloneServer.layer({
        port: 0,
        host: "127.0.0.1",
        database: { _tag: "Memory" },
        demo: true,
        externalUrl: "http://localhost:9991",
        rateLimit: { requests: undefined, windowSeconds: undefined },
        logLevel: "Warn",
        logFormat: "logfmt"
      }, {
        secrets: Teamchat.layerSecretsTest,
        output: () => {},
        http: { log: false, authenticationRateLimit: { requests: 3, windowSeconds: 1800 } }
      }))
      const base = HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)
      const failed = { result: "error", msg: "Your username or password is incorrect", code: "AUTHENTICATION_FAILED" }
      // Three usernames, one guess each, from one address.
      for (const username of [accounts.member, accounts.admin, "nobody@zulip.com"]) {
        const reply = yield* fetchApiKeyFrom(base, "127.0.0.2", username, "a guess")
        assert.strictEqual(reply.status, 401, username)
        assert.deepStrictEqual(reply.json, failed)
      }
      const over = yield* fetchApiKeyFrom(base, "127.0.0.2", accounts.owner, demoPassword)
      assert.strictEqual(over.status, 429)
      assert.strictEqual(over.json.code, "RATE_LIMIT_HIT")
      assert.isString(over.retryAfter)
      // The same accounts, from another address: each username has one failure.
      for (const username of [accounts.member, accounts.admin, accounts.owner]) {
        const reply = yield* fetchApiKeyFrom(base, "127.0.0.3", username, demoPassword)
        assert.strictEqual(reply.status, 200, username)
      }
      // Successes do not count against an address.
      for (let i = 0; i < 5; i++) {
        assert.strictEqual((yield* fetchApiKeyFrom(base, "127.0.0.3", accounts.member, demoPassword)).status, 200)
      }
    })))
})

function it_defaults() {
  layer(layerServer((clock) => demoLayer("memory", clock), { rateLimit: defaultHttpOptions.rateLimit }))((it) => {
    it.effect("the defaults: 200 per minute per user, 100 per minute per address", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const user = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
        assert.strictEqual(headersOf(user).limit, "200")
        assert.strictEqual(headersOf(user).remaining, "199")
        const anonymous = yield* server.fetch("GET", "/api/v1/server_settings")
        assert.strictEqual(headersOf(anonymous).limit, "100")
        assert.strictEqual(headersOf(anonymous).remaining, "98")
      }))
  })
}
