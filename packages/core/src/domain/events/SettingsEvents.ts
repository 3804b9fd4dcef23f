/**
 * The events about one user's own settings, to that user's clients: a
 * setting (`user_settings`, and the legacy `update_display_settings` and
 * `update_global_notifications` for clients without `user_settings_object`),
 * alert words (`alert_words`) and push devices (`push_device`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A setting's value (null only for a setting that allows it). @category schemas */
export const SettingValue = Schema.NullOr(Schema.Union([Schema.Boolean, Schema.Int, Schema.String]))

/** @category schemas */
export const UserSettingsUpdateEvent = Schema.Struct({
  type: Schema.Literal("user_settings"),
  op: Schema.Literal("update"),
  property: Schema.String,
  value: SettingValue,
  /** `default_language` only: the language's name in English. */
  language_name: Schema.optionalKey(Schema.String)
})

/** Deprecated (Zulip 5.0): a display setting, for clients without `user_settings_object`. @category schemas */
export const UpdateDisplaySettingsEvent = Schema.Struct({
  type: Schema.Literal("update_display_settings"),
  /** The user's API email. */
  user: Schema.String,
  setting_name: Schema.String,
  setting: SettingValue,
  language_name: Schema.optionalKey(Schema.String)
})

/** Deprecated (Zulip 5.0): a notification setting, for clients without `user_settings_object`. @category schemas */
export const UpdateGlobalNotificationsEvent = Schema.Struct({
  type: Schema.Literal("update_global_notifications"),
  user: Schema.String,
  notification_name: Schema.String,
  setting: SettingValue
})

/** The user's alert words, all of them. @category schemas */
export const AlertWordsEvent = Schema.Struct({
  type: Schema.Literal("alert_words"),
  alert_words: Schema.Array(Schema.String)
})

/** A push device's registration changed state; `error_code` only when it failed. @category schemas */
export const PushDeviceEvent = Schema.Struct({
  type: Schema.Literal("push_device"),
  push_account_id: Schema.String,
  status: Schema.Literals(["active", "failed", "pending"]),
  error_code: Schema.optionalKey(Schema.String)
})
