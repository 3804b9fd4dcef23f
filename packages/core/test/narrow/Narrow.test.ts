/**
 * Parsing and resolving narrows: Zulip's accepted shapes, aliases and error
 * texts (zerver/lib/narrow.py: NarrowParameter, NarrowBuilder,
 * ok_to_include_history; zerver/views/message_fetch.py for `with`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { channelId, realmId, userId } from "../../src/domain/Ids.ts"
import type { ChannelId } from "../../src/domain/Ids.ts"
import type { Message } from "../../src/domain/Message.ts"
import type { NarrowContext, RawTerm } from "../../src/narrow/Narrow.ts"
import { parseNarrow, readsMutedChannels, resolveNarrow } from "../../src/narrow/Narrow.ts"

const viewer = userId(1)
const users = [
  { id: userId(1), email: "iago@zulip.test" },
  { id: userId(2), email: "Hamlet@zulip.test" },
  { id: userId(3), email: "cordelia@zulip.test" },
  { id: userId(4), email: "othello@zulip.test" }
]
type ContextChannel = NarrowContext["channels"][number]
const channel = (id: number, name: string, overrides: Partial<ContextChannel> = {}): ContextChannel => ({
  id: channelId(id),
  name,
  invite_only: false,
  is_web_public: false,
  history_public_to_subscribers: true,
  ...overrides
})
const channels: ReadonlyArray<ContextChannel> = [
  channel(1, "Verona"),
  channel(2, "Denmark", { is_web_public: true }),
  channel(3, "secret", { invite_only: true, history_public_to_subscribers: false }),
  channel(4, "muted one")
]

const streamMessage: Message = {
  id: 40 as Message["id"],
  realm_id: realmId(1),
  sender_id: userId(2),
  type: "stream",
  channel_id: channelId(1),
  topic: "lunch",
  dm_user_ids: [],
  content: "hi",
  rendered_content: "<p>hi</p>",
  date_sent: 0,
  client: "website",
  has_attachment: false,
  has_image: false,
  has_link: false,
  last_edit_time: null
}
const dmMessage: Message = {
  ...streamMessage,
  id: 41 as Message["id"],
  type: "private",
  channel_id: null,
  topic: "",
  dm_user_ids: [userId(1), userId(3), userId(4)]
}

const ctx = (overrides: Partial<NarrowContext> = {}): NarrowContext => ({
  viewerId: viewer,
  users,
  channels,
  mutedChannelIds: new Set<ChannelId>([channelId(4)]),
  historyChannelIds: new Set<ChannelId>([channelId(1), channelId(2), channelId(4)]),
  canAccessPublicChannels: true,
  accessibleMessage: (id) => Effect.succeed(id === 40 ? streamMessage : id === 41 ? dmMessage : undefined),
  ...overrides
})

/** Parses and resolves, returning the error message or the narrow. */
const run = (raw: unknown, context: NarrowContext = ctx()) =>
  Effect.gen(function*() {
    const terms = yield* parseNarrow(raw)
    return yield* resolveNarrow(terms, context)
  })

const failure = (raw: unknown, context?: NarrowContext) =>
  run(raw, context).pipe(
    Effect.flip,
    Effect.map((e) => ({ tag: e._tag, code: e.code, msg: e.msg }))
  )

describe("parseNarrow", () => {
  it.effect("accepts null, [], legacy pairs and objects", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* parseNarrow(null), [])
      assert.deepStrictEqual(yield* parseNarrow([]), [])
      const terms = yield* parseNarrow([
        ["stream", "Verona"],
        { operator: "sender", operand: 2, negated: true },
        { operator: "dm", operand: [2, 3] },
        { operator: "is", operand: "unread", negated: false, extra: "ignored" }
      ])
      const expected: Array<RawTerm> = [
        { operator: "stream", operand: "Verona", negated: false },
        { operator: "sender", operand: 2, negated: true },
        { operator: "dm", operand: [2, 3], negated: false },
        { operator: "is", operand: "unread", negated: false }
      ]
      assert.deepStrictEqual(terms, expected)
    }))

  it.effect("shape errors carry Zulip's texts; operand type errors are raised first", () =>
    Effect.gen(function*() {
      const msg = (raw: unknown) => parseNarrow(raw).pipe(Effect.flip, Effect.map((e) => [e._tag, e.msg]))
      assert.deepStrictEqual(yield* msg({ operator: "is" }), ["NotAList", "narrow is not a list"])
      assert.deepStrictEqual(yield* msg([["x", "y", "z"]]), ["NarrowElementNotStringPair", "Invalid narrow[0]: Value error, element is not a string pair"])
      assert.deepStrictEqual(yield* msg([[], []]), ["NarrowElementNotStringPair", "Invalid narrow[0]: Value error, element is not a string pair"])
      assert.deepStrictEqual(yield* msg([["is", 1]]), ["NarrowElementNotStringPair", "Invalid narrow[0]: Value error, element is not a string pair"])
      assert.deepStrictEqual(yield* msg(["asadasd"]), ["NarrowDictOrListRequired", "Invalid narrow[0]: Value error, dict or list required"])
      assert.deepStrictEqual(yield* msg([{ operator: null, operand: "Verona" }]), [
        "NarrowOperatorMissing",
        "Invalid narrow[0]: Value error, operator is missing"
      ])
      // The operand is checked before the operator.
      assert.deepStrictEqual(yield* msg([{}]), ["NarrowOperandMissing", "Invalid narrow[0]: Value error, operand is missing"])
      // The element is named by its index.
      assert.deepStrictEqual(yield* msg([["is", "dm"], {}]), [
        "NarrowOperandMissing",
        "Invalid narrow[1]: Value error, operand is missing"
      ])
      assert.deepStrictEqual(yield* msg([{ operator: "stream", operand: null }]), [
        "NarrowOperandMissing",
        "Invalid narrow[0]: Value error, operand is missing"
      ])
      assert.deepStrictEqual(yield* msg([{ operator: "search", operand: "" }]), [
        "RequiredStringBlank",
        "operand cannot be blank."
      ])
      assert.deepStrictEqual(yield* msg([["search", "  "]]), ["RequiredStringBlank", "operand cannot be blank."])
      assert.deepStrictEqual(yield* msg([{ operator: "is", operand: 5 }]), ["NotAString", "operand is not a string"])
      assert.deepStrictEqual(yield* msg([{ operator: "sender", operand: [1] }]), [
        "BadRequest",
        "operand is not a string or integer"
      ])
      assert.deepStrictEqual(yield* msg([{ operator: "dm", operand: 5 }]), [
        "BadRequest",
        "operand is not a string or an integer list"
      ])
      assert.deepStrictEqual(yield* msg([{ operator: "dm", operand: [1, "x"] }]), [
        "NotAnInteger",
        "operand[1] is not an integer"
      ])
      // `pm_with` takes strings only in Zulip.
      assert.deepStrictEqual(yield* msg([{ operator: "pm_with", operand: [1] }]), ["NotAString", "operand is not a string"])
      // A raised operand error wins over an earlier collected shape error.
      assert.deepStrictEqual(yield* msg(["x", { operator: "search", operand: "" }]), [
        "RequiredStringBlank",
        "operand cannot be blank."
      ])
      assert.deepStrictEqual(yield* msg([{ operator: "is", operand: "x", negated: "maybe" }]), [
        "NotABoolean",
        "narrow[0][\"negated\"] is not a boolean"
      ])
    }))
})

describe("resolveNarrow", () => {
  it.effect("resolves names, emails and aliases case-insensitively", () =>
    Effect.gen(function*() {
      const narrow = yield* run([
        ["stream", " verona "],
        { operator: "sender", operand: "hamlet@ZULIP.test" },
        { operator: "topic", operand: "Lunch", negated: true },
        ["has", "link"],
        { operator: "id", operand: "12" },
        ["near", "7"],
        ["search", "foo \"bar baz\""],
        ["search", "qux"]
      ])
      assert.deepStrictEqual(narrow.terms, [
        { _tag: "Channel", channelId: channelId(1), negated: false },
        { _tag: "Sender", userId: userId(2), negated: false },
        { _tag: "Topic", topic: "Lunch", negated: true },
        { _tag: "Has", what: "link", negated: false },
        { _tag: "Id", messageId: 12, negated: false },
        { _tag: "Search", query: "foo \"bar baz\" qux", phrases: ["bar baz"] }
      ])
      assert.strictEqual(narrow.near, "7")
      assert.deepStrictEqual(narrow.historyChannelIds, [channelId(1)])
      assert.deepStrictEqual(narrow.firstUnreadExcludedChannelIds, [])
    }))

  it.effect("direct-message operators", () =>
    Effect.gen(function*() {
      const dm = yield* run([{ operator: "dm", operand: [3] }])
      assert.deepStrictEqual(dm.terms, [{ _tag: "Dm", participants: [userId(1), userId(3)], negated: false }])
      const byEmail = yield* run([["pm-with", "cordelia@zulip.test, othello@zulip.test"]])
      assert.deepStrictEqual(byEmail.terms, [{
        _tag: "Dm",
        participants: [userId(1), userId(3), userId(4)],
        negated: false
      }])
      const self = yield* run([["pm_with", "iago@zulip.test"]])
      assert.deepStrictEqual(self.terms, [{ _tag: "Dm", participants: [userId(1)], negated: false }])
      const none = yield* run([{ operator: "dm", operand: [] }])
      assert.deepStrictEqual(none.terms, [{ _tag: "Dm", participants: [], negated: false }])
      const including = yield* run([{ operator: "dm-including", operand: 4 }, ["group-pm-with", "hamlet@zulip.test"]])
      assert.deepStrictEqual(including.terms, [
        { _tag: "DmIncluding", userIds: [userId(1), userId(4)], negated: false },
        { _tag: "GroupDm", userIds: [userId(1), userId(2)], negated: false }
      ])
      assert.strictEqual(including.historyChannelIds, null)
      // Terms and no channel term: first_unread skips muted channels.
      assert.deepStrictEqual(including.firstUnreadExcludedChannelIds, [channelId(4)])
    }))

  it.effect("is, in and channels", () =>
    Effect.gen(function*() {
      const narrow = yield* run([
        ["is", "dm"],
        ["is", "starred"],
        { operator: "is", operand: "muted", negated: true },
        ["in", "home"],
        ["in", "all"],
        ["is", "followed"]
      ])
      assert.deepStrictEqual(narrow.terms, [
        { _tag: "Is", flag: "dm", negated: false },
        { _tag: "Is", flag: "starred", negated: false },
        { _tag: "ChannelSet", channelIds: [channelId(4)], negated: true },
        { _tag: "ChannelSet", channelIds: [channelId(4)], negated: true },
        { _tag: "Is", flag: "followed", negated: false }
      ])
      // Nothing muted: in:home adds no condition, negated or not.
      const unmuted = yield* run([{ operator: "in", operand: "home", negated: true }], ctx({ mutedChannelIds: new Set() }))
      assert.deepStrictEqual(unmuted.terms, [])
      const pub = yield* run([["channels", "public"]])
      assert.deepStrictEqual(pub.terms, [{
        _tag: "ChannelSet",
        channelIds: [channelId(1), channelId(2), channelId(4)],
        negated: false
      }])
      assert.deepStrictEqual(pub.historyChannelIds, [channelId(1), channelId(2), channelId(4)])
      const web = yield* run([["streams", "web-public"]])
      assert.deepStrictEqual(web.terms, [{ _tag: "ChannelSet", channelIds: [channelId(2)], negated: false }])
      assert.strictEqual(web.historyChannelIds, null)
    }))

  it.effect("history: channel with readable history; not for guests' channels:public; never with is:", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual((yield* run([["stream", "Denmark"]])).historyChannelIds, [channelId(2)])
      assert.strictEqual((yield* run([["stream", "secret"]])).historyChannelIds, null)
      assert.strictEqual((yield* run([{ operator: "stream", operand: 1, negated: true }])).historyChannelIds, null)
      assert.deepStrictEqual((yield* run([["stream", "Verona"], ["is", "resolved"]])).historyChannelIds, [channelId(1)])
      assert.strictEqual((yield* run([["stream", "Verona"], ["is", "starred"]])).historyChannelIds, null)
      assert.strictEqual(
        (yield* run([["channels", "public"]], ctx({ canAccessPublicChannels: false }))).historyChannelIds,
        null
      )
      // The last channel term decides.
      assert.strictEqual((yield* run([["stream", "Verona"], ["stream", "secret"]])).historyChannelIds, null)
      assert.deepStrictEqual((yield* run([])).firstUnreadExcludedChannelIds, [])
    }))

  it.effect("the empty-topic display name means the empty topic", () =>
    Effect.gen(function*() {
      const narrow = yield* run([["stream", "Verona"], ["topic", "general chat"]])
      assert.deepStrictEqual(narrow.terms[1], { _tag: "Topic", topic: "", negated: false })
    }))

  it.effect("with: rewritten to the message's conversation", () =>
    Effect.gen(function*() {
      const stream = yield* run([["stream", "Denmark"], ["topic", "old"], ["is", "starred"], {
        operator: "with",
        operand: 40
      }])
      assert.deepStrictEqual(stream.terms, [
        { _tag: "Channel", channelId: channelId(1), negated: false },
        { _tag: "Topic", topic: "lunch", negated: false },
        { _tag: "Is", flag: "starred", negated: false }
      ])
      const dm = yield* run([{ operator: "with", operand: "41" }])
      assert.deepStrictEqual(dm.terms, [{ _tag: "Dm", participants: [userId(1), userId(3), userId(4)], negated: false }])
      // Inaccessible, but the narrow names a conversation: the with term is dropped.
      const kept = yield* run([["dm", "hamlet@zulip.test"], { operator: "with", operand: 99 }])
      assert.deepStrictEqual(kept.terms, [{ _tag: "Dm", participants: [userId(1), userId(2)], negated: false }])
    }))

  it.effect("errors carry Zulip's texts", () =>
    Effect.gen(function*() {
      const bad = (desc: string) => ({ tag: "BadNarrow", code: "BAD_NARROW", msg: `Invalid narrow operator: ${desc}` })
      assert.deepStrictEqual(yield* failure([["foo", "bar"]]), bad("unknown operator foo"))
      assert.deepStrictEqual(yield* failure([["pm-including", "x"]]), bad("unknown operator pm-including"))
      assert.deepStrictEqual(yield* failure([["is", "nothing"]]), bad("unknown 'is' operand nothing"))
      assert.deepStrictEqual(yield* failure([["has", "emoji"]]), bad("unknown 'has' operand emoji"))
      assert.deepStrictEqual(yield* failure([["in", "somewhere"]]), bad("unknown 'in' operand somewhere"))
      assert.deepStrictEqual(yield* failure([["stream", "nowhere"]]), bad("unknown channel nowhere"))
      assert.deepStrictEqual(yield* failure([{ operator: "channel", operand: 99 }]), bad("unknown channel 99"))
      assert.deepStrictEqual(yield* failure([["channels", "all"]]), bad("unknown channels operand all"))
      assert.deepStrictEqual(yield* failure([["sender", "nobody@zulip.test"]]), bad("unknown user nobody@zulip.test"))
      assert.deepStrictEqual(yield* failure([{ operator: "dm-including", operand: 99 }]), bad("unknown user 99"))
      assert.deepStrictEqual(yield* failure([["group-pm-with", "x@y"]]), bad("unknown user x@y"))
      assert.deepStrictEqual(
        yield* failure([["dm", "hamlet@zulip.test,nobody@zulip.test"]]),
        bad("unknown user in hamlet@zulip.test,nobody@zulip.test")
      )
      assert.deepStrictEqual(yield* failure([{ operator: "dm", operand: [2, 99] }]), bad("unknown user in [2, 99]"))
      assert.deepStrictEqual(yield* failure([["id", "abc"]]), bad("Invalid message ID"))
      assert.deepStrictEqual(yield* failure([{ operator: "id", operand: -4 }]), bad("Invalid message ID"))
      assert.deepStrictEqual(yield* failure([["id", "9223372036854775808"]]), bad("Invalid message ID"))
      const both = bad("No message can be both a channel message and direct message")
      assert.deepStrictEqual(yield* failure([["stream", "Verona"], ["dm", "hamlet@zulip.test"]]), both)
      assert.deepStrictEqual(yield* failure([["is", "dm"], ["topic", "x"]]), both)
      assert.deepStrictEqual(yield* failure([{ operator: "is", operand: "dm", negated: true }, ["dm", "hamlet@zulip.test"]]), both)
      // Checked before the channel is looked up.
      assert.deepStrictEqual(yield* failure([["is", "dm"], ["stream", "nowhere"]]), both)
      // Negated terms do not count.
      yield* run([{ operator: "stream", operand: "Verona", negated: true }, ["dm", "hamlet@zulip.test"]])
      yield* run([["stream", "Verona"], { operator: "is", operand: "dm", negated: true }])
      // Terms fail in order.
      assert.deepStrictEqual(yield* failure([["stream", "nowhere"], ["foo", "x"]]), bad("unknown channel nowhere"))
      assert.deepStrictEqual(yield* failure([["with", "abc"]]), bad("Invalid 'with' operator"))
      assert.deepStrictEqual(yield* failure([["with", "99"]]), bad("Invalid 'with' operator"))
      assert.deepStrictEqual(yield* failure([["with", "40"], ["with", "41"]]), {
        tag: "InvalidNarrowCombination",
        code: "BAD_NARROW",
        msg: "Invalid narrow operator combination: Duplicate 'with' operators."
      })
    }))
})

describe("readsMutedChannels", () => {
  // One term of every operator the resolver knows (and an unknown one), negated or not.
  const single: ReadonlyArray<Omit<RawTerm, "negated">> = [
    { operator: "channel", operand: "Verona" },
    { operator: "stream", operand: 4 },
    { operator: "channels", operand: "public" },
    { operator: "topic", operand: "lunch" },
    { operator: "sender", operand: 2 },
    { operator: "dm", operand: [2, 3] },
    { operator: "dm-including", operand: 3 },
    { operator: "group-pm-with", operand: 3 },
    { operator: "is", operand: "unread" },
    { operator: "is", operand: "muted" },
    { operator: "in", operand: "home" },
    { operator: "in", operand: "all" },
    { operator: "has", operand: "link" },
    { operator: "id", operand: 40 },
    { operator: "with", operand: 40 },
    { operator: "with", operand: 41 },
    { operator: "search", operand: "lunch" },
    { operator: "near", operand: 40 },
    { operator: "nonsense", operand: "x" }
  ]
  const terms: Array<RawTerm> = single.flatMap((t) => [{ ...t, negated: false }, { ...t, negated: true }])
  const narrows: Array<ReadonlyArray<RawTerm>> = [[], ...terms.map((t) => [t]), ...terms.flatMap((a) => terms.map((b) => [a, b]))]
  const outcome = (raw: ReadonlyArray<RawTerm>, context: NarrowContext) =>
    Effect.map(Effect.result(resolveNarrow(raw, context)), (result) => JSON.stringify(result))

  it.effect("when false, resolving without the muted channels gives the same narrow or the same error", () =>
    Effect.gen(function*() {
      let skipped = 0
      for (const raw of narrows) {
        if (readsMutedChannels(raw)) continue
        skipped++
        assert.strictEqual(
          yield* outcome(raw, ctx({ mutedChannelIds: new Set() })),
          yield* outcome(raw, ctx()),
          JSON.stringify(raw)
        )
      }
      // The hot narrows skip the read.
      assert.isFalse(readsMutedChannels([
        { operator: "channel", operand: 1, negated: false },
        { operator: "topic", operand: "lunch", negated: false }
      ]))
      assert.isAbove(skipped, 100)
    }))

  it.effect("is true for every narrow the muted channels change", () =>
    Effect.gen(function*() {
      for (const raw of narrows) {
        const withMuted = yield* outcome(raw, ctx())
        const without = yield* outcome(raw, ctx({ mutedChannelIds: new Set() }))
        if (withMuted !== without) assert.isTrue(readsMutedChannels(raw), JSON.stringify(raw))
      }
    }))
})
