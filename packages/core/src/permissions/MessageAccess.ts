/**
 * Who may act on one existing message (Zulip's `has_message_access`, for
 * reactions and the other actions on a message), and who hears of such
 * actions (`event_recipient_ids_for_action_on_messages`). Pure rules over
 * what the caller read.
 *
 * @since 0.1.0
 */
import { isGuest } from "../domain/Role.ts"
import type { UserId } from "../domain/Ids.ts"
import { hasContentAccess, isPublic } from "./ChannelAccess.ts"
import type { ChannelAccessInput } from "./ChannelAccess.ts"

/** @category models */
export interface MessageAccessInput {
  /** Whether the user has a row of the message (received it, or a historical row). */
  readonly hasRow: boolean
  /** The user and the message's channel; undefined for a direct message. */
  readonly channel: ChannelAccessInput | undefined
}

/**
 * A direct message: only with a row. A channel message: a public channel
 * for a non-guest; otherwise content access, and with protected history
 * also a row (the user received it).
 *
 * @category predicates
 * @since 0.1.0
 */
export const hasMessageAccess = ({ channel, hasRow }: MessageAccessInput): boolean => {
  if (channel === undefined) return hasRow
  if (!channel.channel.history_public_to_subscribers && !hasRow) return false
  if (isPublic(channel.channel) && !isGuest(channel.user.role) && channel.user.is_active) return true
  return hasContentAccess(channel)
}

/** @category models */
export interface ActionAudienceInput {
  /** Users with a row of the message. */
  readonly rowHolders: ReadonlyArray<UserId>
  /** The message's channel and its subscribers; undefined for a direct message. */
  readonly channel: {
    readonly invite_only: boolean
    readonly history_public_to_subscribers: boolean
    readonly subscribers: ReadonlySet<UserId>
    /** Whether a user is a guest (guests with a row of a public channel's message hear nothing unsubscribed). */
    readonly isGuest: (userId: UserId) => boolean
  } | undefined
}

/**
 * Who hears of an action on a message, ascending: a direct message's
 * recipients; a public channel's subscribers and the non-guests with a
 * row; a private channel's subscribers, only those with a row when its
 * history is protected.
 *
 * @category audiences
 * @since 0.1.0
 */
export const actionAudience = ({ channel, rowHolders }: ActionAudienceInput): ReadonlyArray<UserId> => {
  const out = new Set<UserId>()
  if (channel === undefined) {
    for (const id of rowHolders) out.add(id)
  } else if (!channel.history_public_to_subscribers) {
    for (const id of rowHolders) if (channel.subscribers.has(id)) out.add(id)
  } else {
    for (const id of channel.subscribers) out.add(id)
    if (!channel.invite_only) for (const id of rowHolders) if (!channel.isGuest(id)) out.add(id)
  }
  return Array.from(out).sort((a, b) => a - b)
}
