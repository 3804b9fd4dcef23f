/**
 * The standalone server with PUSH_BOUNCER_URL set (Server.ts wires the
 * bouncer client into the core), on PGlite in a temporary directory: a
 * registration reaches the bouncer, and one still pending when the server
 * stops is sent again when it starts on the same data, then settles with a
 * `push_device` event.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as HttpServer from "effect/http/HttpServer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ServerConfig } from "../src/Config.ts"
import * as Server from "../src/Server.ts"
import { basic } from "./support/Harness.ts"
import * as TestBouncer from "./support/TestBouncer.ts"

const configFor = (dataDir: string, pushBouncerUrl: string | undefined): ServerConfig => ({
  port: 0,
  host: "127.0.0.1",
  database: { _tag: "Pglite", dataDir },
  demo: true,
  externalUrl: undefined,
  rateLimit: false,
  logLevel: "Warn",
  logFormat: "logfmt",
  pushBouncerUrl
})

const start = (config: ServerConfig, scope: Scope.Scope) =>
  Effect.map(
    Layer.buildWithScope(Server.layer(config, { secrets: Teamchat.layerSecretsTest, output: Server.silent }), scope),
    (context) => HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)
  )

/** Sends a request as hamlet (the API key from the demo login); returns status and JSON. */
const call = (base: string, method: string, route: string, params: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const login = await fetch(`${base}/api/v1/dev_fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username: "hamlet@zulip.com" })
    })
    const { api_key } = await login.json() as { api_key: string }
    const headers = { authorization: basic("hamlet@zulip.com", api_key) }
    const response = method === "GET"
      ? await fetch(`${base}/api/v1${route}?${new URLSearchParams(params)}`, { headers })
      : await fetch(`${base}/api/v1${route}`, { method, headers, body: new URLSearchParams(params) })
    return { status: response.status, body: await response.json() as Record<string, any> }
  })

const registration = {
  token_kind: "apns",
  push_account_id: "42",
  push_public_key: "cHVzaC1wdWJsaWMta2V5",
  bouncer_public_key: "key-slow",
  encrypted_push_registration: "ZW5jcnlwdGVkLXB1c2gtcmVnaXN0cmF0aW9u"
}

describe("the server with a push bouncer", () => {
  it.live("without PUSH_BOUNCER_URL the server has no push service", () =>
    Effect.scoped(Effect.gen(function*() {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-push-"))
      const base = yield* start(configFor(dataDir, undefined), yield* Effect.scope)
      const reply = yield* call(base, "POST", "/mobile_push/register", registration)
      assert.strictEqual(reply.status, 400)
      assert.deepStrictEqual(reply.body, {
        result: "error",
        msg: "Server is not configured to use push notification service.",
        code: "PUSH_SERVICE_NOT_CONFIGURED"
      })
    })), { timeout: 120_000 })

  it.live("a registration pending when the server stops is sent again when it starts", () =>
    Effect.gen(function*() {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-push-"))
      const expected = {
        method: "POST",
        path: "/api/v1/remotes/push/e2ee/register",
        contentType: "application/json",
        body: {
          push_account_id: 42,
          bouncer_public_key: "key-slow",
          encrypted_push_registration: "ZW5jcnlwdGVkLXB1c2gtcmVnaXN0cmF0aW9u"
        }
      }

      // First run: the bouncer never answers; the server stops meanwhile.
      yield* Effect.scoped(Effect.gen(function*() {
        const bouncer = yield* TestBouncer.start
        const base = yield* start(configFor(dataDir, bouncer.url), yield* Effect.scope)
        const reply = yield* call(base, "POST", "/mobile_push/register", registration)
        assert.deepStrictEqual(reply, { status: 200, body: { result: "success", msg: "" } })
        yield* bouncer.received(42, 1)
        assert.deepStrictEqual(bouncer.requestsFor(42), [expected])
      }))

      // Second run on the same data: the pending registration goes out at start.
      yield* Effect.scoped(Effect.gen(function*() {
        const bouncer = yield* TestBouncer.startWith({ holdSlow: true })
        const base = yield* start(configFor(dataDir, bouncer.url), yield* Effect.scope)
        yield* bouncer.received(42, 1)
        assert.deepStrictEqual(bouncer.requestsFor(42), [expected])
        const registered = yield* call(base, "POST", "/register", {
          event_types: JSON.stringify(["push_device"]),
          fetch_event_types: JSON.stringify(["push_device"])
        })
        assert.deepStrictEqual(registered.body.push_devices, { "42": { status: "pending", error_code: null } })
        bouncer.release()
        const polled = yield* call(base, "GET", "/events", {
          queue_id: registered.body.queue_id,
          last_event_id: "-1"
        })
        // Ids come from the database's event log.
        assert.deepStrictEqual(
          (polled.body.events as Array<Record<string, unknown>>).map(({ id: _id, ...event }) => event),
          [{ type: "push_device", push_account_id: "42", status: "active" }]
        )
        const after = yield* call(base, "POST", "/register", { fetch_event_types: JSON.stringify(["push_device"]) })
        assert.deepStrictEqual(after.body.push_devices, { "42": { status: "active", error_code: null } })
      }))
      fs.rmSync(dataDir, { recursive: true, force: true })
    }), { timeout: 120_000 })
})
