/**
 * Rate limiting as Zulip does it: a sliding window per authenticated user
 * (default 200 requests per 60 s) and per client address for unauthenticated
 * requests (default 100 per 60 s), kept in memory in this process.
 *
 * Every rate-limited request gets `X-RateLimit-Limit`, `X-RateLimit-Remaining`
 * and `X-RateLimit-Reset` (Unix seconds), success or not. Over the limit the
 * request fails with `RATE_LIMIT_HIT`, whose body carries `"retry-after"` (a
 * float, in seconds) and whose response carries `Retry-After`. Rejected
 * requests do not count. Time comes from effect's `Clock`.
 *
 * @since 0.1.0
 */
import { RateLimitHit } from "@teamchat/core/errors/Errors"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as Option from "effect/Option"
import { ErrorResponses } from "../internal/Errors.ts"

/** A limit: at most `requests` per `windowSeconds`. @category models */
export interface Rule {
  readonly requests: number
  readonly windowSeconds: number
}

/** What a check found. @category models */
export interface Decision {
  readonly limited: boolean
  readonly limit: number
  /** Requests left in the window, after this one. */
  readonly remaining: number
  /** Seconds until a request would be accepted again; 0 when not limited. */
  readonly secondsToFreedom: number
  /** The time of the check, Unix milliseconds. */
  readonly now: number
}

/** The in-memory limiter. @category services */
export class RateLimiter extends Context.Service<RateLimiter, {
  /** Counts a request of `key` against `rule`, unless it is over the limit. */
  check(key: string, rule: Rule): Effect.Effect<Decision>
  /** Applies the user rule to an authenticated user; sets the headers; fails when over. */
  user(userId: number): Effect.Effect<void, RateLimitHit, HttpServerRequest.HttpServerRequest>
  /** Applies the address rule to the current (unauthenticated) request. */
  address: Effect.Effect<void, RateLimitHit, HttpServerRequest.HttpServerRequest>
  /** Whether `user` limits anything (false: it always succeeds, setting no headers). */
  readonly limitsUsers: boolean
  /** Whether `address` limits anything (false: it always succeeds, setting no headers). */
  readonly limitsAddresses: boolean
}>()("@teamchat/http/middleware/RateLimit/RateLimiter") {
  /**
   * `user` limits authenticated users, `anonymous` unauthenticated clients by
   * address; `false` turns a rule off.
   */
  static readonly layer = (rules: {
    readonly user: Rule | false
    readonly anonymous: Rule | false
  }): Layer.Layer<RateLimiter> =>
    Layer.effect(
      RateLimiter,
      Effect.gen(function*() {
        const clock = yield* Clock.Clock
        // Accepted request times per key, oldest first.
        const windows = new Map<string, Array<number>>()
        let checks = 0

        const sweep = (now: number, longestWindowMs: number) => {
          for (const [key, times] of windows) {
            if (times.length === 0 || times[times.length - 1]! <= now - longestWindowMs) windows.delete(key)
          }
        }

        const longestWindowMs = Math.max(
          rules.user === false ? 0 : rules.user.windowSeconds * 1000,
          rules.anonymous === false ? 0 : rules.anonymous.windowSeconds * 1000
        )

        const check = (key: string, rule: Rule) =>
          Effect.sync((): Decision => {
            const now = clock.currentTimeMillisUnsafe()
            const windowMs = rule.windowSeconds * 1000
            let times = windows.get(key)
            if (times === undefined) {
              times = []
              windows.set(key, times)
            }
            let expired = 0
            while (expired < times.length && times[expired]! <= now - windowMs) expired++
            if (expired > 0) times.splice(0, expired)
            if (++checks % 10_000 === 0) sweep(now, longestWindowMs)
            if (times.length >= rule.requests) {
              const oldest = times[times.length - rule.requests]!
              return {
                limited: true,
                limit: rule.requests,
                remaining: 0,
                secondsToFreedom: (oldest + windowMs - now) / 1000,
                now
              }
            }
            times.push(now)
            return {
              limited: false,
              limit: rule.requests,
              remaining: rule.requests - times.length,
              secondsToFreedom: 0,
              now
            }
          })

        const enforce = (key: string, rule: Rule | false) =>
          rule === false ? Effect.void : Effect.flatMap(check(key, rule), (decision) =>
            HttpEffect.appendPreResponseHandler((_request, response) =>
              Effect.succeed(HttpServerResponse.setHeaders(response, {
                "X-RateLimit-Limit": String(decision.limit),
                "X-RateLimit-Remaining": String(decision.remaining),
                "X-RateLimit-Reset": String(Math.floor(decision.now / 1000 + decision.secondsToFreedom))
              }))
            ).pipe(
              Effect.andThen(
                decision.limited
                  ? Effect.fail(new RateLimitHit({ retry_after_seconds: decision.secondsToFreedom }))
                  : Effect.void
              )
            ))

        const userRule = rules.user
        const addressRule = rules.anonymous
        return RateLimiter.of({
          check,
          user: userRule === false ? () => Effect.void : (userId) => enforce(`user:${userId}`, userRule),
          address: addressRule === false
            ? Effect.void
            : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
              enforce(`address:${Option.getOrElse(request.remoteAddress, () => "unknown")}`, addressRule)),
          limitsUsers: userRule !== false,
          limitsAddresses: addressRule !== false
        })
      })
    )
}

/**
 * Rate limiting for the endpoints that need no credentials, by client address
 * (`HttpServerRequest.remoteAddress`; behind a proxy, install
 * `HttpMiddleware.xForwardedHeaders` in the server).
 *
 * @category middleware
 */
export class RateLimit extends HttpApiMiddleware.Service<RateLimit>()("@teamchat/http/middleware/RateLimit", {
  error: ErrorResponses
}) {
  /** @category layers */
  static readonly layer: Layer.Layer<RateLimit, never, RateLimiter> = Layer.effect(
    RateLimit,
    Effect.map(
      RateLimiter,
      (limiter) => (httpEffect) => limiter.limitsAddresses ? Effect.andThen(limiter.address, httpEffect) : httpEffect
    )
  )
}
