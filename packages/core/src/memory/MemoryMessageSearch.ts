/**
 * Message search in memory: the narrow's in-memory interpreter over the
 * MemoryDatabase tables, with the port's shared range arithmetic.
 *
 * A query walks one index of `MessageTables`, the smallest that holds every
 * message the query can match (as SQL's planner picks an index): a channel,
 * a channel's topic, a sender, a direct-message conversation or participant,
 * one of the viewer's flag indexes (unread, starred, mentioned, alerted,
 * direct messages), or else the viewer's rows (with the history channels'
 * messages when the query reads history). The walk starts at the range's
 * bound and stops once the page is full, so a page costs its length plus
 * the non-matching entries of that index it passes (the terms no index
 * serves, such as a text search, are tested on each), not the table's size.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Term } from "../narrow/Narrow.ts"
import { compile, pgLower } from "../narrow/NarrowPredicate.ts"
import type { MessageFacts } from "../narrow/NarrowPredicate.ts"
import {
  byId,
  HistoricalFlags,
  LARGER_THAN_MAX_MESSAGE_ID,
  MessageSearch,
  planRange,
  postProcess,
  resolveAnchor
} from "../ports/MessageSearch.ts"
import type { MessageRow, RangeOptions, SearchQuery } from "../ports/MessageSearch.ts"
import type { MessageTables } from "./internal/MessageTables.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** Ids ascending or descending from a bound, and how many there are: an index, or several merged. */
interface Candidates {
  readonly size: number
  ascending(from?: number): Iterable<number>
  descending(upTo?: number): Iterable<number>
}

const single = (id: number): Candidates => ({
  size: 1,
  ascending: (from = Number.NEGATIVE_INFINITY) => (id >= from ? [id] : []),
  descending: (upTo = Number.POSITIVE_INFINITY) => (id <= upTo ? [id] : [])
})

/** The union of several indexes, each id once, in order. */
const union = (parts: ReadonlyArray<Candidates>): Candidates => {
  if (parts.length === 1) return parts[0]!
  const merge = function*(iterators: Array<Iterator<number>>, before: (a: number, b: number) => boolean) {
    const heads = iterators.map((it) => it.next())
    while (true) {
      let best = -1
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i]!
        if (!head.done && (best < 0 || before(head.value, (heads[best] as IteratorYieldResult<number>).value))) best = i
      }
      if (best < 0) return
      const id = (heads[best] as IteratorYieldResult<number>).value
      yield id
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i]!
        if (!head.done && head.value === id) heads[i] = iterators[i]!.next()
      }
    }
  }
  return {
    size: parts.reduce((n, part) => n + part.size, 0),
    ascending: (from) => ({
      [Symbol.iterator]: () => merge(parts.map((p) => p.ascending(from)[Symbol.iterator]()), (a, b) => a < b)
    }),
    descending: (upTo) => ({
      [Symbol.iterator]: () => merge(parts.map((p) => p.descending(upTo)[Symbol.iterator]()), (a, b) => a > b)
    })
  }
}

/**
 * The smallest index holding every message of the query's candidates
 * (`history`: the channels whose messages count without a row, or null for
 * the viewer's rows only) that `terms` can match. Only terms that are not
 * negated narrow it; every term is still tested on each message walked.
 */
const chooseIndex = (
  store: MessageTables,
  viewerId: number,
  terms: ReadonlyArray<Term>,
  history: ReadonlyArray<number> | null
): Candidates => {
  const viewer = store.userRows(viewerId)
  let best: Candidates = history === null ? viewer.all : union([viewer.all, ...history.map((c) => store.inChannel(c))])
  const consider = (candidates: Candidates) => {
    if (candidates.size < best.size) best = candidates
  }
  const channels: Array<number> = []
  for (const term of terms) if (term._tag === "Channel" && !term.negated) channels.push(term.channelId)
  for (const term of terms) {
    if (term._tag !== "Search" && term.negated) continue
    switch (term._tag) {
      case "Channel":
        consider(store.inChannel(term.channelId))
        break
      case "Topic": {
        const topic = pgLower(term.topic)
        for (const channel of channels) consider(store.inTopic(channel, topic))
        break
      }
      case "ChannelSet":
        consider(union(term.channelIds.map((c) => store.inChannel(c))))
        break
      case "Sender":
        consider(store.sentBy(term.userId))
        break
      case "Dm":
        consider(term.participants.length === 0 ? store.none : store.inConversation(term.participants))
        break
      case "DmIncluding":
      case "GroupDm":
        for (const user of term.userIds) consider(store.directWith(user))
        break
      case "Is":
        // Channel history without a row has the flags `read | historical`,
        // which none of these match: the viewer's flag indexes hold every
        // match. A message of history is a channel message, never direct.
        switch (term.flag) {
          case "unread":
            consider(viewer.unread)
            break
          case "starred":
            consider(viewer.starred)
            break
          case "mentioned":
            consider(viewer.mentioned)
            break
          case "alerted":
            consider(viewer.alerted)
            break
          case "dm":
            if (history === null) consider(viewer.direct)
            break
          case "followed":
            consider(store.none)
            break
          case "resolved":
            break
        }
        break
      case "Id":
        consider(single(term.messageId))
        break
      case "Has":
      case "Search":
        break
    }
  }
  return best
}

/** The first `limit` rows of `ids` that `accept` keeps, in the walk's order. */
const take = (ids: Iterable<number>, limit: number, accept: (id: number) => MessageRow | undefined): Array<MessageRow> => {
  const out: Array<MessageRow> = []
  if (limit <= 0) return out
  for (const id of ids) {
    const row = accept(id)
    if (row === undefined) continue
    out.push(row)
    if (out.length >= limit) break
  }
  return out
}

const make = (db: MemoryDatabase["Service"]): MessageSearch["Service"] => {
  const store = db.tables.messages
  const facts: MessageFacts = {
    hasReaction: (messageId) => (db.tables.reactions.get(messageId)?.length ?? 0) > 0
  }

  /**
   * The query's test of one message id: the row (message and the viewer's
   * flags, `read | historical` for history without a row) when the message
   * is a candidate of the query and matches `terms`.
   */
  const acceptor = (query: SearchQuery, terms: ReadonlyArray<Term>, history: ReadonlyArray<number> | null) => {
    const rows = store.rowsOf(query.viewerId)
    const historySet = history === null ? null : new Set<number>(history)
    const test = compile(terms, facts)
    return (id: number): MessageRow | undefined => {
      const message = store.examine(id)
      if (message === undefined || message.realm_id !== query.realmId) return undefined
      let flags = rows?.get(id)
      if (flags === undefined) {
        if (historySet === null || message.channel_id === null || !historySet.has(message.channel_id)) return undefined
        flags = HistoricalFlags
      }
      return test(message, flags) ? { message, flags } : undefined
    }
  }

  const firstUnread = (query: SearchQuery): number => {
    const excluded = new Set<number>(query.narrow.firstUnreadExcludedChannelIds)
    const terms: ReadonlyArray<Term> = [...query.narrow.terms, { _tag: "Is", flag: "unread", negated: false }]
    const accept = acceptor(query, terms, null)
    const [found] = take(
      chooseIndex(store, query.viewerId, terms, null).ascending(),
      1,
      (id) => {
        const row = accept(id)
        return row === undefined || (row.message.channel_id !== null && excluded.has(row.message.channel_id))
          ? undefined
          : row
      }
    )
    return found === undefined ? LARGER_THAN_MAX_MESSAGE_ID : found.message.id
  }

  return {
    // Untraced, as the SQL one: inside the span of `Messages.fetch` (or of `MessageFlags`).
    fetchRange: Effect.fnUntraced(function*(query: SearchQuery, options: RangeOptions) {
      const anchor = resolveAnchor(options.anchor, () => firstUnread(query))
      const plan = planRange(anchor, options.numBefore, options.numAfter, options.includeAnchor)
      const terms = query.narrow.terms
      const history = query.historyChannelIds
      const accept = acceptor(query, terms, history)
      const index = chooseIndex(store, query.viewerId, terms, history)
      const fetched: Array<MessageRow> = []
      if (plan.before !== null) {
        const { limit, upTo } = plan.before
        fetched.push(...take(index.descending(upTo ?? undefined), limit, accept))
      }
      if (plan.after !== null) {
        const { from, limit } = plan.after
        fetched.push(...take(index.ascending(from ?? undefined), limit, accept))
      }
      if (plan.exact !== null) {
        const row = accept(plan.exact)
        if (row !== undefined) fetched.push(row)
      }
      return postProcess(fetched.sort(byId), anchor, options.numBefore, options.numAfter)
    }),
    fetchIds: Effect.fn("MessageSearch.fetchIds")(function*(query: SearchQuery, ids: ReadonlyArray<number>) {
      const accept = acceptor(query, query.narrow.terms, query.historyChannelIds)
      const out: Array<MessageRow> = []
      for (const id of Array.from(new Set(ids)).sort((a, b) => a - b)) {
        const row = accept(id)
        if (row !== undefined) out.push(row)
      }
      return out
    })
  }
}

/** Over the MemoryDatabase tables. */
export const layer: Layer.Layer<MessageSearch, never, MemoryDatabase> = Layer.effect(
  MessageSearch,
  Effect.gen(function*() {
    const db = yield* MemoryDatabase
    return MessageSearch.of(make(db))
  })
)
