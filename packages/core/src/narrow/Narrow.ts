/**
 * Zulip's narrow language as one typed AST.
 *
 * A narrow goes through two steps, each with Zulip's error texts:
 *
 * 1. {@link parseNarrow}: the JSON value of the `narrow` parameter into raw
 *    terms `{ operator, operand, negated }` (legacy `[operator, operand]`
 *    pairs included). Only shapes and operand types are checked here.
 * 2. {@link resolveNarrow}: raw terms into {@link Narrow}: operators checked,
 *    names and emails resolved against the organization, `with` rewritten to
 *    its conversation, `search` terms merged. Both interpreters
 *    (`NarrowPredicate.ts` in memory, `NarrowSql.ts` in SQL) read only the
 *    resolved AST, so they cannot disagree about names or aliases.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { Channel } from "../domain/Channel.ts"
import type { ChannelId, UserId } from "../domain/Ids.ts"
import type { Message } from "../domain/Message.ts"
import { dmParticipants, EmptyTopicDisplayName } from "../domain/Message.ts"
import type { User } from "../domain/User.ts"
import {
  BadNarrow,
  BadRequest,
  InvalidNarrowCombination,
  NarrowDictOrListRequired,
  NarrowElementNotStringPair,
  NarrowOperandMissing,
  NarrowOperatorMissing,
  NotABoolean,
  NotAList,
  NotAnInteger,
  NotAString,
  RequiredStringBlank,
  TooManyItems
} from "../errors/Errors.ts"

// ---------------------------------------------------------------------------
// Raw terms

/** An operand as clients send it: a string, an id, or (dm) a list of ids. @category models */
export type Operand = string | number | ReadonlyArray<number>

/** One narrow element after parsing, before resolution. @category models */
export interface RawTerm {
  readonly operator: string
  readonly operand: Operand
  readonly negated: boolean
}

/** @category errors */
export type NarrowParseError =
  | NotAList
  | NarrowElementNotStringPair
  | NarrowOperandMissing
  | NarrowOperatorMissing
  | NarrowDictOrListRequired
  | NotAString
  | NotABoolean
  | NotAnInteger
  | RequiredStringBlank
  | BadRequest
  | TooManyItems

/**
 * The most terms a narrow may have: each is a condition of the query, and
 * clients send a handful. Beyond it: "narrow is too long (limit: 1000 items)".
 *
 * @category constants
 */
export const MaxNarrowTerms = 1000

/** @category errors */
export type NarrowResolveError = BadNarrow | InvalidNarrowCombination

const channelOperators: ReadonlySet<string> = new Set(["channel", "stream"])
const channelsOperators: ReadonlySet<string> = new Set(["channels", "streams"])
/** Operators whose operand may be an id (Zulip's `operators_supporting_id`). */
const idOperators: ReadonlySet<string> = new Set([
  "channel",
  "stream",
  "id",
  "sender",
  "group-pm-with",
  "dm-including",
  "with"
])
/** Operators whose operand may be a list of user ids; `pm_with` is not one of them in Zulip. */
const idListOperators: ReadonlySet<string> = new Set(["pm-with", "dm"])

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const isInt = (u: unknown): u is number => typeof u === "number" && Number.isInteger(u)

/** Pydantic's lax boolean (Zulip declares `negated: bool`). */
const laxBoolean = (u: unknown): boolean | undefined => {
  if (typeof u === "boolean") return u
  if (u === 0 || u === 1) return u === 1
  if (typeof u === "string") {
    const s = u.toLowerCase()
    if (["true", "t", "yes", "y", "on", "1"].includes(s)) return true
    if (["false", "f", "no", "n", "off", "0"].includes(s)) return false
  }
  return undefined
}

/**
 * Zulip validates every element with pydantic: a shape problem
 * ("value error") is collected and the first one reported after all
 * elements ran, while an operand type error is raised at once.
 */
type Checked =
  | { readonly _tag: "term"; readonly term: RawTerm }
  | { readonly _tag: "collected"; readonly error: NarrowParseError }
  | { readonly _tag: "raised"; readonly error: NarrowParseError }

/**
 * Builds the shape errors. Zulip 9+ sends them as
 * `Invalid narrow[<index>]: Value error, <text>`; the existing error classes
 * carry only `<text>`, so this is the one place to change if they gain the
 * index.
 */
const valueError = (
  index: number,
  kind: "pair" | "operand" | "operator" | "shape"
): NarrowParseError => {
  switch (kind) {
    case "pair":
      return new NarrowElementNotStringPair({ index })
    case "operand":
      return new NarrowOperandMissing({ index })
    case "operator":
      return new NarrowOperatorMissing({ index })
    case "shape":
      return new NarrowDictOrListRequired({ index })
  }
}

/** Zulip's `validate_terms`: the operand's type by operator. */
const checkOperand = (operator: string, operand: unknown): Operand | NarrowParseError => {
  if (idOperators.has(operator)) {
    if (typeof operand === "string" || isInt(operand)) return operand
    return new BadRequest({ msg: "operand is not a string or integer" })
  }
  if (idListOperators.has(operator)) {
    if (typeof operand === "string") return operand
    if (!Array.isArray(operand)) return new BadRequest({ msg: "operand is not a string or an integer list" })
    for (let j = 0; j < operand.length; j++) {
      if (!isInt(operand[j])) return new NotAnInteger({ var_name: `operand[${j}]` })
    }
    return operand as ReadonlyArray<number>
  }
  if (typeof operand !== "string") return new NotAString({ var_name: "operand" })
  if (operator === "search" && operand.trim() === "") return new RequiredStringBlank({ var_name: "operand" })
  return operand
}

const checkElement = (element: unknown, index: number): Checked => {
  let operator: unknown
  let operand: unknown
  let negated: unknown = false
  if (Array.isArray(element)) {
    if (element.length !== 2 || element.some((x) => typeof x !== "string")) {
      return { _tag: "collected", error: valueError(index, "pair") }
    }
    operator = element[0]
    operand = element[1]
  } else if (isRecord(element)) {
    // Zulip checks the operand first.
    if (element.operand === undefined || element.operand === null) {
      return { _tag: "collected", error: valueError(index, "operand") }
    }
    if (element.operator === undefined || element.operator === null) {
      return { _tag: "collected", error: valueError(index, "operator") }
    }
    operator = element.operator
    operand = element.operand
    if (element.negated !== undefined) negated = element.negated
  } else {
    return { _tag: "collected", error: valueError(index, "shape") }
  }
  // Field types (pydantic), named by their location like other nested parameters.
  if (typeof operator !== "string") {
    return { _tag: "collected", error: new NotAString({ var_name: `narrow[${index}]["operator"]` }) }
  }
  const negatedValue = laxBoolean(negated)
  if (negatedValue === undefined) {
    return { _tag: "collected", error: new NotABoolean({ var_name: `narrow[${index}]["negated"]` }) }
  }
  const checked = checkOperand(operator, operand)
  if (typeof checked === "object" && !Array.isArray(checked)) {
    return { _tag: "raised", error: checked as NarrowParseError }
  }
  return { _tag: "term", term: { operator, operand: checked as Operand, negated: negatedValue } }
}

/**
 * Parses the JSON value of a `narrow` parameter. `null` and `[]` are the
 * empty narrow.
 *
 * @category parsing
 */
export const parseNarrow = Effect.fnUntraced(function*(
  raw: unknown
): Effect.fn.Return<ReadonlyArray<RawTerm>, NarrowParseError> {
  if (raw === null || raw === undefined) return []
  if (!Array.isArray(raw)) return yield* new NotAList({ var_name: "narrow" })
  if (raw.length > MaxNarrowTerms) return yield* new TooManyItems({ var_name: "narrow", max_items: MaxNarrowTerms })
  const terms: Array<RawTerm> = []
  let collected: NarrowParseError | undefined
  for (let i = 0; i < raw.length; i++) {
    const checked = checkElement(raw[i], i)
    switch (checked._tag) {
      case "raised":
        return yield* Effect.fail(checked.error)
      case "collected":
        collected ??= checked.error
        break
      case "term":
        terms.push(checked.term)
    }
  }
  if (collected !== undefined) return yield* Effect.fail(collected)
  return terms
})

// ---------------------------------------------------------------------------
// The resolved AST

/** Flags and message properties `is:` can test. @category models */
export type IsOperand = "dm" | "starred" | "unread" | "mentioned" | "alerted" | "resolved" | "followed"

/** @category models */
export type HasOperand = "attachment" | "image" | "link" | "reaction"

/**
 * One resolved term. Every term but `Search` may be negated. A term never
 * adds messages: the interpreters AND all terms over the messages the viewer
 * may read (their rows, plus channel history when the query allows it).
 *
 * @category models
 */
export type Term =
  /** `channel:`/`stream:`. */
  | { readonly _tag: "Channel"; readonly channelId: ChannelId; readonly negated: boolean }
  /**
   * A channel message in one of these channels: `channels:public` /
   * `channels:web-public`; also `in:home` (negated: not in a muted channel)
   * and `is:muted` (in a muted channel), there being no per-topic muting yet.
   */
  | { readonly _tag: "ChannelSet"; readonly channelIds: ReadonlyArray<ChannelId>; readonly negated: boolean }
  /** A channel message with this topic, compared case-insensitively. */
  | { readonly _tag: "Topic"; readonly topic: string; readonly negated: boolean }
  | { readonly _tag: "Sender"; readonly userId: UserId; readonly negated: boolean }
  /** The direct-message conversation of exactly these participants (sorted, viewer included); [] matches nothing. */
  | { readonly _tag: "Dm"; readonly participants: ReadonlyArray<UserId>; readonly negated: boolean }
  /** Direct messages whose participants include all of these (`dm-including`: the user and the viewer). */
  | { readonly _tag: "DmIncluding"; readonly userIds: ReadonlyArray<UserId>; readonly negated: boolean }
  /** Group direct messages (3+ participants) including all of these (`group-pm-with`). */
  | { readonly _tag: "GroupDm"; readonly userIds: ReadonlyArray<UserId>; readonly negated: boolean }
  | { readonly _tag: "Is"; readonly flag: IsOperand; readonly negated: boolean }
  | { readonly _tag: "Has"; readonly what: HasOperand; readonly negated: boolean }
  /** `id:`; an id no message can have is 0. */
  | { readonly _tag: "Id"; readonly messageId: number; readonly negated: boolean }
  /**
   * Every `search:` operand joined by spaces (Zulip merges them and drops
   * their negation): all words of `query` (PostgreSQL `plainto_tsquery` over
   * topic and content), and each double-quoted phrase as a case-insensitive
   * substring of the content or the topic.
   */
  | { readonly _tag: "Search"; readonly query: string; readonly phrases: ReadonlyArray<string> }

/**
 * A resolved narrow.
 *
 * @category models
 */
export interface Narrow {
  readonly terms: ReadonlyArray<Term>
  /**
   * The last `near:` operand, if any. `near` filters nothing (Zulip's
   * `by_near`); clients send the anchor themselves, this only exposes it.
   */
  readonly near: string | null
  /**
   * Channels whose history the viewer may read without rows for this
   * narrow, or null for rows only (Zulip's `ok_to_include_history`: a
   * non-negated channel term for a channel whose history the viewer can
   * read, or `channels:public` for a non-guest; never with an `is:` term
   * other than `is:resolved`; the last such term decides). Pass it as
   * `SearchQuery.historyChannelIds`.
   */
  readonly historyChannelIds: ReadonlyArray<ChannelId> | null
  /**
   * Channels whose messages `anchor=first_unread` skips: the viewer's muted
   * channels when the narrow has terms and no channel term (Zulip's
   * `exclude_muting_conditions`), otherwise none.
   */
  readonly firstUnreadExcludedChannelIds: ReadonlyArray<ChannelId>
}

/** No terms: every message the viewer has a row for. @category constructors */
export const emptyNarrow: Narrow = {
  terms: [],
  near: null,
  historyChannelIds: null,
  firstUnreadExcludedChannelIds: []
}

/**
 * What resolution needs to know about the organization and the viewer.
 *
 * @category models
 */
export interface NarrowContext {
  readonly viewerId: UserId
  /** Every user of the organization; emails match `email` (the API email), case-insensitively, like Zulip. */
  readonly users: ReadonlyArray<Pick<User, "id" | "email">>
  /** Every channel of the organization, archived ones included. */
  readonly channels: ReadonlyArray<
    Pick<Channel, "id" | "name" | "invite_only" | "is_web_public" | "history_public_to_subscribers">
  >
  /**
   * `users` and `channels` by id, when the caller already holds them (the
   * cached access read): otherwise built from the lists on every resolve.
   */
  readonly usersById?: ReadonlyMap<UserId, Pick<User, "id" | "email">> | undefined
  readonly channelsById?: ReadonlyMap<ChannelId, NarrowContext["channels"][number]> | undefined
  readonly mutedChannelIds: ReadonlySet<ChannelId>
  /** Channels whose whole history the viewer may read (Zulip's `can_access_stream_history`). */
  readonly historyChannelIds: ReadonlySet<ChannelId>
  /** False for guests (Zulip's `can_access_public_streams`). */
  readonly canAccessPublicChannels: boolean
  /**
   * `with:`: the message if it exists and the viewer may access it
   * (Zulip's `access_message`), else undefined.
   */
  readonly accessibleMessage: (id: number) => Effect.Effect<Message | undefined>
}

/** Zulip's `Message.MAX_POSSIBLE_MESSAGE_ID` (a signed 64-bit id). */
const MaxPossibleMessageId = 2n ** 63n - 1n

/** Zulip's resolved-topic prefix. @category constants */
export const ResolvedTopicPrefix = "✔ "

/** Python's `str(operand)` for error texts: lists print as `[1, 2]`. */
const show = (operand: Operand): string => typeof operand === "object" ? `[${operand.join(", ")}]` : String(operand)

const asString = (operand: Operand): string => typeof operand === "string" ? operand : show(operand)

/** Python's `int(str)`: optional sign, digits with single underscores, surrounding whitespace. */
const pythonInt = (operand: Operand): number | undefined => {
  if (typeof operand === "number") return operand
  if (typeof operand !== "string") return undefined
  const text = operand.trim()
  if (!/^[+-]?\d+(_\d+)*$/.test(text)) return undefined
  return Number(text.replaceAll("_", ""))
}

/** Zulip's `can_narrow_define_conversation`, used when the `with` message is inaccessible. */
const canDefineConversation = (terms: ReadonlyArray<RawTerm>): boolean => {
  let channel = false
  let topic = false
  for (const term of terms) {
    if (term.operator === "dm" || term.operator === "pm-with") return true
    if (term.operator === "stream" || term.operator === "channel") channel = true
    else if (term.operator === "topic") topic = true
    if (channel && topic) return true
  }
  return false
}

/** The view's rewrites before building: the empty-topic display name, then `with`. */
const rewrite = Effect.fnUntraced(function*(
  input: ReadonlyArray<RawTerm>,
  ctx: NarrowContext
): Effect.fn.Return<ReadonlyArray<RawTerm>, NarrowResolveError> {
  let terms = [...input]
  const topicIndex = terms.findIndex((t) => t.operator === "topic")
  if (topicIndex >= 0 && terms[topicIndex]!.operand === EmptyTopicDisplayName) {
    terms[topicIndex] = { ...terms[topicIndex]!, operand: "" }
  }
  const withTerms = terms.filter((t) => t.operator === "with")
  if (withTerms.length > 1) return yield* new InvalidNarrowCombination({ desc: "Duplicate 'with' operators." })
  if (withTerms.length === 0) return terms
  const withTerm = withTerms[0]!
  terms = terms.filter((t) => t !== withTerm)
  const id = pythonInt(withTerm.operand)
  if (id === undefined) return yield* new BadNarrow({ desc: "Invalid 'with' operator" })
  const message = id > 0 && Number.isSafeInteger(id) ? yield* ctx.accessibleMessage(id) : undefined
  if (message === undefined) {
    if (canDefineConversation(terms)) return terms
    return yield* new BadNarrow({ desc: "Invalid 'with' operator" })
  }
  const rest = terms.filter((t) => !["stream", "channel", "topic", "dm", "pm-with"].includes(t.operator))
  const conversation: Array<RawTerm> = message.channel_id !== null
    ? [
      { operator: "channel", operand: message.channel_id, negated: false },
      { operator: "topic", operand: message.topic, negated: false }
    ]
    : [{ operator: "dm", operand: message.dm_user_ids, negated: false }]
  return [...conversation, ...rest]
})

/**
 * Resolves parsed terms for one viewer, with Zulip's checks in Zulip's
 * order: the `with` rewrite first, then each non-search term in turn (an
 * unknown operator, operand, channel or user fails at its term), then the
 * merged search.
 *
 * @category resolving
 */
export const resolveNarrow = Effect.fnUntraced(function*(
  input: ReadonlyArray<RawTerm>,
  ctx: NarrowContext
): Effect.fn.Return<Narrow, NarrowResolveError> {
  const raw = yield* rewrite(input, ctx)
  const viewer = ctx.viewerId

  // Looked up by a number operand: a branded id is a number at run time.
  const channelById = (ctx.channelsById ?? new Map(ctx.channels.map((c) => [c.id, c]))) as ReadonlyMap<number, NarrowContext["channels"][number]>
  const findChannel = (operand: Operand) => {
    if (typeof operand === "number") return channelById.get(operand)
    if (typeof operand !== "string") return undefined
    const wanted = operand.trim().toLowerCase()
    return ctx.channels.find((c) => c.name.toLowerCase() === wanted)
  }
  const userById = (ctx.usersById ?? new Map(ctx.users.map((u) => [u.id, u]))) as ReadonlyMap<number, Pick<User, "id" | "email">>
  const findUser = (operand: string | number) => {
    if (typeof operand === "number") return userById.get(operand)
    const wanted = operand.trim().toLowerCase()
    return ctx.users.find((u) => u.email.toLowerCase() === wanted)
  }
  const userOperand = (operand: Operand) => typeof operand === "object" ? undefined : findUser(operand)

  // Zulip's `check_not_both_channel_and_dm_narrow`: negated terms do not
  // count, except `-is:dm`, which makes the narrow a channel narrow.
  let isChannelNarrow = false
  let isDmNarrow = false
  const mark = (kind: "channel" | "dm") => {
    if (kind === "channel") isChannelNarrow = true
    else isDmNarrow = true
    return isChannelNarrow && isDmNarrow ? BadNarrow.channelAndDirect() : undefined
  }

  const terms: Array<Term> = []
  const searches: Array<string> = []
  let near: string | null = null

  for (const term of raw) {
    const { operator, operand, negated } = term
    switch (operator) {
      case "search": {
        searches.push(asString(operand))
        break
      }
      case "has": {
        const what = asString(operand)
        if (what !== "attachment" && what !== "image" && what !== "link" && what !== "reaction") {
          return yield* BadNarrow.unknownOperand("has", what)
        }
        terms.push({ _tag: "Has", what, negated })
        break
      }
      case "in": {
        const where = asString(operand)
        if (where === "home") {
          // No condition when nothing is muted, negated or not (Zulip adds none).
          if (ctx.mutedChannelIds.size > 0) {
            terms.push({ _tag: "ChannelSet", channelIds: sortedIds(ctx.mutedChannelIds), negated: !negated })
          }
        } else if (where !== "all") {
          return yield* BadNarrow.unknownOperand("in", where)
        }
        break
      }
      case "is": {
        const flag = asString(operand)
        switch (flag) {
          case "dm":
          case "private": {
            const error = mark(negated ? "channel" : "dm")
            if (error) return yield* error
            terms.push({ _tag: "Is", flag: "dm", negated })
            break
          }
          case "starred":
          case "unread":
          case "mentioned":
          case "alerted":
          case "resolved":
          case "followed":
            terms.push({ _tag: "Is", flag, negated })
            break
          case "muted":
            terms.push({ _tag: "ChannelSet", channelIds: sortedIds(ctx.mutedChannelIds), negated })
            break
          default:
            return yield* BadNarrow.unknownOperand("is", flag)
        }
        break
      }
      case "channel":
      case "stream": {
        if (!negated) {
          const error = mark("channel")
          if (error) return yield* error
        }
        const channel = findChannel(operand)
        if (channel === undefined) return yield* BadNarrow.unknownChannel(show(operand))
        terms.push({ _tag: "Channel", channelId: channel.id, negated })
        break
      }
      case "channels":
      case "streams": {
        if (!negated) {
          const error = mark("channel")
          if (error) return yield* error
        }
        const kind = asString(operand)
        if (kind !== "public" && kind !== "web-public") return yield* BadNarrow.unknownChannelsOperand(kind)
        const channelIds = ctx.channels
          .filter((c) => kind === "public" ? !c.invite_only && c.history_public_to_subscribers : c.is_web_public)
          .map((c) => c.id)
        terms.push({ _tag: "ChannelSet", channelIds: sortedIds(channelIds), negated })
        break
      }
      case "topic": {
        if (!negated) {
          const error = mark("channel")
          if (error) return yield* error
        }
        terms.push({ _tag: "Topic", topic: asString(operand), negated })
        break
      }
      case "sender": {
        const user = userOperand(operand)
        if (user === undefined) return yield* new BadNarrow({ desc: `unknown user ${show(operand)}` })
        terms.push({ _tag: "Sender", userId: user.id, negated })
        break
      }
      case "near": {
        near = asString(operand)
        break
      }
      case "id": {
        const text = show(operand)
        if (!/^[0-9]+$/.test(text) || BigInt(text) > MaxPossibleMessageId) {
          return yield* new BadNarrow({ desc: "Invalid message ID" })
        }
        const id = Number(text)
        terms.push({ _tag: "Id", messageId: Number.isSafeInteger(id) ? id : 0, negated })
        break
      }
      case "dm":
      case "pm-with":
      case "pm_with": {
        if (!negated) {
          const error = mark("dm")
          if (error) return yield* error
        }
        const unknown = new BadNarrow({ desc: `unknown user in ${show(operand)}` })
        const found: Array<UserId> = []
        if (typeof operand === "object") {
          for (const id of operand) {
            const user = userById.get(id)
            if (user === undefined) return yield* unknown
            found.push(user.id)
          }
        } else {
          for (const email of String(operand).split(",")) {
            const user = findUser(email)
            if (user === undefined) return yield* unknown
            found.push(user.id)
          }
        }
        // Zulip: an empty list of users matches nothing.
        terms.push({ _tag: "Dm", participants: found.length === 0 ? [] : dmParticipants([...found, viewer]), negated })
        break
      }
      case "dm-including": {
        if (!negated) {
          const error = mark("dm")
          if (error) return yield* error
        }
        const user = userOperand(operand)
        if (user === undefined) return yield* new BadNarrow({ desc: `unknown user ${show(operand)}` })
        terms.push({ _tag: "DmIncluding", userIds: dmParticipants([user.id, viewer]), negated })
        break
      }
      case "group-pm-with":
      case "group_pm_with": {
        if (!negated) {
          const error = mark("dm")
          if (error) return yield* error
        }
        const user = userOperand(operand)
        if (user === undefined) return yield* new BadNarrow({ desc: `unknown user ${show(operand)}` })
        terms.push({ _tag: "GroupDm", userIds: dmParticipants([user.id, viewer]), negated })
        break
      }
      default:
        return yield* BadNarrow.unknownOperator(operator)
    }
  }

  if (searches.length > 0) {
    const query = searches.join(" ")
    terms.push({ _tag: "Search", query, phrases: quotedPhrases(query) })
  }

  return {
    terms,
    near,
    historyChannelIds: historyChannels(raw, ctx, findChannel),
    firstUnreadExcludedChannelIds: raw.length > 0 && !raw.some((t) => channelOperators.has(t.operator))
      ? sortedIds(ctx.mutedChannelIds)
      : []
  }
})

/**
 * Whether resolving these parsed terms may read `NarrowContext.mutedChannelIds`
 * (`in:`, `is:`, a `with` that may rewrite the channel terms away, or terms
 * without a channel term, for `firstUnreadExcludedChannelIds`). When false,
 * the caller may leave the set empty and skip reading it: the narrow comes
 * out the same.
 *
 * @category resolving
 */
export const readsMutedChannels = (input: ReadonlyArray<RawTerm>): boolean =>
  input.some((t) => t.operator === "in" || t.operator === "is" || t.operator === "with") ||
  (input.length > 0 && !input.some((t) => channelOperators.has(t.operator)))

const sortedIds = <A extends number>(ids: Iterable<A>): Array<A> => Array.from(new Set(ids)).sort((a, b) => a - b)

/** Zulip's tsearch phrases: each `"…"` token of `\"[^\"]+\"|\S+`, quotes removed. */
const quotedPhrases = (query: string): Array<string> => {
  const phrases: Array<string> = []
  for (const match of query.matchAll(/"[^"]+"|\S+/g)) {
    const token = match[0]
    if (token.startsWith("\"") && token.endsWith("\"")) phrases.push(token.slice(1, -1))
  }
  return phrases
}

/** Zulip's `ok_to_include_history`, returning the channels it opens. */
const historyChannels = (
  raw: ReadonlyArray<RawTerm>,
  ctx: NarrowContext,
  findChannel: (operand: Operand) => { readonly id: ChannelId } | undefined
): ReadonlyArray<ChannelId> | null => {
  let history: ReadonlyArray<ChannelId> | null = null
  for (const term of raw) {
    if (channelOperators.has(term.operator) && !term.negated) {
      const channel = findChannel(term.operand)
      history = channel !== undefined && ctx.historyChannelIds.has(channel.id) ? [channel.id] : null
    } else if (
      channelsOperators.has(term.operator) && term.operand === "public" && !term.negated &&
      ctx.canAccessPublicChannels
    ) {
      history = sortedIds(
        ctx.channels.filter((c) => !c.invite_only && c.history_public_to_subscribers).map((c) => c.id)
      )
    }
  }
  if (raw.some((t) => t.operator === "is" && t.operand !== "resolved")) return null
  return history
}
