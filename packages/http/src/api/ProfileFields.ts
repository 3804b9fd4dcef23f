/**
 * The `profileFields` group: the organization's custom profile fields (GET,
 * POST and PATCH /realm/profile_fields, PATCH and DELETE
 * /realm/profile_fields/{field_id}) and a user's own values (PATCH
 * /users/me/profile_data).
 *
 * @since 0.1.0
 */
import { EventPayload } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

/** A field as GET /realm/profile_fields and register show it. @category schemas */
export const ProfileField = EventPayload.EventProfileField

/** `field_data`: a JSON object, checked by the field's type in core. */
const FieldData = Params.json(
  Params.Value.record(Schema.Unknown),
  "JSON object: options `{key: {text, order}}` for lists of options, `{subtype, url_pattern}` for external accounts."
)

/** `profile_data` / `data`: `[{id, value}]`, value a string, a list of user ids, or null to clear. */
export const ProfileDataEntries = Params.json(
  Params.Value.list(Params.Value.struct({
    id: Params.Value.integer,
    value: Params.Value.nullOr(Params.Value.oneOf(Params.Value.string, Params.Value.list(Params.Value.integer)))
  })),
  "JSON list of `{\"id\": field id, \"value\": text, list of user ids, or null}`."
)

const fieldId = {
  field_id: Schema.String.annotate({ description: "The custom profile field's id." })
}

const definition = {
  name: Schema.optionalKey(Schema.String),
  hint: Schema.optionalKey(Schema.String),
  field_data: Schema.optionalKey(FieldData),
  display_in_profile_summary: Schema.optionalKey(Params.JsonBoolean),
  required: Schema.optionalKey(Params.JsonBoolean),
  editable_by_user: Schema.optionalKey(Params.JsonBoolean)
}

/** @category groups */
export class ProfileFieldsApi extends HttpApiGroup.make("profileFields")
  .add(
    HttpApiEndpoint.get("list", "/realm/profile_fields", {
      success: Envelope.Success({ custom_fields: Schema.Array(ProfileField) })
    }).annotate(OpenApi.Summary, "Get all custom profile fields"),
    HttpApiEndpoint.post("create", "/realm/profile_fields", {
      query: { field_type: Params.JsonInteger, ...definition },
      success: Envelope.Success({ id: Schema.Int })
    }).annotate(OpenApi.Summary, "Create a custom profile field"),
    HttpApiEndpoint.patch("reorder", "/realm/profile_fields", {
      query: { order: Params.JsonIntegerList },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Reorder custom profile fields"),
    HttpApiEndpoint.patch("update", "/realm/profile_fields/:field_id", {
      params: fieldId,
      query: definition,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update a custom profile field"),
    HttpApiEndpoint.delete("remove", "/realm/profile_fields/:field_id", {
      params: fieldId,
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Delete a custom profile field"),
    HttpApiEndpoint.patch("updateOwnData", "/users/me/profile_data", {
      query: { data: ProfileDataEntries },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update your custom profile data")
  )
  .middleware(Authentication)
{}
