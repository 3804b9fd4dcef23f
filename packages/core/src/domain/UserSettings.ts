/**
 * Per-user settings: Zulip's defaults (`UserBaseSettings`), their value
 * types and allowed values, and the legacy groupings used by the
 * `update_display_settings` / `update_global_notifications` events.
 *
 * `timezone` and `email_address_visibility` live on the user record; the
 * other settings are stored as the values that differ from these defaults.
 *
 * @since 0.1.0
 */

/** @category models */
export type SettingValue = boolean | number | string | null

/** How a setting's value is checked. @category models */
export type SettingType =
  | { readonly _tag: "bool" }
  | { readonly _tag: "nullableBool" }
  | { readonly _tag: "int"; readonly choices?: ReadonlyArray<number> }
  | { readonly _tag: "string"; readonly choices?: ReadonlyArray<string> }

const bool: SettingType = { _tag: "bool" }
const int = (choices?: ReadonlyArray<number>): SettingType => (choices === undefined ? { _tag: "int" } : { _tag: "int", choices })
const str = (choices?: ReadonlyArray<string>): SettingType =>
  choices === undefined ? { _tag: "string" } : { _tag: "string", choices }

/** The stored settings with their defaults, in Zulip's order. @category constants */
export const UserSettingDefaults = {
  enter_sends: false,
  left_side_userlist: false,
  default_language: "en",
  web_home_view: "inbox",
  web_escape_navigates_to_home_view: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  translate_emoticons: false,
  display_emoji_reaction_users: true,
  twenty_four_hour_time: false,
  starred_message_counts: true,
  web_suggest_update_timezone: true,
  color_scheme: 1,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  web_animate_image_previews: "on_hover",
  demote_inactive_streams: 1,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  emojiset: "google",
  user_list_style: 3,
  web_stream_unreads_count_display_policy: 2,
  web_left_sidebar_unreads_count_summary: true,
  web_left_sidebar_show_channel_folders: true,
  web_navigate_to_sent_message: true,
  email_notifications_batching_period_seconds: 120,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: "zulip",
  wildcard_mentions_notify: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  enable_desktop_notifications: true,
  pm_content_in_desktop_notifications: true,
  enable_sounds: true,
  enable_offline_email_notifications: true,
  message_content_in_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  desktop_icon_count_display: 1,
  enable_digest_emails: true,
  enable_login_emails: true,
  enable_marketing_emails: true,
  presence_enabled: true,
  realm_name_in_email_notifications_policy: 1,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  resolved_topic_notice_auto_read_policy: "except_followed",
  enable_drafts_synchronization: true,
  send_stream_typing_notifications: true,
  send_private_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  receives_typing_notifications: true,
  hide_ai_features: false
} as const satisfies Record<string, SettingValue>

/** @category models */
export type StoredSettingName = keyof typeof UserSettingDefaults

/** Settings PATCH /settings accepts, beyond the stored ones. @category models */
export type SettingName = StoredSettingName | "timezone" | "email_address_visibility"

const visibilityPolicy = [1, 2, 3]
const followPolicy = [1, 2, 3, 4]

/** Value types and choices (Zulip's `check_int_in_validator` / `check_string_in_validator`). @category constants */
export const SettingTypes: Readonly<Record<SettingName, SettingType>> = {
  enter_sends: bool,
  left_side_userlist: bool,
  default_language: str(),
  web_home_view: str(["recent_topics", "inbox", "all_messages"]),
  web_escape_navigates_to_home_view: bool,
  fluid_layout_width: bool,
  high_contrast_mode: bool,
  translate_emoticons: bool,
  display_emoji_reaction_users: bool,
  twenty_four_hour_time: bool,
  starred_message_counts: bool,
  web_suggest_update_timezone: bool,
  color_scheme: int([1, 2, 3]),
  web_font_size_px: int(),
  web_line_height_percent: int(),
  web_animate_image_previews: str(["always", "on_hover", "never"]),
  demote_inactive_streams: int([1, 2, 3]),
  web_mark_read_on_scroll_policy: int([1, 2, 3]),
  web_channel_default_view: int([1, 2, 3, 4]),
  emojiset: str(["google", "twitter", "text", "google-blob"]),
  user_list_style: int([1, 2, 3]),
  web_stream_unreads_count_display_policy: int([1, 2, 3]),
  web_left_sidebar_unreads_count_summary: bool,
  web_left_sidebar_show_channel_folders: bool,
  web_navigate_to_sent_message: bool,
  email_notifications_batching_period_seconds: int(),
  enable_stream_desktop_notifications: bool,
  enable_stream_email_notifications: bool,
  enable_stream_push_notifications: bool,
  enable_stream_audible_notifications: bool,
  notification_sound: str(),
  wildcard_mentions_notify: bool,
  enable_followed_topic_desktop_notifications: bool,
  enable_followed_topic_email_notifications: bool,
  enable_followed_topic_push_notifications: bool,
  enable_followed_topic_audible_notifications: bool,
  enable_followed_topic_wildcard_mentions_notify: bool,
  enable_desktop_notifications: bool,
  pm_content_in_desktop_notifications: bool,
  enable_sounds: bool,
  enable_offline_email_notifications: bool,
  message_content_in_email_notifications: bool,
  enable_offline_push_notifications: bool,
  enable_online_push_notifications: bool,
  desktop_icon_count_display: int([1, 2, 3, 4]),
  enable_digest_emails: bool,
  enable_login_emails: bool,
  enable_marketing_emails: bool,
  presence_enabled: bool,
  realm_name_in_email_notifications_policy: int(visibilityPolicy),
  automatically_follow_topics_policy: int(followPolicy),
  automatically_unmute_topics_in_muted_streams_policy: int(followPolicy),
  automatically_follow_topics_where_mentioned: bool,
  resolved_topic_notice_auto_read_policy: str(["always", "except_followed", "never"]),
  enable_drafts_synchronization: bool,
  send_stream_typing_notifications: bool,
  send_private_typing_notifications: bool,
  send_read_receipts: bool,
  allow_private_data_export: bool,
  receives_typing_notifications: bool,
  hide_ai_features: bool,
  timezone: str(),
  email_address_visibility: int([1, 2, 3, 4, 5])
}

/** Settings announced with the legacy `update_display_settings` event (plus `timezone`). @category constants */
export const DisplaySettingsLegacy: ReadonlyArray<SettingName> = [
  "color_scheme",
  "default_language",
  "web_home_view",
  "demote_inactive_streams",
  "emojiset",
  "enable_drafts_synchronization",
  "enter_sends",
  "fluid_layout_width",
  "high_contrast_mode",
  "left_side_userlist",
  "starred_message_counts",
  "translate_emoticons",
  "twenty_four_hour_time"
]

/** Settings announced with the legacy `update_global_notifications` event. @category constants */
export const NotificationSettingsLegacy: ReadonlyArray<SettingName> = [
  "desktop_icon_count_display",
  "email_notifications_batching_period_seconds",
  "enable_desktop_notifications",
  "enable_digest_emails",
  "enable_login_emails",
  "enable_marketing_emails",
  "enable_offline_email_notifications",
  "enable_offline_push_notifications",
  "enable_online_push_notifications",
  "enable_sounds",
  "enable_stream_audible_notifications",
  "enable_stream_desktop_notifications",
  "enable_stream_email_notifications",
  "enable_stream_push_notifications",
  "message_content_in_email_notifications",
  "notification_sound",
  "pm_content_in_desktop_notifications",
  "presence_enabled",
  "realm_name_in_email_notifications_policy",
  "wildcard_mentions_notify"
]

/** Notification sounds this server offers (`none` is also accepted). @category constants */
export const AvailableNotificationSounds: ReadonlyArray<string> = [
  "chime",
  "ding",
  "droplet",
  "ping",
  "zulip"
]

/** `emojiset_choices` of register. @category constants */
export const EmojisetChoices: ReadonlyArray<{ readonly key: string; readonly text: string }> = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
  { key: "google-blob", text: "Google blobs" }
]

/** Languages the server accepts for `default_language`, with the names Zulip shows. @category constants */
export const Languages: Readonly<Record<string, string>> = {
  ar: "العربيّة",
  be: "Беларуская",
  bg: "Български",
  bn: "বাংলা",
  ca: "Català",
  cs: "Čeština",
  cy: "Cymraeg",
  da: "Dansk",
  de: "Deutsch",
  el: "Ελληνικά",
  en: "English",
  en_GB: "British English",
  eo: "Esperanto",
  es: "Español",
  fa: "فارسی",
  fi: "Suomi",
  fr: "Français",
  gl: "Galego",
  gu: "ગુજરાતી",
  hi: "हिंदी",
  hu: "Magyar",
  id: "Bahasa Indonesia",
  it: "Italiano",
  ja: "日本語",
  ko: "한국어",
  lt: "Lietuviškai",
  ml: "മലയാളം",
  mn: "Монгол",
  nl: "Nederlands",
  no: "Norsk",
  pl: "Polski",
  pt: "Português",
  pt_BR: "Português Brasileiro",
  pt_PT: "Português Portugal",
  ro: "Română",
  ru: "Русский",
  si: "සිංහල",
  sr: "Српски",
  sv: "Svenska",
  ta: "தமிழ்",
  te: "తెలుగు",
  tl: "Tagalog",
  tr: "Türkçe",
  uk: "Українська",
  uz: "O‘zbek",
  vi: "Tiếng Việt",
  zh_Hans: "简体中文",
  zh_Hant: "繁體中文"
}

/** The stored settings of a user: defaults overlaid with the stored overrides. @category constructors */
export const resolveSettings = (
  overrides: Readonly<Record<string, unknown>>
): Record<StoredSettingName, SettingValue> => {
  const out: Record<string, SettingValue> = { ...UserSettingDefaults }
  for (const [key, value] of Object.entries(overrides)) {
    if (key in UserSettingDefaults) out[key] = value as SettingValue
  }
  return out as Record<StoredSettingName, SettingValue>
}

/** @category predicates */
export const isSettingName = (key: string): key is SettingName => key in SettingTypes
