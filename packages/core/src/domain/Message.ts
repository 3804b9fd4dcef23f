/**
 * Messages and the per-user message rows that carry each recipient's flags.
 *
 * A channel message has a `channel_id` and a topic; a direct message has the
 * sorted ids of every participant (sender included) in `dm_user_ids`, which
 * is also the conversation's identity: a one-on-one conversation is the two
 * users, a message to oneself is the one user.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ChannelId, MessageId, RealmId, UserId } from "./Ids.ts"

/** @category models */
export const MessageType = Schema.Literals(["stream", "private"])
/** @category models */
export type MessageType = typeof MessageType.Type

/**
 * One stored edit of a message (Zulip's `edit_history` entry): who and when,
 * and what changed: the content before (`prev_content`, with its
 * rendering), the topic before and after, the channel before and after.
 *
 * @category models
 */
export const EditHistoryEntry = Schema.Struct({
  user_id: Schema.Int,
  timestamp: Schema.Int,
  prev_content: Schema.optionalKey(Schema.String),
  prev_rendered_content: Schema.optionalKey(Schema.String),
  prev_topic: Schema.optionalKey(Schema.String),
  topic: Schema.optionalKey(Schema.String),
  prev_stream: Schema.optionalKey(Schema.Int),
  stream: Schema.optionalKey(Schema.Int)
})
/** @category models */
export type EditHistoryEntry = typeof EditHistoryEntry.Type

/** @category models */
export const Message = Schema.Struct({
  id: MessageId,
  realm_id: RealmId,
  sender_id: UserId,
  type: MessageType,
  /** Channel messages only; null for direct messages. */
  channel_id: Schema.NullOr(ChannelId),
  /** "" for direct messages (and for the empty channel topic). */
  topic: Schema.String,
  /** Direct messages: every participant, sorted, sender included. Channel messages: []. */
  dm_user_ids: Schema.Array(UserId),
  /** Markdown source. */
  content: Schema.String,
  rendered_content: Schema.String,
  /** Seconds since the epoch. */
  date_sent: Schema.Int,
  /** The sending client's name (Zulip's `client`), e.g. "website", "ZulipMobile". */
  client: Schema.String,
  has_attachment: Schema.Boolean,
  has_image: Schema.Boolean,
  has_link: Schema.Boolean,
  /** Seconds since the epoch of the last content edit; null when never edited. */
  last_edit_time: Schema.NullOr(Schema.Int),
  /** Seconds since the epoch of the last move (not a resolve); absent when never moved. */
  last_moved_time: Schema.optionalKey(Schema.Int),
  /** Every edit and move, newest first; absent when never edited or moved. */
  edit_history: Schema.optionalKey(Schema.Array(EditHistoryEntry))
})
/** @category models */
export type Message = typeof Message.Type

/**
 * Zulip's message flags in its bit order: the flag at index i is bit 1 << i
 * of a stored flag set.
 *
 * @category constants
 */
export const AllFlags = [
  "read",
  "starred",
  "collapsed",
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "group_mentioned",
  "force_expand",
  "force_collapse",
  "has_alert_word",
  "historical",
  "is_private",
  "active_mobile_push_notification"
] as const

/** @category models */
export type Flag = typeof AllFlags[number]

/** Flags the API never shows or accepts. @category constants */
export const NonApiFlags: ReadonlySet<Flag> = new Set(["is_private", "active_mobile_push_notification"])

/** Flags clients may change through the flags endpoints. @category constants */
export const EditableFlags: ReadonlySet<Flag> = new Set(["read", "starred", "collapsed"])

/** The bit of one flag. @category constructors */
export const flagBit = (flag: Flag): number => 1 << AllFlags.indexOf(flag)

/** @category constants */
export const FlagBits = {
  read: flagBit("read"),
  starred: flagBit("starred"),
  mentioned: flagBit("mentioned"),
  stream_wildcard_mentioned: flagBit("stream_wildcard_mentioned"),
  topic_wildcard_mentioned: flagBit("topic_wildcard_mentioned"),
  group_mentioned: flagBit("group_mentioned"),
  has_alert_word: flagBit("has_alert_word"),
  historical: flagBit("historical"),
  is_private: flagBit("is_private")
} as const

/** Any mention a user counts as "mentioned" in unread counts and `is:mentioned`. @category constants */
export const MentionBits = FlagBits.mentioned | FlagBits.stream_wildcard_mentioned |
  FlagBits.topic_wildcard_mentioned | FlagBits.group_mentioned

/** The API flag names of a stored flag set, in Zulip's order. @category views */
export const flagNames = (bits: number): Array<Flag> => {
  const out: Array<Flag> = []
  for (let i = 0; i < AllFlags.length; i++) {
    const flag = AllFlags[i]!
    if ((bits & (1 << i)) !== 0 && !NonApiFlags.has(flag)) out.push(flag)
  }
  return out
}

/**
 * One recipient's row for a message (Zulip's UserMessage). A user who reads a
 * public channel's history without a row sees flags `read` and `historical`.
 *
 * @category models
 */
export interface UserMessage {
  readonly user_id: UserId
  readonly message_id: MessageId
  readonly flags: number
}

/**
 * One user's emoji reaction to a message (Zulip's Reaction). A user reacts
 * with an emoji (`emoji_code` in its `reaction_type` namespace) at most once;
 * `emoji_name` is the name the first reactor with that emoji used.
 *
 * @category models
 */
export interface Reaction {
  readonly message_id: MessageId
  readonly user_id: UserId
  readonly emoji_name: string
  readonly emoji_code: string
  readonly reaction_type: "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji"
}

/** Limits Zulip reports in register. @category constants */
export const MaxMessageLength = 10000
/** @category constants */
export const MaxTopicLength = 60
/** The topic shown for the empty topic (realm_empty_topic_display_name). @category constants */
export const EmptyTopicDisplayName = "general chat"
/** What older clients send for the empty topic (feature level 370). @category constants */
export const NoTopicText = "(no topic)"

/** The conversation key of a direct message: its participants, sorted and unique. @category constructors */
export const dmParticipants = (ids: Iterable<UserId>): Array<UserId> =>
  Array.from(new Set(ids)).sort((a, b) => a - b)
