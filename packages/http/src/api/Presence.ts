/**
 * The `presence` group: POST /users/me/presence (a client's ping, answered
 * with the others' presence: modern entries when `last_update_id` or
 * `slim_presence` is given, legacy email-keyed ones otherwise), GET
 * /users/{user_id_or_email}/presence and GET /realm/presence.
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

const Status = Schema.Literals(["active", "idle"])

/** A modern entry. @category schemas */
export const ModernPresence = Schema.Struct({ active_timestamp: Schema.Int, idle_timestamp: Schema.Int })

/** A legacy entry: the most recent client (always `website`), and the same as `aggregated`. @category schemas */
export const LegacyPresence = Schema.Struct({
  aggregated: Schema.Struct({ client: Schema.Literal("website"), status: Status, timestamp: Schema.Int }),
  website: Schema.Struct({
    client: Schema.Literal("website"),
    status: Status,
    timestamp: Schema.Int,
    pushable: Schema.Boolean
  })
})

/** One user's presence in the legacy form, without `client` and `pushable`. @category schemas */
export const UserPresenceLegacy = Schema.Struct({
  aggregated: Schema.Struct({ status: Schema.Literals(["active", "idle", "offline"]), timestamp: Schema.Int }),
  website: Schema.Struct({ status: Status, timestamp: Schema.Int })
})

const Presences = Schema.Record(Schema.String, Schema.Union([ModernPresence, LegacyPresence]))

/** @category groups */
export class PresenceApi extends HttpApiGroup.make("presence")
  .add(
    HttpApiEndpoint.post("update", "/users/me/presence", {
      query: {
        status: Schema.String.annotate({ description: "`active` or `idle`." }),
        last_update_id: Schema.optionalKey(Params.JsonInteger),
        history_limit_days: Schema.optionalKey(Params.JsonInteger),
        new_user_input: Params.optionalBoolean(false),
        ping_only: Params.optionalBoolean(false),
        slim_presence: Params.optionalBoolean(false, "Deprecated.")
      },
      // In the order the service builds the answer, so it is sent as built (Envelope.respond).
      success: Envelope.Success({
        presences: Schema.optionalKey(Presences),
        presence_last_update_id: Schema.Int,
        server_timestamp: Schema.optionalKey(Schema.Finite)
      })
    }).annotate(OpenApi.Summary, "Update your presence"),
    HttpApiEndpoint.get("user", "/users/:user_id_or_email/presence", {
      params: {
        user_id_or_email: Schema.String.annotate({ description: "A user id, or a user's API email address." })
      },
      query: { slim_presence: Params.optionalBoolean(false) },
      success: Envelope.Success({ presence: Schema.Union([ModernPresence, UserPresenceLegacy]) })
    }).annotate(OpenApi.Summary, "Get a user's presence"),
    HttpApiEndpoint.get("realm", "/realm/presence", {
      success: Envelope.Success({ presences: Presences, server_timestamp: Schema.Finite })
    }).annotate(OpenApi.Summary, "Get presence of all users")
  )
  .middleware(Authentication)
{}
