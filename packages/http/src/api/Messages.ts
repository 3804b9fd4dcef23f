/**
 * The `messages` group: sending and reading messages, personal flags, emoji
 * reactions, and deleting a topic.
 *
 * - POST /messages sends a channel or direct message;
 * - GET /messages reads a range of a narrow around an anchor;
 * - GET /messages/matches_narrow tells which of some messages match a narrow;
 * - GET /messages/{message_id} reads one message;
 * - DELETE /messages/{message_id} deletes one message;
 * - POST /messages/flags and /messages/flags/narrow change read, starred
 *   and collapsed;
 * - POST /mark_all_as_read, /mark_stream_as_read and /mark_topic_as_read
 *   (deprecated, still served) mark the user's unread messages read;
 * - GET /messages/{message_id}/read_receipts lists who has read a message;
 * - POST and DELETE /messages/{message_id}/reactions add and remove one's
 *   emoji reaction;
 * - POST /streams/{stream_id}/delete_topic deletes a topic (administrators);
 * - POST /submessage attaches data to a message (a widget's votes and tasks);
 * - PATCH /messages/{message_id} edits a message's content (its sender),
 *   moves it (and later ones, or its whole topic) to another topic, resolves;
 * - GET /messages/{message_id}/history reads a message's edits;
 * - POST /messages/render renders Markdown as the user's message would be.
 *
 * Values that are not plain strings arrive as JSON text; `to`, `anchor` and
 * `narrow` keep their raw form here and the core reads them, so its errors
 * are Zulip's.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import { Errors, EventPayload } from "@teamchat/core"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { ApiAttachment } from "./Uploads.ts"
import { Authentication, ChecksAccessItself } from "./Middleware.ts"

/** A message as GET /messages returns it: the message events carry, with the reader's flags and search matches. @category schemas */
export const Message = Schema.Struct({
  ...EventPayload.EventMessage.fields,
  flags: Schema.optionalKey(Schema.Array(Schema.String)),
  match_content: Schema.optionalKey(Schema.String),
  match_subject: Schema.optionalKey(Schema.String)
})

const SendType = Schema.Literals(["stream", "channel", "private", "direct"]).annotate({
  description: "`channel` (or legacy `stream`) or `direct` (or legacy `private`)."
})

/** `content` of a message, sent or scheduled. @category schemas */
export const Content = Params.stringWithNullMessage("Message must not contain null bytes")

/** `topic` (and legacy `subject`) of a channel message, sent or scheduled. @category schemas */
export const Topic = (description?: string) => Params.stringWithNullMessage("Topic must not contain null bytes", description)

/** One state of a message in its history, oldest first. @category schemas */
export const HistoryEntry = Schema.Struct({
  topic: Schema.String,
  content: Schema.String,
  rendered_content: Schema.String,
  timestamp: Schema.Int,
  user_id: Schema.Int,
  prev_content: Schema.optionalKey(Schema.String),
  prev_rendered_content: Schema.optionalKey(Schema.String),
  content_html_diff: Schema.optionalKey(Schema.String),
  prev_topic: Schema.optionalKey(Schema.String),
  prev_stream: Schema.optionalKey(Schema.Int),
  stream: Schema.optionalKey(Schema.Int)
})

const NonNegative = Params.JsonInteger.check(Schema.isGreaterThanOrEqualTo(0))

const rangeQuery = {
  anchor: Schema.optionalKey(Schema.String.annotate({
    description: "A message id, or `newest`, `oldest`, `first_unread`."
  })),
  include_anchor: Params.optionalBoolean(true),
  num_before: NonNegative,
  num_after: NonNegative,
  narrow: Schema.optionalKey(Schema.String.annotate({
    description: "JSON list of narrow terms: `[operator, operand]` pairs or `{operator, operand, negated}` objects."
  }))
}

const messageId = { message_id: Params.PathId(() => new Errors.InvalidMessages(), "The message's id.") }

/** An emoji's code and namespace, as a reaction names it. */
const emojiIdentity = {
  emoji_code: Schema.optionalKey(Schema.String.annotate({
    description: "The emoji's code within its `reaction_type` namespace (a Unicode codepoint sequence, `zulip`, a custom emoji's id)."
  })),
  reaction_type: Schema.optionalKey(Schema.String.annotate({
    description: "`unicode_emoji`, `realm_emoji` or `zulip_extra_emoji`."
  }))
}

/** @category groups */
export class MessagesApi extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("send", "/messages", {
      query: {
        type: SendType,
        to: Schema.String.annotate({
          description: "Channel messages: a channel id or name. Direct messages: a JSON list of user ids (or emails)."
        }),
        topic: Schema.optionalKey(Topic()),
        subject: Schema.optionalKey(Topic("Legacy name of `topic`.")),
        content: Content,
        queue_id: Schema.optionalKey(Schema.String),
        local_id: Schema.optionalKey(Schema.String),
        read_by_sender: Schema.optionalKey(Params.JsonBoolean),
        widget_content: Schema.optionalKey(Schema.String.annotate({
          description: "Undocumented by Zulip (bots send it): JSON text of a widget, " +
            "`{\"widget_type\": \"zform\", \"extra_data\": {\"type\": \"choices\", \"heading\", \"choices\": [...]}}`."
        }))
      },
      success: Envelope.Success({ id: Schema.Int })
    }).annotate(OpenApi.Summary, "Send a message").annotate(ChecksAccessItself, true),
    HttpApiEndpoint.get("list", "/messages", {
      query: {
        ...rangeQuery,
        use_first_unread_anchor: Params.optionalBoolean(false, "Deprecated: `anchor=first_unread`."),
        client_gravatar: Params.optionalBoolean(true),
        apply_markdown: Params.optionalBoolean(true),
        allow_empty_topic_name: Params.optionalBoolean(false)
      },
      success: Envelope.Success({
        anchor: Schema.Number,
        found_anchor: Schema.Boolean,
        found_oldest: Schema.Boolean,
        found_newest: Schema.Boolean,
        history_limited: Schema.Boolean,
        messages: Schema.Array(Message)
      })
    }).annotate(OpenApi.Summary, "Get messages").annotate(ChecksAccessItself, true),
    HttpApiEndpoint.get("get", "/messages/:message_id", {
      params: { message_id: Params.PathId(() => new Errors.InvalidMessages(), "The message's id.") },
      query: {
        apply_markdown: Params.optionalBoolean(true),
        allow_empty_topic_name: Params.optionalBoolean(false)
      },
      success: Envelope.Success({ message: Message, raw_content: Schema.String })
    }).annotate(OpenApi.Summary, "Get a message"),
    HttpApiEndpoint.delete("delete", "/messages/:message_id", {
      params: { message_id: Params.PathId(() => new Errors.InvalidMessages(), "The message's id.") },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Delete a message"),
    HttpApiEndpoint.patch("edit", "/messages/:message_id", {
      params: { message_id: Params.PathId(() => new Errors.InvalidMessages(), "The message's id.") },
      query: {
        content: Schema.optionalKey(Content),
        topic: Schema.optionalKey(Topic("The new topic.")),
        subject: Schema.optionalKey(Topic("Legacy name of `topic`.")),
        stream_id: Schema.optionalKey(Params.JsonInteger.annotate({
          description: "The channel to move the message (and, with `propagate_mode`, its topic) to."
        })),
        send_notification_to_old_thread: Schema.optionalKey(Params.JsonBoolean),
        send_notification_to_new_thread: Schema.optionalKey(Params.JsonBoolean),
        propagate_mode: Schema.optionalKey(Schema.String.annotate({
          description: "`change_one` (default), `change_later` or `change_all`."
        })),
        prev_content_sha256: Schema.optionalKey(Schema.String.annotate({
          description: "SHA-256 (hex) of the content the client edited: refused when the message changed since."
        }))
      },
      success: Envelope.Success({ detached_uploads: Schema.Array(ApiAttachment) })
    }).annotate(OpenApi.Summary, "Edit a message"),
    HttpApiEndpoint.get("history", "/messages/:message_id/history", {
      params: { message_id: Params.PathId(() => new Errors.InvalidMessages(), "The message's id.") },
      query: { allow_empty_topic_name: Params.optionalBoolean(false) },
      success: Envelope.Success({ message_history: Schema.Array(HistoryEntry) })
    }).annotate(OpenApi.Summary, "Get a message's edit history"),
    HttpApiEndpoint.post("flags", "/messages/flags", {
      query: {
        messages: Params.JsonIntegerList,
        op: Schema.String,
        flag: Schema.String
      },
      success: Envelope.Success({ messages: Schema.Array(Schema.Int) })
    }).annotate(OpenApi.Summary, "Update personal message flags"),
    HttpApiEndpoint.post("flagsNarrow", "/messages/flags/narrow", {
      query: { ...rangeQuery, anchor: Schema.String, op: Schema.String, flag: Schema.String },
      success: Envelope.Success({
        processed_count: Schema.Int,
        updated_count: Schema.Int,
        first_processed_id: Schema.NullOr(Schema.Int),
        last_processed_id: Schema.NullOr(Schema.Int),
        found_oldest: Schema.Boolean,
        found_newest: Schema.Boolean,
        ignored_because_not_subscribed_channels: Schema.optionalKey(Schema.Array(Schema.Int))
      })
    }).annotate(OpenApi.Summary, "Update personal message flags for a narrow"),
    HttpApiEndpoint.post("markAllAsRead", "/mark_all_as_read", {
      success: Envelope.Success({ complete: Schema.Boolean })
    }).annotate(OpenApi.Summary, "Mark all messages as read").annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.post("markStreamAsRead", "/mark_stream_as_read", {
      query: { stream_id: Params.JsonInteger.annotate({ description: "The channel's id." }) },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Mark messages in a channel as read").annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.post("markTopicAsRead", "/mark_topic_as_read", {
      query: {
        stream_id: Params.JsonInteger.annotate({ description: "The channel's id." }),
        topic_name: Schema.String.annotate({ description: "The topic; `general chat` names the empty topic." })
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Mark messages in a topic as read").annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.get("readReceipts", "/messages/:message_id/read_receipts", {
      params: { message_id: Params.PathId(() => new Errors.InvalidMessages(), "The message's id.") },
      success: Envelope.Success({ user_ids: Schema.Array(Schema.Int) })
    }).annotate(OpenApi.Summary, "Get a message's read receipts"),
    HttpApiEndpoint.post("addReaction", "/messages/:message_id/reactions", {
      params: messageId,
      query: {
        emoji_name: Schema.String.annotate({ description: "The emoji's name (e.g. `octopus`); its code and type are looked up from it when not given." }),
        ...emojiIdentity
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Add an emoji reaction"),
    HttpApiEndpoint.delete("removeReaction", "/messages/:message_id/reactions", {
      params: messageId,
      query: {
        emoji_name: Schema.optionalKey(Schema.String.annotate({ description: "The emoji's name; its code is looked up from it when not given." })),
        ...emojiIdentity
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Remove an emoji reaction"),
    HttpApiEndpoint.post("deleteTopic", "/streams/:stream_id/delete_topic", {
      params: { stream_id: Params.PathId(() => new Errors.InvalidChannelId(), "The channel's id.") },
      query: { topic_name: Schema.String },
      success: Envelope.Success({ complete: Schema.Boolean })
    }).annotate(OpenApi.Summary, "Delete a topic"),
    HttpApiEndpoint.post("submessage", "/submessage", {
      query: {
        message_id: Params.JsonInteger.annotate({ description: "The message's id." }),
        msg_type: Schema.String.annotate({ description: "`widget` for a widget's data." }),
        content: Schema.String.annotate({ description: "JSON text, stored and sent on as given." })
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Add a submessage"),
    HttpApiEndpoint.get("matchesNarrow", "/messages/matches_narrow", {
      query: {
        msg_ids: Params.JsonIntegerList.annotate({ description: "JSON list of the ids of the messages to check." }),
        narrow: Schema.String.annotate({
          description: "JSON list of narrow terms: `[operator, operand]` pairs or `{operator, operand, negated}` objects."
        })
      },
      success: Envelope.Success({
        messages: Schema.Record(Schema.String, Schema.Struct({ match_content: Schema.String, match_subject: Schema.String }))
      })
    }).annotate(OpenApi.Summary, "Check if messages match a narrow"),
    HttpApiEndpoint.post("render", "/messages/render", {
      query: { content: Schema.String.annotate({ description: "The Markdown to render." }) },
      success: Envelope.Success({ rendered: Schema.String })
    }).annotate(OpenApi.Summary, "Render a message")
  )
  .middleware(Authentication)
{}
