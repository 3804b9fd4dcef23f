/**
 * What a benchmark is, the options every benchmark receives, and helpers to
 * run a server under test in its own process (so it has a core to itself
 * and does not share an event loop with the load generator).
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import type { ChildProcess } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

export interface BenchOptions {
  /** Seconds of measured load per server per round. */
  readonly duration: number
  /** Seconds of unmeasured load before the first round. */
  readonly warmup: number
  readonly connections: number
  /** Rounds alternate between the compared servers; the median over them is reported. */
  readonly rounds: number
  /**
   * The servers the http and messages benchmarks start: as configured by
   * default (`on`), with `fastPaths: false` (`off`), or one of each (`both`).
   */
  readonly fastPaths: "on" | "off" | "both"
}

export const defaultOptions: BenchOptions = { duration: 5, warmup: 2, connections: 16, rounds: 5, fastPaths: "on" }

/**
 * A number a benchmark reports, optionally with a floor it must reach
 * (`min`: missing it fails the run) or a target it is compared with
 * (`target`: reported as met or missed, not a failure).
 */
export interface Metric {
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly min?: number
  readonly target?: { readonly at: "least" | "most"; readonly value: number }
}

/**
 * The teamchat servers `options.fastPaths` asks for: the input bench/servers.ts
 * gets, and a suffix for their names. With `BENCH_COMPARE=<checkout>` (another
 * worktree of the repository, its dependencies installed), the servers of
 * that checkout run too, in the same rounds, fast paths on and off (where it
 * has them): a before and after measured in one sitting.
 */
export const fastPathVariants = (
  options: BenchOptions
): ReadonlyArray<{ readonly suffix: string; readonly input: { fastPaths?: false; checkout?: string } }> => {
  const on = { suffix: "", input: {} }
  const off = { suffix: ", fast paths off", input: { fastPaths: false as const } }
  const here = options.fastPaths === "on" ? [on] : options.fastPaths === "off" ? [off] : [on, off]
  const checkout = process.env.BENCH_COMPARE
  if (checkout === undefined || checkout === "") return here
  const label = process.env.BENCH_COMPARE_LABEL ?? path.basename(checkout)
  return [
    ...here,
    { suffix: `, ${label}`, input: { checkout } },
    { suffix: `, ${label}, fast paths off`, input: { checkout, fastPaths: false as const } }
  ]
}

/**
 * The backends to measure, from `BENCH_BACKENDS` (a comma-separated list
 * such as `memory,pglite`), else all of `all`.
 */
export const selectedBackends = <B extends string>(all: ReadonlyArray<B>): ReadonlyArray<B> => {
  const wanted = process.env.BENCH_BACKENDS
  if (wanted === undefined || wanted.trim() === "") return all
  const names = wanted.split(",").map((s) => s.trim().toLowerCase())
  return all.filter((b) => names.includes(b.toLowerCase()))
}

export interface Benchmark {
  readonly name: string
  readonly description: string
  /** `log` prints progress lines; the returned metrics are the result. */
  readonly run: (options: BenchOptions, log: (line: string) => void) => Promise<ReadonlyArray<Metric>>
}

/** A child process running `bench/servers.ts <kind>`, ready and listening. */
export interface ServerProcess {
  readonly url: string
  readonly info: Readonly<Record<string, unknown>>
  readonly pid: number
  /** CPU time (user + system, µs) the server process has used so far. */
  readonly cpu: () => Promise<number>
  /** Sends a command line (see bench/servers.ts) and resolves with its JSON answer; an `error` answer rejects. */
  readonly ask: (command: string) => Promise<any>
  readonly stop: () => Promise<void>
}

const serversScript = fileURLToPath(new URL("./servers.ts", import.meta.url))

/**
 * Starts `bench/servers.ts <kind>` with `input` as JSON on stdin and waits
 * for its `{"url": …}` line. The child exits when stopped or when this
 * process goes away (its stdin closes). `nodeArgs` go to node before the
 * script.
 */
export const startServer = (
  kind: string,
  input: unknown = {},
  /** Node options before the script, e.g. `["--expose-gc"]` (the soak benchmark's `memory` command uses it). */
  nodeArgs: ReadonlyArray<string> = []
): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    // Another checkout's servers (`BENCH_COMPARE`), run from that checkout.
    const checkout = (input as { checkout?: unknown } | null)?.checkout
    const script = typeof checkout === "string" ? path.join(checkout, "bench", "servers.ts") : serversScript
    const child: ChildProcess = spawn(process.execPath, [...nodeArgs, script, kind], {
      stdio: ["pipe", "pipe", "inherit"],
      ...(typeof checkout === "string" ? { cwd: checkout } : {})
    })
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    child.stdin!.write(`${JSON.stringify(input)}\n`)
    const lines = createInterface({ input: child.stdout! })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${kind} server did not start within 60 s`))
    }, 60_000)
    const early = (code: number | null) => {
      clearTimeout(timer)
      reject(new Error(`${kind} server exited with code ${code} before it was ready`))
    }
    child.once("exit", early)
    // Answers are JSON lines; anything else on stdout (a log line) is passed on to stderr.
    const waiting: Array<(answer: unknown) => void> = []
    let started = false
    lines.on("line", (line) => {
      let parsed: unknown
      try {
        parsed = JSON.parse(line)
      } catch {
        console.error(`[${kind}] ${line}`)
        return
      }
      if (started) return waiting.shift()?.(parsed)
      started = true
      clearTimeout(timer)
      child.off("exit", early)
      const info = parsed as { url: string; pid: number }
      const ask = (command: string) =>
        new Promise<any>((done, fail) => {
          waiting.push((answer) => {
            if (answer !== null && typeof answer === "object" && "error" in answer) {
              fail(new Error(`${kind} ${command}: ${(answer as { error: unknown }).error}`))
            } else done(answer)
          })
          child.stdin!.write(`${command}\n`)
        })
      resolve({
        url: info.url,
        pid: info.pid,
        info,
        cpu: () => ask("cpu").then(({ system, user }: { user: number; system: number }) => user + system),
        ask,
        stop: () => {
          child.stdin!.end()
          child.kill("SIGTERM")
          return exited
        }
      })
    })
  })
