/**
 * What Node's HTTP parser answers before a request reaches the routes,
 * checked on raw sockets against a started server: a request line or
 * headers over Node's limit, a body shorter than its Content-Length,
 * malformed HTTP and an HTTP/1.1 request without Host all get Zulip's JSON
 * error instead of Node's bare text, an empty body or a hang. A long poll holds its response past the request timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import * as net from "node:net"
import type { ServerConfig } from "../src/Config.ts"
import * as Server from "../src/Server.ts"

const config: ServerConfig = {
  port: 0,
  host: "127.0.0.1",
  database: { _tag: "Memory" },
  demo: true,
  externalUrl: undefined,
  rateLimit: false,
  logLevel: "None",
  logFormat: "logfmt"
}

/** A server whose request timeout is short, so the timeout case is quick. */
const start = (requestTimeout: `${number} millis`) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      Server.layer(config, { secrets: Teamchat.layerSecretsTest, output: () => {}, requestTimeout })
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    return "port" in address ? address.port : 0
  })

interface RawResponse {
  readonly statusLine: string
  readonly headers: Record<string, string>
  readonly body: string
}

/** Writes `chunks` on a fresh connection and reads until the server closes it. */
const exchange = (port: number, chunks: ReadonlyArray<string>) =>
  Effect.promise(() =>
    new Promise<RawResponse>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1")
      let received = ""
      socket.setEncoding("latin1")
      socket.on("data", (data: string) => (received += data))
      socket.on("error", reject)
      socket.on("close", () => {
        const end = received.indexOf("\r\n\r\n")
        const [statusLine = "", ...lines] = received.slice(0, end).split("\r\n")
        const headers = Object.fromEntries(lines.map((line) => {
          const colon = line.indexOf(":")
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()]
        }))
        resolve({ statusLine, headers, body: received.slice(end + 4) })
      })
      socket.on("connect", () => {
        for (const chunk of chunks) socket.write(chunk)
      })
    })
  )

const assertJsonError = (response: RawResponse, statusLine: string, body: Record<string, unknown>) => {
  assert.strictEqual(response.statusLine, statusLine, response.body)
  assert.strictEqual(response.headers["content-type"], "application/json")
  assert.strictEqual(response.headers["connection"], "close")
  assert.strictEqual(response.headers["content-length"], String(Buffer.byteLength(response.body)))
  assert.deepStrictEqual(JSON.parse(response.body), body)
}

describe("Server transport errors", () => {
  it.live("a URL over Node's header limit gets Zulip's JSON 431", () =>
    Effect.scoped(Effect.gen(function*() {
      const port = yield* start("5000 millis")
      const response = yield* exchange(port, [
        `GET /api/v1/server_settings?q=${"a".repeat(17 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`
      ])
      assertJsonError(response, "HTTP/1.1 431 Request Header Fields Too Large", {
        result: "error",
        msg: "The request's URL or headers are too large.",
        code: "BAD_REQUEST"
      })
    })), { timeout: 30_000 })

  it.live("malformed HTTP gets Zulip's JSON 400", () =>
    Effect.scoped(Effect.gen(function*() {
      const port = yield* start("5000 millis")
      const response = yield* exchange(port, ["GET /api/v1/server_settings HTTP/1.1\r\nHost localhost\r\n\r\n"])
      assertJsonError(response, "HTTP/1.1 400 Bad Request", {
        result: "error",
        msg: "Malformed HTTP request.",
        code: "BAD_REQUEST"
      })
    })), { timeout: 30_000 })

  // Node itself refuses these with an empty 400 unless told not to.
  for (const path of ["/api/v1/server_settings", "/api/v1/users/me", "/api/v1/messages?anchor=newest&num_before=1&num_after=0"]) {
    it.live(`an HTTP/1.1 request without Host gets Zulip's JSON 400: GET ${path}`, () =>
      Effect.scoped(Effect.gen(function*() {
        const port = yield* start("5000 millis")
        const response = yield* exchange(port, [`GET ${path} HTTP/1.1\r\nAuthorization: Basic aWFnb0B6dWxpcC5jb206eA==\r\n\r\n`])
        assertJsonError(response, "HTTP/1.1 400 Bad Request", {
          result: "error",
          msg: "The request has no Host header.",
          code: "BAD_REQUEST"
        })
      })), { timeout: 30_000 })
  }

  // The second is a send of Iago's, whose body the POST /messages shortcut waits for.
  const incomplete = [
    ["POST /api/v1/dev_fetch_api_key", "username=iago", undefined],
    ["POST /api/v1/messages", "type=stream&to=Verona&topic=t&content=c", "iago@zulip.com"]
  ] as const
  for (const [request, body, sender] of incomplete) {
    it.live(`a body shorter than its Content-Length gets Zulip's JSON 408 after the request timeout: ${request}`, () =>
      Effect.scoped(Effect.gen(function*() {
        const port = yield* start("300 millis")
        let authorization = ""
        if (sender !== undefined) {
          const login = yield* Effect.promise(() =>
            fetch(`http://127.0.0.1:${port}/api/v1/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: sender }) })
              .then((r) => r.json() as Promise<{ api_key: string }>)
          )
          authorization = `Authorization: Basic ${Buffer.from(`${sender}:${login.api_key}`).toString("base64")}\r\n`
        }
        const response = yield* exchange(port, [
          `${request} HTTP/1.1\r\nHost: localhost\r\n${authorization}` +
          `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n${body}`
        ])
        assertJsonError(response, "HTTP/1.1 408 Request Timeout", {
          result: "error",
          msg: "The request was not received in time.",
          code: "BAD_REQUEST"
        })
        // The server still answers.
        const settings = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/api/v1/server_settings`))
        assert.strictEqual(settings.status, 200)
      })), { timeout: 30_000 })
  }

  it.live("a long poll holds its response past the request timeout", () =>
    Effect.scoped(Effect.gen(function*() {
      const port = yield* start("200 millis")
      const base = `http://127.0.0.1:${port}/api/v1`
      const key = yield* Effect.promise(async () => {
        const response = await fetch(`${base}/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: "iago@zulip.com" }) })
        return (await response.json() as { api_key: string }).api_key
      })
      const auth = { authorization: `Basic ${Buffer.from(`iago@zulip.com:${key}`).toString("base64")}` }
      const queue = yield* Effect.promise(async () => {
        const response = await fetch(`${base}/register`, { method: "POST", headers: auth, body: new URLSearchParams({ event_types: "[\"alert_words\"]" }) })
        return await response.json() as { queue_id: string; last_event_id: number }
      })
      const poll = fetch(`${base}/events?queue_id=${queue.queue_id}&last_event_id=${queue.last_event_id}`, { headers: auth })
        .then(async (response) => ({ status: response.status, body: await response.json() as { events: Array<{ type: string }> } }))
      // Several request timeouts pass while the poll waits, as the server
      // sees them: three incomplete requests, one after the other on
      // connections of their own, are each answered 408 by the timeout.
      for (let i = 0; i < 3; i++) {
        const timedOut = yield* exchange(port, [
          "POST /api/v1/dev_fetch_api_key HTTP/1.1\r\nHost: localhost\r\n" +
          "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nusername=iago"
        ])
        assert.strictEqual(timedOut.statusLine, "HTTP/1.1 408 Request Timeout")
      }
      yield* Effect.promise(() =>
        fetch(`${base}/users/me/alert_words`, { method: "POST", headers: auth, body: new URLSearchParams({ alert_words: "[\"ping\"]" }) })
      )
      const answer = yield* Effect.promise(() => poll)
      assert.strictEqual(answer.status, 200)
      assert.deepStrictEqual(answer.body.events.map((event) => event.type), ["alert_words"])
    })), { timeout: 30_000 })
})
