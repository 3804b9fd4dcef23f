/**
 * Bounded work per request (issue #32), at the wire, on every core backend:
 * list parameters over their limits get Zulip's 400 before any work, and a
 * request at a limit completes.
 *
 * - alert words: at most 1,000 per request (POST and DELETE) and per user;
 * - POST/DELETE /users/me/subscriptions: at most 1,000 channels and 1,000
 *   principals, and 20,000 user-channel pairs, per request;
 * - every other JSON list parameter: at most 10,000 items;
 * - a direct message's `to` (POST /messages, scheduled messages, drafts):
 *   at most 10,000 ids or emails, however sent; a `narrow` (GET /messages,
 *   POST /messages/flags/narrow, POST /register): at most 1,000 terms.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Backend } from "./Harness.ts"
import { accounts, demoLayer, layerServer, Server } from "./Harness.ts"

const badRequest = (msg: string) => ({ result: "error", msg, code: "BAD_REQUEST" })
const list = (n: number, item: (i: number) => unknown) => JSON.stringify(Array.from({ length: n }, (_, i) => item(i)))

export const limitsContract = (backend: Backend) =>
  describe(`request limits over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "300 seconds" })((it) => {
      it.effect("alert words: 1,001 in one request are refused; 1,000 are kept; the 1,001st of a user is refused", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const as = yield* server.login(accounts.member)
          const path = "/api/v1/users/me/alert_words"
          for (const method of ["POST", "DELETE"]) {
            const over = yield* server.fetch(method, path, { as, form: { alert_words: list(1001, (i) => `w${i}`) } })
            assert.deepStrictEqual(
              { status: over.status, body: over.json },
              { status: 400, body: badRequest("alert_words is too long (limit: 1000 items)") }
            )
          }
          const words = Array.from({ length: 1000 }, (_, i) => `limit-${String(i).padStart(4, "0")}`)
          const full = yield* server.fetch("POST", path, { as, form: { alert_words: JSON.stringify(words) } })
          assert.deepStrictEqual({ status: full.status, body: full.json }, {
            status: 200,
            body: { result: "success", msg: "", alert_words: words }
          })
          const more = yield* server.fetch("POST", path, { as, form: { alert_words: "[\"one more\"]" } })
          assert.deepStrictEqual(
            { status: more.status, body: more.json },
            { status: 400, body: badRequest("You can have at most 1000 alert words.") }
          )
          const gone = yield* server.fetch("DELETE", path, { as, form: { alert_words: JSON.stringify(words) } })
          assert.deepStrictEqual({ status: gone.status, body: gone.json }, {
            status: 200,
            body: { result: "success", msg: "", alert_words: [] }
          })
        }))

      it.effect("subscriptions: channels, principals and pairs per request", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const as = yield* server.login(accounts.admin)
          const path = "/api/v1/users/me/subscriptions"
          const rows: ReadonlyArray<readonly [string, Record<string, string>, string]> = [
            ["POST", { subscriptions: list(1001, (i) => ({ name: `c${i}` })) }, "subscriptions is too long (limit: 1000 items)"],
            ["DELETE", { subscriptions: list(1001, (i) => `c${i}`) }, "subscriptions is too long (limit: 1000 items)"],
            [
              "POST",
              { subscriptions: "[{\"name\":\"c\"}]", principals: list(1001, (i) => i + 1) },
              "principals is too long (limit: 1000 items)"
            ],
            [
              "DELETE",
              { subscriptions: "[\"c\"]", principals: list(1001, (i) => i + 1) },
              "principals is too long (limit: 1000 items)"
            ],
            [
              "POST",
              { subscriptions: list(201, (i) => ({ name: `c${i}` })), principals: list(100, (i) => i + 1) },
              "Too many subscription changes in one request (limit: 20000 user-channel pairs)."
            ]
          ]
          for (const [method, form, msg] of rows) {
            const reply = yield* server.fetch(method, path, { as, form })
            assert.deepStrictEqual({ status: reply.status, body: reply.json }, { status: 400, body: badRequest(msg) })
          }
          const streams = yield* server.fetch("GET", "/api/v1/streams", { as })
          assert.isFalse(streams.json.streams.some((s: { name: string }) => /^c\d+$/.test(s.name)))
        }))

      it.effect("subscriptions: 200 new channels in one request are created", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const as = yield* server.login(accounts.admin)
          const names = Array.from({ length: 200 }, (_, i) => `bulk ${String(i).padStart(3, "0")}`)
          const reply = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as,
            form: { subscriptions: JSON.stringify(names.map((name) => ({ name }))) }
          })
          assert.strictEqual(reply.status, 200, reply.text.slice(0, 300))
          assert.deepStrictEqual(Object.values(reply.json.subscribed), [names])
          const mine = yield* server.fetch("GET", "/api/v1/users/me/subscriptions", { as })
          const bulk = mine.json.subscriptions.filter((s: { name: string }) => s.name.startsWith("bulk "))
          assert.deepStrictEqual(bulk.map((s: { name: string }) => s.name), names)
        }))

      it.effect("recipients and narrows: 10,001 recipients and 1,001 narrow terms are refused; at the limits they are served", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const as = yield* server.login(accounts.member)
          const me = as.userId
          const emails = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@zulip.com`)
          const terms = (n: number) => list(n, () => ["is", "starred"])
          const newest = Effect.map(
            server.fetch("GET", "/api/v1/messages", { as, query: { anchor: "newest", num_before: "1", num_after: "0" } }),
            (reply) => reply.json.messages.map((m: { id: number }) => m.id)
          )
          const before = yield* newest
          const tooManyRecipients = "to is too long (limit: 10000 items)"
          const rows: ReadonlyArray<readonly [string, string, Record<string, string>, string]> = [
            ["POST", "/api/v1/messages", { type: "direct", to: list(10_001, () => me), content: "hi" }, tooManyRecipients],
            ["POST", "/api/v1/messages", { type: "private", to: JSON.stringify(emails(10_001)), content: "hi" }, tooManyRecipients],
            ["POST", "/api/v1/messages", { type: "direct", to: emails(10_001).join(","), content: "hi" }, tooManyRecipients],
            [
              "POST",
              "/api/v1/scheduled_messages",
              { type: "direct", to: list(10_001, () => me), content: "hi", scheduled_delivery_timestamp: "4102444800" },
              tooManyRecipients
            ],
            ["PATCH", "/api/v1/scheduled_messages/1", { to: list(10_001, () => me) }, tooManyRecipients],
            [
              "POST",
              "/api/v1/drafts",
              { drafts: JSON.stringify([{ type: "private", to: Array.from({ length: 10_001 }, () => me), topic: "", content: "d" }]) },
              "drafts[0][\"to\"] is too long (limit: 10000 items)"
            ],
            [
              "PATCH",
              "/api/v1/drafts/1",
              { draft: JSON.stringify({ type: "private", to: Array.from({ length: 10_001 }, () => me), topic: "", content: "d" }) },
              "draft[\"to\"] is too long (limit: 10000 items)"
            ],
            [
              "GET",
              "/api/v1/messages",
              { anchor: "newest", num_before: "1", num_after: "0", narrow: terms(1001) },
              "narrow is too long (limit: 1000 items)"
            ],
            [
              "POST",
              "/api/v1/messages/flags/narrow",
              { anchor: "newest", num_before: "1", num_after: "0", narrow: terms(1001), op: "add", flag: "read" },
              "narrow is too long (limit: 1000 items)"
            ],
            ["POST", "/api/v1/register", { narrow: list(1001, () => ["is", "starred"]) }, "narrow is too long (limit: 1000 items)"]
          ]
          for (const [method, path, params, msg] of rows) {
            const reply = yield* server.fetch(method, path, method === "GET" ? { as, query: params } : { as, form: params })
            assert.deepStrictEqual(
              { request: `${method} ${path}`, status: reply.status, body: reply.json },
              { request: `${method} ${path}`, status: 400, body: badRequest(msg) }
            )
          }
          // Nothing was sent, scheduled or drafted.
          assert.deepStrictEqual(yield* newest, before)
          const scheduled = yield* server.fetch("GET", "/api/v1/scheduled_messages", { as })
          assert.deepStrictEqual(scheduled.json.scheduled_messages, [])
          const drafts = yield* server.fetch("GET", "/api/v1/drafts", { as })
          assert.strictEqual(drafts.json.count, 0)

          // At the limits: 10,000 recipients (one person, named 10,000 times) and 1,000 terms.
          const sent = yield* server.fetch("POST", "/api/v1/messages", {
            as,
            form: { type: "direct", to: list(10_000, () => me), content: "to myself, many times over" }
          })
          assert.deepStrictEqual([sent.status, sent.json.result], [200, "success"], sent.text.slice(0, 300))
          const starred = yield* server.fetch("POST", "/api/v1/messages/flags", {
            as,
            form: { messages: JSON.stringify([sent.json.id]), op: "add", flag: "starred" }
          })
          assert.strictEqual(starred.status, 200, starred.text)
          const found = yield* server.fetch("GET", "/api/v1/messages", {
            as,
            query: { anchor: "newest", num_before: "5", num_after: "0", narrow: terms(1000) }
          })
          assert.strictEqual(found.status, 200, found.text.slice(0, 300))
          assert.deepStrictEqual(found.json.messages.map((m: { id: number }) => m.id), [sent.json.id])
        }))

      it.effect("any other list parameter: at most 10,000 items", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const as = yield* server.login(accounts.member)
          const reply = yield* server.fetch("POST", "/api/v1/messages/flags", {
            as,
            form: { messages: list(10_001, (i) => i + 1), op: "add", flag: "starred" }
          })
          assert.deepStrictEqual(
            { status: reply.status, body: reply.json },
            { status: 400, body: badRequest("messages is too long (limit: 10000 items)") }
          )
        }))
    })
  })
