/** The message-dependent state of POST /register and GET /users/me. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { success, person, as, channels, sent, flags, expectReply, register, resetFlags } from "./fixtures.ts"

export const registerTests = (it: Vitest.MethodsNonLive<Server>): void => {
  // -----------------------------------------------------------------------
  // POST /register and GET /users/me

  it.effect("POST /register: unread_msgs, starred_messages, recent_private_conversations, max_message_id; GET /users/me", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const zoe = yield* person("ZOE@zulip.com")
      const hamlet = yield* as("member")
      const iago = yield* as("admin")
      const { Verona: verona } = yield* channels
      yield* resetFlags(zoe)
      const fetchTypes = JSON.stringify(["message", "update_message_flags", "starred_messages", "recent_private_conversations"])
      const state = (who: Credentials) =>
        Effect.map(
          server.fetch("POST", "/api/v1/register", { as: who, form: { fetch_event_types: fetchTypes, event_types: "[\"heartbeat\"]" } }),
          (reply) => {
            assert.strictEqual(reply.status, 200, reply.text)
            const { queue_id: _queue, ...rest } = reply.json
            return rest
          }
        )
      const base = {
        result: "success",
        msg: "",
        last_event_id: -1,
        zulip_version: "11.0-teamchat",
        zulip_feature_level: 416,
        zulip_merge_base: "11.0"
      }
      const before = yield* state(zoe)
      assert.deepStrictEqual(before.unread_msgs, {
        count: 0,
        pms: [],
        streams: [],
        huddles: [],
        mentions: [],
        old_unreads_missing: false
      })
      assert.deepStrictEqual(before.starred_messages, [])

      const direct = yield* sent(hamlet, { type: "direct", to: JSON.stringify([zoe.userId]), content: "hi zoe" })
      const mention = yield* sent(iago, { type: "stream", to: "Verona", topic: "register state", content: "@**Zoe** look" })
      const plain = yield* sent(iago, { type: "stream", to: "Verona", topic: "register state", content: "and this" })
      const group = yield* sent(hamlet, {
        type: "direct",
        to: JSON.stringify([zoe.userId, iago.userId]),
        content: "all of us"
      })
      const replied = yield* sent(zoe, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "hi hamlet" })
      expectReply(yield* flags(zoe, { messages: JSON.stringify([plain]), op: "add", flag: "starred" }), 200, success({ messages: [plain] }))

      const groupIds = [zoe.userId, hamlet.userId, iago.userId].sort((a, b) => a - b)
      assert.deepStrictEqual(yield* state(zoe), {
        ...base,
        max_message_id: replied,
        unread_msgs: {
          count: 5,
          pms: [{ other_user_id: hamlet.userId, sender_id: hamlet.userId, unread_message_ids: [direct, replied] }],
          streams: [{ stream_id: verona.id, topic: "register state", unread_message_ids: [mention, plain] }],
          huddles: [{ user_ids_string: groupIds.join(","), unread_message_ids: [group] }],
          mentions: [mention],
          old_unreads_missing: false
        },
        starred_messages: [plain],
        recent_private_conversations: [
          { max_message_id: replied, user_ids: [hamlet.userId] },
          { max_message_id: group, user_ids: groupIds.filter((id) => id !== zoe.userId) }
        ]
      })
      const me = yield* server.fetch("GET", "/api/v1/users/me", { as: zoe })
      assert.strictEqual(me.json.max_message_id, replied)

      // Reading everything empties unread_msgs; starring is separate.
      yield* resetFlags(zoe)
      const after = yield* state(zoe)
      assert.deepStrictEqual(after.unread_msgs, before.unread_msgs)
      assert.deepStrictEqual(after.starred_messages, [])
      assert.strictEqual(after.max_message_id, replied)
    }))

  it.effect("POST /register: unread_msgs names the empty topic \"general chat\" unless the client has empty_topic_name", () =>
    Effect.gen(function*() {
      const zoe = yield* person("ZOE@zulip.com")
      const iago = yield* as("admin")
      const { Verona: verona } = yield* channels
      yield* resetFlags(zoe)
      const id = yield* sent(iago, { type: "stream", to: "Verona", topic: "", content: "unread in general chat" })
      const unreads = (capabilities?: object) =>
        Effect.map(
          register(zoe, {
            fetch_event_types: JSON.stringify(["message", "update_message_flags"]),
            event_types: JSON.stringify(["heartbeat"]),
            ...(capabilities === undefined ? {} : { client_capabilities: JSON.stringify(capabilities) })
          }),
          ({ reply }) => reply.json.unread_msgs
        )
      const expected = (topic: string) => ({
        count: 1,
        pms: [],
        streams: [{ stream_id: verona.id, topic, unread_message_ids: [id] }],
        huddles: [],
        mentions: [],
        old_unreads_missing: false
      })
      assert.deepStrictEqual(yield* unreads(), expected("general chat"))
      assert.deepStrictEqual(yield* unreads({ empty_topic_name: false }), expected("general chat"))
      assert.deepStrictEqual(yield* unreads({ empty_topic_name: true }), expected(""))
      yield* resetFlags(zoe)
    }))
}
