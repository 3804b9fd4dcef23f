/**
 * POST /mark_all_as_read, /mark_stream_as_read, /mark_topic_as_read and
 * GET /messages/{message_id}/read_receipts.
 *
 * Each test makes its own members and channel (`ownChannel`), so the whole
 * of a member's unread state is the test's own.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { RealmRepo } from "@teamchat/core/ports/Repositories"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import {
  as,
  badRequest,
  bare,
  channels,
  expectReply,
  flags,
  invalidMessages,
  ownChannel,
  read,
  register,
  sent,
  subscribe,
  success
} from "./fixtures.ts"

const post = (who: Credentials, path: string, form: Record<string, string> = {}) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", `/api/v1${path}`, { as: who, form }))

const receipts = (who: Credentials, id: number | string) =>
  Effect.flatMap(Server, (server) => server.fetch("GET", `/api/v1/messages/${id}/read_receipts`, { as: who }))

/** The ids in a read receipts answer, ascending (Zulip leaves the order open). */
const readers = (who: Credentials, id: number) =>
  Effect.map(receipts(who, id), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    assert.deepStrictEqual(Object.keys(reply.json).sort(), ["msg", "result", "user_ids"])
    return [...(reply.json.user_ids as Array<number>)].sort((a, b) => a - b)
  })

const flagEvents = JSON.stringify(["update_message_flags"])

const readEvent = (messages: ReadonlyArray<number>, all: boolean) => ({
  type: "update_message_flags",
  op: "add",
  operation: "add",
  flag: "read",
  messages,
  all
})

/** `unread_msgs` of a fresh POST /register. */
const unreadOf = (who: Credentials) =>
  Effect.map(
    register(who, { fetch_event_types: JSON.stringify(["message", "update_message_flags"]), event_types: flagEvents }),
    ({ reply }) => reply.json.unread_msgs
  )

const missing = (name: string) => ({
  result: "error",
  msg: `Missing '${name}' argument`,
  code: "REQUEST_VARIABLE_MISSING",
  var_name: name
})

const invalidChannel = badRequest("Invalid channel ID")

const setReadReceipts = (realmEnabled: boolean) =>
  Effect.flatMap(Server, (server) =>
    server.core(Effect.gen(function*() {
      const realms = yield* RealmRepo
      const realm = (yield* realms.findByStringId("zulip"))!
      yield* realms.update({ ...realm, settings: { ...realm.settings, enable_read_receipts: realmEnabled } })
    })))

export const readStateTests = (it: Vitest.MethodsNonLive<Server>): void => {
  // -----------------------------------------------------------------------
  // POST /mark_all_as_read

  it.effect("mark_all_as_read: every unread message read, {complete: true}, update_message_flags with all: true even when nothing was unread", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const own = yield* ownChannel(iago, [["rs-all-1@zulip.com", "Reader One"], ["rs-all-2@zulip.com", "Reader Two"]], {
        name: "read state all"
      })
      const [reader, other] = own.members
      const a = yield* sent(iago, { type: "stream", to: String(own.channel), topic: "one", content: "a" })
      const b = yield* sent(iago, { type: "stream", to: String(own.channel), topic: "two", content: "b" })
      const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([reader.id]), content: "dm" })
      assert.strictEqual((yield* unreadOf(reader.as)).count, 3)
      const queue = yield* register(reader.as, { event_types: flagEvents })
      const bystander = yield* register(other.as, { event_types: flagEvents })

      expectReply(yield* post(reader.as, "/mark_all_as_read"), 200, success({ complete: true }))
      for (const id of [a, b, dm]) assert.deepStrictEqual((yield* read(reader.as, id)).flags, ["read"])
      assert.deepStrictEqual(bare(yield* queue.drain), [readEvent([], true)])
      assert.deepStrictEqual(yield* unreadOf(reader.as), {
        count: 0,
        pms: [],
        streams: [],
        huddles: [],
        mentions: [],
        old_unreads_missing: false
      })
      // The other member's messages are untouched, and they hear nothing.
      assert.deepStrictEqual((yield* read(other.as, a)).flags, [])
      assert.deepStrictEqual(yield* bystander.drain, [])

      // Nothing left unread: the same answer, and the event again.
      expectReply(yield* post(reader.as, "/mark_all_as_read"), 200, success({ complete: true }))
      assert.deepStrictEqual(bare(yield* queue.drain), [readEvent([], true)])
    }))

  // -----------------------------------------------------------------------
  // POST /mark_stream_as_read

  it.effect("mark_stream_as_read: the channel's unread messages only, the ids in the event; nothing unread: no event", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const own = yield* ownChannel(iago, [["rs-ch-1@zulip.com", "Channel Reader"], ["rs-ch-2@zulip.com", "Channel Other"]], {
        name: "read state channel"
      })
      const [reader] = own.members
      const a = yield* sent(iago, { type: "stream", to: String(own.channel), topic: "one", content: "a" })
      const b = yield* sent(iago, { type: "stream", to: String(own.channel), topic: "two", content: "b" })
      const starredFirst = yield* sent(iago, { type: "stream", to: String(own.channel), topic: "two", content: "c" })
      const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([reader.id]), content: "stays unread" })
      // Already read before: neither in the event nor changed.
      expectReply(
        yield* flags(reader.as, { messages: JSON.stringify([starredFirst]), op: "add", flag: "read" }),
        200,
        success({ messages: [starredFirst] })
      )
      const queue = yield* register(reader.as, { event_types: flagEvents })

      expectReply(yield* post(reader.as, "/mark_stream_as_read", { stream_id: String(own.channel) }), 200, success())
      assert.deepStrictEqual(bare(yield* queue.drain), [readEvent([a, b], false)])
      for (const id of [a, b, starredFirst]) assert.deepStrictEqual((yield* read(reader.as, id)).flags, ["read"])
      assert.deepStrictEqual((yield* read(reader.as, dm)).flags, [])
      const unread = yield* unreadOf(reader.as)
      assert.strictEqual(unread.count, 1)
      assert.deepStrictEqual(unread.streams, [])

      expectReply(yield* post(reader.as, "/mark_stream_as_read", { stream_id: String(own.channel) }), 200, success())
      assert.deepStrictEqual(yield* queue.drain, [])
    }))

  it.effect("mark_stream_as_read: a channel the user cannot read or that does not exist is \"Invalid channel ID\"; parameters as Zulip checks them", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const polonius = yield* as("guest")
      const { Verona: verona } = yield* channels
      const secret = yield* ownChannel(iago, [["rs-sec-1@zulip.com", "Secret One"], ["rs-sec-2@zulip.com", "Secret Two"]], {
        name: "read state secret",
        invite_only: true
      })
      const queue = yield* register(hamlet, { event_types: flagEvents })
      // A private channel hamlet is not in; an id nobody has; ids that are no id.
      for (const id of [secret.channel, 999_999, 0, -3]) {
        expectReply(yield* post(hamlet, "/mark_stream_as_read", { stream_id: String(id) }), 400, invalidChannel)
        expectReply(
          yield* post(hamlet, "/mark_topic_as_read", { stream_id: String(id), topic_name: "any" }),
          400,
          invalidChannel
        )
      }
      // The administrator is not subscribed to it either: no content access.
      const admin = yield* as("owner")
      expectReply(yield* post(admin, "/mark_stream_as_read", { stream_id: String(secret.channel) }), 400, invalidChannel)
      // A guest reaches only channels it is subscribed to (polonius is in Verona, not in this public one).
      const open = yield* ownChannel(iago, [["rs-pub-1@zulip.com", "Open One"], ["rs-pub-2@zulip.com", "Open Two"]], {
        name: "read state public"
      })
      expectReply(yield* post(polonius, "/mark_stream_as_read", { stream_id: String(open.channel) }), 400, invalidChannel)
      expectReply(yield* post(polonius, "/mark_stream_as_read", { stream_id: String(verona.id) }), 200, success())

      expectReply(yield* post(hamlet, "/mark_stream_as_read"), 400, missing("stream_id"))
      expectReply(yield* post(hamlet, "/mark_topic_as_read", { stream_id: String(verona.id) }), 400, missing("topic_name"))
      expectReply(yield* post(hamlet, "/mark_topic_as_read", { topic_name: "x" }), 400, missing("stream_id"))
      expectReply(
        yield* post(hamlet, "/mark_stream_as_read", { stream_id: "\"3\"" }),
        400,
        badRequest("stream_id is not an integer")
      )
      expectReply(
        yield* post(hamlet, "/mark_stream_as_read", { stream_id: "nope" }),
        400,
        badRequest("stream_id is not valid JSON")
      )
      assert.deepStrictEqual(yield* queue.drain, [])
    }))

  // -----------------------------------------------------------------------
  // POST /mark_topic_as_read

  it.effect("mark_topic_as_read: one topic, matched case-insensitively; \"general chat\" is the empty topic; a topic without messages of the user is refused", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const own = yield* ownChannel(iago, [["rs-top-1@zulip.com", "Topic Reader"], ["rs-top-2@zulip.com", "Topic Other"]], {
        name: "read state topic"
      })
      const [reader] = own.members
      const to = String(own.channel)
      const lunch1 = yield* sent(iago, { type: "stream", to, topic: "Lunch", content: "1" })
      const other = yield* sent(iago, { type: "stream", to, topic: "other", content: "2" })
      const lunch2 = yield* sent(iago, { type: "stream", to, topic: "lunch", content: "3" })
      // No message in the empty topic yet: refused under its stored name.
      expectReply(
        yield* post(reader.as, "/mark_topic_as_read", { stream_id: to, topic_name: "general chat" }),
        400,
        badRequest("No such topic ''")
      )
      const general = yield* sent(iago, { type: "stream", to, topic: "", content: "4" })
      const queue = yield* register(reader.as, { event_types: flagEvents })

      expectReply(yield* post(reader.as, "/mark_topic_as_read", { stream_id: to, topic_name: "LUNCH" }), 200, success())
      assert.deepStrictEqual(bare(yield* queue.drain), [readEvent([lunch1, lunch2], false)])
      assert.deepStrictEqual((yield* read(reader.as, lunch1)).flags, ["read"])
      assert.deepStrictEqual((yield* read(reader.as, lunch2)).flags, ["read"])
      assert.deepStrictEqual((yield* read(reader.as, other)).flags, [])
      assert.deepStrictEqual((yield* read(reader.as, general)).flags, [])

      // Read already: success without an event.
      expectReply(yield* post(reader.as, "/mark_topic_as_read", { stream_id: to, topic_name: "Lunch" }), 200, success())
      assert.deepStrictEqual(yield* queue.drain, [])

      expectReply(yield* post(reader.as, "/mark_topic_as_read", { stream_id: to, topic_name: "general chat" }), 200, success())
      assert.deepStrictEqual(bare(yield* queue.drain), [readEvent([general], false)])
      assert.deepStrictEqual((yield* read(reader.as, other)).flags, [])

      for (const topic of ["nope", "Lunch ", " lunch"]) {
        expectReply(
          yield* post(reader.as, "/mark_topic_as_read", { stream_id: to, topic_name: topic }),
          400,
          badRequest(`No such topic '${topic}'`)
        )
      }
      // A topic others wrote in before the user could receive it: none of theirs.
      const hamlet = yield* as("member")
      const { Denmark: denmark } = yield* channels
      const topic = `read state elsewhere ${own.channel}`
      yield* sent(iago, { type: "stream", to: "Denmark", topic, content: "for subscribers" })
      expectReply(
        yield* post(reader.as, "/mark_topic_as_read", { stream_id: String(denmark.id), topic_name: topic }),
        400,
        badRequest(`No such topic '${topic}'`)
      )
      expectReply(yield* post(hamlet, "/mark_topic_as_read", { stream_id: String(denmark.id), topic_name: topic }), 200, success())
      assert.deepStrictEqual(yield* queue.drain, [])
      assert.deepStrictEqual((yield* unreadOf(reader.as)).streams, [
        { stream_id: own.channel, topic: "other", unread_message_ids: [other] }
      ])
    }))

  // -----------------------------------------------------------------------
  // GET /messages/{message_id}/read_receipts

  it.effect("read_receipts: who read it, without the sender, those who turned send_read_receipts off, or deactivated users; bots and the requester count", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const iago = yield* as("admin")
      const bot = yield* as("bot")
      const own = yield* ownChannel(iago, [["rs-rr-1@zulip.com", "Receipt One"], ["rs-rr-2@zulip.com", "Receipt Two"]], {
        name: "read state receipts"
      })
      const [one, two] = own.members
      // The bot subscribes itself: it reads through the API like anyone.
      yield* subscribe(bot, ["read state receipts"])
      const id = yield* sent(one.as, { type: "stream", to: String(own.channel), topic: "receipts", content: "seen?" })
      // Only the sender has it read (their own message): not listed.
      assert.deepStrictEqual(yield* readers(iago, id), [])
      for (const who of [two.as, bot, iago]) {
        expectReply(yield* flags(who, { messages: JSON.stringify([id]), op: "add", flag: "read" }), 200, success({ messages: [id] }))
      }
      const expected = [two.id, bot.userId, iago.userId].sort((a, b) => a - b)
      // The requester is listed among the readers; the sender sees the same.
      assert.deepStrictEqual(yield* readers(iago, id), expected)
      assert.deepStrictEqual(yield* readers(one.as, id), expected)
      assert.deepStrictEqual(yield* readers(two.as, id), expected)

      // Marking unread takes one out again.
      expectReply(yield* flags(iago, { messages: JSON.stringify([id]), op: "remove", flag: "read" }), 200, success({ messages: [id] }))
      assert.deepStrictEqual(yield* readers(one.as, id), [two.id, bot.userId].sort((a, b) => a - b))

      // send_read_receipts off hides that user's reads; on again shows them.
      const setting = (value: boolean) =>
        Effect.flatMap(
          server.fetch("PATCH", "/api/v1/settings", { as: two.as, form: { send_read_receipts: String(value) } }),
          (reply) => Effect.sync(() => expectReply(reply, 200, success()))
        )
      yield* setting(false)
      assert.deepStrictEqual(yield* readers(one.as, id), [bot.userId])
      yield* setting(true)
      assert.deepStrictEqual(yield* readers(one.as, id), [two.id, bot.userId].sort((a, b) => a - b))

      // A deactivated reader is not listed.
      expectReply(yield* server.fetch("DELETE", `/api/v1/users/${two.id}`, { as: iago }), 200, success())
      assert.deepStrictEqual(yield* readers(one.as, id), [bot.userId])
      expectReply(yield* server.fetch("POST", `/api/v1/users/${two.id}/reactivate`, { as: iago }), 200, success())
      assert.deepStrictEqual(yield* readers(one.as, id), [two.id, bot.userId].sort((a, b) => a - b))

      // Direct messages too: the recipient read it, the sender is left out.
      const dm = yield* sent(one.as, { type: "direct", to: JSON.stringify([two.id]), content: "private" })
      assert.deepStrictEqual(yield* readers(one.as, dm), [])
      expectReply(yield* flags(two.as, { messages: JSON.stringify([dm]), op: "add", flag: "read" }), 200, success({ messages: [dm] }))
      assert.deepStrictEqual(yield* readers(one.as, dm), [two.id])
      assert.deepStrictEqual(yield* readers(two.as, dm), [two.id])
    }))

  it.effect("read_receipts: \"Invalid message(s)\" for a message the user cannot read, first; then \"Read receipts are disabled in this organization.\"", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const secret = yield* ownChannel(iago, [["rs-rx-1@zulip.com", "Hidden One"], ["rs-rx-2@zulip.com", "Hidden Two"]], {
        name: "read state hidden receipts",
        invite_only: true
      })
      const hidden = yield* sent(secret.members[0].as, {
        type: "stream",
        to: String(secret.channel),
        topic: "hidden",
        content: "not for hamlet"
      })
      const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([secret.members[0].id]), content: "not for hamlet" })
      const visible = yield* sent(iago, { type: "stream", to: "Denmark", topic: "read state receipts", content: "public" })
      for (const id of [hidden, dm, 999_999_999, 0]) expectReply(yield* receipts(hamlet, id), 400, invalidMessages)
      expectReply(yield* receipts(hamlet, visible), 200, success({ user_ids: [] }))

      yield* setReadReceipts(false)
      const disabled = yield* Effect.gen(function*() {
        expectReply(yield* receipts(hamlet, hidden), 400, invalidMessages)
        return yield* receipts(hamlet, visible)
      }).pipe(Effect.ensuring(setReadReceipts(true)))
      expectReply(disabled, 400, badRequest("Read receipts are disabled in this organization."))
      expectReply(yield* receipts(hamlet, visible), 200, success({ user_ids: [] }))
    }))
}
