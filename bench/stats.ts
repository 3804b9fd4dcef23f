/**
 * What every benchmark reports over its rounds: the median and the spread
 * (lowest to highest) of a figure measured once per round, and where the
 * PostgreSQL variants connect (or why they are skipped).
 */
import * as net from "node:net"

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** p in [0, 1], nearest rank. */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!
}

export interface Spread {
  readonly median: number
  readonly min: number
  readonly max: number
  readonly rounds: number
}

export const spread = (values: ReadonlyArray<number>): Spread => ({
  median: median(values),
  min: Math.min(...values),
  max: Math.max(...values),
  rounds: values.length
})

const fmt = (value: number, digits: number) => value.toFixed(digits)

/** `1.23 (1.10-1.40 over 5 rounds)`. */
export const describeSpread = (s: Spread, digits = 2): string =>
  `${fmt(s.median, digits)} (${fmt(s.min, digits)}-${fmt(s.max, digits)} over ${s.rounds} round${s.rounds === 1 ? "" : "s"})`

/**
 * The PostgreSQL server the benchmarks create their databases on:
 * `TEST_DATABASE_URL`, else `DATABASE_URL`, else the tests' default. Resolves
 * to undefined, with the reason, when nothing answers there (the one case a
 * PostgreSQL variant is skipped).
 */
export const postgresAdminUrl = async (): Promise<{ readonly url: string } | { readonly skip: string }> => {
  const url = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test"
  const parsed = new URL(url)
  const port = Number(parsed.port || 5432)
  const host = parsed.hostname || "127.0.0.1"
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(2000, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })
  return reachable ? { url } : { skip: `PostgreSQL skipped: nothing answers at ${host}:${port} (set TEST_DATABASE_URL)` }
}
