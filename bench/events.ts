/**
 * Event fan-out: N clients (1,000 and 10,000), each long-polling a queue of
 * its own over its own loopback connection, and one change that reaches all
 * of them.
 *
 * - teamchat (bench/events-server.ts: the standalone server, `Server.start`,
 *   on the memory backend with the demo organization): the queues belong to
 *   the nine non-guest people of the demo organization in turn, each
 *   registered with `event_types=["realm_user"]`; once every poll waits
 *   (the server is idle and no poll has answered) iago renames himself with
 *   PATCH /settings, a `realm_user` event for everyone.
 * - bare node:http, the baseline: N GETs held open, then one POST /release
 *   answers all of them with the bytes teamchat sent for that event.
 *
 * Time: from sending the change (or the release) until the last client has
 * read its whole answer; clients send their next poll only once the round
 * is over, so both servers only answer. After 5 unmeasured rounds (the
 * JIT), the median of `--rounds` (at least 3) rounds. The measured rounds
 * alternate between the two servers (both running, each with its N
 * clients connected) when this process may hold both sets of sockets
 * (`ulimit -n` at least 2N + 500); otherwise, as for 10,000 clients under a
 * limit of 20,000, each server's rounds run in a block of their own.
 *
 * Memory, measured first on a fresh process so that RSS growth is not hidden
 * by earlier peaks: after full collections, with N clients waiting minus
 * with no client connected, divided by N. For teamchat that is a registered
 * queue with its waiting poll and its connection, for the bare server a
 * pending response with its connection. Heap+external counts what is
 * retained; RSS also moves with the allocator and is reported beside it.
 *
 * Targets: the last client within 3x the bare release and, for 1,000
 * clients, within 150 ms; memory per waiting queue (heap+external) within
 * 2x the bare server's per pending response. The harness knows floors
 * only, so each "within" target is a ratio that must reach a floor
 * (bare / teamchat ≥ 0.33 for the release, ≥ 0.5 for memory;
 * 150 ms / teamchat ≥ 1).
 *
 * `EVENTS_CLIENTS=1000,10000` (the default) chooses the sizes;
 * `EVENTS_DATABASE=pglite` serves teamchat from embedded PGlite instead of
 * memory (figures named "PGlite, …", reported without the targets, which
 * are the memory backend's);
 * `EVENTS_SERVER_FLAGS` adds Node flags to the server processes (e.g.
 * `--cpu-prof`, with `EVENTS_IDLE_CPU_MS=30`); `EVENTS_HEAP_SNAPSHOT=<path>`
 * writes heap snapshots with no client connected (`<path>.<server>.<N>.idle`,
 * just before the baseline is measured: a first snapshot frees memory, which
 * would otherwise be missing from the figures) and with every client waiting
 * (`<path>.<server>.<N>`); object ids match across the two, so what a
 * waiting client keeps is what the second has and the first has not.
 * Each process holds one socket per client: 10,000 clients need over 10,000
 * file descriptors in the benchmark and in the server (`ulimit -n`).
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import * as http from "node:http"
import { performance } from "node:perf_hooks"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"

const serverScript = fileURLToPath(new URL("./events-server.ts", import.meta.url))

/** The people whose queues the clients poll (guests may not see iago). */
const people = [
  "desdemona@zulip.com",
  "iago@zulip.com",
  "ZOE@zulip.com",
  "othello@zulip.com",
  "prospero@zulip.com",
  "cordelia@zulip.com",
  "hamlet@zulip.com",
  "AARON@zulip.com",
  "shiva@zulip.com"
]

const batchSize = 500
const roundTimeoutMs = 30_000

// -----------------------------------------------------------------------------
// server processes

interface Memory {
  readonly rss: number
  readonly heapUsed: number
  readonly external: number
}

interface Child {
  readonly url: string
  readonly command: (name: "idle" | "memory" | `snapshot ${string}`) => Promise<Record<string, unknown>>
  readonly stop: () => Promise<void>
}

const startChild = (kind: "teamchat" | "bare", input: unknown): Promise<Child> =>
  new Promise((resolve, reject) => {
    const flags = (process.env.EVENTS_SERVER_FLAGS ?? "").split(" ").filter((f) => f !== "")
    const child = spawn(process.execPath, ["--expose-gc", ...flags, serverScript, kind], { stdio: ["pipe", "pipe", "inherit"] })
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    const lines = createInterface({ input: child.stdout! })
    const waiting: Array<(line: string) => void> = []
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${kind} server did not start within 60 s`))
    }, 60_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${kind} server exited with code ${code}`))
    })
    let ready = false
    lines.on("line", (line) => {
      if (!ready) {
        ready = true
        clearTimeout(timer)
        const { url } = JSON.parse(line) as { url: string }
        resolve({
          url,
          command: (name) =>
            new Promise((answer) => {
              waiting.push((reply) => answer(JSON.parse(reply) as Record<string, unknown>))
              child.stdin!.write(`${name}\n`)
            }),
          stop: () => {
            child.stdin!.end()
            child.kill("SIGTERM")
            return exited
          }
        })
        return
      }
      waiting.shift()?.(line)
    })
    child.stdin!.write(`${JSON.stringify(input)}\n`)
  })

const memoryOf = async (child: Child): Promise<Memory> => {
  const m = await child.command("memory")
  return { rss: Number(m.rss), heapUsed: Number(m.heapUsed), external: Number(m.external) }
}

const settle = async (child: Child) => {
  const { idle } = await child.command("idle")
  if (idle !== true) throw new Error("the server did not become idle within 30 s")
}

// -----------------------------------------------------------------------------
// clients

interface Answer {
  readonly status: number
  readonly body: string
  readonly at: number
}

const request = (
  agent: http.Agent,
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string
): { readonly sent: Promise<void>; readonly answer: Promise<Answer> } => {
  const url = new URL(path, base)
  if (url.hostname !== "127.0.0.1") throw new Error(`loopback only, not ${base}`)
  let written!: () => void
  const sent = new Promise<void>((resolve) => (written = resolve))
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = http.request({ agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), at: performance.now() }))
      res.on("error", reject)
    })
    req.on("finish", () => written())
    req.on("error", (error) => {
      written()
      reject(error)
    })
    req.end(body)
  })
  return { sent, answer }
}

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

/** Sends one request per client in batches (so the listen backlog never overflows); resolves when all are written. */
const openAll = async <A>(count: number, open: (i: number) => { readonly sent: Promise<void>; readonly value: A }) => {
  const values: Array<A> = []
  for (let start = 0; start < count; start += batchSize) {
    const batch = Array.from({ length: Math.min(batchSize, count - start) }, (_, j) => open(start + j))
    await Promise.all(batch.map((b) => b.sent))
    values.push(...batch.map((b) => b.value))
  }
  return values
}

const withTimeout = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)
    promise.then((a) => {
      clearTimeout(timer)
      resolve(a)
    }, (e) => {
      clearTimeout(timer)
      reject(e)
    })
  })

const makeAgent = () => new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 20_000 })

// -----------------------------------------------------------------------------
// the two servers

interface Run {
  /** Milliseconds until the last client had its answer, per measured round. */
  readonly lastMs: ReadonlyArray<number>
  /** Bytes per waiting client: RSS and heap+external deltas over N. */
  readonly perClient: { readonly rss: number; readonly heap: number }
}

const warmupRounds = 5

const json = (text: string) => JSON.parse(text) as Record<string, any>

/** Logs in the demo people; returns their Authorization headers. */
const login = async (base: string) => {
  const headers = new Map<string, string>()
  for (const email of people) {
    const reply = await fetch(`${base}/api/v1/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: email }) })
    const grant = await reply.json() as { api_key: string }
    headers.set(email, basic(email, grant.api_key))
  }
  return headers
}

/** What a benchmark needs from a server: open a client's poll, and make the change that answers them all. */
interface Target {
  readonly server: Child
  /** Sends client i's poll on `agent`. */
  readonly poll: (agent: http.Agent, i: number) => { readonly sent: Promise<void>; readonly answer: Promise<Answer> }
  /** Sends the change; resolves when its own answer is in. */
  readonly change: (agent: http.Agent) => { readonly answer: Promise<Answer> }
  /** Checks client i's answer to the last change (and notes what it acknowledges). */
  readonly check: (i: number, answer: Answer) => void
  /** Clients that exist (teamchat: registered queues). */
  readonly prepare: (count: number) => Promise<void>
}

/**
 * Every client polls (on `agent`), the server settles, the change goes out:
 * milliseconds from sending it until the last client has its whole answer.
 */
const fanOut = async (target: Target, agent: http.Agent, count: number) => {
  const polls = await openAll(count, (i) => {
    const r = target.poll(agent, i)
    return { sent: r.sent, value: r.answer }
  })
  let early = 0
  for (const p of polls) p.then(() => early++, () => early++)
  await settle(target.server)
  if (early > 0) throw new Error(`${early} polls were answered before the change (heartbeat or error)`)
  const started = performance.now()
  const change = target.change(makeAgent())
  const answers = await withTimeout(Promise.all(polls), roundTimeoutMs, "the fan-out")
  const done = await change.answer
  if (done.status !== 200) throw new Error(`the change was answered ${done.status}: ${done.body}`)
  let last = 0
  answers.forEach((a, i) => {
    target.check(i, a)
    last = Math.max(last, a.at)
  })
  return last - started
}

/**
 * Memory first, on a fresh process (so RSS growth is not hidden by earlier
 * peaks): after a small warm-up with no client connected (baseline), and
 * with N clients waiting on connections of their own. Then warm-up rounds
 * and measured rounds of the fan-out with the same N clients.
 */
const prepare = async (name: string, target: Target, n: number, log: (line: string) => void): Promise<Prepared> => {
  const warm = Math.min(n, 50)
  await target.prepare(warm)
  let agent = makeAgent()
  await fanOut(target, agent, warm)
  await fanOut(target, agent, warm)
  agent.destroy()
  await settle(target.server)
  const snapshot = process.env.EVENTS_HEAP_SNAPSHOT
  if (snapshot !== undefined) {
    log(`${name}: heap snapshot ${(await target.server.command(`snapshot ${snapshot}.${name}.${n}.idle`)).file} (no client)`)
  }
  const before = await memoryOf(target.server)
  await target.prepare(n)
  agent = makeAgent()
  const polls = await openAll(n, (i) => {
    const r = target.poll(agent, i)
    return { sent: r.sent, value: r.answer }
  })
  await settle(target.server)
  const during = await memoryOf(target.server)
  if (snapshot !== undefined) {
    log(`${name}: heap snapshot ${(await target.server.command(`snapshot ${snapshot}.${name}.${n}`)).file}`)
  }
  const change = target.change(makeAgent())
  const answers = await withTimeout(Promise.all(polls), roundTimeoutMs, "the first fan-out")
  await change.answer
  answers.forEach((a, i) => target.check(i, a))
  const rss = during.rss - before.rss
  const heap = during.heapUsed + during.external - before.heapUsed - before.external
  log(`${name.padEnd(8)} ${n} waiting clients: RSS +${mib(rss)}, heap+external +${mib(heap)}`)

  for (let r = 1; r <= warmupRounds; r++) await fanOut(target, agent, n)
  return { name, target, agent, n, perClient: { rss: rss / n, heap: heap / n } }
}

/** A server after `prepare`: its N clients connected, ready for measured rounds. */
interface Prepared {
  readonly name: string
  readonly target: Target
  readonly agent: http.Agent
  readonly n: number
  readonly perClient: Run["perClient"]
}

/** One measured round of a prepared server: milliseconds until its last client had its answer. */
const round = async (server: Prepared, r: number, log: (line: string) => void) => {
  const ms = await fanOut(server.target, server.agent, server.n)
  log(`${server.name.padEnd(8)} round ${r}: the last of ${server.n} clients had its answer after ${ms.toFixed(1)} ms`)
  return ms
}

/** Memory, then `rounds` measured rounds, of one server on its own. */
const measure = async (name: string, target: Target, n: number, rounds: number, log: (line: string) => void): Promise<Run> => {
  const server = await prepare(name, target, n, log)
  const lastMs: Array<number> = []
  for (let r = 1; r <= rounds; r++) lastMs.push(await round(server, r, log))
  server.agent.destroy()
  return { lastMs, perClient: server.perClient }
}

// -----------------------------------------------------------------------------
// teamchat

interface Queue {
  readonly who: string
  readonly id: string
  last: number
}

const teamchatTarget = async (server: Child): Promise<Target & { readonly sample: () => string }> => {
  const auth = await login(server.url)
  const form = { "content-type": "application/x-www-form-urlencoded" }
  let queues: Array<Queue> = []
  let renames = 0
  let sample = ""
  const registerAll = async (count: number) => {
    const agent = makeAgent()
    const out: Array<Queue> = []
    try {
      for (let start = 0; start < count; start += 64) {
        out.push(
          ...await Promise.all(Array.from({ length: Math.min(64, count - start) }, async (_, j) => {
            const who = people[(start + j) % people.length]!
            const reply = await request(agent, server.url, "POST", "/api/v1/register", { ...form, authorization: auth.get(who)! },
              "event_types=%5B%22realm_user%22%5D&fetch_event_types=%5B%5D").answer
            if (reply.status !== 200) throw new Error(`register answered ${reply.status}: ${reply.body}`)
            return { who, id: json(reply.body).queue_id as string, last: -1 }
          }))
        )
      }
    } finally {
      agent.destroy()
    }
    return out
  }
  return {
    server,
    sample: () => sample,
    prepare: async (count) => {
      queues = await registerAll(count)
    },
    poll: (agent, i) => {
      const q = queues[i]!
      return request(agent, server.url, "GET", `/api/v1/events?queue_id=${q.id}&last_event_id=${q.last}`, {
        authorization: auth.get(q.who)!
      })
    },
    change: (agent) => {
      renames++
      return request(agent, server.url, "PATCH", "/api/v1/settings", { ...form, authorization: auth.get("iago@zulip.com")! },
        `full_name=${encodeURIComponent(`Iago ${renames}`)}`)
    },
    check: (i, a) => {
      const events = json(a.body).events as Array<Record<string, any>> | undefined
      const expected = `Iago ${renames}`
      if (a.status !== 200 || events?.some((e) => e.type === "realm_user" && e.person?.full_name === expected) !== true) {
        throw new Error(`client ${i} got ${a.status}: ${a.body.slice(0, 200)}`)
      }
      queues[i]!.last = Math.max(...events.map((e) => Number(e.id)))
      if (i === 0) sample = a.body
    }
  }
}

// -----------------------------------------------------------------------------
// bare node:http

const bareTarget = (server: Child): Target => ({
  server,
  prepare: async () => {},
  poll: (agent) => request(agent, server.url, "GET", "/api/v1/events", {}),
  change: (agent) => request(agent, server.url, "POST", "/release", {}),
  check: (i, a) => {
    if (a.status !== 200 || !Array.isArray(json(a.body).events)) throw new Error(`bare client ${i} got ${a.status}`)
  }
})

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

/** The soft limit on open files of this process (Linux), or undefined. */
const openFileLimit = (): number | undefined => {
  try {
    const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"))
    const soft = line?.split(/\s{2,}/)[1]
    return soft === undefined || soft === "unlimited" ? undefined : Number(soft)
  } catch {
    return undefined
  }
}

const sizes = (): ReadonlyArray<number> => {
  const raw = process.env.EVENTS_CLIENTS ?? "1000,10000"
  const parsed = raw.split(",").map((s) => Number(s.trim()))
  if (parsed.some((n) => !Number.isInteger(n) || n < 1 || n > 15_000)) {
    throw new Error(`EVENTS_CLIENTS must list client counts from 1 to 15000, not ${JSON.stringify(raw)}`)
  }
  return parsed
}

export const eventsBenchmark: Benchmark = {
  name: "events",
  description: "one change reaching N long-polling clients (1,000 and 10,000) vs bare node:http releasing N responses",
  run: async (options: BenchOptions, log) => {
    const metrics: Array<Metric> = []
    const rounds = Math.max(3, options.rounds)
    const pglite = process.env.EVENTS_DATABASE === "pglite"
    if (!pglite && process.env.EVENTS_DATABASE !== undefined && process.env.EVENTS_DATABASE !== "memory") {
      throw new Error(`EVENTS_DATABASE must be memory or pglite, not ${JSON.stringify(process.env.EVENTS_DATABASE)}`)
    }
    // The targets are the memory backend's: on PGlite the figures are reported alone.
    const named = (metric: Metric): Metric => {
      if (!pglite) return metric
      const { min: _min, ...rest } = metric
      return { ...rest, name: `PGlite, ${metric.name.replace(/ \(≥ [^)]*\)$/, "")}` }
    }
    const limit = openFileLimit()
    for (const n of sizes()) {
      if (limit !== undefined && limit < n + 500) {
        throw new Error(`${n} clients need about ${n + 500} open files per process; the limit is ${limit} (ulimit -n)`)
      }
      // Both servers' clients at once need twice the sockets in this process.
      const alternate = limit === undefined || limit >= 2 * n + 500
      log(`${n} clients: starting teamchat (${pglite ? "PGlite" : "memory backend"}, demo organization) …`)
      const teamchatServer = await startChild("teamchat", {})
      let teamchat: Run
      let bare: Run
      try {
        const target = await teamchatTarget(teamchatServer)
        if (alternate) {
          // Memory on each fresh process first, then the measured rounds in
          // turn (teamchat, bare, teamchat, …), so both see the same stretch
          // of a noisy machine, as the messages benchmark does.
          const t = await prepare("teamchat", target, n, log)
          const sample = target.sample()
          log(`${n} clients: starting the bare server, answering with teamchat's ${Buffer.byteLength(sample)}-byte body; rounds in turn …`)
          const bareServer = await startChild("bare", { body: Buffer.from(sample).toString("base64") })
          try {
            const b = await prepare("bare", bareTarget(bareServer), n, log)
            const [tMs, bMs]: [Array<number>, Array<number>] = [[], []]
            for (let r = 1; r <= rounds; r++) {
              tMs.push(await round(t, r, log))
              bMs.push(await round(b, r, log))
            }
            t.agent.destroy()
            b.agent.destroy()
            teamchat = { lastMs: tMs, perClient: t.perClient }
            bare = { lastMs: bMs, perClient: b.perClient }
          } finally {
            await bareServer.stop()
          }
        } else {
          log(`${n} clients: the open-file limit (${limit}) holds one server's clients at a time: each server's rounds in a block`)
          teamchat = await measure("teamchat", target, n, rounds, log)
          const sample = target.sample()
          await teamchatServer.stop()
          log(`${n} clients: starting the bare server, answering with teamchat's ${Buffer.byteLength(sample)}-byte body …`)
          const bareServer = await startChild("bare", { body: Buffer.from(sample).toString("base64") })
          try {
            bare = await measure("bare", bareTarget(bareServer), n, rounds, log)
          } finally {
            await bareServer.stop()
          }
        }
      } finally {
        await teamchatServer.stop()
      }
      const t = median(teamchat.lastMs)
      const b = median(bare.lastMs)
      metrics.push(
        { name: `${n} clients: last client has the event (teamchat, median of ${rounds})`, value: t, unit: "ms" },
        { name: `${n} clients: last client has the answer (bare node:http, median of ${rounds})`, value: b, unit: "ms" },
        { name: `${n} clients: release ratio bare/teamchat (≥ 0.33: within 3x)`, value: b / t, unit: "", min: 1 / 3 }
      )
      if (n <= 1000) {
        metrics.push({ name: `${n} clients: 150 ms / teamchat's last client (≥ 1: within 150 ms)`, value: 150 / t, unit: "", min: 1 })
      }
      metrics.push(
        { name: `${n} clients: heap+external per waiting queue (teamchat)`, value: teamchat.perClient.heap, unit: "bytes" },
        { name: `${n} clients: heap+external per pending response (bare)`, value: bare.perClient.heap, unit: "bytes" },
        {
          name: `${n} clients: memory ratio bare/teamchat, heap+external (≥ 0.5: within 2x)`,
          value: bare.perClient.heap / teamchat.perClient.heap,
          unit: "",
          min: 0.5
        },
        { name: `${n} clients: RSS per waiting queue (teamchat)`, value: teamchat.perClient.rss, unit: "bytes" },
        { name: `${n} clients: RSS per pending response (bare)`, value: bare.perClient.rss, unit: "bytes" }
      )
    }
    return metrics.map(named)
  }
}
