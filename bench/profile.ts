/**
 * `BENCH_CPU_PROFILE=<dir>`: a benchmark wraps its measured part in
 * `profiled(label, f)`, and a V8 CPU profile of just that part (not the
 * seeding or the warm-up) is written to `<dir>/<label>.cpuprofile`, for
 * bench/profile-summary.ts. Without the variable, `f` runs as is.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import * as path from "node:path"

export const profiled = async <A>(label: string, f: () => Promise<A>): Promise<A> => {
  const dir = process.env.BENCH_CPU_PROFILE
  if (dir === undefined || dir === "") return f()
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.setSamplingInterval", { interval: 100 })
  await session.post("Profiler.start")
  try {
    return await f()
  } finally {
    const { profile } = await session.post("Profiler.stop")
    session.disconnect()
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, `${label.replace(/[^A-Za-z0-9_-]+/g, "-")}.cpuprofile`), JSON.stringify(profile))
  }
}
