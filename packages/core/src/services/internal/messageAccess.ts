/**
 * Which messages a user may read, as the narrow resolver and the message
 * services need it: the channels whose history is open to the user, muted
 * channels, and single-message access (Zulip's `access_message`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { MessageId } from "../../domain/Ids.ts"
import type { ChannelId } from "../../domain/Ids.ts"
import type { Message } from "../../domain/Message.ts"
import { isGuest } from "../../domain/Role.ts"
import type { User } from "../../domain/User.ts"
import type { MessageSearch, RangeOptions } from "../../ports/MessageSearch.ts"
import { parseNarrow, readsMutedChannels, resolveNarrow } from "../../narrow/Narrow.ts"
import type { NarrowContext } from "../../narrow/Narrow.ts"
import { canReadFullHistory, hasContentAccess } from "../../permissions/ChannelAccess.ts"
import type { MessageRepo, SubscriptionRepo } from "../../ports/Repositories.ts"
import { accessInput } from "./access.ts"
import type { AccessContext } from "./access.ts"

/** Whether the user may read a channel's whole history without having received it. */
export const canReadChannelHistory = (ctx: AccessContext, user: User, channelId: ChannelId): boolean => {
  const channel = ctx.channelsById.get(channelId)
  if (channel === undefined) return false
  const input = accessInput(ctx, user, channel)
  return hasContentAccess(input) && canReadFullHistory(input)
}

/**
 * The message if the user may read it: a row of theirs, or channel history
 * open to them; undefined otherwise (also for other organizations).
 */
export const accessibleMessage = Effect.fnUntraced(function*(
  repo: MessageRepo["Service"],
  ctx: AccessContext,
  user: User,
  id: MessageId
) {
  const message = yield* repo.findById(id)
  if (message === undefined || message.realm_id !== ctx.state.realm.id) return undefined
  const rows = yield* repo.userMessages(user.id, [id])
  if (rows.length > 0) return { message, flags: rows[0]!.flags }
  if (message.channel_id !== null && canReadChannelHistory(ctx, user, message.channel_id)) {
    return { message, flags: undefined }
  }
  return undefined
})

/**
 * The channels whose history each user may read, per read of the
 * organization. A read never changes (a change to the organization makes a
 * new one) and one kept read serves many requests, its users included, so
 * every channel's access rules run once per read and user instead of on
 * every GET /messages (hundreds of channels in a large organization).
 */
const historyByRead = new WeakMap<AccessContext, WeakMap<User, ReadonlySet<ChannelId>>>()

const historyChannels = (ctx: AccessContext, user: User): ReadonlySet<ChannelId> => {
  let byUser = historyByRead.get(ctx)
  if (byUser === undefined) historyByRead.set(ctx, byUser = new WeakMap())
  let history = byUser.get(user)
  if (history === undefined) {
    const readable = new Set<ChannelId>()
    for (const channel of ctx.channels) if (canReadChannelHistory(ctx, user, channel.id)) readable.add(channel.id)
    byUser.set(user, history = readable)
  }
  return history
}

/** What the narrow resolver needs to know about the viewer. */
export const narrowContext = Effect.fnUntraced(function*(
  ctx: AccessContext,
  user: User,
  repos: { readonly messages: MessageRepo["Service"]; readonly subscriptions: SubscriptionRepo["Service"] },
  /** False when the narrow never looks at muted channels (`readsMutedChannels`): their read is skipped. */
  readsMuted = true
) {
  const muted = new Set<ChannelId>()
  // A statement fewer on the hot channel + topic narrow (GET /messages).
  if (readsMuted) {
    for (const sub of yield* repos.subscriptions.listByUser(user.id)) {
      if (sub.active && sub.properties.is_muted) muted.add(sub.channel_id)
    }
  }
  const history = historyChannels(ctx, user)
  return {
    viewerId: user.id,
    users: ctx.state.users,
    usersById: ctx.state.usersById,
    channels: ctx.channels,
    channelsById: ctx.channelsById,
    mutedChannelIds: muted,
    historyChannelIds: history,
    canAccessPublicChannels: !isGuest(user.role),
    accessibleMessage: (id: number) =>
      Option.match(MessageId.makeOption(id), {
        onNone: () => Effect.succeed(undefined),
        onSome: (messageId) =>
          Effect.map(
            accessibleMessage(repos.messages, ctx, user, messageId),
            (found): Message | undefined => found?.message
          )
      })
  } satisfies NarrowContext
})

/**
 * A narrow's anchored range as the user sees it (GET /messages and POST
 * /messages/flags/narrow): the raw narrow parsed and resolved against the
 * organization, then read with the history the user may see.
 */
export const narrowRange = Effect.fnUntraced(function*(
  repos: {
    readonly messages: MessageRepo["Service"]
    readonly subscriptions: SubscriptionRepo["Service"]
    readonly search: MessageSearch["Service"]
  },
  ctx: AccessContext,
  user: User,
  rawNarrow: unknown,
  range: RangeOptions,
  reportAccessVersion = false
) {
  const terms = yield* parseNarrow(rawNarrow)
  const narrow = yield* resolveNarrow(terms, yield* narrowContext(ctx, user, repos, readsMutedChannels(terms)))
  const fetched = yield* repos.search.fetchRange(
    { realmId: ctx.state.realm.id, viewerId: user.id, narrow, historyChannelIds: narrow.historyChannelIds, reportAccessVersion },
    range
  )
  return { narrow, range: fetched }
})

/**
 * The messages among `ids` that match a narrow and that the user received
 * (has a row for), ascending: GET /messages/matches_narrow, Zulip's
 * `messages_in_narrow_backend`, which reads only the user's rows.
 */
export const narrowMatches = Effect.fnUntraced(function*(
  repos: {
    readonly messages: MessageRepo["Service"]
    readonly subscriptions: SubscriptionRepo["Service"]
    readonly search: MessageSearch["Service"]
  },
  ctx: AccessContext,
  user: User,
  rawNarrow: unknown,
  ids: ReadonlyArray<number>
) {
  const terms = yield* parseNarrow(rawNarrow)
  const narrow = yield* resolveNarrow(terms, yield* narrowContext(ctx, user, repos, readsMutedChannels(terms)))
  const rows = yield* repos.search.fetchIds(
    { realmId: ctx.state.realm.id, viewerId: user.id, narrow, historyChannelIds: null },
    ids
  )
  return { narrow, rows }
})

/**
 * The message if the user may change it (delete, and in Zulip edit, react,
 * add a submessage): Zulip's `access_message` with `is_modifying_message`.
 * A direct message needs the user's row; a channel message needs content
 * access to its channel, which must not be archived, and, without public
 * history, the user's row too. The message is given, read (and locked) by
 * the caller; undefined when it may not be changed.
 */
export const modifiableMessage = Effect.fnUntraced(function*(
  repo: MessageRepo["Service"],
  ctx: AccessContext,
  user: User,
  message: Message | undefined
) {
  if (message === undefined || message.realm_id !== ctx.state.realm.id) return undefined
  const hasRow = Effect.map(repo.userMessages(user.id, [message.id]), (rows) => rows.length > 0)
  if (message.channel_id === null) return (yield* hasRow) ? { message, channel: undefined } : undefined
  const channel = ctx.channelsById.get(message.channel_id)
  if (channel === undefined || channel.is_archived) return undefined
  if (!hasContentAccess(accessInput(ctx, user, channel))) return undefined
  if (!channel.history_public_to_subscribers && !(yield* hasRow)) return undefined
  return { message, channel }
})
