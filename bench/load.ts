/**
 * A small closed-loop load generator: `connections` keep-alive connections,
 * each sending the next request as soon as the previous answer is read,
 * until the duration or the request cap is reached. Loopback (127.0.0.1)
 * only. The same function loads every server a benchmark compares.
 */
import * as http from "node:http"
import { performance } from "node:perf_hooks"

export interface LoadOptions {
  readonly url: string
  readonly method?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  readonly connections: number
  readonly durationMs: number
  /** Stop early after this many requests (a bound for fast servers). */
  readonly maxRequests?: number
  /** Answers with another status or length count as unexpected. */
  readonly expectStatus?: number
  readonly expectBytes?: number
}

export interface LoadResult {
  readonly requests: number
  readonly seconds: number
  readonly rps: number
  /** Connection or protocol errors. */
  readonly errors: number
  /** Answers with an unexpected status or body length. */
  readonly unexpected: number
  /** Milliseconds. */
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number }
}

const maxErrors = 100

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

export const load = async (options: LoadOptions): Promise<LoadResult> => {
  const url = new URL(options.url)
  if (url.hostname !== "127.0.0.1" || url.protocol !== "http:") {
    throw new Error(`the load generator only targets http://127.0.0.1, not ${options.url}`)
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections, maxFreeSockets: options.connections })
  const cap = options.maxRequests ?? Number.POSITIVE_INFINITY
  const latencies: Array<number> = []
  let sent = 0
  let errors = 0
  let unexpected = 0

  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now()
      const request = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: options.method ?? "GET",
          headers: options.headers
        },
        (response) => {
          let bytes = 0
          response.on("data", (chunk: Buffer) => (bytes += chunk.length))
          response.on("end", () => {
            latencies.push(performance.now() - started)
            if (
              (options.expectStatus !== undefined && response.statusCode !== options.expectStatus) ||
              (options.expectBytes !== undefined && bytes !== options.expectBytes)
            ) unexpected++
            resolve()
          })
          response.on("error", () => {
            errors++
            resolve()
          })
        }
      )
      request.on("error", () => {
        errors++
        resolve()
      })
      request.end(options.body)
    })

  const deadline = performance.now() + options.durationMs
  const connection = async () => {
    while (performance.now() < deadline && sent < cap && errors < maxErrors) {
      sent++
      await one()
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: options.connections }, connection))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()

  const sorted = latencies.sort((a, b) => a - b)
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    errors,
    unexpected,
    latency: { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? 0 }
  }
}
