/**
 * One consistent read of an organization for audience and visibility
 * decisions: users and groups, channels and active subscriptions, with the
 * user-access and channel-access rules applied to them.
 *
 * @internal
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AccessContext, AccessRead, RequestAccess } from "../../domain/AccessState.ts"
import type { Channel } from "../../domain/Channel.ts"
import type { ChannelId, RealmId, UserId } from "../../domain/Ids.ts"
import { LruMap } from "../../domain/LruMap.ts"
import type { Principal } from "../../domain/Principal.ts"
import type { Realm } from "../../domain/Realm.ts"
import type { User } from "../../domain/User.ts"
import { hasContentAccess, hasMetadataAccess } from "../../permissions/ChannelAccess.ts"
import type { ChannelAccessInput } from "../../permissions/ChannelAccess.ts"
import { membershipCheck } from "../../permissions/GroupMembership.ts"
import { AccessCache } from "../../ports/AccessCache.ts"
import { MutingRepo } from "../../ports/MutingRepo.ts"
import { AlertWordRepo, ChannelRepo, RealmRepo, SubscriptionRepo } from "../../ports/Repositories.ts"
import type { GroupRepo, UserRepo } from "../../ports/Repositories.ts"
import { systemGroupIdsOf } from "../../domain/UserGroup.ts"
import { postPolicyGroupsOf } from "../../views/ChannelView.ts"
import type { PostPolicyGroups } from "../../views/ChannelView.ts"
import { loadOrganizationState } from "./organizationState.ts"

export type { AccessContext }

const empty: ReadonlySet<never> = new Set()

export const loadAccessContext = Effect.fnUntraced(function*(realm: Realm) {
  const state = yield* loadOrganizationState(realm)
  const channels = yield* (yield* ChannelRepo).listByRealm(realm.id)
  const subs = yield* (yield* SubscriptionRepo).listByRealm(realm.id)
  const alertWords = yield* (yield* AlertWordRepo).listByUsers(state.users.map((u) => u.id))
  const mutes = yield* (yield* MutingRepo).listMutesByUsers(state.users.map((u) => u.id))
  const subscribers = new Map<ChannelId, Set<UserId>>()
  const subscriptions = new Map<UserId, Set<ChannelId>>()
  for (const sub of subs) {
    if (!sub.active) continue
    let a = subscribers.get(sub.channel_id)
    if (a === undefined) subscribers.set(sub.channel_id, a = new Set())
    a.add(sub.user_id)
    let b = subscriptions.get(sub.user_id)
    if (b === undefined) subscriptions.set(sub.user_id, b = new Set())
    b.add(sub.channel_id)
  }
  return {
    state,
    channels,
    channelsById: new Map(channels.map((c) => [c.id, c])),
    subscribers,
    subscriptions,
    alertWords,
    mutes
  } satisfies AccessContext
})

export const subscribersOf = (ctx: AccessContext, channelId: ChannelId): ReadonlySet<UserId> =>
  ctx.subscribers.get(channelId) ?? empty

export const isSubscribed = (ctx: AccessContext, userId: UserId, channelId: ChannelId): boolean =>
  subscribersOf(ctx, channelId).has(userId)

export const accessInput = (ctx: AccessContext, user: User, channel: Channel): ChannelAccessInput => ({
  user,
  channel,
  isSubscribed: isSubscribed(ctx, user.id, channel.id),
  inGroup: membershipCheck(ctx.state.index, user.id)
})

/** Whether the viewer may see every user (the organization's `can_access_all_users_group`). */
export const hasFullUserAccess = (ctx: AccessContext, viewer: User): boolean =>
  ctx.state.index.isMemberOfValue(viewer.id, ctx.state.realm.settings.can_access_all_users_group)

/** Zulip's `check_can_access_user`: full access, oneself, bots, or a shared subscribed channel. */
export const canAccessUser = (ctx: AccessContext, viewer: User, target: User): boolean => {
  if (viewer.id === target.id || target.is_bot || hasFullUserAccess(ctx, viewer)) return true
  const mine = ctx.subscriptions.get(viewer.id) ?? empty
  for (const channelId of ctx.subscriptions.get(target.id) ?? empty) if (mine.has(channelId)) return true
  return false
}

/** The system groups channel views report posting policies by, from the read's groups. */
export const postPolicyGroupsIn = (ctx: AccessContext): PostPolicyGroups => postPolicyGroupsOf(systemGroupIdsOf(ctx.state.groups))

export const activeUsers = (ctx: AccessContext): ReadonlyArray<User> => ctx.state.users.filter((u) => u.is_active)

/** Active users who can access `target`. */
export const usersWhoCanAccess = (ctx: AccessContext, target: User): ReadonlyArray<UserId> =>
  activeUsers(ctx).filter((viewer) => canAccessUser(ctx, viewer, target)).map((u) => u.id)

/** Active users with metadata access to the channel. */
export const metadataViewers = (ctx: AccessContext, channel: Channel): ReadonlyArray<UserId> =>
  activeUsers(ctx).filter((user) => hasMetadataAccess(accessInput(ctx, user, channel))).map((u) => u.id)

export const canSeeChannel = (ctx: AccessContext, user: User, channel: Channel): boolean =>
  hasMetadataAccess(accessInput(ctx, user, channel))

export const canReadChannel = (ctx: AccessContext, user: User, channel: Channel): boolean =>
  hasContentAccess(accessInput(ctx, user, channel))

/**
 * Whether the user may see the channel's subscriber list (Zulip sends peer
 * events to these users): metadata access.
 */
export const canSeeSubscribers = canSeeChannel

/**
 * `loadAccessContext` bound once to the repositories of the layer that builds
 * it, so services call `loadAccess(realm)` instead of providing four
 * repositories at every call. The read is reused while the organization's
 * access version does not move (see `AccessCache`; every backend of this
 * project provides one).
 */
export const makeAccessLoader = Effect.gen(function*() {
  const context = yield* Effect.context<UserRepo | GroupRepo | ChannelRepo | SubscriptionRepo | AlertWordRepo | MutingRepo>()
  const cache = yield* Effect.serviceOption(AccessCache)
  const load = (realm: Realm): Effect.Effect<AccessContext> => Effect.provideContext(loadAccessContext(realm), context)
  if (Option.isNone(cache)) return load
  const { entries, version } = cache.value
  const realms = yield* RealmRepo
  // A cached read outlives the request that made it (authentication reuses
  // its realm and users, see `Authentication`), so it takes the realm as
  // stored now, not the caller's copy, which may predate the version.
  const loadFresh = (realm: Realm): Effect.Effect<AccessContext> =>
    Effect.flatMap(realms.findById(realm.id), (stored) => load(stored ?? realm))
  return (realm: Realm): Effect.Effect<AccessContext> =>
    Effect.flatMap(version(realm.id), (current) => {
      if (current === null) return load(realm)
      const hit = entries.get(realm.id)
      if (hit !== undefined && hit.version === current) return Effect.succeed(hit.value)
      return Effect.tap(loadFresh(realm), (ctx) => Effect.sync(() => entries.set(realm.id, { version: current, value: ctx })))
    })
})

/**
 * The principal's organization for a request's first read: the state
 * authentication found current for this request when it carries one (no
 * second version check), else a read through `load`.
 */
export const accessOfRequest = (
  load: (realm: Realm) => Effect.Effect<AccessContext>,
  principal: Principal
): Effect.Effect<AccessContext> => {
  const access = principal.access
  if (access?.unverified === true) {
    // Only a request that checks the version itself asks for such a
    // principal (`Messages.fetchDeferred`, `Messages.sendDeferred`); anywhere else it would act on a user
    // nobody checked, so it is refused loudly rather than read again.
    return Effect.die(new Error("accessOfRequest: an unverified principal outside GET and POST /messages"))
  }
  const verified = access?.value
  return verified !== undefined && verified.state.realm.id === principal.realm.id
    ? Effect.succeed(verified)
    : load(principal.realm)
}

/** How many API keys `makeCachedKeyLookup` remembers the organization of. */
const rememberedKeys = 10_000

/**
 * Authentication from the cached access read: remembers which
 * organization a key belongs to, and while that organization's access
 * version holds, finds the key's user and the realm in its cached read: one
 * single-row read instead of joining users and realms on every request.
 * Any write to users or realms moves the version, so a regenerated key, a
 * deactivation or a role change is seen by the next request. `find` answers
 * `undefined` when there is nothing to reuse; the caller asks the database
 * and then `remember`s the key.
 */
export const makeCachedKeyLookup = (cache: Context.Service.Shape<typeof AccessCache>) => {
  const realmOfKey = new LruMap<string, RealmId>(rememberedKeys)
  const usersByKey = new WeakMap<AccessContext, ReadonlyMap<string, User>>()
  const remember = (apiKey: string, realmId: RealmId): void => {
    realmOfKey.set(apiKey, realmId)
  }
  const principalOf = (
    apiKey: string,
    hit: AccessRead,
    access: RequestAccess
  ): Principal | undefined => {
    const ctx = hit.value
    let index = usersByKey.get(ctx)
    if (index === undefined) {
      index = new Map(ctx.state.users.map((u) => [u.api_key, u]))
      usersByKey.set(ctx, index)
    }
    const user = index.get(apiKey)
    return user === undefined ? undefined : { user, realm: ctx.state.realm, access }
  }
  // Suspended: the maps are read when the lookup runs, not when it is built.
  const find = (apiKey: string, deferCheck = false): Effect.Effect<Principal | undefined> => Effect.suspend(() => {
    const realmId = realmOfKey.get(apiKey)
    // Nothing cached for the organization: the version would be read for nothing.
    if (realmId === undefined || !cache.entries.has(realmId)) return Effect.undefined
    // The request checks the version in its own first statement (see `AccessCache.deferrable`).
    if (deferCheck && cache.deferrable) {
      return Effect.sync(() => {
        const hit = cache.entries.get(realmId)
        return hit === undefined
          ? undefined
          : principalOf(apiKey, hit, { version: hit.version, value: hit.value, unverified: true })
      })
    }
    return Effect.map(cache.version(realmId), (current) => {
      const hit = cache.entries.get(realmId)
      if (current === null || hit === undefined || hit.version !== current) return undefined
      return principalOf(apiKey, hit, hit)
    })
  })
  return { find, remember }
}
