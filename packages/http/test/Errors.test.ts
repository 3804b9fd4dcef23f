/**
 * Responses outside the endpoints' happy paths: unknown routes and methods,
 * bodies over the limit, defects. Every one is Zulip's error JSON with
 * `Content-Type: application/json`.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Users } from "@teamchat/core/services/Users"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { accounts, demoLayer, layerServer, makeRequest, realmUrl, Server } from "./support/Harness.ts"

const notFound = { result: "error", msg: "Not Found", code: "BAD_REQUEST" }

describe("unknown routes", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("any unknown path is Zulip's 404, whatever the method", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const cases: ReadonlyArray<readonly [string, string]> = [
          ["GET", "/api/v1/no_such_endpoint"],
          ["GET", "/api/v1/users/me/nothing/here"],
          ["POST", "/api/v1/users/me/nothing/here"],
          ["GET", "/index.html"],
          ["GET", "/json/users/me"],
          ["OPTIONS", "/api/v1/no_such_endpoint"],
          ["HEAD", "/api/v1/no_such_endpoint"],
          // Paths the router cannot even decode.
          ["GET", "/api/v1/users/%E0%A4%A"],
          ["GET", "/api/v1/users/%"]
        ]
        for (const [method, path] of cases) {
          const response = yield* Effect.promise(() => server.handler(makeRequest(method, path, { as: hamlet })))
          assert.strictEqual(response.status, 404, `${method} ${path}`)
          assert.strictEqual(response.headers.get("content-type"), "application/json", `${method} ${path}`)
          if (method !== "HEAD") assert.deepStrictEqual(yield* Effect.promise(() => response.json()), notFound, `${method} ${path}`)
        }
      }))

    // Zulip's rest_dispatch (json_method_not_allowed): no `code`, the methods in
    // `allowed_methods` and in Django's Allow header, HEAD wherever GET is.
    it.effect("a known path with another method is Zulip's 405, with the path's methods in Allow", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const cases: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
          ["POST", "/api/v1/server_settings", ["GET", "HEAD"]],
          ["DELETE", "/api/v1/server_settings", ["GET", "HEAD"]],
          ["PATCH", "/api/v1/streams", ["GET", "HEAD"]],
          ["GET", "/api/v1/fetch_api_key", ["POST"]],
          ["HEAD", "/api/v1/fetch_api_key", ["POST"]],
          ["PUT", "/api/v1/messages", ["GET", "POST", "HEAD"]],
          ["PATCH", "/api/v1/users/me/alert_words", ["GET", "POST", "DELETE", "HEAD"]],
          // The static path shadows /users/{user_id_or_email}: PATCH there is no update of a user "me".
          ["PUT", "/api/v1/users/me", ["GET", "DELETE", "HEAD"]],
          ["POST", "/api/v1/users/me", ["GET", "DELETE", "HEAD"]],
          ["PATCH", "/api/v1/users/me", ["GET", "DELETE", "HEAD"]],
          // Likewise every static path Zulip's urls.py lists before a pattern that would match it.
          ["GET", "/api/v1/users/me/presence", ["POST"]],
          ["GET", "/api/v1/users/me/status", ["POST"]],
          ["PATCH", "/api/v1/user_groups/create", ["POST"]],
          ["GET", "/api/v1/messages/flags", ["POST"]],
          ["GET", "/api/v1/drafts/12", ["PATCH", "DELETE"]],
          // The query string is not the path's.
          ["GET", "/api/v1/fetch_api_key?username=x", ["POST"]],
          ["POST", "/", ["GET", "HEAD"]]
        ]
        for (const [method, path, allowed] of cases) {
          const response = yield* Effect.promise(() => server.handler(makeRequest(method, path, { as: hamlet })))
          assert.strictEqual(response.status, 405, `${method} ${path}`)
          assert.strictEqual(response.headers.get("content-type"), "application/json", `${method} ${path}`)
          assert.strictEqual(response.headers.get("allow"), allowed.join(", "), `${method} ${path}`)
          const text = yield* Effect.promise(() => response.text())
          if (method === "HEAD") assert.strictEqual(text, "", `${method} ${path}`)
          else {
            assert.deepStrictEqual(
              JSON.parse(text),
              { result: "error", msg: "Method Not Allowed", allowed_methods: allowed },
              `${method} ${path}`
            )
          }
        }
      }))

    it.effect("OPTIONS on a known path is Zulip's 204 with the path's methods, sorted, in Allow", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const cases: ReadonlyArray<readonly [string, string]> = [
          ["/api/v1/users", "GET, HEAD"],
          ["/api/v1/users/me/alert_words", "DELETE, GET, HEAD, POST"],
          ["/api/v1/fetch_api_key", "POST"]
        ]
        for (const [path, allow] of cases) {
          const response = yield* Effect.promise(() => server.handler(makeRequest("OPTIONS", path)))
          assert.strictEqual(response.status, 204, path)
          assert.strictEqual(response.headers.get("allow"), allow, path)
          assert.strictEqual(yield* Effect.promise(() => response.text()), "", path)
        }
      }))

    it.effect("HEAD on a GET route answers as GET, without the body", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const cases: ReadonlyArray<readonly [string, (typeof hamlet) | undefined]> = [
          ["/api/v1/server_settings", undefined],
          ["/api/v1/users/me", hamlet],
          ["/api/v1/messages?anchor=newest&num_before=2&num_after=0", hamlet],
          ["/api/v1/users/me/alert_words", hamlet],
          ["/static/generated/emoji/emoji_api.json", undefined],
          // Refused as GET is: no credentials.
          ["/api/v1/users/me", undefined]
        ]
        for (const [path, as] of cases) {
          const get = yield* Effect.promise(() => server.handler(makeRequest("GET", path, { as })))
          const getText = yield* Effect.promise(() => get.text())
          const head = yield* Effect.promise(() => server.handler(makeRequest("HEAD", path, { as })))
          assert.strictEqual(head.status, get.status, path)
          assert.strictEqual(head.headers.get("content-type"), get.headers.get("content-type"), path)
          assert.strictEqual(head.headers.get("content-length"), String(Buffer.byteLength(getText)), path)
          assert.strictEqual(head.headers.get("www-authenticate"), get.headers.get("www-authenticate"), path)
          assert.strictEqual(yield* Effect.promise(() => head.text()), "", path)
        }
      }))

    it.effect("the OpenAPI document", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("GET", "/api/v1/openapi.json")
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.headers.get("content-type"), "application/json")
        assert.strictEqual(reply.json.openapi, "3.1.0")
        assert.deepStrictEqual(Object.keys(reply.json.paths).sort(), [
          "/api/v1/attachments",
          "/api/v1/attachments/{attachment_id}",
          "/api/v1/dev_fetch_api_key",
          "/api/v1/dev_list_users",
          "/api/v1/drafts",
          "/api/v1/drafts/{draft_id}",
          "/api/v1/events",
          "/api/v1/fetch_api_key",
          "/api/v1/get_stream_id",
          "/api/v1/invites",
          "/api/v1/invites/multiuse",
          "/api/v1/invites/multiuse/{invite_id}",
          "/api/v1/mark_all_as_read",
          "/api/v1/mark_stream_as_read",
          "/api/v1/mark_topic_as_read",
          "/api/v1/messages",
          "/api/v1/messages/flags",
          "/api/v1/messages/flags/narrow",
          "/api/v1/messages/matches_narrow",
          "/api/v1/messages/render",
          "/api/v1/messages/{message_id}",
          "/api/v1/messages/{message_id}/history",
          "/api/v1/messages/{message_id}/reactions",
          "/api/v1/messages/{message_id}/read_receipts",
          "/api/v1/messages/{message_id}/typing",
          "/api/v1/mobile_push/register",
          "/api/v1/realm/presence",
          "/api/v1/realm/profile_fields",
          "/api/v1/realm/profile_fields/{field_id}",
          "/api/v1/register",
          "/api/v1/saved_snippets",
          "/api/v1/saved_snippets/{saved_snippet_id}",
          "/api/v1/scheduled_messages",
          "/api/v1/scheduled_messages/{scheduled_message_id}",
          "/api/v1/server_settings",
          "/api/v1/settings",
          "/api/v1/streams",
          "/api/v1/streams/{stream_id}/delete_topic",
          "/api/v1/submessage",
          "/api/v1/typing",
          "/api/v1/user_groups",
          "/api/v1/user_groups/create",
          "/api/v1/user_groups/{user_group_id}",
          "/api/v1/user_groups/{user_group_id}/deactivate",
          "/api/v1/user_groups/{user_group_id}/members",
          "/api/v1/user_groups/{user_group_id}/members/{user_id}",
          "/api/v1/user_groups/{user_group_id}/subgroups",
          "/api/v1/user_topics",
          "/api/v1/user_uploads",
          "/api/v1/user_uploads/{realm_id_str}/{filename}",
          "/api/v1/users",
          "/api/v1/users/me",
          "/api/v1/users/me/alert_words",
          "/api/v1/users/me/muted_users/{muted_user_id}",
          "/api/v1/users/me/presence",
          "/api/v1/users/me/profile_data",
          "/api/v1/users/me/status",
          "/api/v1/users/me/subscriptions",
          "/api/v1/users/me/subscriptions/muted_topics",
          "/api/v1/users/me/subscriptions/properties",
          "/api/v1/users/me/{stream_id}/topics",
          "/api/v1/users/{user_id_or_email}",
          "/api/v1/users/{user_id_or_email}/presence",
          "/api/v1/users/{user_id}",
          "/api/v1/users/{user_id}/reactivate",
          "/api/v1/users/{user_id}/status",
          "/user_uploads/temporary/{token}/{filename}",
          "/user_uploads/{realm_id}/{filename}"
        ])
        // The upload's body is a multipart stream of one file; the download is the file's bytes.
        assert.deepStrictEqual(
          Object.keys(reply.json.paths["/api/v1/user_uploads"].post.requestBody.content),
          ["multipart/form-data"]
        )
        assert.deepStrictEqual(
          reply.json.paths["/user_uploads/{realm_id}/{filename}"].get.parameters.map((p: { name: string }) => p.name),
          ["realm_id", "filename"]
        )
        // The temporary URL's paths under Zulip's names (the router's wildcards are the rest of the path).
        assert.deepStrictEqual(
          reply.json.paths["/api/v1/user_uploads/{realm_id_str}/{filename}"].get.parameters.map((p: { name: string }) => p.name),
          ["realm_id_str", "filename"]
        )
        assert.deepStrictEqual(
          reply.json.paths["/user_uploads/temporary/{token}/{filename}"].get.parameters.map((p: { name: string; in: string }) => [p.name, p.in]),
          [["token", "path"], ["filename", "path"]]
        )
        // Fetching by a temporary URL needs no credentials.
        assert.deepStrictEqual(reply.json.paths["/user_uploads/temporary/{token}/{filename}"].get.security, [])
        assert.deepStrictEqual(reply.json.paths["/api/v1/user_uploads/{realm_id_str}/{filename}"].get.security, [{ basic: [] }])
        assert.deepStrictEqual(Object.keys(reply.json.paths["/api/v1/events"]).sort(), ["delete", "get"])
        assert.deepStrictEqual(Object.keys(reply.json.paths["/api/v1/users/me/alert_words"]).sort(), ["delete", "get", "post"])
        const me = reply.json.paths["/api/v1/users/me"].get
        assert.deepStrictEqual(me.security, [{ basic: [] }])
        assert.deepStrictEqual(Object.keys(me.responses), ["200", "400", "401", "403", "404", "413", "429", "500", "503"])
        const users = reply.json.paths["/api/v1/users"].get
        assert.deepStrictEqual(users.parameters.map((p: { name: string }) => p.name), [
          "client_gravatar",
          "include_custom_profile_fields",
          "user_ids"
        ])
      }))
  })
})

describe("body size limit", () => {
  const maxBodyBytes = 256
  layer(layerServer((clock) => demoLayer("memory", clock), { maxBodyBytes }))((it) => {
    const tooLarge = {
      result: "error",
      msg: `Request body is larger than the allowed limit of ${maxBodyBytes} bytes`,
      code: "BAD_REQUEST"
    }
    const big = "x".repeat(maxBodyBytes * 2)

    it.effect("a form body over the limit is a 413 (Content-Length)", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
          form: { username: accounts.member, padding: big }
        })
        assert.strictEqual(reply.status, 413)
        assert.strictEqual(reply.headers.get("content-type"), "application/json")
        assert.deepStrictEqual(reply.json, tooLarge)
      }))

    it.effect("a multipart body over the limit is a 413", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
          multipart: { username: accounts.member, padding: big }
        })
        assert.strictEqual(reply.status, 413)
        assert.deepStrictEqual(reply.json, tooLarge)
      }))

    const streamed = (contentType: string, text: string) => {
      const bytes = new TextEncoder().encode(text)
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 64) controller.enqueue(bytes.slice(i, i + 64))
          controller.close()
        }
      })
      return new Request(`${realmUrl}/api/v1/dev_fetch_api_key`, {
        method: "POST",
        headers: { "content-type": contentType },
        body,
        duplex: "half"
      } as RequestInit)
    }

    it.effect("a body over the limit without Content-Length is a 413 while reading", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const form = yield* server.fetchRaw(
          streamed("application/x-www-form-urlencoded", `username=${accounts.member}&padding=${big}`)
        )
        assert.strictEqual(form.status, 413)
        assert.deepStrictEqual(form.json, tooLarge)
        const boundary = "zulipboundary"
        const multipart = [
          `--${boundary}\r\nContent-Disposition: form-data; name="username"\r\n\r\n${accounts.member}\r\n`,
          `--${boundary}\r\nContent-Disposition: form-data; name="padding"\r\n\r\n${big}\r\n`,
          `--${boundary}--\r\n`
        ].join("")
        const parts = yield* server.fetchRaw(streamed(`multipart/form-data; boundary=${boundary}`, multipart))
        assert.strictEqual(parts.status, 413)
        assert.deepStrictEqual(parts.json, tooLarge)
      }))

    it.effect("a body within the limit is fine, streamed or not", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetchRaw(streamed("application/x-www-form-urlencoded", `username=${accounts.member}`))
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.json.email, accounts.member)
      }))
  })
})

describe("defects", () => {
  const logged: Array<string> = []
  const capture = Logger.layer([Logger.make((options) => void logged.push(`${options.logLevel}: ${String(options.message)}`))])
  // Users.me dies; everything else works.
  const broken = (clock: Parameters<typeof demoLayer>[1]) =>
    Layer.effect(
      Users,
      Effect.map(Users, (users) => Users.of({ ...users, me: () => Effect.die(new Error("boom")) }))
    ).pipe(Layer.provideMerge(demoLayer("memory", clock)), Layer.provideMerge(capture))

  layer(layerServer(broken))((it) => {
    it.effect("an unexpected defect is a logged 500 with Zulip's body", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const reply = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
        assert.strictEqual(reply.status, 500)
        assert.strictEqual(reply.headers.get("content-type"), "application/json")
        assert.deepStrictEqual(reply.json, { result: "error", msg: "Internal server error", code: "BAD_REQUEST" })
        assert.isTrue(logged.some((line) => line.startsWith("Error: ") && line.includes("users.me")), logged.join("\n"))
        const fine = yield* server.fetch("GET", "/api/v1/users", { as: hamlet })
        assert.strictEqual(fine.status, 200)
      }))
  })
})
