/**
 * The Redis rate-limit store names the requests it counts by its instance
 * name (`KeyGenerator.instanceId`, from effect's Random) and a sequence, so
 * that two processes' requests in one millisecond stay two: under a seed the
 * names are exact, and two stores built without one are apart.
 * TEST_REDIS_URL, default redis://127.0.0.1:6379, keys of this run only.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { assert, it } from "@effect/vitest"
import { KeyGenerator } from "@teamchat/core"
import * as Persistence from "@teamchat/core/Persistence"
import { RateLimitStore } from "@teamchat/core/ports/RateLimitStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import { randomUUID } from "node:crypto"

const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/** Keys of this run: several runs may share one Redis. */
const key = `test:${randomUUID().slice(0, 8)}:instance`

it.live("a store's members are its instanceId and a sequence: exact under a seed, apart without one", () =>
  Effect.scoped(Effect.gen(function*() {
    const redis = yield* Layer.build(NodeRedis.layer({ url: redisUrl }))
    const store = Effect.map(
      Layer.build(Layer.fresh(Persistence.layerRateLimitsRedis.pipe(Layer.provide(Layer.succeedContext(redis))))),
      (context) => Context.get(context, RateLimitStore)
    )
    const seeded = yield* store.pipe(Random.withSeed("redis"))
    const [a, b] = [yield* store, yield* store]
    yield* Effect.addFinalizer(() => Effect.ignore(seeded.clear(key)))
    const now = 1_700_000_300_000
    const tokens = []
    for (const s of [seeded, seeded, a, b]) tokens.push((yield* s.hit(key, 10, 60_000, now)).token)
    const instance = yield* KeyGenerator.instanceId.pipe(Random.withSeed("redis"))
    assert.deepStrictEqual(tokens.slice(0, 2), [`${now}:${instance}:1`, `${now}:${instance}:2`])
    const [nameA, nameB] = tokens.slice(2).map((token) => token.split(":")[1])
    assert.notStrictEqual(nameA, nameB)
    assert.deepStrictEqual(tokens.slice(2), [`${now}:${nameA}:1`, `${now}:${nameB}:1`])
  })))
