/**
 * Several server processes on one PostgreSQL database (a fresh one per test,
 * from TEST_DATABASE_URL), as real processes of the `teamchat` binary: two
 * separate servers, so that which process serves a request is forced, and
 * one `serve --workers 2` cluster. An event queue registered through one is
 * polled through the other; the 21st request of a 20-request limit is
 * refused whichever process takes it, with the rate limits in PostgreSQL and
 * in Redis (TEST_REDIS_URL, default redis://127.0.0.1:6379); a killed worker
 * is replaced and loses no event. The cluster logs JSON lines, each request's
 * line naming the worker that answered it: both workers answer, and the
 * replacement of a killed worker answers under its slot's number. And the
 * refusals: more than one worker on PGlite, an unreachable Redis.
 *
 * Waits have ceilings that only guard against hangs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

const settings = [
  "PORT", "HOST", "DATABASE_URL", "DATA_DIR", "DEMO", "EXTERNAL_URL", "WORKERS", "RATE_LIMIT_REQUESTS",
  "RATE_LIMIT_WINDOW_SECONDS", "RATE_LIMIT_STORE", "REDIS_URL", "REDIS_KEY_PREFIX", "LOG_LEVEL",
  "LOG_FORMAT", "DATABASE_POOL_SIZE", "DATABASE_POOL_TIMEOUT_SECONDS"
]
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !settings.includes(key)))

/** A running `teamchat serve`: its URL and everything it printed so far. */
interface Running {
  readonly url: string
  readonly pid: number
  readonly output: () => string
  /** Resolves when `pattern` appears in the output (ceiling: 90 s). */
  readonly waitFor: (pattern: RegExp) => Effect.Effect<RegExpExecArray>
  /** Resolves when `test` holds of the output (ceiling: 90 s). */
  readonly waitUntil: <A>(test: (output: string) => A | undefined) => Effect.Effect<A>
  /** SIGTERM, then the exit code. */
  readonly stop: Effect.Effect<number | null>
}

/** `teamchat serve …` until its listening line; stopped with the scope. */
const serve = (args: ReadonlyArray<string>, env: Record<string, string>): Effect.Effect<Running, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<Running>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], {
          cwd: repoRoot,
          env: { ...baseEnv, LOG_LEVEL: "warn", ...env },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let output = ""
        const watchers = new Set<() => void>()
        const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
        const onData = (data: string) => {
          output += data
          for (const watcher of watchers) watcher()
        }
        child.stdout.setEncoding("utf8").on("data", onData)
        child.stderr.setEncoding("utf8").on("data", onData)
        const waitUntil = <A>(test: (output: string) => A | undefined, what = "the awaited output") =>
          Effect.promise(() =>
            new Promise<A>((found, fail) => {
              const check = () => {
                const match = test(output)
                if (match === undefined) return
                watchers.delete(check)
                clearTimeout(ceiling)
                found(match)
              }
              const ceiling = setTimeout(() => fail(new Error(`no ${what} in: ${output}`)), 90_000)
              watchers.add(check)
              check()
            })
          )
        const waitFor = (pattern: RegExp) => waitUntil((text) => pattern.exec(text) ?? undefined, String(pattern))
        const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/
        const ceiling = setTimeout(() => reject(new Error(`not listening: ${output}`)), 90_000)
        const check = () => {
          const match = listening.exec(output)
          if (match === null) return
          watchers.delete(check)
          clearTimeout(ceiling)
          resolve({
            url: match[1]!,
            pid: child.pid!,
            output: () => output,
            waitFor,
            waitUntil,
            stop: Effect.promise(() => {
              if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
              return exited
            })
          })
        }
        watchers.add(check)
        child.on("exit", () => {
          clearTimeout(ceiling)
          if (!listening.test(output)) reject(new Error(`exited before listening: ${output}`))
        })
      })
    ),
    (running) => Effect.asVoid(running.stop)
  )

interface Reply {
  readonly status: number
  readonly json: any
  readonly remaining: string | undefined
}

/** One request on a connection of its own (so a cluster's workers take turns). */
const request = (
  base: string,
  method: string,
  route: string,
  options: { readonly as?: { email: string; key: string }; readonly form?: Record<string, string> } = {}
) =>
  Effect.promise(() =>
    new Promise<Reply>((resolve, reject) => {
      const body = options.form === undefined ? undefined : new URLSearchParams(options.form).toString()
      const headers: Record<string, string | number> = { connection: "close" }
      if (options.as !== undefined) {
        headers.authorization = `Basic ${Buffer.from(`${options.as.email}:${options.as.key}`).toString("base64")}`
      }
      if (body !== undefined) {
        headers["content-type"] = "application/x-www-form-urlencoded"
        headers["content-length"] = Buffer.byteLength(body)
      }
      const req = http.request(`${base}${route}`, { method, headers, agent: false }, (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk) => (text += chunk))
        response.on("end", () =>
          resolve({
            status: response.statusCode!,
            json: text === "" ? undefined : JSON.parse(text),
            remaining: response.headers["x-ratelimit-remaining"] as string | undefined
          }))
      })
      req.setTimeout(90_000, () => req.destroy(new Error(`${method} ${route}: no answer`)))
      req.on("error", reject)
      req.end(body)
    })
  )

const login = (base: string, email: string) =>
  Effect.map(request(base, "POST", "/api/v1/dev_fetch_api_key", { form: { username: email } }), (reply) => {
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.json))
    return { email, key: String(reply.json.api_key), id: Number(reply.json.user_id) }
  })

const hamlet = "hamlet@zulip.com"
const iago = "iago@zulip.com"
const othello = "othello@zulip.com"

/** The JSON log lines of the requests answered so far, in the order written. */
const requestLines = (output: string): Array<{ readonly worker?: unknown; readonly annotations: any }> =>
  output.split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.message === "request")

/** The workers that answered the requests after the first `from`, once `count` requests have been logged. */
const answeredBy = (running: Running, from: number, count: number) =>
  running.waitUntil((output) => {
    const lines = requestLines(output)
    return lines.length >= count ? lines.slice(from).map((line) => line.worker) : undefined
  })

/** A fresh PostgreSQL database for the test. */
const freshDatabase = Effect.map(Layer.build(TestDatabase.postgresLayer()), (context) => Context.get(context, TestDatabase.TestDatabase).url)

/** Sends a direct message to `to` through `base`; its id. */
const sendTo = (base: string, as: { email: string; key: string }, to: number, content: string) =>
  Effect.map(
    request(base, "POST", "/api/v1/messages", { as, form: { type: "direct", to: JSON.stringify([to]), content } }),
    (reply) => {
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.json))
      return Number(reply.json.id)
    }
  )

/** The message events of `queue` after `lastEventId`, through `base`. */
const messageEvents = (base: string, as: { email: string; key: string }, queue: string, lastEventId: number) =>
  Effect.map(
    request(base, "GET", `/api/v1/events?queue_id=${encodeURIComponent(queue)}&last_event_id=${lastEventId}`, { as }),
    (reply) => {
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.json))
      return (reply.json.events as Array<any>).filter((event) => event.type === "message")
    }
  )

/** The 21st request of a 20-request limit is refused, the requests alternating between `bases`. */
const twentyFirstRefused = (bases: ReadonlyArray<string>, as: { email: string; key: string }) =>
  Effect.gen(function*() {
    const replies: Array<Reply> = []
    for (let i = 0; i < 21; i++) replies.push(yield* request(bases[i % bases.length]!, "GET", "/api/v1/users/me", { as }))
    assert.deepStrictEqual(
      replies.slice(0, 20).map((r) => [r.status, r.remaining]),
      Array.from({ length: 20 }, (_, i) => [200, String(19 - i)])
    )
    const over = replies[20]!
    assert.strictEqual(over.status, 429)
    assert.strictEqual(over.remaining, "0")
    assert.deepStrictEqual(Object.keys(over.json).sort(), ["code", "msg", "result", "retry-after"])
    assert.deepStrictEqual([over.json.result, over.json.msg, over.json.code], ["error", "API usage exceeded rate limit", "RATE_LIMIT_HIT"])
    assert.isAbove(over.json["retry-after"], 0)
    assert.isAtMost(over.json["retry-after"], 60)
  })

describe("two server processes on one PostgreSQL database", () => {
  for (const store of ["postgres", "redis"] as const) {
    it.live(`a queue registered through one is polled through the other; 20 requests per minute in ${store}`, () =>
      Effect.scoped(Effect.gen(function*() {
        const url = yield* freshDatabase
        const env = {
          DATABASE_URL: url,
          RATE_LIMIT_REQUESTS: "20",
          RATE_LIMIT_STORE: store,
          ...(store === "redis" ? { REDIS_URL: redisUrl } : {})
        }
        // One after the other: the first migrates and seeds.
        const a = yield* serve(["--demo", "--workers", "1"], env)
        const b = yield* serve(["--demo", "--workers", "1"], env)
        assert.include(b.output(), "demo organization 'Zulip Dev' already present")
        assert.include(
          a.output(),
          `(PostgreSQL at ${url}, demo organization, 1 worker, rate limits in ${store === "redis" ? `Redis at ${redisUrl}` : "PostgreSQL"})`
        )
        const asHamlet = yield* login(a.url, hamlet)
        const asIago = yield* login(b.url, iago)
        const registered = yield* request(a.url, "POST", "/api/v1/register", {
          as: asHamlet,
          form: { event_types: JSON.stringify(["message"]) }
        })
        assert.strictEqual(registered.status, 200)
        const queue = String(registered.json.queue_id)
        const id = yield* sendTo(b.url, asIago, asHamlet.id, `through B, ${store}`)
        const events = yield* messageEvents(b.url, asHamlet, queue, registered.json.last_event_id)
        assert.deepStrictEqual(events.map((e) => [e.message.id, e.message.content]), [[id, `through B, ${store}`]])
        // The same queue through A: the event is there too until acknowledged.
        assert.deepStrictEqual((yield* messageEvents(a.url, asHamlet, queue, registered.json.last_event_id)).map((e) => e.message.id), [id])
        // Othello's requests alternate between the processes: one count.
        yield* twentyFirstRefused([a.url, b.url], yield* login(a.url, othello))
        assert.strictEqual(yield* b.stop, 0, b.output())
        assert.strictEqual(yield* a.stop, 0, a.output())
      })), { timeout: 300_000 })
  }
})

describe("teamchat serve --workers 2 on PostgreSQL", () => {
  it.live("any worker serves any request; a killed worker is replaced and no event is lost; SIGTERM drains both", () =>
    Effect.scoped(Effect.gen(function*() {
      const url = yield* freshDatabase
      const cluster = yield* serve(["--demo", "--workers", "2"], {
        DATABASE_URL: url,
        RATE_LIMIT_REQUESTS: "20",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json"
      })
      assert.include(cluster.output(), `(PostgreSQL at ${url}, demo organization, 2 workers, rate limits in PostgreSQL)`)
      const [, first, second] = yield* cluster.waitFor(/2 workers \(pids (\d+), (\d+)\)/)
      const pids = [Number(first), Number(second)]
      assert.notInclude(pids, cluster.pid)
      // Seeded once, by the primary.
      assert.strictEqual(cluster.output().split("seeding demo organization").length, 2)
      const asHamlet = yield* login(cluster.url, hamlet)
      const asIago = yield* login(cluster.url, iago)
      const registered = yield* request(cluster.url, "POST", "/api/v1/register", {
        as: asHamlet,
        form: { event_types: JSON.stringify(["message"]) }
      })
      const queue = String(registered.json.queue_id)
      const lastEventId = Number(registered.json.last_event_id)
      // Each request on a new connection: the workers take turns.
      yield* twentyFirstRefused([cluster.url], yield* login(cluster.url, othello))
      // 3 logins, a registration and 21 requests, each answered by worker 1 or 2, and both answered.
      const before = yield* answeredBy(cluster, 0, 25)
      for (const worker of before) assert.oneOf<unknown>(worker, [1, 2])
      assert.deepStrictEqual(new Set(before), new Set([1, 2]))

      process.kill(pids[0]!, "SIGKILL")
      yield* cluster.waitFor(new RegExp(`worker 1 \\(pid ${pids[0]}\\) exited \\(signal SIGKILL\\); starting another`))
      // Served by the surviving worker meanwhile, or the new one.
      const sent = yield* sendTo(cluster.url, asIago, asHamlet.id, "after the kill")
      const [, replacement] = yield* cluster.waitFor(/worker 1 is serving again \(pid (\d+)\)/)
      // The replacement answers as worker 1, as the primary calls it: requests until one is not
      // answered by worker 2 (the workers take turns, so the second one at the latest).
      // The 25 requests above and the message sent after the kill have been logged.
      const logged = 26
      const after: Array<unknown> = []
      while (!after.some((worker) => worker !== 2) && after.length < 20) {
        const reply = yield* request(cluster.url, "GET", "/api/v1/users/me", { as: asIago })
        assert.strictEqual(reply.status, 200, JSON.stringify(reply.json))
        after.push((yield* answeredBy(cluster, logged + after.length, logged + after.length + 1))[0])
      }
      assert.deepStrictEqual(new Set(after), new Set([1, 2]), JSON.stringify(after))
      // Polled through both workers (two connections in turn): the event is there for each.
      for (let i = 0; i < 2; i++) {
        assert.deepStrictEqual((yield* messageEvents(cluster.url, asHamlet, queue, lastEventId)).map((e) => e.message.id), [sent])
      }
      assert.strictEqual(yield* cluster.stop, 0, cluster.output())
      // LOG_FORMAT=json: every line is JSON, the primary's too; its last ones (no worker) tell the stop.
      const entries = cluster.output().trimEnd().split("\n").map((line) => JSON.parse(line))
      const primary = entries.filter((entry) => entry.worker === undefined).map((entry) => entry.message)
      assert.deepStrictEqual(primary.slice(-3), ["stopping 2 workers…", "all workers stopped", "stopped"])
      assert.include(primary, "2 workers (pids " + pids.join(", ") + "); a worker that dies is replaced")
      // Every worker is gone with the primary.
      for (const pid of [pids[1]!, Number(replacement)]) assert.throws(() => process.kill(pid, 0))
    })), { timeout: 300_000 })
})

/** `teamchat serve …` expected to refuse: its exit code, stdout and stderr. */
const refused = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.promise(() =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [bin, "serve", "--port", "0", ...args], {
        cwd: repoRoot,
        env: { ...baseEnv, ...env },
        timeout: 60_000
      }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
    })
  )

describe("what several workers and the shared store refuse", () => {
  it.live("PGlite refuses --workers 2; an unreachable REDIS_URL is one line", () =>
    Effect.gen(function*() {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-workers-"))
      const pglite = yield* refused(["--workers", "2", "--data-dir", dataDir], {})
      assert.deepStrictEqual(pglite, {
        code: 2,
        stdout: "",
        stderr: "teamchat: invalid --workers \"2\": expected 1 with the embedded PGlite database, which allows one process; " +
          "set DATABASE_URL=postgres://… for more\n"
      })
      // Nothing was opened.
      assert.deepStrictEqual(fs.readdirSync(dataDir), [])
      fs.rmSync(dataDir, { recursive: true, force: true })
      const redis = yield* refused(["--database-url", "memory://"], { REDIS_URL: "redis://127.0.0.1:1" })
      assert.deepStrictEqual(redis, {
        code: 1,
        stdout: "teamchat: opening in-memory database… ready\n",
        stderr: "teamchat: cannot reach Redis at redis://127.0.0.1:1 (connection refused); start it or fix REDIS_URL\n"
      })
    }), { timeout: 120_000 })
})
