/**
 * Rate limiting per user and per client address, on a clock the tests move.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { defaultHttpOptions } from "../src/Http.ts"
import type { Reply } from "./support/Harness.ts"
import { accounts, demoLayer, layerServer, Server } from "./support/Harness.ts"

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
