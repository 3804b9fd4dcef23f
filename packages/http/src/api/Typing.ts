/**
 * The `typing` group: POST /typing, a typing notification to the
 * participants of a direct conversation or the subscribers of a channel.
 *
 * @since 0.1.0
 */
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
    }).annotate(OpenApi.Summary, "Set typing status")
  )
  .middleware(Authentication)
{}
