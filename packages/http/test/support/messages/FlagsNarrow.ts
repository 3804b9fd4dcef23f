/** POST /messages/flags/narrow. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { success, badRequest, badNarrow, bare, as, channels, sent, read, flags, flagsNarrow, expectReply, register, narrowOf } from "./fixtures.ts"

export const flagsNarrowTests = (it: Vitest.MethodsNonLive<Server>): void => {
  // -----------------------------------------------------------------------
  // POST /messages/flags/narrow

  it.effect("POST /messages/flags/narrow: counts, processed ids and found_* exactly; ignored channels for read/remove only", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const { Venice: venice } = yield* channels
      const ids: Array<number> = []
      for (let i = 1; i <= 3; i++) {
        ids.push(yield* sent(iago, { type: "stream", to: "Denmark", topic: "by narrow", content: `n${i}` }))
      }
      const narrow = narrowOf([["channel", "Denmark"], ["topic", "by narrow"]])
      const queue = yield* register(hamlet, { event_types: JSON.stringify(["update_message_flags"]) })

      expectReply(
        yield* flagsNarrow(hamlet, { anchor: "oldest", num_before: "0", num_after: "2", narrow, op: "add", flag: "read" }),
        200,
        success({
          processed_count: 2,
          updated_count: 2,
          first_processed_id: ids[0],
          last_processed_id: ids[1],
          found_oldest: true,
          found_newest: false
        })
      )
      assert.deepStrictEqual(bare(yield* queue.drain), [{
        type: "update_message_flags",
        op: "add",
        operation: "add",
        flag: "read",
        messages: [ids[0], ids[1]],
        all: false
      }])
      // All three: one more is read now.
      expectReply(
        yield* flagsNarrow(hamlet, { anchor: "newest", num_before: "10", num_after: "0", narrow, op: "add", flag: "read" }),
        200,
        success({
          processed_count: 3,
          updated_count: 1,
          first_processed_id: ids[0],
          last_processed_id: ids[2],
          found_oldest: true,
          found_newest: true
        })
      )
      // Around an id, anchor excluded at an end.
      expectReply(
        yield* flagsNarrow(hamlet, {
          anchor: String(ids[1]),
          include_anchor: "false",
          num_before: "0",
          num_after: "5",
          narrow,
          op: "add",
          flag: "starred"
        }),
        200,
        success({
          processed_count: 1,
          updated_count: 1,
          first_processed_id: ids[2],
          last_processed_id: ids[2],
          found_oldest: false,
          found_newest: true
        })
      )
      // read/remove lists the channels it skipped (none here).
      expectReply(
        yield* flagsNarrow(hamlet, { anchor: "oldest", num_before: "0", num_after: "10", narrow, op: "remove", flag: "read" }),
        200,
        success({
          processed_count: 3,
          updated_count: 3,
          first_processed_id: ids[0],
          last_processed_id: ids[2],
          found_oldest: true,
          found_newest: true,
          ignored_because_not_subscribed_channels: []
        })
      )
      // An empty range.
      expectReply(
        yield* flagsNarrow(hamlet, {
          anchor: String(ids[2]),
          include_anchor: "false",
          num_before: "0",
          num_after: "10",
          narrow,
          op: "add",
          flag: "read"
        }),
        200,
        success({
          processed_count: 0,
          updated_count: 0,
          first_processed_id: null,
          last_processed_id: null,
          found_oldest: false,
          found_newest: true
        })
      )
      yield* queue.drain

      // Public history of a channel hamlet is not in: marking unread ignores the channel.
      const history = yield* sent(iago, { type: "stream", to: "Venice", topic: "by narrow", content: "venice" })
      const veniceNarrow = narrowOf([["channel", "Venice"], ["topic", "by narrow"]])
      expectReply(
        yield* flagsNarrow(hamlet, { anchor: "newest", num_before: "10", num_after: "0", narrow: veniceNarrow, op: "remove", flag: "read" }),
        200,
        success({
          processed_count: 1,
          updated_count: 0,
          first_processed_id: history,
          last_processed_id: history,
          found_oldest: true,
          found_newest: true,
          ignored_because_not_subscribed_channels: [venice.id]
        })
      )
      expectReply(
        yield* flagsNarrow(hamlet, { anchor: "newest", num_before: "10", num_after: "0", narrow: veniceNarrow, op: "add", flag: "starred" }),
        200,
        success({
          processed_count: 1,
          updated_count: 1,
          first_processed_id: history,
          last_processed_id: history,
          found_oldest: true,
          found_newest: true
        })
      )
      assert.deepStrictEqual((yield* read(hamlet, history)).flags, ["read", "starred", "historical"])
      yield* flags(hamlet, { messages: JSON.stringify([history]), op: "remove", flag: "starred" })
    }))

  it.effect("POST /messages/flags/narrow: errors, exactly", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const base = { anchor: "newest", num_before: "1", num_after: "0", narrow: "[]" }
      const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
        [
          { ...base, anchor: "5", include_anchor: "false", num_after: "1", op: "add", flag: "read" },
          badRequest("The anchor can only be excluded at an end of the range")
        ],
        [{ ...base, op: "add", flag: "bogus" }, badRequest("Invalid flag: 'bogus'")],
        [{ ...base, op: "add", flag: "mentioned" }, badRequest("Flag not editable: 'mentioned'")],
        [{ ...base, op: "toggle", flag: "read" }, badRequest("Invalid message flag operation: 'toggle'")],
        [{ ...base, anchor: "latest", op: "add", flag: "read" }, badRequest("Invalid anchor")],
        [{ ...base, narrow: narrowOf([["bogus", "x"]]), op: "add", flag: "read" }, badNarrow("unknown operator bogus")]
      ]
      for (const [form, body] of cases) expectReply(yield* flagsNarrow(hamlet, form), 400, body)
    }))
}
