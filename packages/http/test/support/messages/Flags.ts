/** POST /messages/flags. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { success, badRequest, invalidMessages, bare, person, as, channels, sent, read, list, flags, expectReply, register, narrowOf, setMuted } from "./fixtures.ts"

export const flagsTests = (it: Vitest.MethodsNonLive<Server>): void => {
  // -----------------------------------------------------------------------
  // POST /messages/flags

  it.effect("POST /messages/flags: star, unstar, read, unread; the answer lists the ids as sent; update_message_flags events", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const { Denmark: denmark } = yield* channels
      const a = yield* sent(iago, { type: "stream", to: "Denmark", topic: "flags", content: "first" })
      const b = yield* sent(iago, { type: "stream", to: "Denmark", topic: "flags", content: "second" })
      const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "flag me" })
      const queue = yield* register(hamlet, { event_types: JSON.stringify(["update_message_flags"]) })
      const other = yield* register(iago, { event_types: JSON.stringify(["update_message_flags"]) })
      const flagsOf = (id: number) => Effect.map(read(hamlet, id), (m) => m.flags)

      expectReply(
        yield* flags(hamlet, { messages: JSON.stringify([b, a, a]), op: "add", flag: "starred" }),
        200,
        success({ messages: [b, a, a] })
      )
      assert.deepStrictEqual(yield* flagsOf(a), ["starred"])
      assert.deepStrictEqual(yield* flagsOf(b), ["starred"])
      const starred = bare(yield* queue.drain)
      assert.strictEqual(starred.length, 1)
      assert.deepStrictEqual({ ...starred[0], messages: [...(starred[0]!.messages as Array<number>)].sort((x, y) => x - y) }, {
        type: "update_message_flags",
        op: "add",
        operation: "add",
        flag: "starred",
        messages: [a, b],
        all: false
      })
      // Starring again changes nothing: the same answer, no event.
      expectReply(yield* flags(hamlet, { messages: JSON.stringify([a]), op: "add", flag: "starred" }), 200, success({ messages: [a] }))
      assert.deepStrictEqual(yield* queue.drain, [])

      expectReply(yield* flags(hamlet, { messages: JSON.stringify([a]), op: "remove", flag: "starred" }), 200, success({ messages: [a] }))
      assert.deepStrictEqual(yield* flagsOf(a), [])
      assert.deepStrictEqual(bare(yield* queue.drain), [{
        type: "update_message_flags",
        op: "remove",
        operation: "remove",
        flag: "starred",
        messages: [a],
        all: false
      }])

      expectReply(yield* flags(hamlet, { messages: JSON.stringify([a, dm]), op: "add", flag: "read" }), 200, success({ messages: [a, dm] }))
      assert.deepStrictEqual(yield* flagsOf(a), ["read"])
      assert.deepStrictEqual(yield* flagsOf(dm), ["read"])
      const readEvents = bare(yield* queue.drain)
      assert.strictEqual(readEvents.length, 1)
      assert.deepStrictEqual({ ...readEvents[0], messages: [...(readEvents[0]!.messages as Array<number>)].sort((x, y) => x - y) }, {
        type: "update_message_flags",
        op: "add",
        operation: "add",
        flag: "read",
        messages: [a, dm],
        all: false
      })

      // Marking unread says what each message was, so clients can restore their counts.
      expectReply(yield* flags(hamlet, { messages: JSON.stringify([a]), op: "remove", flag: "read" }), 200, success({ messages: [a] }))
      assert.deepStrictEqual(bare(yield* queue.drain), [{
        type: "update_message_flags",
        op: "remove",
        operation: "remove",
        flag: "read",
        messages: [a],
        all: false,
        message_details: { [String(a)]: { type: "stream", stream_id: denmark.id, topic: "flags", unmuted_stream_msg: true } }
      }])
      expectReply(yield* flags(hamlet, { messages: JSON.stringify([dm]), op: "remove", flag: "read" }), 200, success({ messages: [dm] }))
      assert.deepStrictEqual(bare(yield* queue.drain), [{
        type: "update_message_flags",
        op: "remove",
        operation: "remove",
        flag: "read",
        messages: [dm],
        all: false,
        message_details: { [String(dm)]: { type: "private", user_ids: [iago.userId] } }
      }])
      assert.deepStrictEqual(yield* flagsOf(a), [])
      assert.deepStrictEqual(yield* flagsOf(dm), [])
      // collapsed is editable too.
      expectReply(yield* flags(hamlet, { messages: JSON.stringify([b]), op: "add", flag: "collapsed" }), 200, success({ messages: [b] }))
      assert.deepStrictEqual(yield* flagsOf(b), ["starred", "collapsed"])
      assert.strictEqual((yield* queue.drain).length, 1)
      // Another user's queue heard nothing, and their flags did not change.
      assert.deepStrictEqual(yield* other.drain, [])
      assert.deepStrictEqual((yield* read(iago, b)).flags, [])
    }))

  it.effect("POST /messages/flags: marking unread a direct message that mentioned the user says \"mentioned\": true", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const dm = yield* sent(iago, {
        type: "direct",
        to: JSON.stringify([hamlet.userId]),
        content: "@**King Hamlet** did you see this?"
      })
      assert.deepStrictEqual((yield* read(hamlet, dm)).flags, ["mentioned"])
      expectReply(yield* flags(hamlet, { messages: JSON.stringify([dm]), op: "add", flag: "read" }), 200, success({ messages: [dm] }))
      const queue = yield* register(hamlet, { event_types: JSON.stringify(["update_message_flags"]) })
      expectReply(yield* flags(hamlet, { messages: JSON.stringify([dm]), op: "remove", flag: "read" }), 200, success({ messages: [dm] }))
      assert.deepStrictEqual(bare(yield* queue.drain), [{
        type: "update_message_flags",
        op: "remove",
        operation: "remove",
        flag: "read",
        messages: [dm],
        all: false,
        message_details: { [String(dm)]: { type: "private", user_ids: [iago.userId], mentioned: true } }
      }])
      assert.deepStrictEqual((yield* read(hamlet, dm)).flags, ["mentioned"])
    }))

  it.effect("POST /messages/flags: unmuted_stream_msg is false for a channel the user muted, true otherwise", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const { Denmark: denmark, Scotland: scotland } = yield* channels
      yield* setMuted(hamlet, scotland.id, true)
      const muted = yield* sent(iago, { type: "stream", to: "Scotland", topic: "muted details", content: "quiet" })
      const unmuted = yield* sent(iago, { type: "stream", to: "Denmark", topic: "muted details", content: "loud" })
      const both = [muted, unmuted]
      expectReply(yield* flags(hamlet, { messages: JSON.stringify(both), op: "add", flag: "read" }), 200, success({ messages: both }))
      const queue = yield* register(hamlet, { event_types: JSON.stringify(["update_message_flags"]) })
      expectReply(yield* flags(hamlet, { messages: JSON.stringify(both), op: "remove", flag: "read" }), 200, success({ messages: both }))
      const events = bare(yield* queue.drain)
      assert.strictEqual(events.length, 1)
      assert.deepStrictEqual({ ...events[0], messages: [...(events[0]!.messages as Array<number>)].sort((x, y) => x - y) }, {
        type: "update_message_flags",
        op: "remove",
        operation: "remove",
        flag: "read",
        messages: both,
        all: false,
        message_details: {
          [String(muted)]: { type: "stream", stream_id: scotland.id, topic: "muted details", unmuted_stream_msg: false },
          [String(unmuted)]: { type: "stream", stream_id: denmark.id, topic: "muted details", unmuted_stream_msg: true }
        }
      })
      yield* setMuted(hamlet, scotland.id, false)
    }))

  it.effect("POST /messages/flags: errors, exactly (flag, operation, unknown and inaccessible messages)", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const othello = yield* person("othello@zulip.com")
      const mine = yield* sent(iago, { type: "stream", to: "Denmark", topic: "flag errors", content: "x" })
      const theirs = yield* sent(iago, { type: "direct", to: JSON.stringify([othello.userId]), content: "between us" })
      const secret = yield* sent(yield* as("moderator"), { type: "stream", to: "core team", topic: "flag errors", content: "secret" })
      const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
        [{ messages: JSON.stringify([mine]), op: "add", flag: "bogus" }, badRequest("Invalid flag: 'bogus'")],
        [{ messages: JSON.stringify([mine]), op: "add", flag: "mentioned" }, badRequest("Flag not editable: 'mentioned'")],
        [{ messages: JSON.stringify([mine]), op: "add", flag: "historical" }, badRequest("Flag not editable: 'historical'")],
        [{ messages: JSON.stringify([mine]), op: "add", flag: "is_private" }, badRequest("Invalid flag: 'is_private'")],
        [{ messages: JSON.stringify([mine]), op: "toggle", flag: "starred" }, badRequest("Invalid message flag operation: 'toggle'")],
        [{ messages: JSON.stringify([999_999_999]), op: "add", flag: "starred" }, invalidMessages],
        [{ messages: JSON.stringify([mine, 999_999_999]), op: "add", flag: "starred" }, invalidMessages],
        [{ messages: JSON.stringify([theirs]), op: "add", flag: "starred" }, invalidMessages],
        [{ messages: JSON.stringify([theirs]), op: "add", flag: "read" }, invalidMessages],
        [{ messages: JSON.stringify([secret]), op: "add", flag: "starred" }, invalidMessages]
      ]
      for (const [form, body] of cases) expectReply(yield* flags(hamlet, form), 400, body)
      // Nothing changed on the way.
      assert.deepStrictEqual((yield* read(hamlet, mine)).flags, [])
      assert.deepStrictEqual((yield* read(othello, theirs)).flags, [])
    }))

  it.effect("POST /messages/flags: 10,000 ids reach the database as one list (Zulip's 400, never a 500); more are refused first", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const mine = yield* sent(iago, { type: "stream", to: "Denmark", topic: "many ids", content: "x" })
      const idsOf = (count: number) => [mine, ...Array.from({ length: count - 1 }, (_, i) => 1_000_000_000 + i)]
      expectReply(
        yield* flags(hamlet, { messages: JSON.stringify(idsOf(10_000)), op: "add", flag: "starred" }),
        400,
        invalidMessages
      )
      for (const count of [10_001, 80_000]) {
        expectReply(yield* flags(hamlet, { messages: JSON.stringify(idsOf(count)), op: "add", flag: "starred" }), 400, {
          result: "error",
          msg: "messages is too long (limit: 10000 items)",
          code: "BAD_REQUEST"
        })
      }
      assert.deepStrictEqual((yield* read(hamlet, mine)).flags, [])
    }))

  it.effect("POST /messages/flags on public history not received: the row is created (read, historical)", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const venice = yield* sent(iago, { type: "stream", to: "Venice", topic: "flag history", content: "public" })
      expectReply(yield* flags(hamlet, { messages: JSON.stringify([venice]), op: "add", flag: "starred" }), 200, success({ messages: [venice] }))
      assert.deepStrictEqual((yield* read(hamlet, venice)).flags, ["read", "starred", "historical"])
      const starred = yield* list(hamlet, {
        anchor: "newest",
        num_before: "10",
        num_after: "0",
        narrow: narrowOf([["is", "starred"], ["topic", "flag history"]])
      })
      assert.deepStrictEqual(starred.json.messages.map((m: { id: number; flags: Array<string> }) => [m.id, m.flags]), [
        [venice, ["read", "starred", "historical"]]
      ])
      expectReply(yield* flags(hamlet, { messages: JSON.stringify([venice]), op: "remove", flag: "starred" }), 200, success({ messages: [venice] }))
    }))
}
