/**
 * What every area of the repository contract shares: unique names, rows to
 * insert, sorted views of group membership, and a seeded organization.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { Channel, Subscription, SubscriptionProperties } from "../../../src/domain/Channel.ts"
import type { GroupSettingValue } from "../../../src/domain/GroupSetting.ts"
import { groupId, userId } from "../../../src/domain/Ids.ts"
import type { ChannelId, RealmId, UserId } from "../../../src/domain/Ids.ts"
import type { Realm, RealmSettings } from "../../../src/domain/Realm.ts"
import type { User } from "../../../src/domain/User.ts"
import { placeholderEmail } from "../../../src/domain/User.ts"
import type { GroupMembership, GroupPermissionSettings, UserGroup } from "../../../src/domain/UserGroup.ts"
import type { Insert } from "../../../src/ports/Repositories.ts"
import { RealmRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import * as MessagesFixtures from "../MessagesFixtures.ts"

let counter = 0
/** A value no other test (of any backend in this process) uses. */
export const unique = (prefix: string): string => `${prefix}${++counter}`

export const anonymous = (members: ReadonlyArray<number>, subgroups: ReadonlyArray<number>): GroupSettingValue => ({
  direct_members: members.map(userId),
  direct_subgroups: subgroups.map(groupId)
})

export const realmSettings = (named: number): RealmSettings => ({
  email_address_visibility: 1,
  enable_spectator_access: false,
  invite_required: true,
  emails_restricted_to_domains: false,
  email_auth_enabled: true,
  allow_message_editing: true,
  message_content_edit_limit_seconds: 600,
  move_messages_within_stream_limit_seconds: 604800,
  message_edit_history_visibility_policy: "all",
  enable_read_receipts: false,
  require_unique_names: false,
  waiting_period_threshold: 0,
  message_retention_days: null,
  topics_policy: "inherit",
  message_content_delete_limit_seconds: 600,
  can_access_all_users_group: groupId(named),
  can_create_groups: anonymous([1, 2], [3]),
  can_manage_all_groups: anonymous([], []),
  can_create_public_channel_group: groupId(named + 1),
  can_create_private_channel_group: anonymous([7], []),
  can_create_web_public_channel_group: groupId(named),
  can_add_subscribers_group: groupId(named),
  can_invite_users_group: groupId(named),
  can_move_messages_between_channels_group: groupId(named),
  can_move_messages_between_topics_group: groupId(named),
  can_delete_any_message_group: groupId(named),
  can_delete_own_message_group: groupId(named),
  can_mention_many_users_group: anonymous([4], [5, 6])
})

export const newRealm = (overrides: Partial<Insert<Realm>> = {}): Insert<Realm> => {
  const string_id = unique("org")
  return {
    string_id,
    name: `Organization ${string_id}`,
    description: "An organization",
    url: `http://${string_id}.localhost:9991`,
    fake_email_domain: `${string_id}.localhost`,
    deactivated: false,
    demo: false,
    date_created: 1_700_000_000_123,
    settings: realmSettings(1),
    ...overrides
  }
}

export const newUser = (realm: RealmId, overrides: Partial<Insert<User>> = {}) => (id: UserId): Insert<User> => {
  const name = unique("user")
  return {
    realm_id: realm,
    delivery_email: `${name}@example.com`,
    email: placeholderEmail(id, "example.localhost"),
    full_name: `User ${name}`,
    role: 400,
    is_bot: false,
    bot_type: null,
    bot_owner_id: null,
    is_active: true,
    timezone: "Europe/Paris",
    avatar_source: "G",
    avatar_version: 1,
    date_joined: 1_700_000_000_456,
    email_address_visibility: 1,
    api_key: unique("key"),
    password_hash: null,
    can_change_user_emails: false,
    ...overrides
  }
}

export const groupSettings = (named: number): GroupPermissionSettings => ({
  can_add_members_group: groupId(named),
  can_join_group: anonymous([1], [named]),
  can_leave_group: anonymous([], [named, named + 1]),
  can_manage_group: anonymous([2, 3], []),
  can_mention_group: groupId(named + 1),
  can_remove_members_group: groupId(named)
})

export const newGroup = (realm: RealmId, overrides: Partial<Insert<UserGroup>> = {}): Insert<UserGroup> => ({
  realm_id: realm,
  name: unique("group"),
  description: "A group",
  is_system_group: false,
  creator_id: null,
  date_created: null,
  deactivated: false,
  settings: groupSettings(1),
  ...overrides
})

export const channelSettings = (named: number) => ({
  can_add_subscribers_group: groupId(named),
  can_remove_subscribers_group: anonymous([1], [named]),
  can_administer_channel_group: groupId(named),
  can_delete_any_message_group: groupId(named),
  can_delete_own_message_group: anonymous([], []),
  can_move_messages_out_of_channel_group: groupId(named),
  can_move_messages_within_channel_group: groupId(named),
  can_send_message_group: anonymous([2, 3], [named + 1]),
  can_subscribe_group: groupId(named),
  can_resolve_topics_group: groupId(named)
})

/** The message fixtures' channel, with a description and varied permission settings to round-trip. */
export const newChannel = (realm: RealmId, overrides: Partial<Insert<Channel>> = {}): Insert<Channel> =>
  MessagesFixtures.newChannel(realm, {
    name: unique("channel"),
    description: "A channel",
    rendered_description: "<p>A channel</p>",
    settings: channelSettings(1),
    ...overrides
  })

export const properties = (overrides: Partial<SubscriptionProperties> = {}): SubscriptionProperties => ({
  color: "#76ce90",
  pin_to_top: false,
  is_muted: false,
  desktop_notifications: null,
  email_notifications: null,
  push_notifications: null,
  audible_notifications: null,
  wildcard_mentions_notify: null,
  ...overrides
})

export const subscription = (user: UserId, channel: ChannelId, overrides: Partial<Subscription> = {}): Subscription => ({
  user_id: user,
  channel_id: channel,
  active: true,
  properties: properties(),
  ...overrides
})

/** Membership as sorted arrays, so the comparison does not depend on Map/Set order. */
export type SortedEdges = Array<[number, Array<number>]>
export const sortedMembership = (membership: GroupMembership): { members: SortedEdges; subgroups: SortedEdges } => {
  const flatten = (map: ReadonlyMap<number, ReadonlySet<number>>): SortedEdges =>
    Array.from(map.entries())
      .map(([key, set]): [number, Array<number>] => [key, Array.from(set).sort((a, b) => a - b)])
      .sort(([a], [b]) => a - b)
  return { members: flatten(membership.members), subgroups: flatten(membership.subgroups) }
}

export const ids = (rows: ReadonlyArray<{ readonly id: number }>): Array<number> => rows.map((row) => row.id)

export class Boom extends Data.TaggedError("Boom")<{}> {}

/** Creates an organization with two users, for tests that need some rows. */
export const seed = Effect.gen(function*() {
  const realms = yield* RealmRepo
  const users = yield* UserRepo
  const realm = yield* realms.insert(newRealm())
  const alice = yield* users.insert(newUser(realm.id))
  const bob = yield* users.insert(newUser(realm.id))
  return { realm, alice, bob }
})
