/**
 * The rate-limit stores (core's `RateLimitStore` port) against one contract:
 * in memory, on PGlite, on PostgreSQL (a fresh database, TEST_DATABASE_URL)
 * and in Redis (TEST_REDIS_URL, default redis://127.0.0.1:6379, keys under a
 * prefix of this run). The shared stores are also hit from two clients at
 * once, as two server processes would: a 20-request limit accepts exactly 20.
 * Times are given, not read from a clock. And two servers on one PostgreSQL
 * database count an address's failed password logins together, in
 * PostgreSQL and in Redis.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { assert, describe, it } from "@effect/vitest"
import * as Persistence from "@teamchat/core/Persistence"
import { RateLimitStore } from "@teamchat/core/ports/RateLimitStore"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redis from "effect/persistence/Redis"
import type * as Scope from "effect/Scope"
import * as HttpServer from "effect/http/HttpServer"
import * as Teamchat from "@teamchat/core/Teamchat"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import * as Config from "../src/Config.ts"
import * as StandaloneServer from "../src/Server.ts"
import { accounts, demoPassword } from "./support/Harness.ts"

const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/** Keys of this run: several runs may share one Redis. */
const run = randomUUID().slice(0, 8)
const key = (name: string) => `test:${run}:${name}`

type Store = RateLimitStore["Service"]

/** Two handles on one store: for the shared stores, two clients (two processes' worth). */
interface Stores {
  readonly a: Store
  readonly b: Store
}

const contract = (name: string, stores: Effect.Effect<Stores, unknown, Scope.Scope>, shared: boolean) =>
  describe(name, () => {
    it.live("a sliding window of accepted requests: refusals do not count, the oldest leaves first", () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* stores
        const k = key(`${name}:window`)
        const t0 = 1_700_000_000_000
        const hits = []
        for (const at of [0, 500, 1000]) hits.push(yield* a.hit(k, 3, 60_000, t0 + at))
        assert.deepStrictEqual(hits.map((h) => [h.accepted, h.count]), [[true, 1], [true, 2], [true, 3]])
        const refused = yield* (shared ? b : a).hit(k, 3, 60_000, t0 + 13_250)
        assert.deepStrictEqual(refused, { accepted: false, count: 3, oldest: t0, token: "" })
        // The request at 0 leaves the window at 60 s exactly.
        const freed = yield* a.hit(k, 3, 60_000, t0 + 60_000)
        assert.deepStrictEqual([freed.accepted, freed.count], [true, 3])
        const again = yield* a.hit(k, 3, 60_000, t0 + 60_000)
        assert.deepStrictEqual(again, { accepted: false, count: 3, oldest: t0 + 500, token: "" })
        // Other keys are apart.
        assert.deepStrictEqual((yield* a.hit(key(`${name}:other`), 3, 60_000, t0 + 60_000)).count, 1)
      })))

    it.live("uncount takes one request back; clear forgets the key", () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* stores
        const k = key(`${name}:uncount`)
        const t0 = 1_700_000_100_000
        const first = yield* a.hit(k, 2, 1_800_000, t0)
        // Two requests in one millisecond are two requests.
        const second = yield* a.hit(k, 2, 1_800_000, t0)
        assert.isTrue(first.accepted && second.accepted)
        assert.isFalse((yield* a.hit(k, 2, 1_800_000, t0 + 1)).accepted)
        yield* (shared ? b : a).uncount(k, second.token)
        const third = yield* a.hit(k, 2, 1_800_000, t0 + 2)
        assert.deepStrictEqual([third.accepted, third.count], [true, 2])
        yield* (shared ? b : a).clear(k)
        const fresh = yield* a.hit(k, 2, 1_800_000, t0 + 3)
        assert.deepStrictEqual([fresh.accepted, fresh.count], [true, 1])
        // Unknown keys and tokens are no-ops.
        yield* a.uncount(key(`${name}:nothing`), fresh.token)
        yield* a.clear(key(`${name}:nothing`))
      })))

    it.live("hits at once from two clients: a limit of 20 accepts exactly 20", () =>
      Effect.scoped(Effect.gen(function*() {
        const { a, b } = yield* stores
        const k = key(`${name}:race`)
        const t0 = 1_700_000_200_000
        const results = yield* Effect.forEach(
          Array.from({ length: 40 }, (_, i) => i),
          (i) => (i % 2 === 0 ? a : b).hit(k, 20, 60_000, t0 + Math.floor(i / 4)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter((r) => r.accepted).length, 20)
        assert.deepStrictEqual(
          results.filter((r) => r.accepted).map((r) => r.count).sort((x, y) => x - y),
          Array.from({ length: 20 }, (_, i) => i + 1)
        )
        const after = yield* b.hit(k, 20, 60_000, t0 + 100)
        assert.deepStrictEqual([after.accepted, after.count], [false, 20])
      })))
  })

const build = <E>(layer: Layer.Layer<RateLimitStore, E>) =>
  Effect.map(Layer.build(Layer.fresh(layer)), (context) => Context.get(context, RateLimitStore))

contract("memory", Effect.map(build(Persistence.layerRateLimitsMemory), (store) => ({ a: store, b: store })), false)

contract(
  "PGlite",
  Effect.map(
    build(Persistence.layerRateLimitsSql.pipe(Layer.provide(Persistence.layerPglite()))),
    (store) => ({ a: store, b: store })
  ),
  false
)

contract(
  "PostgreSQL (two pools)",
  Effect.gen(function*() {
    const database = yield* Layer.build(TestDatabase.postgresLayer())
    const url = Context.get(database, TestDatabase.TestDatabase).url
    // The server's own pool migrates; the stores have pools of their own.
    yield* Layer.build(Layer.fresh(Persistence.layerPostgres(url, { maxConnections: 2 })))
    return { a: yield* build(Persistence.layerRateLimitsPostgres(url)), b: yield* build(Persistence.layerRateLimitsPostgres(url)) }
  }),
  true
)

contract(
  "Redis (two clients)",
  Effect.gen(function*() {
    const client = () => Persistence.layerRateLimitsRedis.pipe(Layer.provide(NodeRedis.layer({ url: redisUrl })))
    const stores = { a: yield* build(client()), b: yield* build(client()) }
    // What the tests leave behind is removed with them.
    const cleanup = yield* Layer.build(Layer.fresh(NodeRedis.layer({ url: redisUrl })))
    const redis = Context.get(cleanup, Redis.Redis)
    yield* Effect.addFinalizer(() =>
      redis.send<Array<string>>("KEYS", `teamchat:ratelimit:test:${run}:*`).pipe(
        Effect.flatMap((keys) => keys.length === 0 ? Effect.void : redis.send("DEL", ...keys)),
        Effect.ignore
      )
    )
    return stores
  }),
  true
)

describe("REDIS_KEY_PREFIX: deployments sharing one Redis", () => {
  it.live("two prefixes keep two limits, and the configured prefix is the keys' in Redis", () =>
    Effect.scoped(Effect.gen(function*() {
      // As `serve` reads it: the setting, then the store of the config.
      const configured = (env: Record<string, string>) =>
        Config.rateLimitStore({ _tag: "Memory" }).pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: { REDIS_URL: redisUrl, ...env } }))
        )
      const storeOf = (env: Record<string, string>) =>
        Effect.flatMap(configured(env), (config) => build(StandaloneServer.layerRateLimitStore(config, { _tag: "Memory" })))
      const [prefixA, prefixB] = [`test:${run}:deployment-a:`, `test:${run}:deployment-b:`]
      const a = yield* storeOf({ REDIS_KEY_PREFIX: prefixA })
      const b = yield* storeOf({ REDIS_KEY_PREFIX: prefixB })
      const unprefixed = yield* storeOf({})
      const redis = Context.get(yield* Layer.build(Layer.fresh(NodeRedis.layer({ url: redisUrl }))), Redis.Redis)
      const k = `prefix-test:${run}:user`
      yield* Effect.addFinalizer(() =>
        Effect.ignore(redis.send("DEL", `${prefixA}ratelimit:${k}`, `${prefixB}ratelimit:${k}`, `teamchat:ratelimit:${k}`))
      )
      const t0 = 1_700_000_400_000
      const accepted = (store: Store, at: number) => Effect.map(store.hit(k, 2, 60_000, t0 + at), (hit) => hit.accepted)
      assert.deepStrictEqual(
        [yield* accepted(a, 0), yield* accepted(a, 1), yield* accepted(a, 2)],
        [true, true, false]
      )
      // The same user's key under the other prefix starts from nothing.
      assert.deepStrictEqual([yield* accepted(b, 3), yield* accepted(b, 4)], [true, true])
      assert.deepStrictEqual(
        yield* Effect.forEach(
          [`${prefixA}ratelimit:${k}`, `${prefixB}ratelimit:${k}`, `teamchat:ratelimit:${k}`],
          (name) => redis.send<number>("ZCARD", name)
        ),
        [2, 2, 0]
      )
      // Unset, the keys are where they always were.
      assert.isTrue(yield* accepted(unprefixed, 5))
      assert.strictEqual(yield* redis.send<number>("ZCARD", `teamchat:ratelimit:${k}`), 1)
    })))
})

/** POST /fetch_api_key over a real connection from `localAddress` (any of 127.0.0.0/8 on Linux). */
const fetchApiKeyFrom = (base: string, localAddress: string, username: string, password: string) =>
  Effect.promise(() =>
    new Promise<{ status: number; code: string | undefined }>((resolve, reject) => {
      const body = new URLSearchParams({ username, password }).toString()
      const request = http.request(`${base}/api/v1/fetch_api_key`, {
        method: "POST",
        localAddress,
        agent: false,
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) }
      }, (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk) => (text += chunk))
        response.on("end", () => resolve({ status: response.statusCode!, code: JSON.parse(text).code }))
      })
      request.on("error", reject)
      request.end(body)
    })
  )

describe("failed password logins per address, counted once for two servers", () => {
  for (const store of [{ _tag: "Postgres" } as const, { _tag: "Redis", url: redisUrl } as const]) {
    it.live(`in ${store._tag}`, () =>
      Effect.scoped(Effect.gen(function*() {
        const database = yield* Layer.build(TestDatabase.postgresLayer())
        const url = Context.get(database, TestDatabase.TestDatabase).url
        const server = () =>
          Effect.map(
            Layer.build(StandaloneServer.layer({
              port: 0,
              host: "127.0.0.1",
              database: { _tag: "Postgres", url },
              demo: true,
              externalUrl: "http://localhost:9991",
              rateLimit: { requests: undefined, windowSeconds: undefined },
              logLevel: "Warn",
              logFormat: "logfmt",
              rateLimitStore: store
            }, {
              secrets: Teamchat.layerSecretsTest,
              output: () => {},
              http: { log: false, authenticationRateLimit: { requests: 3, windowSeconds: 1800 } }
            })),
            (context) => HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)
          )
        // One after the other: the first migrates and seeds.
        const a = yield* server()
        const b = yield* server()
        // An address and usernames of this run only: a shared Redis may hold other runs' counts.
        const address = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`
        const guesses = [a, b, a].map((base, i) => ({ base, username: `nobody-${run}-${i}@zulip.com` }))
        for (const { base, username } of guesses) {
          assert.deepStrictEqual(yield* fetchApiKeyFrom(base, address, username, "a guess"), { status: 401, code: "AUTHENTICATION_FAILED" })
        }
        // The fourth attempt from that address is refused by either server, the right password too.
        for (const base of [b, a]) {
          assert.deepStrictEqual(yield* fetchApiKeyFrom(base, address, accounts.member, demoPassword), { status: 429, code: "RATE_LIMIT_HIT" })
        }
        // Another address is not affected.
        assert.strictEqual((yield* fetchApiKeyFrom(b, "127.0.0.1", accounts.member, demoPassword)).status, 200)
      })), { timeout: 120_000 })
  }
})
