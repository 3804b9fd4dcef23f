/**
 * Topic policies and muted users on SQL (`user_topics`, `muted_users`,
 * migration `0020_muting`). Topics are unique per user and channel by
 * `lower(topic_name)`, so the policy write is one conflict-aware insert.
 * Muted users are also read with the organization's access state, so a
 * mute or unmute moves its access version.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { ChannelId, UserId } from "../domain/Ids.ts"
import { FlagBits } from "../domain/Message.ts"
import type { MutedUser, UserTopic, VisibilityPolicy } from "../domain/Muting.ts"
import { AccessCache } from "../ports/AccessCache.ts"
import { MutingRepo } from "../ports/MutingRepo.ts"
import { inIds, jsonList } from "./SqlArrays.ts"

type Row = Readonly<Record<string, unknown>>

const decodeTopic = (row: Row): UserTopic => ({
  user_id: fromRow.userId(Number(row.user_id)),
  channel_id: fromRow.channelId(Number(row.channel_id)),
  topic_name: String(row.topic_name),
  visibility_policy: Number(row.visibility_policy) as VisibilityPolicy,
  last_updated: Number(row.last_updated)
})

const decodeMuted = (row: Row): MutedUser => ({
  user_id: fromRow.userId(Number(row.user_id)),
  muted_user_id: fromRow.userId(Number(row.muted_user_id)),
  date_muted: Number(row.date_muted)
})

/** @category layers */
export const layer: Layer.Layer<MutingRepo, never, SqlClient.SqlClient | AccessCache> = Layer.effect(
  MutingRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { changed } = yield* AccessCache
    /**
     * Mutes are part of the access read (`AccessContext.mutes`) but
     * `muted_users` has no trigger moving the version, so the write moves
     * it itself (the notice goes out at commit, as a trigger's would).
     */
    const accessChanged = (userId: UserId) =>
      Effect.andThen(
        sql`SELECT bump_access_version(realm_id) FROM users WHERE id = ${userId}`,
        changed(undefined)
      )
    return MutingRepo.of({
      setTopicPolicy: Effect.fn("MutingRepo.setTopicPolicy")(function*(row: UserTopic) {
        // A row comes back when inserted or changed; none when the policy was already this one.
        const rows = yield* sql<Row>`
          INSERT INTO user_topics (user_id, channel_id, topic_name, visibility_policy, last_updated)
          VALUES (${row.user_id}, ${row.channel_id}, ${row.topic_name}, ${row.visibility_policy}, ${row.last_updated})
          ON CONFLICT (user_id, channel_id, lower(topic_name)) DO UPDATE SET
            visibility_policy = EXCLUDED.visibility_policy,
            last_updated = EXCLUDED.last_updated
          WHERE user_topics.visibility_policy <> EXCLUDED.visibility_policy
          RETURNING user_id`
        return rows.length > 0
      }, Effect.orDie),
      clearTopicPolicy: Effect.fn("MutingRepo.clearTopicPolicy")(function*(userId: UserId, channelId: ChannelId, topic: string) {
        const rows = yield* sql<Row>`
          DELETE FROM user_topics
          WHERE user_id = ${userId} AND channel_id = ${channelId} AND lower(topic_name) = lower(${topic})
          RETURNING user_id`
        return rows.length > 0
      }, Effect.orDie),
      topicPolicies: Effect.fn("MutingRepo.topicPolicies")(function*(channelId: ChannelId, topic: string) {
        const rows = yield* sql<Row>`
          SELECT * FROM user_topics WHERE channel_id = ${channelId} AND lower(topic_name) = lower(${topic})
          ORDER BY user_id`
        return rows.map(decodeTopic)
      }, Effect.orDie),
      setTopicPolicies: Effect.fn("MutingRepo.setTopicPolicies")(function*(
        channelId: ChannelId,
        topic: string,
        policies: ReadonlyArray<{ readonly user_id: UserId; readonly visibility_policy: VisibilityPolicy }>,
        lastUpdated: number
      ) {
        if (policies.length === 0) return []
        // A row comes back for each user inserted or changed; none for a policy already set.
        const rows = yield* sql<Row>`
          INSERT INTO user_topics (user_id, channel_id, topic_name, visibility_policy, last_updated)
          SELECT p.user_id, ${channelId}, ${topic}, p.visibility_policy, ${lastUpdated}
          FROM jsonb_to_recordset(${jsonList(policies.map((p) => ({ user_id: p.user_id, visibility_policy: p.visibility_policy })))}::jsonb)
            AS p(user_id bigint, visibility_policy smallint)
          ON CONFLICT (user_id, channel_id, lower(topic_name)) DO UPDATE SET
            visibility_policy = EXCLUDED.visibility_policy,
            last_updated = EXCLUDED.last_updated
          WHERE user_topics.visibility_policy <> EXCLUDED.visibility_policy
          RETURNING user_id`
        return rows.map((row) => fromRow.userId(Number(row.user_id))).sort((a, b) => a - b)
      }, Effect.orDie),
      clearTopicPolicies: Effect.fn("MutingRepo.clearTopicPolicies")(function*(
        userIds: ReadonlyArray<UserId>,
        channelId: ChannelId,
        topic: string
      ) {
        if (userIds.length === 0) return []
        const rows = yield* sql<Row>`
          DELETE FROM user_topics
          WHERE ${inIds(sql, "user_id", userIds)} AND channel_id = ${channelId} AND lower(topic_name) = lower(${topic})
          RETURNING user_id`
        return rows.map((row) => fromRow.userId(Number(row.user_id))).sort((a, b) => a - b)
      }, Effect.orDie),
      listTopics: Effect.fn("MutingRepo.listTopics")(function*(userId: UserId) {
        const rows = yield* sql<Row>`
          SELECT * FROM user_topics WHERE user_id = ${userId}
          ORDER BY channel_id, lower(topic_name) COLLATE "C"`
        return rows.map(decodeTopic)
      }, Effect.orDie),
      mute: Effect.fn("MutingRepo.mute")(function*(row: MutedUser) {
        const rows = yield* sql<Row>`
          INSERT INTO muted_users (user_id, muted_user_id, date_muted)
          VALUES (${row.user_id}, ${row.muted_user_id}, ${row.date_muted})
          ON CONFLICT (user_id, muted_user_id) DO NOTHING
          RETURNING user_id`
        if (rows.length === 0) return false
        yield* accessChanged(row.user_id)
        return true
      }, Effect.orDie),
      unmute: Effect.fn("MutingRepo.unmute")(function*(userId: UserId, mutedUserId: UserId) {
        const rows = yield* sql<Row>`
          DELETE FROM muted_users WHERE user_id = ${userId} AND muted_user_id = ${mutedUserId} RETURNING user_id`
        if (rows.length === 0) return false
        yield* accessChanged(userId)
        return true
      }, Effect.orDie),
      listMutesByUsers: Effect.fn("MutingRepo.listMutesByUsers")(function*(users: ReadonlyArray<UserId>) {
        const out = new Map<UserId, Set<UserId>>()
        if (users.length === 0) return out
        const rows = yield* sql<Row>`SELECT user_id, muted_user_id FROM muted_users WHERE ${inIds(sql, "user_id", users)}`
        for (const row of rows) {
          const id = fromRow.userId(Number(row.user_id))
          let set = out.get(id)
          if (set === undefined) out.set(id, set = new Set())
          set.add(fromRow.userId(Number(row.muted_user_id)))
        }
        return out
      }, Effect.orDie),
      listMuted: Effect.fn("MutingRepo.listMuted")(function*(userId: UserId) {
        const rows = yield* sql<Row>`SELECT * FROM muted_users WHERE user_id = ${userId} ORDER BY muted_user_id`
        return rows.map(decodeMuted)
      }, Effect.orDie),
      unreadFrom: Effect.fn("MutingRepo.unreadFrom")(function*(userId: UserId, senderId: UserId) {
        const rows = yield* sql<Row>`
          SELECT um.message_id FROM user_messages um JOIN messages m ON m.id = um.message_id
          WHERE um.user_id = ${userId} AND (um.flags & ${FlagBits.read}) = 0 AND m.sender_id = ${senderId}
          ORDER BY um.message_id`
        return rows.map((row) => fromRow.messageId(Number(row.message_id)))
      }, Effect.orDie)
    })
  })
)
