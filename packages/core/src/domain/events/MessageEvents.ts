/**
 * The events about messages: a new message (`message`), a message's flags
 * (`update_message_flags`), emoji reactions (`reaction`), and, for the
 * message editing to come, edits (`update_message`), deletions
 * (`delete_message`) and typing notifications (`typing`). Field types follow
 * Zulip's `/events` documentation.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { AllFlags, EditHistoryEntry } from "../Message.ts"

/** A message flag's API name. @category schemas */
export const MessageFlag = Schema.Literals(AllFlags)

/** How an emoji is named: Unicode, custom (the organization's) or Zulip's own. @category schemas */
export const ReactionType = Schema.Literals(["unicode_emoji", "realm_emoji", "zulip_extra_emoji"])

/** One participant of a direct message, as `display_recipient` lists them. @category schemas */
export const DisplayRecipientUser = Schema.Struct({
  id: Schema.Int,
  email: Schema.String,
  full_name: Schema.String,
  is_mirror_dummy: Schema.Boolean
})

/** An emoji reaction on a message. @category schemas */
export const MessageReaction = Schema.Struct({
  emoji_name: Schema.String,
  emoji_code: Schema.String,
  reaction_type: ReactionType,
  user_id: Schema.Int
})

/** A link a linkifier found in the topic. @category schemas */
export const TopicLink = Schema.Struct({ text: Schema.String, url: Schema.String })

/** A widget's submessage (polls, to-do lists). @category schemas */
export const Submessage = Schema.Struct({
  msg_type: Schema.String,
  content: Schema.String,
  message_id: Schema.Int,
  sender_id: Schema.Int,
  id: Schema.Int
})

/**
 * A message as a `message` event carries it (the GET /messages view without
 * its per-user `flags`, which the event carries beside it).
 *
 * @category schemas
 */
export const EventMessage = Schema.Struct({
  id: Schema.Int,
  sender_id: Schema.Int,
  sender_email: Schema.String,
  sender_full_name: Schema.String,
  sender_realm_str: Schema.String,
  /** null for a `client_gravatar` queue when the client computes it. */
  avatar_url: Schema.NullOr(Schema.String),
  client: Schema.String,
  content: Schema.String,
  content_type: Schema.Literals(["text/html", "text/x-markdown"]),
  /** The channel's name, or the participants of a direct message. */
  display_recipient: Schema.Union([Schema.String, Schema.Array(DisplayRecipientUser)]),
  is_me_message: Schema.Boolean,
  reactions: Schema.Array(MessageReaction),
  recipient_id: Schema.Int,
  subject: Schema.String,
  topic_links: Schema.Array(TopicLink),
  submessages: Schema.Array(Submessage),
  timestamp: Schema.Int,
  type: Schema.Literals(["stream", "private"]),
  /** Channel messages only. */
  stream_id: Schema.optionalKey(Schema.Int),
  last_edit_timestamp: Schema.optionalKey(Schema.Int),
  last_moved_timestamp: Schema.optionalKey(Schema.Int),
  /** Newest first, as the organization's history policy lets it be seen. */
  edit_history: Schema.optionalKey(Schema.Array(EditHistoryEntry))
})
/** @category models */
export type EventMessage = typeof EventMessage.Type

/**
 * A new message as a queue's client receives it: the message as the queue
 * asked for it (`apply_markdown`, `client_gravatar`) and the user's flags;
 * `local_message_id` only to the sending client's queue.
 *
 * @category schemas
 */
export const MessageEvent = Schema.Struct({
  type: Schema.Literal("message"),
  message: EventMessage,
  flags: Schema.Array(MessageFlag),
  local_message_id: Schema.optionalKey(Schema.String)
})

/**
 * A `message` event as it is published and logged: the message as an
 * `apply_markdown` queue sees it, plus what each queue's view is made from
 * (`~`-keys, never sent): the Markdown source, whether the avatar may be
 * null for `client_gravatar` queues, and the sending client's queue and
 * local id.
 *
 * @category schemas
 */
export const StoredMessageEvent = Schema.Struct({
  type: Schema.Literal("message"),
  message: EventMessage,
  flags: Schema.Array(MessageFlag),
  "~raw_content": Schema.String,
  "~gravatar_nullable": Schema.Boolean,
  "~queue_id": Schema.optionalKey(Schema.String),
  "~local_id": Schema.optionalKey(Schema.String)
})
/** @category models */
export type StoredMessageEvent = typeof StoredMessageEvent.Type

/** What `update_message_flags remove` says of each message (by id), so clients restore unread counts. @category schemas */
export const MessageDetails = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("private"),
    user_ids: Schema.Array(Schema.Int),
    mentioned: Schema.optionalKey(Schema.Boolean)
  }),
  Schema.Struct({
    type: Schema.Literal("stream"),
    stream_id: Schema.Int,
    topic: Schema.String,
    unmuted_stream_msg: Schema.Boolean,
    mentioned: Schema.optionalKey(Schema.Boolean)
  })
])
/** @category models */
export type MessageDetails = typeof MessageDetails.Type

/** The user's flag was set on these messages. @category schemas */
export const UpdateMessageFlagsAddEvent = Schema.Struct({
  type: Schema.Literal("update_message_flags"),
  op: Schema.Literal("add"),
  /** The same as `op` (older clients read it). */
  operation: Schema.Literal("add"),
  flag: MessageFlag,
  messages: Schema.Array(Schema.Int),
  all: Schema.Boolean
})

/** The user's flag was cleared on these messages; `message_details` when `flag` is `read`. @category schemas */
export const UpdateMessageFlagsRemoveEvent = Schema.Struct({
  type: Schema.Literal("update_message_flags"),
  op: Schema.Literal("remove"),
  operation: Schema.Literal("remove"),
  flag: MessageFlag,
  messages: Schema.Array(Schema.Int),
  all: Schema.Boolean,
  message_details: Schema.optionalKey(Schema.Record(Schema.String, MessageDetails))
})

/** A message was edited or moved. @category schemas */
export const UpdateMessageEvent = Schema.Struct({
  type: Schema.Literal("update_message"),
  /** null for an edit only to the rendering (previews). */
  user_id: Schema.NullOr(Schema.Int),
  rendering_only: Schema.Boolean,
  message_id: Schema.Int,
  message_ids: Schema.Array(Schema.Int),
  /** The receiving user's flags of `message_id`. */
  flags: Schema.Array(MessageFlag),
  edit_timestamp: Schema.Int,
  stream_name: Schema.optionalKey(Schema.String),
  stream_id: Schema.optionalKey(Schema.Int),
  new_stream_id: Schema.optionalKey(Schema.Int),
  propagate_mode: Schema.optionalKey(Schema.Literals(["change_one", "change_later", "change_all"])),
  orig_subject: Schema.optionalKey(Schema.String),
  subject: Schema.optionalKey(Schema.String),
  topic_links: Schema.optionalKey(Schema.Array(TopicLink)),
  orig_content: Schema.optionalKey(Schema.String),
  orig_rendered_content: Schema.optionalKey(Schema.String),
  content: Schema.optionalKey(Schema.String),
  rendered_content: Schema.optionalKey(Schema.String),
  is_me_message: Schema.optionalKey(Schema.Boolean)
})

/** Channel messages name their channel and topic; direct messages name nothing more. */
const deletedFrom = {
  message_type: Schema.Literals(["stream", "private"]),
  stream_id: Schema.optionalKey(Schema.Int),
  topic: Schema.optionalKey(Schema.String)
}

/** Messages were deleted: clients with `bulk_message_deletion` get every id at once. @category schemas */
export const DeleteMessagesEvent = Schema.Struct({
  type: Schema.Literal("delete_message"),
  message_ids: Schema.Array(Schema.Int),
  ...deletedFrom
})

/** A message was deleted: one event per message for clients without `bulk_message_deletion`. @category schemas */
export const DeleteMessageEvent = Schema.Struct({
  type: Schema.Literal("delete_message"),
  message_id: Schema.Int,
  ...deletedFrom
})

const reactionFields = {
  user_id: Schema.Int,
  /** Deprecated (`user_id` says the same), sent again since feature level 339 for older mobile clients. */
  user: Schema.Struct({
    user_id: Schema.Int,
    email: Schema.String,
    full_name: Schema.String
  }),
  message_id: Schema.Int,
  emoji_name: Schema.String,
  emoji_code: Schema.String,
  reaction_type: ReactionType
}

/** An emoji reaction was added, to everyone who has the message. @category schemas */
export const ReactionAddEvent = Schema.Struct({ type: Schema.Literal("reaction"), op: Schema.Literal("add"), ...reactionFields })

/** An emoji reaction was removed, to everyone who has the message. @category schemas */
export const ReactionRemoveEvent = Schema.Struct({
  type: Schema.Literal("reaction"),
  op: Schema.Literal("remove"),
  ...reactionFields
})

/** A submessage was attached to a message (a widget's vote, option, task, ...). @category schemas */
export const SubmessageEvent = Schema.Struct({
  type: Schema.Literal("submessage"),
  msg_type: Schema.String,
  message_id: Schema.Int,
  submessage_id: Schema.Int,
  sender_id: Schema.Int,
  /** As the sender sent it. */
  content: Schema.String
})

const TypingUser = Schema.Struct({ user_id: Schema.Int, email: Schema.String })

const typingEvents = <Op extends "start" | "stop">(op: Op) =>
  [
    Schema.Struct({
      type: Schema.Literal("typing"),
      op: Schema.Literal(op),
      message_type: Schema.Literal("direct"),
      sender: TypingUser,
      recipients: Schema.Array(TypingUser)
    }),
    Schema.Struct({
      type: Schema.Literal("typing"),
      op: Schema.Literal(op),
      message_type: Schema.Literal("stream"),
      sender: TypingUser,
      stream_id: Schema.Int,
      topic: Schema.String
    })
  ] as const

/** Someone started typing, to the participants or the channel's subscribers (not published yet). @category schemas */
export const [TypingStartDirectEvent, TypingStartStreamEvent] = typingEvents("start")

/** Someone stopped typing (not published yet). @category schemas */
export const [TypingStopDirectEvent, TypingStopStreamEvent] = typingEvents("stop")

/** Where a message being edited is: its direct conversation's participants, or its channel and topic. */
const TypingEditRecipient = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("direct"),
    /** The participants who are told (active, `receives_typing_notifications` on). */
    user_ids: Schema.Array(Schema.Int)
  }),
  Schema.Struct({ type: Schema.Literal("channel"), channel_id: Schema.Int, topic: Schema.String })
])

const typingEditEvent = <Op extends "start" | "stop">(op: Op) =>
  Schema.Struct({
    type: Schema.Literal("typing_edit_message"),
    op: Schema.Literal(op),
    /** Who is editing (today always the message's sender). */
    sender_id: Schema.Int,
    message_id: Schema.Int,
    recipient: TypingEditRecipient
  })

/** Someone started editing a message, to whoever would hear of the edit (POST /messages/{id}/typing). @category schemas */
export const TypingEditMessageStartEvent = typingEditEvent("start")

/** Someone stopped editing a message. @category schemas */
export const TypingEditMessageStopEvent = typingEditEvent("stop")
