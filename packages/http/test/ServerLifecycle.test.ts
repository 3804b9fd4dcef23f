/**
 * The standalone server of Server.ts, started for real on an ephemeral port:
 * PGlite in a temporary directory with the demo organization (seeded once,
 * kept across restarts), graceful shutdown when the scope closes (what
 * SIGTERM does under NodeRuntime.runMain), a taken port, and PostgreSQL via
 * a fresh database of TEST_DATABASE_URL.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as DemoData from "@teamchat/core/demo/DemoData"
import { EventQueuesConfig } from "@teamchat/core/services/events/EventQueues"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as HttpServer from "effect/http/HttpServer"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import type { ServerConfig } from "../src/Config.ts"
import * as Server from "../src/Server.ts"

const baseConfig: ServerConfig = {
  port: 0,
  host: "127.0.0.1",
  database: { _tag: "Pglite", dataDir: "" },
  demo: true,
  externalUrl: undefined,
  rateLimit: false,
  logLevel: "Warn",
  logFormat: "logfmt"
}

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-server-"))

/** Starts the server in `scope`; returns its base URL and everything it printed so far and later. */
const start = (
  config: ServerConfig,
  scope: Scope.Scope,
  options: Server.Options = {},
  queues: Partial<EventQueuesConfig> = {}
) =>
  Effect.gen(function*() {
    const printed: Array<string> = []
    const context = yield* Layer.buildWithScope(
      Server.layer(config, { ...options, secrets: Teamchat.layerSecretsTest, output: (text) => printed.push(text) }).pipe(
        Layer.provide(Layer.succeed(EventQueuesConfig, { ...EventQueuesConfig.defaultValue(), ...queues }))
      ),
      scope
    )
    const url = HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)
    return { url, printed }
  })

const getJson = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: await response.json() as Record<string, unknown> }
  })

const devFetchApiKey = (base: string, username: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/api/v1/dev_fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username })
    })
    const body = await response.json() as { api_key: string }
    return body.api_key
  })

/** Resolves with the error when nothing listens at `url` any more. */
const refused = (url: string) =>
  Effect.promise(() => fetch(url).then(() => "answered", (error: Error) => String((error.cause as Error | undefined)?.message ?? error)))

describe("Server on PGlite with the demo organization", () => {
  it.live("seeds an empty database once, serves it, shuts down cleanly and restarts on the same data", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const config: ServerConfig = { ...baseConfig, database: { _tag: "Pglite", dataDir } }

      // First run: empty directory, so the demo organization is seeded.
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const { printed, url } = yield* start(config, yield* Effect.scope)
        const port = new URL(url).port
        const settings = yield* getJson(`${url}/api/v1/server_settings`)
        assert.strictEqual(settings.status, 200)
        assert.strictEqual(settings.body.result, "success")
        assert.strictEqual(settings.body.realm_name, DemoData.realm.name)
        assert.strictEqual(settings.body.realm_url, `http://localhost:${port}`)
        assert.strictEqual(fs.readFileSync(path.join(dataDir, Server.lockFile), "utf8").trim(), String(process.pid))
        const key = yield* devFetchApiKey(url, "iago@zulip.com")
        assert.match(key, /^[A-Za-z0-9]{32}$/)
        return { printed, url, key }
      }))
      const output = first.printed.join("")
      assert.include(output, `teamchat: opening PGlite at ${dataDir}… ready\n`)
      assert.include(output, "teamchat: seeding demo organization 'Zulip Dev'… done (10 users, 6 bots, 7 channels)\n")
      assert.include(output, `teamchat listening on ${first.url} (PGlite at ${dataDir}, demo organization)\n`)
      assert.isTrue(output.endsWith("teamchat: shutting down…\n"))

      // Closed: nothing listens, the lock is gone, PGlite's files remain.
      assert.notStrictEqual(yield* refused(`${first.url}/api/v1/server_settings`), "answered")
      assert.isFalse(fs.existsSync(path.join(dataDir, Server.lockFile)))
      assert.isTrue(fs.existsSync(path.join(dataDir, Server.pgliteSubdirectory, "PG_VERSION")))

      // Second run on the same directory: the data is there and not seeded again.
      const second = yield* Effect.scoped(Effect.gen(function*() {
        const { printed, url } = yield* start(config, yield* Effect.scope)
        const settings = yield* getJson(`${url}/api/v1/server_settings`)
        assert.strictEqual(settings.body.realm_name, DemoData.realm.name)
        return { printed, key: yield* devFetchApiKey(url, "iago@zulip.com") }
      }))
      const again = second.printed.join("")
      assert.include(again, "teamchat: demo organization 'Zulip Dev' already present\n")
      assert.notInclude(again, "seeding")
      assert.strictEqual(second.key, first.key)
      fs.rmSync(dataDir, { recursive: true, force: true })
    }), { timeout: 120_000 })

  it.live("answers a waiting long poll at once with its heartbeat when shutting down", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const scope = yield* Scope.make()
      // Shutdown may wait for 10 minutes and a heartbeat comes after an hour:
      // only the shutdown's own answer to the poll ends it sooner.
      const { url } = yield* start({ ...baseConfig, database: { _tag: "Pglite", dataDir } }, scope, {
        gracefulShutdownTimeout: "10 minutes"
      }, { heartbeatMinMs: 3_600_000, heartbeatMaxMs: 3_600_000 })
      const key = yield* devFetchApiKey(url, "iago@zulip.com")
      const auth = { authorization: `Basic ${Buffer.from(`iago@zulip.com:${key}`).toString("base64")}` }
      const queue = yield* Effect.promise(async () => {
        const response = await fetch(`${url}/api/v1/register`, {
          method: "POST",
          headers: auth,
          body: new URLSearchParams({ event_types: "[\"alert_words\"]" })
        })
        return await response.json() as { queue_id: string; last_event_id: number }
      })
      const poll = () =>
        fetch(`${url}/api/v1/events?queue_id=${queue.queue_id}&last_event_id=${queue.last_event_id}`, {
          headers: auth
        }).then(async (response) => ({ status: response.status, body: await response.json() as Record<string, any> }))
      // Two polls of one queue: the later one to arrive answers the earlier
      // at once (superseded), so once one has answered the other is waiting.
      const polls = [poll(), poll()]
      const first = yield* Effect.promise(() => Promise.race(polls.map((p, i) => p.then(() => i))))
      const waiting = polls[1 - first]!
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      const answer = yield* Effect.promise(() => waiting)
      assert.strictEqual(answer.status, 200)
      assert.deepStrictEqual(answer.body.events.map((e: any) => e.type), ["heartbeat"])
      yield* Effect.timeoutOrElse(Fiber.join(closing), {
        duration: "60 seconds",
        orElse: () => Effect.die("shutdown did not finish")
      })
      fs.rmSync(dataDir, { recursive: true, force: true })
    }), { timeout: 120_000 })

  it.live("lets an in-flight request finish while shutting down", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const scope = yield* Scope.make()
      // Idle connections and shutdown may wait for 10 minutes: only the
      // server closing idle connections itself ends shutdown before the ceiling.
      const { printed, url } = yield* start({ ...baseConfig, database: { _tag: "Pglite", dataDir } }, scope, {
        keepAliveTimeout: "10 minutes",
        gracefulShutdownTimeout: "10 minutes"
      })

      // A request whose body is still arriving when shutdown begins.
      const body = "username=iago%40zulip.com"
      // The client keeps its connection for as long as the server does (the
      // global agent would close it after 5 seconds idle).
      const agent = new http.Agent({ keepAlive: true })
      // `Expect: 100-continue`: node:http answers `100 Continue` as it hands
      // the request to the server's handler, so the client sees the moment
      // the request is in flight.
      const request = http.request(`${url}/api/v1/dev_fetch_api_key`, {
        method: "POST",
        agent,
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": body.length, expect: "100-continue" }
      })
      const inFlight = new Promise<void>((resolve) => request.once("continue", () => resolve()))
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        request.on("response", (res) => {
          let text = ""
          res.setEncoding("utf8").on("data", (chunk) => (text += chunk)).on("end", () => resolve({ status: res.statusCode ?? 0, text }))
        })
        request.on("error", reject)
      })
      request.flushHeaders()
      yield* Effect.promise(() => inFlight)
      request.write(body.slice(0, 9))

      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      // Shutdown has begun once the server stops accepting connections: from
      // then on, a shutdown that did not wait would end the open request.
      while ((yield* refused(url)) === "answered") yield* Effect.yieldNow
      assert.isUndefined(closing.pollUnsafe(), "shutdown waits for the open request")
      assert.include(printed.join(""), "teamchat: shutting down…")

      request.end(body.slice(9))
      const answer = yield* Effect.promise(() => response)
      assert.strictEqual(answer.status, 200)
      assert.match((JSON.parse(answer.text) as { api_key: string }).api_key, /^[A-Za-z0-9]{32}$/)
      // The connection, now idle, is closed at once rather than after its keep-alive timeout.
      // The ceiling only guards against a hang.
      yield* Effect.timeoutOrElse(Fiber.join(closing), {
        duration: "60 seconds",
        orElse: () => Effect.die(new Error("shutdown still waits for the idle connection"))
      })
      agent.destroy()
      assert.isFalse(fs.existsSync(path.join(dataDir, Server.lockFile)))
      fs.rmSync(dataDir, { recursive: true, force: true })
    }), { timeout: 120_000 })

  it.live("fails fast, before opening the database, when the port is taken", () =>
    Effect.gen(function*() {
      const blocker = net.createServer()
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve((blocker.address() as net.AddressInfo).port)))
      )
      const dataDir = tempDir()
      const printed: Array<string> = []
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(Server.layer(
        { ...baseConfig, port, database: { _tag: "Pglite", dataDir } },
        { output: (text) => printed.push(text) }
      ))))
      blocker.close()
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = (exit.cause.reasons.find((r) => r._tag === "Fail") as { error: Server.CannotListen } | undefined)?.error
        assert.strictEqual(error?._tag, "CannotListen")
        assert.strictEqual(
          error?.message,
          `cannot listen on 127.0.0.1:${port}: the address is already in use (another server on that port? set PORT)`
        )
      }
      assert.deepStrictEqual(printed, [])
      assert.deepStrictEqual(fs.readdirSync(dataDir), [])
      fs.rmSync(dataDir, { recursive: true, force: true })
    }))
})

// Needs the PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
layer(TestDatabase.postgresLayer(), { timeout: "60 seconds", excludeTestServices: true })("Server on PostgreSQL (DATABASE_URL)", (it) => {
  it.effect("migrates a fresh database, seeds the demo organization and serves it", () =>
    Effect.gen(function*() {
      const database = yield* TestDatabase.TestDatabase
      const { printed, url } = yield* start(
        { ...baseConfig, database: { _tag: "Postgres", url: database.url }, externalUrl: "https://chat.example.com" },
        yield* Effect.scope
      )
      const settings = yield* getJson(`${url}/api/v1/server_settings`)
      assert.strictEqual(settings.status, 200)
      assert.strictEqual(settings.body.realm_name, DemoData.realm.name)
      assert.strictEqual(settings.body.realm_url, "https://chat.example.com")
      const key = yield* devFetchApiKey(url, "iago@zulip.com")
      const me = yield* Effect.promise(async () => {
        const response = await fetch(`${url}/api/v1/users/me`, {
          headers: { authorization: `Basic ${Buffer.from(`iago@zulip.com:${key}`).toString("base64")}` }
        })
        return await response.json() as { full_name: string; role: number }
      })
      assert.strictEqual(me.full_name, "Iago")
      assert.strictEqual(me.role, 200)
      const output = printed.join("")
      assert.include(output, "teamchat: opening PostgreSQL at postgres://")
      assert.include(output, "(PostgreSQL at postgres://")
      assert.include(output, "done (10 users, 6 bots, 7 channels)")
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
