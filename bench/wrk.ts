/**
 * The HTTP load generator of the http and messages benchmarks: wrk (Debian's
 * `wrk` package), a C program whose CPU per request is a small fraction of
 * a Node server's, so on a two-core machine the server, not the generator,
 * is what runs out. Missing, it is installed with `apt-get install -y wrk`
 * when this process runs as root; otherwise the benchmark stops with one
 * line saying how to install it.
 *
 * Each run gets a generated Lua script that
 * - sends the request (a body containing `{n}` gets a number unique in the
 *   run there, so no two sends are the same message),
 * - checks every answer while timing: its status and that its body contains
 *   a given text (counted as bad otherwise; wrk's own count of non-2xx and
 *   socket errors is read too: any of them fails the benchmark),
 * - prints one result line: requests, duration, errors, latency
 *   percentiles and the CPU time wrk itself used (Lua's `os.clock()`).
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export interface WrkRequest {
  readonly method: "GET" | "POST"
  /** Path and query string. */
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  /** `{n}` is replaced, per request, by a number unique in the run. */
  readonly body?: string
}

export interface WrkCheck {
  readonly status: number
  /** Text every answer's body must contain. */
  readonly contains: string
}

export interface WrkResult {
  readonly requests: number
  readonly seconds: number
  readonly rps: number
  /** Milliseconds. */
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number }
  /** Socket errors (connect, read, write, timeout) and non-2xx/3xx answers, as wrk counts them. */
  readonly errors: number
  readonly non2xx: number
  /** Answers the script's check refused (status or body), and the first of them. */
  readonly bad: number
  readonly badSample: string
  /** CPU seconds wrk used (all its threads), from its own `os.clock()`. */
  readonly cpuSeconds: number
}

let wrkPath: string | undefined

const onPath = (name: string): string | undefined => {
  for (const dir of [...(process.env.PATH ?? "").split(path.delimiter), "/usr/bin", "/usr/local/bin"]) {
    if (dir === "") continue
    const file = path.join(dir, name)
    try {
      fs.accessSync(file, fs.constants.X_OK)
      return file
    } catch {
      // not here
    }
  }
  return undefined
}

/** wrk's path, installing the Debian package first when it is missing and this process is root. */
export const ensureWrk = (log: (line: string) => void = () => {}): string => {
  if (wrkPath !== undefined) return wrkPath
  const found = onPath("wrk")
  if (found !== undefined) return wrkPath = found
  if (process.getuid?.() !== 0) {
    throw new Error("wrk is not installed; install it with `sudo apt-get install -y wrk` (Debian's package) and run again")
  }
  log("wrk is missing: apt-get install -y wrk")
  const install = () => spawnSync("apt-get", ["install", "-y", "wrk"], { stdio: ["ignore", "ignore", "inherit"] }).status === 0
  if (!install()) {
    spawnSync("apt-get", ["update"], { stdio: ["ignore", "ignore", "inherit"] })
    if (!install()) throw new Error("apt-get install -y wrk failed; install wrk (Debian's package) and run again")
  }
  const installed = onPath("wrk")
  if (installed === undefined) throw new Error("apt-get installed wrk but it is not on PATH")
  return wrkPath = installed
}

/** A Lua string literal of any text. */
const lua = (text: string): string =>
  `"${
    [...Buffer.from(text, "utf8")].map((byte) =>
      byte === 0x22 ? "\\\"" : byte === 0x5c ? "\\\\" : byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\${byte}`
    ).join("")
  }"`

const script = (request: WrkRequest, check: WrkCheck, run: string): string => {
  const lines = [
    "local threads = {}",
    "function setup(thread) table.insert(threads, thread) end",
    "function init(args) bad = 0; badSample = \"\"; n = 0 end",
    `wrk.method = ${lua(request.method)}`,
    `wrk.path = ${lua(request.path)}`
  ]
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`)
  const body = request.body
  if (body !== undefined && body.includes("{n}")) {
    const at = body.indexOf("{n}")
    lines.push(
      `local before, after = ${lua(body.slice(0, at).replaceAll("{n}", run))}, ${lua(body.slice(at + 3).replaceAll("{n}", run))}`,
      `local prefix = ${lua(`${run}-`)}`,
      "function request()",
      "  n = n + 1",
      "  return wrk.format(nil, nil, nil, before .. prefix .. n .. after)",
      "end"
    )
  } else if (body !== undefined) {
    lines.push(`wrk.body = ${lua(body)}`)
  }
  lines.push(
    `local status, needle = ${check.status}, ${lua(check.contains)}`,
    "function response(s, headers, body)",
    "  if s ~= status or body == nil or not string.find(body, needle, 1, true) then",
    "    bad = bad + 1",
    "    if badSample == \"\" then badSample = s .. \" \" .. string.sub(body or \"\", 1, 300) end",
    "  end",
    "end",
    "function done(summary, latency, requests)",
    "  local b, sample = 0, \"\"",
    "  for _, t in ipairs(threads) do",
    "    b = b + t:get(\"bad\")",
    "    if sample == \"\" then sample = t:get(\"badSample\") or \"\" end",
    "  end",
    "  local e = summary.errors",
    "  io.write(string.format(\"WRK_RESULT %d %d %d %d %d %d %d %d %.6f\\n\", summary.requests, summary.duration,",
    "    e.connect + e.read + e.write + e.timeout, e.status, b, latency:percentile(50), latency:percentile(99), latency.max,",
    "    os.clock()))",
    "  io.write(\"WRK_SAMPLE \" .. string.gsub(sample, \"\\n\", \" \") .. \"\\n\")",
    "end"
  )
  return lines.join("\n") + "\n"
}

let runs = 0

/**
 * Loads `url` (http://127.0.0.1:port) with `connections` keep-alive
 * connections on one wrk thread for `seconds`.
 */
export const wrk = (options: {
  readonly url: string
  readonly request: WrkRequest
  readonly check: WrkCheck
  readonly connections: number
  readonly seconds: number
}): Promise<WrkResult> => {
  const binary = ensureWrk()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-wrk-"))
  const file = path.join(dir, "run.lua")
  const run = `${process.pid}-${++runs}-${Date.now()}`
  fs.writeFileSync(file, script(options.request, options.check, run))
  const seconds = Math.max(1, Math.round(options.seconds))
  const args = ["-t1", `-c${options.connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", file, options.url]
  return new Promise<WrkResult>((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d))
    child.once("error", reject)
    child.once("exit", (code) => {
      fs.rmSync(dir, { recursive: true, force: true })
      const line = /^WRK_RESULT (.*)$/m.exec(out)
      if (code !== 0 || line === null) {
        return reject(new Error(`wrk exited with ${code}: ${(err || out).trim().split("\n").slice(-3).join(" / ")}`))
      }
      const [requests, durationUs, errors, non2xx, bad, p50, p99, max, cpu] = line[1]!.split(" ").map(Number) as Array<number>
      const secondsRun = durationUs! / 1e6
      resolve({
        requests: requests!,
        seconds: secondsRun,
        rps: requests! / secondsRun,
        latency: { p50: p50! / 1000, p99: p99! / 1000, max: max! / 1000 },
        errors: errors!,
        non2xx: non2xx!,
        bad: bad!,
        badSample: /^WRK_SAMPLE ?(.*)$/m.exec(out)?.[1] ?? "",
        cpuSeconds: cpu!
      })
    })
  })
}

/** Throws when a run had socket errors, non-2xx answers or answers its check refused. */
export const assertClean = (label: string, r: WrkResult): void => {
  if (r.errors + r.non2xx + r.bad === 0 && r.requests > 0) return
  throw new Error(
    `${label}: ${r.requests} requests, ${r.errors} socket errors, ${r.non2xx} non-2xx answers, ${r.bad} answers failing the check` +
      (r.badSample === "" ? "" : ` (first: ${r.badSample})`)
  )
}
