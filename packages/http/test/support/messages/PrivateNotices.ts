/**
 * Notification Bot's move and resolve notices in private channels the bot
 * is not subscribed to: posted anyway (Zulip's internal sends skip the
 * sender's channel access), received only by those with access (rows and
 * `message` events), read for the mover, channel links as the mover sees
 * them.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Vitest } from "@effect/vitest"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import { as, expectReply, getMessage, invalidMessages, notificationBotId, ownChannel, read, register, sent, success, topicMessages } from "./fixtures.ts"

const editMessage = (who: Credentials, id: number, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("PATCH", `/api/v1/messages/${id}`, { as: who, form }))

const edited = success({ detached_uploads: [] })

let made = 0
const channelOf = (label: string, options: { readonly invite_only?: boolean; readonly history_public_to_subscribers?: boolean } = {}) =>
  Effect.gen(function*() {
    const iago = { ...(yield* as("admin")) }
    const n = ++made
    const name = `notices ${label} ${n}`
    const created = yield* ownChannel(iago, [
      [`notices-${label}-${n}-a@zulip.com`, `Mover ${label} ${n}`],
      [`notices-${label}-${n}-b@zulip.com`, `Watcher ${label} ${n}`]
    ], { name, ...options })
    return { iago, id: created.channel, name, first: created.members[0], second: created.members[1], n }
  })

const messageEvents = JSON.stringify(["message"])

export const privateNoticeTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("PATCH /messages/{id} in a private channel without Notification Bot: the move and resolve notices are posted, to its subscribers only, read for the mover", () =>
    Effect.gen(function*() {
      const ch = yield* channelOf("private", { invite_only: true, history_public_to_subscribers: false })
      const hamlet = yield* as("member")
      const ids = [
        yield* sent(ch.first.as, { type: "stream", to: String(ch.id), topic: "old", content: "one" }),
        yield* sent(ch.first.as, { type: "stream", to: String(ch.id), topic: "old", content: "two" })
      ]
      const watcherQueue = yield* register(ch.second.as, { event_types: messageEvents })
      const hamletQueue = yield* register(hamlet, { event_types: messageEvents })
      expectReply(
        yield* editMessage(ch.first.as, ids[0]!, { topic: "new", propagate_mode: "change_all", send_notification_to_old_thread: "true" }),
        200,
        edited
      )
      const bot = yield* notificationBotId(ch.first.as)
      const mover = `@_**Mover private ${ch.n}|${ch.first.id}**`
      const moved = yield* topicMessages(ch.second.as, ch.id, "new")
      assert.deepStrictEqual(moved.map(([id, who, text]) => who === bot ? [who, text] : [id]), [
        [ids[0]],
        [ids[1]],
        [bot, `This topic was moved here from #**${ch.name}>old** by ${mover}.`]
      ])
      const away = yield* topicMessages(ch.second.as, ch.id, "old")
      assert.deepStrictEqual(away.map(([, who, text]) => [who, text]), [[bot, `This topic was moved to #**${ch.name}>new** by ${mover}.`]])
      const here = moved[2]![0]
      // Read for the mover, unread for the others; the link to the private channel rendered as the mover sees it.
      const asMover = yield* read(ch.first.as, here)
      assert.deepStrictEqual(asMover.flags, ["read"])
      assert.include(asMover.content as string, `class="stream-topic" data-stream-id="${ch.id}"`)
      assert.deepStrictEqual((yield* read(ch.second.as, here)).flags, [])
      // Outside the channel: no row, no event, no access.
      expectReply(yield* getMessage(hamlet, here), 400, invalidMessages)
      assert.deepStrictEqual(yield* hamletQueue.drain, [])
      const heard = (yield* watcherQueue.drain).map((e) => [e.type, (e.message as { id: number }).id, e.flags])
      assert.deepStrictEqual(heard, [["message", here, []], ["message", away[0]![0], []]])

      // Resolving there posts its notice too.
      expectReply(yield* editMessage(ch.second.as, ids[0]!, { topic: "\u2714 new", propagate_mode: "change_all" }), 200, edited)
      const resolved = yield* topicMessages(ch.first.as, ch.id, "\u2714 new")
      assert.deepStrictEqual(resolved.at(-1)!.slice(1), [bot, `@_**Watcher private ${ch.n}|${ch.second.id}** has marked this topic as resolved.`])
      assert.deepStrictEqual((yield* watcherQueue.drain).map((e) => [e.type, e.flags]), [["message", ["read"]]])
      assert.deepStrictEqual(yield* hamletQueue.drain, [])
    }))

  it.effect("PATCH /messages/{id} stream_id into and out of a private channel without Notification Bot: the notices of both threads are posted", () =>
    Effect.gen(function*() {
      const open = yield* channelOf("open")
      const closed = yield* channelOf("closed", { invite_only: true, history_public_to_subscribers: true })
      const id = yield* sent(open.iago, { type: "stream", to: String(open.id), topic: "trip", content: "there" })
      const mover = `@_**Iago|${open.iago.userId}**`
      const notify = { send_notification_to_old_thread: "true", send_notification_to_new_thread: "true" }
      expectReply(yield* editMessage(open.iago, id, { stream_id: String(closed.id), ...notify }), 200, edited)
      const bot = yield* notificationBotId(open.iago)
      assert.deepStrictEqual((yield* topicMessages(closed.first.as, closed.id, "trip")).map(([, who, text]) => [who, text]), [
        [open.iago.userId, "there"],
        [bot, `This topic was moved here from #**${open.name}>trip** by ${mover}.`]
      ])
      assert.deepStrictEqual((yield* topicMessages(open.first.as, open.id, "trip")).map(([, who, text]) => [who, text]), [
        [bot, `This topic was moved to #**${closed.name}>trip** by ${mover}.`]
      ])
      // And back out: the private channel's old thread gets its notice.
      expectReply(yield* editMessage(open.iago, id, { stream_id: String(open.id), topic: "return", ...notify }), 200, edited)
      assert.deepStrictEqual((yield* topicMessages(closed.second.as, closed.id, "trip")).map(([, who, text]) => [who, text]).at(-1), [
        bot,
        `A message was moved from this topic to #**${open.name}>return** by ${mover}.`
      ])
      const back = (yield* topicMessages(open.second.as, open.id, "return")).map(([, who, text]) => [who, text] as const)
      assert.deepStrictEqual(back[0], [open.iago.userId, "there"])
      assert.strictEqual(back[1]![0], bot)
      assert.match(back[1]![1], /^\[A message\]\(http[^)]+\/near\/\d+\) was moved here from /)
      assert.isTrue(back[1]![1].endsWith(` was moved here from #**${closed.name}>trip** by ${mover}.`))
    }))
}
