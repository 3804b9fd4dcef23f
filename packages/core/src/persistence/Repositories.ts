/**
 * Persistence ports. Each repository is a service with an in-memory and a SQL
 * implementation (PostgreSQL dialect, on PGlite or a real server); the
 * contract suite in test/persistence runs the same assertions on all three.
 *
 * Repositories do no permission or validation work: services check first,
 * inside a transaction. Storage failures are defects.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { Channel, Subscription } from "../domain/Channel.ts"
import type { ChannelId, GroupId, RealmId, UserId } from "../domain/Ids.ts"
import type { Realm } from "../domain/Realm.ts"
import type { User } from "../domain/User.ts"
import type { GroupMembership, UserGroup } from "../domain/UserGroup.ts"

/** A record before its id is assigned. @category models */
export type Insert<A extends { readonly id: unknown }> = Omit<A, "id">

/** @category services */
export class RealmRepo extends Context.Service<RealmRepo, {
  insert(realm: Insert<Realm>): Effect.Effect<Realm>
  update(realm: Realm): Effect.Effect<void>
  findById(id: RealmId): Effect.Effect<Realm | undefined>
  findByStringId(stringId: string): Effect.Effect<Realm | undefined>
  list: Effect.Effect<ReadonlyArray<Realm>>
}>()("teamchat/core/persistence/RealmRepo") {}

/** @category services */
export class UserRepo extends Context.Service<UserRepo, {
  /** `make` receives the new id, so derived fields (the placeholder email) can use it. */
  insert(make: (id: UserId) => Insert<User>): Effect.Effect<User>
  update(user: User): Effect.Effect<void>
  findById(id: UserId): Effect.Effect<User | undefined>
  /** Case-insensitive match on the real address within one organization. */
  findByDeliveryEmail(realmId: RealmId, email: string): Effect.Effect<User | undefined>
  findByApiKey(apiKey: string): Effect.Effect<User | undefined>
  /** Every user of the organization, bots and deactivated users included, by id. */
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<User>>
}>()("teamchat/core/persistence/UserRepo") {}

/** @category services */
export class GroupRepo extends Context.Service<GroupRepo, {
  insert(group: Insert<UserGroup>): Effect.Effect<UserGroup>
  update(group: UserGroup): Effect.Effect<void>
  findById(id: GroupId): Effect.Effect<UserGroup | undefined>
  findByName(realmId: RealmId, name: string): Effect.Effect<UserGroup | undefined>
  /** Every group of the organization, system groups included, by id. */
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<UserGroup>>
  addMembers(groupId: GroupId, userIds: ReadonlyArray<UserId>): Effect.Effect<void>
  removeMembers(groupId: GroupId, userIds: ReadonlyArray<UserId>): Effect.Effect<void>
  addSubgroups(groupId: GroupId, subgroupIds: ReadonlyArray<GroupId>): Effect.Effect<void>
  removeSubgroups(groupId: GroupId, subgroupIds: ReadonlyArray<GroupId>): Effect.Effect<void>
  /** The direct membership edges of every group of the organization. */
  membership(realmId: RealmId): Effect.Effect<GroupMembership>
}>()("teamchat/core/persistence/GroupRepo") {}

/** @category services */
export class ChannelRepo extends Context.Service<ChannelRepo, {
  insert(channel: Insert<Channel>): Effect.Effect<Channel>
  update(channel: Channel): Effect.Effect<void>
  findById(id: ChannelId): Effect.Effect<Channel | undefined>
  /** Case-insensitive name match within one organization. */
  findByName(realmId: RealmId, name: string): Effect.Effect<Channel | undefined>
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<Channel>>
}>()("teamchat/core/persistence/ChannelRepo") {}

/** @category services */
export class SubscriptionRepo extends Context.Service<SubscriptionRepo, {
  /** Inserts or replaces the row for (user_id, channel_id). */
  upsert(subscription: Subscription): Effect.Effect<void>
  find(userId: UserId, channelId: ChannelId): Effect.Effect<Subscription | undefined>
  /** Rows of one user, active or not, by channel id. */
  listByUser(userId: UserId): Effect.Effect<ReadonlyArray<Subscription>>
  /** Rows of one channel, active or not, by user id. */
  listByChannel(channelId: ChannelId): Effect.Effect<ReadonlyArray<Subscription>>
  /** Rows of every channel of the organization, by channel id then user id. */
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<Subscription>>
}>()("teamchat/core/persistence/SubscriptionRepo") {}

/**
 * Per-user settings, stored as the values that differ from the defaults
 * (see `domain/UserSettings.ts`).
 *
 * @category services
 */
export class UserSettingsRepo extends Context.Service<UserSettingsRepo, {
  /** The stored overrides; `{}` for a user who changed nothing. */
  get(userId: UserId): Effect.Effect<Readonly<Record<string, unknown>>>
  set(userId: UserId, overrides: Readonly<Record<string, unknown>>): Effect.Effect<void>
}>()("teamchat/core/persistence/UserSettingsRepo") {}

/** @category services */
export class AlertWordRepo extends Context.Service<AlertWordRepo, {
  /** The user's alert words, in the order they were added. */
  list(userId: UserId): Effect.Effect<ReadonlyArray<string>>
  /** Adds words not present yet (compared case-insensitively). */
  add(userId: UserId, words: ReadonlyArray<string>): Effect.Effect<void>
  /** Removes words, compared case-insensitively. */
  remove(userId: UserId, words: ReadonlyArray<string>): Effect.Effect<void>
}>()("teamchat/core/persistence/AlertWordRepo") {}
