/**
 * The persistence contract, written once and run against every backend
 * (memory, PGlite, PostgreSQL): whatever layer is passed in must give the
 * same observable results.
 *
 * Each `layer(...)` block builds its own database. Tests inside a block share
 * it (PGlite takes seconds to start), so every test creates its own
 * organization and unique emails, names and API keys.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type { Channel, Subscription, SubscriptionProperties } from "../../src/domain/Channel.ts"
import type { GroupSettingValue } from "../../src/domain/GroupSetting.ts"
import { channelId, groupId, messageId, userId } from "../../src/domain/Ids.ts"
import type { ChannelId, FolderId, RealmId, UserId } from "../../src/domain/Ids.ts"
import type { Realm, RealmSettings } from "../../src/domain/Realm.ts"
import type { User } from "../../src/domain/User.ts"
import { placeholderEmail } from "../../src/domain/User.ts"
import type { GroupMembership, GroupPermissionSettings, UserGroup } from "../../src/domain/UserGroup.ts"
import type { Persistence } from "../../src/Persistence.ts"
import type { Insert } from "../../src/ports/Repositories.ts"
import { ChannelRepo, GroupRepo, RealmRepo, SubscriptionRepo, UserRepo } from "../../src/ports/Repositories.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import * as MessagesFixtures from "./MessagesFixtures.ts"

// -----------------------------------------------------------------------------
// fixtures

let counter = 0
/** A value no other test (of any backend in this process) uses. */
const unique = (prefix: string): string => `${prefix}${++counter}`

const anonymous = (members: ReadonlyArray<number>, subgroups: ReadonlyArray<number>): GroupSettingValue => ({
  direct_members: members.map(userId),
  direct_subgroups: subgroups.map(groupId)
})

const realmSettings = (named: number): RealmSettings => ({
  email_address_visibility: 1,
  enable_spectator_access: false,
  invite_required: true,
  emails_restricted_to_domains: false,
  email_auth_enabled: true,
  allow_message_editing: true,
  enable_read_receipts: false,
  require_unique_names: false,
  waiting_period_threshold: 0,
  message_retention_days: null,
  topics_policy: "inherit",
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

const newRealm = (overrides: Partial<Insert<Realm>> = {}): Insert<Realm> => {
  const string_id = unique("org")
  return {
    string_id,
    name: `Organization ${string_id}`,
    description: "An organization",
    url: `http://${string_id}.localhost:9991`,
    fake_email_domain: `${string_id}.localhost`,
    deactivated: false,
    date_created: 1_700_000_000_123,
    settings: realmSettings(1),
    ...overrides
  }
}

const newUser = (realm: RealmId, overrides: Partial<Insert<User>> = {}) => (id: UserId): Insert<User> => {
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
    ...overrides
  }
}

const groupSettings = (named: number): GroupPermissionSettings => ({
  can_add_members_group: groupId(named),
  can_join_group: anonymous([1], [named]),
  can_leave_group: anonymous([], [named, named + 1]),
  can_manage_group: anonymous([2, 3], []),
  can_mention_group: groupId(named + 1),
  can_remove_members_group: groupId(named)
})

const newGroup = (realm: RealmId, overrides: Partial<Insert<UserGroup>> = {}): Insert<UserGroup> => ({
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

const channelSettings = (named: number) => ({
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
const newChannel = (realm: RealmId, overrides: Partial<Insert<Channel>> = {}): Insert<Channel> =>
  MessagesFixtures.newChannel(realm, {
    name: unique("channel"),
    description: "A channel",
    rendered_description: "<p>A channel</p>",
    settings: channelSettings(1),
    ...overrides
  })

const properties = (overrides: Partial<SubscriptionProperties> = {}): SubscriptionProperties => ({
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

const subscription = (user: UserId, channel: ChannelId, overrides: Partial<Subscription> = {}): Subscription => ({
  user_id: user,
  channel_id: channel,
  active: true,
  properties: properties(),
  ...overrides
})

/** Membership as sorted arrays, so the comparison does not depend on Map/Set order. */
type SortedEdges = Array<[number, Array<number>]>
const sortedMembership = (membership: GroupMembership): { members: SortedEdges; subgroups: SortedEdges } => {
  const flatten = (map: ReadonlyMap<number, ReadonlySet<number>>): SortedEdges =>
    Array.from(map.entries())
      .map(([key, set]): [number, Array<number>] => [key, Array.from(set).sort((a, b) => a - b)])
      .sort(([a], [b]) => a - b)
  return { members: flatten(membership.members), subgroups: flatten(membership.subgroups) }
}

const ids = (rows: ReadonlyArray<{ readonly id: number }>): Array<number> => rows.map((row) => row.id)

class Boom extends Data.TaggedError("Boom")<{}> {}

/** Creates an organization with two users, for tests that need some rows. */
const seed = Effect.gen(function*() {
  const realms = yield* RealmRepo
  const users = yield* UserRepo
  const realm = yield* realms.insert(newRealm())
  const alice = yield* users.insert(newUser(realm.id))
  const bob = yield* users.insert(newUser(realm.id))
  return { realm, alice, bob }
})

// -----------------------------------------------------------------------------
// the suite

/**
 * Registers the contract for one backend. `makeLayer` is called once per
 * block and must return a layer over a fresh, empty database each time.
 */
export const repositoryContract = (
  name: string,
  makeLayer: () => Layer.Layer<Persistence, unknown>
): void => {
  describe(name, () => {
    layer(makeLayer(), { timeout: "60 seconds" })("fresh database", (it) => {
      it.effect("ids start at 1 and ascend in insertion order, per table", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const users = yield* UserRepo
          const groups = yield* GroupRepo
          const channels = yield* ChannelRepo

          const r1 = yield* realms.insert(newRealm())
          const r2 = yield* realms.insert(newRealm())
          const r3 = yield* realms.insert(newRealm())
          assert.deepStrictEqual([r1.id, r2.id, r3.id], [1, 2, 3])

          const seen: Array<number> = []
          const u1 = yield* users.insert((id) => (seen.push(id), newUser(r1.id)(id)))
          const u2 = yield* users.insert((id) => (seen.push(id), newUser(r2.id)(id)))
          const u3 = yield* users.insert((id) => (seen.push(id), newUser(r1.id)(id)))
          assert.deepStrictEqual([u1.id, u2.id, u3.id], [1, 2, 3])
          assert.deepStrictEqual(seen, [1, 2, 3])

          const g = [
            yield* groups.insert(newGroup(r1.id)),
            yield* groups.insert(newGroup(r2.id)),
            yield* groups.insert(newGroup(r1.id))
          ]
          assert.deepStrictEqual(ids(g), [1, 2, 3])

          const c = [
            yield* channels.insert(newChannel(r2.id)),
            yield* channels.insert(newChannel(r1.id)),
            yield* channels.insert(newChannel(r1.id))
          ]
          assert.deepStrictEqual(ids(c), [1, 2, 3])

          assert.deepStrictEqual(ids(yield* realms.list), [1, 2, 3])
          assert.deepStrictEqual(ids(yield* users.listByRealm(r1.id)), [1, 3])
          assert.deepStrictEqual(ids(yield* groups.listByRealm(r1.id)), [1, 3])
          assert.deepStrictEqual(ids(yield* channels.listByRealm(r1.id)), [2, 3])
        }))

      it.effect("ids used by a rolled-back insert are not reused", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const users = yield* UserRepo
          const groups = yield* GroupRepo
          const channels = yield* ChannelRepo
          const tx = yield* Transactor

          const before = yield* tx.withTransaction(Effect.gen(function*() {
            const realm = yield* realms.insert(newRealm())
            return {
              realm,
              user: yield* users.insert(newUser(realm.id)),
              group: yield* groups.insert(newGroup(realm.id)),
              channel: yield* channels.insert(newChannel(realm.id))
            }
          }))

          const rolledBack = yield* tx.withTransaction(Effect.gen(function*() {
            const realm = yield* realms.insert(newRealm())
            const user = yield* users.insert(newUser(realm.id))
            const group = yield* groups.insert(newGroup(realm.id))
            const channel = yield* channels.insert(newChannel(realm.id))
            return yield* Effect.fail({ realm, user, group, channel })
          })).pipe(Effect.flip)

          assert.strictEqual(rolledBack.realm.id, before.realm.id + 1)
          assert.strictEqual(rolledBack.user.id, before.user.id + 1)
          assert.strictEqual(rolledBack.group.id, before.group.id + 1)
          assert.strictEqual(rolledBack.channel.id, before.channel.id + 1)
          assert.strictEqual(yield* realms.findById(rolledBack.realm.id), undefined)
          assert.strictEqual(yield* users.findById(rolledBack.user.id), undefined)

          const realm = yield* realms.insert(newRealm())
          const user = yield* users.insert(newUser(realm.id))
          const group = yield* groups.insert(newGroup(realm.id))
          const channel = yield* channels.insert(newChannel(realm.id))
          assert.strictEqual(realm.id, before.realm.id + 2)
          assert.strictEqual(user.id, before.user.id + 2)
          assert.strictEqual(group.id, before.group.id + 2)
          assert.strictEqual(channel.id, before.channel.id + 2)
        }))
    })

    layer(makeLayer(), { timeout: "60 seconds" })("repositories", (it) => {
      // --- realms ---------------------------------------------------------

      it.effect("RealmRepo: insert, find and update round-trip every field", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const row = newRealm()
          const realm = yield* realms.insert(row)
          assert.deepStrictEqual(realm, { ...row, id: realm.id })
          assert.deepStrictEqual(yield* realms.findById(realm.id), realm)
          assert.deepStrictEqual(yield* realms.findByStringId(row.string_id), realm)

          const updated: Realm = {
            ...realm,
            name: "Renamed — ünïcode ✓",
            description: "",
            url: "https://chat.example.com",
            fake_email_domain: "chat.example.com",
            deactivated: true,
            date_created: 1_800_000_000_999,
            settings: {
              ...realm.settings,
              email_address_visibility: 4,
              enable_spectator_access: true,
              waiting_period_threshold: 90,
              message_retention_days: -1,
              topics_policy: "disable_empty_topic",
              can_access_all_users_group: anonymous([3, 1], [2]),
              can_create_groups: groupId(9),
              can_mention_many_users_group: anonymous([], [])
            }
          }
          yield* realms.update(updated)
          assert.deepStrictEqual(yield* realms.findById(realm.id), updated)
          assert.deepStrictEqual(yield* realms.findByStringId(row.string_id), updated)

          const back: Realm = { ...updated, settings: { ...updated.settings, message_retention_days: null } }
          yield* realms.update(back)
          assert.deepStrictEqual(yield* realms.findById(realm.id), back)
        }))

      it.effect("RealmRepo: unknown ids and string ids find nothing; updating an unknown id creates nothing", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const realm = yield* realms.insert(newRealm())
          const missing = (realm.id + 1000) as RealmId
          assert.strictEqual(yield* realms.findById(missing), undefined)
          assert.strictEqual(yield* realms.findByStringId(unique("nope")), undefined)
          assert.strictEqual(yield* realms.findByStringId(realm.string_id.toUpperCase()), undefined)
          yield* realms.update({ ...realm, id: missing })
          assert.strictEqual(yield* realms.findById(missing), undefined)
          assert.deepStrictEqual(yield* realms.findById(realm.id), realm)
        }))

      it.effect("RealmRepo: list is ordered by id", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const a = yield* realms.insert(newRealm())
          const b = yield* realms.insert(newRealm())
          const c = yield* realms.insert(newRealm())
          const all = yield* realms.list
          const sorted = [...ids(all)].sort((x, y) => x - y)
          assert.deepStrictEqual(ids(all), sorted)
          assert.deepStrictEqual(all.filter((r) => [a.id, b.id, c.id].includes(r.id)), [a, b, c])
        }))

      // --- users ----------------------------------------------------------

      it.effect("UserRepo: insert passes the new id to make; find and update round-trip every field", () =>
        Effect.gen(function*() {
          const { realm, alice } = yield* seed
          const users = yield* UserRepo
          let made: UserId | undefined
          const bot = yield* users.insert((id) => {
            made = id
            return newUser(realm.id, {
              email: `bot-${id}@example.com`,
              role: 600,
              is_bot: true,
              bot_type: 2,
              bot_owner_id: alice.id,
              is_active: false,
              timezone: "",
              avatar_source: "U",
              avatar_version: 7,
              email_address_visibility: 5,
              password_hash: "scrypt$16384$8$1$salt$hash"
            })(id)
          })
          assert.strictEqual(made, bot.id)
          assert.strictEqual(bot.email, `bot-${bot.id}@example.com`)
          assert.deepStrictEqual(yield* users.findById(bot.id), bot)
          assert.strictEqual(bot.bot_owner_id, alice.id)

          const found = yield* users.findById(alice.id)
          assert.deepStrictEqual(found, alice)
          assert.strictEqual(alice.email, placeholderEmail(alice.id, "example.localhost"))
          assert.strictEqual(alice.password_hash, null)
          assert.strictEqual(alice.bot_type, null)

          const updated: User = {
            ...bot,
            delivery_email: "Changed@Example.com",
            email: "changed@example.com",
            full_name: "Renamed Bot",
            role: 100,
            is_bot: false,
            bot_type: null,
            bot_owner_id: null,
            is_active: true,
            timezone: "Asia/Kolkata",
            avatar_source: "G",
            avatar_version: 8,
            date_joined: 1_900_000_000_000,
            email_address_visibility: 1,
            api_key: unique("rotated"),
            password_hash: null
          }
          yield* users.update(updated)
          assert.deepStrictEqual(yield* users.findById(bot.id), updated)
          assert.deepStrictEqual(yield* users.findById(alice.id), alice)

          yield* users.update({ ...updated, id: userId(bot.id + 1000) })
          assert.strictEqual(yield* users.findById(userId(bot.id + 1000)), undefined)
        }))

      it.effect("UserRepo: findByDeliveryEmail is case-insensitive and scoped to the organization", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const users = yield* UserRepo
          const r1 = yield* realms.insert(newRealm())
          const r2 = yield* realms.insert(newRealm())
          const local = unique("Alice.Smith")
          const inR1 = yield* users.insert(newUser(r1.id, { delivery_email: `${local}@Example.COM` }))
          const inR2 = yield* users.insert(newUser(r2.id, { delivery_email: `${local.toLowerCase()}@example.com` }))

          assert.deepStrictEqual(yield* users.findByDeliveryEmail(r1.id, `${local}@Example.COM`), inR1)
          assert.deepStrictEqual(yield* users.findByDeliveryEmail(r1.id, `${local.toUpperCase()}@EXAMPLE.COM`), inR1)
          assert.deepStrictEqual(yield* users.findByDeliveryEmail(r1.id, `${local.toLowerCase()}@example.com`), inR1)
          assert.deepStrictEqual(yield* users.findByDeliveryEmail(r2.id, `${local}@Example.COM`), inR2)
          assert.strictEqual(yield* users.findByDeliveryEmail(r1.id, `${local}@example.org`), undefined)
          assert.strictEqual(yield* users.findByDeliveryEmail(r1.id, `${local}`), undefined)
          // LIKE-style wildcards are not patterns.
          assert.strictEqual(yield* users.findByDeliveryEmail(r1.id, `%@example.com`), undefined)
        }))

      it.effect("UserRepo: findByDeliveryEmail folds non-ASCII case", () =>
        Effect.gen(function*() {
          const { realm } = yield* seed
          const users = yield* UserRepo
          const local = unique("élodie.ñúñez")
          const user = yield* users.insert(newUser(realm.id, { delivery_email: `${local}@exämple.com` }))
          assert.deepStrictEqual(yield* users.findByDeliveryEmail(realm.id, `${local.toUpperCase()}@EXÄMPLE.COM`), user)
        }))

      it.effect("UserRepo: findByApiKey finds exactly that key", () =>
        Effect.gen(function*() {
          const { alice, bob } = yield* seed
          const users = yield* UserRepo
          assert.deepStrictEqual(yield* users.findByApiKey(alice.api_key), alice)
          assert.deepStrictEqual(yield* users.findByApiKey(bob.api_key), bob)
          assert.strictEqual(yield* users.findByApiKey(alice.api_key.toUpperCase()), undefined)
          assert.strictEqual(yield* users.findByApiKey(unique("missing")), undefined)
          assert.strictEqual(yield* users.findByApiKey(""), undefined)
        }))

      it.effect("UserRepo: listByRealm keeps organizations apart and orders by id", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const users = yield* UserRepo
          const r1 = yield* realms.insert(newRealm())
          const r2 = yield* realms.insert(newRealm())
          const a = yield* users.insert(newUser(r1.id))
          const b = yield* users.insert(newUser(r2.id))
          const c = yield* users.insert(newUser(r1.id, { is_active: false }))
          const d = yield* users.insert(newUser(r1.id, { is_bot: true, bot_type: 1, bot_owner_id: a.id }))
          const e = yield* users.insert(newUser(r2.id))
          assert.deepStrictEqual(yield* users.listByRealm(r1.id), [a, c, d])
          assert.deepStrictEqual(yield* users.listByRealm(r2.id), [b, e])
          const r3 = yield* realms.insert(newRealm())
          assert.deepStrictEqual(yield* users.listByRealm(r3.id), [])
        }))

      // --- groups ---------------------------------------------------------

      it.effect("GroupRepo: insert, find and update round-trip every field", () =>
        Effect.gen(function*() {
          const { realm, alice } = yield* seed
          const groups = yield* GroupRepo
          const system = yield* groups.insert(newGroup(realm.id, { name: "role:everyone", is_system_group: true }))
          const row = newGroup(realm.id, {
            creator_id: alice.id,
            date_created: 1_700_000_111_222,
            settings: groupSettings(system.id)
          })
          const named = yield* groups.insert(row)
          assert.deepStrictEqual(named, { ...row, id: named.id })
          assert.deepStrictEqual(yield* groups.findById(system.id), system)
          assert.deepStrictEqual(yield* groups.findById(named.id), named)
          assert.strictEqual(system.creator_id, null)
          assert.strictEqual(system.date_created, null)

          const updated: UserGroup = {
            ...named,
            name: "Renamed",
            description: "Now with a description",
            deactivated: true,
            creator_id: null,
            date_created: null,
            settings: {
              ...named.settings,
              can_join_group: groupId(system.id),
              can_mention_group: anonymous([alice.id], [system.id]),
              can_manage_group: anonymous([], [])
            }
          }
          yield* groups.update(updated)
          assert.deepStrictEqual(yield* groups.findById(named.id), updated)
          assert.deepStrictEqual(yield* groups.findByName(realm.id, "Renamed"), updated)
          assert.strictEqual(yield* groups.findByName(realm.id, row.name), undefined)

          yield* groups.update({ ...updated, id: groupId(named.id + 1000), name: unique("ghost") })
          assert.strictEqual(yield* groups.findById(groupId(named.id + 1000)), undefined)
        }))

      it.effect("GroupRepo: findByName matches exactly within the organization", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const groups = yield* GroupRepo
          const r1 = yield* realms.insert(newRealm())
          const r2 = yield* realms.insert(newRealm())
          const g1 = yield* groups.insert(newGroup(r1.id, { name: "Design" }))
          const g2 = yield* groups.insert(newGroup(r2.id, { name: "Design" }))
          assert.deepStrictEqual(yield* groups.findByName(r1.id, "Design"), g1)
          assert.deepStrictEqual(yield* groups.findByName(r2.id, "Design"), g2)
          assert.strictEqual(yield* groups.findByName(r1.id, "design"), undefined)
          assert.strictEqual(yield* groups.findByName(r1.id, "Design "), undefined)
          assert.strictEqual(yield* groups.findByName(r1.id, "Desig%"), undefined)
        }))

      it.effect("GroupRepo: listByRealm keeps organizations apart and orders by id", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const groups = yield* GroupRepo
          const r1 = yield* realms.insert(newRealm())
          const r2 = yield* realms.insert(newRealm())
          const a = yield* groups.insert(newGroup(r1.id, { is_system_group: true }))
          const b = yield* groups.insert(newGroup(r2.id))
          const c = yield* groups.insert(newGroup(r1.id, { deactivated: true }))
          assert.deepStrictEqual(yield* groups.listByRealm(r1.id), [a, c])
          assert.deepStrictEqual(yield* groups.listByRealm(r2.id), [b])
        }))

      it.effect("GroupRepo: members and subgroups are added idempotently, removed, and reported per organization", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const users = yield* UserRepo
          const groups = yield* GroupRepo
          const r1 = yield* realms.insert(newRealm())
          const r2 = yield* realms.insert(newRealm())
          const [u1, u2, u3] = [
            yield* users.insert(newUser(r1.id)),
            yield* users.insert(newUser(r1.id)),
            yield* users.insert(newUser(r1.id))
          ]
          const other = yield* users.insert(newUser(r2.id))
          const [g1, g2, g3] = [
            yield* groups.insert(newGroup(r1.id)),
            yield* groups.insert(newGroup(r1.id)),
            yield* groups.insert(newGroup(r1.id))
          ]
          const h = yield* groups.insert(newGroup(r2.id))

          assert.deepStrictEqual(sortedMembership(yield* groups.membership(r1.id)), { members: [], subgroups: [] })

          yield* groups.addMembers(g2.id, [u3.id, u1.id])
          yield* groups.addMembers(g1.id, [u2.id])
          yield* groups.addMembers(g2.id, [u1.id, u2.id, u2.id])
          yield* groups.addMembers(g3.id, [])
          yield* groups.addSubgroups(g3.id, [g2.id, g1.id])
          yield* groups.addSubgroups(g3.id, [g1.id])
          yield* groups.addSubgroups(g2.id, [g1.id])
          yield* groups.addMembers(h.id, [other.id])
          yield* groups.addSubgroups(h.id, [h.id])

          const expected: ReturnType<typeof sortedMembership> = {
            members: [[g1.id, [u2.id]], [g2.id, [u1.id, u2.id, u3.id]]],
            subgroups: [[g2.id, [g1.id]], [g3.id, [g1.id, g2.id]]]
          }
          const membership = yield* groups.membership(r1.id)
          assert.deepStrictEqual(sortedMembership(membership), expected)
          assert.deepStrictEqual(
            membership,
            {
              members: new Map([[g1.id, new Set([u2.id])], [g2.id, new Set([u1.id, u2.id, u3.id])]]),
              subgroups: new Map([[g2.id, new Set([g1.id])], [g3.id, new Set([g1.id, g2.id])]])
            }
          )
          assert.deepStrictEqual(sortedMembership(yield* groups.membership(r2.id)), {
            members: [[h.id, [other.id]]],
            subgroups: [[h.id, [h.id]]]
          })

          yield* groups.removeMembers(g2.id, [u2.id, u3.id, u3.id])
          yield* groups.removeMembers(g1.id, [u2.id])
          yield* groups.removeMembers(g1.id, [u1.id])
          yield* groups.removeMembers(g1.id, [])
          yield* groups.removeSubgroups(g3.id, [g1.id])
          yield* groups.removeSubgroups(g2.id, [g1.id, g3.id])
          yield* groups.removeSubgroups(g2.id, [])
          assert.deepStrictEqual(sortedMembership(yield* groups.membership(r1.id)), {
            members: [[g2.id, [u1.id]]],
            subgroups: [[g3.id, [g2.id]]]
          })
          // The other organization is untouched.
          assert.deepStrictEqual(sortedMembership(yield* groups.membership(r2.id)), {
            members: [[h.id, [other.id]]],
            subgroups: [[h.id, [h.id]]]
          })
        }))

      // --- channels -------------------------------------------------------

      it.effect("ChannelRepo: insert, find and update round-trip every field", () =>
        Effect.gen(function*() {
          const { realm, alice } = yield* seed
          const channels = yield* ChannelRepo
          const plain = yield* channels.insert(newChannel(realm.id))
          assert.deepStrictEqual(yield* channels.findById(plain.id), plain)

          const row = newChannel(realm.id, {
            name: unique("Général ✓"),
            description: "",
            rendered_description: "",
            date_created: 1_712_345_678,
            creator_id: alice.id,
            invite_only: true,
            is_web_public: true,
            is_archived: true,
            history_public_to_subscribers: false,
            message_retention_days: -1,
            topics_policy: "empty_topic_only",
            first_message_id: messageId(42),
            folder_id: 3 as FolderId,
            is_recently_active: false,
            is_default: true,
            settings: channelSettings(7)
          })
          const full = yield* channels.insert(row)
          assert.deepStrictEqual(full, { ...row, id: full.id })
          assert.deepStrictEqual(yield* channels.findById(full.id), full)

          const updated: Channel = {
            ...full,
            name: unique("renamed"),
            description: "**new**",
            rendered_description: "<p><strong>new</strong></p>",
            creator_id: null,
            invite_only: false,
            is_web_public: false,
            is_archived: false,
            history_public_to_subscribers: true,
            message_retention_days: null,
            topics_policy: "allow_empty_topic",
            first_message_id: null,
            folder_id: null,
            is_recently_active: true,
            is_default: false,
            settings: {
              ...full.settings,
              can_send_message_group: groupId(5),
              can_subscribe_group: anonymous([alice.id], [])
            }
          }
          yield* channels.update(updated)
          assert.deepStrictEqual(yield* channels.findById(full.id), updated)
          assert.deepStrictEqual(yield* channels.findById(plain.id), plain)

          yield* channels.update({ ...updated, id: channelId(full.id + 1000), name: unique("ghost") })
          assert.strictEqual(yield* channels.findById(channelId(full.id + 1000)), undefined)
        }))

      it.effect("ChannelRepo: findByName is case-insensitive and scoped to the organization", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const channels = yield* ChannelRepo
          const r1 = yield* realms.insert(newRealm())
          const r2 = yield* realms.insert(newRealm())
          const a = yield* channels.insert(newChannel(r1.id, { name: "Engineering" }))
          const b = yield* channels.insert(newChannel(r2.id, { name: "engineering" }))
          assert.deepStrictEqual(yield* channels.findByName(r1.id, "engineering"), a)
          assert.deepStrictEqual(yield* channels.findByName(r1.id, "ENGINEERING"), a)
          assert.deepStrictEqual(yield* channels.findByName(r2.id, "Engineering"), b)
          assert.strictEqual(yield* channels.findByName(r1.id, "Engineering "), undefined)
          assert.strictEqual(yield* channels.findByName(r1.id, "Engineer_ng"), undefined)
          assert.strictEqual(yield* channels.findByName(r1.id, "design"), undefined)
        }))

      it.effect("ChannelRepo: findByName folds non-ASCII case", () =>
        Effect.gen(function*() {
          const { realm } = yield* seed
          const channels = yield* ChannelRepo
          const channel = yield* channels.insert(newChannel(realm.id, { name: "Überraschung Ñandú" }))
          assert.deepStrictEqual(yield* channels.findByName(realm.id, "überraschung ñandú"), channel)
          assert.deepStrictEqual(yield* channels.findByName(realm.id, "ÜBERRASCHUNG ÑANDÚ"), channel)
        }))

      it.effect("ChannelRepo: listByRealm keeps organizations apart and orders by id", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const channels = yield* ChannelRepo
          const r1 = yield* realms.insert(newRealm())
          const r2 = yield* realms.insert(newRealm())
          const a = yield* channels.insert(newChannel(r1.id, { name: "zeta" }))
          const b = yield* channels.insert(newChannel(r2.id))
          const c = yield* channels.insert(newChannel(r1.id, { name: "alpha", is_default: true }))
          const d = yield* channels.insert(newChannel(r1.id, { name: "Mid", is_archived: true }))
          assert.deepStrictEqual(yield* channels.listByRealm(r1.id), [a, c, d])
          assert.deepStrictEqual(yield* channels.listByRealm(r2.id), [b])
          assert.deepStrictEqual(
            (yield* channels.listByRealm(r1.id)).filter((ch) => ch.is_default).map((ch) => ch.id),
            [c.id]
          )
        }))

      // --- subscriptions --------------------------------------------------

      it.effect("SubscriptionRepo: upsert inserts then replaces the whole row", () =>
        Effect.gen(function*() {
          const { realm, alice, bob } = yield* seed
          const channels = yield* ChannelRepo
          const subs = yield* SubscriptionRepo
          const channel = yield* channels.insert(newChannel(realm.id))

          assert.strictEqual(yield* subs.find(alice.id, channel.id), undefined)
          const first = subscription(alice.id, channel.id)
          yield* subs.upsert(first)
          assert.deepStrictEqual(yield* subs.find(alice.id, channel.id), first)
          assert.strictEqual(yield* subs.find(bob.id, channel.id), undefined)

          const replaced = subscription(alice.id, channel.id, {
            active: false,
            properties: properties({
              color: "#e79ab5",
              pin_to_top: true,
              is_muted: true,
              desktop_notifications: true,
              email_notifications: false,
              push_notifications: true,
              audible_notifications: false,
              wildcard_mentions_notify: true
            })
          })
          yield* subs.upsert(replaced)
          assert.deepStrictEqual(yield* subs.find(alice.id, channel.id), replaced)
          assert.deepStrictEqual(yield* subs.listByChannel(channel.id), [replaced])

          const reset = subscription(alice.id, channel.id, { properties: properties({ color: "#000000" }) })
          yield* subs.upsert(reset)
          assert.deepStrictEqual(yield* subs.find(alice.id, channel.id), reset)
        }))

      it.effect("SubscriptionRepo: lists are ordered by channel id then user id, per user, channel and organization", () =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const users = yield* UserRepo
          const channels = yield* ChannelRepo
          const subs = yield* SubscriptionRepo
          const r1 = yield* realms.insert(newRealm())
          const r2 = yield* realms.insert(newRealm())
          const [u1, u2, u3] = [
            yield* users.insert(newUser(r1.id)),
            yield* users.insert(newUser(r1.id)),
            yield* users.insert(newUser(r1.id))
          ]
          const stranger = yield* users.insert(newUser(r2.id))
          const [c1, c2, c3] = [
            yield* channels.insert(newChannel(r1.id)),
            yield* channels.insert(newChannel(r1.id)),
            yield* channels.insert(newChannel(r1.id))
          ]
          const elsewhere = yield* channels.insert(newChannel(r2.id))

          // Inserted out of order on purpose.
          const rows = [
            subscription(u3.id, c2.id),
            subscription(u1.id, c3.id, { active: false }),
            subscription(u2.id, c1.id),
            subscription(u1.id, c1.id),
            subscription(u3.id, c1.id, { properties: properties({ is_muted: true }) }),
            subscription(u1.id, c2.id),
            subscription(stranger.id, elsewhere.id)
          ]
          for (const row of rows) yield* subs.upsert(row)
          const find = (u: UserId, c: ChannelId) => rows.find((r) => r.user_id === u && r.channel_id === c)!

          assert.deepStrictEqual(yield* subs.listByUser(u1.id), [find(u1.id, c1.id), find(u1.id, c2.id), find(u1.id, c3.id)])
          assert.deepStrictEqual(yield* subs.listByUser(u3.id), [find(u3.id, c1.id), find(u3.id, c2.id)])
          assert.deepStrictEqual(yield* subs.listByChannel(c1.id), [
            find(u1.id, c1.id),
            find(u2.id, c1.id),
            find(u3.id, c1.id)
          ])
          assert.deepStrictEqual(yield* subs.listByChannel(c2.id), [find(u1.id, c2.id), find(u3.id, c2.id)])
          assert.deepStrictEqual(yield* subs.listByRealm(r1.id), [
            find(u1.id, c1.id),
            find(u2.id, c1.id),
            find(u3.id, c1.id),
            find(u1.id, c2.id),
            find(u3.id, c2.id),
            find(u1.id, c3.id)
          ])
          assert.deepStrictEqual(yield* subs.listByRealm(r2.id), [find(stranger.id, elsewhere.id)])

          // Replacing a row keeps its place in every ordering.
          const muted = subscription(u2.id, c1.id, { properties: properties({ is_muted: true }) })
          yield* subs.upsert(muted)
          assert.deepStrictEqual(yield* subs.listByChannel(c1.id), [find(u1.id, c1.id), muted, find(u3.id, c1.id)])
          assert.deepStrictEqual(yield* subs.listByUser(u2.id), [muted])
        }))
    })

    layer(makeLayer(), { timeout: "60 seconds" })("Transactor", (it) => {
      it.effect("a committed transaction keeps every write", () =>
        Effect.gen(function*() {
          const tx = yield* Transactor
          const { realm, alice, bob, group, channel } = yield* tx.withTransaction(Effect.gen(function*() {
            const seeded = yield* seed
            const groups = yield* GroupRepo
            const channels = yield* ChannelRepo
            const group = yield* groups.insert(newGroup(seeded.realm.id))
            yield* groups.addMembers(group.id, [seeded.alice.id])
            const channel = yield* channels.insert(newChannel(seeded.realm.id))
            yield* (yield* SubscriptionRepo).upsert(subscription(seeded.bob.id, channel.id))
            return { ...seeded, group, channel }
          }))
          assert.deepStrictEqual(yield* (yield* RealmRepo).findById(realm.id), realm)
          assert.deepStrictEqual(yield* (yield* UserRepo).listByRealm(realm.id), [alice, bob])
          assert.deepStrictEqual(yield* (yield* GroupRepo).findById(group.id), group)
          assert.deepStrictEqual(sortedMembership(yield* (yield* GroupRepo).membership(realm.id)), {
            members: [[group.id, [alice.id]]],
            subgroups: []
          })
          assert.deepStrictEqual(yield* (yield* SubscriptionRepo).listByRealm(realm.id), [
            subscription(bob.id, channel.id)
          ])
        }))

      /** Writes to every table inside `tx`, then fails the way `end` says. */
      const writeEverything = <E>(
        realm: Realm,
        alice: User,
        group: UserGroup,
        channel: Channel,
        end: Effect.Effect<never, E>
      ) =>
        Effect.gen(function*() {
          const realms = yield* RealmRepo
          const users = yield* UserRepo
          const groups = yield* GroupRepo
          const channels = yield* ChannelRepo
          const subs = yield* SubscriptionRepo
          yield* realms.update({ ...realm, name: "changed", deactivated: true })
          yield* users.update({ ...alice, full_name: "changed", api_key: unique("changed") })
          const carol = yield* users.insert(newUser(realm.id))
          yield* groups.update({ ...group, name: unique("changed") })
          yield* groups.addMembers(group.id, [carol.id])
          yield* groups.removeMembers(group.id, [alice.id])
          yield* groups.addSubgroups(group.id, [group.id])
          yield* channels.update({ ...channel, name: unique("changed"), is_default: true })
          const extra = yield* channels.insert(newChannel(realm.id))
          yield* subs.upsert(subscription(alice.id, channel.id, { active: false }))
          yield* subs.upsert(subscription(carol.id, extra.id))
          yield* realms.insert(newRealm())
          return yield* end
        })

      /** A snapshot of everything an organization's rows look like. */
      const observe = (realm: RealmId) =>
        Effect.gen(function*() {
          return {
            realm: yield* (yield* RealmRepo).findById(realm),
            realms: ids(yield* (yield* RealmRepo).list),
            users: yield* (yield* UserRepo).listByRealm(realm),
            groups: yield* (yield* GroupRepo).listByRealm(realm),
            membership: sortedMembership(yield* (yield* GroupRepo).membership(realm)),
            channels: yield* (yield* ChannelRepo).listByRealm(realm),
            subscriptions: yield* (yield* SubscriptionRepo).listByRealm(realm)
          }
        })

      const setup = Effect.gen(function*() {
        const { realm, alice, bob } = yield* seed
        const group = yield* (yield* GroupRepo).insert(newGroup(realm.id))
        yield* (yield* GroupRepo).addMembers(group.id, [alice.id, bob.id])
        const channel = yield* (yield* ChannelRepo).insert(newChannel(realm.id))
        yield* (yield* SubscriptionRepo).upsert(subscription(alice.id, channel.id))
        return { realm, alice, bob, group, channel }
      })

      it.effect("a failing transaction rolls every write back", () =>
        Effect.gen(function*() {
          const tx = yield* Transactor
          const { realm, alice, group, channel } = yield* setup
          const before = yield* observe(realm.id)
          const error = yield* tx.withTransaction(writeEverything(realm, alice, group, channel, Effect.fail(new Boom())))
            .pipe(Effect.flip)
          assert.instanceOf(error, Boom)
          assert.deepStrictEqual(yield* observe(realm.id), before)
          assert.deepStrictEqual(yield* (yield* UserRepo).findByApiKey(alice.api_key), alice)
        }))

      it.effect("a defect rolls every write back", () =>
        Effect.gen(function*() {
          const tx = yield* Transactor
          const { realm, alice, group, channel } = yield* setup
          const before = yield* observe(realm.id)
          const exit = yield* tx.withTransaction(writeEverything(realm, alice, group, channel, Effect.die("boom")))
            .pipe(Effect.exit)
          assert.isTrue(Exit.hasDies(exit))
          assert.deepStrictEqual(yield* observe(realm.id), before)
        }))

      it.effect("a failing nested transaction rolls back only its own writes when the outer one recovers", () =>
        Effect.gen(function*() {
          const tx = yield* Transactor
          const users = yield* UserRepo
          const groups = yield* GroupRepo
          const { realm, alice, bob, group } = yield* setup
          const result = yield* tx.withTransaction(Effect.gen(function*() {
            const outerUser = yield* users.insert(newUser(realm.id))
            yield* groups.addMembers(group.id, [outerUser.id])
            const inner = yield* tx.withTransaction(Effect.gen(function*() {
              const innerUser = yield* users.insert(newUser(realm.id))
              yield* groups.addMembers(group.id, [innerUser.id])
              yield* groups.removeMembers(group.id, [alice.id])
              yield* users.update({ ...bob, full_name: "inner" })
              return yield* Effect.fail(new Boom())
            })).pipe(Effect.flip)
            assert.instanceOf(inner, Boom)
            // Inside the outer transaction the inner writes are already gone.
            assert.deepStrictEqual(yield* users.findById(bob.id), bob)
            const lastUser = yield* users.insert(newUser(realm.id))
            // A nested transaction that succeeds is kept.
            yield* tx.withTransaction(groups.addMembers(group.id, [lastUser.id]))
            return { outerUser, lastUser }
          }))
          assert.deepStrictEqual(yield* users.listByRealm(realm.id), [alice, bob, result.outerUser, result.lastUser])
          assert.strictEqual(result.lastUser.id, result.outerUser.id + 2)
          assert.deepStrictEqual(sortedMembership(yield* groups.membership(realm.id)), {
            members: [[group.id, [alice.id, bob.id, result.outerUser.id, result.lastUser.id]]],
            subgroups: []
          })
        }))

      it.effect("a nested defect also rolls back only the nested part", () =>
        Effect.gen(function*() {
          const tx = yield* Transactor
          const channels = yield* ChannelRepo
          const { realm, channel } = yield* setup
          yield* tx.withTransaction(Effect.gen(function*() {
            yield* channels.update({ ...channel, description: "outer" })
            const exit = yield* tx.withTransaction(channels.update({ ...channel, description: "inner" }).pipe(
              Effect.andThen(Effect.die("inner boom"))
            )).pipe(Effect.exit)
            assert.isTrue(Exit.hasDies(exit))
          }))
          assert.deepStrictEqual(yield* channels.listByRealm(realm.id), [{ ...channel, description: "outer" }])
        }))

      it.effect("afterCommit runs after the commit, with the committed state visible", () =>
        Effect.gen(function*() {
          const tx = yield* Transactor
          const realms = yield* RealmRepo
          const log = yield* Ref.make<Array<string>>([])
          const push = (entry: string) => Ref.update(log, (entries) => [...entries, entry])
          const realm = yield* tx.withTransaction(Effect.gen(function*() {
            const realm = yield* realms.insert(newRealm())
            yield* tx.afterCommit(Effect.gen(function*() {
              const seen = yield* realms.findById(realm.id)
              yield* push(seen === undefined ? "callback: missing" : `callback: ${seen.string_id}`)
            }))
            yield* tx.withTransaction(tx.afterCommit(push("nested callback")))
            yield* push("body done")
            return realm
          }))
          assert.deepStrictEqual(yield* Ref.get(log), ["body done", `callback: ${realm.string_id}`, "nested callback"])
        }))

      it.effect("afterCommit outside a transaction runs at once", () =>
        Effect.gen(function*() {
          const tx = yield* Transactor
          const log = yield* Ref.make<Array<string>>([])
          yield* tx.afterCommit(Ref.update(log, (entries) => [...entries, "ran"]))
          assert.deepStrictEqual(yield* Ref.get(log), ["ran"])
        }))

      it.effect("afterCommit never runs after a rollback", () =>
        Effect.gen(function*() {
          const tx = yield* Transactor
          const realms = yield* RealmRepo
          const log = yield* Ref.make<Array<string>>([])
          const push = (entry: string) => Ref.update(log, (entries) => [...entries, entry])

          yield* tx.withTransaction(Effect.gen(function*() {
            yield* realms.insert(newRealm())
            yield* tx.afterCommit(push("failed"))
            return yield* Effect.fail(new Boom())
          })).pipe(Effect.flip)

          yield* tx.withTransaction(Effect.gen(function*() {
            yield* tx.afterCommit(push("died"))
            return yield* Effect.die("boom")
          })).pipe(Effect.exit)

          yield* tx.withTransaction(Effect.gen(function*() {
            yield* tx.afterCommit(push("outer"))
            yield* tx.withTransaction(Effect.gen(function*() {
              yield* tx.afterCommit(push("inner rolled back"))
              return yield* Effect.fail(new Boom())
            })).pipe(Effect.flip)
            yield* tx.afterCommit(push("outer again"))
          }))

          assert.deepStrictEqual(yield* Ref.get(log), ["outer", "outer again"])
        }))
    })
  })
}
