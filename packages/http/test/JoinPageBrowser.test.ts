/**
 * The join page of an invitation link in a real browser: the standalone
 * server (Server.ts) on 127.0.0.1 with the demo organization in memory,
 * headless Chromium (the system's package, `CHROMIUM` or /usr/bin/chromium)
 * driven by playwright-core. The form is found by its labels and filled and
 * sent with the keyboard only; the account it makes is checked through the
 * API (role, channels, POST /fetch_api_key). Also: bad input shown again,
 * and the pages of revoked, expired and unknown links.
 *
 * Without Chromium this test fails (scripts/test.sh installs it).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import * as fs from "node:fs"
import { chromium } from "playwright-core"
import type { Browser } from "playwright-core"
import type { ServerConfig } from "../src/Config.ts"
import * as Server from "../src/Server.ts"
import { makeManualClock } from "./support/Harness.ts"

const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium"

const config: ServerConfig = {
  port: 0,
  host: "127.0.0.1",
  database: { _tag: "Memory" },
  demo: true,
  externalUrl: undefined,
  rateLimit: false,
  logLevel: "Warn",
  logFormat: "logfmt"
}

/** The server's clock: the time of day, moved on by the test to expire a link. */
const clock = makeManualClock(Date.now())

/** The server in the test's scope: its base URL (http://127.0.0.1:port). */
const startServer = Effect.gen(function*() {
  const context = yield* Layer.build(
    Server.layer(config, { secrets: Teamchat.layerSecretsTest, output: () => {} }).pipe(
      Layer.provide(Layer.succeed(Clock.Clock, clock.clock))
    )
  )
  return HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)
})

/** Headless Chromium, closed with the test's scope. */
const launchBrowser = Effect.acquireRelease(
  Effect.promise((): Promise<Browser> => {
    // A missing browser is a failure of this test, never a skip.
    assert.isTrue(fs.existsSync(executablePath), `Chromium not found at ${executablePath} (scripts/test.sh installs it)`)
    return chromium.launch({
      executablePath,
      headless: true,
      args: ["--no-sandbox", "--disable-background-networking"]
    })
  }),
  (browser) => Effect.promise(() => browser.close())
)

interface Api {
  readonly call: (method: string, path: string, form?: Record<string, string>, as?: string) => Effect.Effect<{ status: number; json: any }>
  readonly keyOf: (email: string) => Effect.Effect<string>
}

const api = (base: string): Api => {
  const keys = new Map<string, string>()
  const keyOf = (email: string) =>
    Effect.promise(async () => {
      const known = keys.get(email)
      if (known !== undefined) return known
      const response = await fetch(`${base}/api/v1/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: email }) })
      const key = (await response.json() as { api_key: string }).api_key
      keys.set(email, key)
      return key
    })
  const call = (method: string, path: string, form?: Record<string, string>, as?: string) =>
    Effect.gen(function*() {
      const headers: Record<string, string> = {}
      if (as !== undefined) headers.authorization = `Basic ${Buffer.from(`${as}:${yield* keyOf(as)}`).toString("base64")}`
      return yield* Effect.promise(async () => {
        const response = await fetch(`${base}/api/v1${path}`, {
          method,
          headers,
          ...(form === undefined ? {} : { body: new URLSearchParams(form) })
        })
        return { status: response.status, json: await response.json() }
      })
    })
  return { call, keyOf }
}

describe("the join page in Chromium", () => {
  it.live("a person joins through a link with the keyboard; bad input and dead links are explained", () =>
    Effect.scoped(Effect.gen(function*() {
      const base = yield* startServer
      const browser = yield* launchBrowser
      const { call } = api(base)
      const admin = "iago@zulip.com"

      const streams = (yield* call("GET", "/streams", undefined, admin)).json.streams as Array<{ stream_id: number; name: string }>
      const denmark = streams.find((s) => s.name === "Denmark")!
      const created = yield* call("POST", "/invites/multiuse", {
        invite_as: "300",
        stream_ids: JSON.stringify([denmark.stream_id])
      }, admin)
      assert.strictEqual(created.status, 200, JSON.stringify(created.json))
      const link = created.json.invite_link as string
      assert.match(link, /^http:\/\/localhost:\d+\/join\/[a-z0-9]{24}\/$/)

      const page = yield* Effect.promise(() => browser.newPage())
      const opened = yield* Effect.promise(() => page.goto(link))
      assert.strictEqual(opened!.status(), 200)
      assert.strictEqual(yield* Effect.promise(() => page.getByRole("heading", { level: 1 }).textContent()), "Join Zulip Dev")

      // A password that is too short: the form comes back with the reason, the name kept.
      const fill = (name: string, email: string, password: string) =>
        Effect.promise(async () => {
          await page.getByLabel("Full name").focus()
          await page.keyboard.press("ControlOrMeta+A")
          await page.keyboard.type(name)
          await page.keyboard.press("Tab")
          assert.strictEqual(await page.evaluate("document.activeElement && document.activeElement.id"), "email")
          await page.keyboard.press("ControlOrMeta+A")
          await page.keyboard.type(email)
          await page.keyboard.press("Tab")
          assert.strictEqual(await page.evaluate("document.activeElement && document.activeElement.id"), "password")
          await page.keyboard.type(password)
          const [response] = await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")])
          return response!.status()
        })
      assert.strictEqual(yield* fill("Ophelia", "ophelia@zulip.com", "short"), 400)
      assert.strictEqual(yield* Effect.promise(() => page.getByRole("alert").textContent()), "The password is too weak.")
      assert.strictEqual(yield* Effect.promise(() => page.getByLabel("Full name").inputValue()), "Ophelia")
      assert.strictEqual(yield* Effect.promise(() => page.getByLabel("Email").inputValue()), "ophelia@zulip.com")
      assert.strictEqual(yield* Effect.promise(() => page.getByLabel("Password").inputValue()), "")

      // Then right.
      assert.strictEqual(yield* fill("Ophelia", "ophelia@zulip.com", "get-thee-to-a-nunnery"), 200)
      assert.strictEqual(yield* Effect.promise(() => page.getByRole("heading", { level: 1 }).textContent()), "Welcome to Zulip Dev!")
      assert.strictEqual(
        yield* Effect.promise(() => page.getByRole("status").textContent()),
        "Your account ophelia@zulip.com is ready."
      )

      // The account: its credentials work, with the invited role and channel.
      const key = yield* call("POST", "/fetch_api_key", { username: "ophelia@zulip.com", password: "get-thee-to-a-nunnery" })
      assert.strictEqual(key.status, 200, JSON.stringify(key.json))
      assert.strictEqual(key.json.email, "ophelia@zulip.com")
      const asOphelia = (path: string) =>
        Effect.promise(async () => {
          const response = await fetch(`${base}/api/v1${path}`, {
            headers: { authorization: `Basic ${Buffer.from(`ophelia@zulip.com:${key.json.api_key}`).toString("base64")}` }
          })
          return await response.json() as Record<string, any>
        })
      const me = yield* asOphelia("/users/me")
      assert.strictEqual(me.role, 300)
      assert.strictEqual(me.full_name, "Ophelia")
      const subscriptions = (yield* asOphelia("/users/me/subscriptions")).subscriptions as Array<{ name: string }>
      assert.deepStrictEqual(subscriptions.map((s) => s.name), ["Denmark"])

      // A revoked link, an expired one and a key that names nothing.
      const listed = (yield* call("GET", "/invites", undefined, admin)).json.invites as Array<{ id: number; link_url: string }>
      const id = listed.find((i) => i.link_url === link)!.id
      assert.strictEqual((yield* call("DELETE", `/invites/multiuse/${id}`, {}, admin)).status, 200)
      const revoked = yield* Effect.promise(() => page.goto(link))
      assert.strictEqual(revoked!.status(), 410)
      assert.include(yield* Effect.promise(() => page.getByRole("alert").textContent()), "This invitation link has been revoked.")

      const expiring = (yield* call("POST", "/invites/multiuse", { invite_expires_in_minutes: "1" }, admin)).json.invite_link as string
      clock.advance(60_001)
      const expired = yield* Effect.promise(() => page.goto(expiring))
      assert.strictEqual(expired!.status(), 410)
      assert.include(yield* Effect.promise(() => page.getByRole("alert").textContent()), "This invitation link has expired.")

      const unknown = yield* Effect.promise(() => page.goto(`${base}/join/aaaaaaaaaaaaaaaaaaaaaaaa/`))
      assert.strictEqual(unknown!.status(), 404)
      assert.include(yield* Effect.promise(() => page.getByRole("alert").textContent()), "This invitation link is not valid.")
    })), { timeout: 120_000 })
})
