/**
 * A user's topic policies and muted users (port). Implemented by
 * `memory/MemoryMutingRepo.ts` and `sql/SqlMutingRepo.ts`.
 *
 * The writes answer whether they changed anything, decided by the write
 * itself (a conflict-aware insert, a delete that counts), so two identical
 * requests at once on PostgreSQL see one change between them.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ChannelId, MessageId, UserId } from "../domain/Ids.ts"
import type { MutedUser, UserTopic, VisibilityPolicy } from "../domain/Muting.ts"

/** @category services */
export class MutingRepo extends Context.Service<MutingRepo, {
  /**
   * Sets the policy of a topic (matched case-insensitively; a new row keeps
   * `topic_name` as given, an existing one its first spelling). False when
   * the topic already had this policy (nothing written).
   */
  setTopicPolicy(row: UserTopic): Effect.Effect<boolean>
  /** Removes a topic's policy; false when it had none. */
  clearTopicPolicy(userId: UserId, channelId: ChannelId, topic: string): Effect.Effect<boolean>
  /** Every user's policy of a topic (matched case-insensitively), by user id; one read. */
  topicPolicies(channelId: ChannelId, topic: string): Effect.Effect<ReadonlyArray<UserTopic>>
  /**
   * Sets each user's policy of one topic in one write (as `setTopicPolicy`
   * does for one); answers the users whose row changed, ascending.
   */
  setTopicPolicies(
    channelId: ChannelId,
    topic: string,
    policies: ReadonlyArray<{ readonly user_id: UserId; readonly visibility_policy: VisibilityPolicy }>,
    lastUpdated: number
  ): Effect.Effect<ReadonlyArray<UserId>>
  /** Removes the users' policies of one topic in one write; answers the users who had one, ascending. */
  clearTopicPolicies(userIds: ReadonlyArray<UserId>, channelId: ChannelId, topic: string): Effect.Effect<ReadonlyArray<UserId>>
  /**
   * The user's topic policies, by channel id then lower-cased topic in code
   * point order (whatever the database's collation).
   */
  listTopics(userId: UserId): Effect.Effect<ReadonlyArray<UserTopic>>
  /**
   * Mutes; false when already muted (nothing written). Mutes are part of an
   * organization's access state (`AccessContext.mutes`): mute and unmute
   * move its access version.
   */
  mute(row: MutedUser): Effect.Effect<boolean>
  /** Unmutes; false when not muted. */
  unmute(userId: UserId, mutedUserId: UserId): Effect.Effect<boolean>
  /**
   * The users each of `users` muted (users who muted nobody are absent), in
   * one read whatever their number; sends and read receipts decide from it.
   */
  listMutesByUsers(users: ReadonlyArray<UserId>): Effect.Effect<ReadonlyMap<UserId, ReadonlySet<UserId>>>
  /** The users the user muted, by muted user id. */
  listMuted(userId: UserId): Effect.Effect<ReadonlyArray<MutedUser>>
  /** The ids of the user's unread messages sent by `senderId`, ascending. */
  unreadFrom(userId: UserId, senderId: UserId): Effect.Effect<ReadonlyArray<MessageId>>
}>()("teamchat/core/ports/MutingRepo") {}
