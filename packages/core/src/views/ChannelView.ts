/**
 * The API shapes of a channel (GET /streams element) and of a subscription
 * (register's `subscriptions`, subscription events).
 *
 * @since 0.1.0
 */
import type { Channel, Subscription } from "../domain/Channel.ts"
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import type { TopicsPolicy } from "../domain/Realm.ts"
import type { SystemGroupIds } from "../domain/UserGroup.ts"

/** @category models */
export interface ApiChannel {
  readonly stream_id: number
  readonly name: string
  readonly is_archived: boolean
  readonly description: string
  readonly rendered_description: string
  readonly date_created: number
  readonly creator_id: number | null
  readonly invite_only: boolean
  readonly is_web_public: boolean
  readonly stream_post_policy: 1 | 2 | 3 | 4
  readonly is_announcement_only: boolean
  readonly message_retention_days: number | null
  readonly history_public_to_subscribers: boolean
  readonly topics_policy: TopicsPolicy
  readonly first_message_id: number | null
  readonly folder_id: number | null
  readonly is_recently_active: boolean
  readonly can_add_subscribers_group: GroupSettingValue
  readonly can_remove_subscribers_group: GroupSettingValue
  readonly can_administer_channel_group: GroupSettingValue
  readonly can_delete_any_message_group: GroupSettingValue
  readonly can_delete_own_message_group: GroupSettingValue
  readonly can_move_messages_out_of_channel_group: GroupSettingValue
  readonly can_move_messages_within_channel_group: GroupSettingValue
  readonly can_send_message_group: GroupSettingValue
  readonly can_subscribe_group: GroupSettingValue
  readonly can_resolve_topics_group: GroupSettingValue
  readonly subscriber_count: number
  readonly stream_weekly_traffic: number | null
  readonly is_default?: boolean
}

/** Ids of the system groups a channel's legacy `stream_post_policy` is derived from. @category models */
export interface PostPolicyGroups {
  readonly administrators: number
  readonly fullmembers: number
  readonly moderators: number
}

/** The post policy groups among an organization's system groups. @category views */
export const postPolicyGroupsOf = (ids: SystemGroupIds): PostPolicyGroups => ({
  administrators: ids["role:administrators"],
  fullmembers: ids["role:fullmembers"],
  moderators: ids["role:moderators"]
})

/**
 * The deprecated `stream_post_policy`, derived from `can_send_message_group`
 * the way Zulip does: 2 admins only, 3 full members, 4 moderators, else 1.
 *
 * @category views
 */
export const streamPostPolicy = (value: GroupSettingValue, groups: PostPolicyGroups): 1 | 2 | 3 | 4 => {
  if (value === groups.administrators) return 2
  if (value === groups.fullmembers) return 3
  if (value === groups.moderators) return 4
  return 1
}

/** @category views */
export const toApiChannel = (
  channel: Channel,
  subscriberCount: number,
  groups: PostPolicyGroups,
  options: { readonly includeDefault: boolean } = { includeDefault: false }
): ApiChannel => {
  const policy = streamPostPolicy(channel.settings.can_send_message_group, groups)
  const api: ApiChannel = {
    stream_id: channel.id,
    name: channel.name,
    is_archived: channel.is_archived,
    description: channel.description,
    rendered_description: channel.rendered_description,
    date_created: channel.date_created,
    creator_id: channel.creator_id,
    invite_only: channel.invite_only,
    is_web_public: channel.is_web_public,
    stream_post_policy: policy,
    is_announcement_only: policy === 2,
    message_retention_days: channel.message_retention_days,
    history_public_to_subscribers: channel.history_public_to_subscribers,
    topics_policy: channel.topics_policy,
    first_message_id: channel.first_message_id,
    folder_id: channel.folder_id,
    is_recently_active: channel.is_recently_active,
    ...channel.settings,
    subscriber_count: subscriberCount,
    stream_weekly_traffic: null
  }
  return options.includeDefault ? { ...api, is_default: channel.is_default } : api
}

/** A subscription as register and subscription events report it. @category models */
export interface ApiSubscription extends Omit<ApiChannel, "is_default" | "subscriber_count" | "stream_weekly_traffic"> {
  readonly color: string
  readonly pin_to_top: boolean
  readonly is_muted: boolean
  readonly in_home_view: boolean
  readonly desktop_notifications: boolean | null
  readonly email_notifications: boolean | null
  readonly push_notifications: boolean | null
  readonly audible_notifications: boolean | null
  readonly wildcard_mentions_notify: boolean | null
  readonly subscriber_count: number
  readonly stream_weekly_traffic: number | null
  readonly subscribers?: ReadonlyArray<number>
}

/** @category views */
export const toApiSubscription = (
  channel: Channel,
  subscription: Subscription,
  subscriberIds: ReadonlyArray<number>,
  groups: PostPolicyGroups,
  options: { readonly includeSubscribers: boolean }
): ApiSubscription => {
  const { is_default: _isDefault, ...api } = toApiChannel(channel, subscriberIds.length, groups)
  const p = subscription.properties
  const sub: ApiSubscription = {
    ...api,
    color: p.color,
    pin_to_top: p.pin_to_top,
    is_muted: p.is_muted,
    in_home_view: !p.is_muted,
    desktop_notifications: p.desktop_notifications,
    email_notifications: p.email_notifications,
    push_notifications: p.push_notifications,
    audible_notifications: p.audible_notifications,
    wildcard_mentions_notify: p.wildcard_mentions_notify
  }
  return options.includeSubscribers ? { ...sub, subscribers: subscriberIds } : sub
}
