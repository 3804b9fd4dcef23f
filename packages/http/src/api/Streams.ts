/**
 * The `streams` group: GET /streams, the channels the user can access; GET
 * /users/me/{stream_id}/topics, a channel's topics; GET /get_stream_id, a
 * channel's id by name.
 *
 * @since 0.1.0
 */
import { Errors, EventPayload } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

/** A channel as GET /streams lists it: the channel events carry, and whether it is a default channel. @category schemas */
export const Channel = Schema.Struct({
  ...EventPayload.EventChannel.fields,
  is_default: Schema.optionalKey(Schema.Boolean)
})

/** @category groups */
export class StreamsApi extends HttpApiGroup.make("streams")
  .add(
    HttpApiEndpoint.get("list", "/streams", {
      query: {
        include_public: Params.optionalBoolean(true),
        include_web_public: Params.optionalBoolean(false),
        include_subscribed: Params.optionalBoolean(true),
        exclude_archived: Params.optionalBoolean(true),
        include_all: Params.optionalBoolean(false),
        include_default: Params.optionalBoolean(false),
        include_owner_subscribed: Params.optionalBoolean(false),
        include_can_access_content: Params.optionalBoolean(false),
        include_all_active: Params.optionalBoolean(false, "Deprecated alias of include_all.")
      },
      success: Envelope.Success({ streams: Schema.Array(Channel) })
    }).annotate(OpenApi.Summary, "Get channels"),
    HttpApiEndpoint.get("topics", "/users/me/:stream_id/topics", {
      params: { stream_id: Params.PathId(() => new Errors.InvalidChannelId(), "The channel's id.") },
      query: { allow_empty_topic_name: Params.optionalBoolean(false) },
      success: Envelope.Success({
        topics: Schema.Array(Schema.Struct({ name: Schema.String, max_id: Schema.Int }))
      })
    }).annotate(OpenApi.Summary, "Get topics in a channel"),
    HttpApiEndpoint.get("idByName", "/get_stream_id", {
      query: { stream: Schema.String.annotate({ description: "The channel's name (any case)." }) },
      success: Envelope.Success({ stream_id: Schema.Int })
    }).annotate(OpenApi.Summary, "Get channel ID")
  )
  .middleware(Authentication)
{}
