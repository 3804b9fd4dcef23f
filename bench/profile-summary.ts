/**
 * Summarises a V8 CPU profile (`node --cpu-prof` writes `*.cpuprofile`):
 * the functions with the most self time and the most inclusive time (time
 * with everything they called, each function counted once per stack so
 * recursion does not inflate it), as shares of the sampled time.
 *
 *   node bench/profile-summary.ts <file.cpuprofile> [--top N] [--filter TEXT]
 *
 * `--filter` keeps only functions whose name or file contains TEXT.
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" }, filter: { type: "string" } }
})
if (positionals.length !== 1) {
  console.error("usage: node bench/profile-summary.ts <file.cpuprofile> [--top N] [--filter TEXT]")
  process.exit(2)
}
const profile = JSON.parse(readFileSync(positionals[0]!, "utf8")) as Profile
const top = Number(values.top)

const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)

const short = (url: string) => url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, "").replace(/^.*\/packages\//, "packages/")
const key = (frame: CallFrame) => `${frame.functionName || "(anonymous)"} ${short(frame.url)}:${frame.lineNumber + 1}`

const selfTime = new Map<string, number>()
const inclusive = new Map<string, number>()
let total = 0
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0
  total += dt
  const leaf = byId.get(profile.samples[i]!)!
  selfTime.set(key(leaf.callFrame), (selfTime.get(key(leaf.callFrame)) ?? 0) + dt)
  const seen = new Set<string>()
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const k = key(byId.get(id)!.callFrame)
    if (seen.has(k)) continue
    seen.add(k)
    inclusive.set(k, (inclusive.get(k) ?? 0) + dt)
  }
}

const keep = (k: string) => values.filter === undefined || k.includes(values.filter)
const print = (title: string, table: Map<string, number>) => {
  console.log(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)`)
  const rows = [...table].filter(([k]) => keep(k)).sort((a, b) => b[1] - a[1]).slice(0, top)
  for (const [k, t] of rows) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`)
}
print("self time", selfTime)
print("inclusive time", inclusive)
