/**
 * The `typing` group: POST /typing, a typing notification to the
 * participants of a direct conversation or the subscribers of a channel;
 * POST /messages/{message_id}/typing, its sender editing a message.
 *
 * @since 0.1.0
 */
import { Errors } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

/** @category groups */
export class TypingApi extends HttpApiGroup.make("typing")
  .add(
    HttpApiEndpoint.post("notify", "/typing", {
      query: {
        op: Schema.Literals(["start", "stop"]),
        type: Schema.optionalKey(Schema.Literals(["direct", "private", "stream", "channel"]).annotate({
          description: "`direct` (default; legacy `private`) or `channel` (legacy `stream`)."
        })),
        to: Schema.optionalKey(Params.JsonIntegerList.annotate({
          description: "Direct: the ids of the conversation's other participants."
        })),
        stream_id: Schema.optionalKey(Params.JsonInteger.annotate({ description: "Channel: the channel's id." })),
        topic: Schema.optionalKey(Schema.String.annotate({ description: "Channel: the topic being written to." }))
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Set typing status"),
    HttpApiEndpoint.post("notifyEdit", "/messages/:message_id/typing", {
      params: { message_id: Params.PathId(() => new Errors.InvalidMessages(), "The id of the message being edited.") },
      query: {
        op: Schema.Literals(["start", "stop"]).annotate({ description: "Whether the user started or stopped editing." })
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Set \"typing\" status for message editing")
  )
  .middleware(Authentication)
{}
