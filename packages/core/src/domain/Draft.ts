/**
 * Drafts: a message being composed, kept on the server so that a user's
 * clients share it (Zulip's `Draft` row), and how it reads through the API
 * (GET /drafts, register's `drafts`, the `drafts` events).
 *
 * A draft is addressed to a channel (`stream`: `to` is the channel id and
 * `topic` the tentative topic), to people (`private`: `to` is the other
 * participants, or the user alone for a note to self) or to nobody yet
 * (`""`: no `to`, no topic).
 *
 * @since 0.1.0
 */
import { DraftId } from "./Ids.ts"
import type { UserId } from "./Ids.ts"

/** The id and its checked constructor live with every other id, in `Ids.ts`. @category ids */
export { DraftId, draftId } from "./Ids.ts"

/** `""` (unaddressed), `stream` or `private`. @category models */
export type DraftType = "" | "stream" | "private"

/** The draft types clients may send. @category constants */
export const DraftTypes: ReadonlyArray<DraftType> = ["", "stream", "private"]

/** @category models */
export interface Draft {
  readonly id: DraftId
  readonly user_id: UserId
  readonly type: DraftType
  /**
   * `stream`: the channel id. `private`: the participants other than the
   * user, ascending (the user alone for a note to self). `""`: none.
   */
  readonly to: ReadonlyArray<number>
  /** `stream` only; "" otherwise. */
  readonly topic: string
  readonly content: string
  /** Seconds since the epoch, to the microsecond (Zulip keeps a datetime). */
  readonly last_edit_time: number
}

/** A draft as the API shows it. @category models */
export interface ApiDraft {
  readonly id: number
  readonly type: DraftType
  readonly to: ReadonlyArray<number>
  readonly topic: string
  readonly content: string
  /** Whole seconds (the stored time, cut). */
  readonly timestamp: number
}

/** Zulip's `Draft.to_dict`. @category views */
export const toApiDraft = (draft: Draft): ApiDraft => ({
  id: draft.id,
  type: draft.type,
  to: draft.to,
  topic: draft.topic,
  content: draft.content,
  timestamp: Math.trunc(draft.last_edit_time)
})

/** How many drafts register sends at most, the most recently edited first (Zulip's setting). @category constants */
export const MaxDraftsInRegister = 1000

/**
 * The latest `timestamp` a client may send: the end of year 9999, the last
 * second Zulip's datetimes can hold.
 *
 * @category constants
 */
export const MaxDraftTimestamp = 253402300799

/** Zulip's `round(timestamp, 6)`: the stored time keeps microseconds. @category constructors */
export const editTime = (seconds: number): number => Math.round(seconds * 1e6) / 1e6

/**
 * Register's and GET /drafts' orders: GET lists by edit time, oldest first;
 * register sends the newest first. Ties go by id.
 *
 * @category orders
 */
export const byEditTime = (a: Draft, b: Draft): number => a.last_edit_time - b.last_edit_time || a.id - b.id
