/**
 * The events of subscription changes, computed from a read of the
 * organization before and after the change (Zulip's bulk_add_subscriptions
 * and bulk_remove_subscriptions):
 *
 * - `stream create` for users who gain metadata access to a channel,
 *   `stream delete` for users who lose it;
 * - `subscription add` (full subscription objects, with subscribers) /
 *   `subscription remove` to the users whose subscriptions changed;
 * - `peer_add` / `peer_remove` to the other users who can see the
 *   channel's subscribers;
 * - `realm_user add` / `remove` to users with limited user access who gain
 *   or lose access to someone.
 *
 * @internal
 */
import type { Channel, Subscription } from "../../domain/Channel.ts"
import type { ChannelId, UserId } from "../../domain/Ids.ts"
import type { Realm } from "../../domain/Realm.ts"
import type { User } from "../../domain/User.ts"
import type { Publication } from "./Events.ts"
import { Audience } from "../../domain/Event.ts"
import { toApiChannel, toApiSubscription } from "../../views/ChannelView.ts"
import { toApiUser } from "../../views/UserView.ts"
import type { AccessContext } from "../internal/access.ts"
import {
  canAccessUser,
  canSeeChannel,
  hasFullUserAccess,
  metadataViewers,
  postPolicyGroupsIn,
  subscribersOf
} from "../internal/access.ts"

const ascending = (a: number, b: number) => a - b

export const activeSubscriberIds = (ctx: AccessContext, channelId: ChannelId): Array<number> =>
  Array.from(subscribersOf(ctx, channelId)).filter((id) => ctx.state.usersById.get(id)?.is_active === true).sort(
    ascending
  )

export const streamObject = (ctx: AccessContext, channel: Channel) =>
  toApiChannel(channel, activeSubscriberIds(ctx, channel.id).length, postPolicyGroupsIn(ctx))

/** `stream create` for users who can see the channel after but not before. */
export const streamCreations = (
  before: AccessContext,
  after: AccessContext,
  channels: ReadonlyArray<Channel>
): Array<Publication> => {
  const out: Array<Publication> = []
  for (const channel of channels) {
    const previously = before.channelsById.get(channel.id)
    const current = after.channelsById.get(channel.id) ?? channel
    const gained = metadataViewers(after, current).filter((id) => {
      const user = before.state.usersById.get(id)
      return previously === undefined || user === undefined || !canSeeChannel(before, user, previously)
    })
    if (gained.length === 0) continue
    out.push({
      event: { type: "stream", op: "create", streams: [streamObject(after, current)] },
      audience: Audience.users(gained)
    })
  }
  return out
}

/** `stream delete` for users who could see the channel before but not after. */
export const streamDeletions = (
  before: AccessContext,
  after: AccessContext,
  channels: ReadonlyArray<Channel>
): Array<Publication> => {
  const out: Array<Publication> = []
  for (const channel of channels) {
    const current = after.channelsById.get(channel.id) ?? channel
    const lost = metadataViewers(before, channel).filter((id) => {
      const user = after.state.usersById.get(id)
      return user !== undefined && user.is_active && !canSeeChannel(after, user, current)
    })
    if (lost.length === 0) continue
    out.push({
      event: { type: "stream", op: "delete", streams: [{ stream_id: channel.id }], stream_ids: [channel.id] },
      audience: Audience.users(lost)
    })
  }
  return out
}

/** realm_user add/remove for users with limited access whose access to someone changed. */
export const userAccessChanges = (before: AccessContext, after: AccessContext, realm: Realm): Array<Publication> => {
  const out: Array<Publication> = []
  const limited = after.state.users.filter((u) => u.is_active && !hasFullUserAccess(after, u))
  for (const viewer of limited) {
    const viewerBefore = before.state.usersById.get(viewer.id) ?? viewer
    for (const target of after.state.users) {
      if (target.id === viewer.id || target.is_bot) continue
      const targetBefore = before.state.usersById.get(target.id)
      const had = targetBefore !== undefined && canAccessUser(before, viewerBefore, targetBefore)
      const has = canAccessUser(after, viewer, target)
      if (had === has) continue
      out.push({
        event: has
          ? {
            type: "realm_user",
            op: "add",
            person: toApiUser(realm, viewer, target, { clientGravatar: false, includeCustomProfileFields: true })
          }
          : { type: "realm_user", op: "remove", person: { user_id: target.id, full_name: target.full_name } },
        audience: Audience.users([viewer.id])
      })
    }
  }
  return out
}

/** Events of adding subscriptions: `added` maps each channel to its new subscribers. */
export const subscriptionAddEvents = (
  before: AccessContext,
  after: AccessContext,
  realm: Realm,
  added: ReadonlyMap<ChannelId, ReadonlyArray<UserId>>,
  subscriptionOf: (userId: UserId, channelId: ChannelId) => Subscription | undefined
): Array<Publication> => {
  const groups = postPolicyGroupsIn(after)
  const channels = Array.from(added.keys()).map((id) => after.channelsById.get(id)!).filter((c) => c !== undefined)
  const out: Array<Publication> = [...userAccessChanges(before, after, realm), ...streamCreations(before, after, channels)]
  const byUser = new Map<UserId, Array<Channel>>()
  for (const channel of channels) {
    for (const userId of added.get(channel.id) ?? []) {
      let list = byUser.get(userId)
      if (list === undefined) byUser.set(userId, list = [])
      list.push(channel)
    }
  }
  for (const [userId, list] of Array.from(byUser.entries()).sort((a, b) => a[0] - b[0])) {
    const subscriptions = list.flatMap((channel) => {
      const sub = subscriptionOf(userId, channel.id)
      return sub === undefined
        ? []
        : [toApiSubscription(channel, sub, activeSubscriberIds(after, channel.id), groups, { includeSubscribers: true })]
    })
    if (subscriptions.length === 0) continue
    out.push({ event: { type: "subscription", op: "add", subscriptions }, audience: Audience.users([userId]) })
  }
  for (const channel of channels) {
    const newcomers = [...(added.get(channel.id) ?? [])].sort(ascending)
    if (newcomers.length === 0) continue
    const skip = new Set<number>(newcomers)
    const peers = metadataViewers(after, channel).filter((id) => !skip.has(id))
    if (peers.length === 0) continue
    out.push({
      event: { type: "subscription", op: "peer_add", stream_ids: [channel.id], user_ids: newcomers },
      audience: Audience.users(peers)
    })
  }
  return out
}

/** Events of removing subscriptions: `removed` maps each channel to the users who left it. */
export const subscriptionRemoveEvents = (
  before: AccessContext,
  after: AccessContext,
  realm: Realm,
  removed: ReadonlyMap<ChannelId, ReadonlyArray<UserId>>
): Array<Publication> => {
  const channels = Array.from(removed.keys()).map((id) => before.channelsById.get(id)!).filter((c) => c !== undefined)
  const out: Array<Publication> = []
  const byUser = new Map<UserId, Array<Channel>>()
  for (const channel of channels) {
    for (const userId of removed.get(channel.id) ?? []) {
      let list = byUser.get(userId)
      if (list === undefined) byUser.set(userId, list = [])
      list.push(channel)
    }
  }
  for (const [userId, list] of Array.from(byUser.entries()).sort((a, b) => a[0] - b[0])) {
    out.push({
      event: {
        type: "subscription",
        op: "remove",
        subscriptions: list.map((c) => ({ name: c.name, stream_id: c.id }))
      },
      audience: Audience.users([userId])
    })
  }
  for (const channel of channels) {
    const leavers = [...(removed.get(channel.id) ?? [])].sort(ascending)
    const skip = new Set<number>(leavers)
    const peers = metadataViewers(after, after.channelsById.get(channel.id) ?? channel).filter((id) => !skip.has(id))
    if (peers.length === 0 || leavers.length === 0) continue
    out.push({
      event: { type: "subscription", op: "peer_remove", stream_ids: [channel.id], user_ids: leavers },
      audience: Audience.users(peers)
    })
  }
  out.push(...streamDeletions(before, after, channels), ...userAccessChanges(before, after, realm))
  return out
}

/** A user as the access rules see them. */
export type Viewer = User
