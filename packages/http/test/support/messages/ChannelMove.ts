/** PATCH /messages/{message_id} with `stream_id`: moves to another channel. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Vitest } from "@effect/vitest"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import { channelId } from "@teamchat/core/domain/Ids"
import { ChannelRepo } from "@teamchat/core/ports/Repositories"
import { as, badRequest, bare, expectReply, getMessage, invalidMessages, notificationBotId, ownChannel, read, register, sent, success, topicMessages } from "./fixtures.ts"

const editMessage = (who: Credentials, id: number | string, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("PATCH", `/api/v1/messages/${id}`, { as: who, form }))

const edited = success({ detached_uploads: [] })

const nowSeconds = Effect.map(Server, (server) => Math.floor(server.clock.now() / 1000))

let made = 0
/** A channel of the test's own: two new members and `iago`. */
const channelOf = (label: string, options: { readonly invite_only?: boolean; readonly history_public_to_subscribers?: boolean } = {}) =>
  Effect.gen(function*() {
    const iago = { ...(yield* as("admin")) }
    const n = ++made
    const name = `moves ${label} ${n}`
    const created = yield* ownChannel(iago, [
      [`chanmove-${label}-${n}-a@zulip.com`, `Mover ${label} ${n}`],
      [`chanmove-${label}-${n}-b@zulip.com`, `Watcher ${label} ${n}`]
    ], { name, ...options })
    return { iago, id: created.channel, name, first: created.members[0], second: created.members[1], n }
  })

const types = JSON.stringify(["update_message", "delete_message"])
const capabilities = JSON.stringify({ bulk_message_deletion: true, empty_topic_name: true })

export const channelMoveTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("PATCH /messages/{id} stream_id, change_all with a new topic: the topic moves, notices in both threads, update_message to both channels, rows of those who left", () =>
    Effect.gen(function*() {
      const from = yield* channelOf("public-from")
      const to = yield* channelOf("public-to")
      const server = yield* Server
      const senderQueue = yield* register(from.first.as, { event_types: types, client_capabilities: capabilities })
      const watcherQueue = yield* register(to.second.as, { event_types: types, client_capabilities: capabilities })
      const ids: Array<number> = []
      for (const content of ["one", "two"]) ids.push(yield* sent(from.first.as, { type: "stream", to: String(from.id), topic: "old", content }))
      server.clock.advance(60_000)
      const at = yield* nowSeconds
      expectReply(
        yield* editMessage(from.first.as, ids[1]!, {
          stream_id: String(to.id),
          topic: "new",
          propagate_mode: "change_all",
          send_notification_to_old_thread: "true"
        }),
        200,
        edited
      )
      const bot = yield* notificationBotId(from.first.as)
      const mover = `@_**Mover public-from ${from.n}|${from.first.id}**`
      assert.deepStrictEqual((yield* topicMessages(to.second.as, to.id, "new")).map(([id, who, text]) => who === bot ? [who, text] : [id, who, text]), [
        [ids[0], from.first.id, "one"],
        [ids[1], from.first.id, "two"],
        [bot, `This topic was moved here from #**${from.name}>old** by ${mover}.`]
      ])
      assert.deepStrictEqual((yield* topicMessages(from.first.as, from.id, "old")).map(([, who, text]) => [who, text]), [
        [bot, `This topic was moved to #**${to.name}>new** by ${mover}.`]
      ])
      const view = yield* read(to.second.as, ids[0]!)
      assert.strictEqual(view.stream_id, to.id)
      assert.strictEqual(view.subject, "new")
      assert.strictEqual(view.last_moved_timestamp, at)
      assert.deepStrictEqual(view.edit_history, [
        { user_id: from.first.id, timestamp: at, prev_topic: "old", topic: "new", prev_stream: from.id, stream: to.id }
      ])
      const common = {
        type: "update_message",
        user_id: from.first.id,
        edit_timestamp: at,
        message_id: ids[1],
        message_ids: ids,
        rendering_only: false,
        stream_id: from.id,
        stream_name: from.name,
        propagate_mode: "change_all",
        orig_subject: "old",
        subject: "new",
        topic_links: [],
        new_stream_id: to.id
      }
      // The sender left its rows behind (not subscribed to the destination) but reads the public channel still.
      assert.deepStrictEqual(bare(yield* senderQueue.drain).filter((e) => e.type === "update_message"), [{ ...common, flags: ["read"] }])
      assert.deepStrictEqual(bare(yield* watcherQueue.drain).filter((e) => e.type === "update_message"), [{ ...common, flags: ["read"] }])
      // No delete_message: the destination is public.
      assert.strictEqual((yield* read(from.first.as, ids[0]!)).flags !== undefined, true)
    }))

  it.effect("PATCH /messages/{id} stream_id to a private channel with protected history: those left out get delete_message, its subscribers get rows", () =>
    Effect.gen(function*() {
      const from = yield* channelOf("to-private-from")
      const to = yield* channelOf("to-private-to", { invite_only: true, history_public_to_subscribers: false })
      const readerQueue = yield* register(from.second.as, { event_types: types, client_capabilities: capabilities })
      const memberQueue = yield* register(to.first.as, { event_types: types, client_capabilities: capabilities })
      const id = yield* sent(from.first.as, { type: "stream", to: String(from.id), topic: "secret", content: "psst" })
      const at = yield* nowSeconds
      // iago is in both channels; the message keeps its topic.
      expectReply(yield* editMessage(from.iago, id, { stream_id: String(to.id), send_notification_to_new_thread: "false" }), 200, edited)
      assert.deepStrictEqual(bare(yield* readerQueue.drain), [{
        type: "delete_message",
        message_ids: [id],
        message_type: "stream",
        stream_id: from.id,
        topic: "secret"
      }])
      expectReply(yield* getMessage(from.second.as, id), 400, invalidMessages)
      // The destination's member received it now: a row, read.
      assert.deepStrictEqual((yield* read(to.first.as, id)).flags, ["read"])
      assert.deepStrictEqual(bare(yield* memberQueue.drain), [{
        type: "update_message",
        user_id: from.iago.userId,
        edit_timestamp: at,
        message_id: id,
        message_ids: [id],
        rendering_only: false,
        stream_id: from.id,
        stream_name: from.name,
        propagate_mode: "change_one",
        orig_subject: "secret",
        new_stream_id: to.id,
        flags: ["read"]
      }])
      assert.deepStrictEqual(yield* topicMessages(to.first.as, to.id, "secret"), [[id, from.first.id, "psst"]])
    }))

  it.effect("PATCH /messages/{id} stream_id: change_one and change_later move what they say; notices count them", () =>
    Effect.gen(function*() {
      const from = yield* channelOf("partial-from")
      const to = yield* channelOf("partial-to")
      const ids: Array<number> = []
      for (const content of ["a", "b", "c"]) ids.push(yield* sent(from.iago, { type: "stream", to: String(from.id), topic: "here", content }))
      const bot = yield* notificationBotId(from.iago)
      const mover = `@_**Iago|${from.iago.userId}**`
      expectReply(yield* editMessage(from.iago, ids[1]!, { stream_id: String(to.id), propagate_mode: "change_later" }), 200, edited)
      const moved = yield* topicMessages(from.iago, to.id, "here")
      assert.deepStrictEqual(moved.filter(([, who]) => who !== bot).map(([id]) => id), [ids[1], ids[2]])
      assert.deepStrictEqual(moved.filter(([, who]) => who === bot).map(([, , t]) => t), [
        `2 messages were moved here from #**${from.name}>here** by ${mover}.`
      ])
      assert.deepStrictEqual((yield* topicMessages(from.iago, from.id, "here")).map(([id]) => id), [ids[0]])
      expectReply(yield* editMessage(from.iago, ids[0]!, { stream_id: String(to.id) }), 200, edited)
      assert.deepStrictEqual((yield* topicMessages(from.iago, to.id, "here")).filter(([, who]) => who !== bot).map(([id]) => id), ids)
    }))

  it.effect("PATCH /messages/{id} stream_id: Zulip's refusals (direct messages, content, the same channel, the destination, its posting permission, the time limit)", () =>
    Effect.gen(function*() {
      const from = yield* channelOf("refusals-from")
      const hidden = yield* channelOf("refusals-hidden", { invite_only: true })
      const open = yield* channelOf("refusals-open")
      const server = yield* Server
      const id = yield* sent(from.first.as, { type: "stream", to: String(from.id), topic: "t", content: "stay" })
      const dm = yield* sent(from.first.as, { type: "direct", to: JSON.stringify([from.second.id]), content: "dm" })
      expectReply(yield* editMessage(from.first.as, dm, { stream_id: String(from.id) }), 400, badRequest("Direct messages cannot be moved to channels."))
      expectReply(
        yield* editMessage(from.first.as, id, { stream_id: String(open.id), content: "x" }),
        400,
        badRequest("Cannot change message content while changing channel")
      )
      // Its own channel is no change.
      expectReply(yield* editMessage(from.first.as, id, { stream_id: String(from.id) }), 400, badRequest("Nothing to change"))
      for (const channel of [hidden.id, 999_999]) {
        expectReply(yield* editMessage(from.first.as, id, { stream_id: String(channel) }), 400, badRequest("Invalid channel ID"))
      }
      // The destination's can_send_message_group must include the mover.
      const closed = yield* channelOf("refusals-closed")
      yield* server.core(Effect.gen(function*() {
        const channels = yield* ChannelRepo
        const channel = (yield* channels.findById(channelId(closed.id)))!
        yield* channels.update({
          ...channel,
          settings: { ...channel.settings, can_send_message_group: { direct_members: [], direct_subgroups: [] } }
        })
      }))
      expectReply(
        yield* editMessage(from.iago, id, { stream_id: String(closed.id) }),
        400,
        badRequest("You do not have permission to post in this channel.")
      )
      // A week and 20 s for members; none for moderators.
      server.clock.advance(604_821_000)
      expectReply(
        yield* editMessage(from.first.as, id, { stream_id: String(open.id) }),
        400,
        badRequest("The time limit for editing this message's channel has passed")
      )
      const shiva = yield* as("moderator")
      expectReply(yield* editMessage(shiva, id, { stream_id: String(open.id), send_notification_to_new_thread: "false" }), 200, edited)
      assert.strictEqual((yield* read(shiva, id)).stream_id, open.id)
    }))
}
