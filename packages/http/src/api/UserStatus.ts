/**
 * The `userStatus` group: POST /users/me/status, POST /users/{user_id}/status
 * (administrators, for another user) and GET /users/{user_id}/status. Only
 * the parameters passed change; a change sends a `user_status` event to
 * everyone who can access the user.
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

/** A status as read: only the keys that are set. @category schemas */
export const Status = Schema.Struct({
  away: Schema.optionalKey(Schema.Boolean),
  status_text: Schema.optionalKey(Schema.String),
  emoji_name: Schema.optionalKey(Schema.String),
  emoji_code: Schema.optionalKey(Schema.String),
  reaction_type: Schema.optionalKey(Schema.Literals(["unicode_emoji", "realm_emoji", "zulip_extra_emoji"]))
})

const change = {
  status_text: Schema.optionalKey(
    Schema.String.annotate({ description: "At most 60 characters once stripped; empty clears the text." })
  ),
  emoji_name: Schema.optionalKey(Schema.String.annotate({ description: "Empty clears the emoji." })),
  emoji_code: Schema.optionalKey(Schema.String),
  reaction_type: Schema.optionalKey(
    Schema.String.annotate({ description: "`unicode_emoji`, `realm_emoji` or `zulip_extra_emoji`." })
  )
}

const userId = { user_id: Params.PathId(() => new Errors.NoSuchUser(), "The user's id.") }

/** @category groups */
export class UserStatusApi extends HttpApiGroup.make("userStatus")
  .add(
    HttpApiEndpoint.post("updateOwn", "/users/me/status", {
      query: {
        ...change,
        // Deprecated: the negation of the `presence_enabled` setting.
        away: Schema.optionalKey(Params.JsonBoolean)
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update your status"),
    HttpApiEndpoint.post("updateOther", "/users/:user_id/status", {
      params: userId,
      query: change,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update a user's status (administrators)"),
    HttpApiEndpoint.get("get", "/users/:user_id/status", {
      params: userId,
      success: Envelope.Success({ status: Status })
    }).annotate(OpenApi.Summary, "Get a user's status")
  )
  .middleware(Authentication)
{}
