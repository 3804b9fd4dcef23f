/**
 * Runs the benchmarks: `pnpm bench` (or `node bench/run.ts`).
 *
 *   node bench/run.ts [name…] [--duration S] [--warmup S] [--connections N] [--rounds N]
 *     [--fast-paths on|off|both] [--json] [--quick] [--step-seconds S] [--ceiling]
 *
 * Each benchmark measures teamchat next to a baseline in the same run and
 * reports metrics, some with a floor (e.g. the HTTP ratio ≥ 0.6). The exit
 * code is 1 when a floor is missed or a benchmark fails, 2 on bad usage.
 * To add one (events, messages, scheduling), write `bench/<name>.ts`
 * exporting a `Benchmark` (see harness.ts) and list it below.
 */
import { parseArgs } from "node:util"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { draftsBenchmark } from "./drafts.ts"
import { eventsBenchmark } from "./events.ts"
import { groupsBenchmark } from "./groups.ts"
import { heartbeatsBenchmark } from "./heartbeats.ts"
import { defaultOptions } from "./harness.ts"
import { httpBenchmark } from "./http.ts"
import { invitesBenchmark } from "./invites.ts"
import { messagesBenchmark } from "./messages.ts"
import { movesBenchmark } from "./moves.ts"
import { zulipLoadBenchmark } from "./zulipload.ts"
import { presenceBenchmark } from "./presence.ts"
import { pushBenchmark } from "./push.ts"
import { registerBenchmark } from "./register.ts"
import { rssBenchmark } from "./rss.ts"
import { scalingBenchmark } from "./scaling.ts"
import { scheduledBenchmark } from "./scheduled.ts"
import { soakBenchmark } from "./soak.ts"

const benchmarks: ReadonlyArray<Benchmark> = [
  httpBenchmark,
  eventsBenchmark,
  heartbeatsBenchmark,
  messagesBenchmark,
  movesBenchmark,
  scheduledBenchmark,
  groupsBenchmark,
  presenceBenchmark,
  registerBenchmark,
  rssBenchmark,
  draftsBenchmark,
  pushBenchmark,
  zulipLoadBenchmark,
  invitesBenchmark,
  scalingBenchmark,
  soakBenchmark
]

const usage = () =>
  `usage: node bench/run.ts [${benchmarks.map((b) => b.name).join("|")}…] ` +
  "[--duration S] [--warmup S] [--connections N] [--rounds N] [--fast-paths on|off|both] [--json] [--quick] [--step-seconds S] [--ceiling]\n" +
  benchmarks.map((b) => `  ${b.name.padEnd(10)} ${b.description}`).join("\n")

const fail = (message: string): never => {
  console.error(`bench: ${message}\n${usage()}`)
  process.exit(2)
}

const parsed = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        duration: { type: "string" },
        warmup: { type: "string" },
        connections: { type: "string" },
        rounds: { type: "string" },
        "fast-paths": { type: "string" },
        json: { type: "boolean", default: false },
        // Read by the load benchmark (bench/zulipload.ts): a short smoke run.
        quick: { type: "boolean", default: false },
        // Read by the load benchmark: first ramp the generator against constant answers (its own ceiling).
        ceiling: { type: "boolean", default: false },
        // Read by the load benchmark: seconds measured per step of the full ramp (default 45).
        "step-seconds": { type: "string" },
        help: { type: "boolean", default: false }
      }
    })
  } catch (error) {
    return fail((error as Error).message)
  }
})()
if (parsed.values.help) {
  console.log(usage())
  process.exit(0)
}

const positive = (name: "duration" | "warmup" | "connections" | "rounds", max: number): number => {
  const raw = parsed.values[name]
  if (raw === undefined) return defaultOptions[name]
  const n = Number(raw)
  return Number.isFinite(n) && n > 0 && n <= max ? n : fail(`--${name} must be a number from >0 to ${max}, not ${JSON.stringify(raw)}`)
}
const fastPaths = parsed.values["fast-paths"] ?? defaultOptions.fastPaths
const options: BenchOptions = {
  duration: positive("duration", 600),
  warmup: positive("warmup", 600),
  connections: Math.round(positive("connections", 1024)),
  rounds: Math.round(positive("rounds", 100)),
  fastPaths: fastPaths === "on" || fastPaths === "off" || fastPaths === "both"
    ? fastPaths
    : fail(`--fast-paths must be on, off or both, not ${JSON.stringify(fastPaths)}`)
}

const selected = parsed.positionals.length === 0
  ? benchmarks
  : parsed.positionals.map((name) => benchmarks.find((b) => b.name === name) ?? fail(`no benchmark named '${name}'`))

const formatValue = (m: Metric) => (m.unit === "" ? m.value.toFixed(2) : `${m.value.toFixed(0)} ${m.unit}`)

let ok = true
const report: Record<string, ReadonlyArray<Metric> | { error: string }> = {}
for (const benchmark of selected) {
  console.error(`== ${benchmark.name}: ${benchmark.description}`)
  try {
    const metrics = await benchmark.run(options, (line) => console.error(`   ${line}`))
    report[benchmark.name] = metrics
    for (const metric of metrics) {
      const target = metric.target === undefined
        ? ""
        : `  (target ${metric.target.at === "least" ? "≥" : "≤"} ${metric.target.value}: ${
          (metric.target.at === "least" ? metric.value >= metric.target.value : metric.value <= metric.target.value) ? "met" : "missed"
        })`
      const verdict = metric.min === undefined ? target : metric.value >= metric.min ? `  (floor ≥ ${metric.min}: met)${target}` : `  (floor ≥ ${metric.min}: MISSED)${target}`
      if (metric.min !== undefined && metric.value < metric.min) ok = false
      if (!parsed.values.json) console.log(`${benchmark.name}: ${metric.name} ${formatValue(metric)}${verdict}`)
    }
  } catch (error) {
    ok = false
    report[benchmark.name] = { error: String((error as Error).message ?? error) }
    console.error(`bench: ${benchmark.name} failed: ${(error as Error).message ?? error}`)
  }
}
if (parsed.values.json) console.log(JSON.stringify({ options, results: report }, null, 2))
process.exitCode = ok ? 0 : 1
