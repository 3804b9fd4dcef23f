/**
 * Rate limiting as Zulip does it: a sliding window per authenticated user
 * (default 200 requests per 60 s) and per client address for unauthenticated
 * requests (default 100 per 60 s), kept in memory in this process. Password
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
 * against the other). A shared store (issue 16) can keep the same sorted
 * times per key (a Redis sorted set, as Zulip does) behind this service.
 *
 * @since 0.1.0
 */
import { Errors } from "@teamchat/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import { RateLimit } from "../api/Middleware.ts"
import { RateLimiter } from "../internal/RateLimiter.ts"
import type { Decision, Rule } from "../internal/RateLimiter.ts"

/**
 * The in-memory limiter: `user` limits authenticated users, `anonymous`
 * unauthenticated clients by address, `authentication` password logins;
 * `false` turns a rule off.
 *
 * @category layers
 */
export const limiterLayer = (rules: {
  readonly user: Rule | false
  readonly anonymous: Rule | false
  readonly authentication?: Rule | false | undefined
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

      const authenticationRule = rules.authentication ?? false
      const longestWindowMs = Math.max(
        rules.user === false ? 0 : rules.user.windowSeconds * 1000,
        rules.anonymous === false ? 0 : rules.anonymous.windowSeconds * 1000,
        authenticationRule === false ? 0 : authenticationRule.windowSeconds * 1000
      )

      const check = (key: string, rule: Rule) => Effect.sync(() => checkUnsafe(key, rule))

      /** Takes back a request counted at `time` (the latest such). */
      const uncount = (key: string, time: number) => {
        const times = windows.get(key)
        const at = times === undefined ? -1 : times.lastIndexOf(time)
        if (at !== -1) times!.splice(at, 1)
      }

      const checkUnsafe = (key: string, rule: Rule): Decision => {
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
      }

      /**
       * The headers of `decision`, combined with those of limits applied to
       * the same request before (Zulip's RateLimitMiddleware).
       */
      const headers = (decision: Decision) =>
        HttpEffect.appendPreResponseHandler((_request, response) => {
          const reset = Math.floor(decision.now / 1000 + decision.secondsToFreedom)
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

      const enforce = (key: string, rule: Rule | false) =>
        rule === false ? Effect.void : Effect.flatMap(check(key, rule), (decision) =>
          headers(decision).pipe(
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
          return Effect.suspend((): Effect.Effect<A, E | Errors.RateLimitHit, R | HttpServerRequest.HttpServerRequest> => {
            const decisions = keys.map((key) => checkUnsafe(key, rule))
            const applied = Effect.forEach(decisions, headers, { discard: true })
            const over = decisions.filter((decision) => decision.limited)
            if (over.length > 0) {
              decisions.forEach((decision, i) => {
                if (!decision.limited) uncount(keys[i]!, decision.now)
              })
              const retryAfter = Math.max(...over.map((decision) => decision.secondsToFreedom))
              return Effect.andThen(applied, Effect.fail(new Errors.RateLimitHit({ retry_after_seconds: retryAfter })))
            }
            const succeeded = Effect.sync(() => {
              windows.delete(byUsername)
              if (Option.isSome(byAddress)) uncount(byAddress.value, decisions[1]!.now)
            })
            return Effect.andThen(applied, Effect.tap(login, () => succeeded))
          })
        })
      }

      const userRule = rules.user
      const addressRule = rules.anonymous
      return RateLimiter.of({
        check,
        user: userRule === false ? () => Effect.void : (userId) => enforce(`user:${userId}`, userRule),
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
