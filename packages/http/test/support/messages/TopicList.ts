/** GET /users/me/{stream_id}/topics. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { channelId, userId } from "@teamchat/core/domain/Ids"
import { Channels } from "@teamchat/core/services/Channels"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { as, badRequest, expectReply, ownChannel, person, sent, success } from "./fixtures.ts"

const topics = (who: Credentials, channel: number, query?: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("GET", `/api/v1/users/me/${channel}/topics`, { as: who, query }))

export const topicListTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("topics: newest first, spellings merged under the newest one, the empty topic as general chat", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const othello = yield* person("othello@zulip.com")
      const polonius = yield* as("guest")
      const { channel, members: [a, b] } = yield* ownChannel(
        iago,
        [["topics-a@zulip.com", "Topic A"], ["topics-b@zulip.com", "Topic B"]],
        { name: "topic list" }
      )
      const name = "topic list"
      expectReply(yield* topics(a.as, channel), 200, success({ topics: [] }))
      const m1 = yield* sent(a.as, { type: "stream", to: name, topic: "Alpha", content: "1" })
      const m2 = yield* sent(b.as, { type: "stream", to: name, topic: "beta", content: "2" })
      const m3 = yield* sent(a.as, { type: "stream", to: name, topic: "ALPHA", content: "3" })
      const m4 = yield* sent(b.as, { type: "stream", to: name, topic: "general chat", content: "4" })
      const m5 = yield* sent(a.as, { type: "stream", to: name, topic: "Alpha", content: "5" })
      assert.isTrue(m1 < m2 && m2 < m3 && m3 < m4 && m4 < m5)
      const listed = [{ name: "Alpha", max_id: m5 }, { name: "general chat", max_id: m4 }, { name: "beta", max_id: m2 }]
      expectReply(yield* topics(a.as, channel), 200, success({ topics: listed }))
      // A public channel's history: a member who is not subscribed sees it all.
      expectReply(yield* topics(othello, channel), 200, success({ topics: listed }))
      expectReply(
        yield* topics(b.as, channel, { allow_empty_topic_name: "true" }),
        200,
        success({ topics: [listed[0], { name: "", max_id: m4 }, listed[2]] })
      )
      // Guests reach only the channels they are subscribed to.
      expectReply(yield* topics(polonius, channel), 400, badRequest("Invalid channel ID"))
      expectReply(yield* topics(a.as, 999_999_999), 400, badRequest("Invalid channel ID"))
      expectReply(
        yield* topics(a.as, channel, { allow_empty_topic_name: "yes" }),
        400,
        badRequest("allow_empty_topic_name is not valid JSON")
      )
    }))

  it.effect("topics: in a private channel with protected history, only the topics of messages the user received", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const desdemona = yield* as("owner")
      const othello = yield* person("othello@zulip.com")
      const { channel, members: [a] } = yield* ownChannel(
        iago,
        [["topics-p-a@zulip.com", "Topic P"], ["topics-p-b@zulip.com", "Topic Q"]],
        { name: "topic list private", invite_only: true, history_public_to_subscribers: false }
      )
      const name = "topic list private"
      const early = yield* sent(a.as, { type: "stream", to: name, topic: "early", content: "before" })
      expectReply(yield* topics(desdemona, channel), 400, badRequest("Invalid channel ID"))
      const server = yield* Server
      yield* server.core(Effect.flatMap(Channels, (channels) =>
        channels.subscribe(channelId(channel), [userId(desdemona.userId)])))
      const late = yield* sent(a.as, { type: "stream", to: name, topic: "late", content: "after" })
      expectReply(yield* topics(desdemona, channel), 200, success({ topics: [{ name: "late", max_id: late }] }))
      expectReply(
        yield* topics(a.as, channel),
        200,
        success({ topics: [{ name: "late", max_id: late }, { name: "early", max_id: early }] })
      )
      // Not subscribed: nobody, whatever their role.
      expectReply(yield* topics(othello, channel), 400, badRequest("Invalid channel ID"))
    }))
}
