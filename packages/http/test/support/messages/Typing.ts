/** POST /typing and `typing` events; POST /messages/{id}/typing and `typing_edit_message` events. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { as, badRequest, bare, expectReply, invalidMessages, ownChannel, person, register, sent, success } from "./fixtures.ts"

const typing = (who: Credentials, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/typing", { as: who, form }))

const settings = (who: Credentials, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("PATCH", "/api/v1/settings", { as: who, form }))

const editTyping = (who: Credentials, id: number | string, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", `/api/v1/messages/${id}/typing`, { as: who, form }))

const typingEvents = JSON.stringify(["typing"])
const editEvents = JSON.stringify(["typing_edit_message"])
const withChannelTyping = JSON.stringify({ stream_typing_notifications: true })

export const typingTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("typing: a direct notification reaches every participant (the sender too), nobody else", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const othello = yield* person("othello@zulip.com")
      const { members: [a, b] } = yield* ownChannel(
        iago,
        [["typing-dm-a@zulip.com", "Typist A"], ["typing-dm-b@zulip.com", "Typist B"]],
        { name: "typing dm" }
      )
      const queueA = yield* register(a.as, { event_types: typingEvents })
      const queueB = yield* register(b.as, { event_types: typingEvents })
      const outsider = yield* register(othello, { event_types: typingEvents, client_capabilities: withChannelTyping })
      const personA = { user_id: a.id, email: (yield* person("typing-dm-a@zulip.com")).apiEmail }
      const personB = { user_id: b.id, email: (yield* person("typing-dm-b@zulip.com")).apiEmail }

      expectReply(yield* typing(a.as, { op: "start", to: JSON.stringify([b.id]) }), 200, success())
      // The sender is added to `recipients` after the ids given.
      const started = { type: "typing", op: "start", message_type: "direct", sender: personA, recipients: [personB, personA] }
      assert.deepStrictEqual(bare(yield* queueB.drain), [started])
      assert.deepStrictEqual(bare(yield* queueA.drain), [started])
      assert.deepStrictEqual(yield* outsider.drain, [])

      // Legacy `private`, the sender named in `to`: the ids as given.
      expectReply(
        yield* typing(a.as, { type: "private", op: "stop", to: JSON.stringify([a.id, b.id]) }),
        200,
        success()
      )
      const stopped = { type: "typing", op: "stop", message_type: "direct", sender: personA, recipients: [personA, personB] }
      assert.deepStrictEqual(bare(yield* queueB.drain), [stopped])
      assert.deepStrictEqual(bare(yield* queueA.drain), [stopped])

      // `direct`, to oneself.
      expectReply(yield* typing(b.as, { type: "direct", op: "start", to: JSON.stringify([b.id]) }), 200, success())
      assert.deepStrictEqual(bare(yield* queueB.drain), [
        { type: "typing", op: "start", message_type: "direct", sender: personB, recipients: [personB] }
      ])
      assert.deepStrictEqual(yield* queueA.drain, [])

      // A participant who turned `receives_typing_notifications` off is named but not told.
      expectReply(yield* settings(b.as, { receives_typing_notifications: "false" }), 200, success())
      expectReply(yield* typing(a.as, { op: "start", to: JSON.stringify([b.id]) }), 200, success())
      assert.deepStrictEqual(yield* queueB.drain, [])
      assert.deepStrictEqual(bare(yield* queueA.drain), [started])
      assert.deepStrictEqual(yield* outsider.drain, [])
    }))

  it.effect("typing: a channel notification reaches subscribed queues with stream_typing_notifications, the sender's too", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const othello = yield* person("othello@zulip.com")
      const { channel, members: [a, b] } = yield* ownChannel(
        iago,
        [["typing-ch-a@zulip.com", "Typist C"], ["typing-ch-b@zulip.com", "Typist D"]],
        { name: "typing channel" }
      )
      const apiEmailA = (yield* person("typing-ch-a@zulip.com")).apiEmail
      const capable = { event_types: typingEvents, client_capabilities: withChannelTyping }
      const queueA = yield* register(a.as, capable)
      const queueB = yield* register(b.as, capable)
      const legacyB = yield* register(b.as, { event_types: typingEvents })
      // Not subscribed (the channel is public: othello may still write to it).
      const outsider = yield* register(othello, capable)

      expectReply(
        yield* typing(a.as, { type: "channel", op: "start", stream_id: String(channel), topic: "Plans" }),
        200,
        success()
      )
      const event = (op: string) => ({
        type: "typing",
        op,
        message_type: "stream",
        sender: { user_id: a.id, email: apiEmailA },
        stream_id: channel,
        topic: "Plans"
      })
      assert.deepStrictEqual(bare(yield* queueB.drain), [event("start")])
      assert.deepStrictEqual(bare(yield* queueA.drain), [event("start")])
      assert.deepStrictEqual(yield* legacyB.drain, [])
      assert.deepStrictEqual(yield* outsider.drain, [])

      // Legacy `stream`; a non-subscriber who may post is answered, and only subscribers hear it.
      expectReply(
        yield* typing(a.as, { type: "stream", op: "stop", stream_id: String(channel), topic: "Plans" }),
        200,
        success()
      )
      assert.deepStrictEqual(bare(yield* queueB.drain), [event("stop")])
      expectReply(
        yield* typing(othello, { type: "stream", op: "start", stream_id: String(channel), topic: "Plans" }),
        200,
        success()
      )
      assert.deepStrictEqual(bare(yield* queueA.drain), [event("stop"), {
        ...event("start"),
        sender: { user_id: othello.userId, email: othello.apiEmail }
      }])
      assert.deepStrictEqual(yield* outsider.drain, [])
      assert.deepStrictEqual(yield* legacyB.drain, [])
    }))

  it.effect("typing: every refusal, with Zulip's text", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const polonius = yield* as("guest")
      const desdemona = yield* as("owner")
      const { channel, members: [a, b] } = yield* ownChannel(
        iago,
        [["typing-err-a@zulip.com", "Typist E"], ["typing-err-b@zulip.com", "Typist F"]],
        { name: "typing errors", invite_only: true }
      )
      const queueB = yield* register(b.as, { event_types: typingEvents, client_capabilities: withChannelTyping })
      const stream = { type: "channel", op: "start", stream_id: String(channel), topic: "t" }
      const cases: ReadonlyArray<readonly [Credentials, Record<string, string>, object]> = [
        [a.as, { to: JSON.stringify([b.id]) }, {
          result: "error",
          msg: "Missing 'op' argument",
          code: "REQUEST_VARIABLE_MISSING",
          var_name: "op"
        }],
        [a.as, { op: "typing", to: JSON.stringify([b.id]) }, badRequest("Invalid op")],
        [a.as, { op: "start", type: "huddle", to: JSON.stringify([b.id]) }, badRequest("Invalid type")],
        [a.as, { op: "start" }, badRequest("Missing 'to' argument")],
        [a.as, { op: "start", to: "[]" }, badRequest("Empty 'to' list")],
        [a.as, { op: "start", to: JSON.stringify(b.id) }, badRequest("to is not a list")],
        [a.as, { op: "start", to: JSON.stringify([b.id, "x"]) }, badRequest("to[1] is not an integer")],
        [a.as, { op: "start", to: "[" }, badRequest("to is not valid JSON")],
        [a.as, { op: "start", to: JSON.stringify([b.id, 999_999_999]) }, badRequest("Invalid user ID 999999999")],
        [a.as, { type: "channel", op: "start", topic: "t" }, badRequest("Missing 'stream_id' argument")],
        [a.as, { type: "stream", op: "start", stream_id: String(channel) }, badRequest("Missing topic")],
        [a.as, { ...stream, stream_id: "999999999" }, badRequest("Invalid channel ID")],
        [a.as, { ...stream, stream_id: "x" }, badRequest("stream_id is not valid JSON")],
        // Private, not subscribed: an owner too.
        [desdemona, stream, badRequest("Invalid channel ID")],
        [polonius, stream, badRequest("Invalid channel ID")]
      ]
      for (const [who, form, body] of cases) {
        const reply = yield* typing(who, form)
        assert.deepStrictEqual([reply.status, reply.json], [400, body], JSON.stringify(form))
      }
      assert.deepStrictEqual(yield* queueB.drain, [])

      // Each setting refuses its own kind only.
      expectReply(yield* settings(a.as, { send_private_typing_notifications: "false" }), 200, success())
      expectReply(
        yield* typing(a.as, { op: "start", to: JSON.stringify([b.id]) }),
        400,
        badRequest("User has disabled typing notifications for direct messages")
      )
      expectReply(yield* typing(a.as, stream), 200, success())
      expectReply(yield* settings(a.as, { send_stream_typing_notifications: "false" }), 200, success())
      expectReply(
        yield* typing(a.as, stream),
        400,
        badRequest("User has disabled typing notifications for channel messages")
      )
      expectReply(yield* settings(a.as, { send_private_typing_notifications: "true" }), 200, success())
      expectReply(yield* typing(a.as, { op: "start", to: JSON.stringify([b.id]) }), 200, success())
      const personA = { user_id: a.id, email: (yield* person("typing-err-a@zulip.com")).apiEmail }
      const personB = { user_id: b.id, email: (yield* person("typing-err-b@zulip.com")).apiEmail }
      assert.deepStrictEqual(bare(yield* queueB.drain), [
        { type: "typing", op: "start", message_type: "stream", sender: personA, stream_id: channel, topic: "t" },
        { type: "typing", op: "start", message_type: "direct", sender: personA, recipients: [personB, personA] }
      ])
    }))

  it.effect("edit typing: a direct message's participants hear of it, in Zulip's order, only those told named", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const othello = yield* person("othello@zulip.com")
      const { members: [a, b] } = yield* ownChannel(
        iago,
        [["edit-typing-a@zulip.com", "Editor A"], ["edit-typing-b@zulip.com", "Editor B"]],
        { name: "edit typing dm" }
      )
      const queueA = yield* register(a.as, { event_types: editEvents })
      const queueB = yield* register(b.as, { event_types: editEvents })
      const queueIago = yield* register(iago, { event_types: editEvents })
      const outsider = yield* register(othello, { event_types: editEvents })
      // Not asked for: a typing_edit_message is no `typing` event.
      const typingOnly = yield* register(b.as, { event_types: typingEvents })

      // One to one, sent by b to a: the sender first, then the recipient.
      const dm = yield* sent(b.as, { type: "direct", to: JSON.stringify([a.id]), content: "edit me" })
      expectReply(yield* editTyping(b.as, dm, { op: "start" }), 200, success())
      const event = (op: string, userIds: ReadonlyArray<number>, id = dm, sender = b.id) => ({
        type: "typing_edit_message",
        op,
        sender_id: sender,
        message_id: id,
        recipient: { type: "direct", user_ids: userIds }
      })
      assert.deepStrictEqual(bare(yield* queueA.drain), [event("start", [b.id, a.id])])
      assert.deepStrictEqual(bare(yield* queueB.drain), [event("start", [b.id, a.id])])
      assert.deepStrictEqual(yield* outsider.drain, [])
      assert.deepStrictEqual(yield* typingOnly.drain, [])
      expectReply(yield* editTyping(b.as, dm, { op: "stop" }), 200, success())
      assert.deepStrictEqual(bare(yield* queueA.drain), [event("stop", [b.id, a.id])])

      // A group: its participants by id.
      const group = yield* sent(a.as, { type: "direct", to: JSON.stringify([b.id, iago.userId]), content: "all of us" })
      expectReply(yield* editTyping(a.as, group, { op: "start" }), 200, success())
      const groupIds = [a.id, b.id, iago.userId].sort((x, y) => x - y)
      assert.deepStrictEqual(bare(yield* queueIago.drain), [event("start", groupIds, group, a.id)])
      assert.deepStrictEqual(bare(yield* queueB.drain), [event("stop", [b.id, a.id]), event("start", groupIds, group, a.id)])

      // To oneself: Zulip names the sender twice.
      const own = yield* sent(a.as, { type: "direct", to: JSON.stringify([a.id]), content: "note to self" })
      yield* queueA.drain
      expectReply(yield* editTyping(a.as, own, { op: "start" }), 200, success())
      assert.deepStrictEqual(bare(yield* queueA.drain), [event("start", [a.id, a.id], own, a.id)])
      assert.deepStrictEqual(yield* queueB.drain, [])

      // A participant with receives_typing_notifications off is neither told nor named.
      expectReply(yield* settings(a.as, { receives_typing_notifications: "false" }), 200, success())
      expectReply(yield* editTyping(b.as, dm, { op: "start" }), 200, success())
      assert.deepStrictEqual(bare(yield* queueB.drain), [event("start", [b.id])])
      assert.deepStrictEqual(yield* queueA.drain, [])
      assert.deepStrictEqual(yield* queueIago.drain, [])
    }))

  it.effect("edit typing: a channel message's subscribers hear of it, without the channel typing capability", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const othello = yield* person("othello@zulip.com")
      const { channel, members: [a, b] } = yield* ownChannel(
        iago,
        [["edit-typing-c@zulip.com", "Editor C"], ["edit-typing-d@zulip.com", "Editor D"]],
        { name: "edit typing channel" }
      )
      const queueA = yield* register(a.as, { event_types: editEvents })
      const queueB = yield* register(b.as, { event_types: editEvents })
      // Public channel, not subscribed: not told.
      const outsider = yield* register(othello, { event_types: editEvents, client_capabilities: withChannelTyping })
      const id = yield* sent(a.as, { type: "stream", to: String(channel), topic: "Drafts", content: "first take" })
      expectReply(yield* editTyping(a.as, id, { op: "start" }), 200, success())
      const event = (op: string) => ({
        type: "typing_edit_message",
        op,
        sender_id: a.id,
        message_id: id,
        recipient: { type: "channel", channel_id: channel, topic: "Drafts" }
      })
      assert.deepStrictEqual(bare(yield* queueB.drain), [event("start")])
      assert.deepStrictEqual(bare(yield* queueA.drain), [event("start")])
      assert.deepStrictEqual(yield* outsider.drain, [])
      expectReply(yield* editTyping(a.as, id, { op: "stop" }), 200, success())
      assert.deepStrictEqual(bare(yield* queueB.drain), [event("stop")])
      assert.deepStrictEqual(bare(yield* queueA.drain), [event("stop")])
      assert.deepStrictEqual(yield* outsider.drain, [])
    }))

  it.effect("edit typing: every refusal, with Zulip's text", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const othello = yield* person("othello@zulip.com")
      const { channel, members: [a, b] } = yield* ownChannel(
        iago,
        [["edit-typing-e@zulip.com", "Editor E"], ["edit-typing-f@zulip.com", "Editor F"]],
        { name: "edit typing errors", invite_only: true }
      )
      const queueB = yield* register(b.as, { event_types: editEvents })
      const id = yield* sent(a.as, { type: "stream", to: String(channel), topic: "t", content: "mine" })
      const dm = yield* sent(a.as, { type: "direct", to: JSON.stringify([b.id]), content: "mine too" })
      const cases: ReadonlyArray<readonly [Credentials, number | string, Record<string, string>, object]> = [
        [a.as, id, {}, { result: "error", msg: "Missing 'op' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "op" }],
        [a.as, id, { op: "typing" }, badRequest("Invalid op")],
        [a.as, 999_999_999, { op: "start" }, invalidMessages],
        // Someone else's message, readable or not.
        [b.as, id, { op: "start" }, badRequest("You don't have permission to edit this message")],
        [b.as, dm, { op: "start" }, badRequest("You don't have permission to edit this message")],
        [iago, id, { op: "start" }, badRequest("You don't have permission to edit this message")],
        [othello, id, { op: "start" }, invalidMessages],
        [othello, dm, { op: "start" }, invalidMessages]
      ]
      for (const [who, messageId, form, body] of cases) {
        const reply = yield* editTyping(who, messageId, form)
        assert.deepStrictEqual([reply.status, reply.json], [400, body], `${messageId} ${JSON.stringify(form)}`)
      }

      // Each setting refuses its own kind only.
      expectReply(yield* settings(a.as, { send_stream_typing_notifications: "false" }), 200, success())
      expectReply(
        yield* editTyping(a.as, id, { op: "start" }),
        400,
        badRequest("User has disabled typing notifications for channel messages")
      )
      expectReply(yield* editTyping(a.as, dm, { op: "start" }), 200, success())
      expectReply(yield* settings(a.as, { send_private_typing_notifications: "false" }), 200, success())
      expectReply(
        yield* editTyping(a.as, dm, { op: "start" }),
        400,
        badRequest("User has disabled typing notifications for direct messages")
      )
      expectReply(yield* settings(a.as, { send_stream_typing_notifications: "true", send_private_typing_notifications: "true" }), 200, success())
      assert.deepStrictEqual(bare(yield* queueB.drain), [{
        type: "typing_edit_message",
        op: "start",
        sender_id: a.id,
        message_id: dm,
        recipient: { type: "direct", user_ids: [a.id, b.id] }
      }])

      // The content edit limit (600 s here), without the grace period an edit gets.
      const server = yield* Server
      server.clock.advance(601_000)
      // (The queue above expired with the clock.)
      const later = yield* register(b.as, { event_types: editEvents })
      expectReply(
        yield* editTyping(a.as, id, { op: "start" }),
        400,
        badRequest("The time limit for editing this message has passed")
      )
      assert.deepStrictEqual(yield* later.drain, [])
    }))
}
