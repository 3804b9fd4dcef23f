/** POST /streams/{stream_id}/delete_topic, and stream events of a channel's first message. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { success, invalidMessages, notAdministrator, bare, person, as, channels, sent, getMessage, read, list, deleteTopic, expectReply, register, narrowOf, subscribe, unsubscribe } from "./fixtures.ts"

export const deleteTopicTests = (it: Vitest.MethodsNonLive<Server>): void => {
  // -----------------------------------------------------------------------
  // POST /streams/{stream_id}/delete_topic

  it.effect("delete_topic: administrators only (owner, admin); every other role gets UNAUTHORIZED_PRINCIPAL", () =>
    Effect.gen(function*() {
      const shiva = yield* as("moderator")
      const { Venice: venice } = yield* channels
      const kept = yield* sent(shiva, { type: "stream", to: "Venice", topic: "not yours", content: "stays" })
      for (const role of ["moderator", "member", "guest", "bot"] as const) {
        expectReply(yield* deleteTopic(yield* as(role), venice.id, "not yours"), 400, notAdministrator)
      }
      assert.deepStrictEqual((yield* read(shiva, kept)).id, kept)
      for (const role of ["owner", "admin"] as const) {
        const who = yield* as(role)
        const doomed = yield* sent(shiva, { type: "stream", to: "Venice", topic: `deleted by ${role}`, content: "bye" })
        expectReply(yield* deleteTopic(who, venice.id, `deleted by ${role}`), 200, success({ complete: true }))
        expectReply(yield* getMessage(shiva, doomed), 400, invalidMessages)
        expectReply(yield* getMessage(who, doomed), 400, invalidMessages)
      }
      // Deleting a topic without messages is complete at once.
      expectReply(yield* deleteTopic(yield* as("admin"), venice.id, "never used"), 200, success({ complete: true }))
      assert.deepStrictEqual((yield* read(shiva, kept)).id, kept)
    }))

  it.effect("delete_topic: messages gone, delete_message events (bulk and per message), first_message_id updated", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const shiva = yield* as("moderator")
      const polonius = yield* as("guest")
      const othello = yield* person("othello@zulip.com")
      const types = JSON.stringify(["delete_message", "stream"])
      const bulk = yield* register(othello, {
        event_types: types,
        client_capabilities: JSON.stringify({ bulk_message_deletion: true })
      })
      const legacy = yield* register(polonius, { event_types: types })
      // Rome is used by this test only: its first message is in the doomed topic.
      const rome = (yield* channels).Rome!
      assert.strictEqual(rome.first_message_id, null)
      const first = yield* sent(shiva, { type: "stream", to: "Rome", topic: "doomed", content: "one" })
      const second = yield* sent(shiva, { type: "stream", to: "Rome", topic: "doomed", content: "two" })
      const kept = yield* sent(shiva, { type: "stream", to: "Rome", topic: "kept", content: "three" })
      assert.strictEqual((yield* channels).Rome!.first_message_id, first)
      // (Whatever the sends published is not under test here.)
      yield* bulk.drain
      yield* legacy.drain
      const firstMessageEvent = (value: number | null) => ({
        type: "stream",
        op: "update",
        property: "first_message_id",
        value,
        stream_id: rome.id,
        name: "Rome"
      })
      /** Zulip queues the channel update before the deletion; the order is not compared here (see the report). */
      const key = (event: object) => JSON.stringify(event, Object.keys(event).sort())
      const same = (actual: ReadonlyArray<Record<string, unknown>>, expected: ReadonlyArray<object>) =>
        assert.deepStrictEqual(
          [...bare(actual)].sort((a, b) => key(a).localeCompare(key(b))),
          [...expected].sort((a, b) => key(a).localeCompare(key(b)))
        )

      expectReply(yield* deleteTopic(iago, rome.id, "doomed"), 200, success({ complete: true }))
      for (const id of [first, second]) {
        expectReply(yield* getMessage(shiva, id), 400, invalidMessages)
        expectReply(yield* getMessage(iago, id), 400, invalidMessages)
      }
      assert.strictEqual((yield* read(shiva, kept)).id, kept)
      const topic = yield* list(shiva, {
        anchor: "newest",
        num_before: "10",
        num_after: "0",
        narrow: narrowOf([["channel", "Rome"]])
      })
      assert.deepStrictEqual(topic.json.messages.map((m: { id: number }) => m.id), [kept])

      const deleted = { message_type: "stream", stream_id: rome.id, topic: "doomed" }
      same(yield* bulk.drain, [
        { type: "delete_message", message_ids: [first, second], ...deleted },
        firstMessageEvent(kept)
      ])
      // Without bulk_message_deletion: one event per message, in id order.
      const perMessage = bare(yield* legacy.drain)
      assert.deepStrictEqual(perMessage.filter((e) => e.type === "delete_message"), [
        { type: "delete_message", message_id: first, ...deleted },
        { type: "delete_message", message_id: second, ...deleted }
      ])
      assert.deepStrictEqual(perMessage.filter((e) => e.type !== "delete_message"), [firstMessageEvent(kept)])
      assert.strictEqual((yield* channels).Rome!.first_message_id, kept)

      // Deleting a later topic leaves first_message_id alone: no stream event.
      const later = yield* sent(shiva, { type: "stream", to: "Rome", topic: "later", content: "four" })
      expectReply(yield* deleteTopic(iago, rome.id, "later"), 200, success({ complete: true }))
      assert.deepStrictEqual(bare(yield* bulk.drain), [
        { type: "delete_message", message_ids: [later], message_type: "stream", stream_id: rome.id, topic: "later" }
      ])
      // The last message gone: first_message_id is null again.
      expectReply(yield* deleteTopic(iago, rome.id, "kept"), 200, success({ complete: true }))
      same(yield* bulk.drain, [
        { type: "delete_message", message_ids: [kept], message_type: "stream", stream_id: rome.id, topic: "kept" },
        firstMessageEvent(null)
      ])
      assert.strictEqual((yield* channels).Rome!.first_message_id, null)
    }))

  it.effect("delete_topic: the acting administrator and subscribers without a copy get delete_message, after the first_message_id update", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const cordelia = yield* person("cordelia@zulip.com")
      const name = "delete audience"
      // A new public channel: hamlet creates it; iago is not subscribed.
      yield* subscribe(hamlet, [name])
      const channel = (yield* channels)[name]!
      assert.strictEqual(channel.first_message_id, null)
      const first = yield* sent(hamlet, { type: "stream", to: name, topic: "doomed", content: "one" })
      const second = yield* sent(hamlet, { type: "stream", to: name, topic: "doomed", content: "two" })
      const kept = yield* sent(hamlet, { type: "stream", to: name, topic: "kept", content: "three" })
      // cordelia subscribes afterwards: an active subscriber with no copy.
      yield* subscribe(cordelia, [name])
      expectReply(yield* getMessage(iago, first), 200, success({
        message: { ...(yield* read(hamlet, first)), flags: ["read", "historical"] },
        raw_content: "one"
      }))
      const types = JSON.stringify(["delete_message", "stream"])
      const bulk = { client_capabilities: JSON.stringify({ bulk_message_deletion: true }) }
      const acting = yield* register(iago, { event_types: types, ...bulk })
      const actingLegacy = yield* register(iago, { event_types: types })
      const late = yield* register(cordelia, { event_types: types, ...bulk })
      const sender = yield* register(hamlet, { event_types: types, ...bulk })

      expectReply(yield* deleteTopic(iago, channel.id, "doomed"), 200, success({ complete: true }))
      const firstMessageUpdate = {
        type: "stream",
        op: "update",
        property: "first_message_id",
        value: kept,
        stream_id: channel.id,
        name
      }
      const deleted = { message_type: "stream", stream_id: channel.id, topic: "doomed" }
      const expected = [firstMessageUpdate, { type: "delete_message", message_ids: [first, second], ...deleted }]
      // One poll each, compared in order: the channel update comes first.
      assert.deepStrictEqual(bare(yield* acting.drain), expected)
      assert.deepStrictEqual(bare(yield* late.drain), expected)
      assert.deepStrictEqual(bare(yield* sender.drain), expected)
      assert.deepStrictEqual(bare(yield* actingLegacy.drain), [
        firstMessageUpdate,
        { type: "delete_message", message_id: first, ...deleted },
        { type: "delete_message", message_id: second, ...deleted }
      ])
      assert.strictEqual((yield* channels)[name]!.first_message_id, kept)
      yield* unsubscribe(cordelia, [name])
      yield* unsubscribe(hamlet, [name])
    }))

  it.effect("a channel's very first message publishes no stream event (first_message_id is set silently)", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const othello = yield* person("othello@zulip.com")
      const name = "quiet first message"
      yield* subscribe(hamlet, [name])
      yield* subscribe(othello, [name])
      assert.strictEqual((yield* channels)[name]!.first_message_id, null)
      const types = JSON.stringify(["stream"])
      const sender = yield* register(hamlet, { event_types: types })
      const subscriber = yield* register(othello, { event_types: types })
      const first = yield* sent(hamlet, { type: "stream", to: name, topic: "hello", content: "first!" })
      assert.strictEqual((yield* channels)[name]!.first_message_id, first)
      assert.deepStrictEqual(yield* sender.drain, [])
      assert.deepStrictEqual(yield* subscriber.drain, [])
      yield* sent(othello, { type: "stream", to: name, topic: "hello", content: "second" })
      assert.strictEqual((yield* channels)[name]!.first_message_id, first)
      assert.deepStrictEqual(yield* sender.drain, [])
      assert.deepStrictEqual(yield* subscriber.drain, [])
      // The same queues do hear a real change of first_message_id.
      const channelId = (yield* channels)[name]!.id
      expectReply(yield* deleteTopic(yield* as("admin"), channelId, "hello"), 200, success({ complete: true }))
      const cleared = { type: "stream", op: "update", property: "first_message_id", value: null, stream_id: channelId, name }
      assert.deepStrictEqual(bare(yield* sender.drain), [cleared])
      assert.deepStrictEqual(bare(yield* subscriber.drain), [cleared])
      yield* unsubscribe(othello, [name])
      yield* unsubscribe(hamlet, [name])
    }))
}
