/**
 * CPU time from /proc (Linux): of any process, and of the PostgreSQL
 * backends serving one database, for the benchmarks that report
 * PostgreSQL's own CPU beside the server's. And the machine's load
 * averages, printed with every run (the machine is shared).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as PgClientLayer from "@teamchat/core/sql/PgClientLayer"

const ticksPerSecond = (() => {
  const out = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" })
  const n = Number(out.stdout?.trim())
  return Number.isFinite(n) && n > 0 ? n : 100
})()

/** CPU seconds (user + system) `pid` has used, or undefined when it is gone. */
export const cpuSecondsOf = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
  } catch {
    return undefined
  }
}

/** `load 1.23 0.98 0.75 (2 cores)`: the load averages now. */
export const machineLoad = (): string => {
  const [a, b, c] = os.loadavg()
  return `load ${a!.toFixed(2)} ${b!.toFixed(2)} ${c!.toFixed(2)} (${os.availableParallelism()} cores)`
}

export interface PostgresCpu {
  /** The CPU seconds each backend of `database` has used so far, by pid. */
  readonly sample: () => Promise<ReadonlyMap<number, number>>
  /** CPU seconds the backends used between two samples (a backend started in between counts whole). */
  readonly used: (before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>) => number
  readonly close: () => Promise<void>
}

/**
 * The backends of `database` on the server at `adminUrl`, found in
 * `pg_stat_activity`, their CPU read from /proc; undefined (with the
 * reason logged) when that server does not run on this machine.
 */
export const postgresCpu = async (adminUrl: string, database: string, log: (line: string) => void): Promise<PostgresCpu | undefined> => {
  const scope = Effect.runSync(Scope.make())
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  const client = await Effect.runPromise(Scope.provide(PgClientLayer.make(adminUrl, { maxConnections: 1 }), scope))
  const pids = () =>
    Effect.runPromise(client<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = ${database}`.pipe(Effect.orDie))
      .then((rows) => rows.map((r) => Number(r.pid)))
  // Our own backend (on the admin database) tells whether the server's processes are ours to read.
  const [own] = await Effect.runPromise(client<{ pid: number }>`SELECT pg_backend_pid() AS pid`.pipe(Effect.orDie))
  let comm = ""
  try {
    comm = fs.readFileSync(`/proc/${Number(own!.pid)}/comm`, "utf8").trim()
  } catch {
    // not on this machine
  }
  if (comm !== "postgres") {
    log(`PostgreSQL's CPU not measured: its backend ${own!.pid} is not a process of this machine`)
    await close()
    return undefined
  }
  const sample = async () => new Map((await pids()).map((pid) => [pid, cpuSecondsOf(pid) ?? 0] as const))
  const used = (before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>) => {
    let total = 0
    for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0)
    return total
  }
  return { sample, used, close }
}
