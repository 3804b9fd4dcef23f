/**
 * The `settings` group: PATCH /settings, the caller's personal settings.
 *
 * Every setting is a parameter of its own, typed as Zulip types it: booleans
 * and integers are JSON (`true`, `2`), strings are plain text
 * (`default_language=de`). Parameters that are not settings are reported in
 * `ignored_parameters_unsupported`. The change is announced with a
 * `user_settings` event and, to clients without the `user_settings_object`
 * capability, the legacy `update_display_settings` /
 * `update_global_notifications` events.
 *
 * @since 0.1.0
 */
import { Settings } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

const parameterOf = (type: Settings.SettingType) => {
  switch (type._tag) {
    case "bool":
    case "nullableBool":
      return Params.JsonBoolean
    case "int":
      return type.choices === undefined
        ? Params.JsonInteger
        : Params.JsonInteger.annotate({ description: `JSON integer, one of ${type.choices.join(", ")}.` })
    case "string":
      return type.choices === undefined
        ? Schema.String
        : Schema.String.annotate({ description: `One of ${type.choices.join(", ")}.` })
  }
}

/** One optional parameter per user setting, in Zulip's order. @category schemas */
export const SettingParams: Readonly<Record<string, Schema.optionalKey<Schema.Codec<unknown, string>>>> = Object
  .fromEntries(
    Object.entries(Settings.SettingTypes).map(([name, type]) => [name, Schema.optionalKey(parameterOf(type))])
  )

/** @category groups */
export class SettingsApi extends HttpApiGroup.make("settings")
  .add(
    HttpApiEndpoint.patch("update", "/settings", {
      query: {
        full_name: Schema.optionalKey(Params.stringWithNullMessage("Invalid characters in name!")),
        email: Schema.optionalKey(Schema.String),
        old_password: Schema.optionalKey(Schema.String),
        new_password: Schema.optionalKey(Schema.String),
        ...SettingParams
      },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Update settings")
  )
  .middleware(Authentication)
{}
