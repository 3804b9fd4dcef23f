/**
 * Channels (Zulip's "streams") and per-user subscriptions.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { GroupSettingValue } from "./GroupSetting.ts"
import { ChannelId, FolderId, MessageId, RealmId, UserId } from "./Ids.ts"
import { TopicsPolicy } from "./Realm.ts"

/** Channel permission settings (group-setting values). @category models */
export const ChannelPermissionSettings = Schema.Struct({
  can_add_subscribers_group: GroupSettingValue,
  can_remove_subscribers_group: GroupSettingValue,
  can_administer_channel_group: GroupSettingValue,
  can_delete_any_message_group: GroupSettingValue,
  can_delete_own_message_group: GroupSettingValue,
  can_move_messages_out_of_channel_group: GroupSettingValue,
  can_move_messages_within_channel_group: GroupSettingValue,
  can_send_message_group: GroupSettingValue,
  can_subscribe_group: GroupSettingValue,
  can_resolve_topics_group: GroupSettingValue
})
/** @category models */
export type ChannelPermissionSettings = typeof ChannelPermissionSettings.Type

/** @category models */
export const Channel = Schema.Struct({
  id: ChannelId,
  realm_id: RealmId,
  name: Schema.String,
  description: Schema.String,
  rendered_description: Schema.String,
  /** Seconds since the epoch. */
  date_created: Schema.Int,
  creator_id: Schema.NullOr(UserId),
  invite_only: Schema.Boolean,
  is_web_public: Schema.Boolean,
  is_archived: Schema.Boolean,
  history_public_to_subscribers: Schema.Boolean,
  /** null inherits the organization; -1 keeps forever. */
  message_retention_days: Schema.NullOr(Schema.Int),
  topics_policy: TopicsPolicy,
  first_message_id: Schema.NullOr(MessageId),
  folder_id: Schema.NullOr(FolderId),
  is_recently_active: Schema.Boolean,
  is_default: Schema.Boolean,
  settings: ChannelPermissionSettings
})
/** @category models */
export type Channel = typeof Channel.Type

/** Limits Zulip reports in register. @category constants */
export const MaxChannelNameLength = 60
/** @category constants */
export const MaxChannelDescriptionLength = 1024

/**
 * Per-user properties of a subscription. Notification overrides are null when
 * they inherit the user's global setting.
 *
 * @category models
 */
export const SubscriptionProperties = Schema.Struct({
  color: Schema.String,
  pin_to_top: Schema.Boolean,
  is_muted: Schema.Boolean,
  desktop_notifications: Schema.NullOr(Schema.Boolean),
  email_notifications: Schema.NullOr(Schema.Boolean),
  push_notifications: Schema.NullOr(Schema.Boolean),
  audible_notifications: Schema.NullOr(Schema.Boolean),
  wildcard_mentions_notify: Schema.NullOr(Schema.Boolean)
})
/** @category models */
export type SubscriptionProperties = typeof SubscriptionProperties.Type

/** @category models */
export const Subscription = Schema.Struct({
  user_id: UserId,
  channel_id: ChannelId,
  /** false once the user unsubscribed; the row keeps the properties. */
  active: Schema.Boolean,
  properties: SubscriptionProperties
})
/** @category models */
export type Subscription = typeof Subscription.Type

/** The colour palette Zulip picks new subscription colours from, in order. @category constants */
export const SubscriptionColors = [
  "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
  "#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
  "#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462"
] as const

/**
 * The properties of a new subscription, given the user's other
 * subscriptions: Zulip's first palette colour the user does not use yet
 * (cycling once all are taken), and no notification overrides.
 *
 * @category constructors
 */
export const newSubscriptionProperties = (existing: ReadonlyArray<Subscription>): SubscriptionProperties => {
  const used = new Set(existing.map((s) => s.properties.color))
  return {
    color: SubscriptionColors.find((c) => !used.has(c)) ?? SubscriptionColors[existing.length % SubscriptionColors.length]!,
    pin_to_top: false,
    is_muted: false,
    desktop_notifications: null,
    email_notifications: null,
    push_notifications: null,
    audible_notifications: null,
    wildcard_mentions_notify: null
  }
}
