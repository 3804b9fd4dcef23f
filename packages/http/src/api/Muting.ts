/**
 * The `muting` group: a user's personal visibility settings.
 *
 * - POST /user_topics sets a topic's policy (0 none, 1 muted, 2 unmuted,
 *   3 followed), with `user_topic` (and the legacy `muted_topics`) events;
 * - PATCH /users/me/subscriptions/muted_topics (deprecated, still served)
 *   mutes (`add`) or unmutes (`remove`) a topic, as POST /user_topics;
 * - POST and DELETE /users/me/muted_users/{muted_user_id} mute and unmute a
 *   user, with `muted_users` events; muting marks the user's messages read.
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

const mutedUserId = {
  muted_user_id: Params.PathId(() => new Errors.NoSuchUser(), "The id of the user to mute or unmute.")
}

/** @category groups */
export class MutingApi extends HttpApiGroup.make("muting")
  .add(
    HttpApiEndpoint.post("updateUserTopic", "/user_topics", {
      query: {
        stream_id: Params.JsonInteger.annotate({ description: "The channel's id." }),
        topic: Schema.String.annotate({ description: "The topic, at most 60 characters; matched case-insensitively." }),
        visibility_policy: Params.JsonInteger.annotate({
          description: "0 = none (the channel's setting applies), 1 = muted, 2 = unmuted, 3 = followed."
        })
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update personal preferences for a topic"),
    HttpApiEndpoint.patch("updateMutedTopic", "/users/me/subscriptions/muted_topics", {
      query: {
        op: Schema.Literals(["add", "remove"]).annotate({ description: "`add` mutes the topic, `remove` unmutes it." }),
        topic: Schema.String.annotate({ description: "The topic, at most 60 characters; matched case-insensitively." }),
        stream: Schema.optionalKey(Schema.String.annotate({ description: "The channel's name (or give `stream_id`)." })),
        stream_id: Schema.optionalKey(Params.JsonInteger.annotate({ description: "The channel's id (or give `stream`)." }))
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Topic muting").annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.post("muteUser", "/users/me/muted_users/:muted_user_id", {
      params: mutedUserId,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Mute a user"),
    HttpApiEndpoint.delete("unmuteUser", "/users/me/muted_users/:muted_user_id", {
      params: mutedUserId,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Unmute a user")
  )
  .middleware(Authentication)
{}
