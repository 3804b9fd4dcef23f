/**
 * GET /api/v1/users/me: what the server process spends per request, beside
 * an equal-work node:http server, on each backend (memory, PGlite,
 * PostgreSQL; `BENCH_BACKENDS` picks some).
 *
 * - teamchat: the standalone server (`Server.start`, bench/servers.ts
 *   `teamchat`) in its own process: the demo organization, one worker, no
 *   rate limit, no request log; on PGlite a fresh data directory, on
 *   PostgreSQL a fresh database (dropped afterwards). With `--fast-paths
 *   off` (or `both`) it is started with `fastPaths: false`, what the
 *   routes cost without the shortcuts of FastPaths.ts.
 * - the baseline (bench/servers.ts `me`), in its own process: node:http
 *   parsing the Basic header, finding the key in a Map of as many users as
 *   the organization, comparing it in constant time, JSON-encoding
 *   teamchat's own answer's user in the same envelope per request, with the
 *   same headers. Its answer is checked to be teamchat's, byte for byte.
 *
 * wrk (bench/wrk.ts, one thread, `--connections`) drives each in turn for
 * `--duration` seconds per round, the order reversed every other round; it
 * checks every answer (status 200, a success envelope) and any failure
 * stops the benchmark, and before and after each run a plain request's
 * answer is compared with the first one (status, the same fields, the same
 * user). The figure is the server process's CPU time per request (its own
 * `process.cpuUsage()` over the run ÷ requests answered), beside req/s; the
 * ratio teamchat ÷ baseline is taken per round (both measured back to
 * back) and its median reported with the spread. On PostgreSQL the
 * database backends' CPU per request is reported beside it (from /proc,
 * when PostgreSQL runs on this machine), and for every run wrk's own CPU
 * per request. The target (issue #33): teamchat ≤ 1.5× the baseline.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import type { Database } from "@teamchat/http/Config"
import type { Benchmark, BenchOptions, Metric, ServerProcess } from "./harness.ts"
import { fastPathVariants, selectedBackends, startServer } from "./harness.ts"
import type { PostgresCpu } from "./proc.ts"
import { machineLoad, postgresCpu } from "./proc.ts"
import { describeSpread, postgresAdminUrl, spread } from "./stats.ts"
import type { WrkResult } from "./wrk.ts"
import { assertClean, ensureWrk, wrk } from "./wrk.ts"

const mePath = "/api/v1/users/me"
/** Headers node:http adds or that vary per answer; the rest the baseline sends as teamchat does. */
const perAnswerHeaders = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"])

interface Target {
  readonly name: string
  readonly server: ServerProcess
  readonly authorization: string
  /** The first answer: what every sampled answer must look like. */
  readonly answer: Record<string, unknown>
}

interface Run {
  readonly result: WrkResult
  /** µs per request. */
  readonly cpu: number
  readonly postgres: number | undefined
  readonly wrkCpu: number
}

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

const fetchKey = async (url: string, email: string): Promise<string> => {
  const response = await fetch(`${url}/api/v1/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: email }) })
  const body = (await response.json()) as { api_key?: string }
  if (response.status !== 200 || body.api_key === undefined) throw new Error(`dev_fetch_api_key answered ${response.status}`)
  return body.api_key
}

/** One plain GET /users/me, checked against `expected` (status, the same fields, the same user); answers the body. */
const sampleAnswer = async (url: string, authorization: string, expected?: Record<string, unknown>) => {
  const response = await fetch(`${url}${mePath}`, { headers: { authorization } })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`GET ${mePath} answered ${response.status}: ${text.slice(0, 200)}`)
  const body = JSON.parse(text) as Record<string, unknown>
  if (expected !== undefined) {
    const keys = Object.keys(body).join(",")
    if (keys !== Object.keys(expected).join(",") || body.user_id !== expected.user_id || body.result !== "success") {
      throw new Error(`GET ${mePath} answered another shape: ${text.slice(0, 200)}`)
    }
  }
  return { body, text, headers: response.headers }
}

const describeRun = (name: string, run: Run) =>
  `${name.padEnd(28)} ${run.result.rps.toFixed(0).padStart(6)} req/s  server ${run.cpu.toFixed(0).padStart(5)} µs CPU/request` +
  (run.postgres === undefined ? "" : `  PostgreSQL ${run.postgres.toFixed(0)} µs`) +
  `  wrk ${run.wrkCpu.toFixed(0)} µs  p50 ${run.result.latency.p50.toFixed(2)} ms  p99 ${run.result.latency.p99.toFixed(2)} ms`

const measureBackend = async (
  label: string,
  databases: ReadonlyArray<Database>,
  pg: PostgresCpu | undefined,
  options: BenchOptions,
  log: (line: string) => void
): Promise<Array<Metric>> => {
  const variants = fastPathVariants(options)
  const started: Array<ServerProcess> = []
  try {
    const targets: Array<Target> = []
    for (const [i, variant] of variants.entries()) {
      // One after the other: on a shared database the first seeds the demo organization.
      const server = await startServer("teamchat", { database: databases[i], ...variant.input })
      started.push(server)
      const authorization = basic("iago@zulip.com", await fetchKey(server.url, "iago@zulip.com"))
      const { body } = await sampleAnswer(server.url, authorization)
      targets.push({ name: `teamchat${variant.suffix}`, server, authorization, answer: body })
    }
    const first = targets[0]!
    const sample = await sampleAnswer(first.server.url, first.authorization)
    const users = await fetch(`${first.server.url}/api/v1/users`, { headers: { authorization: first.authorization } })
      .then((r) => r.json() as Promise<{ members: ReadonlyArray<unknown> }>)
    const headers: Record<string, string> = {}
    sample.headers.forEach((value, name) => {
      if (!perAnswerHeaders.has(name)) headers[name] = value
    })
    const apiKey = Buffer.from(first.authorization.slice(6), "base64").toString().split(":")[1]!
    const bare = await startServer("me", { answer: sample.body, headers, email: "iago@zulip.com", apiKey, users: users.members.length })
    started.push(bare)
    // Equal work: the very bytes teamchat sent, and the same headers.
    const bareAnswer = await sampleAnswer(bare.url, first.authorization)
    if (bareAnswer.text !== sample.text) throw new Error("the baseline's answer is not teamchat's")
    for (const name of Object.keys(headers)) {
      if (bareAnswer.headers.get(name) !== headers[name]) throw new Error(`the baseline's ${name} header is not teamchat's`)
    }
    targets.unshift({ name: "baseline", server: bare, authorization: first.authorization, answer: sample.body })
    log(
      `${label}: ${targets.map((t) => `${t.name} ${t.server.url}`).join(", ")}; a ${sample.text.length}-byte answer, ` +
        `${users.members.length} users in the baseline's Map, ${options.connections} connections`
    )

    const run = async (target: Target, seconds: number): Promise<Run> => {
      await sampleAnswer(target.server.url, target.authorization, target.answer)
      const pgBefore = await pg?.sample()
      const before = await target.server.cpu()
      const result = await wrk({
        url: target.server.url,
        request: { method: "GET", path: mePath, headers: { Authorization: target.authorization } },
        check: { status: 200, contains: "\"result\":\"success\"" },
        connections: options.connections,
        seconds
      })
      const cpu = (await target.server.cpu()) - before
      const pgAfter = await pg?.sample()
      assertClean(`${label} ${target.name}`, result)
      await sampleAnswer(target.server.url, target.authorization, target.answer)
      const n = Math.max(1, result.requests)
      return {
        result,
        cpu: cpu / n,
        postgres: pg === undefined || target.name === "baseline" ? undefined : (pg.used(pgBefore!, pgAfter!) * 1e6) / n,
        wrkCpu: (result.cpuSeconds * 1e6) / n
      }
    }

    log(`${label}: warming up each for ${options.warmup} s …`)
    for (const target of targets) await run(target, options.warmup)
    const runs = new Map(targets.map((t) => [t.name, [] as Array<Run>]))
    for (let round = 1; round <= options.rounds; round++) {
      log(`${label}: round ${round}, ${machineLoad()}`)
      const order = round % 2 === 1 ? targets : [...targets].reverse()
      for (const target of order) {
        const r = await run(target, options.duration)
        runs.get(target.name)!.push(r)
        log(`  ${describeRun(target.name, r)}`)
      }
    }

    const baseline = runs.get("baseline")!
    const of = (name: string, f: (r: Run) => number) => spread(runs.get(name)!.map(f))
    const metrics: Array<Metric> = [
      { name: `${label}: baseline req/s`, value: of("baseline", (r) => r.result.rps).median, unit: "req/s" },
      { name: `${label}: baseline server CPU/request`, value: of("baseline", (r) => r.cpu).median, unit: "µs" }
    ]
    log(`${label}: baseline ${describeSpread(of("baseline", (r) => r.cpu), 0)} µs CPU/request, wrk ${describeSpread(of("baseline", (r) => r.wrkCpu), 0)} µs`)
    for (const target of targets.slice(1)) {
      const mine = runs.get(target.name)!
      const name = `${label}${target.name.slice("teamchat".length)}`
      const cpuRatio = spread(mine.map((r, i) => r.cpu / baseline[i]!.cpu))
      const rpsRatio = spread(mine.map((r, i) => r.result.rps / baseline[i]!.result.rps))
      log(
        `${name}: teamchat ${describeSpread(of(target.name, (r) => r.cpu), 0)} µs CPU/request; ÷ baseline ${describeSpread(cpuRatio)}; ` +
          `req/s ${describeSpread(of(target.name, (r) => r.result.rps), 0)} (÷ baseline ${describeSpread(rpsRatio)}); ` +
          `wrk ${describeSpread(of(target.name, (r) => r.wrkCpu), 0)} µs/request`
      )
      metrics.push(
        { name: `${name}: teamchat req/s`, value: of(target.name, (r) => r.result.rps).median, unit: "req/s" },
        { name: `${name}: teamchat server CPU/request`, value: of(target.name, (r) => r.cpu).median, unit: "µs" },
        { name: `${name}: server CPU/request, teamchat ÷ baseline`, value: cpuRatio.median, unit: "", target: { at: "most", value: 1.5 } },
        { name: `${name}: req/s, teamchat ÷ baseline`, value: rpsRatio.median, unit: "" },
        { name: `${name}: wrk CPU/request`, value: of(target.name, (r) => r.wrkCpu).median, unit: "µs" }
      )
      if (mine.every((r) => r.postgres !== undefined)) {
        const postgres = of(target.name, (r) => r.postgres!)
        log(`${name}: PostgreSQL backends ${describeSpread(postgres, 0)} µs CPU/request`)
        metrics.push({ name: `${name}: PostgreSQL CPU/request`, value: postgres.median, unit: "µs" })
      }
    }
    return metrics
  } finally {
    await Promise.all(started.map((s) => s.stop()))
  }
}

export const httpBenchmark: Benchmark = {
  name: "http",
  description: "GET /api/v1/users/me: teamchat's server CPU per request vs an equal-work node:http server (memory, PGlite, PostgreSQL; wrk)",
  run: async (options: BenchOptions, log) => {
    ensureWrk(log)
    log(`${machineLoad()}, --fast-paths ${options.fastPaths}`)
    const metrics: Array<Metric> = []
    const count = fastPathVariants(options).length
    for (const backend of selectedBackends(["memory", "pglite", "postgres"])) {
      if (backend === "memory") {
        metrics.push(...(await measureBackend("memory", Array.from({ length: count }, () => ({ _tag: "Memory" })), undefined, options, log)))
      } else if (backend === "pglite") {
        const dirs = Array.from({ length: count }, () => fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-bench-http-")))
        try {
          metrics.push(...(await measureBackend("PGlite", dirs.map((dataDir) => ({ _tag: "Pglite", dataDir })), undefined, options, log)))
        } finally {
          for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
        }
      } else {
        const admin = await postgresAdminUrl()
        if ("skip" in admin) {
          log(admin.skip)
          continue
        }
        const name = `teamchat_bench_http_${process.pid}`
        await Effect.runPromise(TestDatabase.createDatabase(admin.url, name) as Effect.Effect<void>)
        const pg = await postgresCpu(admin.url, name, log)
        try {
          const url = TestDatabase.databaseUrl(admin.url, name)
          metrics.push(
            ...(await measureBackend("PostgreSQL", Array.from({ length: count }, () => ({ _tag: "Postgres", url })), pg, options, log))
          )
        } finally {
          await pg?.close()
          await Effect.runPromise(TestDatabase.dropDatabase(admin.url, name) as Effect.Effect<void>)
        }
      }
    }
    return metrics
  }
}
