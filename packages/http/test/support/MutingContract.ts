/**
 * Personal visibility settings over the wire, written once and run on every
 * core backend: POST /user_topics, POST and DELETE
 * /users/me/muted_users/{muted_user_id}, their events (`user_topic`, the
 * legacy `muted_topics` for queues that did not ask for `user_topic`,
 * `muted_users`, and the `update_message_flags` of a mute), register's
 * `user_topics`, `muted_topics` and `muted_users`, and the unread counts,
 * with Zulip's texts for every refusal and nothing written by one.
 *
 * One server per backend: each test acts as people no other test of this
 * file changes, and moves the shared clock on to know its timestamps.
 */
import { assert, describe, layer } from "@effect/vitest"
import { realmId } from "@teamchat/core/domain/Ids"
import { RealmRepo } from "@teamchat/core/ports/Repositories"
import { Organizations } from "@teamchat/core/services/Organizations"
import { Users } from "@teamchat/core/services/Users"
import * as Effect from "effect/Effect"
import type { Backend, Credentials } from "./Harness.ts"
import { demoLayer, layerServer, Server } from "./Harness.ts"
import {
  as,
  badRequest,
  bare,
  channels,
  expectReply,
  flags,
  ownChannel,
  person,
  read,
  register,
  sent,
  success,
  tick
} from "./messages/fixtures.ts"

const missing = (name: string) => ({
  result: "error",
  msg: `Missing '${name}' argument`,
  code: "REQUEST_VARIABLE_MISSING",
  var_name: name
})

const setTopic = (who: Credentials, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/user_topics", { as: who, form }))

const topic = (who: Credentials, streamId: number, name: string, policy: number) =>
  setTopic(who, { stream_id: String(streamId), topic: name, visibility_policy: String(policy) })

const mutedTopics = (who: Credentials, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("PATCH", "/api/v1/users/me/subscriptions/muted_topics", { as: who, form }))

const mute = (who: Credentials, id: number | string) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", `/api/v1/users/me/muted_users/${id}`, { as: who }))
const unmute = (who: Credentials, id: number | string) =>
  Effect.flatMap(Server, (server) => server.fetch("DELETE", `/api/v1/users/me/muted_users/${id}`, { as: who }))

const state = (who: Credentials, form: Record<string, string>) =>
  Effect.map(register(who, form), (queue) => queue.reply.json as Record<string, any>)

/** The events of these types a drain gave, in order, without ids. */
const ofTypes = (events: ReadonlyArray<Record<string, unknown>>, types: ReadonlyArray<string>) =>
  bare(events).filter((event) => types.includes(event.type as string))

export const mutingContract = (backend: Backend) =>
  describe(`muting over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      it.effect("POST /user_topics: each policy, its events by kind of queue, and register's keys", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const verona = (yield* channels).Verona!
          const modern = yield* register(hamlet, { event_types: JSON.stringify(["user_topic", "muted_topics"]) })
          const legacy = yield* register(hamlet, { event_types: JSON.stringify(["muted_topics"]) })
          const everything = yield* register(hamlet, {})
          const types = ["user_topic", "muted_topics"]

          const t1 = yield* tick
          expectReply(yield* topic(hamlet, verona.id, "Castle Wall", 1), 200, success())
          const muted = { type: "user_topic", stream_id: verona.id, topic_name: "Castle Wall", last_updated: t1, visibility_policy: 1 }
          const list1 = { type: "muted_topics", muted_topics: [["Verona", "Castle Wall", t1]] }
          assert.deepStrictEqual(bare(yield* modern.drain), [muted])
          assert.deepStrictEqual(bare(yield* legacy.drain), [list1])
          assert.deepStrictEqual(ofTypes(yield* everything.drain, types), [list1, muted])

          // The same policy again: success, nothing written, no event.
          yield* tick
          expectReply(yield* topic(hamlet, verona.id, "castle wall", 1), 200, success())
          assert.deepStrictEqual(bare(yield* modern.drain), [])
          assert.deepStrictEqual(bare(yield* legacy.drain), [])

          // Another spelling names the same topic; the row keeps its first spelling, the event the one sent.
          const t2 = yield* tick
          expectReply(yield* topic(hamlet, verona.id, "CASTLE WALL", 3), 200, success())
          assert.deepStrictEqual(bare(yield* modern.drain), [
            { type: "user_topic", stream_id: verona.id, topic_name: "CASTLE WALL", last_updated: t2, visibility_policy: 3 }
          ])
          assert.deepStrictEqual(bare(yield* legacy.drain), [{ type: "muted_topics", muted_topics: [] }])
          const t3 = yield* tick
          expectReply(yield* topic(hamlet, verona.id, "Moat", 1), 200, success())
          const t4 = yield* tick
          expectReply(yield* topic(hamlet, verona.id, "Keep", 2), 200, success())
          assert.deepStrictEqual(bare(yield* modern.drain), [
            { type: "user_topic", stream_id: verona.id, topic_name: "Moat", last_updated: t3, visibility_policy: 1 },
            { type: "user_topic", stream_id: verona.id, topic_name: "Keep", last_updated: t4, visibility_policy: 2 }
          ])
          // Every change sends the whole list of muted topics, whatever the policy.
          const mutedMoat = { type: "muted_topics", muted_topics: [["Verona", "Moat", t3]] }
          assert.deepStrictEqual(bare(yield* legacy.drain), [mutedMoat, mutedMoat])
          assert.deepStrictEqual((yield* state(hamlet, { fetch_event_types: JSON.stringify(["user_topic"]) })).user_topics, [
            { stream_id: verona.id, topic_name: "Castle Wall", last_updated: t2, visibility_policy: 3 },
            { stream_id: verona.id, topic_name: "Keep", last_updated: t4, visibility_policy: 2 },
            { stream_id: verona.id, topic_name: "Moat", last_updated: t3, visibility_policy: 1 }
          ])
          // The legacy list: muted topics only, and only when `user_topic` is not fetched too.
          const legacyState = yield* state(hamlet, { fetch_event_types: JSON.stringify(["muted_topics"]) })
          assert.deepStrictEqual(legacyState.muted_topics, [["Verona", "Moat", t3]])
          assert.notProperty(legacyState, "user_topics")
          const both = yield* state(hamlet, { fetch_event_types: JSON.stringify(["muted_topics", "user_topic"]) })
          assert.notProperty(both, "muted_topics")
          assert.lengthOf(both.user_topics, 3)
          const all = yield* state(hamlet, {})
          assert.deepStrictEqual(all.muted_topics, [["Verona", "Moat", t3]])
          assert.lengthOf(all.user_topics, 3)

          // 0 clears (the event says 0); clearing what is not set succeeds without an event.
          const t5 = yield* tick
          expectReply(yield* topic(hamlet, verona.id, "moat", 0), 200, success())
          assert.deepStrictEqual(bare(yield* modern.drain), [
            { type: "user_topic", stream_id: verona.id, topic_name: "moat", last_updated: t5, visibility_policy: 0 }
          ])
          assert.deepStrictEqual(bare(yield* legacy.drain), [{ type: "muted_topics", muted_topics: [] }])
          expectReply(yield* topic(hamlet, verona.id, "moat", 0), 200, success())
          expectReply(yield* topic(hamlet, verona.id, "never set", 0), 200, success())
          assert.deepStrictEqual(bare(yield* modern.drain), [])
          assert.deepStrictEqual(
            (yield* state(hamlet, { fetch_event_types: JSON.stringify(["user_topic"]) })).user_topics.map((t: any) => t.topic_name),
            ["Castle Wall", "Keep"]
          )
        }))

      it.effect("POST /user_topics: the empty topic, and \"general chat\" for it, by the empty_topic_name capability", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const denmark = (yield* channels).Denmark!
          const capable = yield* register(iago, {
            event_types: JSON.stringify(["user_topic"]),
            client_capabilities: JSON.stringify({ empty_topic_name: true })
          })
          const older = yield* register(iago, { event_types: JSON.stringify(["user_topic"]) })
          const t = yield* tick
          // "general chat" is the empty topic's display name: it names the empty topic.
          expectReply(yield* topic(iago, denmark.id, "general chat", 1), 200, success())
          const event = { type: "user_topic", stream_id: denmark.id, last_updated: t, visibility_policy: 1 }
          assert.deepStrictEqual(bare(yield* capable.drain), [{ ...event, topic_name: "" }])
          assert.deepStrictEqual(bare(yield* older.drain), [{ ...event, topic_name: "general chat" }])
          expectReply(yield* topic(iago, denmark.id, "", 1), 200, success())
          assert.deepStrictEqual(bare(yield* capable.drain), [])
          const row = { stream_id: denmark.id, last_updated: t, visibility_policy: 1 }
          assert.deepStrictEqual(
            (yield* state(iago, {
              fetch_event_types: JSON.stringify(["user_topic"]),
              client_capabilities: JSON.stringify({ empty_topic_name: true })
            })).user_topics,
            [{ ...row, topic_name: "" }]
          )
          assert.deepStrictEqual(
            (yield* state(iago, { fetch_event_types: JSON.stringify(["user_topic"]) })).user_topics,
            [{ ...row, topic_name: "general chat" }]
          )
        }))

      it.effect("POST /user_topics: Zulip's refusals, in its order, and nothing written by them", () =>
        Effect.gen(function*() {
          const shiva = yield* as("moderator")
          const polonius = yield* as("guest")
          const all = yield* channels
          const verona = all.Verona!
          const queue = yield* register(shiva, { event_types: JSON.stringify(["user_topic", "muted_topics"]) })
          const guestQueue = yield* register(polonius, { event_types: JSON.stringify(["user_topic"]) })
          const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
            [{ topic: "t", visibility_policy: "1" }, missing("stream_id")],
            [{ stream_id: String(verona.id), visibility_policy: "1" }, missing("topic")],
            [{ stream_id: String(verona.id), topic: "t" }, missing("visibility_policy")],
            [{ stream_id: "abc", topic: "t", visibility_policy: "1" }, badRequest("stream_id is not valid JSON")],
            [{ stream_id: "1.5", topic: "t", visibility_policy: "1" }, badRequest("stream_id is not an integer")],
            [{ stream_id: String(verona.id), topic: "t", visibility_policy: "\"1\"" }, badRequest("visibility_policy is not an integer")],
            [{ stream_id: String(verona.id), topic: "x".repeat(61), visibility_policy: "1" }, badRequest("topic is too long (limit: 60 characters)")],
            // The topic's length is checked before the policy's value.
            [{ stream_id: "999999", topic: "x".repeat(61), visibility_policy: "7" }, badRequest("topic is too long (limit: 60 characters)")],
            ...["4", "-1", "99"].map((policy) =>
              [{ stream_id: String(verona.id), topic: "t", visibility_policy: policy }, badRequest("Invalid visibility_policy: Value error, Not in the list of possible values")] as const
            ),
            // The policy's value before the channel.
            [{ stream_id: "999999", topic: "t", visibility_policy: "5" }, badRequest("Invalid visibility_policy: Value error, Not in the list of possible values")],
            ...["0", "1", "2", "3"].map((policy) =>
              [{ stream_id: "999999", topic: "t", visibility_policy: policy }, badRequest("Invalid channel ID")] as const
            ),
            [{ stream_id: "0", topic: "t", visibility_policy: "1" }, badRequest("Invalid channel ID")],
            [{ stream_id: "-3", topic: "t", visibility_policy: "0" }, badRequest("Invalid channel ID")]
          ]
          for (const [form, body] of cases) expectReply(yield* setTopic(shiva, form), 400, body)
          // Sixty characters is the limit itself (counted as characters, not UTF-16 units).
          expectReply(yield* topic(shiva, verona.id, "😀".repeat(60), 0), 200, success())

          // Setting a policy needs content access; clearing only needs the channel to exist.
          const guestState = yield* state(polonius, { fetch_event_types: JSON.stringify(["subscription"]) })
          const subscribed = new Set(guestState.subscriptions.map((s: any) => s.stream_id as number))
          const outside = Object.values(all).find((c) => c.name !== "Rome" && !subscribed.has(c.id))!
          assert.isDefined(outside, "a channel the guest is not in")
          for (const policy of [1, 2, 3]) {
            expectReply(yield* topic(polonius, outside.id, "not mine", policy), 400, badRequest("Invalid channel ID"))
          }
          expectReply(yield* topic(polonius, outside.id, "not mine", 0), 200, success())
          // A public channel the guest is in is fine.
          expectReply(yield* topic(polonius, verona.id, "guest's", 1), 200, success())
          assert.deepStrictEqual(bare(yield* guestQueue.drain).map((e) => e.topic_name), ["guest's"])
          assert.deepStrictEqual((yield* state(polonius, { fetch_event_types: JSON.stringify(["user_topic"]) })).user_topics.map((t: any) => t.topic_name), ["guest's"])

          assert.deepStrictEqual(bare(yield* queue.drain), [])
          assert.deepStrictEqual((yield* state(shiva, { fetch_event_types: JSON.stringify(["user_topic"]) })).user_topics, [])
        }))

      it.effect("PATCH /users/me/subscriptions/muted_topics: add and remove by id or name, with POST /user_topics's events", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const { channel, members: [a] } = yield* ownChannel(
            iago,
            [["legacy-mute-a@zulip.com", "Legacy Muter A"], ["legacy-mute-b@zulip.com", "Legacy Muter B"]],
            { name: "Legacy Mutes" }
          )
          const modern = yield* register(a.as, { event_types: JSON.stringify(["user_topic", "muted_topics"]) })
          const everything = yield* register(a.as, {})
          const types = ["user_topic", "muted_topics"]

          const t1 = yield* tick
          expectReply(yield* mutedTopics(a.as, { stream_id: String(channel), topic: "Harbour", op: "add" }), 200, success())
          const muted1 = { type: "user_topic", stream_id: channel, topic_name: "Harbour", last_updated: t1, visibility_policy: 1 }
          assert.deepStrictEqual(bare(yield* modern.drain), [muted1])
          assert.deepStrictEqual(ofTypes(yield* everything.drain, types), [
            { type: "muted_topics", muted_topics: [["Legacy Mutes", "Harbour", t1]] },
            muted1
          ])

          // By name, in any case; the topic keeps the spelling sent.
          const t2 = yield* tick
          expectReply(yield* mutedTopics(a.as, { stream: "legacy MUTES", topic: "Lighthouse", op: "add" }), 200, success())
          assert.deepStrictEqual(ofTypes(yield* everything.drain, types), [
            { type: "muted_topics", muted_topics: [["Legacy Mutes", "Harbour", t1], ["Legacy Mutes", "Lighthouse", t2]] },
            { type: "user_topic", stream_id: channel, topic_name: "Lighthouse", last_updated: t2, visibility_policy: 1 }
          ])
          assert.lengthOf(yield* modern.drain, 1)

          // Muting a muted topic again (any case) succeeds and changes nothing (since Zulip 7.0).
          yield* tick
          expectReply(yield* mutedTopics(a.as, { stream_id: String(channel), topic: "HARBOUR", op: "add" }), 200, success())
          assert.deepStrictEqual(yield* modern.drain, [])

          // Remove: policy 0, by name or id; a topic that is not muted succeeds without an event.
          const t3 = yield* tick
          expectReply(yield* mutedTopics(a.as, { stream: "Legacy Mutes", topic: "harbour", op: "remove" }), 200, success())
          assert.deepStrictEqual(ofTypes(yield* everything.drain, types), [
            { type: "muted_topics", muted_topics: [["Legacy Mutes", "Lighthouse", t2]] },
            { type: "user_topic", stream_id: channel, topic_name: "harbour", last_updated: t3, visibility_policy: 0 }
          ])
          assert.lengthOf(yield* modern.drain, 1)
          expectReply(yield* mutedTopics(a.as, { stream_id: String(channel), topic: "harbour", op: "remove" }), 200, success())
          expectReply(yield* mutedTopics(a.as, { stream_id: String(channel), topic: "never muted", op: "remove" }), 200, success())
          assert.deepStrictEqual(yield* modern.drain, [])

          // Unmuting a followed topic clears its policy too (policy 0, as POST /user_topics).
          yield* tick
          expectReply(yield* topic(a.as, channel, "Pier", 3), 200, success())
          yield* modern.drain
          const t4 = yield* tick
          expectReply(yield* mutedTopics(a.as, { stream_id: String(channel), topic: "Pier", op: "remove" }), 200, success())
          assert.deepStrictEqual(bare(yield* modern.drain), [
            { type: "user_topic", stream_id: channel, topic_name: "Pier", last_updated: t4, visibility_policy: 0 }
          ])
          assert.deepStrictEqual(
            (yield* state(a.as, { fetch_event_types: JSON.stringify(["user_topic"]) })).user_topics,
            [{ stream_id: channel, topic_name: "Lighthouse", last_updated: t2, visibility_policy: 1 }]
          )
        }))

      it.effect("PATCH /users/me/subscriptions/muted_topics: Zulip's refusals, and nothing written by them", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const { channel, members: [a] } = yield* ownChannel(
            iago,
            [["legacy-mute-c@zulip.com", "Legacy Muter C"], ["legacy-mute-d@zulip.com", "Legacy Muter D"]],
            { name: "Legacy Refusals" }
          )
          const { channel: secret } = yield* ownChannel(
            iago,
            [["legacy-mute-e@zulip.com", "Legacy Muter E"], ["legacy-mute-f@zulip.com", "Legacy Muter F"]],
            { name: "Legacy Secret", invite_only: true }
          )
          const queue = yield* register(a.as, { event_types: JSON.stringify(["user_topic", "muted_topics"]) })
          const id = String(channel)
          const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
            [{ stream_id: id, topic: "t" }, missing("op")],
            [{ stream_id: id, op: "add" }, missing("topic")],
            [{ stream_id: id, topic: "t", op: "mute" }, badRequest("Invalid op")],
            [{ stream_id: id, topic: "x".repeat(61), op: "add" }, badRequest("topic is too long (limit: 60 characters)")],
            [{ stream_id: "abc", topic: "t", op: "add" }, badRequest("stream_id is not valid JSON")],
            // Zulip's `check_for_exactly_one_stream_arg`: its own "Missing" (plain BAD_REQUEST), and both refused.
            [{ topic: "t", op: "add" }, badRequest("Missing 'stream_id' argument")],
            [{ topic: "t", op: "remove" }, badRequest("Missing 'stream_id' argument")],
            ...(["add", "remove"] as const).map((op) =>
              [{ stream_id: id, stream: "Legacy Refusals", topic: "t", op }, badRequest(
                "Unsupported parameter combination: stream_id, stream",
                { parameters: "stream_id, stream" }
              )] as const
            ),
            [{ stream_id: "999999", topic: "t", op: "add" }, badRequest("Invalid channel ID")],
            [{ stream: "Nowhere", topic: "t", op: "add" }, badRequest("Invalid channel name 'Nowhere'")],
            // A private channel one is not in: unknown for muting.
            [{ stream_id: String(secret), topic: "t", op: "add" }, badRequest("Invalid channel ID")],
            [{ stream: "legacy secret", topic: "t", op: "add" }, badRequest("Invalid channel name 'legacy secret'")],
            // Unmuting only needs the channel to exist; else "Topic is not muted".
            [{ stream_id: "999999", topic: "t", op: "remove" }, badRequest("Topic is not muted")],
            [{ stream: "Nowhere", topic: "t", op: "remove" }, badRequest("Topic is not muted")]
          ]
          for (const [form, body] of cases) {
            const reply = yield* mutedTopics(a.as, form)
            assert.deepStrictEqual([reply.status, reply.json], [400, body], JSON.stringify(form))
          }
          expectReply(yield* mutedTopics(a.as, { stream_id: String(secret), topic: "t", op: "remove" }), 200, success())
          expectReply(yield* mutedTopics(a.as, { stream: "Legacy Secret", topic: "t", op: "remove" }), 200, success())
          assert.deepStrictEqual(yield* queue.drain, [])
          assert.deepStrictEqual((yield* state(a.as, { fetch_event_types: JSON.stringify(["user_topic"]) })).user_topics, [])
        }))

      it.effect("unread_msgs: muted topics, and muted channels' topics unless unmuted or followed, leave the count but stay listed", () =>
        Effect.gen(function*() {
          const othello = yield* person("othello@zulip.com")
          const prospero = yield* person("prospero@zulip.com")
          const verona = (yield* channels).Verona!
          const unreadState = Effect.map(
            state(prospero, { fetch_event_types: JSON.stringify(["message", "update_message_flags"]) }),
            (s) => s.unread_msgs
          )
          const before = yield* unreadState
          const topics = ["u-plain", "u-muted", "u-unmuted", "u-followed"]
          const ids: Record<string, number> = {}
          for (const t of topics) {
            ids[t] = yield* sent(othello, { type: "stream", to: "Verona", topic: t, content: `in ${t}` })
          }
          // A wildcard mention counts as a mention only outside muted topics; a personal one always.
          const wildcard = yield* sent(othello, { type: "stream", to: "Verona", topic: "u-muted", content: "@**all** look" })
          const personal = yield* sent(othello, { type: "stream", to: "Verona", topic: "u-muted", content: "@**Prospero from The Tempest** look" })
          const listed = (unread: any) =>
            Object.fromEntries(
              unread.streams
                .filter((s: any) => s.stream_id === verona.id && topics.includes(s.topic))
                .map((s: any) => [s.topic, s.unread_message_ids])
            )
          const grown = yield* unreadState
          assert.strictEqual(grown.count, before.count + 6)
          assert.includeMembers(grown.mentions, [wildcard, personal])

          expectReply(yield* topic(prospero, verona.id, "U-MUTED", 1), 200, success())
          const mutedOne = yield* unreadState
          assert.strictEqual(mutedOne.count, before.count + 3)
          assert.deepStrictEqual(listed(mutedOne), listed(grown))
          assert.include(mutedOne.mentions, personal)
          assert.notInclude(mutedOne.mentions, wildcard)

          // Muting the channel: only the unmuted and followed topics still count.
          expectReply(yield* topic(prospero, verona.id, "u-unmuted", 2), 200, success())
          expectReply(yield* topic(prospero, verona.id, "u-followed", 3), 200, success())
          const properties = yield* Effect.flatMap(Server, (server) =>
            server.fetch("POST", "/api/v1/users/me/subscriptions/properties", {
              as: prospero,
              form: { subscription_data: JSON.stringify([{ stream_id: verona.id, property: "is_muted", value: true }]) }
            }))
          assert.strictEqual(properties.status, 200, properties.text)
          const channelMuted = yield* unreadState
          const otherVerona = before.streams
            .filter((s: any) => s.stream_id === verona.id)
            .reduce((n: number, s: any) => n + s.unread_message_ids.length, 0)
          assert.strictEqual(channelMuted.count, before.count - otherVerona + 2)
          assert.deepStrictEqual(listed(channelMuted), listed(grown))
          // Clearing the unmuted topic's policy: it follows the channel again.
          expectReply(yield* topic(prospero, verona.id, "u-unmuted", 0), 200, success())
          assert.strictEqual((yield* unreadState).count, before.count - otherVerona + 1)
          const restored = yield* Effect.flatMap(Server, (server) =>
            server.fetch("POST", "/api/v1/users/me/subscriptions/properties", {
              as: prospero,
              form: { subscription_data: JSON.stringify([{ stream_id: verona.id, property: "is_muted", value: false }]) }
            }))
          assert.strictEqual(restored.status, 200, restored.text)
          assert.strictEqual((yield* unreadState).count, before.count + 3)

          // Marking unread says which messages count again: not those of a muted topic.
          const queue = yield* register(prospero, { event_types: JSON.stringify(["update_message_flags"]) })
          const both = [ids["u-plain"]!, ids["u-muted"]!]
          expectReply(yield* flags(prospero, { messages: JSON.stringify(both), op: "add", flag: "read" }), 200, success({ messages: both }))
          expectReply(yield* flags(prospero, { messages: JSON.stringify(both), op: "remove", flag: "read" }), 200, success({ messages: both }))
          const details = (t: string, unmuted: boolean) => ({ type: "stream", stream_id: verona.id, topic: t, unmuted_stream_msg: unmuted })
          assert.deepStrictEqual(bare(yield* queue.drain), [
            { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: both, all: false },
            {
              type: "update_message_flags",
              op: "remove",
              operation: "remove",
              flag: "read",
              messages: both,
              all: false,
              message_details: { [both[0]!]: details("u-plain", true), [both[1]!]: details("u-muted", false) }
            }
          ])
        }))

      it.effect("muting a user: their unread messages are marked read (update_message_flags), then muted_users; register's list", () =>
        Effect.gen(function*() {
          const cordelia = yield* person("cordelia@zulip.com")
          const zoe = yield* person("ZOE@zulip.com")
          const aaron = yield* person("AARON@zulip.com")
          const queue = yield* register(cordelia, { event_types: JSON.stringify(["update_message_flags", "muted_users"]) })
          const direct = yield* sent(zoe, { type: "private", to: JSON.stringify([cordelia.userId]), content: "psst" })
          const group = yield* sent(zoe, { type: "private", to: JSON.stringify([cordelia.userId, aaron.userId]), content: "all three" })
          const already = yield* sent(zoe, { type: "private", to: JSON.stringify([cordelia.userId]), content: "read already" })
          const fromAaron = yield* sent(aaron, { type: "private", to: JSON.stringify([cordelia.userId]), content: "not muted" })
          expectReply(yield* flags(cordelia, { messages: JSON.stringify([already]), op: "add", flag: "read" }), 200, success({ messages: [already] }))
          yield* queue.drain

          const t = yield* tick
          expectReply(yield* mute(cordelia, zoe.userId), 200, success())
          assert.deepStrictEqual(bare(yield* queue.drain), [
            { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [direct, group], all: false },
            { type: "muted_users", muted_users: [{ id: zoe.userId, timestamp: t }] }
          ])
          const unread = (yield* state(cordelia, { fetch_event_types: JSON.stringify(["message", "update_message_flags"]) })).unread_msgs
          const unreadIds = [...unread.pms, ...unread.huddles].flatMap((c: any) => c.unread_message_ids)
          assert.notInclude(unreadIds, direct)
          assert.notInclude(unreadIds, group)
          assert.include(unreadIds, fromAaron)

          // A second mute is refused and changes nothing.
          yield* tick
          expectReply(yield* mute(cordelia, zoe.userId), 400, badRequest("User already muted"))
          assert.deepStrictEqual(bare(yield* queue.drain), [])

          // Nothing unread from them: only muted_users. Bots and deactivated users may be muted too.
          const t2 = yield* tick
          const bot = yield* as("bot")
          expectReply(yield* mute(cordelia, bot.userId), 200, success())
          const list = [{ id: zoe.userId, timestamp: t }, { id: bot.userId, timestamp: t2 }].sort((a, b) => a.id - b.id)
          assert.deepStrictEqual(bare(yield* queue.drain), [{ type: "muted_users", muted_users: list }])
          assert.deepStrictEqual((yield* state(cordelia, { fetch_event_types: JSON.stringify(["muted_users"]) })).muted_users, list)

          expectReply(yield* unmute(cordelia, zoe.userId), 200, success())
          assert.deepStrictEqual(bare(yield* queue.drain), [{ type: "muted_users", muted_users: [{ id: bot.userId, timestamp: t2 }] }])
          expectReply(yield* unmute(cordelia, zoe.userId), 400, badRequest("User is not muted"))
          expectReply(yield* unmute(cordelia, bot.userId), 200, success())
          assert.deepStrictEqual(bare(yield* queue.drain), [{ type: "muted_users", muted_users: [] }])
          assert.deepStrictEqual((yield* state(cordelia, { fetch_event_types: JSON.stringify(["muted_users"]) })).muted_users, [])
          // Unmuting does not mark anything unread again.
          const after = (yield* state(cordelia, { fetch_event_types: JSON.stringify(["message", "update_message_flags"]) })).unread_msgs
          assert.notInclude([...after.pms, ...after.huddles].flatMap((c: any) => c.unread_message_ids), direct)
        }))

      it.effect("muted users: a deactivated user may be muted; a guest may not mute someone they cannot see", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const newMember = (email: string) =>
            server.core(Users.use((users) => users.create(realmId(1), { email, full_name: email.split("@")[0]!, role: 400 })))
          const gone = yield* newMember("muting-gone@zulip.com")
          const loner = yield* newMember("muting-loner@zulip.com")
          yield* server.core(Users.use((users) => users.deactivate(gone.id)))
          const guest = yield* as("guest")
          const t = yield* tick
          expectReply(yield* mute(guest, gone.id), 200, success())
          assert.deepStrictEqual(
            (yield* state(guest, { fetch_event_types: JSON.stringify(["muted_users"]) })).muted_users,
            [{ id: gone.id, timestamp: t }]
          )
          expectReply(yield* unmute(guest, gone.id), 200, success())
          /** Who may see every user: the members (a guest then sees only people sharing a channel), or everyone. */
          const setAccess = (group: "role:members" | "role:everyone") =>
            server.core(Effect.gen(function*() {
              const groups = yield* (yield* Organizations).systemGroups(loner.realm_id)
              const realms = yield* RealmRepo
              const realm = (yield* realms.findById(loner.realm_id))!
              yield* realms.update({ ...realm, settings: { ...realm.settings, can_access_all_users_group: groups[group] } })
            }))
          yield* setAccess("role:members")
          expectReply(yield* mute(guest, loner.id), 400, badRequest("Insufficient permission"))
          expectReply(yield* unmute(guest, loner.id), 400, badRequest("Insufficient permission"))
          // Oneself is refused before anyone is looked up.
          expectReply(yield* mute(guest, guest.userId), 400, badRequest("Cannot mute self"))
          yield* setAccess("role:everyone")
          expectReply(yield* mute(guest, loner.id), 200, success())
          expectReply(yield* unmute(guest, loner.id), 200, success())
          assert.deepStrictEqual((yield* state(guest, { fetch_event_types: JSON.stringify(["muted_users"]) })).muted_users, [])
        }))

      it.effect("muted users: what a muted user sends later arrives read for the muter, on each way a send is written", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const own = yield* ownChannel(iago, [["mu-send-1@zulip.com", "Muter"], ["mu-send-2@zulip.com", "Muted"]], {
            name: "muting sends"
          })
          const [muter, muted] = own.members
          expectReply(yield* mute(muter.as, muted.id), 200, success())
          const muterQueue = yield* register(muter.as, { event_types: JSON.stringify(["message"]) })
          const iagoQueue = yield* register(iago, { event_types: JSON.stringify(["message"]) })
          const toChannel = (content: string) => ({ type: "stream", to: String(own.channel), topic: "muted", content })
          // The channel's first message and a widget are written in a transaction; a later message and
          // a direct message by one statement.
          const ids = [
            yield* sent(muted.as, toChannel("first")),
            yield* sent(muted.as, toChannel("second")),
            yield* sent(muted.as, toChannel("/poll Lunch?")),
            yield* sent(muted.as, { type: "private", to: JSON.stringify([muter.id, iago.userId]), content: "psst" })
          ]
          const flagsOf = (events: ReadonlyArray<Record<string, unknown>>) =>
            events.filter((e) => e.type === "message").map((e) => [(e.message as { id: number }).id, e.flags])
          assert.deepStrictEqual(flagsOf(yield* muterQueue.drain), ids.map((id) => [id, ["read"]]))
          // Someone who did not mute them gets the messages unread.
          assert.deepStrictEqual(flagsOf(yield* iagoQueue.drain), ids.map((id) => [id, []]))
          for (const id of ids) assert.include((yield* read(muter.as, id)).flags as Array<string>, "read")
          for (const id of ids) assert.notInclude((yield* read(iago, id)).flags as Array<string>, "read")
          const unread = (yield* state(muter.as, { fetch_event_types: JSON.stringify(["message", "update_message_flags"]) }))
            .unread_msgs
          assert.strictEqual(unread.count, 0)

          // Unmuted, their next message is unread again.
          expectReply(yield* unmute(muter.as, muted.id), 200, success())
          const later = yield* sent(muted.as, toChannel("unmuted"))
          assert.deepStrictEqual(flagsOf(yield* muterQueue.drain), [[later, []]])
        }))

      it.effect("read receipts leave out those who muted the requester and those the requester muted", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const iago = yield* as("admin")
          const first = yield* ownChannel(iago, [["mu-rr-1@zulip.com", "Requester"], ["mu-rr-2@zulip.com", "Muting"]], {
            name: "muting receipts one"
          })
          const second = yield* ownChannel(iago, [["mu-rr-3@zulip.com", "Muted"], ["mu-rr-4@zulip.com", "Bystander"]], {
            name: "muting receipts two"
          })
          const [requester, muting] = first.members
          const [muted, bystander] = second.members
          const everyone = [requester, muting, muted, bystander]
          const id = yield* sent(iago, {
            type: "private",
            to: JSON.stringify(everyone.map((m) => m.id)),
            content: "who read this?"
          })
          for (const who of everyone) {
            expectReply(yield* flags(who.as, { messages: JSON.stringify([id]), op: "add", flag: "read" }), 200, success({ messages: [id] }))
          }
          const readers = (who: Credentials) =>
            Effect.map(server.fetch("GET", `/api/v1/messages/${id}/read_receipts`, { as: who }), (reply) => {
              assert.strictEqual(reply.status, 200, reply.text)
              return [...(reply.json.user_ids as Array<number>)].sort((a, b) => a - b)
            })
          const ids = (...people: ReadonlyArray<{ readonly id: number }>) => people.map((p) => p.id).sort((a, b) => a - b)
          assert.deepStrictEqual(yield* readers(requester.as), ids(...everyone))

          expectReply(yield* mute(muting.as, requester.id), 200, success())
          expectReply(yield* mute(requester.as, muted.id), 200, success())
          assert.deepStrictEqual(yield* readers(requester.as), ids(requester, bystander))
          // Each side of a mute leaves the other out.
          assert.deepStrictEqual(yield* readers(muting.as), ids(muting, muted, bystander))
          assert.deepStrictEqual(yield* readers(muted.as), ids(muting, muted, bystander))
          assert.deepStrictEqual(yield* readers(bystander.as), ids(...everyone))
          assert.deepStrictEqual(yield* readers(iago), ids(...everyone))

          expectReply(yield* unmute(muting.as, requester.id), 200, success())
          assert.deepStrictEqual(yield* readers(requester.as), ids(requester, muting, bystander))
          expectReply(yield* unmute(requester.as, muted.id), 200, success())
          assert.deepStrictEqual(yield* readers(requester.as), ids(...everyone))
        }))

      it.effect("muted users: Zulip's refusals, and nothing written by them", () =>
        Effect.gen(function*() {
          const othello = yield* person("othello@zulip.com")
          const queue = yield* register(othello, { event_types: JSON.stringify(["update_message_flags", "muted_users"]) })
          expectReply(yield* mute(othello, othello.userId), 400, badRequest("Cannot mute self"))
          // Unmuting oneself reaches the lookup: one is never muted.
          expectReply(yield* unmute(othello, othello.userId), 400, badRequest("User is not muted"))
          for (const id of ["999999", "9007199254740991", "99999999999999999999"]) {
            expectReply(yield* mute(othello, id), 400, badRequest("No such user"))
            expectReply(yield* unmute(othello, id), 400, badRequest("No such user"))
          }
          for (const id of ["abc", "-1", "1.5"]) {
            const reply = yield* mute(othello, id)
            assert.strictEqual(reply.status, 404, reply.text)
          }
          expectReply(yield* mute(othello, 0), 400, badRequest("No such user"))
          assert.deepStrictEqual(bare(yield* queue.drain), [])
          assert.deepStrictEqual((yield* state(othello, { fetch_event_types: JSON.stringify(["muted_users"]) })).muted_users, [])
        }))
    })
  })
