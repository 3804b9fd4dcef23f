/**
 * Uploads' writes that race on PostgreSQL: eight DELETEs of one attachment
 * at once (its row is locked: one succeeds, the others find nothing,
 * "Invalid attachment", and one `remove` is announced), and eight messages
 * claiming one upload at once (each link is written once: the attachment
 * ends linked to all eight, one `update` per message).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { openQueue } from "./support/EventListener.ts"
import { demoLayer, layerServer, makeRequest, Server } from "./support/Harness.ts"

describe("uploads racing on PostgreSQL", () => {
  layer(layerServer((clock) => demoLayer("PostgreSQL", clock)), { timeout: "120 seconds" })((it) => {
    const upload = (who: { email: string; apiKey: string }, name: string) =>
      Effect.flatMap(Server, (server) =>
        Effect.promise(async () => {
          const body = new FormData()
          body.append("file", new Blob(["race"], { type: "text/plain" }), name)
          const response = await server.handler(makeRequest("POST", "/api/v1/user_uploads", { as: who, body }))
          return (await response.json()) as { url: string }
        }))

    it.effect("eight DELETEs of one attachment: one succeeds, one remove event, the others 'Invalid attachment'", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const who = yield* server.login("hamlet@zulip.com")
        const { url } = yield* upload(who, "delete me.txt")
        const listed = yield* server.fetch("GET", "/api/v1/attachments", { as: who })
        const id = (listed.json.attachments as Array<{ id: number; path_id: string }>).find((a) => url.endsWith(a.path_id))!.id
        const queue = yield* openQueue(who, ["attachment"])
        const replies = yield* Effect.all(
          Array.from({ length: 8 }, () => server.fetch("DELETE", `/api/v1/attachments/${id}`, { as: who })),
          { concurrency: "unbounded" }
        )
        const report = replies.map((r) => `${r.status} ${r.text}`).join("\n")
        assert.strictEqual(replies.filter((r) => r.status === 200).length, 1, report)
        for (const reply of replies.filter((r) => r.status !== 200)) {
          assert.deepStrictEqual(reply.json, { result: "error", msg: "Invalid attachment", code: "BAD_REQUEST" }, report)
        }
        const events = yield* queue.poll
        assert.deepStrictEqual(events.map((e) => [e.op, (e.attachment as { id: number }).id]), [["remove", id]])
        const gone = yield* Effect.promise(() => server.handler(makeRequest("GET", url, { as: who })))
        assert.strictEqual(gone.status, 404)
      }))

    it.effect("eight messages claiming one upload at once: linked to all eight, one update each", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const who = yield* server.login("othello@zulip.com")
        const { url } = yield* upload(who, "shared.txt")
        const queue = yield* openQueue(who, ["attachment"])
        const replies = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) =>
            server.fetch("POST", "/api/v1/messages", {
              as: who,
              form: { type: "stream", to: "Verona", topic: `race ${i}`, content: `[shared](${url})` }
            })),
          { concurrency: "unbounded" }
        )
        for (const reply of replies) assert.strictEqual(reply.status, 200, reply.text)
        const ids = replies.map((r) => r.json.id as number).sort((a, b) => a - b)
        const listed = yield* server.fetch("GET", "/api/v1/attachments", { as: who })
        const attachment = (listed.json.attachments as Array<{ path_id: string; messages: Array<{ id: number }> }>)
          .find((a) => url.endsWith(a.path_id))!
        assert.deepStrictEqual(attachment.messages.map((m) => m.id), ids)
        const events = yield* queue.poll
        assert.strictEqual(events.filter((e) => e.op === "update").length, 8)
      }))
  })
})
