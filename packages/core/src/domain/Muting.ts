/**
 * A user's personal visibility settings: per-topic policies (Zulip's
 * `UserTopic` rows: muted, unmuted, followed) and muted users (Zulip's
 * `MutedUser` rows), and the rule that decides whether an unread channel
 * message counts.
 *
 * @since 0.1.0
 */
import type { ChannelId, UserId } from "./Ids.ts"

/**
 * Zulip's `UserTopic.VisibilityPolicy`: 0 is no policy (the channel's
 * setting applies), never stored.
 *
 * @category constants
 */
export const VisibilityPolicy = {
  inherit: 0,
  muted: 1,
  unmuted: 2,
  followed: 3
} as const

/** @category models */
export type VisibilityPolicy = typeof VisibilityPolicy[keyof typeof VisibilityPolicy]

/** Whether a number is one of the policies. @category predicates */
export const isVisibilityPolicy = (value: number): value is VisibilityPolicy => value === 0 || value === 1 || value === 2 || value === 3

/** @category models */
export interface UserTopic {
  readonly user_id: UserId
  readonly channel_id: ChannelId
  /** As first written; topics match case-insensitively. */
  readonly topic_name: string
  /** 1, 2 or 3. */
  readonly visibility_policy: VisibilityPolicy
  /** Unix time in seconds. */
  readonly last_updated: number
}

/** @category models */
export interface MutedUser {
  readonly user_id: UserId
  readonly muted_user_id: UserId
  /** Unix time in seconds. */
  readonly date_muted: number
}

/** The key of a topic among a user's policies: channel and lower-cased topic. @category constructors */
export const topicKey = (channelId: number, topic: string): string => `${channelId}\u0000${topic.toLowerCase()}`

/**
 * Zulip's `is_row_muted` for unread counts: a topic muted, or in a muted
 * channel unless the topic is unmuted or followed.
 *
 * @category rules
 */
export const isMutedTopic = (channelMuted: boolean, policy: VisibilityPolicy | undefined): boolean =>
  channelMuted ? policy !== VisibilityPolicy.unmuted && policy !== VisibilityPolicy.followed : policy === VisibilityPolicy.muted
