/**
 * The `users` group: GET /users (open to spectators when the organization
 * allows them), GET /users/me and GET /users/{user_id} or /users/{email}
 * (one route: a numeric segment is an id, anything else an email address,
 * real or placeholder), DELETE /users/me (deactivating one's own account),
 * PATCH /users/{user_id_or_email}, DELETE /users/{user_id} and POST
 * /users/{user_id}/reactivate.
 *
 * @since 0.1.0
 */
import { Errors, EventPayload, Role } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication, OptionalAuthentication } from "./Middleware.ts"
import { ProfileDataEntries } from "./ProfileFields.ts"

/** @category schemas */
export const ProfileData = EventPayload.EventProfileData

/** A user as GET /users lists it (and `realm_user add` announces them). @category schemas */
export const User = EventPayload.EventUser

/** The fields of GET /users/me. @category schemas */
export const OwnUser = {
  avatar_url: Schema.String,
  avatar_version: Schema.Int,
  email: Schema.String,
  full_name: Schema.String,
  is_admin: Schema.Boolean,
  is_owner: Schema.Boolean,
  role: Role.Role,
  is_guest: Schema.Boolean,
  is_bot: Schema.Boolean,
  is_active: Schema.Boolean,
  timezone: Schema.String,
  date_joined: Schema.String,
  max_message_id: Schema.Int,
  user_id: Schema.Int,
  delivery_email: Schema.String,
  profile_data: Schema.optionalKey(ProfileData)
}

const viewQuery = {
  client_gravatar: Params.optionalBoolean(true),
  include_custom_profile_fields: Params.optionalBoolean(false)
}

/** A role code as JSON: "role is not an integer", then "Invalid role" for an unknown code. */
export const RoleParam = Params.json(
  Params.Value.integer.pipe(Schema.decodeTo(Role.Role)),
  "JSON integer: 100 owner, 200 administrator, 300 moderator, 400 member, 600 guest."
)

const userId = { user_id: Params.PathId(() => new Errors.NoSuchUser(), "The target user's id.") }

/** @category groups */
export class UsersApi extends HttpApiGroup.make("users")
  .add(
    HttpApiEndpoint.get("list", "/users", {
      query: { ...viewQuery, user_ids: Schema.optionalKey(Params.JsonIntegerList) },
      success: Envelope.Success({ members: Schema.Array(User) })
    })
      .middleware(OptionalAuthentication)
      .annotate(OpenApi.Summary, "Get users"),
    HttpApiEndpoint.get("me", "/users/me", {
      success: Envelope.Success(OwnUser)
    })
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Get own user"),
    HttpApiEndpoint.delete("deactivateOwn", "/users/me", {
      success: Envelope.Success({})
    })
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Deactivate own user")
      .annotate(
        OpenApi.Description,
        "Deactivates the caller's account (and the bots they own). The organization's only active user or only " +
          "active owner is refused with `CANNOT_DEACTIVATE_LAST_USER`."
      ),
    HttpApiEndpoint.get("get", "/users/:user_id_or_email", {
      params: {
        user_id_or_email: Schema.String.annotate({ description: "A user id, or an email address (real or placeholder)." })
      },
      query: viewQuery,
      success: Envelope.Success({ user: User })
    })
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Get a user by id or email"),
    HttpApiEndpoint.patch("update", "/users/:user_id_or_email", {
      params: {
        user_id_or_email: Schema.String.annotate({ description: "A user id, or an email address (real or placeholder)." })
      },
      query: {
        full_name: Schema.optionalKey(Params.stringWithNullMessage("Invalid characters in name!")),
        role: Schema.optionalKey(RoleParam),
        profile_data: Schema.optionalKey(ProfileDataEntries),
        new_email: Schema.optionalKey(
          Schema.String.annotate({
            description: "The user's new address: administrators with the `can_change_user_emails` permission only."
          })
        )
      },
      success: Envelope.Success({})
    })
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Update a user by id or email"),
    HttpApiEndpoint.delete("deactivate", "/users/:user_id", {
      params: userId,
      success: Envelope.Success({})
    })
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Deactivate a user"),
    HttpApiEndpoint.post("reactivate", "/users/:user_id/reactivate", {
      params: userId,
      success: Envelope.Success({})
    })
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Reactivate a user")
  )
{}
