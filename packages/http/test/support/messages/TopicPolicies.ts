/**
 * PATCH /messages/{message_id} moves and topic visibility policies: a
 * user's policy (POST /user_topics) follows a move of the whole topic,
 * merged with theirs in a topic that has messages (the more visible wins),
 * and goes for those the move leaves without access; the `user_topic` and
 * `muted_topics` events Zulip sends, before the `update_message`.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Vitest } from "@effect/vitest"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import { as, bare, expectReply, ownChannel, register, sent, success } from "./fixtures.ts"

const editMessage = (who: Credentials, id: number, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("PATCH", `/api/v1/messages/${id}`, { as: who, form }))

const setPolicy = (who: Credentials, channel: number, topic: string, policy: number) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("POST", "/api/v1/user_topics", {
      as: who,
      form: { stream_id: String(channel), topic, visibility_policy: String(policy) }
    })
    expectReply(reply, 200, success())
  })

/** The user's policies as POST /register gives them: [channel, topic, policy]. */
const policies = (who: Credentials) =>
  Effect.map(
    register(who, { fetch_event_types: JSON.stringify(["user_topic"]), event_types: JSON.stringify(["user_topic"]) }),
    (queue) =>
      (queue.reply.json.user_topics as Array<{ stream_id: number; topic_name: string; visibility_policy: number }>)
        .map((t) => [t.stream_id, t.topic_name, t.visibility_policy] as const)
  )

const nowSeconds = Effect.map(Server, (server) => Math.floor(server.clock.now() / 1000))

const types = JSON.stringify(["user_topic", "muted_topics", "update_message", "delete_message"])
const capabilities = JSON.stringify({ bulk_message_deletion: true, empty_topic_name: true })

/** What a queue heard, reduced to [type, detail]: a policy event's channel, topic and policy, a muted list's topics. */
const heard = (events: ReadonlyArray<Record<string, unknown>>) =>
  bare(events).map((e) =>
    e.type === "user_topic"
      ? ["user_topic", e.stream_id, e.topic_name, e.visibility_policy]
      : e.type === "muted_topics"
      ? ["muted_topics", (e.muted_topics as Array<[string, string, number]>).map(([, topic]) => topic)]
      : [e.type]
  )

let made = 0
const channelOf = (label: string, options: { readonly invite_only?: boolean; readonly history_public_to_subscribers?: boolean } = {}) =>
  Effect.gen(function*() {
    const iago = { ...(yield* as("admin")) }
    const n = ++made
    const name = `policies ${label} ${n}`
    const created = yield* ownChannel(iago, [
      [`policies-${label}-${n}-a@zulip.com`, `Mover ${label} ${n}`],
      [`policies-${label}-${n}-b@zulip.com`, `Watcher ${label} ${n}`]
    ], { name, ...options })
    return { iago, id: created.channel, name, first: created.members[0], second: created.members[1] }
  })

export const topicPolicyTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("PATCH /messages/{id} change_all to a new topic: each user's policy moves with the topic, user_topic and muted_topics before update_message", () =>
    Effect.gen(function*() {
      const { iago, id: channel, name, first, second } = yield* channelOf("new")
      const ids = [
        yield* sent(first.as, { type: "stream", to: String(channel), topic: "src", content: "one" }),
        yield* sent(first.as, { type: "stream", to: String(channel), topic: "src", content: "two" })
      ]
      yield* setPolicy(first.as, channel, "src", 3)
      yield* setPolicy(second.as, channel, "SRC", 1)
      // A policy left on a topic without messages is replaced by the move.
      yield* setPolicy(second.as, channel, "dst", 2)
      const firstQueue = yield* register(first.as, { event_types: types, client_capabilities: capabilities })
      const secondQueue = yield* register(second.as, { event_types: types, client_capabilities: capabilities })
      const iagoQueue = yield* register(iago, { event_types: types, client_capabilities: capabilities })
      const legacy = JSON.stringify(["muted_topics"])
      const firstLegacy = yield* register(first.as, { event_types: legacy })
      const secondLegacy = yield* register(second.as, { event_types: legacy })
      const server = yield* Server
      server.clock.advance(10_000)
      const at = yield* nowSeconds
      expectReply(yield* editMessage(first.as, ids[1]!, { topic: "dst", propagate_mode: "change_all" }), 200, success({ detached_uploads: [] }))
      assert.deepStrictEqual(heard(yield* firstQueue.drain), [
        ["user_topic", channel, "src", 0],
        ["user_topic", channel, "dst", 3],
        ["update_message"]
      ])
      const secondEvents = bare(yield* secondQueue.drain)
      assert.deepStrictEqual(heard(secondEvents), [
        ["user_topic", channel, "src", 0],
        ["user_topic", channel, "dst", 1],
        ["update_message"]
      ])
      assert.deepStrictEqual(secondEvents[1], { type: "user_topic", stream_id: channel, topic_name: "dst", last_updated: at, visibility_policy: 1 })
      // Queues without user_topic get the legacy list, once per user whose new topic's policy changed.
      assert.deepStrictEqual(bare(yield* secondLegacy.drain), [
        { type: "muted_topics", muted_topics: [[name, "dst", at]] }
      ])
      assert.deepStrictEqual(bare(yield* firstLegacy.drain), [{ type: "muted_topics", muted_topics: [] }])
      // Nobody without a policy hears of policies.
      assert.deepStrictEqual(heard(yield* iagoQueue.drain), [["update_message"]])
      assert.deepStrictEqual(yield* policies(first.as), [[channel, "dst", 3]])
      assert.deepStrictEqual(yield* policies(second.as), [[channel, "dst", 1]])
    }))

  it.effect("PATCH /messages/{id} into a topic with messages: the more visible policy wins; change_later from the first message moves them, a partial move does not", () =>
    Effect.gen(function*() {
      const { id: channel, first, second } = yield* channelOf("merge")
      const hamlet = yield* as("member")
      const src = [
        yield* sent(first.as, { type: "stream", to: String(channel), topic: "src", content: "a" }),
        yield* sent(first.as, { type: "stream", to: String(channel), topic: "src", content: "b" })
      ]
      yield* sent(first.as, { type: "stream", to: String(channel), topic: "dst", content: "there" })
      // first: unmuted here, muted there -> unmuted. second: muted here, followed there -> followed stays.
      yield* setPolicy(first.as, channel, "src", 2)
      yield* setPolicy(first.as, channel, "dst", 1)
      yield* setPolicy(second.as, channel, "src", 1)
      yield* setPolicy(second.as, channel, "dst", 3)
      // hamlet: none here, muted there -> none.
      yield* setPolicy(hamlet, channel, "dst", 1)
      const firstQueue = yield* register(first.as, { event_types: types, client_capabilities: capabilities })
      const secondQueue = yield* register(second.as, { event_types: types, client_capabilities: capabilities })
      const hamletQueue = yield* register(hamlet, { event_types: JSON.stringify(["user_topic"]) })

      // Part of the topic: policies stay.
      expectReply(yield* editMessage(first.as, src[1]!, { topic: "elsewhere", propagate_mode: "change_later" }), 200, success({ detached_uploads: [] }))
      assert.deepStrictEqual(heard(yield* firstQueue.drain), [["update_message"]])
      expectReply(yield* editMessage(first.as, src[1]!, { topic: "src", propagate_mode: "change_one" }), 200, success({ detached_uploads: [] }))
      yield* secondQueue.drain
      assert.deepStrictEqual(heard(yield* firstQueue.drain), [["update_message"]])

      // change_later from the first message: the whole topic.
      expectReply(yield* editMessage(first.as, src[0]!, { topic: "dst", propagate_mode: "change_later" }), 200, success({ detached_uploads: [] }))
      assert.deepStrictEqual(heard(yield* firstQueue.drain), [
        ["user_topic", channel, "src", 0],
        ["user_topic", channel, "dst", 2],
        ["update_message"]
      ])
      assert.deepStrictEqual(heard(yield* secondQueue.drain), [["user_topic", channel, "src", 0], ["update_message"]])
      assert.deepStrictEqual(heard(yield* hamletQueue.drain), [["user_topic", channel, "dst", 0]])
      assert.deepStrictEqual(yield* policies(first.as), [[channel, "dst", 2]])
      assert.deepStrictEqual(yield* policies(second.as), [[channel, "dst", 3]])
      assert.isFalse((yield* policies(hamlet)).some(([c]) => c === channel))
    }))

  it.effect("PATCH /messages/{id} stream_id to a private channel: policies move for its subscribers; those left without access lose theirs, after delete_message", () =>
    Effect.gen(function*() {
      const from = yield* channelOf("from")
      const to = yield* channelOf("to", { invite_only: true, history_public_to_subscribers: true })
      const id = yield* sent(from.first.as, { type: "stream", to: String(from.id), topic: "secret", content: "psst" })
      // iago is subscribed to both; the origin's own members are not in the destination.
      yield* setPolicy(from.iago, from.id, "secret", 3)
      yield* setPolicy(from.second.as, from.id, "secret", 1)
      const iagoQueue = yield* register(from.iago, { event_types: JSON.stringify(["user_topic"]) })
      const secondQueue = yield* register(from.second.as, { event_types: types, client_capabilities: capabilities })
      expectReply(
        yield* editMessage(from.iago, id, { stream_id: String(to.id), send_notification_to_new_thread: "false" }),
        200,
        success({ detached_uploads: [] })
      )
      assert.deepStrictEqual(heard(yield* secondQueue.drain), [
        ["delete_message"],
        ["user_topic", from.id, "secret", 0]
      ])
      assert.deepStrictEqual(heard(yield* iagoQueue.drain), [["user_topic", from.id, "secret", 0], ["user_topic", to.id, "secret", 3]])
      assert.deepStrictEqual(yield* policies(from.second.as), [])
      assert.isTrue((yield* policies(from.iago)).some(([c, t, p]) => c === to.id && t === "secret" && p === 3))
    }))
}
