/**
 * Memory over repeated load (`bash scripts/bench.sh soak`): is the growth of
 * a server's memory between load cycles a leak, or caches filling up to
 * their bounds?
 *
 * One teamchat server on PostgreSQL (a fresh database, dropped afterwards;
 * the PGlite one with `BENCH_BACKENDS=pglite`), in its own process started
 * with `--expose-gc`, the demo organization. `--rounds` cycles (default 5)
 * of `--duration` seconds of mixed load each, then 2 s of idle; before the
 * first cycle and after each, the server reports its resident set and heap
 * in use as they are (what a process monitor sees at idle, garbage
 * included), then collects its garbage (two full collections,
 * bench/servers.ts `memory`) and reports its resident set, the JavaScript
 * heap (reserved and in use) and the memory held outside it (`external`:
 * Buffers, the database driver's sockets). The mix, all at once:
 *
 * - wrk, 2 connections each, as Iago: GET /users/me, POST /messages to a
 *   channel (every text new), GET /messages narrowed to that channel and
 *   topic;
 * - this process, 2 loops over every demo user in turn: POST /register,
 *   GET /events (`dont_block`), POST /users/me/presence, DELETE /events
 *   (each queue is deleted, so what queues hold is not mistaken for a leak);
 *   every answer must be a success.
 *
 * Reported: each cycle's figures (MB) and the growth per cycle over the
 * second half of the run (after the caches had a cycle to fill): a leak
 * grows at a steady rate there, caches at their bounds do not.
 * docs/memory.md has a run's curve and the bounds of every cache.
 */
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as TestDatabase from "../packages/core/src/testing/TestDatabase.ts"
import type { Benchmark, Metric } from "./harness.ts"
import { selectedBackends, startServer } from "./harness.ts"
import { postgresAdminUrl } from "./stats.ts"
import { assertClean, ensureWrk, wrk } from "./wrk.ts"
import type { WrkRequest } from "./wrk.ts"

interface Memory {
  readonly rss: number
  readonly heapTotal: number
  readonly heapUsed: number
  readonly external: number
  /** RSS and heap used at idle before the collection: what a process monitor sees. */
  readonly idleRss: number
  readonly idleHeapUsed: number
  /** The machine's 1-minute load average when the figures were read (the machine may be shared). */
  readonly load: number
}

const mb = (bytes: number) => bytes / (1024 * 1024)
const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const topic = "soak"

/** One request, its answer required to be a Zulip success. */
const call = async (url: string, authorization: string, method: string, route: string, form?: Record<string, string>) => {
  const query = method === "GET" || method === "DELETE"
  const target = `${url}/api/v1${route}${query && form !== undefined ? `?${new URLSearchParams(form)}` : ""}`
  const response = await fetch(target, {
    method,
    headers: { authorization },
    ...(query || form === undefined ? {} : { body: new URLSearchParams(form) })
  })
  const text = await response.text()
  if (response.status !== 200 || !text.includes("\"result\":\"success\"")) {
    throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 200)}`)
  }
  return JSON.parse(text) as Record<string, any>
}

const soakOn = async (
  label: string,
  database: unknown,
  cycles: number,
  seconds: number,
  log: (line: string) => void
): Promise<Array<Memory>> => {
  const server = await startServer("teamchat", { database }, ["--expose-gc"])
  try {
    const memory = async (): Promise<Memory> => {
      const idle = await server.ask("memory-now") as NodeJS.MemoryUsage
      const m = await server.ask("memory") as NodeJS.MemoryUsage
      return {
        rss: m.rss,
        heapTotal: m.heapTotal,
        heapUsed: m.heapUsed,
        external: m.external,
        idleRss: idle.rss,
        idleHeapUsed: idle.heapUsed,
        load: os.loadavg()[0]!
      }
    }
    const key = async (email: string) =>
      basic(
        email,
        (await call(server.url, "", "POST", "/dev_fetch_api_key", { username: email })).api_key as string
      )
    const iago = await key("iago@zulip.com")
    const users = (await call(server.url, iago, "GET", "/users")).members as Array<{ email: string; delivery_email?: string | null; is_bot: boolean; is_active: boolean }>
    const people = await Promise.all(users.filter((u) => !u.is_bot && u.is_active).map((u) => key(u.delivery_email ?? u.email)))
    const channel = ((await call(server.url, iago, "GET", "/users/me/subscriptions")).subscriptions as Array<{ stream_id: number }>)[0]!
      .stream_id
    await call(server.url, iago, "POST", "/messages", { type: "stream", to: String(channel), topic, content: "first" })
    const requests: Record<string, WrkRequest> = {
      me: { method: "GET", path: "/api/v1/users/me", headers: { Authorization: iago } },
      send: {
        method: "POST",
        path: "/api/v1/messages",
        headers: { Authorization: iago, "Content-Type": "application/x-www-form-urlencoded" },
        body: `type=stream&to=${channel}&topic=${topic}&content=soak+{n}+with+**bold**+text`
      },
      read: {
        method: "GET",
        path: `/api/v1/messages?${
          new URLSearchParams({
            anchor: "newest",
            num_before: "20",
            num_after: "0",
            narrow: JSON.stringify([{ operator: "channel", operand: channel }, { operator: "topic", operand: topic }])
          })
        }`,
        headers: { Authorization: iago }
      }
    }
    const clientLoop = async (offset: number, until: number) => {
      let sessions = 0
      for (let i = offset; Date.now() < until; i += 2) {
        const auth = people[i % people.length]!
        const queue = await call(server.url, auth, "POST", "/register", { event_types: JSON.stringify(["message", "presence"]) })
        await call(server.url, auth, "GET", "/events", { queue_id: queue.queue_id, last_event_id: "-1", dont_block: "true" })
        await call(server.url, auth, "POST", "/users/me/presence", { status: "active", new_user_input: "true" })
        await call(server.url, auth, "DELETE", "/events", { queue_id: queue.queue_id })
        sessions++
      }
      return sessions
    }

    const curve: Array<Memory> = [await memory()]
    const show = (name: string, m: Memory) =>
      log(
        `${label} ${name}: at idle RSS ${mb(m.idleRss).toFixed(1)} MB, heap used ${mb(m.idleHeapUsed).toFixed(1)} MB; ` +
          `collected: RSS ${mb(m.rss).toFixed(1)} MB, heap ${mb(m.heapUsed).toFixed(1)} of ${mb(m.heapTotal).toFixed(1)} MB, ` +
          `external ${mb(m.external).toFixed(1)} MB (load ${m.load.toFixed(1)})`
      )
    show("before load", curve[0]!)
    for (let cycle = 1; cycle <= cycles; cycle++) {
      const until = Date.now() + seconds * 1000
      const [me, send, read, a, b] = await Promise.all([
        ...(["me", "send", "read"] as const).map((name) =>
          wrk({
            url: server.url,
            request: requests[name]!,
            check: { status: 200, contains: "\"result\":\"success\"" },
            connections: 2,
            seconds
          }).then((r) => (assertClean(`${label} cycle ${cycle} ${name}`, r), r))
        ),
        clientLoop(0, until),
        clientLoop(1, until)
      ])
      await sleep(2000)
      const m = await memory()
      curve.push(m)
      show(
        `cycle ${cycle}`,
        m
      )
      log(
        `${label} cycle ${cycle} load: ${(me as { requests: number }).requests} GET /users/me, ${(send as { requests: number }).requests} sends, ` +
          `${(read as { requests: number }).requests} narrowed reads, ${(a as number) + (b as number)} register/events/presence sessions`
      )
    }
    return curve
  } finally {
    await server.stop()
  }
}

/** Growth per cycle (bytes) over the second half of the curve: the least-squares slope. */
const slope = (values: ReadonlyArray<number>): number => {
  const tail = values.slice(Math.floor(values.length / 2))
  const n = tail.length
  if (n < 2) return 0
  const mx = (n - 1) / 2
  const my = tail.reduce((s, v) => s + v, 0) / n
  let num = 0
  let den = 0
  tail.forEach((v, i) => {
    num += (i - mx) * (v - my)
    den += (i - mx) ** 2
  })
  return num / den
}

export const soakBenchmark: Benchmark = {
  name: "soak",
  description: "server memory after each of --rounds cycles of mixed load (--duration s each), garbage collected: leak or caches",
  run: async (options, log) => {
    ensureWrk(log)
    const cycles = options.rounds
    const seconds = options.duration
    const out: Array<Metric> = []
    for (const backend of selectedBackends(["PostgreSQL", "PGlite"] as const)) {
      let curve: Array<Memory>
      if (backend === "PostgreSQL") {
        const admin = await postgresAdminUrl()
        if ("skip" in admin) {
          log(admin.skip)
          continue
        }
        const name = `teamchat_bench_soak_${process.pid}_${randomUUID().replaceAll("-", "").slice(0, 12)}`
        await Effect.runPromise(TestDatabase.createDatabase(admin.url, name))
        try {
          curve = await soakOn(backend, { _tag: "Postgres", url: TestDatabase.databaseUrl(admin.url, name) }, cycles, seconds, log)
        } finally {
          await Effect.runPromise(TestDatabase.dropDatabase(admin.url, name))
        }
      } else {
        // PGlite only when BENCH_BACKENDS names it: the question is PostgreSQL's.
        if (!(process.env.BENCH_BACKENDS ?? "").toLowerCase().includes("pglite")) continue
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-soak-"))
        try {
          curve = await soakOn(backend, { _tag: "Pglite", dataDir }, cycles, seconds, log)
        } finally {
          fs.rmSync(dataDir, { recursive: true, force: true })
        }
      }
      log(`${backend} curve (MB), cycle | idle RSS | idle heap used | collected: RSS | heap total | heap used | external | load`)
      curve.forEach((m, i) =>
        log(
          `| ${i === 0 ? "before" : i} | ${
            [m.idleRss, m.idleHeapUsed, m.rss, m.heapTotal, m.heapUsed, m.external].map((v) => mb(v).toFixed(1)).join(" | ")
          } | ${m.load.toFixed(1)} |`
        )
      )
      for (const [field, name] of [["rss", "RSS"], ["heapUsed", "heap used"], ["external", "external"]] as const) {
        out.push({ name: `${backend} ${name} after the last cycle (MB)`, value: mb(curve.at(-1)![field]), unit: "MB" })
        out.push({ name: `${backend} ${name} growth per cycle, second half (KB)`, value: slope(curve.map((m) => m[field])) / 1024, unit: "KB" })
      }
    }
    return out
  }
}
