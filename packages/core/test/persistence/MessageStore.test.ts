/**
 * The MessageStore contract on every backend (memory, PGlite, PostgreSQL)
 * for the writes that edits, moves, deletions and imports use: each write
 * is checked through the reads that serve clients (GET /messages through
 * the Messages service, with channel, topic and search narrows; the
 * repository's reads), its rollback restores what the reads saw, and a bulk
 * insert is a fixed number of statements whatever its size.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import type { ChannelId, MessageId } from "../../src/domain/Ids.ts"
import { messageId } from "../../src/domain/Ids.ts"
import { FlagBits } from "../../src/domain/Message.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import { MessageStore } from "../../src/ports/MessageStore.ts"
import type { Reaction } from "../../src/domain/Message.ts"
import { MessageRepo } from "../../src/ports/Repositories.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import { Channels } from "../../src/services/Channels.ts"
import { Messages } from "../../src/services/Messages.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"
import type { Org } from "../events/fixtures.ts"
import { statementsOf } from "../support/Statements.ts"
import { channelMessage } from "./MessagesFixtures.ts"

/** GET /messages for `principal`: the newest 1000 of the narrow, as [id, channel, topic, raw content]. */
const fetchNarrow = (principal: Principal, narrow: ReadonlyArray<{ readonly operator: string; readonly operand: unknown }>) =>
  Effect.gen(function*() {
    const page = yield* (yield* Messages).fetch(principal, {
      anchor: { _tag: "newest" },
      include_anchor: true,
      num_before: 1000,
      num_after: 0,
      narrow,
      apply_markdown: false,
      client_gravatar: false,
      allow_empty_topic_name: true
    })
    return page.messages.map((m) => {
      const shown = m as unknown as { id: number; stream_id?: number; subject: string; content: string }
      return [shown.id, shown.stream_id ?? null, shown.subject, shown.content] as const
    })
  }).pipe(Effect.orDie)

const inTopic = (channel: ChannelId, topic: string) => [
  { operator: "channel", operand: channel },
  { operator: "topic", operand: topic }
]
const search = (words: string) => [{ operator: "search", operand: words }]
const idsOf = (rows: ReadonlyArray<readonly [number, ...ReadonlyArray<unknown>]>) => rows.map((r) => r[0])

/** A public channel with the owner and the member subscribed, and messages the owner sent to it. */
const channelWith = (org: Org, sends: ReadonlyArray<{ readonly topic: string; readonly content: string }>) =>
  Effect.gen(function*() {
    const channels = yield* Channels
    const messages = yield* Messages
    const channel = yield* channels.create(org.realm.id, { name: unique("store") })
    yield* channels.subscribe(channel.id, [org.owner.user.id, org.member.user.id])
    const ids: Array<MessageId> = []
    for (const send of sends) {
      ids.push((yield* messages.send(org.owner, { type: "stream", to: channel.id, ...send })).id)
    }
    return { channel, ids }
  }).pipe(Effect.orDie)

/** The source files under `dir`, by path relative to `packages/core/src`. */
const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sources(full) : entry.name.endsWith(".ts") ? [full] : []
  })

describe("MessageStore owns every write to messages", () => {
  const src = path.resolve(import.meta.dirname, "../../src")
  it("no SQL outside SqlMessageStore writes messages or user_messages; no memory code outside MemoryMessageStore writes their tables", () => {
    const sqlWrite = /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(user_)?messages\b/i
    const memoryWrite = /\bstore\.(insert|setFlags|delete|deleteRow|replace)\(/
    const writers = sources(src).filter((file) => {
      const text = readFileSync(file, "utf8")
      return sqlWrite.test(text) || (text.includes("tables.messages") && memoryWrite.test(text))
    }).map((file) => path.relative(src, file))
    assert.deepStrictEqual(writers.sort(), ["memory/MemoryMessageStore.ts", "sql/SqlMessageStore.ts"])
  })
})

for (const backend of ["memory", "PGlite", "PostgreSQL"] as const) {
  describe(`MessageStore on ${backend}`, () => {
    layer(backends[backend](), { timeout: "120 seconds" })((it) => {
      it.effect("edit changes content and topic; GET /messages, topic and search narrows see the edit; a rollback undoes it", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const store = yield* MessageStore
          const repo = yield* MessageRepo
          const tx = yield* Transactor
          const { channel, ids: [first, second] } = yield* channelWith(org, [
            { topic: "lunch", content: "pizza today" },
            { topic: "lunch", content: "pasta tomorrow" }
          ])
          const before = (yield* repo.findById(first!))!

          const edited = yield* store.edit(first!, {
            content: "sushi https://example.com",
            rendered_content: "<p>sushi <a href=\"https://example.com\">https://example.com</a></p>",
            has_link: true,
            topic: "Dinner",
            last_edit_time: 1_800_000_000
          })
          const expected = {
            ...before,
            content: "sushi https://example.com",
            rendered_content: "<p>sushi <a href=\"https://example.com\">https://example.com</a></p>",
            has_link: true,
            topic: "Dinner",
            last_edit_time: 1_800_000_000
          }
          assert.deepStrictEqual(edited, expected)
          assert.deepStrictEqual(yield* repo.findById(first!), expected)
          // Only the fields given change.
          assert.deepStrictEqual(yield* store.edit(second!, { last_edit_time: 1_800_000_001 }), {
            ...(yield* repo.findById(second!))!,
            last_edit_time: 1_800_000_001
          })
          assert.strictEqual(yield* store.edit(messageId(999_999_999), { content: "x", last_edit_time: 1 }), undefined)

          assert.deepStrictEqual(yield* fetchNarrow(org.member, inTopic(channel.id, "dinner")), [
            [first, channel.id, "Dinner", "sushi https://example.com"]
          ])
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, inTopic(channel.id, "lunch"))), [second])
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, [...inTopic(channel.id, "dinner"), ...search("sushi")])), [
            first
          ])
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, [...search("pizza"), { operator: "channel", operand: channel.id }])), [])
          assert.deepStrictEqual(yield* repo.topicMessageIds(channel.id, "DINNER", 10), [first])

          // Rolled back: the message and every read as before the edit.
          const failed = yield* Effect.flip(tx.withTransaction(Effect.andThen(
            store.edit(first!, { topic: "breakfast", content: "eggs", last_edit_time: 1_800_000_002 }),
            Effect.fail("rolled back" as const)
          )))
          assert.strictEqual(failed, "rolled back")
          assert.deepStrictEqual(yield* repo.findById(first!), expected)
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, inTopic(channel.id, "breakfast"))), [])
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, inTopic(channel.id, "dinner"))), [first])
        }))

      it.effect("move takes channel messages to another channel and topic, rows kept; reads follow; a rollback undoes it", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const store = yield* MessageStore
          const repo = yield* MessageRepo
          const tx = yield* Transactor
          const from = yield* channelWith(org, [
            { topic: "plans", content: "one" },
            { topic: "plans", content: "two" },
            { topic: "plans", content: "three" }
          ])
          const to = yield* channelWith(org, [{ topic: "elsewhere", content: "already here" }])
          const [m1, m2, m3] = from.ids as [MessageId, MessageId, MessageId]
          const dm = (yield* (yield* Messages).send(org.owner, { type: "private", to: [org.member.user.id], content: "dm" })
            .pipe(Effect.orDie)).id
          const rowsBefore = yield* repo.userMessages(org.member.user.id, [m1, m3])

          // Direct messages and unknown ids are left alone.
          assert.deepStrictEqual(
            yield* store.move([m3, m1, dm, messageId(999_999_999), m1], {
              channel_id: to.channel.id,
              topic: "Moved",
              entry: { user_id: org.member.user.id, timestamp: 1_800_000_000, prev_topic: "plans", topic: "Moved" },
              last_moved_time: 1_800_000_000
            }),
            [m1, m3]
          )
          assert.deepStrictEqual(yield* store.move([], { channel_id: to.channel.id, topic: "x", entry: { user_id: 1, timestamp: 1 } }), [])
          assert.deepStrictEqual(yield* fetchNarrow(org.member, inTopic(to.channel.id, "moved")), [
            [m1, to.channel.id, "Moved", "one"],
            [m3, to.channel.id, "Moved", "three"]
          ])
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, inTopic(from.channel.id, "plans"))), [m2])
          assert.deepStrictEqual(
            idsOf(yield* fetchNarrow(org.member, [{ operator: "channel", operand: to.channel.id }])),
            [to.ids[0], m1, m3].sort((a, b) => a! - b!)
          )
          assert.deepStrictEqual(yield* repo.topicMessageIds(to.channel.id, "MOVED", 10), [m3, m1])
          assert.deepStrictEqual(yield* repo.topicMessageIds(from.channel.id, "plans", 10), [m2])
          // The move is recorded first in each message's history; the content edit time stays.
          const moved = (yield* repo.findById(m1))!
          assert.strictEqual(moved.last_moved_time, 1_800_000_000)
          assert.strictEqual(moved.last_edit_time, null)
          assert.deepStrictEqual(moved.edit_history, [
            { user_id: org.member.user.id, timestamp: 1_800_000_000, prev_topic: "plans", topic: "Moved" }
          ])
          assert.deepStrictEqual((yield* repo.findById(dm))!.channel_id, null)
          assert.deepStrictEqual(yield* repo.userMessages(org.member.user.id, [m1, m3]), rowsBefore)
          assert.strictEqual(yield* repo.oldestInChannel(from.channel.id), m2)

          // Rolled back: m2 stays where it was.
          yield* Effect.flip(tx.withTransaction(Effect.andThen(
            store.move([m2], { channel_id: to.channel.id, topic: "Moved", entry: { user_id: 1, timestamp: 1_800_000_001 } }),
            Effect.fail("rolled back" as const)
          )))
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, inTopic(from.channel.id, "plans"))), [m2])
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, inTopic(to.channel.id, "moved"))), [m1, m3])
        }))

      it.effect("delete removes messages with every row; deleteUserMessages removes some users' rows; reads follow", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const store = yield* MessageStore
          const repo = yield* MessageRepo
          const tx = yield* Transactor
          const { channel, ids } = yield* channelWith(org, [
            { topic: "t", content: "alpha" },
            { topic: "t", content: "bravo" },
            { topic: "t", content: "charlie" }
          ])
          const [m1, m2, m3] = ids as [MessageId, MessageId, MessageId]

          assert.deepStrictEqual(yield* store.delete([m3, messageId(999_999_999), m1, m3]), [m1, m3])
          assert.deepStrictEqual(yield* store.delete([m1]), [])
          assert.deepStrictEqual(yield* store.delete([]), [])
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, inTopic(channel.id, "t"))), [m2])
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, search("alpha"))), [])
          assert.deepStrictEqual(yield* repo.findByIds([m1, m2, m3]), [(yield* repo.findById(m2))!])
          assert.deepStrictEqual(yield* repo.recipients(m1), [])
          assert.deepStrictEqual(yield* repo.userMessages(org.member.user.id, [m1, m3]), [])

          // Rolled back: m2 and its rows stay.
          const rows = yield* repo.recipients(m2)
          yield* Effect.flip(tx.withTransaction(Effect.andThen(store.delete([m2]), Effect.fail("rolled back" as const))))
          assert.deepStrictEqual(yield* repo.recipients(m2), rows)
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.member, inTopic(channel.id, "t"))), [m2])

          // One user's rows go; the others' stay. Rolled back, they come back.
          yield* Effect.flip(tx.withTransaction(Effect.andThen(
            store.deleteUserMessages([m2], [org.member.user.id]),
            Effect.fail("rolled back" as const)
          )))
          assert.deepStrictEqual(yield* repo.recipients(m2), rows)
          yield* store.deleteUserMessages([m2, m1], [org.member.user.id, org.guest.user.id])
          yield* store.deleteUserMessages([], [org.member.user.id])
          assert.deepStrictEqual(yield* repo.recipients(m2), rows.filter((r) => r.user_id !== org.member.user.id))
          assert.deepStrictEqual(yield* repo.userMessages(org.member.user.id, [m2]), [])
          assert.deepStrictEqual(idsOf(yield* fetchNarrow(org.owner, inTopic(channel.id, "t"))), [m2])
        }))

      it.effect("markRead: a user's unread rows of a topic (any case), of a channel, or all; other flags, users and channels untouched; a rollback undoes it", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const store = yield* MessageStore
          const repo = yield* MessageRepo
          const tx = yield* Transactor
          const first = yield* channelWith(org, [])
          const second = yield* channelWith(org, [])
          const insert = (channel: ChannelId, topic: string, memberFlags: number) =>
            Effect.map(
              store.insert(channelMessage(org.realm.id, org.owner.user.id, channel, topic, topic), [
                { user_id: org.owner.user.id, flags: 0 },
                { user_id: org.member.user.id, flags: memberFlags }
              ]),
              (m) => m.id
            )
          const lunch = yield* insert(first.channel.id, "Lunch", FlagBits.starred)
          const lunchLower = yield* insert(first.channel.id, "lunch", 0)
          const readAlready = yield* insert(first.channel.id, "LUNCH", FlagBits.read)
          const other = yield* insert(first.channel.id, "other", 0)
          const elsewhere = yield* insert(second.channel.id, "lunch", 0)
          const flagsOf = Effect.map(
            repo.userMessages(org.member.user.id, [lunch, lunchLower, readAlready, other, elsewhere]),
            (rows) => rows.map((r) => r.flags)
          )
          const unread = (user: Principal) => Effect.map(repo.listByFlags(user.user.id, FlagBits.read, 0), (rows) => rows.length)

          assert.isTrue(yield* repo.userHasTopic(org.member.user.id, first.channel.id, "LUNCH"))
          assert.isFalse(yield* repo.userHasTopic(org.member.user.id, first.channel.id, "lunch "))
          assert.isFalse(yield* repo.userHasTopic(org.guest.user.id, first.channel.id, "lunch"))
          assert.isFalse(yield* repo.userHasTopic(org.member.user.id, first.channel.id, "never"))

          // Rolled back: nothing changes.
          const before = yield* flagsOf
          yield* Effect.flip(tx.withTransaction(Effect.andThen(
            store.markRead(org.member.user.id),
            Effect.fail("rolled back" as const)
          )))
          assert.deepStrictEqual(yield* flagsOf, before)

          const r = FlagBits.read
          assert.deepStrictEqual(
            yield* store.markRead(org.member.user.id, { channel_id: first.channel.id, topic: "lUnCh" }),
            [lunch, lunchLower]
          )
          assert.deepStrictEqual(yield* flagsOf, [FlagBits.starred | r, r, r, 0, 0])
          assert.deepStrictEqual(yield* store.markRead(org.member.user.id, { channel_id: first.channel.id, topic: "lunch" }), [])
          assert.deepStrictEqual(yield* store.markRead(org.member.user.id, { channel_id: first.channel.id }), [other])
          assert.deepStrictEqual(yield* flagsOf, [FlagBits.starred | r, r, r, r, 0])
          const ownerUnread = yield* unread(org.owner)
          assert.deepStrictEqual(yield* store.markRead(org.member.user.id), [elsewhere])
          assert.deepStrictEqual(yield* flagsOf, [FlagBits.starred | r, r, r, r, r])
          assert.deepStrictEqual(yield* store.markRead(org.member.user.id), [])
          // The owner's rows are theirs.
          assert.strictEqual(yield* unread(org.owner), ownerUnread)
          assert.isAbove(ownerUnread, 0)
        }))

      it.effect("reactions: one per user and emoji, read in the order added, on message objects; a rollback undoes; a deleted message takes its reactions", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const store = yield* MessageStore
          const repo = yield* MessageRepo
          const tx = yield* Transactor
          const { channel, ids } = yield* channelWith(org, [
            { topic: "r", content: "one" },
            { topic: "r", content: "two" }
          ])
          const [m1, m2] = ids as [MessageId, MessageId]
          const reaction = (message_id: MessageId, user: Principal, emoji_name: string, emoji_code: string) => ({
            message_id,
            user_id: user.user.id,
            emoji_name,
            emoji_code,
            reaction_type: "unicode_emoji" as const
          })
          const memberOctopus = reaction(m1, org.member, "octopus", "1f419")
          const ownerOctopus = reaction(m1, org.owner, "octopus", "1f419")
          const memberTada = reaction(m1, org.member, "tada", "1f389")
          const onSecond = reaction(m2, org.owner, "thumbs_up", "1f44d")
          assert.isTrue(yield* store.addReaction(memberOctopus))
          assert.isTrue(yield* store.addReaction(onSecond))
          assert.isTrue(yield* store.addReaction(ownerOctopus))
          assert.isTrue(yield* store.addReaction(memberTada))
          // The same user, message, code and type again: not added, whatever the name.
          assert.isFalse(yield* store.addReaction({ ...memberOctopus, emoji_name: "other" }))
          // Another namespace is another emoji.
          const zulip = { ...memberOctopus, emoji_name: "zulip", emoji_code: "1f419", reaction_type: "zulip_extra_emoji" as const }
          assert.isTrue(yield* store.addReaction(zulip))
          assert.deepStrictEqual(yield* repo.reactions([m2, m1, messageId(999_999_999)]), [
            memberOctopus,
            ownerOctopus,
            memberTada,
            zulip,
            onSecond
          ])
          assert.deepStrictEqual(yield* repo.reactions([]), [])
          const page = yield* (yield* Messages).fetch(org.member, {
            anchor: { _tag: "newest" },
            include_anchor: true,
            num_before: 10,
            num_after: 0,
            narrow: inTopic(channel.id, "r"),
            apply_markdown: false,
            client_gravatar: false,
            allow_empty_topic_name: true
          }).pipe(Effect.orDie)
          const shown = ({ message_id: _m, ...rest }: Reaction) => rest
          assert.deepStrictEqual(page.messages.map((m) => m.reactions), [
            [memberOctopus, ownerOctopus, memberTada, zulip].map(shown),
            [onSecond].map(shown)
          ])

          // Removal returns the stored reaction (its name) and leaves the others.
          const key = { message_id: m1, user_id: org.member.user.id, emoji_code: "1f419", reaction_type: "unicode_emoji" as const }
          assert.deepStrictEqual(yield* store.removeReaction(key), memberOctopus)
          assert.strictEqual(yield* store.removeReaction(key), undefined)
          assert.deepStrictEqual(yield* repo.reactions([m1]), [ownerOctopus, memberTada, zulip])

          // Rolled back: an add and a removal leave nothing behind.
          yield* Effect.flip(tx.withTransaction(Effect.gen(function*() {
            assert.isTrue(yield* store.addReaction(memberOctopus))
            assert.deepStrictEqual(yield* store.removeReaction({ ...key, user_id: org.owner.user.id }), ownerOctopus)
            return yield* Effect.fail("rolled back" as const)
          })))
          assert.deepStrictEqual(yield* repo.reactions([m1]), [ownerOctopus, memberTada, zulip])

          // The message locked for update is the message.
          assert.deepStrictEqual(yield* tx.withTransaction(repo.findByIdForUpdate(m1)), yield* repo.findById(m1))
          assert.strictEqual(yield* tx.withTransaction(repo.findByIdForUpdate(messageId(999_999_999))), undefined)

          // A deleted message takes its reactions (rolled back, they stay); the others keep theirs.
          yield* Effect.flip(tx.withTransaction(Effect.andThen(store.delete([m1]), Effect.fail("rolled back" as const))))
          assert.deepStrictEqual(yield* repo.reactions([m1]), [ownerOctopus, memberTada, zulip])
          assert.deepStrictEqual(yield* store.delete([m1]), [m1])
          assert.deepStrictEqual(yield* repo.reactions([m1, m2]), [onSecond])
          assert.strictEqual(yield* store.removeReaction({ ...key, user_id: org.owner.user.id }), undefined)
        }))

      it.effect("submessages: ascending ids, read per message in id order, rolled back with their transaction, deleted with their message", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const store = yield* MessageStore
          const tx = yield* Transactor
          const { ids } = yield* channelWith(org, [{ topic: "s", content: "one" }, { topic: "s", content: "two" }])
          const [m1, m2] = ids as [MessageId, MessageId]
          const add = (message_id: MessageId, content: string) =>
            store.addSubmessage({ message_id, sender_id: org.member.user.id, msg_type: "widget", content })
          const a = yield* add(m2, "a")
          const b = yield* add(m1, "b")
          const c = yield* add(m2, "c")
          assert.isTrue(a.id < b.id && b.id < c.id)
          assert.deepStrictEqual(c, { id: c.id, message_id: m2, sender_id: org.member.user.id, msg_type: "widget", content: "c" })
          assert.deepStrictEqual(yield* store.submessages([m2, m1]), [a, b, c])
          assert.deepStrictEqual(yield* store.submessages([m2]), [a, c])
          assert.deepStrictEqual(yield* store.submessages([]), [])
          assert.isTrue(yield* tx.withTransaction(store.lockMessage(m1)))
          assert.isFalse(yield* tx.withTransaction(store.lockMessage(messageId(999_999_999))))

          yield* Effect.flip(tx.withTransaction(Effect.andThen(add(m1, "rolled back"), Effect.fail("rolled back" as const))))
          assert.deepStrictEqual(yield* store.submessages([m1]), [b])
          // Deleted with their message, also when the deletion is rolled back and then done.
          yield* Effect.flip(tx.withTransaction(Effect.andThen(store.delete([m2]), Effect.fail("rolled back" as const))))
          assert.deepStrictEqual(yield* store.submessages([m1, m2]), [a, b, c])
          yield* store.delete([m2])
          assert.deepStrictEqual(yield* store.submessages([m1, m2]), [b])
          assert.isFalse(yield* tx.withTransaction(store.lockMessage(m2)))
        }))

      it.effect("a /poll or /todo send writes its widget submessage with the message on every send path; GET /messages shows it", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const store = yield* MessageStore
          const messages = yield* Messages
          const { channel, ids: [plain, poll] } = yield* channelWith(org, [
            { topic: "w", content: "no widget" },
            { topic: "w", content: "/poll Lunch?\nPizza\n- Sushi" }
          ])
          const direct = (yield* messages.send(org.member, { type: "direct", to: [org.owner.user.id], content: "/todo Chores\nDishes: tonight" })).id
          const batch = yield* messages.sendMany([
            { principal: org.owner, request: { type: "stream", to: channel.id, topic: "w", content: "/poll" } },
            { principal: org.owner, request: { type: "stream", to: channel.id, topic: "w", content: "/polling" } }
          ])
          const [batchPoll, batchPlain] = batch.map((r) => {
            assert.isTrue(r._tag === "Success")
            return (r as { readonly success: { readonly id: MessageId } }).success.id
          }) as [MessageId, MessageId]
          const widget = (message_id: MessageId, sender: Principal, content: string) => ({ message_id, sender_id: sender.user.id, msg_type: "widget", content })
          const stored = yield* store.submessages([plain!, poll!, direct, batchPoll, batchPlain])
          assert.deepStrictEqual(stored.map(({ id: _id, ...rest }) => rest), [
            widget(poll!, org.owner, '{"widget_type": "poll", "extra_data": {"question": "Lunch?", "options": ["Pizza", "Sushi"]}}'),
            widget(direct, org.member, '{"widget_type": "todo", "extra_data": {"task_list_title": "Chores", "tasks": [{"task": "Dishes", "desc": "tonight"}]}}'),
            widget(batchPoll, org.owner, '{"widget_type": "poll", "extra_data": {"question": "", "options": []}}')
          ])
          const page = yield* messages.fetch(org.owner, {
            anchor: { _tag: "newest" },
            include_anchor: true,
            num_before: 10,
            num_after: 0,
            narrow: inTopic(channel.id, "w"),
            apply_markdown: false,
            client_gravatar: false,
            allow_empty_topic_name: true
          })
          const shown = page.messages.map((m) => [m.id, m.submessages] as const)
          assert.deepStrictEqual(shown, [[plain!, []], [poll!, [stored[0]!]], [batchPoll, [stored[2]!]], [batchPlain, []]])
          const one = yield* messages.getById(org.member, direct, { apply_markdown: false, allow_empty_topic_name: true })
          assert.deepStrictEqual(one.message.submessages, [stored[1]!])
        }))

      it.effect("insertMany: N messages with their flags in a number of statements that does not grow with N", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const store = yield* MessageStore
          const repo = yield* MessageRepo
          const tx = yield* Transactor
          const { channel } = yield* channelWith(org, [])
          const batch = (n: number, prefix: string) =>
            Array.from({ length: n }, (_, i) => ({
              message: channelMessage(org.realm.id, org.owner.user.id, channel.id, prefix, `${prefix} ${i}`),
              recipients: [
                { user_id: org.owner.user.id, flags: FlagBits.read },
                { user_id: org.member.user.id, flags: i % 2 === 0 ? 0 : FlagBits.read | FlagBits.starred }
              ]
            }))
          const few = yield* statementsOf(tx.withTransaction(store.insertMany(batch(2, "few"))))
          const many = yield* statementsOf(tx.withTransaction(store.insertMany(batch(300, "many"))))
          assert.strictEqual(many.statements.length, few.statements.length, many.statements.join("\n"))
          if (backend !== "memory") assert.isAtMost(many.statements.length, 5, many.statements.join("\n"))

          // Ids ascend in the order given; every message and row as given.
          const ids = many.result.map((m) => m.id)
          assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b))
          assert.isTrue(few.result.at(-1)!.id < ids[0]!)
          assert.deepStrictEqual(yield* repo.findByIds(ids), many.result)
          assert.deepStrictEqual(yield* repo.userMessages(org.member.user.id, [ids[0]!, ids[1]!]), [
            { user_id: org.member.user.id, message_id: ids[0]!, flags: 0 },
            { user_id: org.member.user.id, message_id: ids[1]!, flags: FlagBits.read | FlagBits.starred }
          ])
          const starred = yield* repo.listByFlags(org.member.user.id, FlagBits.starred, FlagBits.starred)
          assert.strictEqual(starred.filter((r) => r.message.topic === "many").length, 150)
          assert.deepStrictEqual(
            idsOf(yield* fetchNarrow(org.member, inTopic(channel.id, "many"))),
            ids
          )
          assert.deepStrictEqual(yield* store.insertMany([]), [])
        }))
    })
  })
}
