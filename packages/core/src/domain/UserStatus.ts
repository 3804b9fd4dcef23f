/**
 * A user's status: a short text and an emoji (Zulip's `UserStatus` row), and
 * how it reads through the API (`user_status` in register, GET
 * /users/{id}/status), where the deprecated `away` is the negation of the
 * user's `presence_enabled` setting.
 *
 * @since 0.1.0
 */
import type { ReactionType } from "./Emoji.ts"
import type { UserId } from "./Ids.ts"

/** @category models */
export interface UserStatus {
  readonly user_id: UserId
  /** "" when none. */
  readonly status_text: string
  /** "" when none (then `emoji_code` is "" and `reaction_type` `unicode_emoji`). */
  readonly emoji_name: string
  readonly emoji_code: string
  readonly reaction_type: ReactionType
}

/** `status_text`'s limit, in characters. @category constants */
export const MaxStatusTextLength = 60

/** The status of a user who never set one. @category constructors */
export const emptyStatus = (userId: UserId): UserStatus => ({
  user_id: userId,
  status_text: "",
  emoji_name: "",
  emoji_code: "",
  reaction_type: "unicode_emoji"
})

/** A status as the API shows it: only the keys that are set. @category models */
export interface ApiUserStatus {
  readonly away?: true
  readonly status_text?: string
  readonly emoji_name?: string
  readonly emoji_code?: string
  readonly reaction_type?: ReactionType
}

/** Zulip's `format_user_status`. @category views */
export const toApiStatus = (status: UserStatus, presenceEnabled: boolean): ApiUserStatus => ({
  ...(presenceEnabled ? {} : { away: true }),
  ...(status.status_text === "" ? {} : { status_text: status.status_text }),
  ...(status.emoji_name === ""
    ? {}
    : { emoji_name: status.emoji_name, emoji_code: status.emoji_code, reaction_type: status.reaction_type })
})

/** Whether register's `user_status` leaves the user out (nothing set, presence shared). @category predicates */
export const isUnset = (status: UserStatus, presenceEnabled: boolean): boolean =>
  presenceEnabled && status.status_text === "" && status.emoji_name === "" && status.emoji_code === "" &&
  status.reaction_type === "unicode_emoji"
