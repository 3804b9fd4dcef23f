/**
 * Rate-limit windows in this process's memory: right for one process (the
 * in-memory database, PGlite), wrong for several, which would each count
 * their own share of a user's requests.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RateLimitStore } from "../ports/RateLimitStore.ts"
import type { Hit } from "../ports/RateLimitStore.ts"

/** Keys whose window has emptied are dropped every this many hits. */
const sweepEvery = 10_000

/** A fresh, empty store per build. @category layers */
export const layer: Layer.Layer<RateLimitStore> = Layer.sync(RateLimitStore, () => {
  // Accepted request times per key, oldest first, and each key's window.
  const windows = new Map<string, { times: Array<number>; windowMs: number }>()
  let hits = 0

  const sweep = (now: number) => {
    for (const [key, window] of windows) {
      const times = window.times
      if (times.length === 0 || times[times.length - 1]! <= now - window.windowMs) windows.delete(key)
    }
  }

  const hit = (key: string, requests: number, windowMs: number, now: number): Hit => {
    let window = windows.get(key)
    if (window === undefined) {
      window = { times: [], windowMs }
      windows.set(key, window)
    }
    window.windowMs = windowMs
    const times = window.times
    let expired = 0
    while (expired < times.length && times[expired]! <= now - windowMs) expired++
    if (expired > 0) times.splice(0, expired)
    if (++hits % sweepEvery === 0) sweep(now)
    if (times.length >= requests) {
      return { accepted: false, count: times.length, oldest: times[times.length - requests]!, token: "" }
    }
    times.push(now)
    return { accepted: true, count: times.length, oldest: 0, token: String(now) }
  }

  return RateLimitStore.of({
    hit: (key, requests, windowMs, now) => Effect.sync(() => hit(key, requests, windowMs, now)),
    uncount: (key, token) =>
      Effect.sync(() => {
        const times = windows.get(key)?.times
        const at = times === undefined ? -1 : times.lastIndexOf(Number(token))
        if (at !== -1) times!.splice(at, 1)
      }),
    clear: (key) => Effect.sync(() => void windows.delete(key))
  })
})
