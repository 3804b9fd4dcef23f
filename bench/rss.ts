/**
 * Server memory at idle: the standalone server (`Server.start`, as
 * bench/servers.ts runs it) with the demo organization seeded, on PGlite (a
 * fresh data directory) and on PostgreSQL (a fresh database, dropped
 * afterwards), each in its own process; after it is ready and has answered
 * one GET /users/me, it sits idle for 3 s and its resident set (VmRSS of
 * /proc/<pid>/status) is read. Beside them in the same run: the same server
 * on the memory backend and a bare node:http process (the floor any Node
 * server pays).
 *
 * The PostgreSQL figure is the Node process only: the database server's own
 * processes are not in it, while PGlite's database lives inside the process
 * (that is the point of the comparison). Target: report; PGlite ≤ 2x
 * PostgreSQL. Rounds (`--rounds`, default 5) start fresh processes; the
 * median and the spread are reported. Linux only (/proc).
 */
import * as Effect from "effect/Effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { randomUUID } from "node:crypto"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { startServer } from "./harness.ts"
import { describeSpread, postgresAdminUrl, spread } from "./stats.ts"

const idleMs = 3000

const rssOf = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status)
  if (match === null) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1]) * 1024
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Starts the server, makes one authenticated request, waits, reads its RSS. */
const idleRss = async (database: unknown): Promise<number> => {
  const server = await startServer("teamchat", { database })
  try {
    const grant = await fetch(`${server.url}/api/v1/dev_fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username: "iago@zulip.com" })
    }).then((r) => r.json() as Promise<{ api_key: string }>)
    const me = await fetch(`${server.url}/api/v1/users/me`, {
      headers: { authorization: `Basic ${Buffer.from(`iago@zulip.com:${grant.api_key}`).toString("base64")}` }
    })
    if (me.status !== 200) throw new Error(`GET /users/me answered ${me.status}`)
    await me.arrayBuffer()
    await sleep(idleMs)
    return rssOf(server.info.pid as number)
  } finally {
    await server.stop()
  }
}

const bareRss = async (): Promise<number> => {
  const server = await startServer("constant", { status: 200, headers: {}, body: "" })
  try {
    await (await fetch(server.url)).arrayBuffer()
    await sleep(idleMs)
    return rssOf(server.info.pid as number)
  } finally {
    await server.stop()
  }
}

const mb = (bytes: number) => bytes / (1024 * 1024)

export const rssBenchmark: Benchmark = {
  name: "rss",
  description: "server RSS at idle with the demo organization: PGlite vs PostgreSQL (beside memory and bare node:http)",
  run: async (options: BenchOptions, log) => {
    const admin = await postgresAdminUrl()
    if ("skip" in admin) log(admin.skip)
    const rounds: Array<{ pglite: number; postgres?: number; memory: number; bare: number }> = []
    for (let round = 1; round <= options.rounds; round++) {
      const dataDir = mkdtempSync(path.join(tmpdir(), "teamchat-rss-"))
      let pglite: number
      try {
        pglite = await idleRss({ _tag: "Pglite", dataDir })
      } finally {
        rmSync(dataDir, { recursive: true, force: true })
      }
      let postgres: number | undefined
      if ("url" in admin) {
        const name = `teamchat_bench_rss_${process.pid}_${randomUUID().replaceAll("-", "").slice(0, 12)}`
        await Effect.runPromise(TestDatabase.createDatabase(admin.url, name))
        try {
          postgres = await idleRss({ _tag: "Postgres", url: TestDatabase.databaseUrl(admin.url, name) })
        } finally {
          await Effect.runPromise(TestDatabase.dropDatabase(admin.url, name))
        }
      }
      const memory = await idleRss({ _tag: "Memory" })
      const bare = await bareRss()
      rounds.push({ pglite, memory, bare, ...(postgres === undefined ? {} : { postgres }) })
      log(
        `round ${round}: PGlite ${mb(pglite).toFixed(0)} MB, PostgreSQL ${postgres === undefined ? "-" : mb(postgres).toFixed(0)} MB, ` +
          `memory ${mb(memory).toFixed(0)} MB, bare node:http ${mb(bare).toFixed(0)} MB`
      )
    }
    const of = (f: (r: (typeof rounds)[number]) => number) => spread(rounds.map(f))
    const out: Array<Metric> = []
    const report = (name: string, s: ReturnType<typeof spread>, unit: string, digits = 0) => {
      log(`${name}: ${describeSpread(s, digits)}${unit === "" ? "" : ` ${unit}`}`)
      out.push({ name, value: s.median, unit })
    }
    report("RSS at idle, PGlite (MB)", of((r) => mb(r.pglite)), "MB")
    if ("url" in admin) {
      report("RSS at idle, PostgreSQL (Node process only, MB)", of((r) => mb(r.postgres!)), "MB")
      report("ratio PGlite/PostgreSQL (target ≤ 2)", of((r) => r.pglite / r.postgres!), "", 2)
    }
    report("RSS at idle, memory backend (MB)", of((r) => mb(r.memory)), "MB")
    report("RSS at idle, bare node:http (MB)", of((r) => mb(r.bare)), "MB")
    return out
  }
}
