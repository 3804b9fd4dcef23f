/**
 * Who gains or loses messages when they move to another channel (Zulip's
 * `do_update_message` for a channel change), worked out from one read of
 * the organization. Kept apart from the edit itself so the message-access
 * rules it calls (`canReadChannelHistory`) stay the single source.
 *
 * @internal
 */
import type { Channel } from "../../domain/Channel.ts"
import type { UserId } from "../../domain/Ids.ts"
import { isGuest } from "../../domain/Role.ts"
import { subscribersOf } from "./access.ts"
import type { AccessContext } from "./access.ts"
import { canReadChannelHistory } from "./messageAccess.ts"

/** @internal */
export interface ChannelMoveAccess {
  /** Subscribers of the origin not subscribed to the destination: their rows for the moved messages go. */
  readonly losingRows: ReadonlyArray<UserId>
  /** Of those, the ones who cannot read the destination's history: told `delete_message`. */
  readonly losingAccess: ReadonlyArray<UserId>
  /**
   * Destination subscribers who were not origin subscribers, when the
   * destination's history is protected: they get rows (flag `read`), as if
   * they had received the messages.
   */
  readonly gainingRows: ReadonlyArray<UserId>
  /**
   * Who hears `update_message` without a row of theirs: origin subscribers who
   * keep access, and (shared history) destination subscribers except guests
   * who newly see the messages.
   */
  readonly subscribersTold: ReadonlyArray<UserId>
}

const active = (ctx: AccessContext, id: UserId) => ctx.state.usersById.get(id)?.is_active === true

/** @internal */
export const channelMoveAccess = (ctx: AccessContext, origin: Channel, destination: Channel): ChannelMoveAccess => {
  const before = [...subscribersOf(ctx, origin.id)].filter((id) => active(ctx, id))
  const after = [...subscribersOf(ctx, destination.id)].filter((id) => active(ctx, id))
  const wasSubscribed = new Set(before)
  const isSubscribedAfter = new Set(after)
  const losingRows = before.filter((id) => !isSubscribedAfter.has(id))
  const losingAccess = losingRows.filter((id) => {
    const user = ctx.state.usersById.get(id)
    return user === undefined || !canReadChannelHistory(ctx, user, destination.id)
  })
  const lost = new Set(losingAccess)
  const gainingRows = destination.history_public_to_subscribers ? [] : after.filter((id) => !wasSubscribed.has(id))
  const told = new Set(before.filter((id) => !lost.has(id)))
  if (destination.history_public_to_subscribers) {
    for (const id of after) {
      const user = ctx.state.usersById.get(id)
      if (user !== undefined && isGuest(user.role) && !wasSubscribed.has(id)) continue
      told.add(id)
    }
  }
  const ascending = (ids: Iterable<UserId>) => [...ids].sort((a, b) => a - b)
  return {
    losingRows: ascending(losingRows),
    losingAccess: ascending(losingAccess),
    gainingRows: ascending(gainingRows),
    subscribersTold: ascending(told)
  }
}
