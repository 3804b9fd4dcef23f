/** Message events as each queue asked for them. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { bare, withoutFlags, mobileUserAgent, person, as, sent, read, register, narrowOf } from "./fixtures.ts"

export const eventsTests = (it: Vitest.MethodsNonLive<Server>): void => {
  // -----------------------------------------------------------------------
  // message events

  it.effect("message events: per-queue views (apply_markdown, local_message_id, narrow) and flags beside the message", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const cordelia = yield* person("cordelia@zulip.com")
      const events = JSON.stringify(["message"])
      const html = yield* register(hamlet, { event_types: events, apply_markdown: "true", client_gravatar: "false" })
      const markdown = yield* register(hamlet, { event_types: events, apply_markdown: "false", client_gravatar: "false" })
      const denmarkOnly = yield* register(cordelia, {
        event_types: events,
        apply_markdown: "true",
        client_gravatar: "false",
        narrow: narrowOf([["stream", "Denmark"]])
      })
      // client_gravatar: the avatar stays, the senders' emails not being public.
      const gravatar = yield* register(hamlet, { event_types: events, apply_markdown: "true", client_gravatar: "true" })
      const sender = yield* register(iago, { event_types: events, apply_markdown: "true", client_gravatar: "false" })
      const senderOther = yield* register(iago, { event_types: events, apply_markdown: "true", client_gravatar: "false" })

      const denmark = yield* sent(iago, {
        type: "stream",
        to: "Denmark",
        topic: "events",
        content: "hi @**King Hamlet**",
        queue_id: sender.queueId,
        local_id: "1234.01"
      }, mobileUserAgent)
      const verona = yield* sent(iago, { type: "stream", to: "Verona", topic: "events", content: "*verona*" })

      const denmarkView = withoutFlags(yield* read(iago, denmark))
      const veronaView = withoutFlags(yield* read(iago, verona))
      const raw = (view: Record<string, unknown>, content: string) => ({ ...view, content, content_type: "text/x-markdown" })

      assert.deepStrictEqual(bare(yield* html.drain), [
        { type: "message", message: denmarkView, flags: ["mentioned"] },
        { type: "message", message: veronaView, flags: [] }
      ])
      assert.deepStrictEqual(bare(yield* gravatar.drain), [
        { type: "message", message: denmarkView, flags: ["mentioned"] },
        { type: "message", message: veronaView, flags: [] }
      ])
      assert.deepStrictEqual(bare(yield* markdown.drain), [
        { type: "message", message: raw(denmarkView, "hi @**King Hamlet**"), flags: ["mentioned"] },
        { type: "message", message: raw(veronaView, "*verona*"), flags: [] }
      ])
      // The narrowed queue gets Denmark only.
      assert.deepStrictEqual(bare(yield* denmarkOnly.drain), [{ type: "message", message: denmarkView, flags: [] }])
      // The sending queue gets local_message_id (and the mobile app's message is read for its sender).
      assert.deepStrictEqual(bare(yield* sender.drain), [
        { type: "message", message: denmarkView, flags: ["read"], local_message_id: "1234.01" },
        { type: "message", message: veronaView, flags: [] }
      ])
      assert.deepStrictEqual(bare(yield* senderOther.drain), [
        { type: "message", message: denmarkView, flags: ["read"] },
        { type: "message", message: veronaView, flags: [] }
      ])
      // A direct message: only its participants' queues hear it; the wire keys are Zulip's.
      const plain = yield* register(cordelia, {
        event_types: events,
        apply_markdown: "true",
        client_gravatar: "false",
        client_capabilities: JSON.stringify({ empty_topic_name: true })
      })
      const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([cordelia.userId]), content: "psst" })
      const dmEvents = yield* plain.drain
      assert.strictEqual(dmEvents.length, 1)
      assert.deepStrictEqual(Object.keys(dmEvents[0]!).sort(), ["flags", "id", "message", "type"])
      assert.isTrue(Number.isInteger(dmEvents[0]!.id))
      assert.deepStrictEqual(bare(dmEvents), [{
        type: "message",
        message: withoutFlags(yield* read(cordelia, dm, { allow_empty_topic_name: "true" })),
        flags: []
      }])
      assert.deepStrictEqual(yield* html.drain, [])
      // The narrowed queue heard no direct messages.
      assert.deepStrictEqual(yield* denmarkOnly.drain, [])
    }))
}
