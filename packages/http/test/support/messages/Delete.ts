/** DELETE /messages/{message_id}: who may delete, the time limit, and the `delete_message` events in both forms. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Server } from "../Harness.ts"
import type { Credentials } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import {
  as,
  badRequest,
  bare,
  channels,
  expectReply,
  getMessage,
  invalidMessages,
  list,
  narrowOf,
  person,
  register,
  sent,
  subscribe,
  success,
  unsubscribe
} from "./fixtures.ts"

const deleteMessage = (who: Credentials, id: number | string) =>
  Effect.flatMap(Server, (server) => server.fetch("DELETE", `/api/v1/messages/${id}`, { as: who }))

const cannotDelete = badRequest("You don't have permission to delete this message")
const timeLimitPassed = badRequest("The time limit for deleting this message has passed")

const types = JSON.stringify(["delete_message"])
const bulk = JSON.stringify({ bulk_message_deletion: true })

export const deleteTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("DELETE /messages/{id}: the sender deletes; the message is gone; bulk and per-message events, topic lower-cased", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const othello = yield* person("othello@zulip.com")
      const cordelia = yield* person("cordelia@zulip.com")
      const name = "delete one message"
      yield* subscribe(hamlet, [name])
      yield* subscribe(othello, [name])
      const channel = (yield* channels)[name]!
      const first = yield* sent(hamlet, { type: "stream", to: name, topic: "Mixed Case", content: "first" })
      const doomed = yield* sent(hamlet, { type: "stream", to: name, topic: "Mixed Case", content: "doomed" })
      const senderQueue = yield* register(hamlet, { event_types: types, client_capabilities: bulk })
      const legacy = yield* register(othello, { event_types: types })
      // Not subscribed, no copy: not told.
      const outsider = yield* register(cordelia, { event_types: types, client_capabilities: bulk })

      expectReply(yield* deleteMessage(hamlet, doomed), 200, success())
      expectReply(yield* getMessage(hamlet, doomed), 400, invalidMessages)
      const listed = yield* list(othello, {
        anchor: "newest",
        num_before: "10",
        num_after: "0",
        narrow: narrowOf([["channel", name]])
      })
      assert.deepStrictEqual(listed.json.messages.map((m: { id: number }) => m.id), [first])
      const where = { message_type: "stream", stream_id: channel.id, topic: "mixed case" }
      assert.deepStrictEqual(bare(yield* senderQueue.drain), [{ type: "delete_message", message_ids: [doomed], ...where }])
      assert.deepStrictEqual(bare(yield* legacy.drain), [{ type: "delete_message", message_id: doomed, ...where }])
      assert.deepStrictEqual(yield* outsider.drain, [])
      // Deleting it again, or any message that does not exist.
      expectReply(yield* deleteMessage(hamlet, doomed), 400, invalidMessages)
      expectReply(yield* deleteMessage(hamlet, 987654321), 400, invalidMessages)
      assert.deepStrictEqual(yield* senderQueue.drain, [])
      yield* unsubscribe(othello, [name])
      yield* unsubscribe(hamlet, [name])
    }))

  it.effect("DELETE /messages/{id}: someone else's message only as an administrator; the first message's deletion moves first_message_id", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const othello = yield* person("othello@zulip.com")
      const name = "delete others"
      yield* subscribe(hamlet, [name])
      yield* subscribe(othello, [name])
      const channel = (yield* channels)[name]!
      const first = yield* sent(othello, { type: "stream", to: name, topic: "t", content: "one" })
      const second = yield* sent(othello, { type: "stream", to: name, topic: "t", content: "two" })
      for (const role of ["member", "moderator", "guest", "bot"] as const) {
        expectReply(yield* deleteMessage(yield* as(role), first), 400, role === "guest" ? invalidMessages : cannotDelete)
      }
      const queue = yield* register(othello, {
        event_types: JSON.stringify(["delete_message", "stream"]),
        client_capabilities: bulk
      })
      expectReply(yield* deleteMessage(yield* as("admin"), first), 200, success())
      assert.deepStrictEqual(bare(yield* queue.drain), [
        { type: "stream", op: "update", property: "first_message_id", value: second, stream_id: channel.id, name },
        { type: "delete_message", message_ids: [first], message_type: "stream", stream_id: channel.id, topic: "t" }
      ])
      assert.strictEqual((yield* channels)[name]!.first_message_id, second)
      expectReply(yield* deleteMessage(yield* as("owner"), second), 200, success())
      yield* unsubscribe(othello, [name])
      yield* unsubscribe(hamlet, [name])
    }))

  it.effect("DELETE /messages/{id}: a direct message, by its sender only; both participants told, in the private form", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const othello = yield* person("othello@zulip.com")
      const cordelia = yield* person("cordelia@zulip.com")
      const id = yield* sent(hamlet, { type: "private", to: JSON.stringify([othello.userId]), content: "secret" })
      expectReply(yield* deleteMessage(othello, id), 400, cannotDelete)
      // Not a participant: the message does not exist for them, administrators included.
      expectReply(yield* deleteMessage(cordelia, id), 400, invalidMessages)
      expectReply(yield* deleteMessage(yield* as("admin"), id), 400, invalidMessages)
      const recipient = yield* register(othello, { event_types: types })
      const sender = yield* register(hamlet, { event_types: types, client_capabilities: bulk })
      const outsider = yield* register(cordelia, { event_types: types, client_capabilities: bulk })
      expectReply(yield* deleteMessage(hamlet, id), 200, success())
      assert.deepStrictEqual(bare(yield* recipient.drain), [{ type: "delete_message", message_id: id, message_type: "private" }])
      assert.deepStrictEqual(bare(yield* sender.drain), [{ type: "delete_message", message_ids: [id], message_type: "private" }])
      assert.deepStrictEqual(yield* outsider.drain, [])
      expectReply(yield* getMessage(othello, id), 400, invalidMessages)
    }))

  it.effect("DELETE /messages/{id}: one's own message for 600 seconds after sending, no longer; administrators whenever", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const hamlet = yield* as("member")
      const atLimit = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "delete limit", content: "at the limit" })
      const pastLimit = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "delete limit", content: "past it" })
      server.clock.advance(600_000)
      expectReply(yield* deleteMessage(hamlet, atLimit), 200, success())
      server.clock.advance(1_000)
      expectReply(yield* deleteMessage(hamlet, pastLimit), 400, timeLimitPassed)
      assert.strictEqual((yield* getMessage(hamlet, pastLimit)).status, 200)
      expectReply(yield* deleteMessage(yield* as("admin"), pastLimit), 200, success())
    }))

  it.effect("DELETE /messages/{id}: the empty topic is \"general chat\" to clients without empty_topic_name", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const verona = (yield* channels).Verona!
      const id = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "", content: "no topic" })
      const modern = yield* register(hamlet, {
        event_types: types,
        client_capabilities: JSON.stringify({ bulk_message_deletion: true, empty_topic_name: true })
      })
      const older = yield* register(hamlet, { event_types: types, client_capabilities: bulk })
      expectReply(yield* deleteMessage(hamlet, id), 200, success())
      const where = { message_type: "stream", stream_id: verona.id }
      assert.deepStrictEqual(bare(yield* modern.drain), [{ type: "delete_message", message_ids: [id], ...where, topic: "" }])
      assert.deepStrictEqual(bare(yield* older.drain), [
        { type: "delete_message", message_ids: [id], ...where, topic: "general chat" }
      ])
    }))
}
