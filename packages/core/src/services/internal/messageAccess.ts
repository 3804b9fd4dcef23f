/**
 * Which messages a user may read, as the narrow resolver and the message
 * services need it: the channels whose history is open to the user, muted
 * channels, single-message access (Zulip's `access_message`) and who hears
 * of an action on a message.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { MessageId } from "../../domain/Ids.ts"
import type { ChannelId, UserId } from "../../domain/Ids.ts"
import type { Channel } from "../../domain/Channel.ts"
import type { Message } from "../../domain/Message.ts"
import { InvalidMessages } from "../../errors/MessageErrors.ts"
import { isGuest } from "../../domain/Role.ts"
import type { User } from "../../domain/User.ts"
import type { MessageSearch, RangeOptions } from "../../ports/MessageSearch.ts"
import { parseNarrow, readsMutedChannels, resolveNarrow } from "../../narrow/Narrow.ts"
import type { NarrowContext } from "../../narrow/Narrow.ts"
import { canReadFullHistory, hasContentAccess } from "../../permissions/ChannelAccess.ts"
import { actionAudience, hasMessageAccess } from "../../permissions/MessageAccess.ts"
import type { MessageAccessPurpose } from "../../permissions/MessageAccess.ts"
import type { MessageRepo, SubscriptionRepo } from "../../ports/Repositories.ts"
import { accessInput, subscribersOf } from "./access.ts"
import type { AccessContext } from "./access.ts"

/** Whether the user may read a channel's whole history without having received it. */
export const canReadChannelHistory = (ctx: AccessContext, user: User, channelId: ChannelId): boolean => {
  const channel = ctx.channelsById.get(channelId)
  if (channel === undefined) return false
  const input = accessInput(ctx, user, channel)
  return hasContentAccess(input) && canReadFullHistory(input)
}

/**
 * Zulip's `access_message`: the message with its channel (undefined for a
 * direct message) and the user's flags (undefined without a row) when the
 * rule of `permissions/MessageAccess.ts` lets the user read or change it;
 * undefined otherwise (also for other organizations). The message is read
 * (and locked, when changing it) by the caller.
 */
export const accessMessage = Effect.fnUntraced(function*(
  repo: MessageRepo["Service"],
  ctx: AccessContext,
  user: User,
  message: Message | undefined,
  purpose: MessageAccessPurpose
) {
  if (message === undefined || message.realm_id !== ctx.state.realm.id) return undefined
  const channel = message.channel_id === null ? undefined : ctx.channelsById.get(message.channel_id)
  if (message.channel_id !== null && channel === undefined) return undefined
  const [row] = yield* repo.userMessages(user.id, [message.id])
  const allowed = hasMessageAccess(purpose, {
    hasRow: row !== undefined,
    channel: channel === undefined ? undefined : { ...accessInput(ctx, user, channel), isArchived: channel.is_archived }
  })
  return allowed ? { message, channel, flags: row?.flags } : undefined
})

/**
 * The message by id, as a request gives it (any number), if the user may
 * read it (GET /messages/{id}, narrows, receipts, edit history); undefined
 * otherwise.
 */
export const accessibleMessage = Effect.fnUntraced(function*(
  repo: MessageRepo["Service"],
  ctx: AccessContext,
  user: User,
  id: number
) {
  const messageId = Option.getOrUndefined(MessageId.makeOption(id))
  if (messageId === undefined) return undefined
  return yield* accessMessage(repo, ctx, user, yield* repo.findById(messageId), "read")
})

/** `accessibleMessage`, or Zulip's "Invalid message(s)" (a missing and a hidden message alike). */
export const readableMessage = Effect.fnUntraced(function*(
  repo: MessageRepo["Service"],
  ctx: AccessContext,
  user: User,
  id: number
) {
  const found = yield* accessibleMessage(repo, ctx, user, id)
  if (found === undefined) return yield* new InvalidMessages()
  return found
})

/** The message, read and locked by the caller, if the user may change it (edit, delete, react, submessage). */
export const modifiableMessage = (
  repo: MessageRepo["Service"],
  ctx: AccessContext,
  user: User,
  message: Message | undefined
) => accessMessage(repo, ctx, user, message, "modify")

/**
 * Who hears of an action on existing messages of one channel (undefined:
 * direct messages): `actionAudience` over the users with a row of any of them.
 */
export const messageActionAudience = Effect.fnUntraced(function*(
  repo: MessageRepo["Service"],
  ctx: AccessContext,
  channel: Channel | undefined,
  ids: ReadonlyArray<MessageId>
) {
  const rowHolders = new Set<UserId>()
  for (const id of ids) for (const row of yield* repo.recipients(id)) rowHolders.add(row.user_id)
  return actionAudience({
    rowHolders,
    channel: channel === undefined ? undefined : { channel, subscribers: subscribersOf(ctx, channel.id) },
    isActive: (id) => ctx.state.usersById.get(id)?.is_active === true,
    isGuest: (id) => {
      const user = ctx.state.usersById.get(id)
      return user === undefined || isGuest(user.role)
    }
  })
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
      Effect.map(accessibleMessage(repos.messages, ctx, user, id), (found): Message | undefined => found?.message)
  } satisfies NarrowContext
})

/** What resolving and reading a narrow needs. */
interface NarrowRepos {
  readonly messages: MessageRepo["Service"]
  readonly subscriptions: SubscriptionRepo["Service"]
  readonly search: MessageSearch["Service"]
}

/** A raw narrow parsed and resolved against the organization as `user` sees it. */
const resolvedNarrow = Effect.fnUntraced(function*(
  repos: NarrowRepos,
  ctx: AccessContext,
  user: User,
  rawNarrow: unknown
) {
  const terms = yield* parseNarrow(rawNarrow)
  return yield* resolveNarrow(terms, yield* narrowContext(ctx, user, repos, readsMutedChannels(terms)))
})

/**
 * A narrow's anchored range as the user sees it (GET /messages and POST
 * /messages/flags/narrow): the raw narrow parsed and resolved against the
 * organization, then read with the history the user may see.
 */
export const narrowRange = Effect.fnUntraced(function*(
  repos: NarrowRepos,
  ctx: AccessContext,
  user: User,
  rawNarrow: unknown,
  range: RangeOptions,
  reportAccessVersion = false
) {
  const narrow = yield* resolvedNarrow(repos, ctx, user, rawNarrow)
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
  repos: NarrowRepos,
  ctx: AccessContext,
  user: User,
  rawNarrow: unknown,
  ids: ReadonlyArray<number>
) {
  const narrow = yield* resolvedNarrow(repos, ctx, user, rawNarrow)
  const rows = yield* repos.search.fetchIds(
    { realmId: ctx.state.realm.id, viewerId: user.id, narrow, historyChannelIds: null },
    ids
  )
  return { narrow, rows }
})
