/**
 * A real Zulip client against a running server: zulip-js (the npm package
 * bots and scripts use) logs in with a password, sends, reacts, edits,
 * deletes and types, exactly as it builds its requests (form bodies for
 * POST, query strings for GET, PATCH and DELETE), while a second zulip-js
 * client reads the events a queue of its own receives.
 */
import { assert, describe, it } from "@effect/vitest"
import * as DemoData from "@teamchat/core/demo/DemoData"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import { setDefaultResultOrder } from "node:dns"
import zulip from "zulip-js"
import type { Client } from "zulip-js"
import type { ServerConfig } from "../../src/Config.ts"
import * as Server from "../../src/Server.ts"

// The server listens on 127.0.0.1; "localhost" must not resolve to ::1 first.
setDefaultResultOrder("ipv4first")

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

const start = Effect.gen(function*() {
  const context = yield* Layer.build(Server.layer(config, { secrets: Teamchat.layerSecretsTest, output: () => {} }))
  const address = Context.get(context, HttpServer.HttpServer).address
  return `http://localhost:${"port" in address ? address.port : 0}`
})

const call = (request: () => Promise<Record<string, any>>) => Effect.promise(request)

/** Events from `queue` until `count` have arrived (each GET /events waits for the next ones). */
const eventsOf = (client: Client, queue: string, count: number): Effect.Effect<Array<Record<string, any>>> =>
  Effect.promise(async () => {
    const events: Array<Record<string, any>> = []
    let last = -1
    while (events.length < count) {
      const reply = await client.events.retrieve({ queue_id: queue, last_event_id: last })
      if (reply.result !== "success") throw new Error(JSON.stringify(reply))
      for (const event of reply.events as Array<Record<string, any>>) {
        last = event.id
        if (event.type !== "heartbeat") events.push(event)
      }
    }
    return events
  })

const success = { result: "success", msg: "" }

describe("zulip-js against teamchat", () => {
  it.live("reacts, edits, deletes and types; another client's queue sees each", () =>
    Effect.scoped(Effect.gen(function*() {
      const realm = yield* start
      const login = (username: string) => Effect.promise(() => zulip({ username, password: DemoData.password, realm }))
      const hamlet = yield* login("hamlet@zulip.com")
      const othello = yield* login("othello@zulip.com")
      // Their ids and their emails as others see them (the organization hides real addresses).
      const othelloProfile = yield* call(() => othello.users.me.getProfile())
      const hamletProfile = yield* call(() => hamlet.users.me.getProfile())
      const [othelloId, othelloEmail] = [othelloProfile.user_id as number, othelloProfile.email as string]
      const [hamletId, hamletEmail] = [hamletProfile.user_id as number, hamletProfile.email as string]

      const queue = yield* call(() =>
        othello.queues.register({ event_types: ["message", "reaction", "update_message", "delete_message", "typing"] })
      )
      assert.strictEqual(queue.result, "success", JSON.stringify(queue))

      const sent = yield* call(() => hamlet.messages.send({ type: "stream", to: "Verona", topic: "zulip-js", content: "hello" }))
      const id = sent.id as number
      assert.isTrue(Number.isSafeInteger(id))
      assert.deepStrictEqual(sent, { ...success, id })

      assert.deepStrictEqual(yield* call(() => hamlet.reactions.add({ message_id: id, emoji_name: "octopus" })), success)
      assert.deepStrictEqual(yield* call(() => othello.reactions.add({ message_id: id, emoji_name: "octopus" })), success)
      assert.deepStrictEqual(yield* call(() => hamlet.reactions.add({ message_id: id, emoji_name: "octopus" })), {
        result: "error",
        msg: "Reaction already exists.",
        code: "REACTION_ALREADY_EXISTS"
      })
      assert.deepStrictEqual(yield* call(() => hamlet.reactions.remove({ message_id: id, emoji_name: "octopus" })), success)

      assert.deepStrictEqual(
        yield* call(() => hamlet.messages.update({ message_id: id, content: "hello, edited" })),
        { ...success, detached_uploads: [] }
      )
      const read = yield* call(() =>
        othello.messages.retrieve({
          anchor: id,
          num_before: 0,
          num_after: 0,
          apply_markdown: false,
          narrow: [{ operator: "id", operand: id }]
        })
      )
      const [message] = read.messages as Array<Record<string, any>>
      assert.strictEqual(message?.content, "hello, edited")
      assert.deepStrictEqual(message?.reactions, [
        { emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji", user_id: othelloId }
      ])

      assert.deepStrictEqual(yield* call(() => hamlet.typing.send({ to: [othelloId], op: "start" })), success)
      assert.deepStrictEqual(yield* call(() => hamlet.typing.send({ to: [othelloId], op: "stop" })), success)
      assert.deepStrictEqual(yield* call(() => hamlet.messages.deleteById({ message_id: id })), success)

      const events = yield* eventsOf(othello, queue.queue_id as string, 8)
      assert.deepStrictEqual(
        events.map((e) => [e.type, e.op ?? null, e.user_id ?? e.sender?.user_id ?? e.message?.sender_id ?? null]),
        [
          ["message", null, hamletId],
          ["reaction", "add", hamletId],
          ["reaction", "add", othelloId],
          ["reaction", "remove", hamletId],
          ["update_message", null, hamletId],
          ["typing", "start", hamletId],
          ["typing", "stop", hamletId],
          ["delete_message", null, null]
        ]
      )
      const [, , , removed, edited, typing, , deleted] = events
      assert.deepStrictEqual(
        { ...removed, id: 0 },
        {
          type: "reaction",
          op: "remove",
          id: 0,
          user_id: hamletId,
          user: { user_id: hamletId, email: hamletEmail, full_name: "King Hamlet" },
          message_id: id,
          emoji_name: "octopus",
          emoji_code: "1f419",
          reaction_type: "unicode_emoji"
        }
      )
      assert.strictEqual(edited?.message_id, id)
      assert.strictEqual(edited?.content, "hello, edited")
      assert.strictEqual(edited?.orig_content, "hello")
      assert.deepStrictEqual(typing?.recipients, [
        { user_id: othelloId, email: othelloEmail },
        { user_id: hamletId, email: hamletEmail }
      ])
      // No bulk_message_deletion capability: one message_id.
      assert.deepStrictEqual({ ...deleted, id: 0 }, {
        type: "delete_message",
        id: 0,
        message_id: id,
        message_type: "stream",
        stream_id: message?.stream_id,
        topic: "zulip-js"
      })
    })), { timeout: 120_000 })
})
