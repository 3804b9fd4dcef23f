/**
 * The load test (`bash scripts/bench.sh load`, `--quick` for a smoke run):
 * simulated users that each behave like a Zulip client against the real
 * `teamchat serve` binary, ramped up until the server no longer holds them.
 *
 * Each simulated user registers an event queue (POST /register), holds a
 * long poll on GET /events (re-polled as soon as it answers, heartbeat
 * included), pings POST /users/me/presence every minute, and at the rates of
 * Zulip's published request mix (docs/subsystems/performance.md in Zulip's
 * repository: presence 36 % of requests, GET /events 44 %, GET /messages
 * 3 %, POST /messages/flags 1.5 %, POST /messages 0.5 %; with one presence
 * ping a minute that is 1 GET /messages per 12 minutes, 1 flags update per
 * 24 minutes and 1 sent message per 72 minutes per user) reads GET /messages
 * with a narrow (a conversation, all direct messages, a channel), marks
 * messages read and sends a direct message to another simulated user.
 *
 * Time is compressed: every interval but the server's own heartbeat is
 * divided by K, so one simulated user makes the requests of K users and is
 * reported as K users. A step holds when, over its measured window, every
 * request type's p99 is at most 250 ms (and so is the p99 of event delivery:
 * from the send to the recipient's poll answering with it), no answer is a
 * 5xx, and no event is lost (each direct message sent reaches its
 * recipient's queue within the drain time). The ramp stops at the first step
 * that does not hold, or at the time limit.
 *
 * Compared, in one run: PGlite with one process, PostgreSQL with one worker
 * and with two (a fresh database each, from BENCH_DATABASE_URL or
 * TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test);
 * with `--ceiling`, first a node:http server answering every request at
 * once with constant bytes (what the generator itself can drive). For each
 * step, from /proc: CPU (percent of one core) and RSS of every server
 * process, of the generator (this process: the simulated clients run here,
 * nothing else does during a step) and, on PostgreSQL, the CPU of the
 * database's backends (when PostgreSQL runs on this machine); the
 * generator's and PostgreSQL's CPU per request beside them. The machine's
 * load averages are printed with each step (the machine may be shared).
 * Default plan: steps of 500, 1,000, 2,000, 4,000 and 8,000 users, 20 s
 * measured each (`--step-seconds`), a target stops at its first step that
 * does not hold: a few minutes in all, most of it seeding the accounts
 * (once per backend: PGlite's data directory is copied for its target,
 * PostgreSQL's databases are created from a seeded template). Loopback
 * only; every loop is bounded by a count and a time limit.
 * `LOAD_CPU_PROF=<dir>` has every server process write a CPU profile there
 * (summarise one with `node bench/profile-summary.ts <file>`).
 */
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import { realmId } from "@teamchat/core/domain/Ids"
import { Transactor } from "@teamchat/core/ports/Transactor"
import { Users } from "@teamchat/core/services/Users"
import * as PgClientLayer from "@teamchat/core/sql/PgClientLayer"
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import type { Benchmark, Metric } from "./harness.ts"
import { startServer } from "./harness.ts"
import type { PostgresCpu } from "./proc.ts"
import { machineLoad, postgresCpu } from "./proc.ts"

const bin = fileURLToPath(new URL("../packages/http/src/bin.ts", import.meta.url))
const quick = process.argv.includes("--quick")
const ceiling = process.argv.includes("--ceiling")

/** The plan: simulated users per step (each counts as K users), seconds per step, the compression. */
/** `--step-seconds S`: a shorter (or longer) measured window per step of the full ramp, 5 to 300 s (default 20). */
const stepSeconds = (() => {
  const at = process.argv.indexOf("--step-seconds")
  if (at < 0) return undefined
  const value = Number(process.argv[at + 1])
  if (!Number.isFinite(value) || value < 5 || value > 300) {
    console.error(`bench: --step-seconds must be a number from 5 to 300, not ${JSON.stringify(process.argv[at + 1])}`)
    process.exit(2)
  }
  return value
})()
const plan = quick
  ? { steps: [10, 20], rampSeconds: 3, measureSeconds: 8, drainSeconds: 6, k: 30, limitSeconds: 90 }
  : {
    steps: [50, 100, 200, 400, 800],
    rampSeconds: Math.min(15, Math.ceil((stepSeconds ?? 20) / 3)),
    measureSeconds: stepSeconds ?? 20,
    drainSeconds: 5,
    k: 10,
    limitSeconds: 600
  }
const accountsNeeded = plan.steps.at(-1)!
const p99Ceiling = 250
/** The seeded organization's URL; requests carry its host. */
const organizationUrl = "http://localhost:9991"
const organizationHost = new URL(organizationUrl).host
/** Requests per user per minute, from Zulip's mix with one presence ping a minute. */
const perMinute = { presence: 1, getMessages: 1 / 12, flags: 1 / 24, send: 1 / 72 }
/** At most this many requests per target, whatever the plan. */
const requestCap = 5_000_000

interface Account {
  readonly id: number
  readonly email: string
  readonly key: string
}

// -----------------------------------------------------------------------------
// accounts, seeded before the server starts
// -----------------------------------------------------------------------------

const seedAccounts = (layer: Layer.Layer<Teamchat.Services, unknown>, count: number) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(layer)
    return yield* Effect.gen(function*() {
      yield* DemoOrganization.seed(organizationUrl)
      const users = yield* Users
      const tx = yield* Transactor
      const accounts: Array<Account> = []
      // A hundred accounts per transaction: fewer commits (and PGlite file syncs).
      for (let from = 0; from < count; from += 100) {
        yield* tx.withTransaction(Effect.gen(function*() {
          for (let i = from; i < Math.min(count, from + 100); i++) {
            const user = yield* users.create(realmId(1), { email: `load${i}@zulip.com`, full_name: `Load ${i}`, role: 400 })
            accounts.push({ id: user.id, email: user.delivery_email, key: user.api_key })
          }
        }))
      }
      return accounts
    }).pipe(Effect.provideContext(context))
  })) as Effect.Effect<Array<Account>>)

/** `CREATE DATABASE name TEMPLATE template` on the server at `adminUrl`. */
const copyDatabase = (adminUrl: string, template: string, name: string) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(
    PgClientLayer.make(adminUrl, { maxConnections: 1 }),
    (sql) => sql`CREATE DATABASE ${sql(name)} TEMPLATE ${sql(template)}`.unprepared
  )) as Effect.Effect<unknown>)

// -----------------------------------------------------------------------------
// processes
// -----------------------------------------------------------------------------

interface Target {
  readonly name: string
  readonly url: string
  /** The server's processes: [label, pid]. */
  readonly processes: () => ReadonlyArray<readonly [string, number]>
  readonly bare: boolean
  /** The database's backends, on PostgreSQL on this machine. */
  readonly postgres?: PostgresCpu | undefined
  readonly stop: () => Promise<void>
}

const serve = (name: string, args: ReadonlyArray<string>, env: Record<string, string>): Promise<Target> =>
  new Promise((resolve, reject) => {
    // LOAD_CPU_PROF=<dir>: every server process (workers too) writes a CPU profile there at exit.
    const profile = process.env.LOAD_CPU_PROF === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${process.env.LOAD_CPU_PROF}`]
    const child = spawn(process.execPath, [...profile, bin, "serve", "--port", "0", ...args], {
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${name} did not start within 120 s: ${output}`))
    }, 120_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with code ${code}: ${output}`))
    })
    const onData = (data: string) => {
      output += data
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      const clustered = /workers \(pids ([\d, ]+)\)/.exec(output)
      if (listening === null || (args.includes("--workers") && args[args.indexOf("--workers") + 1] !== "1" && clustered === null)) return
      clearTimeout(timer)
      const workers = clustered === null ? [] : clustered[1]!.split(", ").map(Number)
      resolve({
        name,
        url: listening[1]!,
        bare: false,
        processes: () =>
          workers.length === 0
            ? [["server", child.pid!]]
            : [["primary", child.pid!], ...workers.map((pid, i) => [`worker ${i + 1}`, pid] as const)],
        stop: () => {
          child.kill("SIGTERM")
          return exited
        }
      })
    }
    child.stdout.setEncoding("utf8").on("data", onData)
    child.stderr.setEncoding("utf8").on("data", onData)
  })

/** CPU seconds (user + system) and RSS bytes of `pid`, from /proc. */
const sample = (pid: number): { cpu: number; rss: number } => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const cpu = (Number(fields[11]) + Number(fields[12])) / 100
    const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024
    return { cpu, rss }
  } catch {
    return { cpu: 0, rss: 0 }
  }
}

// -----------------------------------------------------------------------------
// the simulated clients
// -----------------------------------------------------------------------------

type Kind = "register" | "presence" | "getMessages" | "flags" | "send" | "events" | "delivery"
const measuredKinds: ReadonlyArray<Kind> = ["presence", "getMessages", "flags", "send", "delivery"]

class Stats {
  latencies = new Map<Kind, Array<number>>()
  fiveHundreds = 0
  errors = 0
  requests = 0
  record(kind: Kind, ms: number) {
    let list = this.latencies.get(kind)
    if (list === undefined) this.latencies.set(kind, list = [])
    list.push(ms)
  }
  p99(kind: Kind): number {
    const list = [...(this.latencies.get(kind) ?? [])].sort((a, b) => a - b)
    return list.length === 0 ? 0 : list[Math.min(list.length - 1, Math.floor(list.length * 0.99))]!
  }
  count(kind: Kind) {
    return this.latencies.get(kind)?.length ?? 0
  }
}

interface Reply {
  readonly status: number
  readonly json: any
}

class Load {
  stats = new Stats()
  running = true
  /** Sent direct messages not yet seen by their recipient: message id → [recipient, sent at]. */
  pending = new Map<number, { recipient: number; at: number }>()
  lost = 0
  /** Over the whole ramp: a client that could not register never took part. */
  failedRegistrations = 0
  readonly agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
  readonly timers = new Set<ReturnType<typeof setTimeout>>()

  readonly target: Target
  readonly accounts: ReadonlyArray<Account>
  readonly deadline: number
  constructor(target: Target, accounts: ReadonlyArray<Account>, deadline: number) {
    this.target = target
    this.accounts = accounts
    this.deadline = deadline
  }

  request(account: Account, method: string, route: string, form?: Record<string, string>): Promise<Reply> {
    return new Promise((resolve) => {
      if (++this.stats.requests > requestCap) this.running = false
      const body = form === undefined ? undefined : new URLSearchParams(form).toString()
      const url = new URL(route, this.target.url)
      const headers: Record<string, string | number> = {
        // The organization is found by its host; the connection still goes to 127.0.0.1.
        host: organizationHost,
        authorization: `Basic ${Buffer.from(`${account.email}:${account.key}`).toString("base64")}`
      }
      if (body !== undefined) {
        headers["content-type"] = "application/x-www-form-urlencoded"
        headers["content-length"] = Buffer.byteLength(body)
      }
      const req = http.request({ agent: this.agent, host: "127.0.0.1", port: url.port, path: url.pathname + url.search, method, headers }, (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk) => (text += chunk))
        response.on("end", () => {
          if (response.statusCode! >= 500) this.stats.fiveHundreds++
          let json: any
          try {
            json = JSON.parse(text)
          } catch {
            json = undefined
          }
          resolve({ status: response.statusCode!, json })
        })
      })
      // Long polls answer within a minute; anything longer is a hang.
      req.setTimeout(90_000, () => req.destroy(new Error("timeout")))
      req.on("error", () => {
        this.stats.errors++
        resolve({ status: 0, json: undefined })
      })
      req.end(body)
    })
  }

  async timed(kind: Kind, account: Account, method: string, route: string, form?: Record<string, string>) {
    const started = performance.now()
    const reply = await this.request(account, method, route, form)
    if (reply.status !== 0) this.stats.record(kind, performance.now() - started)
    return reply
  }

  live() {
    return this.running && performance.now() < this.deadline
  }

  /** Calls `f` after about `ms` (exponential when `poisson`), again and again while live. */
  every(ms: number, poisson: boolean, f: () => Promise<unknown>, first = Math.random() * ms) {
    const next = (delay: number) => {
      if (!this.live()) return
      const timer = setTimeout(() => {
        this.timers.delete(timer)
        void f().finally(() => next(poisson ? -Math.log(1 - Math.random()) * ms : ms))
      }, delay)
      this.timers.add(timer)
    }
    next(first)
  }

  async client(index: number) {
    const account = this.accounts[index]!
    const k = plan.k
    const minute = 60_000 / k
    const register = await this.timed("register", account, "POST", "/api/v1/register", {
      event_types: JSON.stringify(["message"])
    })
    if (register.status !== 200 && !this.target.bare) {
      this.failedRegistrations++
      return
    }
    let queue = String(register.json?.queue_id ?? "bare")
    let last = Number(register.json?.last_event_id ?? -1)
    const seen: Array<number> = []
    const poll = async () => {
      // Bounded: a poll a minute at most for the whole run, plus quick answers.
      for (let polls = 0; this.live() && polls < 1_000_000; polls++) {
        const reply = await this.request(account, "GET", `/api/v1/events?queue_id=${encodeURIComponent(queue)}&last_event_id=${last}`)
        if (!this.live()) return
        if (this.target.bare) {
          // The bare server answers at once: wait as a heartbeat would.
          await new Promise((done) => setTimeout(done, 50_000))
          continue
        }
        if (reply.status === 200) {
          for (const event of reply.json.events as Array<any>) {
            last = Math.max(last, Number(event.id))
            if (event.type !== "message") continue
            const id = Number(event.message.id)
            seen.push(id)
            if (seen.length > 20) seen.shift()
            const pending = this.pending.get(id)
            if (pending !== undefined && pending.recipient === account.id) {
              this.pending.delete(id)
              this.stats.record("delivery", performance.now() - pending.at)
            } else if (pending === undefined) {
              this.delivered.add(id)
            }
          }
        } else if (reply.status === 400 && reply.json?.code === "BAD_EVENT_QUEUE_ID") {
          const again = await this.request(account, "POST", "/api/v1/register", { event_types: JSON.stringify(["message"]) })
          if (again.status !== 200) return
          queue = String(again.json.queue_id)
          last = Number(again.json.last_event_id)
        } else {
          await new Promise((done) => setTimeout(done, 1000))
        }
      }
    }
    void poll()
    const narrows = [
      () => [{ operator: "dm", operand: [this.accounts[(index + 1) % this.accounts.length]!.id] }],
      () => [{ operator: "is", operand: "dm" }],
      () => [{ operator: "channel", operand: "Verona" }]
    ]
    this.every(minute / perMinute.presence, false, () =>
      this.timed("presence", account, "POST", "/api/v1/users/me/presence", { status: "active", new_user_input: "true" }))
    this.every(minute / perMinute.getMessages, true, () =>
      this.timed("getMessages", account, "GET", `/api/v1/messages?${new URLSearchParams({
        anchor: "newest",
        num_before: "20",
        num_after: "0",
        narrow: JSON.stringify(narrows[Math.floor(Math.random() * narrows.length)]!())
      })}`))
    this.every(minute / perMinute.flags, true, async () => {
      if (seen.length === 0) return
      await this.timed("flags", account, "POST", "/api/v1/messages/flags", {
        messages: JSON.stringify(seen.splice(0, seen.length)),
        op: "add",
        flag: "read"
      })
    })
    this.every(minute / perMinute.send, true, async () => {
      const active = this.activeClients
      const other = this.accounts[(index + 1 + Math.floor(Math.random() * (active - 1))) % active]!
      const at = performance.now()
      const reply = await this.timed("send", account, "POST", "/api/v1/messages", {
        type: "direct",
        to: JSON.stringify([other.id]),
        content: `load test message from ${index}`
      })
      if (reply.status === 200 && !this.target.bare && other.id !== account.id) {
        const id = Number(reply.json.id)
        // The event may have come before the answer.
        if (!this.delivered.has(id)) this.pending.set(id, { recipient: other.id, at })
      }
    })
  }

  activeClients = 0
  readonly delivered = new Set<number>()

  stop() {
    this.running = false
    for (const timer of this.timers) clearTimeout(timer)
    this.agent.destroy()
  }
}

// -----------------------------------------------------------------------------
// one target, ramped
// -----------------------------------------------------------------------------

interface StepResult {
  readonly clients: number
  readonly users: number
  readonly held: boolean
  readonly p99: Readonly<Record<string, number>>
  readonly counts: Readonly<Record<string, number>>
  readonly fiveHundreds: number
  readonly errors: number
  readonly lost: number
  readonly cpu: ReadonlyArray<readonly [string, number, number]>
  /** Percent of one core, over the window. */
  readonly postgresCpu: number | undefined
  readonly generatorCpu: number
  /** µs per request sent in the window. */
  readonly postgresPerRequest: number | undefined
  readonly generatorPerRequest: number
  readonly requests: number
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

const ramp = async (target: Target, accounts: ReadonlyArray<Account>, log: (line: string) => void) => {
  const deadline = performance.now() + plan.limitSeconds * 1000
  const load = new Load(target, accounts, deadline)
  const results: Array<StepResult> = []
  try {
    for (const clients of plan.steps) {
      if (performance.now() + (plan.rampSeconds + plan.measureSeconds + plan.drainSeconds) * 1000 > deadline) {
        log(`${target.name}: time limit reached before ${clients * plan.k} users`)
        break
      }
      const from = load.activeClients
      load.activeClients = clients
      for (let i = from; i < clients; i++) {
        void load.client(i)
        await sleep((plan.rampSeconds * 1000) / Math.max(1, clients - from))
      }
      // Measure a window of steady load.
      load.stats = new Stats()
      load.pending.clear()
      const processes = [...target.processes(), ["generator", process.pid] as const]
      const load0 = machineLoad()
      const pgBefore = await target.postgres?.sample()
      const before = processes.map(([, pid]) => sample(pid))
      const started = performance.now()
      await sleep(plan.measureSeconds * 1000)
      const seconds = (performance.now() - started) / 1000
      const after = processes.map(([, pid]) => sample(pid))
      const pgAfter = await target.postgres?.sample()
      const stats = load.stats
      // Messages sent in the window have the drain time to arrive.
      const waiting = new Map(load.pending)
      const drainUntil = performance.now() + plan.drainSeconds * 1000
      while (performance.now() < drainUntil && [...waiting.keys()].some((id) => load.pending.has(id))) await sleep(200)
      const lost = target.bare ? 0 : [...waiting.keys()].filter((id) => load.pending.has(id)).length
      const p99 = Object.fromEntries(measuredKinds.map((kind) => [kind, Math.round(stats.p99(kind))]))
      const counts = Object.fromEntries([...measuredKinds, "register" as const].map((kind) => [kind, stats.count(kind)]))
      // Nothing measured holds nothing.
      const held = measuredKinds.every((kind) => stats.p99(kind) <= p99Ceiling) && stats.fiveHundreds === 0 && lost === 0 &&
        stats.errors === 0 && load.failedRegistrations === 0 && stats.count("presence") > 0
      const cpu = processes.map(([label], i) =>
        [label, Math.round(((after[i]!.cpu - before[i]!.cpu) / seconds) * 100), Math.round(after[i]!.rss / 1_048_576)] as const
      )
      const requests = Math.max(1, stats.requests)
      const generatorSeconds = after.at(-1)!.cpu - before.at(-1)!.cpu
      const postgresSeconds = target.postgres === undefined ? undefined : target.postgres.used(pgBefore!, pgAfter!)
      const result: StepResult = {
        clients,
        users: clients * plan.k,
        held,
        p99,
        counts,
        fiveHundreds: stats.fiveHundreds,
        errors: stats.errors,
        lost,
        cpu,
        postgresCpu: postgresSeconds === undefined ? undefined : Math.round((postgresSeconds / seconds) * 100),
        generatorCpu: Math.round((generatorSeconds / seconds) * 100),
        postgresPerRequest: postgresSeconds === undefined ? undefined : (postgresSeconds * 1e6) / requests,
        generatorPerRequest: (generatorSeconds * 1e6) / requests,
        requests: stats.requests
      }
      results.push(result)
      log(
        `${target.name}: ${result.users} users (${clients} simulated × ${plan.k}) ${held ? "held" : "NOT held"}; ` +
          `p99 ms ${Object.entries(p99).map(([k, v]) => `${k} ${v}`).join(", ")}; ` +
          `requests ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", ")}; ` +
          `5xx ${stats.fiveHundreds}, errors ${stats.errors}, failed registrations ${load.failedRegistrations}, lost events ${lost}; ` +
          `CPU % / RSS MiB ${cpu.map(([label, c, r]) => `${label} ${c}/${r}`).join(", ")}` +
          (result.postgresCpu === undefined ? "" : `, PostgreSQL ${result.postgresCpu}% (${result.postgresPerRequest!.toFixed(0)} µs/request)`) +
          `; generator ${result.generatorPerRequest.toFixed(0)} µs/request over ${stats.requests} requests; at the start ${load0}`
      )
      if (!held) break
    }
  } finally {
    load.stop()
  }
  return results
}

// -----------------------------------------------------------------------------
// the benchmark
// -----------------------------------------------------------------------------

const bareBody = JSON.stringify({ result: "success", msg: "", queue_id: "bare", last_event_id: -1, events: [], id: 1, messages: [] })

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? TestDatabase.defaultAdminUrl

export const zulipLoadBenchmark: Benchmark = {
  name: "load",
  description: "Simulated Zulip clients (register, long poll, presence, Zulip's request mix) ramped until p99 > 250 ms: " +
    "PGlite, PostgreSQL 1 and 2 workers, with PostgreSQL's and the generator's CPU (--quick: a short smoke run; " +
    "--ceiling: first the generator against constant answers)",
  run: async (_options, log) => {
    const cores = os.availableParallelism()
    log(
      `time compressed ${plan.k}×: each simulated user makes the requests of ${plan.k} users (intervals ÷ ${plan.k}; ` +
        `long polls keep the server's real heartbeat) and counts as ${plan.k} users${quick ? "; --quick smoke run" : ""}; ${machineLoad()}`
    )
    const held: Array<Metric> = []
    const summary: Array<string> = []
    const best = (results: ReadonlyArray<StepResult>) => results.filter((r) => r.held).at(-1)
    const report = (name: string, results: ReadonlyArray<StepResult>) => {
      const top = best(results)
      const users = top?.users ?? 0
      const atTop = top !== undefined && top === results.at(-1) && top.clients === plan.steps.at(-1)
      summary.push(
        `${name}: ${atTop ? "at least " : ""}${users} users held${atTop ? " (the plan's last step)" : ""}` +
          (top === undefined
            ? ""
            : ` (there: CPU % / RSS MiB ${top.cpu.map(([label, c, r]) => `${label} ${c}/${r}`).join(", ")}` +
              (top.postgresCpu === undefined ? "" : `, PostgreSQL ${top.postgresCpu}% = ${top.postgresPerRequest!.toFixed(0)} µs/request`) +
              `; generator ${top.generatorPerRequest.toFixed(0)} µs/request)`)
      )
      held.push({ name: `${name}: users held`, value: users, unit: "users" })
      if (top !== undefined) {
        held.push({ name: `${name}: generator CPU at the held step`, value: top.generatorCpu, unit: "% of a core" })
        held.push({ name: `${name}: generator CPU per request`, value: top.generatorPerRequest, unit: "µs" })
        if (top.postgresCpu !== undefined) {
          held.push({ name: `${name}: PostgreSQL CPU at the held step`, value: top.postgresCpu, unit: "% of a core" })
          held.push({ name: `${name}: PostgreSQL CPU per request`, value: top.postgresPerRequest!, unit: "µs" })
        }
      }
      return users
    }

    if (ceiling) {
      // What the generator and node:http manage with nothing behind them: the generator's own ceiling.
      const constant = await startServer("constant", {
        status: 200,
        headers: { "content-type": "application/json" },
        body: Buffer.from(bareBody).toString("base64")
      })
      const constantTarget: Target = { name: "constant answers", url: constant.url, bare: true, processes: () => [], stop: constant.stop }
      const fakeAccounts = Array.from({ length: accountsNeeded }, (_, i) => ({ id: i + 1, email: `bare${i}@zulip.com`, key: "x" }))
      try {
        report("constant answers (the generator's ceiling)", await ramp(constantTarget, fakeAccounts, log))
      } finally {
        await constant.stop()
      }
    }

    // Seeded once per backend, lazily, and copied for each target.
    const cleanups: Array<() => Promise<void>> = []
    let pgliteSeed: { dir: string; accounts: ReadonlyArray<Account> } | undefined
    const seededPglite = async () => {
      if (pgliteSeed !== undefined) return pgliteSeed
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-load-seed-"))
      cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }))
      const started = performance.now()
      const accounts = await seedAccounts(
        Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgliteClient.layer({ dataDir: path.join(dir, "pgdata") }))),
        accountsNeeded
      )
      log(`PGlite: seeded the demo organization and ${accountsNeeded} users in ${((performance.now() - started) / 1000).toFixed(0)} s`)
      return pgliteSeed = { dir, accounts }
    }
    const template = `teamchat_load_${process.pid}_seed`
    let postgresSeed: ReadonlyArray<Account> | undefined
    const seededPostgres = async () => {
      if (postgresSeed !== undefined) return postgresSeed
      await Effect.runPromise(TestDatabase.createDatabase(adminUrl, template) as Effect.Effect<void>)
      cleanups.push(() => Effect.runPromise(TestDatabase.dropDatabase(adminUrl, template) as Effect.Effect<void>))
      const started = performance.now()
      postgresSeed = await seedAccounts(
        Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgClientLayer.layer(TestDatabase.databaseUrl(adminUrl, template)))),
        accountsNeeded
      )
      log(`PostgreSQL: seeded the demo organization and ${accountsNeeded} users in ${((performance.now() - started) / 1000).toFixed(0)} s`)
      return postgresSeed
    }

    const configs: Array<{ name: string; open: () => Promise<{ target: Target; accounts: ReadonlyArray<Account>; close: () => Promise<void> }> }> = [
      {
        name: "PGlite, 1 process",
        open: async () => {
          const seed = await seededPglite()
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-load-"))
          fs.cpSync(seed.dir, dir, { recursive: true })
          const target = await serve("PGlite, 1 process", ["--data-dir", dir, "--workers", "1"], {})
          return { target, accounts: seed.accounts, close: async () => fs.rmSync(dir, { recursive: true, force: true }) }
        }
      },
      ...[1, 2].map((workers) => ({
        name: `PostgreSQL, ${workers} worker${workers === 1 ? "" : "s"}`,
        open: async () => {
          const accounts = await seededPostgres()
          const name = `teamchat_load_${process.pid}_${workers}`
          await copyDatabase(adminUrl, template, name)
          const url = TestDatabase.databaseUrl(adminUrl, name)
          const served = await serve(`PostgreSQL, ${workers} worker${workers === 1 ? "" : "s"}`, ["--database-url", url, "--workers", String(workers)], {})
          const postgres = await postgresCpu(adminUrl, name, log)
          return {
            target: { ...served, postgres },
            accounts,
            close: async () => {
              await postgres?.close()
              await Effect.runPromise(TestDatabase.dropDatabase(adminUrl, name) as Effect.Effect<void>)
            }
          }
        }
      }))
    ]
    try {
      for (const config of configs) {
        const opened = await config.open()
        try {
          report(config.name, await ramp(opened.target, opened.accounts, log))
        } finally {
          await opened.target.stop()
          await opened.close()
        }
      }
    } finally {
      for (const cleanup of cleanups) await cleanup()
    }
    for (const line of summary) log(line)
    log(
      "published figures: Zulip ~5,000 active users per event-server (Tornado) process; " +
        "Mattermost 217 users per 2-vCPU app node"
    )
    log(`this machine: ${cores} cores; ramp ${plan.steps.map((s) => s * plan.k).join(", ")} users, ${plan.measureSeconds} s measured per step`)
    return held
  }
}
