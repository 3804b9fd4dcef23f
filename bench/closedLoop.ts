/**
 * The in-process closed loop the endpoint benchmarks share (drafts,
 * invites, presence, push): `connections` loops each call the next user's
 * request as soon as the previous one answers, for a number of seconds, and
 * rounds alternate the order of the kinds compared so neither always runs
 * first. Each round is profiled under BENCH_CPU_PROFILE (bench/profile.ts).
 */
import { performance } from "node:perf_hooks"
import type { BenchOptions } from "./harness.ts"
import { profiled } from "./profile.ts"

/** What one closed-loop run did. */
export interface Rate {
  readonly requests: number
  readonly seconds: number
  readonly rps: number
}

/** One kind of request, called with the index of the user whose turn it is. */
export type Call = (user: number) => Promise<unknown>

/**
 * A closed loop over `users` users taken in turn; `onWrap` runs each time
 * the turn comes back to the first user (presence moves its clock then).
 */
export const makeClosedLoop = (users: number, connections: number, onWrap?: () => void) => {
  let next = 0
  return async (call: Call, seconds: number): Promise<Rate> => {
    const deadline = performance.now() + seconds * 1000
    let requests = 0
    const loop = async () => {
      while (performance.now() < deadline) {
        const user = next
        next = (next + 1) % users
        if (next === 0) onWrap?.()
        await call(user)
        requests++
      }
    }
    const started = performance.now()
    await Promise.all(Array.from({ length: connections }, loop))
    const elapsed = (performance.now() - started) / 1000
    return { requests, seconds: elapsed, rps: requests / elapsed }
  }
}

/**
 * Warms every kind up, then measures `options.rounds` rounds of every kind,
 * the order reversed on even rounds. Returns each kind's rates by round.
 */
export const alternatingRounds = async <Kind extends string>(
  benchmark: string,
  calls: Readonly<Record<Kind, Call>>,
  kinds: ReadonlyArray<Kind>,
  run: (call: Call, seconds: number) => Promise<Rate>,
  options: BenchOptions,
  log: (line: string) => void,
  beforeRounds?: () => Promise<void>
): Promise<Record<Kind, Array<Rate>>> => {
  log(`warming up each for ${options.warmup} s …`)
  for (const kind of kinds) await run(calls[kind], options.warmup)
  await beforeRounds?.()
  const width = Math.max(...kinds.map((kind) => kind.length))
  const results = Object.fromEntries(kinds.map((kind) => [kind, [] as Array<Rate>])) as Record<Kind, Array<Rate>>
  for (let round = 1; round <= options.rounds; round++) {
    const order = round % 2 === 1 ? kinds : [...kinds].reverse()
    for (const kind of order) {
      const result = await profiled(`${benchmark}-${kind}-${round}`, () => run(calls[kind], options.duration))
      results[kind].push(result)
      log(`round ${round}: ${kind.padEnd(width)} ${result.rps.toFixed(0).padStart(6)} req/s  ${result.requests} requests`)
    }
  }
  return results
}
