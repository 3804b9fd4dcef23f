/**
 * The in-memory backend's message indexes (`memory/internal/MessageTables.ts`,
 * `SortedIds.ts`):
 *
 * - they agree with a scan of the rows after any script of inserts, flag
 *   changes and deletions, inside transactions and savepoints that commit
 *   or roll back;
 * - the reads of a request look at a bounded number of messages whatever
 *   the table holds: after 10,000 messages elsewhere, GET /users/me looks at
 *   one, a narrowed page of 50 at 50 (counted by `MessageTables.examined`,
 *   not timed).
 *
 * Which messages the searches return is the narrow property's
 * (test/narrow/Interpreters.test.ts: memory against PGlite and PostgreSQL)
 * and the equivalence property's (test/services/Equivalence.test.ts).
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { channelId, messageId, realmId, userId } from "../../src/domain/Ids.ts"
import type { ChannelId, MessageId, UserId } from "../../src/domain/Ids.ts"
import { FlagBits, MentionBits } from "../../src/domain/Message.ts"
import type { Message } from "../../src/domain/Message.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import { Journal } from "../../src/memory/internal/Journal.ts"
import { dmKey, MessageTables } from "../../src/memory/internal/MessageTables.ts"
import { SortedIds } from "../../src/memory/internal/SortedIds.ts"
import { MemoryDatabase } from "../../src/memory/MemoryDatabase.ts"
import { pgLower } from "../../src/narrow/NarrowPredicate.ts"
import * as Persistence from "../../src/Persistence.ts"
import { MessageStore } from "../../src/ports/MessageStore.ts"
import type { Insert } from "../../src/ports/Repositories.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import { Channels } from "../../src/services/Channels.ts"
import { MessageFlags } from "../../src/services/MessageFlags.ts"
import { Messages } from "../../src/services/Messages.ts"
import type { FetchRequest } from "../../src/services/Messages.ts"
import { Users } from "../../src/services/Users.ts"
import * as Teamchat from "../../src/Teamchat.ts"
import { makeOrg } from "../events/fixtures.ts"
import { propertyOptions } from "../support/Properties.ts"

const ascending = (ids: Iterable<number>) => Array.from(new Set(ids)).sort((a, b) => a - b)

// -----------------------------------------------------------------------------
// SortedIds against a sorted array

const Id = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40 }))
const IdStep = Schema.Struct({ add: Schema.Boolean, id: Id })

describe("SortedIds", () => {
  it.prop("any script of adds and deletes: the ids of a sorted array of the same writes, from any bound either way", {
    steps: Schema.Array(IdStep).check(Schema.isMinLength(10)),
    bound: Schema.Int.check(Schema.isBetween({ minimum: -1, maximum: 42 }))
  }, ({ bound, steps }) => {
    // Chunks of 3, so that inserts split them and deletes empty them.
    const ids = new SortedIds(3)
    const model = new Set<number>()
    for (const step of steps) {
      if (step.add) {
        assert.strictEqual(ids.add(step.id), !model.has(step.id))
        model.add(step.id)
      } else {
        assert.strictEqual(ids.delete(step.id), model.has(step.id))
        model.delete(step.id)
      }
      const sorted = ascending(model)
      assert.deepStrictEqual(Array.from(ids.ascending()), sorted)
      assert.deepStrictEqual(Array.from(ids.descending()), [...sorted].reverse())
      assert.deepStrictEqual(Array.from(ids.ascending(bound)), sorted.filter((id) => id >= bound))
      assert.deepStrictEqual(Array.from(ids.descending(bound)), sorted.filter((id) => id <= bound).reverse())
      assert.strictEqual(ids.size, sorted.length)
      assert.strictEqual(ids.first(), sorted[0])
      assert.strictEqual(ids.last(), sorted.at(-1))
      assert.strictEqual(ids.has(bound), model.has(bound))
    }
  }, propertyOptions(300))
})

// -----------------------------------------------------------------------------
// MessageTables against a scan of its rows

const users = [1, 2, 3, 4].map(userId)
const channels = [1, 2, 3].map(channelId)
const topics = ["plans", "Plans", "lunch", "ÉTÉ"]
const Small = (n: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: n - 1 }))
/** Every flag bit the indexes read, and a few others. */
const Flags = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: (1 << 13) - 1 }))
const Step = Schema.Union([
  Schema.Struct({
    op: Schema.Literal("insert"),
    /** 3: a direct message among `recipients` and the sender. */
    channel: Small(4),
    topic: Small(topics.length),
    sender: Small(users.length),
    recipients: Schema.Array(Schema.Struct({ user: Small(users.length), flags: Flags })).check(Schema.isMaxLength(4))
  }),
  Schema.Struct({ op: Schema.Literal("flags"), user: Small(users.length), pick: Small(30), flags: Flags }),
  Schema.Struct({ op: Schema.Literal("delete"), pick: Small(30) }),
  /** An edit or move of a channel message: a new channel, topic and content. */
  Schema.Struct({ op: Schema.Literal("move"), pick: Small(30), channel: Small(3), topic: Small(topics.length) }),
  Schema.Struct({ op: Schema.Literal("dropRow"), user: Small(users.length), pick: Small(30) }),
  Schema.Struct({ op: Schema.Literal("begin") }),
  Schema.Struct({ op: Schema.Literal("end"), ok: Schema.Boolean })
])

interface Model {
  readonly messages: Map<number, Message>
  readonly rows: Map<number, Map<number, number>>
}

const copyModel = (model: Model): Model => ({
  messages: new Map(model.messages),
  rows: new Map(Array.from(model.rows, ([user, rows]) => [user, new Map(rows)]))
})

/** Every index of `tables` against the scan of `model` that SQL would run for it. */
const checkIndexes = (tables: MessageTables, model: Model, conversations: ReadonlySet<string>) => {
  const ids = (keep: (m: Message) => boolean) => ascending(Array.from(model.messages.values()).filter(keep).map((m) => m.id))
  const same = (index: SortedIds, expected: ReadonlyArray<number>, what: string) => {
    assert.deepStrictEqual(Array.from(index.ascending()), expected, what)
    assert.deepStrictEqual(Array.from(index.descending()), [...expected].reverse(), what)
  }
  assert.strictEqual(tables.size, model.messages.size)
  for (const [id, message] of model.messages) assert.deepStrictEqual(tables.get(id), message, `message ${id}`)
  for (const channel of channels) {
    same(tables.inChannel(channel), ids((m) => m.channel_id === channel), `channel ${channel}`)
    for (const topic of new Set(topics.map(pgLower))) {
      same(
        tables.inTopic(channel, topic),
        ids((m) => m.channel_id === channel && pgLower(m.topic) === topic),
        `channel ${channel}, topic ${topic}`
      )
    }
  }
  for (const key of conversations) {
    same(
      tables.inConversation(key.split(",").map(Number)),
      ids((m) => m.type === "private" && dmKey(m.dm_user_ids) === key),
      `conversation ${key}`
    )
  }
  for (const user of users) {
    same(tables.sentBy(user), ids((m) => m.sender_id === user), `sent by ${user}`)
    same(tables.directWith(user), ids((m) => m.type === "private" && m.dm_user_ids.includes(user)), `direct with ${user}`)
    const rows = model.rows.get(user) ?? new Map<number, number>()
    assert.deepStrictEqual(
      new Map(tables.rowsOf(user) ?? []),
      new Map(Array.from(rows).filter(([id]) => model.messages.has(id))),
      `rows of ${user}`
    )
    const withFlags = (keep: (flags: number) => boolean) =>
      ascending(Array.from(rows).filter(([, flags]) => keep(flags)).map(([id]) => id))
    const indexes = tables.userRows(user)
    same(indexes.all, withFlags(() => true), `rows of ${user}`)
    same(indexes.unread, withFlags((f) => (f & FlagBits.read) === 0), `unread of ${user}`)
    same(indexes.starred, withFlags((f) => (f & FlagBits.starred) !== 0), `starred of ${user}`)
    same(indexes.mentioned, withFlags((f) => (f & MentionBits) !== 0), `mentioned of ${user}`)
    same(indexes.alerted, withFlags((f) => (f & FlagBits.has_alert_word) !== 0), `alerted of ${user}`)
    same(
      indexes.direct,
      ascending(Array.from(rows.keys()).filter((id) => model.messages.get(id)?.type === "private")),
      `direct rows of ${user}`
    )
  }
  for (const id of model.messages.keys()) {
    assert.deepStrictEqual(
      ascending(tables.recipients(id)),
      ascending(users.filter((user) => model.rows.get(user)?.has(id) === true)),
      `recipients of ${id}`
    )
  }
}

describe("MessageTables", () => {
  it.prop("any script of inserts, flag changes, edits, moves, deletions, transactions and savepoints: every index is the scan of the rows", {
    steps: Schema.Array(Step).check(Schema.isMinLength(10))
  }, ({ steps }) => {
    const journal = new Journal()
    const tables = new MessageTables(journal)
    let model: Model = { messages: new Map(), rows: new Map() }
    const copies: Array<{ readonly mark: number; readonly model: Model }> = []
    const conversations = new Set<string>()
    let next = 0
    // Ids as the sequence hands them out: never reused, rolled back or not.
    const pick = (n: number) => ascending(model.messages.keys())[n] ?? next + 1
    for (const step of steps) {
      switch (step.op) {
        case "insert": {
          const direct = step.channel === 3
          const sender = users[step.sender]!
          const participants = ascending([sender, ...step.recipients.map((r) => users[r.user]!)]).map(userId)
          const message: Message = {
            id: messageId(++next),
            realm_id: realmId(1),
            sender_id: sender,
            type: direct ? "private" : "stream",
            channel_id: direct ? null : channels[step.channel]!,
            topic: direct ? "" : topics[step.topic]!,
            dm_user_ids: direct ? participants : [],
            content: "x",
            rendered_content: "<p>x</p>",
            date_sent: 0,
            client: "test",
            has_attachment: false,
            has_image: false,
            has_link: false,
            last_edit_time: null
          }
          const recipients = step.recipients.map((r) => ({ user_id: users[r.user]!, flags: r.flags }))
          tables.insert(message, recipients)
          model.messages.set(message.id, message)
          for (const r of recipients) {
            let rows = model.rows.get(r.user_id)
            if (rows === undefined) model.rows.set(r.user_id, rows = new Map())
            rows.set(message.id, r.flags)
          }
          if (direct) conversations.add(dmKey(participants))
          break
        }
        case "flags": {
          const id = pick(step.pick)
          // Rows are written for messages that exist (SQL's foreign key).
          if (!model.messages.has(id)) break
          const user = users[step.user]!
          tables.setFlags(user, id, step.flags)
          let rows = model.rows.get(user)
          if (rows === undefined) model.rows.set(user, rows = new Map())
          rows.set(id, step.flags)
          break
        }
        case "delete": {
          const id = pick(step.pick)
          tables.delete(id)
          model.messages.delete(id)
          for (const rows of model.rows.values()) rows.delete(id)
          break
        }
        case "move": {
          // Any channel message (a pick past the table's end would rarely find one).
          const movable = Array.from(model.messages.values()).filter((m) => m.channel_id !== null)
          const message = movable[step.pick % Math.max(1, movable.length)]
          if (message === undefined) break
          const moved: Message = {
            ...message,
            channel_id: channels[step.channel]!,
            topic: topics[step.topic]!,
            content: `${message.content}+`
          }
          tables.replace(moved)
          model.messages.set(moved.id, moved)
          break
        }
        case "dropRow": {
          const user = users[step.user]!
          const own = ascending(model.rows.get(user)?.keys() ?? [])
          const id = own[step.pick % Math.max(1, own.length)] ?? pick(step.pick)
          tables.deleteRow(user, id)
          model.rows.get(user)?.delete(id)
          break
        }
        case "begin":
          copies.push({ mark: journal.begin(), model: copyModel(model) })
          break
        case "end": {
          const opened = copies.pop()
          if (opened === undefined) break
          if (step.ok) journal.commit()
          else {
            journal.rollback(opened.mark)
            model = opened.model
          }
        }
      }
      checkIndexes(tables, model, conversations)
    }
  }, propertyOptions(300))
})

// -----------------------------------------------------------------------------
// The work of a request does not grow with the table

/** The whole core in memory, with the MemoryDatabase exposed to read its counter. */
const memoryWithTables = Teamchat.layerServices.pipe(
  Layer.provideMerge(Persistence.layerMemoryTables),
  Layer.provideMerge(MemoryDatabase.layer),
  Layer.provide(Teamchat.layerSecretsTest)
)

const others = 10_000

/** How many messages and rows the memory tables looked at while `effect` ran, and its result. */
const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const tables = (yield* MemoryDatabase).tables.messages
    const before = tables.examined
    const result = yield* effect
    return { examined: tables.examined - before, result }
  })

const fetchRequest = (narrow: unknown, overrides: Partial<FetchRequest> = {}): FetchRequest => ({
  anchor: { _tag: "newest" },
  include_anchor: true,
  num_before: 50,
  num_after: 0,
  narrow,
  apply_markdown: false,
  client_gravatar: false,
  allow_empty_topic_name: true,
  ...overrides
})

describe("memory reads after 10,000 messages elsewhere", () => {
  layer(memoryWithTables, { timeout: "120 seconds" })((it) => {
    it.effect("look at as many messages as they answer with, not at the table", () =>
      Effect.gen(function*() {
        const org = yield* makeOrg
        const member = org.member
        const channelsService = yield* Channels
        const messages = yield* Messages
        const read = yield* channelsService.create(org.realm.id, { name: "read" })
        const elsewhere = yield* channelsService.create(org.realm.id, { name: "elsewhere" })
        for (const channel of [read, elsewhere]) {
          yield* channelsService.subscribe(channel.id, [org.owner.user.id, member.user.id])
        }
        const send = (principal: Principal, request: Parameters<typeof messages.send>[1]) =>
          Effect.map(messages.send(principal, request), (sent) => sent.id)
        const inTopic: Array<MessageId> = []
        for (let i = 0; i < 60; i++) {
          inTopic.push(yield* send(org.owner, { type: "channel", to: read.id, topic: "here", content: `here ${i}` }))
        }
        const direct: Array<MessageId> = []
        for (let i = 0; i < 5; i++) {
          direct.push(yield* send(org.other, { type: "direct", to: [member.user.id], content: `hi ${i}` }))
        }
        yield* (yield* MessageFlags).update(member, { messages: inTopic.slice(0, 3), op: "add", flag: "starred" })

        // 10,000 more: a fifth in other topics of the same channel, the rest elsewhere; the member has a row for each.
        const fill: Array<{ readonly message: Insert<Message>; readonly recipients: ReadonlyArray<{ user_id: UserId; flags: number }> }> =
          []
        for (let i = 0; i < others; i++) {
          const channel: ChannelId = i % 5 === 0 ? read.id : elsewhere.id
          fill.push({
            message: {
              realm_id: org.realm.id,
              sender_id: org.owner.user.id,
              type: "stream",
              channel_id: channel,
              topic: `topic ${i % 40}`,
              dm_user_ids: [],
              content: `filler ${i}`,
              rendered_content: `<p>filler ${i}</p>`,
              date_sent: 1_700_000_000,
              client: "test",
              has_attachment: false,
              has_image: false,
              has_link: false,
              last_edit_time: null
            },
            recipients: [{ user_id: org.owner.user.id, flags: FlagBits.read }, { user_id: member.user.id, flags: 0 }]
          })
        }
        const filled = yield* (yield* Transactor).withTransaction(Effect.flatMap(MessageStore, (store) => store.insertMany(fill)))
        const newest = filled.at(-1)!.id
        assert.isAbove((yield* MemoryDatabase).tables.messages.size, others)

        const me = yield* counted((yield* Users).me(member))
        assert.strictEqual(me.result.max_message_id, newest)
        assert.isAtMost(me.examined, 1)

        const ids = (result: { readonly messages: ReadonlyArray<{ readonly id: number }> }) => result.messages.map((m) => m.id)
        const fetch = (narrow: unknown, overrides?: Partial<FetchRequest>) => counted(messages.fetch(member, fetchRequest(narrow, overrides)))

        // The channel's topic: its newest 50 of 60, from the channel-and-topic index.
        const topic = yield* fetch([{ operator: "channel", operand: read.id }, { operator: "topic", operand: "HERE" }])
        assert.deepStrictEqual(ids(topic.result), inTopic.slice(10))
        assert.strictEqual(topic.examined, 50)

        // The channel (2,060 messages) and everything the member has (10,065): the newest 50 of each.
        const channel = yield* fetch([{ operator: "channel", operand: read.id }])
        assert.deepStrictEqual(ids(channel.result), filled.filter((m) => m.channel_id === read.id).slice(-50).map((m) => m.id))
        assert.strictEqual(channel.examined, 50)
        const all = yield* fetch([])
        assert.deepStrictEqual(ids(all.result), filled.slice(-50).map((m) => m.id))
        assert.strictEqual(all.examined, 50)

        // Flags and conversations: as many as there are.
        const starred = yield* fetch([{ operator: "is", operand: "starred" }])
        assert.deepStrictEqual(ids(starred.result), inTopic.slice(0, 3))
        assert.strictEqual(starred.examined, 3)
        const conversation = yield* fetch([{ operator: "dm", operand: [org.other.user.id] }])
        assert.deepStrictEqual(ids(conversation.result), direct)
        assert.strictEqual(conversation.examined, 5)
        const from = yield* fetch([{ operator: "sender", operand: org.other.user.id }])
        assert.deepStrictEqual(ids(from.result), direct)
        assert.strictEqual(from.examined, 5)

        // first_unread in the topic: the member's unread index and the topic's, walked from the start of the smaller.
        const unread = yield* fetch(
          [{ operator: "channel", operand: read.id }, { operator: "topic", operand: "here" }],
          { anchor: { _tag: "first_unread" }, num_before: 0, num_after: 5 }
        )
        assert.deepStrictEqual(ids(unread.result), inTopic.slice(0, 6))
        assert.isAtMost(unread.examined, 1 + 6)

        // A send: no read of other messages at all.
        const sent = yield* counted(send(member, { type: "channel", to: read.id, topic: "here", content: "one more" }))
        assert.isAbove(sent.result, newest)
        assert.strictEqual(sent.examined, 0)
      }))
  })
})
