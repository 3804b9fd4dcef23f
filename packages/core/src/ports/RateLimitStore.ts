/**
 * Where rate-limit windows are counted (port): a sliding window of accepted
 * request times per key, as Zulip keeps them. Implemented in one process's
 * memory (`memory/MemoryRateLimitStore.ts`), in the database for every
 * process on it (`sql/SqlRateLimitStore.ts`) and in Redis
 * (`redis/RedisRateLimitStore.ts`). The rules and the HTTP headers are the
 * HTTP adapter's; a store only counts, each `hit` atomically.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

/** What `hit` found. @category models */
export interface Hit {
  /** Whether the request was counted (under the limit). */
  readonly accepted: boolean
  /** Requests in the window after this one (when accepted) or now (when refused). */
  readonly count: number
  /**
   * When refused: the time (Unix ms) of the counted request whose leaving
   * the window makes room for one more; otherwise 0.
   */
  readonly oldest: number
  /** Names the counted request for `uncount`; empty when refused. */
  readonly token: string
}

/** The store could not be reached or answered nonsense. @category errors */
export class RateLimitStoreUnavailable extends Data.TaggedError("RateLimitStoreUnavailable")<{
  readonly store: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `the ${this.store} rate-limit store failed: ${String((this.cause as Error | undefined)?.message ?? this.cause)}`
  }
}

/** @category services */
export class RateLimitStore extends Context.Service<RateLimitStore, {
  /**
   * Forgets the times of `key` at or before `now - windowMs`, then counts a
   * request at `now` unless `requests` are already in the window.
   */
  hit(key: string, requests: number, windowMs: number, now: number): Effect.Effect<Hit, RateLimitStoreUnavailable>
  /** Takes back the request `token` named (a no-op when it has left the window). */
  uncount(key: string, token: string): Effect.Effect<void, RateLimitStoreUnavailable>
  /** Forgets every request of `key`. */
  clear(key: string): Effect.Effect<void, RateLimitStoreUnavailable>
}>()("teamchat/core/ports/RateLimitStore") {}
