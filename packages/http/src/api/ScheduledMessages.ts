/**
 * The `scheduledMessages` group: messages sent later by the server.
 *
 * - GET /scheduled_messages lists the caller's undelivered ones (failed
 *   included), by delivery time;
 * - POST /scheduled_messages validates a message like POST /messages and
 *   schedules it (`to`: a channel id, or a JSON list of user ids);
 * - PATCH /scheduled_messages/{id} changes any of type, recipient, topic,
 *   content and delivery time (a failed message needs a new time);
 * - DELETE /scheduled_messages/{id} cancels one.
 *
 * Each change sends a `scheduled_messages` event (`add`, `update`, `remove`)
 * to the caller's queues; so does the delivery worker.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import { Errors, Messages } from "@teamchat/core"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"
import { Content, Topic } from "./Messages.ts"

/** A scheduled message as the API shows it. @category schemas */
export const ScheduledMessage = Schema.Struct({
  scheduled_message_id: Schema.Int,
  to: Schema.Union([Schema.Int, Schema.Array(Schema.Int)]).annotate({
    description: "Channel messages: the channel id. Direct messages: the recipients' user ids."
  }),
  type: Schema.Literals(["stream", "private"]),
  content: Schema.String,
  rendered_content: Schema.String,
  topic: Schema.optionalKey(Schema.String).annotate({ description: "Channel messages only." }),
  scheduled_delivery_timestamp: Schema.Int,
  failed: Schema.Boolean
})

/** @category schemas */
export const MessageType = Schema.Literals(["direct", "private", "channel", "stream"]).annotate({
  description: "`channel` (or `stream`) or `direct` (or `private`)."
})

/** A channel id, or a JSON list of user ids (emails are refused with Zulip's error). @category schemas */
export const Recipient = Params.json(
  Params.Value.atMost(
    Messages.MaxRecipients,
    Params.Value.oneOf(
      Params.Value.integer,
      Params.Value.list(Params.Value.oneOf(Params.Value.integer, Params.Value.string))
    )
  ),
  "Channel messages: the channel id. Direct messages: JSON list of user ids."
)

const id = {
  scheduled_message_id: Params.PathId(() => new Errors.ScheduledMessageNotFound(), "The scheduled message's id.")
}

/** @category groups */
export class ScheduledMessagesApi extends HttpApiGroup.make("scheduledMessages")
  .add(
    HttpApiEndpoint.get("list", "/scheduled_messages", {
      success: Envelope.Success({ scheduled_messages: Schema.Array(ScheduledMessage) })
    }).annotate(OpenApi.Summary, "Get scheduled messages"),
    HttpApiEndpoint.post("create", "/scheduled_messages", {
      query: {
        type: MessageType,
        to: Recipient,
        content: Content,
        topic: Schema.optionalKey(Topic()),
        scheduled_delivery_timestamp: Params.JsonInteger,
        read_by_sender: Schema.optionalKey(Params.JsonBoolean)
      },
      success: Envelope.Success({ scheduled_message_id: Schema.Int })
    }).annotate(OpenApi.Summary, "Create a scheduled message"),
    HttpApiEndpoint.patch("update", "/scheduled_messages/:scheduled_message_id", {
      params: id,
      query: {
        type: Schema.optionalKey(MessageType),
        to: Schema.optionalKey(Recipient),
        content: Schema.optionalKey(Content),
        topic: Schema.optionalKey(Topic()),
        scheduled_delivery_timestamp: Schema.optionalKey(Params.JsonInteger)
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Edit a scheduled message"),
    HttpApiEndpoint.delete("remove", "/scheduled_messages/:scheduled_message_id", {
      params: id,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Delete a scheduled message")
  )
  .middleware(Authentication)
{}
