/**
 * Who may reach one existing message (Zulip's `has_message_access`, and
 * `access_message` with `is_modifying_message`), and who hears of an action
 * on it (`event_recipient_ids_for_action_on_messages`). Pure rules over
 * what the caller read; every message endpoint goes through them.
 *
 * | message                          | read                               | modify (edit, delete, react, submessage) |
 * |----------------------------------|------------------------------------|------------------------------------------|
 * | direct message                   | a row                              | a row                                    |
 * | channel, shared history          | content access                     | content access, channel not archived     |
 * | channel, protected history       | content access and a row           | the same, channel not archived           |
 *
 * @since 0.1.0
 */
import type { Channel } from "../domain/Channel.ts"
import type { UserId } from "../domain/Ids.ts"
import { hasContentAccess, isPublic } from "./ChannelAccess.ts"
import type { ChannelAccessInput } from "./ChannelAccess.ts"

/**
 * Reading a message, or changing it (which also refuses archived channels).
 *
 * @category models
 * @since 0.1.0
 */
export type MessageAccessPurpose = "read" | "modify"

/** @category models */
export interface MessageAccessInput {
  /** Whether the user has a row of the message (received it, or a historical row). */
  readonly hasRow: boolean
  /** The user and the message's channel, with whether it is archived; undefined for a direct message. */
  readonly channel: (ChannelAccessInput & { readonly isArchived: boolean }) | undefined
}

/**
 * A direct message: only with a row. A channel message: content access
 * (public channels for non-guests, subscriptions, the granting groups,
 * web-public channels), and with protected history also a row; a change
 * is refused in an archived channel.
 *
 * @category predicates
 * @since 0.1.0
 */
export const hasMessageAccess = (purpose: MessageAccessPurpose, { channel, hasRow }: MessageAccessInput): boolean => {
  if (channel === undefined) return hasRow
  if (purpose === "modify" && channel.isArchived) return false
  if (!channel.channel.history_public_to_subscribers && !hasRow) return false
  return hasContentAccess(channel)
}

/** @category models */
export interface ActionAudienceInput {
  /** Users with a row of the message(s). */
  readonly rowHolders: Iterable<UserId>
  /** The message's channel and its active subscribers; undefined for a direct message. */
  readonly channel:
    | {
      readonly channel: Pick<Channel, "invite_only" | "history_public_to_subscribers">
      readonly subscribers: Iterable<UserId>
    }
    | undefined
  /** Whether a user is active (only active users hear anything). */
  readonly isActive: (userId: UserId) => boolean
  /** Whether a user is a guest (a guest with a row of a public channel's message hears nothing unsubscribed). */
  readonly isGuest: (userId: UserId) => boolean
}

/**
 * Who hears of an action on a message, active users ascending: a direct
 * message's recipients; a public channel with shared history, its
 * subscribers and the non-guests with a row; a private channel with shared
 * history, its subscribers; with protected history, the subscribers with a row.
 *
 * @category audiences
 * @since 0.1.0
 */
export const actionAudience = ({ channel, isActive, isGuest, rowHolders }: ActionAudienceInput): ReadonlyArray<UserId> => {
  const rows = new Set(rowHolders)
  const out = new Set<UserId>()
  if (channel === undefined) {
    for (const id of rows) out.add(id)
  } else if (!channel.channel.history_public_to_subscribers) {
    for (const id of channel.subscribers) if (rows.has(id)) out.add(id)
  } else {
    for (const id of channel.subscribers) out.add(id)
    if (isPublic(channel.channel)) for (const id of rows) if (!isGuest(id)) out.add(id)
  }
  return Array.from(out).filter(isActive).sort((a, b) => a - b)
}
