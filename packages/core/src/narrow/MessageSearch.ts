/**
 * Narrowed, anchored reads of messages (Zulip's `fetch_messages`), in memory
 * and on SQL.
 *
 * Both layers share the range arithmetic below ({@link planRange},
 * {@link postProcess}, Zulip's `limit_query_to_range` and
 * `post_process_limited_query` with no first visible message id) and differ
 * only in how they find the matching rows, so they return the same messages
 * and flags for the same data.
 *
 * The caller checks the request first: `include_anchor=false` with both
 * `num_before` and `num_after` positive is Zulip's
 * `AnchorExcludedMidRange`; this port applies Zulip's library behaviour
 * whatever it is given.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type * as Statement from "effect/sql/Statement"
import type { ChannelId, RealmId, UserId } from "../domain/Ids.ts"
import type { Message } from "../domain/Message.ts"
import { FlagBits } from "../domain/Message.ts"
import { MemoryDatabase } from "../persistence/MemoryDatabase.ts"
import { decodeMessage, messageSelectList } from "../persistence/SqlRepositories.ts"
import { inIds } from "../sql/SqlArrays.ts"
import type { Narrow } from "./Narrow.ts"
import { compile } from "./NarrowPredicate.ts"
import { narrowCondition } from "./NarrowSql.ts"

/** Zulip's stand-in for "after every message". @category constants */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000

/** Flags of channel history the viewer has no row for. @category constants */
export const HistoricalFlags = FlagBits.read | FlagBits.historical

/** @category models */
export interface SearchQuery {
  readonly realmId: RealmId
  readonly viewerId: UserId
  readonly narrow: Narrow
  /**
   * null: only messages the viewer has rows for (Zulip's UserMessage
   * query). Otherwise also every message of these channels (history the
   * viewer may read without rows; see `Narrow.historyChannelIds`); rows
   * still supply flags, a missing row means `read | historical`.
   */
  readonly historyChannelIds: ReadonlyArray<ChannelId> | null
}

/** @category models */
export type Anchor =
  | { readonly _tag: "id"; readonly id: number }
  | { readonly _tag: "newest" }
  | { readonly _tag: "oldest" }
  | { readonly _tag: "first_unread" }

/** @category models */
export interface RangeOptions {
  readonly anchor: Anchor
  readonly numBefore: number
  readonly numAfter: number
  readonly includeAnchor: boolean
}

/** A message with the viewer's flags for it. @category models */
export interface MessageRow {
  readonly message: Message
  readonly flags: number
}

/** @category models */
export interface FetchedRange {
  /** Ascending by id. */
  readonly messages: ReadonlyArray<MessageRow>
  /** The anchor used: 0 for oldest, LARGER_THAN_MAX_MESSAGE_ID for newest (and first_unread with none unread). */
  readonly anchor: number
  readonly found_anchor: boolean
  readonly found_oldest: boolean
  readonly found_newest: boolean
}

/** @category services */
export class MessageSearch extends Context.Service<MessageSearch, {
  /** Zulip's anchored range of a narrow. */
  fetchRange(query: SearchQuery, options: RangeOptions): Effect.Effect<FetchedRange>
  /** The messages among `ids` that match the query, ascending (Zulip's `message_ids` mode of GET /messages). */
  fetchIds(query: SearchQuery, ids: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<MessageRow>>
}>()("teamchat/core/narrow/MessageSearch") {
  /** Over the MemoryDatabase tables. */
  static readonly layerMemory: Layer.Layer<MessageSearch, never, MemoryDatabase> = Layer.effect(
    MessageSearch,
    Effect.gen(function*() {
      const db = yield* MemoryDatabase
      return MessageSearch.of(makeMemory(db))
    })
  )

  /** Over SqlClient (PostgreSQL or PGlite) with the `0004_messages` schema. */
  static readonly layerSql: Layer.Layer<MessageSearch, never, SqlClient.SqlClient> = Layer.effect(
    MessageSearch,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return MessageSearch.of(makeSql(sql))
    })
  )
}

// ---------------------------------------------------------------------------
// Range arithmetic shared by both layers

/** Zulip's `parse_anchor_value` for ids: below 0 is 0, above the maximum is the maximum. */
const clampAnchor = (id: number): number =>
  id < 0 ? 0 : id > LARGER_THAN_MAX_MESSAGE_ID ? LARGER_THAN_MAX_MESSAGE_ID : Math.trunc(id)

/**
 * The queries Zulip runs for a range: up to `before.limit` rows with
 * `id <= before.upTo` (newest first; no bound when null), up to
 * `after.limit` rows with `id >= after.from` (oldest first), or, when
 * neither side is wanted, the row `id = exact`.
 *
 * @internal
 */
export interface RangePlan {
  readonly before: { readonly upTo: number | null; readonly limit: number } | null
  readonly after: { readonly from: number | null; readonly limit: number } | null
  readonly exact: number | null
}

/** @internal */
export const planRange = (anchor: number, numBefore: number, numAfter: number, includeAnchor: boolean): RangePlan => {
  const left = anchor === 0
  const right = anchor >= LARGER_THAN_MAX_MESSAGE_ID
  const after = right ? 0 : numAfter
  const needBefore = !left && numBefore > 0
  const needAfter = !right && after > 0
  const include = includeAnchor ? 1 : 0
  if (needBefore && needAfter) {
    // The anchor row comes with the after side.
    return {
      before: { upTo: anchor - 1, limit: numBefore },
      after: { from: anchor, limit: after + 1 },
      exact: null
    }
  }
  if (needBefore) {
    return {
      before: right ? { upTo: null, limit: numBefore } : { upTo: anchor - 1 + include, limit: numBefore + include },
      after: null,
      exact: null
    }
  }
  if (needAfter) {
    return {
      before: null,
      after: left ? { from: null, limit: after + include } : { from: anchor + 1 - include, limit: after + include },
      exact: null
    }
  }
  return { before: null, after: null, exact: anchor }
}

/**
 * Zulip's `post_process_limited_query`: trims the extra rows and computes
 * the found_* flags. `rows` ascending.
 *
 * @internal
 */
export const postProcess = (
  rows: ReadonlyArray<MessageRow>,
  anchor: number,
  numBefore: number,
  numAfter: number
): FetchedRange => {
  const left = anchor === 0
  const right = anchor >= LARGER_THAN_MAX_MESSAGE_ID
  const after = right ? 0 : numAfter
  let beforeRows = right ? rows : rows.filter((r) => r.message.id < anchor)
  const anchorRows = right ? [] : rows.filter((r) => r.message.id === anchor)
  let afterRows = right ? [] : rows.filter((r) => r.message.id > anchor)
  if (numBefore > 0) beforeRows = beforeRows.slice(-numBefore)
  if (after > 0) afterRows = afterRows.slice(0, after)
  return {
    messages: [...beforeRows, ...anchorRows, ...afterRows],
    anchor,
    found_anchor: anchorRows.length === 1,
    found_oldest: left || beforeRows.length < numBefore,
    found_newest: right || afterRows.length < after
  }
}

const byId = (a: MessageRow, b: MessageRow) => a.message.id - b.message.id

// ---------------------------------------------------------------------------
// Memory

const makeMemory = (db: MemoryDatabase["Service"]): MessageSearch["Service"] => {
  /** Every candidate of the query (rows, plus history when allowed) that matches, ascending. */
  const matching = (query: SearchQuery, rowsOnly: boolean): Array<MessageRow> => {
    const rows = db.tables.userMessages.get(query.viewerId)
    const history = rowsOnly || query.historyChannelIds === null ? null : new Set<number>(query.historyChannelIds)
    const test = compile(query.narrow)
    const out: Array<MessageRow> = []
    for (const message of db.tables.messages.values()) {
      if (message.realm_id !== query.realmId) continue
      let flags = rows?.get(message.id)
      if (flags === undefined) {
        if (history === null || message.channel_id === null || !history.has(message.channel_id)) continue
        flags = HistoricalFlags
      }
      if (test(message, flags)) out.push({ message, flags })
    }
    return out.sort(byId)
  }

  const firstUnread = (query: SearchQuery): number => {
    const excluded = new Set<number>(query.narrow.firstUnreadExcludedChannelIds)
    const found = matching(query, true).find((row) =>
      (row.flags & FlagBits.read) === 0 &&
      (row.message.channel_id === null || !excluded.has(row.message.channel_id))
    )
    return found === undefined ? LARGER_THAN_MAX_MESSAGE_ID : found.message.id
  }

  return {
    fetchRange: Effect.fn("MessageSearch.fetchRange")(function*(query: SearchQuery, options: RangeOptions) {
      const anchor = resolveAnchor(options.anchor, () => firstUnread(query))
      const plan = planRange(anchor, options.numBefore, options.numAfter, options.includeAnchor)
      const rows = matching(query, false)
      const fetched: Array<MessageRow> = []
      if (plan.before !== null) {
        const { upTo, limit } = plan.before
        const side = upTo === null ? rows : rows.filter((r) => r.message.id <= upTo)
        fetched.push(...side.slice(Math.max(0, side.length - limit)))
      }
      if (plan.after !== null) {
        const { from, limit } = plan.after
        const side = from === null ? rows : rows.filter((r) => r.message.id >= from)
        fetched.push(...side.slice(0, limit))
      }
      if (plan.exact !== null) fetched.push(...rows.filter((r) => r.message.id === plan.exact))
      return postProcess(fetched.sort(byId), anchor, options.numBefore, options.numAfter)
    }),
    fetchIds: Effect.fn("MessageSearch.fetchIds")(function*(query: SearchQuery, ids: ReadonlyArray<number>) {
      const wanted = new Set(ids)
      return matching(query, false).filter((r) => wanted.has(r.message.id))
    })
  }
}

/** The numeric anchor; first_unread is computed only when asked for. */
const resolveAnchor = (anchor: Anchor, firstUnread: () => number): number => {
  switch (anchor._tag) {
    case "id":
      return clampAnchor(anchor.id)
    case "newest":
      return LARGER_THAN_MAX_MESSAGE_ID
    case "oldest":
      return 0
    case "first_unread":
      return firstUnread()
  }
}

// ---------------------------------------------------------------------------
// SQL

const makeSql = (sql: SqlClient.SqlClient): MessageSearch["Service"] => {
  const columns = sql.literal(messageSelectList("m"))

  /** FROM, the candidate condition and the flags expression of a query. */
  const source = (query: SearchQuery, rowsOnly: boolean) => {
    if (rowsOnly || query.historyChannelIds === null) {
      return {
        from: sql`user_messages um JOIN messages m ON m.id = um.message_id`,
        where: sql`um.user_id = ${query.viewerId} AND m.realm_id = ${query.realmId}`,
        flags: sql`um.flags`
      }
    }
    return {
      from: sql`messages m LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${query.viewerId}`,
      where: sql`m.realm_id = ${query.realmId} AND (um.user_id IS NOT NULL OR ${
        inIds(sql, "m.channel_id", query.historyChannelIds)
      })`,
      flags: sql`COALESCE(um.flags, ${HistoricalFlags}::integer)`
    }
  }

  type Row = Readonly<Record<string, unknown>>
  const decodeRow = (row: Row): MessageRow => ({ message: decodeMessage(row), flags: Number(row.um_flags) })

  const select = (
    query: SearchQuery,
    extra: Statement.Fragment,
    order: "ASC" | "DESC",
    limit: number | null,
    rowsOnly = false
  ) => {
    const { from, flags, where } = source(query, rowsOnly)
    const condition = narrowCondition(sql, query.narrow, flags)
    const orderBy = sql.literal(order === "ASC" ? "ORDER BY m.id ASC" : "ORDER BY m.id DESC")
    const limitClause = limit === null ? sql.literal("") : sql`LIMIT ${limit}`
    return sql<Row>`
      SELECT ${columns}, ${flags} AS um_flags
      FROM ${from}
      WHERE ${where} AND ${condition} AND ${extra}
      ${orderBy} ${limitClause}`.pipe(
      Effect.map((rows) => rows.map(decodeRow)),
      Effect.orDie
    )
  }

  const firstUnread = Effect.fnUntraced(function*(query: SearchQuery) {
    const excluded = query.narrow.firstUnreadExcludedChannelIds
    const notExcluded = excluded.length === 0
      ? sql.literal("TRUE")
      : sql`(m.channel_id IS NULL OR NOT ${inIds(sql, "m.channel_id", excluded)})`
    const unread = sql`(um.flags & ${FlagBits.read}::integer) = 0 AND ${notExcluded}`
    const rows = yield* select(query, unread, "ASC", 1, true)
    return rows.length === 0 ? LARGER_THAN_MAX_MESSAGE_ID : rows[0]!.message.id
  })

  return {
    fetchRange: Effect.fn("MessageSearch.fetchRange")(function*(query: SearchQuery, options: RangeOptions) {
      const anchor = options.anchor._tag === "first_unread"
        ? yield* firstUnread(query)
        : resolveAnchor(options.anchor, () => LARGER_THAN_MAX_MESSAGE_ID)
      const plan = planRange(anchor, options.numBefore, options.numAfter, options.includeAnchor)
      const fetched: Array<MessageRow> = []
      if (plan.before !== null) {
        const bound = plan.before.upTo === null ? sql.literal("TRUE") : sql`m.id <= ${plan.before.upTo}`
        fetched.push(...(yield* select(query, bound, "DESC", plan.before.limit)))
      }
      if (plan.after !== null) {
        const bound = plan.after.from === null ? sql.literal("TRUE") : sql`m.id >= ${plan.after.from}`
        fetched.push(...(yield* select(query, bound, "ASC", plan.after.limit)))
      }
      if (plan.exact !== null) fetched.push(...(yield* select(query, sql`m.id = ${plan.exact}`, "ASC", null)))
      return postProcess(fetched.sort(byId), anchor, options.numBefore, options.numAfter)
    }),
    fetchIds: Effect.fn("MessageSearch.fetchIds")(function*(query: SearchQuery, ids: ReadonlyArray<number>) {
      const safe = ids.filter((id) => Number.isSafeInteger(id))
      if (safe.length === 0) return []
      return yield* select(query, inIds(sql, "m.id", safe), "ASC", null)
    })
  }
}
