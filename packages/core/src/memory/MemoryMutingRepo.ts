/**
 * Topic policies and muted users in memory: one map per user, replaced on
 * every write (the journal undoes a write by putting the old map back).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { messageId } from "../domain/Ids.ts"
import type { ChannelId, MessageId, UserId } from "../domain/Ids.ts"
import type { UserTopic } from "../domain/Muting.ts"
import { pgLower } from "../narrow/NarrowPredicate.ts"
import { MutingRepo } from "../ports/MutingRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** Lower-cased as SQL's `lower(topic_name)`, so both backends match the same topics. */
const keyOf = (channelId: number, topic: string): string => `${channelId}\u0000${pgLower(topic)}`

/**
 * Compares by code point, as SQL's `COLLATE "C"` orders UTF-8 text (`<` on
 * strings compares UTF-16 code units, which puts a surrogate pair, as in
 * most emoji, before U+E000–U+FFFF).
 */
const byCodePoint = (x: string, y: string): number => {
  const a = Array.from(x, (ch) => ch.codePointAt(0)!)
  const b = Array.from(y, (ch) => ch.codePointAt(0)!)
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!
  }
  return a.length - b.length
}

const byChannelAndTopic = (a: UserTopic, b: UserTopic): number =>
  a.channel_id !== b.channel_id ? a.channel_id - b.channel_id : byCodePoint(pgLower(a.topic_name), pgLower(b.topic_name))

/** @category layers */
export const layer: Layer.Layer<MutingRepo, never, MemoryDatabase> = Layer.effect(
  MutingRepo,
  MemoryDatabase.useSync((db) => {
    const topics = db.tables.userTopics
    const muted = db.tables.mutedUsers
    return MutingRepo.of({
      setTopicPolicy: (row) =>
        Effect.sync(() => {
          const mine = topics.get(row.user_id) ?? new Map<string, UserTopic>()
          const key = keyOf(row.channel_id, row.topic_name)
          const current = mine.get(key)
          if (current !== undefined && current.visibility_policy === row.visibility_policy) return false
          const next = new Map(mine)
          next.set(
            key,
            current === undefined ? row : { ...current, visibility_policy: row.visibility_policy, last_updated: row.last_updated }
          )
          topics.set(row.user_id, next)
          return true
        }),
      clearTopicPolicy: (userId: UserId, channelId: ChannelId, topic: string) =>
        Effect.sync(() => {
          const mine = topics.get(userId)
          const key = keyOf(channelId, topic)
          if (mine === undefined || !mine.has(key)) return false
          const next = new Map(mine)
          next.delete(key)
          topics.set(userId, next)
          return true
        }),
      topicPolicies: (channelId, topic) =>
        Effect.sync(() => {
          const key = keyOf(channelId, topic)
          const rows: Array<UserTopic> = []
          for (const mine of topics.values()) {
            const row = mine.get(key)
            if (row !== undefined) rows.push(row)
          }
          return rows.sort((a, b) => a.user_id - b.user_id)
        }),
      setTopicPolicies: (channelId, topic, policies, lastUpdated) =>
        Effect.sync(() => {
          const key = keyOf(channelId, topic)
          const changed: Array<UserId> = []
          for (const { user_id, visibility_policy } of policies) {
            const mine = topics.get(user_id) ?? new Map<string, UserTopic>()
            const current = mine.get(key)
            if (current !== undefined && current.visibility_policy === visibility_policy) continue
            const row: UserTopic = current === undefined
              ? { user_id, channel_id: channelId, topic_name: topic, visibility_policy, last_updated: lastUpdated }
              : { ...current, visibility_policy, last_updated: lastUpdated }
            topics.set(user_id, new Map(mine).set(key, row))
            changed.push(user_id)
          }
          return changed.sort((a, b) => a - b)
        }),
      clearTopicPolicies: (userIds, channelId, topic) =>
        Effect.sync(() => {
          const key = keyOf(channelId, topic)
          const changed: Array<UserId> = []
          for (const userId of new Set(userIds)) {
            const mine = topics.get(userId)
            if (mine === undefined || !mine.has(key)) continue
            const next = new Map(mine)
            next.delete(key)
            topics.set(userId, next)
            changed.push(userId)
          }
          return changed.sort((a, b) => a - b)
        }),
      listTopics: (userId) => Effect.sync(() => [...(topics.get(userId)?.values() ?? [])].sort(byChannelAndTopic)),
      listMutesByUsers: (users) =>
        Effect.sync(() => {
          const out = new Map<UserId, ReadonlySet<UserId>>()
          for (const user of users) {
            const mine = muted.get(user)
            if (mine !== undefined && mine.size > 0) out.set(user, new Set(Array.from(mine.values(), (r) => r.muted_user_id)))
          }
          return out
        }),
      mute: (row) =>
        Effect.sync(() => {
          const mine = muted.get(row.user_id) ?? new Map()
          if (mine.has(row.muted_user_id)) return false
          muted.set(row.user_id, new Map(mine).set(row.muted_user_id, row))
          db.accessChanged(db.tables.users.get(row.user_id)?.realm_id)
          return true
        }),
      unmute: (userId, mutedUserId) =>
        Effect.sync(() => {
          const mine = muted.get(userId)
          if (mine === undefined || !mine.has(mutedUserId)) return false
          const next = new Map(mine)
          next.delete(mutedUserId)
          muted.set(userId, next)
          db.accessChanged(db.tables.users.get(userId)?.realm_id)
          return true
        }),
      listMuted: (userId) =>
        Effect.sync(() => [...(muted.get(userId)?.values() ?? [])].sort((a, b) => a.muted_user_id - b.muted_user_id)),
      unreadFrom: (userId, senderId) =>
        Effect.sync(() => {
          // Walk the smaller of the user's unread rows and the sender's messages.
          const unread = db.tables.messages.userRows(userId).unread
          const sent = db.tables.messages.sentBy(senderId)
          const ids: Array<MessageId> = []
          if (unread.size <= sent.size) {
            for (const id of unread.ascending()) if (db.tables.messages.get(id)?.sender_id === senderId) ids.push(messageId(id))
          } else {
            for (const id of sent.ascending()) if (unread.has(id)) ids.push(messageId(id))
          }
          return ids
        })
    })
  })
)
