/**
 * The examples, run as a reader runs them:
 * examples/embed-in-node-server.ts on an ephemeral port (the host's route
 * and 404 are the host's, /api/v1/* is teamchat's, request bodies included),
 * and examples/send-and-read.ts as its own `node` process, its output checked
 * line for line.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { start } from "./embed-in-node-server.ts"

const text = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    return { status: response.status, type: response.headers.get("content-type"), body: await response.text() }
  })

describe("teamchat embedded in a plain node:http server", () => {
  it.live("serves the host's routes and teamchat's API side by side", () =>
    Effect.acquireUseRelease(
      Effect.promise(() => start({ port: 0 })),
      (app) =>
        Effect.gen(function*() {
          const health = yield* text(`${app.url}/healthz`)
          assert.deepStrictEqual(health, { status: 200, type: "text/plain", body: "ok\n" })

          const other = yield* text(`${app.url}/about`)
          assert.deepStrictEqual(other, { status: 404, type: "text/plain", body: "host app: no such page\n" })

          const settings = yield* text(`${app.url}/api/v1/server_settings`)
          assert.strictEqual(settings.status, 200)
          assert.strictEqual(settings.type, "application/json")
          const body = JSON.parse(settings.body) as { result: string; realm_name: string; realm_url: string }
          assert.strictEqual(body.result, "success")
          assert.strictEqual(body.realm_name, "Zulip Dev")
          assert.strictEqual(body.realm_url, `http://localhost:${new URL(app.url).port}`)

          // A form body goes through the host to teamchat, and the key works.
          const grant = yield* text(`${app.url}/api/v1/dev_fetch_api_key`, {
            method: "POST",
            body: new URLSearchParams({ username: "iago@zulip.com" })
          })
          assert.strictEqual(grant.status, 200)
          const { api_key } = JSON.parse(grant.body) as { api_key: string }
          const me = yield* text(`${app.url}/api/v1/users/me`, {
            headers: { authorization: `Basic ${Buffer.from(`iago@zulip.com:${api_key}`).toString("base64")}` }
          })
          assert.strictEqual(me.status, 200)
          assert.strictEqual((JSON.parse(me.body) as { full_name: string }).full_name, "Iago")

          // teamchat's own 404 for unknown API paths, in Zulip's shape.
          const missing = yield* text(`${app.url}/api/v1/no_such_endpoint`)
          assert.strictEqual(missing.status, 404)
          assert.strictEqual((JSON.parse(missing.body) as { result: string }).result, "error")
        }),
      (app) => Effect.promise(() => app.close())
    ))
})

/** `node <example>` from the repository root, as the example's header says to run it. */
const runExample = (file: string) =>
  Effect.promise(() =>
    new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [fileURLToPath(new URL(file, import.meta.url))],
        { cwd: fileURLToPath(new URL("..", import.meta.url)), timeout: 30_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
      )
    })
  )

describe("examples/send-and-read.ts", () => {
  it.live("sends a channel and a direct message and reads them back", () =>
    Effect.gen(function*() {
      const run = yield* runExample("./send-and-read.ts")
      assert.deepStrictEqual(run, {
        code: 0,
        stdout: [
          "sent #1 to #general > lunch and #2 to Bob",
          "#general > lunch #1 Ann: <p>Pizza at <strong>noon</strong>?</p>",
          "anchor #2 found: true",
          "direct #2 Ann: <p>Bring the menu, please.</p> (unread)",
          "event 8: message #1 from Ann",
          "event 9: message #2 from Ann",
          ""
        ].join("\n"),
        stderr: ""
      })
    }))
})
