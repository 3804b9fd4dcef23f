/**
 * Who hears of an action on an existing message (a submessage; Zulip also
 * uses it for reactions and deletions): `event_recipient_ids_for_action_on_messages`.
 *
 * | message                                 | who |
 * |-----------------------------------------|-----|
 * | direct message                          | everyone with a row (who received it) |
 * | channel without shared history          | active subscribers who have a row |
 * | private channel with shared history     | active subscribers |
 * | public channel                          | active subscribers, and non-guests with a row (e.g. starred it unsubscribed) |
 *
 * @since 0.1.0
 */
import type { Channel } from "../domain/Channel.ts"
import type { UserId } from "../domain/Ids.ts"

/** What the rule reads. @category models */
export interface MessageAudienceInput {
  /** The message's channel; undefined for a direct message. */
  readonly channel: Pick<Channel, "invite_only" | "history_public_to_subscribers"> | undefined
  /** The channel's subscribers (empty for a direct message). */
  readonly subscribers: Iterable<UserId>
  /** Users with a row for the message. */
  readonly rowUserIds: Iterable<UserId>
  readonly isActive: (userId: UserId) => boolean
  readonly isGuest: (userId: UserId) => boolean
}

/** The users an action on the message is announced to, ascending. @category rules */
export const actionAudience = (input: MessageAudienceInput): ReadonlyArray<UserId> => {
  const rows = new Set(input.rowUserIds)
  const out = new Set<UserId>()
  if (input.channel === undefined) {
    for (const id of rows) out.add(id)
  } else {
    const subscribers = [...input.subscribers].filter(input.isActive)
    if (!input.channel.history_public_to_subscribers) {
      for (const id of subscribers) if (rows.has(id)) out.add(id)
    } else {
      for (const id of subscribers) out.add(id)
      if (!input.channel.invite_only) for (const id of rows) if (!input.isGuest(id)) out.add(id)
    }
  }
  return [...out].sort((a, b) => a - b)
}
