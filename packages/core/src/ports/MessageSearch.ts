/**
 * Narrowed, anchored reads of messages (Zulip's `fetch_messages`): the port,
 * implemented in memory (`memory/MemoryMessageSearch.ts`) and on SQL
 * (`sql/SqlMessageSearch.ts`).
 *
 * Both implementations share the range arithmetic below ({@link planRange},
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
import type * as Effect from "effect/Effect"
import type { ChannelId, RealmId, UserId } from "../domain/Ids.ts"
import type { Message } from "../domain/Message.ts"
import { FlagBits } from "../domain/Message.ts"
import type { Narrow } from "../narrow/Narrow.ts"

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
  /**
   * Report the organization's access version as the range's first statement
   * sees it (`FetchedRange.accessVersion`), so a request authenticated from
   * a kept read checks it without a statement of its own (`AccessCache`).
   */
  readonly reportAccessVersion?: boolean
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
  /**
   * With `reportAccessVersion`: the version the first statement that
   * returned rows saw (null: the organization has none); undefined when no
   * statement reported it (none returned rows, or the backend does not).
   */
  readonly accessVersion?: number | null
}

/** @category services */
export class MessageSearch extends Context.Service<MessageSearch, {
  /** Zulip's anchored range of a narrow. */
  fetchRange(query: SearchQuery, options: RangeOptions): Effect.Effect<FetchedRange>
  /** The messages among `ids` that match the query, ascending (Zulip's `message_ids` mode of GET /messages). */
  fetchIds(query: SearchQuery, ids: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<MessageRow>>
}>()("teamchat/core/ports/MessageSearch") {}

// ---------------------------------------------------------------------------
// Range arithmetic shared by every implementation

/** Zulip's `parse_anchor_value` for ids: below 0 is 0, above the maximum is the maximum. */
/** @internal */
export const clampAnchor = (id: number): number =>
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

/** @internal */
export const byId = (a: MessageRow, b: MessageRow) => a.message.id - b.message.id

/** The numeric anchor; first_unread is computed only when asked for. @internal */
export const resolveAnchor = (anchor: Anchor, firstUnread: () => number): number => {
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
