/**
 * SQL implementations of the persistence ports (PostgreSQL dialect; runs on
 * PostgreSQL and PGlite), over the schema in `sql/Migrations.ts`.
 *
 * Every observable result matches MemoryRepositories.ts: rows come back by
 * id (subscriptions by channel id then user id), email and channel-name
 * lookups are case-insensitive, and rows decode into exactly the domain
 * records (numbers for BIGINT ids and times, booleans, nulls, JSONB settings).
 * SqlErrors are defects, as the port types say.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { Channel, ChannelPermissionSettings, Subscription } from "../domain/Channel.ts"
import { fromRow } from "../domain/Ids.ts"
import type { ChannelId, GroupId, MessageId, RealmId, UserId } from "../domain/Ids.ts"
import type { Message, MessageType, UserMessage } from "../domain/Message.ts"
import type { Realm, RealmSettings, TopicsPolicy } from "../domain/Realm.ts"
import type { BotType, EmailVisibility, Role } from "../domain/Role.ts"
import type { AvatarSource, User } from "../domain/User.ts"
import type { GroupMembership, GroupPermissionSettings, UserGroup } from "../domain/UserGroup.ts"
import {
  AlertWordRepo,
  ChannelRepo,
  GroupRepo,
  MessageRepo,
  RealmRepo,
  SubscriptionRepo,
  UserRepo,
  UserSettingsRepo
} from "../ports/Repositories.ts"
import { bigintArray, inIds, jsonList } from "./SqlArrays.ts"
import type { Insert } from "../ports/Repositories.ts"

// ---------------------------------------------------------------------------
// Column decoding. Drivers differ in how they hand back BIGINT (bigint or
// number), so every numeric column goes through Number; JSONB may arrive
// parsed or as text.

type Row = Readonly<Record<string, unknown>>

const int = (value: unknown): number => Number(value)
const intOrNull = (value: unknown): number | null => value === null || value === undefined ? null : Number(value)
const idOrNull = <I>(value: unknown, id: (n: number) => I): I | null =>
  value === null || value === undefined ? null : id(Number(value))
const bool = (value: unknown): boolean => value === true || value === "t" || value === 1
const boolOrNull = (value: unknown): boolean | null => value === null || value === undefined ? null : bool(value)
const str = (value: unknown): string => String(value)
const strOrNull = (value: unknown): string | null => value === null || value === undefined ? null : String(value)
const json = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A
const jsonText = (value: unknown): string => JSON.stringify(value)

const first = <A>(rows: ReadonlyArray<A>): A | undefined => rows[0]

// ---------------------------------------------------------------------------
// Realms

const realmColumns = (realm: Insert<Realm>) => ({
  string_id: realm.string_id,
  name: realm.name,
  description: realm.description,
  url: realm.url,
  fake_email_domain: realm.fake_email_domain,
  deactivated: realm.deactivated,
  date_created: realm.date_created,
  settings: jsonText(realm.settings)
})

const decodeRealm = (row: Row): Realm => ({
  id: fromRow.realmId(int(row.id)),
  string_id: str(row.string_id),
  name: str(row.name),
  description: str(row.description),
  url: str(row.url),
  fake_email_domain: str(row.fake_email_domain),
  deactivated: bool(row.deactivated),
  date_created: int(row.date_created),
  settings: json<RealmSettings>(row.settings)
})

/** @category layers */
export const realmRepo = Layer.effect(
  RealmRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return RealmRepo.of({
      insert: Effect.fn("RealmRepo.insert")(function*(row: Insert<Realm>) {
        const [inserted] = yield* sql<{ id: unknown }>`INSERT INTO realms ${sql.insert(realmColumns(row))} RETURNING id`
        const realm: Realm = { ...row, id: fromRow.realmId(int(inserted!.id)) }
        return realm
      }, Effect.orDie),
      update: Effect.fn("RealmRepo.update")(function*(realm: Realm) {
        yield* sql`UPDATE realms SET ${sql.update(realmColumns(realm))} WHERE id = ${realm.id}`
      }, Effect.orDie),
      findById: Effect.fn("RealmRepo.findById")(function*(id: RealmId) {
        const rows = yield* sql<Row>`SELECT * FROM realms WHERE id = ${id}`
        return first(rows.map(decodeRealm))
      }, Effect.orDie),
      findByStringId: Effect.fn("RealmRepo.findByStringId")(function*(stringId: string) {
        const rows = yield* sql<Row>`SELECT * FROM realms WHERE string_id = ${stringId} ORDER BY id LIMIT 1`
        return first(rows.map(decodeRealm))
      }, Effect.orDie),
      list: sql<Row>`SELECT * FROM realms ORDER BY id`.pipe(
        Effect.map((rows) => rows.map(decodeRealm)),
        Effect.orDie,
        Effect.withSpan("RealmRepo.list")
      )
    })
  })
)

// ---------------------------------------------------------------------------
// Users

const userColumns = (user: User) => ({
  id: user.id,
  realm_id: user.realm_id,
  delivery_email: user.delivery_email,
  email: user.email,
  full_name: user.full_name,
  role: user.role,
  is_bot: user.is_bot,
  bot_type: user.bot_type,
  bot_owner_id: user.bot_owner_id,
  is_active: user.is_active,
  timezone: user.timezone,
  avatar_source: user.avatar_source,
  avatar_version: user.avatar_version,
  date_joined: user.date_joined,
  email_address_visibility: user.email_address_visibility,
  api_key: user.api_key,
  password_hash: user.password_hash,
  can_change_user_emails: user.can_change_user_emails
})

const decodeUser = (row: Row): User => ({
  id: fromRow.userId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  delivery_email: str(row.delivery_email),
  email: str(row.email),
  full_name: str(row.full_name),
  role: int(row.role) as Role,
  is_bot: bool(row.is_bot),
  bot_type: intOrNull(row.bot_type) as BotType | null,
  bot_owner_id: idOrNull(row.bot_owner_id, fromRow.userId),
  is_active: bool(row.is_active),
  timezone: str(row.timezone),
  avatar_source: str(row.avatar_source) as AvatarSource,
  avatar_version: int(row.avatar_version),
  date_joined: int(row.date_joined),
  email_address_visibility: int(row.email_address_visibility) as EmailVisibility,
  api_key: str(row.api_key),
  password_hash: strOrNull(row.password_hash),
  can_change_user_emails: bool(row.can_change_user_emails)
})

const UserAddressesLock = 0x75737273 // "usrs"
const UserRolesLock = 0x726f6c65 // "role"

/** @category layers */
export const userRepo = Layer.effect(
  UserRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return UserRepo.of({
      insert: Effect.fn("UserRepo.insert")(function*(make: (id: UserId) => Insert<User>) {
        // Take the id first, so `make` can derive fields from it.
        const [next] = yield* sql<{ id: unknown }>`SELECT nextval(pg_get_serial_sequence('users', 'id')) AS id`
        const id = fromRow.userId(int(next!.id))
        const user: User = { ...make(id), id }
        yield* sql`INSERT INTO users ${sql.insert(userColumns(user))}`
        return user
      }, Effect.orDie),
      update: Effect.fn("UserRepo.update")(function*(user: User) {
        yield* sql`UPDATE users SET ${sql.update(userColumns(user), ["id"])} WHERE id = ${user.id}`
      }, Effect.orDie),
      findById: Effect.fn("UserRepo.findById")(function*(id: UserId) {
        const rows = yield* sql<Row>`SELECT * FROM users WHERE id = ${id}`
        return first(rows.map(decodeUser))
      }, Effect.orDie),
      findByIdForUpdate: Effect.fn("UserRepo.findByIdForUpdate")(function*(id: UserId) {
        // NO KEY UPDATE, the lock an UPDATE of other columns takes: it leaves
        // foreign-key checks (a send's rows naming the user) free to go on.
        const rows = yield* sql<Row>`SELECT * FROM users WHERE id = ${id} FOR NO KEY UPDATE`
        return first(rows.map(decodeUser))
      }, Effect.orDie),
      lockRoles: Effect.fn("UserRepo.lockRoles")(function*(realm: RealmId) {
        yield* sql`SELECT pg_advisory_xact_lock(${UserRolesLock}::integer, ${realm}::integer)`
      }, Effect.orDie),
      // The two-key advisory lock space, as ChannelRepo.lockNames. Read
      // committed: statements after it see the addresses the previous holder
      // committed.
      lockAddresses: Effect.fn("UserRepo.lockAddresses")(function*(realm: RealmId) {
        yield* sql`SELECT pg_advisory_xact_lock(${UserAddressesLock}::integer, ${realm}::integer)`
      }, Effect.orDie),
      findByDeliveryEmail: Effect.fn("UserRepo.findByDeliveryEmail")(function*(realm: RealmId, email: string) {
        const rows = yield* sql<Row>`
          SELECT * FROM users
          WHERE lower(delivery_email) = lower(${email}) AND realm_id = ${realm}
          ORDER BY id LIMIT 1`
        return first(rows.map(decodeUser))
      }, Effect.orDie),
      findByApiKey: Effect.fn("UserRepo.findByApiKey")(function*(apiKey: string) {
        const rows = yield* sql<Row>`SELECT * FROM users WHERE api_key = ${apiKey} ORDER BY id LIMIT 1`
        return first(rows.map(decodeUser))
      }, Effect.orDie),
      findByApiKeyWithRealm: Effect.fn("UserRepo.findByApiKeyWithRealm")(function*(apiKey: string) {
        const rows = yield* sql<Row>`
          SELECT u.*, to_jsonb(r.*) AS realm_row FROM users u JOIN realms r ON r.id = u.realm_id
          WHERE u.api_key = ${apiKey} ORDER BY u.id LIMIT 1`
        const row = first(rows)
        return row === undefined ? undefined : { user: decodeUser(row), realm: decodeRealm(json<Row>(row.realm_row)) }
      }, Effect.orDie),
      listByRealm: Effect.fn("UserRepo.listByRealm")(function*(realm: RealmId) {
        const rows = yield* sql<Row>`SELECT * FROM users WHERE realm_id = ${realm} ORDER BY id`
        return rows.map(decodeUser)
      }, Effect.orDie)
    })
  })
)

// ---------------------------------------------------------------------------
// User groups

const groupColumns = (group: Insert<UserGroup>) => ({
  realm_id: group.realm_id,
  name: group.name,
  description: group.description,
  is_system_group: group.is_system_group,
  creator_id: group.creator_id,
  date_created: group.date_created,
  deactivated: group.deactivated,
  settings: jsonText(group.settings)
})

const decodeGroup = (row: Row): UserGroup => ({
  id: fromRow.groupId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  name: str(row.name),
  description: str(row.description),
  is_system_group: bool(row.is_system_group),
  creator_id: idOrNull(row.creator_id, fromRow.userId),
  date_created: intOrNull(row.date_created),
  deactivated: bool(row.deactivated),
  settings: json<GroupPermissionSettings>(row.settings)
})

/** The first key of `GroupRepo.lockGroups`'s advisory locks (the second is the organization). */
const GroupWritesLock = 0x67727073 // "grps"

/** @category layers */
export const groupRepo = Layer.effect(
  GroupRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return GroupRepo.of({
      insert: Effect.fn("GroupRepo.insert")(function*(
        row: Insert<UserGroup>,
        direct?: { readonly members: ReadonlyArray<UserId>; readonly subgroups: ReadonlyArray<GroupId> }
      ) {
        const members = direct?.members ?? []
        const subgroups = direct?.subgroups ?? []
        // The group and its first edges in one statement: the edges' rows
        // read the new id from the group's INSERT.
        const [inserted] = members.length === 0 && subgroups.length === 0
          ? yield* sql<{ id: unknown }>`INSERT INTO user_groups ${sql.insert(groupColumns(row))} RETURNING id`
          : yield* sql<{ id: unknown }>`
            WITH inserted AS (INSERT INTO user_groups ${sql.insert(groupColumns(row))} RETURNING id),
            members AS (
              INSERT INTO user_group_members (group_id, user_id)
              SELECT inserted.id, u FROM inserted, unnest(${bigintArray(sql, members)}) AS u
              ON CONFLICT DO NOTHING),
            subgroups AS (
              INSERT INTO user_group_subgroups (group_id, subgroup_id)
              SELECT inserted.id, g FROM inserted, unnest(${bigintArray(sql, subgroups)}) AS g
              ON CONFLICT DO NOTHING)
            SELECT id FROM inserted`
        const group: UserGroup = { ...row, id: fromRow.groupId(int(inserted!.id)) }
        return group
      }, Effect.orDie),
      update: Effect.fn("GroupRepo.update")(function*(group: UserGroup) {
        yield* sql`UPDATE user_groups SET ${sql.update(groupColumns(group))} WHERE id = ${group.id}`
      }, Effect.orDie),
      findById: Effect.fn("GroupRepo.findById")(function*(id: GroupId) {
        const rows = yield* sql<Row>`SELECT * FROM user_groups WHERE id = ${id}`
        return first(rows.map(decodeGroup))
      }, Effect.orDie),
      findByName: Effect.fn("GroupRepo.findByName")(function*(realm: RealmId, name: string) {
        const rows = yield* sql<Row>`
          SELECT * FROM user_groups WHERE realm_id = ${realm} AND name = ${name} ORDER BY id LIMIT 1`
        return first(rows.map(decodeGroup))
      }, Effect.orDie),
      listByRealm: Effect.fn("GroupRepo.listByRealm")(function*(realm: RealmId) {
        const rows = yield* sql<Row>`SELECT * FROM user_groups WHERE realm_id = ${realm} ORDER BY id`
        return rows.map(decodeGroup)
      }, Effect.orDie),
      addMembers: Effect.fn("GroupRepo.addMembers")(function*(group: GroupId, users: ReadonlyArray<UserId>) {
        if (!Arr.isReadonlyArrayNonEmpty(users)) return
        yield* sql`
          INSERT INTO user_group_members (group_id, user_id)
          SELECT ${group}, u FROM unnest(${bigintArray(sql, users)}) AS u
          ON CONFLICT DO NOTHING`
      }, Effect.orDie),
      removeMembers: Effect.fn("GroupRepo.removeMembers")(function*(group: GroupId, users: ReadonlyArray<UserId>) {
        if (users.length === 0) return
        yield* sql`DELETE FROM user_group_members WHERE group_id = ${group} AND ${inIds(sql, "user_id", users)}`
      }, Effect.orDie),
      addSubgroups: Effect.fn("GroupRepo.addSubgroups")(function*(group: GroupId, subgroups: ReadonlyArray<GroupId>) {
        if (!Arr.isReadonlyArrayNonEmpty(subgroups)) return
        yield* sql`
          INSERT INTO user_group_subgroups (group_id, subgroup_id)
          SELECT ${group}, g FROM unnest(${bigintArray(sql, subgroups)}) AS g
          ON CONFLICT DO NOTHING`
      }, Effect.orDie),
      removeSubgroups: Effect.fn("GroupRepo.removeSubgroups")(
        function*(group: GroupId, subgroups: ReadonlyArray<GroupId>) {
          if (subgroups.length === 0) return
          yield* sql`DELETE FROM user_group_subgroups WHERE group_id = ${group} AND ${inIds(sql, "subgroup_id", subgroups)}`
        },
        Effect.orDie
      ),
      lockGroups: Effect.fn("GroupRepo.lockGroups")(function*(realm: RealmId) {
        yield* sql`SELECT pg_advisory_xact_lock(${GroupWritesLock}::integer, ${realm}::integer)`
      }, Effect.orDie),
      membership: Effect.fn("GroupRepo.membership")(function*(realm: RealmId) {
        const memberRows = yield* sql<{ group_id: unknown; user_id: unknown }>`
          SELECT m.group_id, m.user_id FROM user_group_members m
          JOIN user_groups g ON g.id = m.group_id
          WHERE g.realm_id = ${realm}
          ORDER BY m.group_id, m.user_id`
        const subgroupRows = yield* sql<{ group_id: unknown; subgroup_id: unknown }>`
          SELECT s.group_id, s.subgroup_id FROM user_group_subgroups s
          JOIN user_groups g ON g.id = s.group_id
          WHERE g.realm_id = ${realm}
          ORDER BY s.group_id, s.subgroup_id`
        const members = new Map<GroupId, Set<UserId>>()
        for (const row of memberRows) {
          const group = fromRow.groupId(int(row.group_id))
          const set = members.get(group) ?? new Set()
          set.add(fromRow.userId(int(row.user_id)))
          members.set(group, set)
        }
        const subgroups = new Map<GroupId, Set<GroupId>>()
        for (const row of subgroupRows) {
          const group = fromRow.groupId(int(row.group_id))
          const set = subgroups.get(group) ?? new Set()
          set.add(fromRow.groupId(int(row.subgroup_id)))
          subgroups.set(group, set)
        }
        const membership: GroupMembership = { members, subgroups }
        return membership
      }, Effect.orDie)
    })
  })
)

// ---------------------------------------------------------------------------
// Channels

const channelColumns = (channel: Insert<Channel>) => ({
  realm_id: channel.realm_id,
  name: channel.name,
  description: channel.description,
  rendered_description: channel.rendered_description,
  date_created: channel.date_created,
  creator_id: channel.creator_id,
  invite_only: channel.invite_only,
  is_web_public: channel.is_web_public,
  is_archived: channel.is_archived,
  history_public_to_subscribers: channel.history_public_to_subscribers,
  message_retention_days: channel.message_retention_days,
  topics_policy: channel.topics_policy,
  first_message_id: channel.first_message_id,
  folder_id: channel.folder_id,
  is_recently_active: channel.is_recently_active,
  is_default: channel.is_default,
  settings: jsonText(channel.settings)
})

const decodeChannel = (row: Row): Channel => ({
  id: fromRow.channelId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  name: str(row.name),
  description: str(row.description),
  rendered_description: str(row.rendered_description),
  date_created: int(row.date_created),
  creator_id: idOrNull(row.creator_id, fromRow.userId),
  invite_only: bool(row.invite_only),
  is_web_public: bool(row.is_web_public),
  is_archived: bool(row.is_archived),
  history_public_to_subscribers: bool(row.history_public_to_subscribers),
  message_retention_days: intOrNull(row.message_retention_days),
  topics_policy: str(row.topics_policy) as TopicsPolicy,
  first_message_id: idOrNull(row.first_message_id, fromRow.messageId),
  folder_id: idOrNull(row.folder_id, fromRow.folderId),
  is_recently_active: bool(row.is_recently_active),
  is_default: bool(row.is_default),
  settings: json<ChannelPermissionSettings>(row.settings)
})

/** The first key of `ChannelRepo.lockNames`'s advisory locks (the second is the organization). */
const ChannelNamesLock = 0x6368616e // "chan"

/** @category layers */
export const channelRepo = Layer.effect(
  ChannelRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return ChannelRepo.of({
      insert: Effect.fn("ChannelRepo.insert")(function*(row: Insert<Channel>) {
        const [inserted] = yield* sql<{ id: unknown }>`
          INSERT INTO channels ${sql.insert(channelColumns(row))} RETURNING id`
        const channel: Channel = { ...row, id: fromRow.channelId(int(inserted!.id)) }
        return channel
      }, Effect.orDie),
      // One statement for any number: the rows as one JSON parameter, in
      // order; their ids are matched back by name (unique in an organization).
      insertMany: Effect.fn("ChannelRepo.insertMany")(function*(rows: ReadonlyArray<Insert<Channel>>) {
        if (rows.length === 0) return []
        const inserted = yield* sql<{ id: unknown; realm_id: unknown; name: unknown }>`
          INSERT INTO channels (realm_id, name, description, rendered_description, date_created, creator_id,
            invite_only, is_web_public, is_archived, history_public_to_subscribers, message_retention_days,
            topics_policy, first_message_id, folder_id, is_recently_active, is_default, settings)
          SELECT r.realm_id, r.name, r.description, r.rendered_description, r.date_created, r.creator_id,
            r.invite_only, r.is_web_public, r.is_archived, r.history_public_to_subscribers, r.message_retention_days,
            r.topics_policy, r.first_message_id, r.folder_id, r.is_recently_active, r.is_default, r.settings::jsonb
          FROM ROWS FROM (jsonb_to_recordset(${jsonList(rows.map(channelColumns))}::jsonb) AS (
            realm_id bigint, name text, description text, rendered_description text, date_created bigint,
            creator_id bigint, invite_only boolean, is_web_public boolean, is_archived boolean,
            history_public_to_subscribers boolean, message_retention_days integer, topics_policy text,
            first_message_id bigint, folder_id bigint, is_recently_active boolean, is_default boolean,
            settings text)) WITH ORDINALITY AS r(
            realm_id, name, description, rendered_description, date_created, creator_id, invite_only, is_web_public,
            is_archived, history_public_to_subscribers, message_retention_days, topics_policy, first_message_id,
            folder_id, is_recently_active, is_default, settings, n)
          ORDER BY r.n
          RETURNING id, realm_id, name`
        const ids = new Map(inserted.map((r) => [`${int(r.realm_id)}:${str(r.name).toLowerCase()}`, int(r.id)]))
        return rows.map((row): Channel => ({
          ...row,
          id: fromRow.channelId(ids.get(`${row.realm_id}:${row.name.toLowerCase()}`)!)
        }))
      }, Effect.orDie),
      update: Effect.fn("ChannelRepo.update")(function*(channel: Channel) {
        yield* sql`UPDATE channels SET ${sql.update(channelColumns(channel))} WHERE id = ${channel.id}`
      }, Effect.orDie),
      findById: Effect.fn("ChannelRepo.findById")(function*(id: ChannelId) {
        const rows = yield* sql<Row>`SELECT * FROM channels WHERE id = ${id}`
        return first(rows.map(decodeChannel))
      }, Effect.orDie),
      findByName: Effect.fn("ChannelRepo.findByName")(function*(realm: RealmId, name: string) {
        const rows = yield* sql<Row>`
          SELECT * FROM channels
          WHERE realm_id = ${realm} AND lower(name) = lower(${name})
          ORDER BY id LIMIT 1`
        return first(rows.map(decodeChannel))
      }, Effect.orDie),
      listByRealm: Effect.fn("ChannelRepo.listByRealm")(function*(realm: RealmId) {
        const rows = yield* sql<Row>`SELECT * FROM channels WHERE realm_id = ${realm} ORDER BY id`
        return rows.map(decodeChannel)
      }, Effect.orDie),
      // A transaction-scoped advisory lock in the two-key space, apart from
      // the event log's one-key locks. Read committed: statements after it
      // see the names the previous holder committed.
      lockNames: Effect.fn("ChannelRepo.lockNames")(function*(realm: RealmId) {
        yield* sql`SELECT pg_advisory_xact_lock(${ChannelNamesLock}::integer, ${realm}::integer)`
      }, Effect.orDie)
    })
  })
)

// ---------------------------------------------------------------------------
// Subscriptions

const subscriptionColumns = (sub: Subscription) => ({
  user_id: sub.user_id,
  channel_id: sub.channel_id,
  active: sub.active,
  color: sub.properties.color,
  pin_to_top: sub.properties.pin_to_top,
  is_muted: sub.properties.is_muted,
  desktop_notifications: sub.properties.desktop_notifications,
  email_notifications: sub.properties.email_notifications,
  push_notifications: sub.properties.push_notifications,
  audible_notifications: sub.properties.audible_notifications,
  wildcard_mentions_notify: sub.properties.wildcard_mentions_notify
})

const decodeSubscription = (row: Row): Subscription => ({
  user_id: fromRow.userId(int(row.user_id)),
  channel_id: fromRow.channelId(int(row.channel_id)),
  active: bool(row.active),
  properties: {
    color: str(row.color),
    pin_to_top: bool(row.pin_to_top),
    is_muted: bool(row.is_muted),
    desktop_notifications: boolOrNull(row.desktop_notifications),
    email_notifications: boolOrNull(row.email_notifications),
    push_notifications: boolOrNull(row.push_notifications),
    audible_notifications: boolOrNull(row.audible_notifications),
    wildcard_mentions_notify: boolOrNull(row.wildcard_mentions_notify)
  }
})

/** @category layers */
export const subscriptionRepo = Layer.effect(
  SubscriptionRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // One statement for any number of rows: the rows as one JSON parameter.
    const upsertMany = Effect.fn("SubscriptionRepo.upsertMany")(function*(subs: ReadonlyArray<Subscription>) {
      if (subs.length === 0) return
      yield* sql`
        INSERT INTO subscriptions (user_id, channel_id, active, color, pin_to_top, is_muted, desktop_notifications,
          email_notifications, push_notifications, audible_notifications, wildcard_mentions_notify)
        SELECT r.user_id, r.channel_id, r.active, r.color, r.pin_to_top, r.is_muted, r.desktop_notifications,
          r.email_notifications, r.push_notifications, r.audible_notifications, r.wildcard_mentions_notify
        FROM jsonb_to_recordset(${jsonList(subs.map(subscriptionColumns))}::jsonb) AS r(
          user_id bigint, channel_id bigint, active boolean, color text, pin_to_top boolean, is_muted boolean,
          desktop_notifications boolean, email_notifications boolean, push_notifications boolean,
          audible_notifications boolean, wildcard_mentions_notify boolean)
        ON CONFLICT (user_id, channel_id) DO UPDATE SET
          active = EXCLUDED.active,
          color = EXCLUDED.color,
          pin_to_top = EXCLUDED.pin_to_top,
          is_muted = EXCLUDED.is_muted,
          desktop_notifications = EXCLUDED.desktop_notifications,
          email_notifications = EXCLUDED.email_notifications,
          push_notifications = EXCLUDED.push_notifications,
          audible_notifications = EXCLUDED.audible_notifications,
          wildcard_mentions_notify = EXCLUDED.wildcard_mentions_notify`
    }, Effect.orDie)
    return SubscriptionRepo.of({
      upsert: (sub: Subscription) => upsertMany([sub]),
      upsertMany,
      listByUsers: Effect.fn("SubscriptionRepo.listByUsers")(function*(users: ReadonlyArray<UserId>) {
        if (users.length === 0) return []
        const rows = yield* sql<Row>`
          SELECT * FROM subscriptions WHERE ${inIds(sql, "user_id", users)} ORDER BY channel_id, user_id`
        return rows.map(decodeSubscription)
      }, Effect.orDie),
      find: Effect.fn("SubscriptionRepo.find")(function*(user: UserId, channel: ChannelId) {
        const rows = yield* sql<Row>`SELECT * FROM subscriptions WHERE user_id = ${user} AND channel_id = ${channel}`
        return first(rows.map(decodeSubscription))
      }, Effect.orDie),
      listByUser: Effect.fn("SubscriptionRepo.listByUser")(function*(user: UserId) {
        const rows = yield* sql<Row>`
          SELECT * FROM subscriptions WHERE user_id = ${user} ORDER BY channel_id, user_id`
        return rows.map(decodeSubscription)
      }, Effect.orDie),
      listByChannel: Effect.fn("SubscriptionRepo.listByChannel")(function*(channel: ChannelId) {
        const rows = yield* sql<Row>`
          SELECT * FROM subscriptions WHERE channel_id = ${channel} ORDER BY channel_id, user_id`
        return rows.map(decodeSubscription)
      }, Effect.orDie),
      listByRealm: Effect.fn("SubscriptionRepo.listByRealm")(function*(realm: RealmId) {
        const rows = yield* sql<Row>`
          SELECT s.* FROM subscriptions s
          JOIN channels c ON c.id = s.channel_id
          WHERE c.realm_id = ${realm}
          ORDER BY s.channel_id, s.user_id`
        return rows.map(decodeSubscription)
      }, Effect.orDie)
    })
  })
)

// ---------------------------------------------------------------------------
// User settings and alert words

/** @category layers */
export const userSettingsRepo = Layer.effect(
  UserSettingsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return UserSettingsRepo.of({
      get: Effect.fn("UserSettingsRepo.get")(function*(user: UserId) {
        const rows = yield* sql<Row>`SELECT settings FROM user_settings WHERE user_id = ${user}`
        return rows.length === 0 ? {} : json<Record<string, unknown>>(rows[0]!.settings)
      }, Effect.orDie),
      set: Effect.fn("UserSettingsRepo.set")(function*(user: UserId, overrides: Readonly<Record<string, unknown>>) {
        yield* sql`
          INSERT INTO user_settings (user_id, settings) VALUES (${user}, ${jsonText(overrides)}::jsonb)
          ON CONFLICT (user_id) DO UPDATE SET settings = EXCLUDED.settings`
      }, Effect.orDie)
    })
  })
)

/** @category layers */
export const alertWordRepo = Layer.effect(
  AlertWordRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return AlertWordRepo.of({
      list: Effect.fn("AlertWordRepo.list")(function*(user: UserId) {
        const rows = yield* sql<Row>`SELECT word FROM alert_words WHERE user_id = ${user} ORDER BY id`
        return rows.map((r) => str(r.word))
      }, Effect.orDie),
      listByUsers: Effect.fn("AlertWordRepo.listByUsers")(function*(users: ReadonlyArray<UserId>) {
        const out = new Map<UserId, Array<string>>()
        if (users.length === 0) return out
        const rows = yield* sql<Row>`SELECT user_id, word FROM alert_words WHERE ${inIds(sql, "user_id", users)} ORDER BY id`
        for (const r of rows) {
          const id = fromRow.userId(int(r.user_id))
          let list = out.get(id)
          if (list === undefined) out.set(id, list = [])
          list.push(str(r.word))
        }
        return out
      }, Effect.orDie),
      // One statement each, whatever the number of words: the list is one
      // JSON parameter (see SqlArrays.ts), deduplicated here so the first
      // spelling of a word is the one inserted.
      add: Effect.fn("AlertWordRepo.add")(function*(user: UserId, words: ReadonlyArray<string>) {
        const seen = new Set<string>()
        const fresh = words.filter((word) => {
          const key = word.toLowerCase()
          if (seen.has(key)) return false
          seen.add(key)
          return true
        })
        if (fresh.length === 0) return
        yield* sql`
          INSERT INTO alert_words (user_id, word)
          SELECT ${user}, w.word FROM jsonb_array_elements_text(${jsonList(fresh)}::jsonb) WITH ORDINALITY AS w(word, n)
          ORDER BY w.n
          ON CONFLICT (user_id, lower(word)) DO NOTHING`
      }, Effect.orDie),
      remove: Effect.fn("AlertWordRepo.remove")(function*(user: UserId, words: ReadonlyArray<string>) {
        if (words.length === 0) return
        yield* sql`
          DELETE FROM alert_words
          WHERE user_id = ${user}
            AND lower(word) IN (SELECT lower(w) FROM jsonb_array_elements_text(${jsonList(words)}::jsonb) AS w)`
      }, Effect.orDie)
    })
  })
)

// ---------------------------------------------------------------------------
// Messages

/**
 * Every column but the generated `search_tsv`, which must never be written.
 * Also the event log's `appendMessage` (SqlEventStore) writes messages with it.
 *
 * @internal
 */
export const messageColumns = (message: Insert<Message>) => ({
  realm_id: message.realm_id,
  sender_id: message.sender_id,
  type: message.type,
  channel_id: message.channel_id,
  topic: message.topic,
  dm_key: message.type === "private" ? message.dm_user_ids.join(",") : null,
  dm_user_ids: jsonText(message.dm_user_ids),
  content: message.content,
  rendered_content: message.rendered_content,
  date_sent: message.date_sent,
  client: message.client,
  has_attachment: message.has_attachment,
  has_image: message.has_image,
  has_link: message.has_link,
  last_edit_time: message.last_edit_time
})

/** The names `messageColumns` writes. */
export const messageColumnNames: ReadonlyArray<keyof ReturnType<typeof messageColumns>> = [
  "realm_id",
  "sender_id",
  "type",
  "channel_id",
  "topic",
  "dm_key",
  "dm_user_ids",
  "content",
  "rendered_content",
  "date_sent",
  "client",
  "has_attachment",
  "has_image",
  "has_link",
  "last_edit_time"
]

/**
 * The columns a Message decodes from, qualified by `alias`; never `*`, so the
 * tsvector stays in the database.
 *
 * @internal
 */
export const messageSelectList = (alias: string): string =>
  [
    "id",
    "realm_id",
    "sender_id",
    "type",
    "channel_id",
    "topic",
    "dm_user_ids",
    "content",
    "rendered_content",
    "date_sent",
    "client",
    "has_attachment",
    "has_image",
    "has_link",
    "last_edit_time"
  ].map((column) => `${alias}.${column}`).join(", ")

/** @internal */
export const decodeMessage = (row: Row): Message => ({
  id: fromRow.messageId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  sender_id: fromRow.userId(int(row.sender_id)),
  type: str(row.type) as MessageType,
  channel_id: idOrNull(row.channel_id, fromRow.channelId),
  topic: str(row.topic),
  dm_user_ids: json<Array<unknown>>(row.dm_user_ids).map((id) => fromRow.userId(int(id))),
  content: str(row.content),
  rendered_content: str(row.rendered_content),
  date_sent: int(row.date_sent),
  client: str(row.client),
  has_attachment: bool(row.has_attachment),
  has_image: bool(row.has_image),
  has_link: bool(row.has_link),
  last_edit_time: intOrNull(row.last_edit_time)
})

const decodeUserMessage = (row: Row): UserMessage => ({
  user_id: fromRow.userId(int(row.user_id)),
  message_id: fromRow.messageId(int(row.message_id)),
  flags: int(row.flags)
})

/** @category layers */
export const messageRepo = Layer.effect(
  MessageRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(messageSelectList("m"))
    const messageColumnList = sql.literal(["id", ...messageColumnNames].join(", "))
    // A message's rows as one JSON parameter: a hundred recipients would
    // otherwise be three hundred bind parameters to build and parse.
    const insertRows = (rows: ReadonlyArray<readonly [number, number, number]>, onConflict = sql``) =>
      rows.length === 0 ? Effect.void : sql`
        INSERT INTO user_messages (user_id, message_id, flags)
        SELECT (r->>0)::bigint, (r->>1)::bigint, (r->>2)::int FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) AS r
        ${onConflict}`

    const insertOne = Effect.fn("MessageRepo.insert")(
      function*(
        row: Insert<Message>,
        recipients: ReadonlyArray<{ readonly user_id: UserId; readonly flags: number }>
      ) {
        // The message and its rows in one statement (a send's hottest write).
        const [inserted] = yield* sql<{ id: unknown }>`
          WITH m AS (INSERT INTO messages ${sql.insert(messageColumns(row))} RETURNING id),
          r AS (
            INSERT INTO user_messages (user_id, message_id, flags)
            SELECT (e->>0)::bigint, m.id, (e->>1)::int
            FROM m, jsonb_array_elements(${JSON.stringify(recipients.map((r) => [r.user_id, r.flags]))}::jsonb) AS e
          )
          SELECT id FROM m`
        return { ...row, id: fromRow.messageId(int(inserted!.id)) } satisfies Message
      },
      Effect.orDie
    )

    return MessageRepo.of({
      insert: insertOne,
      insertMany: Effect.fn("MessageRepo.insertMany")(
        function*(
          items: ReadonlyArray<{
            readonly message: Insert<Message>
            readonly recipients: ReadonlyArray<{ readonly user_id: UserId; readonly flags: number }>
          }>
        ) {
          if (items.length === 0) return []
          if (items.length === 1) return [yield* insertOne(items[0]!.message, items[0]!.recipients)]
          // Ids first, so each row's id is known whatever order RETURNING would give.
          const ids = (yield* sql<{ id: unknown }>`
            SELECT nextval(pg_get_serial_sequence('messages', 'id')) AS id FROM generate_series(1, ${items.length})`)
            .map((r) => fromRow.messageId(int(r.id)))
            .sort((a, b) => a - b)
          const inserted: Array<Message> = items.map((item, i) => ({ ...item.message, id: ids[i]! }))
          // The rows as one JSON parameter, however many (a batch of thousands
          // would pass the protocol's 32767 bind parameters).
          const messageRows = inserted.map((m) => ({ id: m.id, ...messageColumns(m), dm_user_ids: m.dm_user_ids }))
          yield* sql`
            INSERT INTO messages (${messageColumnList})
            SELECT ${messageColumnList} FROM jsonb_populate_recordset(NULL::messages, ${JSON.stringify(messageRows)}::jsonb)`
          yield* insertRows(items.flatMap((item, i) => item.recipients.map((r) => [r.user_id, ids[i]!, r.flags] as const)))
          return inserted
        },
        Effect.orDie
      ),
      findById: Effect.fn("MessageRepo.findById")(function*(id: MessageId) {
        const rows = yield* sql<Row>`SELECT ${columns} FROM messages m WHERE m.id = ${id}`
        return first(rows.map(decodeMessage))
      }, Effect.orDie),
      findByIds: Effect.fn("MessageRepo.findByIds")(function*(ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return []
        const rows = yield* sql<Row>`SELECT ${columns} FROM messages m WHERE ${inIds(sql, "m.id", ids)} ORDER BY m.id`
        return rows.map(decodeMessage)
      }, Effect.orDie),
      userMessages: Effect.fn("MessageRepo.userMessages")(function*(user: UserId, ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return []
        const rows = yield* sql<Row>`
          SELECT user_id, message_id, flags FROM user_messages
          WHERE user_id = ${user} AND ${inIds(sql, "message_id", ids)}
          ORDER BY message_id`
        return rows.map(decodeUserMessage)
      }, Effect.orDie),
      recipients: Effect.fn("MessageRepo.recipients")(function*(message: MessageId) {
        const rows = yield* sql<Row>`
          SELECT user_id, message_id, flags FROM user_messages WHERE message_id = ${message} ORDER BY user_id`
        return rows.map(decodeUserMessage)
      }, Effect.orDie),
      insertUserMessages: Effect.fn("MessageRepo.insertUserMessages")(function*(rows: ReadonlyArray<UserMessage>) {
        if (!Arr.isReadonlyArrayNonEmpty(rows)) return
        yield* insertRows(rows.map((r) => [r.user_id, r.message_id, r.flags] as const), sql`ON CONFLICT (user_id, message_id) DO NOTHING`)
      }, Effect.orDie),
      updateFlags: Effect.fn("MessageRepo.updateFlags")(
        function*(user: UserId, ids: ReadonlyArray<MessageId>, mask: number, add: boolean) {
          if (ids.length === 0) return []
          // Only rows whose bits actually change are touched and returned.
          const rows = add
            ? yield* sql<{ message_id: unknown }>`
                UPDATE user_messages SET flags = flags | ${mask}::integer
                WHERE user_id = ${user} AND ${inIds(sql, "message_id", ids)}
                  AND (flags & ${mask}::integer) <> ${mask}::integer
                RETURNING message_id`
            : yield* sql<{ message_id: unknown }>`
                UPDATE user_messages SET flags = flags & ~(${mask}::integer)
                WHERE user_id = ${user} AND ${inIds(sql, "message_id", ids)}
                  AND (flags & ${mask}::integer) <> 0
                RETURNING message_id`
          return rows.map((r) => fromRow.messageId(int(r.message_id))).sort((a, b) => a - b)
        },
        Effect.orDie
      ),
      listByFlags: Effect.fn("MessageRepo.listByFlags")(function*(user: UserId, mask: number, value: number) {
        const rows = yield* sql<Row>`
          SELECT ${columns}, um.flags AS um_flags
          FROM user_messages um JOIN messages m ON m.id = um.message_id
          WHERE um.user_id = ${user} AND (um.flags & ${mask}::integer) = ${value & mask}::integer
          ORDER BY m.id`
        return rows.map((row) => ({ message: decodeMessage(row), flags: int(row.um_flags) }))
      }, Effect.orDie),
      delete: Effect.fn("MessageRepo.delete")(function*(ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return
        yield* sql`DELETE FROM user_messages WHERE ${inIds(sql, "message_id", ids)}`
        yield* sql`DELETE FROM messages WHERE ${inIds(sql, "id", ids)}`
      }, Effect.orDie),
      topicMessageIds: Effect.fn("MessageRepo.topicMessageIds")(
        function*(channel: ChannelId, topic: string, limit: number) {
          const rows = yield* sql<{ id: unknown }>`
            SELECT id FROM messages
            WHERE channel_id = ${channel} AND lower(topic) = lower(${topic})
            ORDER BY id DESC LIMIT ${Math.max(0, limit)}`
          return rows.map((r) => fromRow.messageId(int(r.id)))
        },
        Effect.orDie
      ),
      oldestInChannel: Effect.fn("MessageRepo.oldestInChannel")(function*(channel: ChannelId) {
        const rows = yield* sql<{ id: unknown }>`
          SELECT id FROM messages WHERE channel_id = ${channel} ORDER BY id LIMIT 1`
        return rows.length === 0 ? null : fromRow.messageId(int(rows[0]!.id))
      }, Effect.orDie),
      maxUserMessageId: Effect.fn("MessageRepo.maxUserMessageId")(function*(user: UserId) {
        const rows = yield* sql<{ id: unknown }>`
          SELECT max(message_id) AS id FROM user_messages WHERE user_id = ${user}`
        return intOrNull(rows[0]?.id) ?? -1
      }, Effect.orDie),
      recentDmConversations: Effect.fn("MessageRepo.recentDmConversations")(function*(user: UserId, limit: number) {
        const rows = yield* sql<{ dm_key: unknown; max_id: unknown }>`
          SELECT m.dm_key, max(m.id) AS max_id
          FROM user_messages um JOIN messages m ON m.id = um.message_id
          WHERE um.user_id = ${user} AND m.dm_key IS NOT NULL
          GROUP BY m.dm_key
          ORDER BY max_id DESC
          LIMIT ${Math.max(0, limit)}`
        return rows.map((r) => ({
          dm_user_ids: str(r.dm_key).split(",").map((id) => fromRow.userId(int(id))),
          max_message_id: fromRow.messageId(int(r.max_id))
        }))
      }, Effect.orDie)
    })
  })
)

/** Every SQL repository; needs a migrated database behind SqlClient. @category layers */
export const layer = Layer.mergeAll(
  realmRepo,
  userRepo,
  groupRepo,
  channelRepo,
  subscriptionRepo,
  userSettingsRepo,
  alertWordRepo,
  messageRepo
)
