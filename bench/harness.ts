/**
 * What a benchmark is, the options every benchmark receives, and helpers to
 * run a server under test in its own process (so it has a core to itself
 * and does not share an event loop with the load generator).
 */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

export interface BenchOptions {
  /** Seconds of measured load per server per round. */
  readonly duration: number
  /** Seconds of unmeasured load before the first round. */
  readonly warmup: number
  readonly connections: number
  /** Rounds alternate between the compared servers; results are averaged. */
  readonly rounds: number
}

export const defaultOptions: BenchOptions = { duration: 5, warmup: 2, connections: 16, rounds: 5 }

/** A number a benchmark reports, optionally with a floor it must reach. */
export interface Metric {
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly min?: number
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
  /** CPU time (user + system, µs) the server process has used so far. */
  readonly cpu: () => Promise<number>
  readonly stop: () => Promise<void>
}

const serversScript = fileURLToPath(new URL("./servers.ts", import.meta.url))

/**
 * Starts `bench/servers.ts <kind>` with `input` as JSON on stdin and waits
 * for its `{"url": …}` line. The child exits when stopped or when this
 * process goes away (its stdin closes).
 */
export const startServer = (kind: string, input: unknown = {}): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [serversScript, kind], { stdio: ["pipe", "pipe", "inherit"] })
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
    lines.once("line", (line) => {
      clearTimeout(timer)
      child.off("exit", early)
      const info = JSON.parse(line) as { url: string }
      // Later lines answer commands, in order.
      const waiting: Array<(line: string) => void> = []
      lines.on("line", (answer) => waiting.shift()?.(answer))
      resolve({
        url: info.url,
        info,
        cpu: () =>
          new Promise((done) => {
            waiting.push((answer) => {
              const { system, user } = JSON.parse(answer) as { user: number; system: number }
              done(user + system)
            })
            child.stdin!.write("cpu\n")
          }),
        stop: () => {
          child.stdin!.end()
          child.kill("SIGTERM")
          return exited
        }
      })
    })
  })
