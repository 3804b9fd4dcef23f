/**
 * GET /server_settings, the organization a request addresses, the server
 * without the demo, and the request log.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Organizations } from "@teamchat/core/services/Organizations"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { defaultHttpOptions } from "../src/Http.ts"
import {
  accounts,
  basic,
  coreLayer,
  demoLayer,
  demoPassword,
  layerServer,
  makeManualClock,
  makeRequest,
  realmUrl,
  Server
} from "./support/Harness.ts"
import type { ManualClock } from "./support/Harness.ts"
import { start, waiting, waitingFor } from "./support/events/fixtures.ts"

const authenticationMethods = (dev: boolean) => ({
  password: true,
  dev,
  email: true,
  ldap: false,
  remoteuser: false,
  github: false,
  azuread: false,
  gitlab: false,
  apple: false,
  google: false,
  saml: false,
  "openid connect": false
})

const serverFields = (dev: boolean) => ({
  authentication_methods: authenticationMethods(dev),
  zulip_version: "11.0-teamchat",
  zulip_merge_base: "11.0",
  zulip_feature_level: 416,
  push_notifications_enabled: false,
  is_incompatible: false
})

const demoRealmFields = {
  email_auth_enabled: true,
  require_email_format_usernames: true,
  realm_url: realmUrl,
  realm_name: "Zulip Dev",
  realm_icon: "https://secure.gravatar.com/avatar/62429d594b6ffc712f54aee976a18b44?d=identicon",
  realm_description: "<p>The Zulip development environment default organization.  It's great for testing!</p>",
  realm_web_public_access_enabled: true,
  external_authentication_methods: [],
  realm_uri: realmUrl,
  server_emoji_data_url: "http://localhost:9991/static/generated/emoji/emoji_api.json"
}

const invalidSubdomain = { result: "error", msg: "Invalid subdomain", code: "NONEXISTENT_SUBDOMAIN" }

/** The demo organization plus "other" at other.example:9991 and an internal one. */
const twoOrganizations = (clock: ManualClock) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const organizations = yield* Organizations
    yield* organizations.create({
      string_id: "other",
      name: "Other Org",
      url: "http://other.example:9991",
      owner: { email: "boss@other.example", full_name: "Boss", password: "secret-password" }
    })
    yield* organizations.create({
      string_id: "zulipinternal",
      name: "System bots",
      url: "http://internal.example",
      owner: { email: "bot-owner@internal.example", full_name: "Bots" }
    })
  })).pipe(Layer.provideMerge(demoLayer("memory", clock)))

describe("server settings", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("GET /server_settings for the demo organization, every key the mobile app parses", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("GET", "/api/v1/server_settings")
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.headers.get("content-type"), "application/json")
        assert.deepStrictEqual(reply.json, { result: "success", msg: "", ...serverFields(true), ...demoRealmFields })
        assert.isTrue(new URL(reply.json.realm_icon).protocol === "https:")
        // A client that authenticates anyway (the python client does) gets the same.
        const hamlet = yield* server.login(accounts.member)
        const authenticated = yield* server.fetch("GET", "/api/v1/server_settings", { as: hamlet })
        assert.deepStrictEqual(authenticated.json, reply.json)
      }))

    it.effect("an unknown host falls back to the only organization with users", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("GET", "/api/v1/server_settings", { origin: "http://127.0.0.1:9991" })
        assert.strictEqual(reply.json.realm_name, "Zulip Dev")
        const key = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
          origin: "http://127.0.0.1:9991",
          form: { username: accounts.admin, password: demoPassword }
        })
        assert.strictEqual(key.status, 200)
        // The Host header wins over the URL's host.
        const byHeader = yield* server.fetch("GET", "/api/v1/server_settings", {
          origin: "http://127.0.0.1:9991",
          headers: { host: "localhost:9991" }
        })
        assert.strictEqual(byHeader.json.realm_url, realmUrl)
      }))
  })

  layer(layerServer(twoOrganizations))((it) => {
    it.effect("the organization is chosen by the Host header", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const other = yield* server.fetch("GET", "/api/v1/server_settings", { origin: "http://other.example:9991" })
        assert.deepStrictEqual(other.json, {
          result: "success",
          msg: "",
          ...serverFields(true),
          email_auth_enabled: true,
          require_email_format_usernames: true,
          realm_url: "http://other.example:9991",
          realm_name: "Other Org",
          realm_icon: "https://secure.gravatar.com/avatar/795f3202b17cb6bc3d4b771d8c6c9eaf?d=identicon",
          realm_description: "",
          realm_web_public_access_enabled: false,
          external_authentication_methods: [],
          realm_uri: "http://other.example:9991",
          server_emoji_data_url: "http://other.example:9991/static/generated/emoji/emoji_api.json"
        })
        const key = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
          origin: "http://OTHER.example:9991",
          form: { username: "boss@other.example", password: "secret-password" }
        })
        assert.strictEqual(key.status, 200)
        assert.strictEqual(key.json.email, "boss@other.example")
        // Accounts of another organization cannot log in at this one.
        const wrongRealm = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
          origin: "http://other.example:9991",
          form: { username: accounts.admin, password: demoPassword }
        })
        assert.strictEqual(wrongRealm.status, 401)
        assert.strictEqual(wrongRealm.json.code, "AUTHENTICATION_FAILED")
      }))

    it.effect("the dev login is the demo organization's only: elsewhere its endpoints answer as without --demo", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const notFound = { result: "error", msg: "Not Found", code: "BAD_REQUEST" }
        for (const origin of ["http://other.example:9991", "http://internal.example"]) {
          const key = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
            origin,
            form: { username: origin.includes("other") ? "boss@other.example" : "bot-owner@internal.example" }
          })
          assert.strictEqual(key.status, 404, `${origin}: ${key.text}`)
          assert.deepStrictEqual(key.json, notFound, origin)
          const list = yield* server.fetch("GET", "/api/v1/dev_list_users", { origin })
          assert.strictEqual(list.status, 404, `${origin}: ${list.text}`)
          assert.deepStrictEqual(list.json, notFound, origin)
        }
        // The demo organization keeps it, and lists its own people only.
        const demoKey = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", { form: { username: accounts.admin } })
        assert.strictEqual(demoKey.status, 200, demoKey.text)
        assert.strictEqual(demoKey.json.email, accounts.admin)
        const demoList = yield* server.fetch("GET", "/api/v1/dev_list_users")
        assert.strictEqual(demoList.status, 200, demoList.text)
        assert.deepStrictEqual(
          demoList.json.direct_admins.map((u: { email: string }) => u.email),
          ["desdemona@zulip.com", "iago@zulip.com"]
        )
      }))

    it.effect("an unknown host with several organizations: no organization", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const settings = yield* server.fetch("GET", "/api/v1/server_settings", { origin: "http://127.0.0.1:9991" })
        assert.strictEqual(settings.status, 200)
        assert.deepStrictEqual(settings.json, { result: "success", msg: "", ...serverFields(true) })
        for (
          const [method, path, form] of [
            ["POST", "/api/v1/fetch_api_key", { username: accounts.admin, password: demoPassword }],
            ["POST", "/api/v1/dev_fetch_api_key", { username: accounts.admin }],
            ["GET", "/api/v1/dev_list_users", undefined],
            ["GET", "/api/v1/users", undefined]
          ] as const
        ) {
          const reply = yield* server.fetch(method, path, { origin: "http://127.0.0.1:9991", form })
          assert.strictEqual(reply.status, 404, path)
          assert.deepStrictEqual(reply.json, invalidSubdomain, path)
        }
      }))
  })
})

describe("without the demo", () => {
  layer(layerServer((clock) => demoLayer("memory", clock), { demo: false }))((it) => {
    it.effect("the dev endpoints do not exist", () =>
      Effect.gen(function*() {
        const server = yield* Server
        for (
          const [method, path] of [["POST", "/api/v1/dev_fetch_api_key"], ["GET", "/api/v1/dev_list_users"]] as const
        ) {
          const reply = yield* server.fetch(method, path, { form: method === "POST" ? { username: accounts.admin } : undefined })
          assert.strictEqual(reply.status, 404, path)
          assert.deepStrictEqual(reply.json, { result: "error", msg: "Not Found", code: "BAD_REQUEST" })
        }
        const openapi = yield* server.fetch("GET", "/api/v1/openapi.json")
        assert.isUndefined(openapi.json.paths["/api/v1/dev_fetch_api_key"])
        const settings = yield* server.fetch("GET", "/api/v1/server_settings")
        assert.deepStrictEqual(settings.json, { result: "success", msg: "", ...serverFields(false), ...demoRealmFields })
        const login = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
          form: { username: accounts.admin, password: demoPassword }
        })
        assert.strictEqual(login.status, 200)
      }))
  })

  layer(layerServer(() => coreLayer("memory")))((it) => {
    it.effect("no organization at all", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const settings = yield* server.fetch("GET", "/api/v1/server_settings")
        assert.deepStrictEqual(settings.json, { result: "success", msg: "", ...serverFields(true) })
        const login = yield* server.fetch("POST", "/api/v1/fetch_api_key", { form: { username: "a@b.c", password: "p" } })
        assert.deepStrictEqual(login.json, invalidSubdomain)
      }))
  })
})

describe("request log", () => {
  const lines: Array<{ readonly message: unknown; readonly annotations: Record<string, unknown> }> = []
  const capture = Logger.layer([
    Logger.make((options) =>
      void lines.push({
        message: options.message,
        annotations: { ...options.fiber.getRef(References.CurrentLogAnnotations) }
      })
    )
  ])
  layer(
    layerServer((clock) => demoLayer("memory", clock).pipe(Layer.provideMerge(capture)), { log: true })
  )((it) => {
    it.effect("one line per request: method, path, status, duration, user; never credentials", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        lines.length = 0
        yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet, query: { secret_looking: "x" } })
        yield* server.fetch("POST", "/api/v1/fetch_api_key", {
          query: { username: accounts.admin, password: demoPassword }
        })
        yield* server.fetch("GET", "/api/v1/nowhere")
        yield* server.fetch("GET", "/api/v1/users/me", {
          headers: { authorization: basic(accounts.member, "A".repeat(32)) }
        })
        const requests = lines.filter((line) => Array.isArray(line.message) && line.message[0] === "request")
        assert.deepStrictEqual(
          requests.map((line) => {
            const { duration_ms, ...rest } = line.annotations
            assert.isNumber(duration_ms)
            return rest
          }),
          [
            { method: "GET", path: "/api/v1/users/me", status: 200, user_id: hamlet.userId },
            { method: "POST", path: "/api/v1/fetch_api_key", status: 200, user_id: null },
            { method: "GET", path: "/api/v1/nowhere", status: 404, user_id: null, code: "BAD_REQUEST" },
            { method: "GET", path: "/api/v1/users/me", status: 401, user_id: null, code: "INVALID_API_KEY" }
          ]
        )
        const everything = JSON.stringify(lines.map((line) => [line.message, line.annotations]))
        for (const secret of [hamlet.apiKey, demoPassword, "Basic ", "A".repeat(32)]) {
          assert.isFalse(everything.includes(secret), secret)
        }
      }))

    it.effect("a poll that waits is logged once answered, with the answer's status", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const queueId = (yield* server.fetch("POST", "/api/v1/register", {
          as: hamlet,
          form: { event_types: "[\"alert_words\"]" }
        })).json.queue_id as string
        const before = yield* waiting
        lines.length = 0
        const pending = yield* start("GET", "/api/v1/events", { as: hamlet, query: { queue_id: queueId, last_event_id: "-1" } })
        yield* waitingFor(before + 1)
        const polls = () =>
          lines.filter((line) =>
            Array.isArray(line.message) && line.message[0] === "request" && line.annotations.path === "/api/v1/events"
          )
        assert.deepStrictEqual(polls(), [])
        yield* server.fetch("DELETE", "/api/v1/events", { as: hamlet, query: { queue_id: queueId } })
        assert.strictEqual((yield* Effect.promise(() => pending)).status, 400)
        const logged = polls().map((line) => line.annotations).filter((a) => a.method === "GET")
        assert.deepStrictEqual(logged.map(({ duration_ms: _, ...rest }) => rest), [
          { method: "GET", path: "/api/v1/events", status: 400, user_id: hamlet.userId, code: "BAD_EVENT_QUEUE_ID" }
        ])
      }))
  })

  layer(layerServer((clock) => demoLayer("memory", clock).pipe(Layer.provideMerge(capture))))((it) => {
    it.effect("off by default", () =>
      Effect.gen(function*() {
        const server = yield* Server
        lines.length = 0
        yield* server.fetch("GET", "/api/v1/server_settings")
        assert.deepStrictEqual(lines, [])
        assert.isFalse(defaultHttpOptions.log)
      }))
  })
})

describe("the root page", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("says what the server is and how to connect a Zulip client; other paths stay JSON 404s", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const get = (request: Request) =>
          Effect.promise(async () => {
            const response = await server.handler(request)
            return { status: response.status, headers: response.headers, text: await response.text() }
          })
        const page = yield* get(makeRequest("GET", "/", { origin: "http://chat.local:9991" }))
        assert.strictEqual(page.status, 200)
        assert.strictEqual(page.headers.get("content-type"), "text/html; charset=utf-8")
        assert.match(page.text, /^<!doctype html>\n/)
        for (
          const text of [
            "<title>teamchat</title>",
            "a team chat server that speaks the Zulip REST API",
            "teamchat 0.1.0, Zulip API 11.0-teamchat (feature level 416)",
            "There is no web app yet",
            "<code>http://chat.local:9991</code>",
            "<code>HOST=0.0.0.0</code>",
            "<code>EXTERNAL_URL</code>",
            "zulip-terminal",
            "<a href=\"/api/v1/openapi.json\">"
          ]
        ) assert.include(page.text, text)
        // A Host that is not a host is not echoed.
        const odd = yield* get(makeRequest("GET", "/", { headers: { host: "<b>x" } }))
        assert.include(odd.text, "<code>http://localhost</code>")
        assert.notInclude(odd.text, "<b>x")
        const other = yield* server.fetch("GET", "/index.html")
        assert.strictEqual(other.status, 404)
        assert.deepStrictEqual(other.json, { result: "error", msg: "Not Found", code: "BAD_REQUEST" })
        // One organization: the URL asked for is the one named (any host reaches it), no list.
        assert.deepStrictEqual(links(page.text), ["/api/v1/openapi.json"])
        assert.notInclude(page.text, "<h2>Organizations</h2>")
        const reached = yield* server.fetch("GET", "/api/v1/server_settings", { origin: "http://chat.local:9991" })
        assert.strictEqual(reached.json.realm_name, "Zulip Dev")
      }))
  })

  layer(layerServer(twoOrganizations))((it) => {
    it.effect("several organizations: each one's name and URL, every URL named reaching its organization", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const page = yield* Effect.promise(async () => {
          const response = await server.handler(makeRequest("GET", "/", { origin: "http://chat.local:9991" }))
          return { status: response.status, text: await response.text() }
        })
        assert.strictEqual(page.status, 200)
        assert.deepStrictEqual(links(page.text), ["/api/v1/openapi.json", realmUrl, "http://other.example:9991"])
        assert.include(
          page.text,
          "<h2>Organizations</h2>\n<p>This server hosts 2 organizations, each reached at its own URL:</p>\n<ul>\n" +
            `<li>Zulip Dev: <a href="${realmUrl}">${realmUrl}</a></li>\n` +
            "<li>Other Org: <a href=\"http://other.example:9991\">http://other.example:9991</a></li>\n</ul>\n"
        )
        // The host asked for reaches no organization here, so it is not named; nor is the internal one.
        assert.notInclude(page.text, "chat.local")
        assert.notInclude(page.text, "internal.example")
        const unknown = yield* server.fetch("GET", "/api/v1/users", { origin: "http://chat.local:9991" })
        assert.deepStrictEqual({ status: unknown.status, body: unknown.json }, { status: 404, body: invalidSubdomain })
        for (const [url, name] of [[realmUrl, "Zulip Dev"], ["http://other.example:9991", "Other Org"]] as const) {
          const reply = yield* server.fetch("GET", "/api/v1/server_settings", { origin: url })
          assert.deepStrictEqual([reply.status, reply.json.realm_name, reply.json.realm_url], [200, name, url])
        }
      }))
  })
})

/** The targets of a page's links, in order. */
const links = (html: string): ReadonlyArray<string> => Array.from(html.matchAll(/href="([^"]*)"/g), (m) => m[1]!)

describe("the emoji data", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("server_emoji_data_url serves Zulip's code_to_names without credentials, revalidated by ETag", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const settings = yield* server.fetch("GET", "/api/v1/server_settings")
        const hamlet = yield* server.login(accounts.member)
        const registered = yield* server.fetch("POST", "/api/v1/register", {
          as: hamlet,
          form: { fetch_event_types: JSON.stringify(["realm"]) }
        })
        // One URL, absolute, the same in both places.
        assert.strictEqual(registered.json.server_emoji_data_url, settings.json.server_emoji_data_url)
        const url = new URL(settings.json.server_emoji_data_url)
        assert.strictEqual(url.origin, realmUrl)

        const reply = yield* server.fetch("GET", url.pathname)
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.headers.get("content-type"), "application/json")
        assert.strictEqual(reply.headers.get("cache-control"), "public, max-age=86400")
        assert.deepStrictEqual(Object.keys(reply.json), ["code_to_names"])
        const codeToNames = reply.json.code_to_names as Record<string, ReadonlyArray<string>>
        // Canonical name first (Zulip's names for these emoji).
        assert.deepStrictEqual(codeToNames["1f44d"], ["+1", "thumbs_up", "like"])
        assert.deepStrictEqual(codeToNames["1f419"], ["octopus"])
        assert.deepStrictEqual(codeToNames["1f1fa-1f1f8"]?.[0], "flag_united_states")
        assert.strictEqual(Object.keys(codeToNames).length, 1826)
        // Only Unicode emoji: the `zulip` extra emoji and left-out clock faces are not there.
        assert.isUndefined(codeToNames["zulip"])
        assert.isUndefined(codeToNames["1f550"])

        const etag = reply.headers.get("etag")
        assert.match(etag ?? "", /^"[0-9a-f]{32}"$/)
        const again = yield* Effect.promise(() => server.handler(makeRequest("GET", url.pathname, { headers: { "if-none-match": etag! } })))
        assert.strictEqual(again.status, 304)
        assert.strictEqual(again.headers.get("etag"), etag)
        const stale = yield* server.fetch("GET", url.pathname, { headers: { "if-none-match": "\"other\"" } })
        assert.strictEqual(stale.status, 200)
      }))
  })
})

describe("defaults", () => {
  layer(Layer.empty)((it) => {
    it.effect("defaultHttpOptions", () =>
      Effect.sync(() => {
        assert.deepStrictEqual(defaultHttpOptions, {
          demo: false,
          rateLimit: { requests: 200, windowSeconds: 60 },
          anonymousRateLimit: { requests: 100, windowSeconds: 60 },
          authenticationRateLimit: { requests: 5, windowSeconds: 1800 },
          maxBodyBytes: 4 * 1024 * 1024,
          version: { zulip_version: "11.0-teamchat", zulip_feature_level: 416, zulip_merge_base: "11.0" },
          log: false
        })
        assert.isNumber(makeManualClock().now())
      }))
  })
})
