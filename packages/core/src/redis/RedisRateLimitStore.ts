/**
 * Rate-limit windows in Redis, shared by every server process using it, as
 * Zulip keeps them: a sorted set per key whose members are the accepted
 * requests, scored by their time (Unix ms). A hit is one Lua script, so it
 * is atomic on the Redis server; each key expires when its window empties.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redis from "effect/persistence/Redis"
import { RateLimitStore, RateLimitStoreUnavailable } from "../ports/RateLimitStore.ts"
import { instanceId } from "../services/internal/KeyGenerator.ts"
import type { Hit } from "../ports/RateLimitStore.ts"

/**
 * The deployment's part of every key by default: deployments sharing one
 * Redis need prefixes of their own (`layerWithPrefix`), or they share limits.
 *
 * @category constants
 */
export const defaultDeploymentPrefix = "teamchat:"

/** Keys are `<deployment prefix>ratelimit:<key>`, so one Redis can serve other things. @category constants */
export const keyPrefix = `${defaultDeploymentPrefix}ratelimit:`

const hitScript = Redis.script(
  (key: string, now: number, windowMs: number, requests: number, member: string) => [
    key,
    String(now),
    String(windowMs),
    String(requests),
    member
  ],
  {
    numberOfKeys: 1,
    lua: `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local requests = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= requests then
  local first = redis.call('ZRANGE', KEYS[1], count - requests, count - requests, 'WITHSCORES')
  return {0, count, first[2]}
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return {1, count + 1, '0'}
`
  }
).withReturnType<[number, number, string]>()

/**
 * The store with keys under `deploymentPrefix` (e.g. "acme:" gives
 * "acme:ratelimit:<key>").
 *
 * @category layers
 */
export const layerWithPrefix = (deploymentPrefix: string): Layer.Layer<RateLimitStore, never, Redis.Redis> =>
  Layer.effect(
    RateLimitStore,
    Effect.gen(function*() {
      const keyPrefix = `${deploymentPrefix}ratelimit:`
      const redis = yield* Redis.Redis
      const hit = redis.eval(hitScript)
      // Members must differ between requests of one millisecond, from any process.
      const instance = yield* instanceId
      let sequence = 0
      const unavailable = (cause: unknown) => new RateLimitStoreUnavailable({ store: "Redis", cause })
      return RateLimitStore.of({
        hit: Effect.fn("RateLimitStore.hit")(function*(key: string, requests: number, windowMs: number, now: number) {
          const member = `${now}:${instance}:${++sequence}`
          const [accepted, count, oldest] = yield* hit(keyPrefix + key, now, windowMs, requests, member).pipe(
            Effect.mapError(unavailable)
          )
          return accepted === 1
            ? { accepted: true, count: Number(count), oldest: 0, token: member } satisfies Hit
            : { accepted: false, count: Number(count), oldest: Number(oldest), token: "" } satisfies Hit
        }),
        uncount: Effect.fn("RateLimitStore.uncount")(function*(key: string, token: string) {
          if (token === "") return
          yield* redis.send("ZREM", keyPrefix + key, token).pipe(Effect.mapError(unavailable))
        }),
        clear: Effect.fn("RateLimitStore.clear")(function*(key: string) {
          yield* redis.send("DEL", keyPrefix + key).pipe(Effect.mapError(unavailable))
        })
      })
    })
  )

/** The store under the default prefix (`keyPrefix`). @category layers */
export const layer: Layer.Layer<RateLimitStore, never, Redis.Redis> = layerWithPrefix(defaultDeploymentPrefix)
