/**
 * The rate limiter as a service: what the middleware and the login handler
 * ask of it. Its implementation (Zulip's sliding windows over a
 * `RateLimitStore`) is `middleware/RateLimit.ts`.
 *
 * @since 0.1.0
 */
import type { Errors } from "@teamchat/core"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"

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

/** `X-RateLimit-Reset` of a decision: when the window has room again, Unix seconds. */
export const resetSeconds = (decision: Decision): number => Math.floor(decision.now / 1000 + decision.secondsToFreedom)

/** The limiter. @category services */
export class RateLimiter extends Context.Service<RateLimiter, {
  /** Counts a request of `key` against `rule`, unless it is over the limit. */
  check(key: string, rule: Rule): Effect.Effect<Decision>
  /** Applies the user rule to an authenticated user; sets the headers; fails when over. */
  user(userId: number): Effect.Effect<void, Errors.RateLimitHit, HttpServerRequest.HttpServerRequest>
  /**
   * What `user` does, as a value: the request counted under the user rule
   * (unless over it) and the decision; `undefined` when the rule is off or
   * the store failed (a warning logged: the request goes through, without
   * headers).
   */
  countUser(userId: number): Effect.Effect<Decision | undefined>
  /**
   * `countUser`, with the way to take the count back (`undo`: nothing when
   * the request was refused, which was not counted) for a request counted
   * ahead of work that then hands it to the routes, which count it again.
   */
  countUserUndoably(userId: number): Effect.Effect<{ readonly decision: Decision; readonly undo: Effect.Effect<void> } | undefined>
  /** Applies the address rule to the current (unauthenticated) request. */
  address: Effect.Effect<void, Errors.RateLimitHit, HttpServerRequest.HttpServerRequest>
  /**
   * Runs a password login of `username` under the authentication rule, per
   * username and per client address (when the request has one).
   */
  authenticate<A, E, R>(
    username: string,
    login: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | Errors.RateLimitHit, R | HttpServerRequest.HttpServerRequest>
  /** Whether `user` limits anything (false: it always succeeds, setting no headers). */
  readonly limitsUsers: boolean
  /** Whether `address` limits anything (false: it always succeeds, setting no headers). */
  readonly limitsAddresses: boolean
}>()("@teamchat/http/middleware/RateLimit/RateLimiter") {}
