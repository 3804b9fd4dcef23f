/**
 * Rate limiting as Zulip does it: a sliding window per authenticated user
 * (default 200 requests per 60 s) and per client address for unauthenticated
 * requests (default 100 per 60 s), counted in the provided `RateLimitStore`:
 * this process's memory, or the database or Redis shared by every process of
 * a deployment (Server.ts picks it from the configuration). Password
 * logins have their own window (Zulip's `authenticate_by_username`, default 5
 * per 30 minutes), per username and per client address: every attempt counts
 * as it starts, so parallel guesses count too; a successful login is taken
 * back from the address's count and clears the username's.
 *
 * Every rate-limited request gets `X-RateLimit-Limit`, `X-RateLimit-Remaining`
 * and `X-RateLimit-Reset` (Unix seconds), success or not; under several
 * limits, the smallest limit and remainder and the latest reset. Over the
 * limit the request fails with `RATE_LIMIT_HIT`, whose body carries
 * `"retry-after"` (a float, in seconds) and whose response carries
 * `Retry-After`. Rejected requests do not count. Time comes from effect's
 * `Clock`.
 *
 * Why not `effect/persistence/RateLimiter`: its stores offer a counter that
 * empties all at once when its expiry passes ("fixed-window", each token
 * pushing the expiry by window/limit) and a token bucket, where Zulip counts a
 * sliding window of request times. With 3 per 60 s and requests at 0, 0.5
 * and 1 s, Zulip accepts one request at 60 s and then answers `retry-after`
 * 0.5 with `X-RateLimit-Remaining: 0` (RateLimit.test.ts); both of its
 * algorithms have refilled by then, report 2 remaining and accept the next.
 * Its `consume` also has no way to take a request back or clear a key, which
 * password logins need (a success is taken back from the address's count and
 * clears the username's; an attempt refused by one key is not counted
 * against the other). The shared stores keep the same sorted times per key
 * (a Redis sorted set, as Zulip does, or a row of the database).
 *
 * @since 0.1.0
 */
import { Errors, RateLimitStore } from "@teamchat/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import { RateLimit } from "../api/Middleware.ts"
import { RateLimiter, resetSeconds } from "../internal/RateLimiter.ts"
import type { Decision, Rule } from "../internal/RateLimiter.ts"

/**
 * The limiter over the provided `RateLimitStore` (one process's memory, the
 * database or Redis): `user` limits authenticated users, `anonymous`
 * unauthenticated clients by address, `authentication` password logins;
 * `false` turns a rule off. When the store fails, the request goes through
 * unlimited (without headers) and a warning is logged: a store outage does
 * not take the API down.
 *
 * @category layers
 */
export const limiterLayer = (rules: {
  readonly user: Rule | false
  readonly anonymous: Rule | false
  readonly authentication?: Rule | false | undefined
}): Layer.Layer<RateLimiter, never, RateLimitStore.RateLimitStore> =>
  Layer.effect(
    RateLimiter,
    Effect.gen(function*() {
      const store = yield* RateLimitStore.RateLimitStore
      // The clock of the layer's build (tests move it), not of each request.
      const clock = yield* Clock.Clock
      const authenticationRule = rules.authentication ?? false

      /** Counts a request of `key` under `rule`: the decision and the store's token for it. */
      const hit = (key: string, rule: Rule) =>
        Effect.suspend(() => {
          const now = clock.currentTimeMillisUnsafe()
          return Effect.map(store.hit(key, rule.requests, rule.windowSeconds * 1000, now), (hit) => ({
            decision: {
              limited: !hit.accepted,
              limit: rule.requests,
              remaining: hit.accepted ? Math.max(0, rule.requests - hit.count) : 0,
              secondsToFreedom: hit.accepted ? 0 : Math.max(0, hit.oldest + rule.windowSeconds * 1000 - now) / 1000,
              now
            } satisfies Decision,
            token: hit.token
          }))
        })

      /** A store failure lets the request through, logged. */
      const failOpen = <A, E, R>(
        effect: Effect.Effect<A, E, R>,
        fallback: A
      ): Effect.Effect<A, Exclude<E, RateLimitStore.RateLimitStoreUnavailable>, R> =>
        Effect.catchIf(
          effect,
          (error: unknown) => error instanceof RateLimitStore.RateLimitStoreUnavailable,
          (error) => Effect.as(Effect.logWarning("rate limit not applied", String((error as Error).message)), fallback)
        ) as Effect.Effect<A, Exclude<E, RateLimitStore.RateLimitStoreUnavailable>, R>

      const check = (key: string, rule: Rule) =>
        failOpen(
          Effect.map(hit(key, rule), (counted) => counted.decision),
          { limited: false, limit: rule.requests, remaining: rule.requests, secondsToFreedom: 0, now: 0 }
        )

      /**
       * The headers of `decision`, combined with those of limits applied to
       * the same request before (Zulip's RateLimitMiddleware).
       */
      const headers = (decision: Decision) =>
        HttpEffect.appendPreResponseHandler((_request, response) => {
          const reset = resetSeconds(decision)
          const before = response.headers
          const earlier = (name: string) => {
            const value = before[name]
            return value === undefined ? undefined : Number(value)
          }
          const limit = earlier("x-ratelimit-limit")
          const remaining = earlier("x-ratelimit-remaining")
          const resetBefore = earlier("x-ratelimit-reset")
          return Effect.succeed(HttpServerResponse.setHeaders(response, {
            "X-RateLimit-Limit": String(limit === undefined ? decision.limit : Math.min(limit, decision.limit)),
            "X-RateLimit-Remaining": String(
              remaining === undefined ? decision.remaining : Math.min(remaining, decision.remaining)
            ),
            "X-RateLimit-Reset": String(resetBefore === undefined ? reset : Math.max(resetBefore, reset))
          }))
        })

      /** Counts a request under `rule`: its decision, `undefined` when the store failed. */
      const count = (key: string, rule: Rule): Effect.Effect<Decision | undefined> =>
        failOpen(Effect.map(hit(key, rule), ({ decision }) => decision), undefined)

      /** `count`, with the store's `uncount` of what it counted (a store failure then logged, as for the count). */
      const countUndoably = (key: string, rule: Rule) =>
        failOpen(
          Effect.map(hit(key, rule), ({ decision, token }) => ({
            decision,
            undo: decision.limited ? Effect.void : failOpen(store.uncount(key, token), undefined)
          })),
          undefined
        )

      const enforce = (key: string, rule: Rule | false) =>
        rule === false ? Effect.void : Effect.flatMap(count(key, rule), (decision) =>
          decision === undefined ? Effect.void : headers(decision).pipe(
            Effect.andThen(
              decision.limited
                ? Effect.fail(new Errors.RateLimitHit({ retry_after_seconds: decision.secondsToFreedom }))
                : Effect.void
            )
          ))

      const authenticate = <A, E, R>(
        username: string,
        login: Effect.Effect<A, E, R>
      ): Effect.Effect<A, E | Errors.RateLimitHit, R | HttpServerRequest.HttpServerRequest> => {
        if (authenticationRule === false) return login
        const rule = authenticationRule
        return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const byUsername = `authenticate:username:${username.trim().toLowerCase()}`
          const byAddress = Option.map(request.remoteAddress, (address) => `authenticate:address:${address}`)
          const keys = Option.isSome(byAddress) ? [byUsername, byAddress.value] : [byUsername]
          const counted = failOpen(
            Effect.forEach(keys, (key) => hit(key, rule)),
            undefined
          )
          return Effect.flatMap(counted, (hits): Effect.Effect<A, E | Errors.RateLimitHit, R | HttpServerRequest.HttpServerRequest> => {
            if (hits === undefined) return login
            const applied = Effect.forEach(hits, ({ decision }) => headers(decision), { discard: true })
            const over = hits.filter(({ decision }) => decision.limited)
            if (over.length > 0) {
              // An attempt refused by one key is not counted against the other.
              const takeBack = failOpen(
                Effect.forEach(hits, ({ decision, token }, i) =>
                  decision.limited ? Effect.void : store.uncount(keys[i]!, token), { discard: true }),
                undefined
              )
              const retryAfter = Math.max(...over.map(({ decision }) => decision.secondsToFreedom))
              return takeBack.pipe(
                Effect.andThen(applied),
                Effect.andThen(Effect.fail(new Errors.RateLimitHit({ retry_after_seconds: retryAfter })))
              )
            }
            // A success clears the username's count and is taken back from the address's.
            const succeeded = failOpen(
              Effect.andThen(
                store.clear(byUsername),
                Option.isSome(byAddress) ? store.uncount(byAddress.value, hits[1]!.token) : Effect.void
              ),
              undefined
            )
            return Effect.andThen(applied, Effect.tap(login, () => succeeded))
          })
        })
      }

      const userRule = rules.user
      const addressRule = rules.anonymous
      return RateLimiter.of({
        check,
        user: userRule === false ? () => Effect.void : (userId) => enforce(`user:${userId}`, userRule),
        countUser: userRule === false ? () => Effect.undefined : (userId) => count(`user:${userId}`, userRule),
        countUserUndoably: userRule === false ? () => Effect.undefined : (userId) => countUndoably(`user:${userId}`, userRule),
        address: addressRule === false
          ? Effect.void
          : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
            enforce(`address:${Option.getOrElse(request.remoteAddress, () => "unknown")}`, addressRule)),
        authenticate,
        limitsUsers: userRule !== false,
        limitsAddresses: addressRule !== false
      })
    })
  )

/** The RateLimit middleware: the address rule for endpoints that need no credentials. @category layers */
export const layer: Layer.Layer<RateLimit, never, RateLimiter> = Layer.effect(
  RateLimit,
  Effect.map(
    RateLimiter,
    (limiter) => (httpEffect) => limiter.limitsAddresses ? Effect.andThen(limiter.address, httpEffect) : httpEffect
  )
)
