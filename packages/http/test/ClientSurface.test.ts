/**
 * The endpoints real Zulip clients call, read from their source: zulip-js
 * 2.1.0's wrapped endpoints, the Flutter app's login, start-up and running
 * calls, and zulip-terminal's with the python `zulip` client. Each is asked
 * once, by a member with no parameters and ids nobody has, and must reach an
 * endpoint: any answer but the unknown-route 404 or the other-method 405. Those teamchat does not
 * serve yet are listed with the open issue that serves them; the list must be
 * exactly what is missing, so a route that lands or breaks shows up here.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { accounts, demoLayer, layerServer, makeRequest, Server } from "./support/Harness.ts"

type Client = "zulip-js" | "flutter" | "zulip-terminal"

/** [client, method, path] with `{id}` for any path parameter. */
const calls: ReadonlyArray<readonly [Client, string, string]> = [
  // zulip-js 2.1.0 (src/resources/*.js)
  ["zulip-js", "POST", "/fetch_api_key"],
  ["zulip-js", "GET", "/realm/emoji"],
  ["zulip-js", "GET", "/events"],
  ["zulip-js", "DELETE", "/events"],
  ["zulip-js", "POST", "/register"],
  ["zulip-js", "GET", "/messages"],
  ["zulip-js", "GET", "/messages/{id}"],
  ["zulip-js", "GET", "/messages/{id}/history"],
  ["zulip-js", "POST", "/messages"],
  ["zulip-js", "POST", "/messages/render"],
  ["zulip-js", "PATCH", "/messages/{id}"],
  ["zulip-js", "DELETE", "/messages/{id}"],
  ["zulip-js", "POST", "/messages/flags"],
  ["zulip-js", "POST", "/messages/{id}/reactions"],
  ["zulip-js", "DELETE", "/messages/{id}/reactions"],
  ["zulip-js", "GET", "/server_settings"],
  ["zulip-js", "GET", "/streams"],
  ["zulip-js", "GET", "/get_stream_id"],
  ["zulip-js", "GET", "/users/me/subscriptions"],
  ["zulip-js", "GET", "/users/me/{id}/topics"],
  ["zulip-js", "DELETE", "/streams/{id}"],
  ["zulip-js", "POST", "/typing"],
  ["zulip-js", "GET", "/users"],
  ["zulip-js", "POST", "/users"],
  ["zulip-js", "GET", "/users/me"],
  ["zulip-js", "POST", "/users/me/subscriptions"],
  ["zulip-js", "DELETE", "/users/me/subscriptions"],
  ["zulip-js", "GET", "/users/me/alert_words"],
  // The Flutter app (lib/api/route/*.dart, lib/model/store.dart)
  ["flutter", "GET", "/server_settings"],
  ["flutter", "POST", "/fetch_api_key"],
  ["flutter", "GET", "/users/me"],
  ["flutter", "POST", "/register"],
  ["flutter", "GET", "/events"],
  ["flutter", "POST", "/users/me/presence"],
  ["flutter", "POST", "/users/me/android_gcm_reg_id"],
  ["flutter", "POST", "/users/me/apns_device_token"],
  ["flutter", "GET", "/messages"],
  ["flutter", "POST", "/messages"],
  ["flutter", "PATCH", "/messages/{id}"],
  ["flutter", "DELETE", "/messages/{id}"],
  ["flutter", "GET", "/messages/{id}"],
  ["flutter", "POST", "/messages/{id}/report"],
  ["flutter", "GET", "/messages/{id}/read_receipts"],
  ["flutter", "POST", "/messages/flags"],
  ["flutter", "POST", "/messages/flags/narrow"],
  ["flutter", "POST", "/messages/{id}/reactions"],
  ["flutter", "DELETE", "/messages/{id}/reactions"],
  ["flutter", "POST", "/typing"],
  ["flutter", "POST", "/submessage"],
  ["flutter", "POST", "/user_uploads"],
  // A temporary URL of an upload (open in browser, tapping an upload link).
  ["flutter", "GET", "/user_uploads/{id}/{id}"],
  ["flutter", "GET", "/users/me/{id}/topics"],
  ["flutter", "POST", "/user_topics"],
  ["flutter", "PATCH", "/users/me/subscriptions/muted_topics"],
  ["flutter", "POST", "/users/me/subscriptions"],
  ["flutter", "DELETE", "/users/me/subscriptions"],
  ["flutter", "POST", "/users/me/subscriptions/properties"],
  ["flutter", "PATCH", "/settings"],
  ["flutter", "POST", "/users/me/status"],
  ["flutter", "POST", "/saved_snippets"],
  // zulip-terminal with the python `zulip` client (zulipterminal/model.py)
  ["zulip-terminal", "GET", "/server_settings"],
  ["zulip-terminal", "POST", "/fetch_api_key"],
  ["zulip-terminal", "GET", "/messages"],
  ["zulip-terminal", "POST", "/register"],
  ["zulip-terminal", "POST", "/users/me/presence"],
  ["zulip-terminal", "GET", "/events"],
  ["zulip-terminal", "DELETE", "/events"],
  ["zulip-terminal", "POST", "/messages"],
  ["zulip-terminal", "PATCH", "/messages/{id}"],
  ["zulip-terminal", "GET", "/messages/{id}"],
  ["zulip-terminal", "GET", "/messages/{id}/history"],
  ["zulip-terminal", "POST", "/messages/flags"],
  ["zulip-terminal", "POST", "/messages/{id}/reactions"],
  ["zulip-terminal", "DELETE", "/messages/{id}/reactions"],
  ["zulip-terminal", "POST", "/typing"],
  ["zulip-terminal", "GET", "/users/me/{id}/topics"],
  ["zulip-terminal", "POST", "/users/me/subscriptions/properties"],
  ["zulip-terminal", "GET", "/streams/{id}/email_address"]
]

/** What is not served yet, and the open issue that serves it. */
const notYet: ReadonlyArray<readonly [string, string]> = [
  ["GET /realm/emoji", "#35 custom emoji"],
  ["DELETE /streams/{id}", "#36 channels"],
  ["POST /users", "#36 users"],
  ["POST /users/me/android_gcm_reg_id", "#36 push-token registration"],
  ["POST /users/me/apns_device_token", "#36 push-token registration"],
  ["GET /streams/{id}/email_address", "#36 integrations (the email gateway)"],
  ["POST /messages/{id}/report", "moderation (message reports), in no issue yet"]
]

const unknownRoute = { result: "error", msg: "Not Found", code: "BAD_REQUEST" }

describe("the endpoints real clients call", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("each is served, but for the listed ones the open issues serve", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const member = yield* server.login(accounts.member)
        const routes = [...new Set(calls.map(([, method, path]) => `${method} ${path}`))]
        const missing: Array<string> = []
        for (const route of routes) {
          const [method, path] = route.split(" ") as [string, string]
          // An id nobody has: every answer is a refusal, nothing is written.
          // Read whatever the answer is: a file route's refusals are HTML.
          const reply = yield* Effect.promise(async () => {
            const response = await server.handler(makeRequest(method, `/api/v1${path.replaceAll("{id}", "987654")}`, { as: member }))
            const text = await response.text()
            let json: any
            try {
              json = JSON.parse(text)
            } catch {
              json = undefined
            }
            return { status: response.status, json }
          })
          const isUnknownRoute = reply.status === 404 && JSON.stringify(reply.json) === JSON.stringify(unknownRoute)
          const isOtherMethod = reply.status === 405 && reply.json?.msg === "Method Not Allowed"
          if (isUnknownRoute || isOtherMethod) missing.push(route)
          else assert.isBelow(reply.status, 500, `${route} answered ${reply.status}`)
        }
        assert.deepStrictEqual(missing.sort(), notYet.map(([route]) => route).sort())
      }))
  })
})
