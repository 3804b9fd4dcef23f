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
import type { ChannelId, GroupId, MessageId, RealmId, UserId } from "../domain/Ids.ts"
import type { Message, Reaction, UserMessage } from "../domain/Message.ts"
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
}>()("teamchat/core/ports/RealmRepo") {}

/** @category services */
export class UserRepo extends Context.Service<UserRepo, {
  /** `make` receives the new id, so derived fields (the placeholder email) can use it. */
  insert(make: (id: UserId) => Insert<User>): Effect.Effect<User>
  update(user: User): Effect.Effect<void>
  findById(id: UserId): Effect.Effect<User | undefined>
  /**
   * `findById` under a row lock held until the current transaction ends:
   * every read that a write of the row is computed from, so a concurrent
   * write waits and then sees this one (no update lost to a stale read).
   * Lock order: the organization-wide locks (`lockRoles`, `lockAddresses`)
   * first, then user rows.
   */
  findByIdForUpdate(id: UserId): Effect.Effect<User | undefined>
  /** Case-insensitive match on the real address within one organization. */
  findByDeliveryEmail(realmId: RealmId, email: string): Effect.Effect<User | undefined>
  findByApiKey(apiKey: string): Effect.Effect<User | undefined>
  /** `findByApiKey` with the user's organization, in one read (every authenticated request does this). */
  findByApiKeyWithRealm(apiKey: string): Effect.Effect<{ readonly user: User; readonly realm: Realm } | undefined>
  /** Every user of the organization, bots and deactivated users included, by id. */
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<User>>
  /**
   * Serialises the organization's address claims (new accounts, email
   * changes) until the current transaction ends, so an address checked free
   * stays free until it is written. A no-op where transactions already run
   * one at a time.
   */
  lockAddresses(realmId: RealmId): Effect.Effect<void>
  /**
   * Serialises the organization's role changes and (de)activations until
   * the current transaction ends, so the active owners a change counted
   * are still there when it commits (the organization keeps an owner).
   * Taken before any user row. A no-op where transactions already run one
   * at a time.
   */
  lockRoles(realmId: RealmId): Effect.Effect<void>
}>()("teamchat/core/ports/UserRepo") {}

/** @category services */
export class GroupRepo extends Context.Service<GroupRepo, {
  /** Inserts a group, with its first direct members and subgroups when given, as one write. */
  insert(
    group: Insert<UserGroup>,
    direct?: { readonly members: ReadonlyArray<UserId>; readonly subgroups: ReadonlyArray<GroupId> }
  ): Effect.Effect<UserGroup>
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
  /**
   * Serialises the organization's group writes until the current transaction
   * ends, so what a write checked (a name free, an expected setting value,
   * no subgroup cycle) still holds when it is written. A no-op where
   * transactions already run one at a time.
   */
  lockGroups(realmId: RealmId): Effect.Effect<void>
}>()("teamchat/core/ports/GroupRepo") {}

/** @category services */
export class ChannelRepo extends Context.Service<ChannelRepo, {
  insert(channel: Insert<Channel>): Effect.Effect<Channel>
  /** Inserts several channels in one write; returns them in the order given. */
  insertMany(channels: ReadonlyArray<Insert<Channel>>): Effect.Effect<ReadonlyArray<Channel>>
  update(channel: Channel): Effect.Effect<void>
  findById(id: ChannelId): Effect.Effect<Channel | undefined>
  /** Case-insensitive name match within one organization. */
  findByName(realmId: RealmId, name: string): Effect.Effect<Channel | undefined>
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<Channel>>
  /**
   * Serialises the organization's channel-name claims (creations, renames)
   * until the current transaction ends, so a name checked free stays free
   * until it is written. A no-op where transactions already run one at a time.
   */
  lockNames(realmId: RealmId): Effect.Effect<void>
}>()("teamchat/core/ports/ChannelRepo") {}

/** @category services */
export class SubscriptionRepo extends Context.Service<SubscriptionRepo, {
  /** Inserts or replaces the row for (user_id, channel_id). */
  upsert(subscription: Subscription): Effect.Effect<void>
  /** `upsert` of several rows in one write (at most one row per user and channel). */
  upsertMany(subscriptions: ReadonlyArray<Subscription>): Effect.Effect<void>
  find(userId: UserId, channelId: ChannelId): Effect.Effect<Subscription | undefined>
  /** Rows of one user, active or not, by channel id. */
  listByUser(userId: UserId): Effect.Effect<ReadonlyArray<Subscription>>
  /** Rows of several users, active or not, by channel id then user id. */
  listByUsers(userIds: ReadonlyArray<UserId>): Effect.Effect<ReadonlyArray<Subscription>>
  /** Rows of one channel, active or not, by user id. */
  listByChannel(channelId: ChannelId): Effect.Effect<ReadonlyArray<Subscription>>
  /** Rows of every channel of the organization, by channel id then user id. */
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<Subscription>>
}>()("teamchat/core/ports/SubscriptionRepo") {}

/**
 * Per-user settings, stored as the values that differ from the defaults
 * (see `domain/UserSettings.ts`).
 *
 * @category services
 */
export class UserSettingsRepo extends Context.Service<UserSettingsRepo, {
  /** The stored overrides; `{}` for a user who changed nothing. */
  get(userId: UserId): Effect.Effect<Readonly<Record<string, unknown>>>
  /** The stored overrides of each of these users that has any, by user id. */
  getMany(userIds: ReadonlyArray<UserId>): Effect.Effect<ReadonlyMap<UserId, Readonly<Record<string, unknown>>>>
  set(userId: UserId, overrides: Readonly<Record<string, unknown>>): Effect.Effect<void>
}>()("teamchat/core/ports/UserSettingsRepo") {}

/** @category services */
export class AlertWordRepo extends Context.Service<AlertWordRepo, {
  /** The user's alert words, in the order they were added. */
  list(userId: UserId): Effect.Effect<ReadonlyArray<string>>
  /** The alert words of several users (users without any are left out). */
  listByUsers(userIds: ReadonlyArray<UserId>): Effect.Effect<ReadonlyMap<UserId, ReadonlyArray<string>>>
  /** Adds words not present yet (compared case-insensitively). */
  add(userId: UserId, words: ReadonlyArray<string>): Effect.Effect<void>
  /** Removes words, compared case-insensitively. */
  remove(userId: UserId, words: ReadonlyArray<string>): Effect.Effect<void>
}>()("teamchat/core/ports/AlertWordRepo") {}

/**
 * Reads of the messages and their per-user rows (flags). Every write is the
 * `MessageStore` port's; narrowed, anchored reads are the `MessageSearch`
 * port's (see `narrow/`).
 *
 * @category services
 */
export class MessageRepo extends Context.Service<MessageRepo, {
  findById(id: MessageId): Effect.Effect<Message | undefined>
  /**
   * The message with its row locked until the transaction ends (on SQL
   * `FOR NO KEY UPDATE`): writes about one message (reactions, edits) run
   * one at a time, and a deletion waits for them or they find the message gone.
   */
  findByIdForUpdate(id: MessageId): Effect.Effect<Message | undefined>
  /** The reactions to the messages among `ids`, by message id, then in the order they were added. */
  reactions(ids: ReadonlyArray<MessageId>): Effect.Effect<ReadonlyArray<Reaction>>
  /** The messages that exist among `ids`, by id. */
  findByIds(ids: ReadonlyArray<MessageId>): Effect.Effect<ReadonlyArray<Message>>
  /**
   * `findByIds` with the messages locked until the transaction ends, in id
   * order: `update` to delete them (on PostgreSQL `FOR UPDATE`), `share` to
   * add rows to them (`FOR KEY SHARE`, what the rows' foreign key takes
   * anyway, only earlier). A deletion and a write that adds rows thus run one
   * after the other, and the later one finds the message gone rather than
   * failing on the foreign key.
   */
  findByIdsLocked(ids: ReadonlyArray<MessageId>, mode: "update" | "share"): Effect.Effect<ReadonlyArray<Message>>
  /** The user's rows among `ids`, by message id. */
  userMessages(userId: UserId, ids: ReadonlyArray<MessageId>): Effect.Effect<ReadonlyArray<UserMessage>>
  /** Every row of a message, by user id. */
  recipients(messageId: MessageId): Effect.Effect<ReadonlyArray<UserMessage>>
  /** The users with a row for any of these messages, ascending (one read however many messages). */
  usersWithRows(ids: ReadonlyArray<MessageId>): Effect.Effect<ReadonlyArray<UserId>>
  /**
   * The user's rows with every bit of `mask` equal to the same bits of
   * `value`, ascending by message id, with their messages. E.g. unread:
   * mask=read, value=0; starred: mask=starred, value=starred.
   */
  listByFlags(
    userId: UserId,
    mask: number,
    value: number
  ): Effect.Effect<ReadonlyArray<{ readonly message: Message; readonly flags: number }>>
  /** Whether the user has a row of a message in the channel topic (case-insensitive). */
  userHasTopic(userId: UserId, channelId: ChannelId, topic: string): Effect.Effect<boolean>
  /** Ids of a channel topic (case-insensitive), newest first, at most `limit`. */
  topicMessageIds(channelId: ChannelId, topic: string, limit: number): Effect.Effect<ReadonlyArray<MessageId>>
  /**
   * A channel's topics as stored (exact spelling), each with its newest
   * message id; with `receivedBy`, only messages that user has a row for.
   */
  channelTopics(
    channelId: ChannelId,
    receivedBy: UserId | null
  ): Effect.Effect<ReadonlyArray<{ readonly topic: string; readonly max_id: MessageId }>>
  /** The oldest message id of a channel, null when it has none. */
  oldestInChannel(channelId: ChannelId): Effect.Effect<MessageId | null>
  /** The highest message id among the user's rows, -1 when none. */
  maxUserMessageId(userId: UserId): Effect.Effect<number>
  /**
   * The user's direct-message conversations: for each, the participants and
   * the newest message id, newest first, at most `limit`.
   */
  recentDmConversations(
    userId: UserId,
    limit: number
  ): Effect.Effect<ReadonlyArray<{ readonly dm_user_ids: ReadonlyArray<UserId>; readonly max_message_id: MessageId }>>
}>()("teamchat/core/ports/MessageRepo") {}
