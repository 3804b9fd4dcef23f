/**
 * Shared fixtures for the message tests (repository contract, narrow
 * interpreters): backend layers exposing MessageRepo and MessageStore, and builders for an
 * organization with users and channels inserted through the repositories.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as SqlClient from "effect/sql/SqlClient"
import type { Channel } from "../../src/domain/Channel.ts"
import { groupId } from "../../src/domain/Ids.ts"
import type { ChannelId, RealmId, UserId } from "../../src/domain/Ids.ts"
import type { Message } from "../../src/domain/Message.ts"
import { dmParticipants } from "../../src/domain/Message.ts"
import type { Realm } from "../../src/domain/Realm.ts"
import type { User } from "../../src/domain/User.ts"
import { placeholderEmail } from "../../src/domain/User.ts"
import { MemoryDatabase } from "../../src/memory/MemoryDatabase.ts"
import * as MemoryAccessCache from "../../src/memory/MemoryAccessCache.ts"
import * as MemoryEventStore from "../../src/memory/MemoryEventStore.ts"
import * as MemoryMessageStore from "../../src/memory/MemoryMessageStore.ts"
import * as MemoryRepositories from "../../src/memory/MemoryRepositories.ts"
import * as MemoryTransactor from "../../src/memory/MemoryTransactor.ts"
import type { MessageStore } from "../../src/ports/MessageStore.ts"
import type { Insert } from "../../src/ports/Repositories.ts"
import {
  AlertWordRepo,
  ChannelRepo,
  GroupRepo,
  MessageRepo,
  RealmRepo,
  SubscriptionRepo,
  UserRepo,
  UserSettingsRepo
} from "../../src/ports/Repositories.ts"
import * as SqlAccessCache from "../../src/sql/SqlAccessCache.ts"
import * as SqlEventStore from "../../src/sql/SqlEventStore.ts"
import * as SqlMessageStore from "../../src/sql/SqlMessageStore.ts"
import * as SqlRepositories from "../../src/sql/SqlRepositories.ts"
import * as SqlTransactor from "../../src/sql/SqlTransactor.ts"
import type { Transactor } from "../../src/ports/Transactor.ts"
import * as Migrations from "../../src/sql/Migrations.ts"

/** What the message tests need from a backend. */
export type Repos =
  | RealmRepo
  | UserRepo
  | GroupRepo
  | ChannelRepo
  | SubscriptionRepo
  | UserSettingsRepo
  | AlertWordRepo
  | MessageRepo
  | MessageStore
  | Transactor

/** Memory repositories and message store over a fresh MemoryDatabase, which is exposed too. */
export const memoryLayer = (): Layer.Layer<Repos | MemoryDatabase> =>
  MemoryMessageStore.layer.pipe(
    Layer.provideMerge(MemoryEventStore.layer),
    Layer.provideMerge(Layer.mergeAll(MemoryRepositories.layer, MemoryAccessCache.layer, MemoryTransactor.layer)),
    Layer.provideMerge(MemoryDatabase.layer)
  )

/** SQL repositories and message store over a migrated database behind `client`, which is exposed too. */
export const sqlLayer = <E>(
  client: Layer.Layer<SqlClient.SqlClient, E>
): Layer.Layer<Repos | SqlClient.SqlClient, unknown> =>
  SqlMessageStore.layer.pipe(
    Layer.provide(SqlEventStore.layer),
    Layer.provideMerge(Layer.mergeAll(SqlRepositories.layer, SqlTransactor.layer)),
    Layer.provide(SqlAccessCache.layer),
    Layer.provide(Migrations.layer),
    Layer.provideMerge(client)
  )

let counter = 0
/** A value no other test of this process uses. */
export const unique = (prefix: string): string => `${prefix}${++counter}`

const everyone = groupId(1)

/** An organization with every permission held by one group; `string_id` defaults to a unique one. */
export const newRealm = (string_id: string = unique("msgorg")): Insert<Realm> => {
  return {
    string_id,
    name: string_id,
    description: "",
    url: `http://${string_id}.localhost`,
    fake_email_domain: `${string_id}.localhost`,
    deactivated: false,
    demo: false,
    date_created: 1_700_000_000_000,
    settings: {
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
      can_access_all_users_group: everyone,
      can_create_groups: everyone,
      can_manage_all_groups: everyone,
      can_create_public_channel_group: everyone,
      can_create_private_channel_group: everyone,
      can_create_web_public_channel_group: everyone,
      can_add_subscribers_group: everyone,
      can_invite_users_group: everyone,
      can_move_messages_between_channels_group: everyone,
      can_move_messages_between_topics_group: everyone,
      can_delete_any_message_group: everyone,
      can_delete_own_message_group: everyone,
      can_mention_many_users_group: { direct_members: [], direct_subgroups: [] }
    }
  }
}

export const newUser = (realm: Realm, overrides: Partial<Insert<User>> = {}) => (id: UserId): Insert<User> => {
  const name = unique("msguser")
  return {
    realm_id: realm.id,
    delivery_email: `${name}@example.com`,
    email: placeholderEmail(id, realm.fake_email_domain),
    full_name: `User ${name}`,
    role: 400,
    is_bot: false,
    bot_type: null,
    bot_owner_id: null,
    is_active: true,
    timezone: "UTC",
    avatar_source: "G",
    avatar_version: 1,
    date_joined: 1_700_000_000_000,
    email_address_visibility: 1,
    api_key: unique("msgkey"),
    password_hash: null,
    can_change_user_emails: false,
    ...overrides
  }
}

export const newChannel = (realm: RealmId, overrides: Partial<Insert<Channel>> = {}): Insert<Channel> => ({
  realm_id: realm,
  name: unique("msgchannel"),
  description: "",
  rendered_description: "",
  date_created: 1_700_000_000,
  creator_id: null,
  invite_only: false,
  is_web_public: false,
  is_archived: false,
  history_public_to_subscribers: true,
  message_retention_days: null,
  topics_policy: "inherit",
  first_message_id: null,
  folder_id: null,
  is_recently_active: true,
  is_default: false,
  settings: {
    can_add_subscribers_group: everyone,
    can_remove_subscribers_group: everyone,
    can_administer_channel_group: everyone,
    can_delete_any_message_group: everyone,
    can_delete_own_message_group: everyone,
    can_move_messages_out_of_channel_group: everyone,
    can_move_messages_within_channel_group: everyone,
    can_send_message_group: everyone,
    can_subscribe_group: everyone,
    can_resolve_topics_group: everyone
  },
  ...overrides
})

/** An organization with `users` users and `channels` channels (the given overrides, in order). */
export const seedOrganization = (options: {
  readonly users: number
  readonly channels: ReadonlyArray<Partial<Insert<Channel>>>
}) =>
  Effect.gen(function*() {
    const realm = yield* (yield* RealmRepo).insert(newRealm())
    const userRepo = yield* UserRepo
    const users: Array<User> = []
    for (let i = 0; i < options.users; i++) users.push(yield* userRepo.insert(newUser(realm)))
    const channelRepo = yield* ChannelRepo
    const channels: Array<Channel> = []
    for (const overrides of options.channels) channels.push(yield* channelRepo.insert(newChannel(realm.id, overrides)))
    return { realm, users, channels }
  })

const baseMessage = {
  rendered_content: "",
  date_sent: 1_700_000_100,
  client: "website",
  has_attachment: false,
  has_image: false,
  has_link: false,
  last_edit_time: null
}

export const channelMessage = (
  realm: RealmId,
  sender: UserId,
  channel: ChannelId,
  topic: string,
  content: string,
  overrides: Partial<Insert<Message>> = {}
): Insert<Message> => ({
  ...baseMessage,
  realm_id: realm,
  sender_id: sender,
  type: "stream",
  channel_id: channel,
  topic,
  dm_user_ids: [],
  content,
  rendered_content: `<p>${content}</p>`,
  ...overrides
})

export const directMessage = (
  realm: RealmId,
  sender: UserId,
  to: ReadonlyArray<UserId>,
  content: string,
  overrides: Partial<Insert<Message>> = {}
): Insert<Message> => ({
  ...baseMessage,
  realm_id: realm,
  sender_id: sender,
  type: "private",
  channel_id: null,
  topic: "",
  dm_user_ids: dmParticipants([sender, ...to]),
  content,
  rendered_content: `<p>${content}</p>`,
  ...overrides
})
