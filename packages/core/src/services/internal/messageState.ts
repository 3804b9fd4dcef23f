/**
 * The parts of POST /register that depend on messages: `unread_msgs`,
 * `starred_messages`, `recent_private_conversations` and `max_message_id`
 * (Zulip's `get_raw_unread_data` / `aggregate_unread_data`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { ChannelId, UserId } from "../../domain/Ids.ts"
import type { Message } from "../../domain/Message.ts"
import { FlagBits, MentionBits } from "../../domain/Message.ts"
import { isMutedTopic, topicKey } from "../../domain/Muting.ts"
import type { UserTopic, VisibilityPolicy } from "../../domain/Muting.ts"
import type { Subscription } from "../../domain/Channel.ts"
import type { MessageRepo } from "../../ports/Repositories.ts"
import { displayTopic } from "../../views/MessageView.ts"

/** Zulip stops listing unreads past this many and says so with `old_unreads_missing`. */
export const MaxUnreadMessages = 50_000

/** Conversations listed in `recent_private_conversations`. */
export const MaxRecentConversations = 1000

export interface UnreadMessages {
  readonly count: number
  readonly pms: ReadonlyArray<{
    readonly other_user_id: number
    readonly sender_id: number
    readonly unread_message_ids: ReadonlyArray<number>
  }>
  readonly streams: ReadonlyArray<{
    readonly stream_id: number
    readonly topic: string
    readonly unread_message_ids: ReadonlyArray<number>
  }>
  readonly huddles: ReadonlyArray<{ readonly user_ids_string: string; readonly unread_message_ids: ReadonlyArray<number> }>
  readonly mentions: ReadonlyArray<number>
  readonly old_unreads_missing: boolean
}

/** Only a personal mention counts in a muted topic; wildcard mentions there do not (Zulip's `aggregate_unread_data`). */
const PersonalMentionBits = FlagBits.mentioned | FlagBits.group_mentioned

/**
 * Groups unread rows the way clients expect. Channel messages count only in
 * channels the user is subscribed to; messages in muted topics, and in
 * muted channels unless their topic is unmuted or followed, are listed but
 * not counted (Zulip's `is_row_muted`).
 */
export const aggregateUnreads = (
  userId: UserId,
  rows: ReadonlyArray<{ readonly message: Message; readonly flags: number }>,
  subscriptions: ReadonlyArray<Subscription>,
  allowEmptyTopicName: boolean,
  topicPolicies: ReadonlyArray<UserTopic> = []
): UnreadMessages => {
  const active = new Map<ChannelId, Subscription>()
  for (const sub of subscriptions) if (sub.active) active.set(sub.channel_id, sub)
  const policies = new Map<string, VisibilityPolicy>()
  for (const row of topicPolicies) policies.set(topicKey(row.channel_id, row.topic_name), row.visibility_policy)
  const recent = rows.length > MaxUnreadMessages ? rows.slice(rows.length - MaxUnreadMessages) : rows
  const pms = new Map<number, Array<number>>()
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: Array<number> }>()
  const huddles = new Map<string, Array<number>>()
  const mentions: Array<number> = []
  let count = 0
  for (const { flags, message } of recent) {
    if (message.type === "stream") {
      const sub = active.get(message.channel_id!)
      if (sub === undefined) continue
      // Topics are grouped case-insensitively, keeping the first spelling seen.
      const key = `${message.channel_id}\u0000${message.topic.toLowerCase()}`
      let entry = streams.get(key)
      if (entry === undefined) {
        streams.set(key, entry = {
          stream_id: message.channel_id!,
          topic: displayTopic(message.topic, allowEmptyTopicName),
          unread_message_ids: []
        })
      }
      entry.unread_message_ids.push(message.id)
      const muted = isMutedTopic(sub.properties.is_muted, policies.get(topicKey(message.channel_id!, message.topic)))
      if (!muted) count++
      if ((flags & (muted ? PersonalMentionBits : MentionBits)) !== 0) mentions.push(message.id)
      continue
    } else if (message.dm_user_ids.length <= 2) {
      const other = message.dm_user_ids.find((id) => id !== userId) ?? userId
      let list = pms.get(other)
      if (list === undefined) pms.set(other, list = [])
      list.push(message.id)
      count++
    } else {
      const key = message.dm_user_ids.join(",")
      let list = huddles.get(key)
      if (list === undefined) huddles.set(key, list = [])
      list.push(message.id)
      count++
    }
    if ((flags & MentionBits) !== 0) mentions.push(message.id)
  }
  return {
    count,
    pms: Array.from(pms, ([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids }))
      .sort((a, b) => a.other_user_id - b.other_user_id),
    streams: Array.from(streams.values()).sort((a, b) => a.stream_id - b.stream_id || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)),
    huddles: Array.from(huddles, ([user_ids_string, ids]) => ({ user_ids_string, unread_message_ids: ids }))
      .sort((a, b) => (a.user_ids_string < b.user_ids_string ? -1 : a.user_ids_string > b.user_ids_string ? 1 : 0)),
    mentions,
    old_unreads_missing: rows.length > MaxUnreadMessages
  }
}

/** The message-dependent register keys, for the wanted types. */
export const messageState = Effect.fnUntraced(function*(
  repo: MessageRepo["Service"],
  userId: UserId,
  subscriptions: ReadonlyArray<Subscription>,
  want: (type: string) => boolean,
  /** The client's `empty_topic_name` capability: without it the empty topic reads "general chat". */
  allowEmptyTopicName: boolean,
  /** The user's topic policies, for the unread count. */
  topicPolicies: ReadonlyArray<UserTopic> = []
) {
  const state: Record<string, unknown> = {}
  if (want("message")) state.max_message_id = yield* repo.maxUserMessageId(userId)
  if (want("update_message_flags") && want("message")) {
    state.unread_msgs = aggregateUnreads(
      userId,
      yield* repo.listByFlags(userId, FlagBits.read, 0),
      subscriptions,
      allowEmptyTopicName,
      topicPolicies
    )
  }
  if (want("starred_messages")) {
    state.starred_messages = (yield* repo.listByFlags(userId, FlagBits.starred, FlagBits.starred)).map((r) => r.message.id)
  }
  if (want("recent_private_conversations")) {
    state.recent_private_conversations = (yield* repo.recentDmConversations(userId, MaxRecentConversations)).map((c) => ({
      max_message_id: c.max_message_id,
      user_ids: c.dm_user_ids.filter((id) => id !== userId)
    }))
  }
  return state
})
