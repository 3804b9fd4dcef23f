/**
 * The service contract, written once and run against every backend
 * (memory, PGlite, PostgreSQL): the services must give exactly the same
 * results whatever persistence sits below them.
 *
 * Three blocks per backend, each over its own fresh database:
 *
 * - "fresh database": exact ids and values of a first organization;
 * - "services": everything else; tests share the database, so each one makes
 *   its own organization (unique string ids and addresses) and states ids
 *   relative to what it created;
 * - "demo organization": the seeded "Zulip Dev" organization, whose ids are
 *   exact again because nothing else lives in that database.
 *
 * Keys come from `KeyGenerator.layerTest` (deterministic), time from a
 * TestClock of each test's own.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"
import * as DemoData from "../../src/demo/DemoData.ts"
import * as DemoOrganization from "../../src/demo/DemoOrganization.ts"
import { SubscriptionColors } from "../../src/domain/Channel.ts"
import type { Channel } from "../../src/domain/Channel.ts"
import { channelId, groupId, userId } from "../../src/domain/Ids.ts"
import type { GroupId, RealmId, UserId } from "../../src/domain/Ids.ts"
import type { Realm, RealmSettings } from "../../src/domain/Realm.ts"
import type { Role } from "../../src/domain/Role.ts"
import type { User } from "../../src/domain/User.ts"
import { SystemGroups } from "../../src/domain/UserGroup.ts"
import { makeGroupIndex } from "../../src/permissions/GroupMembership.ts"
import type { Persistence } from "../../src/Persistence.ts"
import { ChannelRepo, GroupRepo, RealmRepo, SubscriptionRepo, UserRepo } from "../../src/ports/Repositories.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import { Authentication } from "../../src/services/Authentication.ts"
import { Channels, defaultListChannelsOptions } from "../../src/services/Channels.ts"
import type { ListChannelsOptions, NewChannel } from "../../src/services/Channels.ts"
import { KeyGenerator } from "../../src/services/KeyGenerator.ts"
import { Messages } from "../../src/services/Messages.ts"
import { Organizations } from "../../src/services/Organizations.ts"
import type { NewOrganization, SystemGroupIds } from "../../src/services/Organizations.ts"
import { Users } from "../../src/services/Users.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import type { NewUser } from "../../src/services/Users.ts"
import type * as Teamchat from "../../src/Teamchat.ts"
import type { ApiUser, ViewOptions } from "../../src/views/UserView.ts"

// -----------------------------------------------------------------------------
// fixtures

let counter = 0
/** A value no other test (of any backend in this process) uses; valid as a string_id. */
const unique = (prefix: string): string => `${prefix}${process.pid % 10000}-${++counter}`

const plain: ViewOptions = { clientGravatar: false, includeCustomProfileFields: false }
const gravatar: ViewOptions = { clientGravatar: true, includeCustomProfileFields: false }

const day = 24 * 60 * 60 * 1000
/** 2024-01-15T10:30:00.123Z */
const T0 = Date.UTC(2024, 0, 15, 10, 30, 0, 123)

/** Every GET /streams flag off except exclude_archived; tests turn on what they exercise. */
const only = (flags: Partial<ListChannelsOptions>): ListChannelsOptions => ({
  include_public: false,
  include_web_public: false,
  include_subscribed: false,
  exclude_archived: true,
  include_all: false,
  include_default: false,
  include_owner_subscribed: false,
  include_can_access_content: false,
  ...flags
})

class Rollback extends Data.TaggedError("Rollback")<{ readonly user: User }> {}

interface ZulipFailure {
  readonly _tag: string
  readonly msg: string
}

/** Runs `effect`, expecting it to fail with `tag` and the exact message `msg`; returns the error. */
const fails = <A, E extends ZulipFailure, R>(effect: Effect.Effect<A, E, R>, tag: string, msg: string) =>
  Effect.flip(effect).pipe(Effect.tap((error) =>
    Effect.sync(() => {
      assert.strictEqual(error._tag, tag)
      assert.strictEqual(error.msg, msg)
    })
  ))

const gravatarUrl = (email: string, version = 1) =>
  `https://secure.gravatar.com/avatar/${
    createHash("md5").update(email.toLowerCase()).digest("hex")
  }?d=identicon&version=${version}`

interface Org {
  readonly realm: Realm
  readonly owner: User
  readonly groups: SystemGroupIds
  /** Domain of this organization's real addresses. */
  readonly domain: string
}

const makeOrg = (overrides: Partial<NewOrganization> = {}) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const id = unique("org")
    const domain = `${id}.test`
    const { owner, realm } = yield* organizations.create({
      string_id: id,
      name: `Organization ${id}`,
      url: `http://${id}.chat.test:9991`,
      owner: { email: `owner@${domain}`, full_name: "Owner", password: "owner-secret", timezone: "UTC" },
      ...overrides
    })
    const groups = yield* organizations.systemGroups(realm.id)
    return { realm, owner: owner!, groups, domain } satisfies Org
  })

/** Overrides of the defaults below; an `undefined` value removes the field. */
type UserOverrides = { readonly [K in keyof NewUser]?: NewUser[K] | undefined }

const addUser = (org: Org, role: Role, overrides: UserOverrides = {}) =>
  Users.use((users) => {
    const input: Record<string, unknown> = {
      email: `${unique("u")}@${org.domain}`,
      full_name: `Person ${role}`,
      role,
      password: "pw",
      ...overrides
    }
    for (const key of Object.keys(input)) if (input[key] === undefined) delete input[key]
    return users.create(org.realm.id, input as unknown as NewUser)
  })

const addBot = (org: Org, owner: User, overrides: UserOverrides = {}) =>
  addUser(org, 400, { full_name: "Some Bot", bot: { bot_type: 1, owner_id: owner.id }, password: undefined, ...overrides })

/** The current state of a user and its organization, as an authenticated request would see it. */
const principal = (user: User) =>
  Effect.gen(function*() {
    const fresh = yield* (yield* UserRepo).findById(user.id)
    const realm = yield* (yield* RealmRepo).findById(user.realm_id)
    return { user: fresh!, realm: realm! } satisfies Principal
  })

const updateRealmSettings = (realmId: RealmId, settings: Partial<RealmSettings>) =>
  Effect.gen(function*() {
    const realms = yield* RealmRepo
    const realm = (yield* realms.findById(realmId))!
    yield* realms.update({ ...realm, settings: { ...realm.settings, ...settings } })
  })

/** Names of the groups the user is a direct member of, in group id order. */
const directGroups = (realmId: RealmId, user: UserId) =>
  Effect.gen(function*() {
    const groups = yield* GroupRepo
    const all = yield* groups.listByRealm(realmId)
    const membership = yield* groups.membership(realmId)
    return all.filter((g) => membership.members.get(g.id)?.has(user) === true).map((g) => g.name)
  })

/** Names of the groups the user belongs to recursively (active users only), in group id order. */
const recursiveGroups = (realmId: RealmId, user: UserId) =>
  Effect.gen(function*() {
    const groups = yield* GroupRepo
    const all = yield* groups.listByRealm(realmId)
    const membership = yield* groups.membership(realmId)
    const users = new Map((yield* (yield* UserRepo).listByRealm(realmId)).map((u) => [u.id, u]))
    const index = makeGroupIndex(all, membership, (id) => users.get(id))
    const names = new Map(all.map((g) => [g.id, g.name]))
    return index.membershipGroups(user).map((id) => names.get(id)!)
  })

const names = (channels: ReadonlyArray<{ readonly name: string }>) => channels.map((c) => c.name)
const userIds = (members: ReadonlyArray<ApiUser>) => members.map((m) => m.user_id)

/**
 * A TestClock of the test's own. The blocks' layers run with the live clock
 * (`excludeTestServices`), so background fibers such as the event queues'
 * garbage collector never see the time jumps tests make here.
 */
const withTestClock = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, TestClock.layer())

// -----------------------------------------------------------------------------
// the suite

/**
 * Registers the contract for one backend. `makeLayer` is called once per
 * block and must return every service over a fresh, empty database, with
 * the test secrets (`Teamchat.layerSecretsTest`).
 */
export const servicesContract = (
  name: string,
  makeLayer: () => Layer.Layer<Teamchat.Services | Persistence, unknown>
): void => {
  describe(name, () => {
    // -------------------------------------------------------------------------
    layer(makeLayer(), { timeout: "120 seconds", excludeTestServices: true })("fresh database", (it) => {
      it.effect("Organizations.create: realm, system groups, settings and owner, exactly", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const organizations = yield* Organizations
          const users = yield* Users
          const groupRepo = yield* GroupRepo
          // The first key the deterministic generator hands out goes to the
          // owner. (Layer.fresh: a generator of our own, not the services' one.)
          const firstKey = yield* KeyGenerator.use((g) => g.token(32)).pipe(
            Effect.provide(Layer.fresh(KeyGenerator.layerTest))
          )

          const { owner, realm } = yield* organizations.create({
            string_id: "acme",
            name: "  Acme Corp  ",
            url: "https://chat.acme.test:8443/",
            owner: { email: " Boss@Acme.test ", full_name: "  The Boss ", password: "hunter2", timezone: "Europe/Paris" }
          })

          const g = (n: number) => groupId(n)
          assert.deepStrictEqual(realm, {
            id: realm.id,
            string_id: "acme",
            name: "Acme Corp",
            description: "",
            url: "https://chat.acme.test:8443/",
            fake_email_domain: "chat.acme.test",
            deactivated: false,
            date_created: T0,
            settings: {
              email_address_visibility: 1,
              enable_spectator_access: false,
              invite_required: true,
              emails_restricted_to_domains: false,
              email_auth_enabled: true,
              allow_message_editing: true,
              enable_read_receipts: false,
              require_unique_names: false,
              waiting_period_threshold: 0,
              message_retention_days: -1,
              topics_policy: "allow_empty_topic",
              can_access_all_users_group: g(7),
              can_create_groups: g(6),
              can_manage_all_groups: g(2),
              can_create_public_channel_group: g(6),
              can_create_private_channel_group: g(6),
              can_create_web_public_channel_group: g(2),
              can_add_subscribers_group: g(6),
              can_invite_users_group: g(6),
              can_move_messages_between_channels_group: g(6),
              can_move_messages_between_topics_group: g(7),
              can_delete_any_message_group: g(3),
              can_delete_own_message_group: g(7),
              can_mention_many_users_group: g(3)
            }
          })
          assert.strictEqual(realm.id, 1)
          assert.deepStrictEqual(yield* organizations.findById(realm.id), realm)
          assert.deepStrictEqual(yield* organizations.findByStringId("acme"), realm)
          assert.deepStrictEqual(yield* organizations.list, [realm])

          // System groups: created in order, so ids 1..8, each (from
          // administrators on) nesting the previous one; every setting role:nobody.
          const groups = yield* groupRepo.listByRealm(realm.id)
          assert.deepStrictEqual(
            groups,
            SystemGroups.map(({ description, name }, i) => ({
              id: g(i + 1),
              realm_id: realm.id,
              name,
              description,
              is_system_group: true,
              creator_id: null,
              date_created: null,
              deactivated: false,
              settings: {
                can_add_members_group: g(1),
                can_join_group: g(1),
                can_leave_group: g(1),
                can_manage_group: g(1),
                can_mention_group: g(1),
                can_remove_members_group: g(1)
              }
            }))
          )
          assert.deepStrictEqual(groups.map((x) => x.name), [
            "role:nobody",
            "role:owners",
            "role:administrators",
            "role:moderators",
            "role:fullmembers",
            "role:members",
            "role:everyone",
            "role:internet"
          ])
          assert.deepStrictEqual(yield* organizations.systemGroups(realm.id), {
            "role:nobody": g(1),
            "role:owners": g(2),
            "role:administrators": g(3),
            "role:moderators": g(4),
            "role:fullmembers": g(5),
            "role:members": g(6),
            "role:everyone": g(7),
            "role:internet": g(8)
          })
          const membership = yield* groupRepo.membership(realm.id)
          const sorted = (map: ReadonlyMap<number, ReadonlySet<number>>) =>
            Array.from(map.entries()).map(([k, v]) => [k, Array.from(v).sort((a, b) => a - b)]).sort(
              (a, b) => (a[0] as number) - (b[0] as number)
            )
          // owners ⊂ administrators ⊂ moderators ⊂ fullmembers ⊂ members ⊂ everyone ⊂ internet; nobody has none.
          assert.deepStrictEqual(sorted(membership.subgroups), [[3, [2]], [4, [3]], [5, [4]], [6, [5]], [7, [6]], [8, [7]]])
          assert.deepStrictEqual(sorted(membership.members), [[2, [1]]])

          // The owner.
          assert.isDefined(owner)
          const { password_hash, ...rest } = owner!
          assert.deepStrictEqual(rest, {
            id: userId(1),
            realm_id: realm.id,
            delivery_email: "Boss@Acme.test",
            email: "Boss@Acme.test",
            full_name: "The Boss",
            role: 100,
            is_bot: false,
            bot_type: null,
            bot_owner_id: null,
            is_active: true,
            timezone: "Europe/Paris",
            avatar_source: "G",
            avatar_version: 1,
            date_joined: T0,
            email_address_visibility: 1,
            api_key: firstKey
          })
          assert.match(password_hash!, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
          assert.isTrue(yield* users.checkPassword(owner!, "hunter2"))
          assert.isFalse(yield* users.checkPassword(owner!, "hunter3"))
          assert.deepStrictEqual(yield* users.findById(owner!.id), owner)
          assert.deepStrictEqual(yield* users.findByEmail(realm.id, "boss@ACME.TEST"), owner)
          assert.deepStrictEqual(yield* recursiveGroups(realm.id, owner!.id), [
            "role:owners",
            "role:administrators",
            "role:moderators",
            "role:fullmembers",
            "role:members",
            "role:everyone",
            "role:internet"
          ])
        }).pipe(withTestClock))

      it.effect("Organizations.create: invalid and duplicate string ids, empty names; nothing is created", () =>
        Effect.gen(function*() {
          const organizations = yield* Organizations
          const before = yield* organizations.list
          const base = { name: "X", url: "http://x.test" }
          const pattern = "Subdomain can only have lowercase letters, numbers, and '-'s."
          yield* fails(organizations.create({ ...base, string_id: "Acme2" }), "BadRequest", pattern)
          yield* fails(organizations.create({ ...base, string_id: "acme_2" }), "BadRequest", pattern)
          yield* fails(organizations.create({ ...base, string_id: "" }), "BadRequest", pattern)
          yield* fails(organizations.create({ ...base, string_id: "a".repeat(41) }), "BadRequest", pattern)
          yield* fails(
            organizations.create({ ...base, string_id: "acme" }),
            "BadRequest",
            "Subdomain is already in use. Please choose a different one."
          )
          yield* fails(
            organizations.create({ ...base, string_id: "acme3", name: "   " }),
            "BadRequest",
            "Organization name can't be empty."
          )
          assert.deepStrictEqual(yield* organizations.list, before)
          // None of the failures consumed an id.
          const { realm } = yield* organizations.create({ ...base, string_id: "a".repeat(40) })
          assert.strictEqual(realm.id, before[before.length - 1]!.id + 1)
          assert.strictEqual(realm.fake_email_domain, "x.test")
        }).pipe(withTestClock))

      it.effect("Organizations.create: a failing owner rolls the whole organization back", () =>
        Effect.gen(function*() {
          const organizations = yield* Organizations
          const groupRepo = yield* GroupRepo
          const userRepo = yield* UserRepo
          const last = (yield* organizations.list).at(-1)!
          const lastGroup = (yield* groupRepo.listByRealm(last.id)).at(-1)!

          yield* fails(
            organizations.create({
              string_id: "rolled-back",
              name: "Rolled back",
              url: "http://rb.test",
              owner: { email: "owner@rb.test", full_name: "Bad|12" }
            }),
            "NameInvalidFormat",
            "Invalid format!"
          )
          assert.strictEqual(yield* organizations.findByStringId("rolled-back"), undefined)
          assert.deepStrictEqual((yield* organizations.list).at(-1), last)
          assert.deepStrictEqual(yield* userRepo.listByRealm((last.id + 1) as RealmId), [])
          assert.deepStrictEqual(yield* groupRepo.listByRealm((last.id + 1) as RealmId), [])

          // The realm and group ids the failed attempt took stay used, like
          // SQL sequences, on every backend alike.
          const { owner, realm } = yield* organizations.create({
            string_id: "rolled-back",
            name: "Rolled back",
            url: "http://rb.test",
            owner: { email: "owner@rb.test", full_name: "Good" }
          })
          assert.strictEqual(realm.id, last.id + 2)
          assert.deepStrictEqual(
            (yield* groupRepo.listByRealm(realm.id)).map((g) => g.id),
            Array.from({ length: 8 }, (_, i) => lastGroup.id + 9 + i)
          )
          assert.strictEqual(owner!.role, 100)
          assert.strictEqual(owner!.password_hash, null)
          assert.deepStrictEqual(yield* directGroups(realm.id, owner!.id), ["role:owners"])
        }).pipe(withTestClock))
    })

    // -------------------------------------------------------------------------
    layer(makeLayer(), { timeout: "120 seconds", excludeTestServices: true })("services", (it) => {
      // --- Users.create ------------------------------------------------------

      it.effect("Users.create: a person in an organization showing real addresses", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0 + 5 * day)
          const org = yield* makeOrg()
          const user = yield* addUser(org, 400, {
            email: ` Mixed.Case@${org.domain} `,
            full_name: " Ada  Lovelace ",
            timezone: "Europe/London"
          })
          const { api_key, password_hash, ...rest } = user
          assert.deepStrictEqual(rest, {
            id: rest.id,
            realm_id: org.realm.id,
            delivery_email: `Mixed.Case@${org.domain}`,
            email: `Mixed.Case@${org.domain}`,
            full_name: "Ada  Lovelace",
            role: 400,
            is_bot: false,
            bot_type: null,
            bot_owner_id: null,
            is_active: true,
            timezone: "Europe/London",
            avatar_source: "G",
            avatar_version: 1,
            date_joined: T0 + 5 * day,
            email_address_visibility: 1
          })
          assert.strictEqual(user.id, org.owner.id + 1)
          assert.match(api_key, /^[A-Za-z0-9]{32}$/)
          assert.notStrictEqual(api_key, org.owner.api_key)
          assert.isNotNull(password_hash)
          assert.deepStrictEqual(yield* (yield* Users).findById(user.id), user)
          // A person without a timezone or password.
          const bare = yield* addUser(org, 400, { password: undefined, timezone: undefined })
          assert.strictEqual(bare.timezone, "")
          assert.strictEqual(bare.password_hash, null)
        }).pipe(withTestClock))

      it.effect("Users.create: placeholder API email when visibility is not everyone; bots keep their real address", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg({ fake_email_domain: "fake.example", settings: { email_address_visibility: 3 } })
          // The owner was created under the organization default too.
          assert.strictEqual(org.owner.email, `user${org.owner.id}@fake.example`)
          assert.strictEqual(org.owner.delivery_email, `owner@${org.domain}`)
          assert.strictEqual(org.owner.email_address_visibility, 3)

          const person = yield* addUser(org, 600, { email: `Guest.Person@${org.domain}` })
          assert.strictEqual(person.email, `user${person.id}@fake.example`)
          assert.strictEqual(person.delivery_email, `Guest.Person@${org.domain}`)
          assert.strictEqual(person.email_address_visibility, 3)

          const bot = yield* addBot(org, org.owner, { email: `Helper-Bot@${org.domain}`, full_name: "Helper" })
          assert.strictEqual(bot.email, `Helper-Bot@${org.domain}`)
          assert.strictEqual(bot.delivery_email, `Helper-Bot@${org.domain}`)
          assert.strictEqual(bot.email_address_visibility, 1)
          assert.isTrue(bot.is_bot)
          assert.strictEqual(bot.bot_type, 1)
          assert.strictEqual(bot.bot_owner_id, org.owner.id)
          assert.strictEqual(bot.password_hash, null)

          // The owner must be a user of this organization.
          yield* fails(addBot(org, { ...org.owner, id: userId(999_999_999) }), "BadRequest", "No such user")
          const stranger = (yield* makeOrg()).owner
          yield* fails(addBot(org, stranger), "BadRequest", "No such user")

          // Each visibility the organization may default to.
          for (const visibility of [2, 4, 5] as const) {
            yield* updateRealmSettings(org.realm.id, { email_address_visibility: visibility })
            const u = yield* addUser(org, 400)
            assert.strictEqual(u.email, `user${u.id}@fake.example`)
            assert.strictEqual(u.email_address_visibility, visibility)
          }
          yield* updateRealmSettings(org.realm.id, { email_address_visibility: 1 })
          const visible = yield* addUser(org, 400, { email: `shown@${org.domain}` })
          assert.strictEqual(visible.email, `shown@${org.domain}`)
          // The fake domain defaults to the host of the organization's URL.
          const other = yield* makeOrg({ settings: { email_address_visibility: 2 } })
          assert.strictEqual(other.realm.fake_email_domain, new URL(other.realm.url).hostname)
          assert.strictEqual(other.owner.email, `user${other.owner.id}@${new URL(other.realm.url).hostname}`)
        }).pipe(withTestClock))

      it.effect("Users.create: role group memberships for every role, bots included", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const expectations: ReadonlyArray<readonly [Role, ReadonlyArray<string>, ReadonlyArray<string>]> = [
            [100, ["role:owners"], [
              "role:owners",
              "role:administrators",
              "role:moderators",
              "role:fullmembers",
              "role:members",
              "role:everyone",
              "role:internet"
            ]],
            [200, ["role:administrators"], [
              "role:administrators",
              "role:moderators",
              "role:fullmembers",
              "role:members",
              "role:everyone",
              "role:internet"
            ]],
            [300, ["role:moderators"], ["role:moderators", "role:fullmembers", "role:members", "role:everyone", "role:internet"]],
            [400, ["role:fullmembers", "role:members"], ["role:fullmembers", "role:members", "role:everyone", "role:internet"]],
            [600, ["role:everyone"], ["role:everyone", "role:internet"]]
          ]
          for (const [role, direct, recursive] of expectations) {
            const user = yield* addUser(org, role)
            assert.strictEqual(user.role, role)
            assert.deepStrictEqual(yield* directGroups(org.realm.id, user.id), direct, `direct groups of role ${role}`)
            assert.deepStrictEqual(yield* recursiveGroups(org.realm.id, user.id), recursive, `groups of role ${role}`)
          }
          const bot = yield* addBot(org, org.owner)
          assert.deepStrictEqual(yield* directGroups(org.realm.id, bot.id), ["role:fullmembers", "role:members"])
          const adminBot = yield* addBot(org, org.owner, { role: 200 })
          assert.deepStrictEqual(yield* directGroups(org.realm.id, adminBot.id), ["role:administrators"])
        }).pipe(withTestClock))

      it.effect("Users.create: members join role:fullmembers only after the waiting period", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const org = yield* makeOrg({ settings: { waiting_period_threshold: 3 } })
          const newcomer = yield* addUser(org, 400)
          assert.deepStrictEqual(yield* directGroups(org.realm.id, newcomer.id), ["role:members"])
          const moderator = yield* addUser(org, 300)
          assert.deepStrictEqual(yield* directGroups(org.realm.id, moderator.id), ["role:moderators"])
          assert.deepStrictEqual(yield* recursiveGroups(org.realm.id, moderator.id), [
            "role:moderators",
            "role:fullmembers",
            "role:members",
            "role:everyone",
            "role:internet"
          ])
          // 2.99 days later the newcomer is still provisional; at 3 days a
          // role change back to member puts them in role:fullmembers.
          const users = yield* Users
          yield* TestClock.setTime(T0 + 3 * day - 1)
          yield* users.changeRole(newcomer.id, 600)
          yield* users.changeRole(newcomer.id, 400)
          assert.deepStrictEqual(yield* directGroups(org.realm.id, newcomer.id), ["role:members"])
          yield* TestClock.setTime(T0 + 3 * day)
          yield* users.changeRole(newcomer.id, 600)
          assert.deepStrictEqual(yield* directGroups(org.realm.id, newcomer.id), ["role:everyone"])
          yield* users.changeRole(newcomer.id, 400)
          assert.deepStrictEqual(yield* directGroups(org.realm.id, newcomer.id), ["role:fullmembers", "role:members"])
        }).pipe(withTestClock))

      it.effect("Users.create: duplicate addresses are refused case-insensitively, with the address as given", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const userRepo = yield* UserRepo
          const first = yield* addUser(org, 400, { email: `Dup@${org.domain}` })
          const before = yield* userRepo.listByRealm(org.realm.id)
          const membersBefore = yield* (yield* GroupRepo).membership(org.realm.id)
          yield* fails(
            addUser(org, 400, { email: `dUP@${org.domain.toUpperCase()}` }),
            "BadRequest",
            `Email 'dUP@${org.domain.toUpperCase()}' already in use`
          )
          yield* fails(
            addUser(org, 200, { email: ` dup@${org.domain} ` }),
            "BadRequest",
            `Email 'dup@${org.domain}' already in use`
          )
          // A bot cannot take a person's address either.
          yield* fails(
            addBot(org, org.owner, { email: `DUP@${org.domain}` }),
            "BadRequest",
            `Email 'DUP@${org.domain}' already in use`
          )
          // Nothing half-written: same users, same memberships, no id used.
          assert.deepStrictEqual(yield* userRepo.listByRealm(org.realm.id), before)
          assert.deepStrictEqual(yield* (yield* GroupRepo).membership(org.realm.id), membersBefore)
          const next = yield* addUser(org, 400)
          assert.strictEqual(next.id, first.id + 1)
          // The same address is free in another organization.
          const other = yield* makeOrg()
          const elsewhere = yield* addUser(other, 400, { email: `dup@${org.domain}` })
          assert.strictEqual(elsewhere.delivery_email, `dup@${org.domain}`)
        }).pipe(withTestClock))

      it.effect("Users.create: full name and email validation, with Zulip's texts", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const userRepo = yield* UserRepo
          const before = yield* userRepo.listByRealm(org.realm.id)
          const name = (full_name: string) => addUser(org, 400, { full_name })
          yield* fails(name(""), "NameEmpty", "Name must not be empty!")
          yield* fails(name(" \t "), "NameEmpty", "Name must not be empty!")
          yield* fails(name("x".repeat(101)), "NameTooLong", "Name too long!")
          yield* fails(name("😀".repeat(101)), "NameTooLong", "Name too long!")
          for (const bad of ["a*b", "a`b", "a\\b", "a>b", "a\"b", "a@b", "bell\u0007", "nul\u0000x", "c1\u0085x"]) {
            yield* fails(name(bad), "NameInvalidCharacters", "Invalid characters in name!")
          }
          yield* fails(name("Hamlet|12"), "NameInvalidFormat", "Invalid format!")
          yield* fails(name("  Hamlet|7  "), "NameInvalidFormat", "Invalid format!")
          for (const bad of ["", "not-an-email", "a@b", "a b@c.test", "@c.test", "a@.test"]) {
            yield* fails(addUser(org, 400, { email: bad }), "InvalidEmailAddress", "Enter a valid email address.")
          }
          assert.deepStrictEqual(yield* userRepo.listByRealm(org.realm.id), before)
          // Boundaries that pass: 100 characters (emoji count once), '|' not
          // followed by digits only, non-Latin names.
          assert.strictEqual((yield* name("x".repeat(100))).full_name, "x".repeat(100))
          assert.strictEqual((yield* name("😀".repeat(100))).full_name, "😀".repeat(100))
          assert.strictEqual((yield* name("Hamlet|12a")).full_name, "Hamlet|12a")
          assert.strictEqual((yield* name("शिव")).full_name, "शिव")
        }).pipe(withTestClock))

      it.effect("Users.create: a transaction that fails after the create leaves nothing behind", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const users = yield* Users
          const userRepo = yield* UserRepo
          const tx = yield* Transactor
          const before = yield* userRepo.listByRealm(org.realm.id)
          const membership = yield* (yield* GroupRepo).membership(org.realm.id)
          const email = `ghost@${org.domain}`
          const outcome = yield* tx.withTransaction(
            users.create(org.realm.id, { email, full_name: "Ghost", role: 200 }).pipe(
              Effect.flatMap((user) => Effect.fail(new Rollback({ user })))
            )
          ).pipe(Effect.flip)
          if (outcome._tag !== "Rollback") return assert.fail(`unexpected ${outcome._tag}`)
          const created = outcome.user
          assert.strictEqual(yield* users.findByEmail(org.realm.id, email), undefined)
          assert.strictEqual(yield* users.findById(created.id), undefined)
          assert.deepStrictEqual(yield* userRepo.listByRealm(org.realm.id), before)
          assert.deepStrictEqual(yield* (yield* GroupRepo).membership(org.realm.id), membership)
          // The address is free again; the id stays used.
          const again = yield* users.create(org.realm.id, { email, full_name: "Ghost", role: 200 })
          assert.strictEqual(again.id, created.id + 1)
        }).pipe(withTestClock))

      // --- Authentication ----------------------------------------------------

      it.effect("Authentication.basic: Zulip's order of checks and errors", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg({ settings: { email_address_visibility: 3 } })
          const auth = yield* Authentication
          const users = yield* Users
          const person = yield* addUser(org, 400, { email: `Basic.User@${org.domain}` })
          const other = yield* addUser(org, 400)

          const ok = yield* auth.basic(`  basic.USER@${org.domain.toUpperCase()} `, ` ${person.api_key} `)
          assert.deepStrictEqual(ok.user, person)
          assert.deepStrictEqual(ok.realm, (yield* (yield* RealmRepo).findById(org.realm.id))!)

          for (const malformed of ["", "short", `${person.api_key}x`, `${person.api_key.slice(1)}-`, "ä".repeat(32)]) {
            yield* fails(auth.basic(person.delivery_email, malformed), "MalformedApiKey", "Malformed API key")
          }
          yield* fails(auth.basic(person.delivery_email, "A".repeat(32)), "InvalidApiKey", "Invalid API key")
          // Keys match exactly: not by case.
          const flipped = person.api_key.replace(/[a-zA-Z]/, (c) => c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())
          yield* fails(auth.basic(person.delivery_email, flipped), "InvalidApiKey", "Invalid API key")
          // The key of another account, or the right key with another address.
          yield* fails(auth.basic(person.delivery_email, other.api_key), "InvalidApiKey", "Invalid API key")
          yield* fails(auth.basic(other.delivery_email, person.api_key), "InvalidApiKey", "Invalid API key")
          // The placeholder API address is not the login: Zulip compares the real one.
          assert.strictEqual(person.email, `user${person.id}@${org.realm.fake_email_domain}`)
          yield* fails(auth.basic(person.email, person.api_key), "InvalidApiKey", "Invalid API key")

          // A deactivated account.
          yield* users.deactivate(person.id)
          yield* fails(auth.basic(person.delivery_email, person.api_key), "UserDeactivated", "Account is deactivated")
          // A deactivated organization is reported first, but only once the key and address match.
          const realms = yield* RealmRepo
          yield* realms.update({ ...(yield* realms.findById(org.realm.id))!, deactivated: true })
          yield* fails(
            auth.basic(person.delivery_email, person.api_key),
            "RealmDeactivated",
            "This organization has been deactivated"
          )
          yield* fails(auth.basic(other.delivery_email, other.api_key), "RealmDeactivated", "This organization has been deactivated")
          yield* fails(auth.basic(person.delivery_email, other.api_key), "InvalidApiKey", "Invalid API key")
          yield* fails(auth.basic(person.delivery_email, "short"), "MalformedApiKey", "Malformed API key")
        }).pipe(withTestClock))

      it.effect("Authentication.fetchApiKey: password login", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg({ settings: { email_address_visibility: 3 } })
          const auth = yield* Authentication
          const users = yield* Users
          const person = yield* addUser(org, 400, { email: `Stored.Case@${org.domain}`, password: "correct horse" })
          const failed = "Your username or password is incorrect"

          assert.deepStrictEqual(yield* auth.fetchApiKey(org.realm.id, ` stored.case@${org.domain} `, "correct horse"), {
            api_key: person.api_key,
            email: `Stored.Case@${org.domain}`,
            user_id: person.id
          })
          yield* fails(auth.fetchApiKey(org.realm.id, person.delivery_email, "wrong"), "AuthenticationFailed", failed)
          yield* fails(auth.fetchApiKey(org.realm.id, person.delivery_email, ""), "AuthenticationFailed", failed)
          yield* fails(auth.fetchApiKey(org.realm.id, `nobody@${org.domain}`, "correct horse"), "AuthenticationFailed", failed)
          yield* fails(auth.fetchApiKey(org.realm.id, "not an email", "x"), "InvalidEmailAddress", "Enter a valid email address.")
          // The placeholder address is not a login name.
          yield* fails(auth.fetchApiKey(org.realm.id, person.email, "correct horse"), "AuthenticationFailed", failed)
          // Another organization's account.
          const other = yield* makeOrg()
          yield* fails(auth.fetchApiKey(other.realm.id, person.delivery_email, "correct horse"), "AuthenticationFailed", failed)
          // Accounts without a password, and bots even with one.
          const passwordless = yield* addUser(org, 400, { password: undefined })
          yield* fails(auth.fetchApiKey(org.realm.id, passwordless.delivery_email, ""), "AuthenticationFailed", failed)
          const bot = yield* addBot(org, org.owner, { password: "bot-password" })
          yield* fails(auth.fetchApiKey(org.realm.id, bot.delivery_email, "bot-password"), "AuthenticationFailed", failed)
          // After a password change only the new one works.
          yield* users.setPassword(person.id, "battery staple")
          yield* fails(auth.fetchApiKey(org.realm.id, person.delivery_email, "correct horse"), "AuthenticationFailed", failed)
          assert.strictEqual((yield* auth.fetchApiKey(org.realm.id, person.delivery_email, "battery staple")).user_id, person.id)
          yield* fails(users.setPassword(userId(999_999_999), "x"), "NoSuchUser", "No such user")
          // A deactivated account is only revealed to the right password.
          yield* users.deactivate(person.id)
          yield* fails(auth.fetchApiKey(org.realm.id, person.delivery_email, "wrong"), "AuthenticationFailed", failed)
          yield* fails(
            auth.fetchApiKey(org.realm.id, person.delivery_email, "battery staple"),
            "UserDeactivated",
            "Account is deactivated"
          )
          // Organization switches.
          const disabled = yield* makeOrg({ settings: { email_auth_enabled: false } })
          yield* fails(
            auth.fetchApiKey(disabled.realm.id, disabled.owner.delivery_email, "owner-secret"),
            "PasswordAuthDisabled",
            "Password authentication is disabled in this organization"
          )
          const realms = yield* RealmRepo
          yield* realms.update({ ...(yield* realms.findById(org.realm.id))!, deactivated: true })
          yield* fails(
            auth.fetchApiKey(org.realm.id, org.owner.delivery_email, "owner-secret"),
            "RealmDeactivated",
            "This organization has been deactivated"
          )
        }).pipe(withTestClock))

      it.effect("Authentication.devFetchApiKey: any active account, bots included, without a password", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg({ settings: { email_address_visibility: 3 } })
          const auth = yield* Authentication
          const users = yield* Users
          const person = yield* addUser(org, 600, { email: `Dev.Login@${org.domain}` })
          const bot = yield* addBot(org, person)
          assert.deepStrictEqual(yield* auth.devFetchApiKey(org.realm.id, `DEV.login@${org.domain}`), {
            api_key: person.api_key,
            email: `Dev.Login@${org.domain}`,
            user_id: person.id
          })
          assert.deepStrictEqual(yield* auth.devFetchApiKey(org.realm.id, bot.delivery_email), {
            api_key: bot.api_key,
            email: bot.delivery_email,
            user_id: bot.id
          })
          yield* fails(
            auth.devFetchApiKey(org.realm.id, `nobody@${org.domain}`),
            "AuthenticationFailed",
            "Your username or password is incorrect"
          )
          yield* fails(auth.devFetchApiKey(org.realm.id, "nobody"), "InvalidEmailAddress", "Enter a valid email address.")
          yield* users.deactivate(person.id)
          yield* fails(auth.devFetchApiKey(org.realm.id, person.delivery_email), "UserDeactivated", "Account is deactivated")
          const realms = yield* RealmRepo
          yield* realms.update({ ...(yield* realms.findById(org.realm.id))!, deactivated: true })
          yield* fails(
            auth.devFetchApiKey(org.realm.id, `nobody@${org.domain}`),
            "RealmDeactivated",
            "This organization has been deactivated"
          )
        }).pipe(withTestClock))

      it.effect("Users.rotateApiKey: the old key stops working at once", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const users = yield* Users
          const auth = yield* Authentication
          const person = yield* addUser(org, 400)
          const rotated = yield* users.rotateApiKey(person.id)
          assert.deepStrictEqual(rotated, { ...person, api_key: rotated.api_key })
          assert.match(rotated.api_key, /^[A-Za-z0-9]{32}$/)
          assert.notStrictEqual(rotated.api_key, person.api_key)
          assert.deepStrictEqual(yield* users.findById(person.id), rotated)
          yield* fails(auth.basic(person.delivery_email, person.api_key), "InvalidApiKey", "Invalid API key")
          assert.strictEqual((yield* auth.basic(person.delivery_email, rotated.api_key)).user.id, person.id)
          assert.strictEqual(
            (yield* auth.fetchApiKey(org.realm.id, person.delivery_email, "pw")).api_key,
            rotated.api_key
          )
          yield* fails(users.rotateApiKey(userId(999_999_999)), "NoSuchUser", "No such user")
        }).pipe(withTestClock))

      it.effect("Authentication.basic: every write to the account or the organization reaches the next request", () =>
        Effect.gen(function*() {
          // On SQL, authentication reuses the organization read that requests
          // keep between them; these writes go straight to the repositories, as
          // another server process would make them, so nothing but the stored
          // data can tell the next request about them.
          const org = yield* makeOrg()
          const auth = yield* Authentication
          const messages = yield* Messages
          const userRepo = yield* UserRepo
          const realms = yield* RealmRepo
          const person = yield* addUser(org, 400)
          // Reads the organization from the principal's copy of the realm, as a send does.
          const readOrganization = (principal: Principal) =>
            messages.validate(principal, { type: "private", to: [person.id], content: "hello" })
          // A request: authenticate, then read the organization.
          const request = (apiKey: string) =>
            Effect.gen(function*() {
              const principal = yield* auth.basic(person.delivery_email, apiKey)
              yield* readOrganization(principal)
              return principal
            })
          yield* request(person.api_key)
          assert.deepStrictEqual((yield* request(person.api_key)).user, person)

          const rekeyed = { ...person, api_key: "k".repeat(32) }
          yield* userRepo.update(rekeyed)
          yield* fails(auth.basic(person.delivery_email, person.api_key), "InvalidApiKey", "Invalid API key")
          assert.deepStrictEqual((yield* request(rekeyed.api_key)).user, rekeyed)

          const promoted = { ...rekeyed, role: 200 as Role, full_name: "Promoted" }
          yield* userRepo.update(promoted)
          assert.deepStrictEqual((yield* request(promoted.api_key)).user, promoted)

          yield* userRepo.update({ ...promoted, is_active: false })
          yield* fails(auth.basic(person.delivery_email, promoted.api_key), "UserDeactivated", "Account is deactivated")
          yield* userRepo.update(promoted)
          yield* request(promoted.api_key)

          // Inside a transaction its own writes count at once; once it rolls
          // back they never did.
          const rolledBack = yield* Effect.flip((yield* Transactor).withTransaction(Effect.gen(function*() {
            yield* userRepo.update({ ...promoted, full_name: "Uncommitted" })
            assert.strictEqual((yield* request(promoted.api_key)).user.full_name, "Uncommitted")
            return yield* Effect.fail("roll back" as const)
          })))
          assert.strictEqual(rolledBack, "roll back")
          assert.deepStrictEqual((yield* request(promoted.api_key)).user, promoted)

          // A request still holding the organization as it was before a
          // change must not leave that old copy behind for the next one.
          const held = yield* auth.basic(person.delivery_email, promoted.api_key)
          const renamed = { ...(yield* realms.findById(org.realm.id))!, name: "Renamed" }
          yield* realms.update(renamed)
          yield* readOrganization(held)
          assert.deepStrictEqual((yield* request(promoted.api_key)).realm, renamed)

          yield* realms.update({ ...renamed, deactivated: true })
          yield* fails(
            auth.basic(person.delivery_email, promoted.api_key),
            "RealmDeactivated",
            "This organization has been deactivated"
          )
        }).pipe(withTestClock))

      // --- deactivate / reactivate / changeRole -------------------------------

      it.effect("Users.deactivate and reactivate: state, errors, and group memberships kept", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const users = yield* Users
          const person = yield* addUser(org, 400)
          const deactivated = yield* users.deactivate(person.id)
          assert.deepStrictEqual(deactivated, { ...person, is_active: false })
          assert.deepStrictEqual(yield* users.findById(person.id), deactivated)
          // Direct memberships stay (so reactivation restores them); group queries skip the user.
          assert.deepStrictEqual(yield* directGroups(org.realm.id, person.id), ["role:fullmembers", "role:members"])
          assert.deepStrictEqual(yield* recursiveGroups(org.realm.id, person.id), [])
          yield* fails(users.deactivate(person.id), "BadRequest", "User is already deactivated")
          const reactivated = yield* users.reactivate(person.id)
          assert.deepStrictEqual(reactivated, person)
          assert.deepStrictEqual(yield* recursiveGroups(org.realm.id, person.id), [
            "role:fullmembers",
            "role:members",
            "role:everyone",
            "role:internet"
          ])
          yield* fails(users.reactivate(person.id), "BadRequest", "User is already active")
          for (const op of [users.deactivate, users.reactivate]) {
            yield* fails(op(userId(999_999_999)), "NoSuchUser", "No such user")
          }
          yield* fails(users.changeRole(userId(999_999_999), 200), "NoSuchUser", "No such user")
        }).pipe(withTestClock))

      it.effect("Users: the only active human owner can be neither demoted nor deactivated", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const users = yield* Users
          const onlyOwner = "The owner permission cannot be removed from the only organization owner."
          const onlyDeactivate = "Cannot deactivate the only organization owner"
          yield* fails(users.changeRole(org.owner.id, 200), "OnlyOwner", onlyOwner)
          yield* fails(users.deactivate(org.owner.id), "BadRequest", onlyDeactivate)
          // Keeping the role is not a change.
          assert.deepStrictEqual(yield* users.changeRole(org.owner.id, 100), org.owner)
          // Bots holding the owner role do not count.
          const ownerBot = yield* addBot(org, org.owner, { role: 100 })
          yield* fails(users.changeRole(org.owner.id, 400), "OnlyOwner", onlyOwner)
          yield* fails(users.deactivate(org.owner.id), "BadRequest", onlyDeactivate)
          assert.strictEqual((yield* users.changeRole(ownerBot.id, 400)).role, 400)
          // Neither do deactivated owners.
          const second = yield* addUser(org, 100)
          yield* users.deactivate(second.id)
          yield* fails(users.changeRole(org.owner.id, 300), "OnlyOwner", onlyOwner)
          yield* users.reactivate(second.id)
          // With two active owners either may go, then the other is the only one.
          const demoted = yield* users.changeRole(org.owner.id, 200)
          assert.strictEqual(demoted.role, 200)
          yield* fails(users.deactivate(second.id), "BadRequest", onlyDeactivate)
          yield* fails(users.changeRole(second.id, 600), "OnlyOwner", onlyOwner)
          yield* users.changeRole(org.owner.id, 100)
          assert.isFalse((yield* users.deactivate(second.id)).is_active)
          assert.deepStrictEqual(yield* directGroups(org.realm.id, second.id), ["role:owners"])
        }).pipe(withTestClock))

      it.effect("Users.changeRole: role group memberships move with the role, even while deactivated", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const users = yield* Users
          const person = yield* addUser(org, 400)
          const steps: ReadonlyArray<readonly [Role, ReadonlyArray<string>]> = [
            [200, ["role:administrators"]],
            [600, ["role:everyone"]],
            [300, ["role:moderators"]],
            [100, ["role:owners"]],
            [400, ["role:fullmembers", "role:members"]]
          ]
          for (const [role, direct] of steps) {
            const changed = yield* users.changeRole(person.id, role)
            assert.deepStrictEqual(changed, { ...person, role })
            assert.deepStrictEqual(yield* users.findById(person.id), changed)
            assert.deepStrictEqual(yield* directGroups(org.realm.id, person.id), direct, `direct groups of role ${role}`)
          }
          // A deactivated member who becomes an administrator leaves
          // role:fullmembers too; reactivated, they are an administrator.
          yield* users.deactivate(person.id)
          yield* users.changeRole(person.id, 200)
          assert.deepStrictEqual(yield* directGroups(org.realm.id, person.id), ["role:administrators"])
          yield* users.changeRole(person.id, 400)
          assert.deepStrictEqual(yield* directGroups(org.realm.id, person.id), ["role:fullmembers", "role:members"])
          yield* users.changeRole(person.id, 600)
          yield* users.reactivate(person.id)
          assert.deepStrictEqual(yield* recursiveGroups(org.realm.id, person.id), ["role:everyone", "role:internet"])
        }).pipe(withTestClock))

      // --- Users.list / getById / getByEmail / me ------------------------------

      it.effect("Users.me: the own-user shape", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const org = yield* makeOrg({ settings: { email_address_visibility: 3 } })
          const users = yield* Users
          const person = yield* addUser(org, 300, { email: `Me.Myself@${org.domain}`, full_name: "Me", timezone: "Asia/Tokyo" })
          assert.deepStrictEqual(yield* users.me(yield* principal(person)), {
            avatar_url: gravatarUrl(`me.myself@${org.domain}`),
            avatar_version: 1,
            email: `user${person.id}@${org.realm.fake_email_domain}`,
            full_name: "Me",
            is_admin: false,
            is_owner: false,
            role: 300,
            is_guest: false,
            is_bot: false,
            is_active: true,
            timezone: "Asia/Tokyo",
            date_joined: "2024-01-15T10:30:00.123000+00:00",
            max_message_id: -1,
            user_id: person.id,
            delivery_email: `Me.Myself@${org.domain}`,
            profile_data: {}
          })
          const bot = yield* addBot(org, person, { email: `me-bot@${org.domain}` })
          const own = yield* users.me(yield* principal(bot))
          assert.isFalse("profile_data" in own)
          assert.strictEqual(own.email, `me-bot@${org.domain}`)
          assert.isTrue(own.is_bot)
          const owner = yield* users.me(yield* principal(org.owner))
          assert.isTrue(owner.is_owner)
          assert.isTrue(owner.is_admin)
        }).pipe(withTestClock))

      it.effect("Users.list: the members element, user_ids and its errors", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const org = yield* makeOrg()
          const users = yield* Users
          const person = yield* addUser(org, 600, { email: `Listed@${org.domain}`, full_name: "Listed", timezone: "UTC" })
          const bot = yield* addBot(org, person, { email: `listed-bot@${org.domain}`, full_name: "Listed Bot" })
          const gone = yield* addUser(org, 400)
          yield* users.deactivate(gone.id)
          const { realm } = yield* principal(org.owner)

          const all = yield* users.list(realm, org.owner, plain)
          assert.deepStrictEqual(userIds(all), [org.owner.id, person.id, bot.id, gone.id])
          assert.deepStrictEqual(all[1], {
            email: `Listed@${org.domain}`,
            user_id: person.id,
            avatar_version: 1,
            is_admin: false,
            is_owner: false,
            is_guest: true,
            is_bot: false,
            role: 600,
            timezone: "UTC",
            is_active: true,
            date_joined: "2024-01-15T10:30:00.123000+00:00",
            delivery_email: `Listed@${org.domain}`,
            avatar_url: gravatarUrl(`listed@${org.domain}`),
            full_name: "Listed",
            bot_type: null
          })
          assert.deepStrictEqual(all[2], {
            email: `listed-bot@${org.domain}`,
            user_id: bot.id,
            avatar_version: 1,
            is_admin: false,
            is_owner: false,
            is_guest: false,
            is_bot: true,
            role: 400,
            timezone: "",
            is_active: true,
            date_joined: "2024-01-15T10:30:00.123000+00:00",
            delivery_email: `listed-bot@${org.domain}`,
            avatar_url: gravatarUrl(`listed-bot@${org.domain}`),
            full_name: "Listed Bot",
            bot_type: 1,
            bot_owner_id: person.id
          })
          assert.isFalse(all[3]!.is_active)
          assert.deepStrictEqual(all[0]!.is_owner && all[0]!.is_admin, true)
          // Custom profile fields: an empty object for people, never for bots.
          const withFields = yield* users.list(realm, org.owner, { clientGravatar: false, includeCustomProfileFields: true })
          assert.deepStrictEqual(withFields[1], { ...all[1]!, profile_data: {} })
          assert.deepStrictEqual(withFields[2], all[2])

          // user_ids restricts the result; deactivated users can be asked for.
          assert.deepStrictEqual(
            userIds(yield* users.list(realm, org.owner, { ...plain, userIds: [person.id, gone.id] })),
            [person.id, gone.id]
          )
          assert.deepStrictEqual(yield* users.list(realm, org.owner, { ...plain, userIds: [] }), [])
          yield* fails(
            users.list(realm, org.owner, { ...plain, userIds: [person.id, 999_999_999] }),
            "InvalidUserId",
            "Invalid user ID 999999999"
          )
          // Users of another organization do not exist here.
          const other = yield* makeOrg()
          yield* fails(
            users.list(realm, org.owner, { ...plain, userIds: [other.owner.id] }),
            "InvalidUserId",
            `Invalid user ID ${other.owner.id}`
          )
          assert.deepStrictEqual(userIds(yield* users.list(other.realm, other.owner, plain)), [other.owner.id])
        }).pipe(withTestClock))

      it.effect("Users.list / getById / getByEmail: guests limited by can_access_all_users_group", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const users = yield* Users
          const channels = yield* Channels
          const guest = yield* addUser(org, 600)
          const sharing = yield* addUser(org, 400)
          const stranger = yield* addUser(org, 400)
          const otherGuest = yield* addUser(org, 600)
          const bot = yield* addBot(org, org.owner)
          const room = yield* channels.create(org.realm.id, { name: "shared room", invite_only: true })
          const lobby = yield* channels.create(org.realm.id, { name: "lobby" })
          yield* channels.subscribe(room.id, [guest.id, sharing.id])
          yield* channels.subscribe(lobby.id, [stranger.id, otherGuest.id])
          const everybody = [org.owner.id, guest.id, sharing.id, stranger.id, otherGuest.id, bot.id]

          // Default (role:everyone): everybody sees everybody.
          let realm = (yield* principal(guest)).realm
          assert.deepStrictEqual(userIds(yield* users.list(realm, guest, plain)), everybody)

          yield* updateRealmSettings(org.realm.id, { can_access_all_users_group: org.groups["role:members"] })
          realm = (yield* principal(guest)).realm
          // Guests: themselves, bots, and people sharing a channel.
          assert.deepStrictEqual(userIds(yield* users.list(realm, guest, plain)), [guest.id, sharing.id, bot.id])
          assert.deepStrictEqual(userIds(yield* users.list(realm, otherGuest, plain)), [
            stranger.id,
            otherGuest.id,
            bot.id
          ])
          // Everyone else, and spectators, still see everybody.
          for (const viewer of [org.owner, sharing, stranger, bot]) {
            assert.deepStrictEqual(userIds(yield* users.list(realm, viewer, plain)), everybody)
          }
          assert.deepStrictEqual(userIds(yield* users.list(realm, undefined, plain)), everybody)
          yield* fails(
            users.list(realm, guest, { ...plain, userIds: [sharing.id, stranger.id] }),
            "InvalidUserId",
            `Invalid user ID ${stranger.id}`
          )
          assert.deepStrictEqual(
            userIds(yield* users.list(realm, guest, { ...plain, userIds: [sharing.id, bot.id] })),
            [sharing.id, bot.id]
          )
          const asGuest = yield* principal(guest)
          assert.strictEqual((yield* users.getById(asGuest, sharing.id, plain)).user_id, sharing.id)
          assert.strictEqual((yield* users.getById(asGuest, bot.id, plain)).user_id, bot.id)
          yield* fails(users.getById(asGuest, stranger.id, plain), "NoSuchUser", "No such user")
          yield* fails(users.getByEmail(asGuest, stranger.email, plain), "NoSuchUser", "No such user")
          assert.strictEqual((yield* users.getByEmail(asGuest, sharing.email, plain)).user_id, sharing.id)
          // Unsubscribed sharing (an inactive subscription) no longer counts.
          const subscriptions = yield* SubscriptionRepo
          const row = (yield* subscriptions.find(sharing.id, room.id))!
          yield* subscriptions.upsert({ ...row, active: false })
          assert.deepStrictEqual(userIds(yield* users.list(realm, guest, plain)), [guest.id, bot.id])
        }).pipe(withTestClock))

      it.effect("Users.getById / getByEmail: lookups, placeholder addresses, case, other organizations", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg({ fake_email_domain: "hidden.example", settings: { email_address_visibility: 3 } })
          const users = yield* Users
          const admin = yield* addUser(org, 200)
          const member = yield* addUser(org, 400, { email: `Target.Person@${org.domain}` })
          const asAdmin = yield* principal(admin)
          const asMember = yield* principal(member)
          const target = yield* addUser(org, 400, { email: `Hidden.Person@${org.domain}` })
          const placeholder = `user${target.id}@hidden.example`

          const byId = yield* users.getById(asMember, target.id, plain)
          assert.strictEqual(byId.email, placeholder)
          assert.strictEqual(byId.delivery_email, null)
          assert.deepStrictEqual(yield* users.getById(asAdmin, target.id, plain), { ...byId, delivery_email: target.delivery_email })
          yield* fails(users.getById(asMember, 999_999_999, plain), "NoSuchUser", "No such user")
          const other = yield* makeOrg()
          yield* fails(users.getById(asMember, other.owner.id, plain), "NoSuchUser", "No such user")
          yield* fails(users.getByEmail(asAdmin, other.owner.delivery_email, plain), "NoSuchUser", "No such user")

          // The placeholder works for everyone.
          assert.deepStrictEqual(yield* users.getByEmail(asMember, placeholder, plain), byId)
          assert.strictEqual((yield* users.getByEmail(asAdmin, placeholder, plain)).user_id, target.id)
          // The real address only for viewers allowed to see it, case-insensitively.
          assert.strictEqual((yield* users.getByEmail(asAdmin, `hidden.person@${org.domain.toUpperCase()}`, plain)).user_id, target.id)
          yield* fails(users.getByEmail(asMember, target.delivery_email, plain), "NoSuchUser", "No such user")
          // One's own real address always works.
          assert.strictEqual((yield* users.getByEmail(asMember, `TARGET.person@${org.domain}`, plain)).user_id, member.id)
          // Bots' addresses are public.
          const bot = yield* addBot(org, member, { email: `Lookup-Bot@${org.domain}` })
          assert.strictEqual((yield* users.getByEmail(asMember, `lookup-bot@${org.domain}`, plain)).user_id, bot.id)
          yield* fails(users.getByEmail(asMember, `nobody@${org.domain}`, plain), "NoSuchUser", "No such user")
          // Deactivated users can be fetched.
          yield* users.deactivate(target.id)
          assert.isFalse((yield* users.getById(asMember, target.id, plain)).is_active)
        }).pipe(withTestClock))

      it.effect("client_gravatar: avatar_url is null only where the viewer can see the real address", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg({ settings: { email_address_visibility: 3 } })
          const users = yield* Users
          const member = yield* addUser(org, 400)
          const bot = yield* addBot(org, member)
          const realm = (yield* principal(member)).realm
          const avatars = (list: ReadonlyArray<ApiUser>) => list.map((u) => u.avatar_url === null ? null : "url")
          // Ids: owner, member, bot.
          assert.deepStrictEqual(avatars(yield* users.list(realm, org.owner, gravatar)), [null, null, null])
          assert.deepStrictEqual(avatars(yield* users.list(realm, member, gravatar)), ["url", null, null])
          assert.deepStrictEqual(avatars(yield* users.list(realm, undefined, gravatar)), ["url", "url", null])
          assert.deepStrictEqual(avatars(yield* users.list(realm, org.owner, plain)), ["url", "url", "url"])
          assert.strictEqual(
            (yield* users.list(realm, member, gravatar))[0]!.avatar_url,
            gravatarUrl(org.owner.delivery_email)
          )
          assert.strictEqual((yield* users.getById(yield* principal(member), bot.id, gravatar)).avatar_url, null)
        }).pipe(withTestClock))

      // --- Channels.create -------------------------------------------------------

      it.effect("Channels.create: every field and its defaults", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const org = yield* makeOrg()
          const channels = yield* Channels
          const g = org.groups
          const channel = yield* channels.create(org.realm.id, {
            name: "  General  ",
            description: "Tea & <b>\"cakes\"</b> at 5 o'clock",
            creator_id: org.owner.id
          })
          assert.deepStrictEqual(channel, {
            id: channel.id,
            realm_id: org.realm.id,
            name: "General",
            description: "Tea & <b>\"cakes\"</b> at 5 o'clock",
            rendered_description: "<p>Tea &amp; &lt;b&gt;\"cakes\"&lt;/b&gt; at 5 o'clock</p>",
            date_created: Math.floor(T0 / 1000),
            creator_id: org.owner.id,
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
              can_add_subscribers_group: g["role:nobody"],
              can_remove_subscribers_group: g["role:administrators"],
              can_administer_channel_group: { direct_members: [org.owner.id], direct_subgroups: [] },
              can_delete_any_message_group: g["role:nobody"],
              can_delete_own_message_group: g["role:everyone"],
              can_move_messages_out_of_channel_group: g["role:nobody"],
              can_move_messages_within_channel_group: g["role:nobody"],
              can_send_message_group: g["role:everyone"],
              can_subscribe_group: g["role:nobody"],
              can_resolve_topics_group: g["role:nobody"]
            }
          })
          assert.deepStrictEqual(yield* channels.findById(channel.id), channel)
          assert.deepStrictEqual(yield* channels.findByName(org.realm.id, "GENERAL"), channel)

          // Without a creator nobody administers it; empty descriptions render empty.
          const bare = yield* channels.create(org.realm.id, { name: "bare" })
          assert.strictEqual(bare.id, channel.id + 1)
          assert.strictEqual(bare.creator_id, null)
          assert.strictEqual(bare.settings.can_administer_channel_group, g["role:nobody"])
          assert.strictEqual(bare.description, "")
          assert.strictEqual(bare.rendered_description, "")

          // The rest of the inputs.
          const custom = yield* channels.create(org.realm.id, {
            name: "custom",
            is_web_public: true,
            message_retention_days: 30,
            topics_policy: "disable_empty_topic",
            is_default: true
          })
          assert.isTrue(custom.is_web_public)
          assert.strictEqual(custom.message_retention_days, 30)
          assert.strictEqual(custom.topics_policy, "disable_empty_topic")
          assert.isTrue(custom.is_default)
        }).pipe(withTestClock))

      it.effect("Channels.create: history_public_to_subscribers follows Zulip's rules", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const channels = yield* Channels
          const history = (input: Omit<NewChannel, "name">) =>
            channels.create(org.realm.id, { name: unique("h"), ...input }).pipe(
              Effect.map((c) => c.history_public_to_subscribers)
            )
          // Private channels hide history unless asked; public ones always share it.
          assert.isFalse(yield* history({ invite_only: true }))
          assert.isTrue(yield* history({ invite_only: true, history_public_to_subscribers: true }))
          assert.isFalse(yield* history({ invite_only: true, history_public_to_subscribers: false }))
          assert.isTrue(yield* history({}))
          assert.isTrue(yield* history({ history_public_to_subscribers: false }))
          assert.isTrue(yield* history({ is_web_public: true, history_public_to_subscribers: false }))
        }).pipe(withTestClock))

      it.effect("Channels.create: name and description limits, duplicates case-insensitively", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const channels = yield* Channels
          const create = (input: NewChannel) => channels.create(org.realm.id, input)
          yield* fails(create({ name: "" }), "BadRequest", "Channel name can't be empty.")
          yield* fails(create({ name: "   " }), "BadRequest", "Channel name can't be empty.")
          yield* fails(create({ name: "n".repeat(61) }), "BadRequest", "Channel name too long (limit: 60 characters).")
          yield* fails(
            create({ name: "long description", description: "d".repeat(1025) }),
            "BadRequest",
            "description is too long (limit: 1024 characters)"
          )
          const first = yield* create({ name: `  ${"n".repeat(60)}  `, description: "d".repeat(1024) })
          assert.strictEqual(first.name, "n".repeat(60))
          const general = yield* create({ name: "General" })
          yield* fails(create({ name: "general" }), "BadRequest", "Channel 'general' already exists")
          yield* fails(create({ name: " GENERAL " }), "BadRequest", "Channel 'GENERAL' already exists")
          // Nothing was written, and no id was used, by the failures.
          assert.deepStrictEqual((yield* (yield* ChannelRepo).listByRealm(org.realm.id)).map((c) => c.id), [
            first.id,
            general.id
          ])
          const next = yield* create({ name: "next" })
          assert.strictEqual(next.id, general.id + 1)
          // The creator must be a user of this organization.
          yield* fails(create({ name: "orphan", creator_id: userId(999_999_999) }), "BadRequest", "No such user")
          // Names are per organization.
          const other = yield* makeOrg()
          yield* fails(create({ name: "foreign", creator_id: other.owner.id }), "BadRequest", "No such user")
          assert.strictEqual((yield* channels.create(other.realm.id, { name: "general" })).name, "general")
        }).pipe(withTestClock))

      // --- Channels.subscribe -----------------------------------------------------

      it.effect("Channels.subscribe: idempotent, palette colours in order, kept across resubscription", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const channels = yield* Channels
          const subscriptionRepo = yield* SubscriptionRepo
          const a = yield* addUser(org, 400)
          const b = yield* addUser(org, 600)
          const created: Array<Channel> = []
          for (const name of ["one", "two", "three", "four"]) {
            created.push(yield* channels.create(org.realm.id, { name }))
          }
          const [one, two, three, four] = created as [Channel, Channel, Channel, Channel]
          assert.deepStrictEqual(yield* channels.subscribe(one.id, [a.id, b.id]), [a.id, b.id])
          assert.deepStrictEqual(yield* channels.subscribe(one.id, [a.id, b.id, a.id]), [])
          assert.deepStrictEqual(yield* channels.subscribe(one.id, []), [])
          assert.deepStrictEqual(yield* channels.subscribe(three.id, [a.id]), [a.id])
          assert.deepStrictEqual(yield* channels.subscribe(two.id, [b.id, a.id, b.id]), [b.id, a.id])

          const subs = yield* channels.subscriptionsOf(a.id)
          assert.deepStrictEqual(subs, [
            {
              user_id: a.id,
              channel_id: one.id,
              active: true,
              properties: {
                color: SubscriptionColors[0],
                pin_to_top: false,
                is_muted: false,
                desktop_notifications: null,
                email_notifications: null,
                push_notifications: null,
                audible_notifications: null,
                wildcard_mentions_notify: null
              }
            },
            { user_id: a.id, channel_id: two.id, active: true, properties: { ...subs[0]!.properties, color: SubscriptionColors[2] } },
            { user_id: a.id, channel_id: three.id, active: true, properties: { ...subs[0]!.properties, color: SubscriptionColors[1] } }
          ])
          assert.deepStrictEqual((yield* channels.subscriptionsOf(b.id)).map((s) => s.properties.color), [
            SubscriptionColors[0],
            SubscriptionColors[1]
          ])

          // An unsubscribed row keeps its colour, which stays taken; subscribing again reuses it.
          const row = (yield* subscriptionRepo.find(a.id, three.id))!
          yield* subscriptionRepo.upsert({ ...row, active: false, properties: { ...row.properties, is_muted: true } })
          assert.deepStrictEqual((yield* channels.subscriptionsOf(a.id)).map((s) => s.channel_id), [one.id, two.id])
          assert.deepStrictEqual(yield* channels.subscribe(four.id, [a.id]), [a.id])
          assert.strictEqual((yield* subscriptionRepo.find(a.id, four.id))!.properties.color, SubscriptionColors[3])
          assert.deepStrictEqual(yield* channels.subscribe(three.id, [a.id]), [a.id])
          assert.deepStrictEqual(yield* subscriptionRepo.find(a.id, three.id), {
            ...row,
            active: true,
            properties: { ...row.properties, is_muted: true }
          })
        }).pipe(withTestClock))

      it.effect("Channels.subscribe: unknown channels and users fail, and nothing is subscribed", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const channels = yield* Channels
          const a = yield* addUser(org, 400)
          const room = yield* channels.create(org.realm.id, { name: "room" })
          const missing = channelId(999_999_999)
          const error = yield* fails(
            channels.subscribe(missing, [a.id]),
            "StreamDoesNotExist",
            "Channel with ID '999999999' does not exist"
          )
          assert.strictEqual((error as unknown as { readonly stream_id: number }).stream_id, 999_999_999)
          yield* fails(channels.subscribe(room.id, [a.id, userId(999_999_999)]), "InvalidUserId", "Invalid user ID 999999999")
          const other = yield* makeOrg()
          yield* fails(channels.subscribe(room.id, [a.id, other.owner.id]), "InvalidUserId", `Invalid user ID ${other.owner.id}`)
          // The valid user listed first was rolled back with the rest.
          assert.deepStrictEqual(yield* channels.subscriptionsOf(a.id), [])
          assert.deepStrictEqual(yield* (yield* SubscriptionRepo).listByChannel(room.id), [])
        }).pipe(withTestClock))

      // --- Channels.list ----------------------------------------------------------

      it.effect("Channels.list: every GET /streams flag for every role", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg()
          const channels = yield* Channels
          const admin = yield* addUser(org, 200)
          const moderator = yield* addUser(org, 300)
          const member = yield* addUser(org, 400)
          const guest = yield* addUser(org, 600)
          const bot = yield* addBot(org, member)
          const owner = org.owner

          const make = (name: string, input: Omit<NewChannel, "name"> = {}) => channels.create(org.realm.id, { name, ...input })
          const alpha = yield* make("alpha")
          const beta = yield* make("Beta", { invite_only: true, creator_id: member.id })
          yield* make("gamma", { is_web_public: true })
          const delta = yield* make("delta", { is_default: true })
          const epsilon = yield* make("Epsilon", { invite_only: true })
          yield* make("zeta", { is_default: true })
          yield* channels.subscribe(alpha.id, [member.id])
          yield* channels.subscribe(beta.id, [member.id])
          yield* channels.subscribe(delta.id, [guest.id])
          yield* channels.subscribe(epsilon.id, [guest.id])
          const channelRepo = yield* ChannelRepo
          yield* channelRepo.update({ ...delta, is_archived: true })

          const listed = (user: User, options: ListChannelsOptions) =>
            Effect.flatMap(principal(user), (p) => channels.list(p, options)).pipe(Effect.map(names))
          const table: ReadonlyArray<readonly [string, ListChannelsOptions, Record<string, ReadonlyArray<string>>]> = [
            ["defaults", defaultListChannelsOptions, {
              owner: ["alpha", "gamma", "zeta"],
              admin: ["alpha", "gamma", "zeta"],
              moderator: ["alpha", "gamma", "zeta"],
              member: ["Beta", "alpha", "gamma", "zeta"],
              guest: ["Epsilon"],
              bot: ["alpha", "gamma", "zeta"]
            }],
            ["defaults with archived", { ...defaultListChannelsOptions, exclude_archived: false }, {
              owner: ["alpha", "delta", "gamma", "zeta"],
              admin: ["alpha", "delta", "gamma", "zeta"],
              moderator: ["alpha", "delta", "gamma", "zeta"],
              member: ["Beta", "alpha", "delta", "gamma", "zeta"],
              guest: ["Epsilon", "delta"],
              bot: ["alpha", "delta", "gamma", "zeta"]
            }],
            ["include_all", only({ include_all: true }), {
              owner: ["Beta", "Epsilon", "alpha", "gamma", "zeta"],
              admin: ["Beta", "Epsilon", "alpha", "gamma", "zeta"],
              moderator: ["alpha", "gamma", "zeta"],
              member: ["Beta", "alpha", "gamma", "zeta"],
              guest: ["Epsilon", "gamma"],
              bot: ["alpha", "gamma", "zeta"]
            }],
            ["include_all with archived", only({ include_all: true, exclude_archived: false }), {
              owner: ["Beta", "Epsilon", "alpha", "delta", "gamma", "zeta"],
              admin: ["Beta", "Epsilon", "alpha", "delta", "gamma", "zeta"],
              moderator: ["alpha", "delta", "gamma", "zeta"],
              member: ["Beta", "alpha", "delta", "gamma", "zeta"],
              guest: ["Epsilon", "delta", "gamma"],
              bot: ["alpha", "delta", "gamma", "zeta"]
            }],
            ["include_public", only({ include_public: true }), {
              owner: ["alpha", "gamma", "zeta"],
              admin: ["alpha", "gamma", "zeta"],
              moderator: ["alpha", "gamma", "zeta"],
              member: ["alpha", "gamma", "zeta"],
              guest: [],
              bot: ["alpha", "gamma", "zeta"]
            }],
            ["include_subscribed", only({ include_subscribed: true }), {
              owner: [],
              admin: [],
              moderator: [],
              member: ["Beta", "alpha"],
              guest: ["Epsilon"],
              bot: []
            }],
            ["include_web_public", only({ include_web_public: true }), {
              owner: ["gamma"],
              admin: ["gamma"],
              moderator: ["gamma"],
              member: ["gamma"],
              guest: ["gamma"],
              bot: ["gamma"]
            }],
            ["include_default", only({ include_default: true }), {
              owner: ["zeta"],
              admin: ["zeta"],
              moderator: ["zeta"],
              member: ["zeta"],
              guest: ["zeta"],
              bot: ["zeta"]
            }],
            ["include_owner_subscribed", only({ include_owner_subscribed: true }), {
              owner: [],
              admin: [],
              moderator: [],
              member: [],
              guest: [],
              bot: ["Beta", "alpha"]
            }],
            ["include_can_access_content", only({ include_can_access_content: true }), {
              owner: ["alpha", "gamma", "zeta"],
              admin: ["alpha", "gamma", "zeta"],
              moderator: ["alpha", "gamma", "zeta"],
              member: ["Beta", "alpha", "gamma", "zeta"],
              guest: ["Epsilon", "gamma"],
              bot: ["alpha", "gamma", "zeta"]
            }],
            ["nothing", only({}), { owner: [], admin: [], moderator: [], member: [], guest: [], bot: [] }]
          ]
          const viewers = { owner, admin, moderator, member, guest, bot }
          for (const [label, options, expected] of table) {
            for (const [role, user] of Object.entries(viewers)) {
              assert.deepStrictEqual(yield* listed(user, options), expected[role], `${label} as ${role}`)
            }
          }

          // is_default appears only with include_default.
          const p = yield* principal(owner)
          const plainList = yield* channels.list(p, defaultListChannelsOptions)
          assert.isTrue(plainList.every((c) => !("is_default" in c)))
          const withDefault = yield* channels.list(p, { ...defaultListChannelsOptions, include_default: true })
          assert.deepStrictEqual(withDefault.map((c) => [c.name, c.is_default]), [
            ["alpha", false],
            ["gamma", false],
            ["zeta", true]
          ])
        }).pipe(withTestClock))

      it.effect("Channels.list: the channel shape and subscriber counts of active users", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const org = yield* makeOrg()
          const channels = yield* Channels
          const users = yield* Users
          const a = yield* addUser(org, 400)
          const b = yield* addUser(org, 400)
          const c = yield* addUser(org, 600)
          const room = yield* channels.create(org.realm.id, {
            name: "room",
            description: "A *room*",
            invite_only: true,
            history_public_to_subscribers: true,
            creator_id: a.id,
            message_retention_days: 7
          })
          yield* channels.subscribe(room.id, [a.id, b.id, c.id])
          const g = org.groups
          const [listed] = yield* channels.list(yield* principal(a), only({ include_subscribed: true }))
          assert.deepStrictEqual(listed, {
            stream_id: room.id,
            name: "room",
            is_archived: false,
            description: "A *room*",
            rendered_description: "<p>A <em>room</em></p>",
            date_created: Math.floor(T0 / 1000),
            creator_id: a.id,
            invite_only: true,
            is_web_public: false,
            stream_post_policy: 1,
            is_announcement_only: false,
            message_retention_days: 7,
            history_public_to_subscribers: true,
            topics_policy: "inherit",
            first_message_id: null,
            folder_id: null,
            is_recently_active: true,
            can_add_subscribers_group: g["role:nobody"],
            can_remove_subscribers_group: g["role:administrators"],
            can_administer_channel_group: { direct_members: [a.id], direct_subgroups: [] },
            can_delete_any_message_group: g["role:nobody"],
            can_delete_own_message_group: g["role:everyone"],
            can_move_messages_out_of_channel_group: g["role:nobody"],
            can_move_messages_within_channel_group: g["role:nobody"],
            can_send_message_group: g["role:everyone"],
            can_subscribe_group: g["role:nobody"],
            can_resolve_topics_group: g["role:nobody"],
            subscriber_count: 3,
            stream_weekly_traffic: null
          })
          // Deactivated subscribers and inactive subscriptions do not count.
          yield* users.deactivate(b.id)
          const subscriptionRepo = yield* SubscriptionRepo
          yield* subscriptionRepo.upsert({ ...(yield* subscriptionRepo.find(c.id, room.id))!, active: false })
          const count = (yield* channels.list(yield* principal(a), only({ include_subscribed: true })))[0]!.subscriber_count
          assert.strictEqual(count, 1)
        }).pipe(withTestClock))
    })

    // -------------------------------------------------------------------------
    layer(makeLayer(), { timeout: "120 seconds", excludeTestServices: true })("demo organization", (it) => {
      /** Seeds the demo organization once per database (at T0), then finds it. */
      const demo = Effect.gen(function*() {
        const organizations = yield* Organizations
        const existing = yield* organizations.findByStringId("zulip")
        if (existing !== undefined) return existing
        yield* TestClock.setTime(T0)
        return yield* DemoOrganization.seed("http://localhost:9991")
      })
      const byEmail = (email: string) =>
        Effect.gen(function*() {
          const realm = yield* demo
          const user = yield* (yield* Users).findByEmail(realm.id, email)
          return yield* principal(user!)
        })

      // Ids follow creation order on a fresh database.
      const ids = {
        desdemona: 1,
        ZOE: 2,
        othello: 3,
        iago: 4,
        prospero: 5,
        cordelia: 6,
        hamlet: 7,
        AARON: 8,
        polonius: 9,
        shiva: 10,
        defaultBot: 11,
        webhookBot: 12,
        outgoingWebhook: 13,
        commitBot: 14,
        tracBot: 15,
        nagiosBot: 16
      } as const
      const bots = [11, 12, 13, 14, 15, 16]

      it.effect("the realm", () =>
        Effect.gen(function*() {
          const realm = yield* demo
          const g = yield* (yield* Organizations).systemGroups(realm.id)
          assert.deepStrictEqual(realm, {
            id: realm.id,
            string_id: "zulip",
            name: "Zulip Dev",
            description: "The Zulip development environment default organization.  It's great for testing!",
            url: "http://localhost:9991",
            fake_email_domain: "zulipdev.com",
            deactivated: false,
            date_created: T0,
            settings: {
              email_address_visibility: 3,
              enable_spectator_access: true,
              invite_required: false,
              emails_restricted_to_domains: false,
              email_auth_enabled: true,
              allow_message_editing: true,
              enable_read_receipts: true,
              require_unique_names: false,
              waiting_period_threshold: 0,
              message_retention_days: -1,
              topics_policy: "allow_empty_topic",
              can_access_all_users_group: g["role:everyone"],
              can_create_groups: g["role:members"],
              can_manage_all_groups: g["role:owners"],
              can_create_public_channel_group: g["role:members"],
              can_create_private_channel_group: g["role:members"],
              can_create_web_public_channel_group: g["role:owners"],
              can_add_subscribers_group: g["role:members"],
              can_invite_users_group: g["role:members"],
              can_move_messages_between_channels_group: g["role:members"],
              can_move_messages_between_topics_group: g["role:everyone"],
              can_delete_any_message_group: g["role:administrators"],
              can_delete_own_message_group: g["role:everyone"],
              can_mention_many_users_group: g["role:administrators"]
            }
          })
          assert.strictEqual(realm.id, 1)
          // Seeding twice fails like any duplicate organization.
          yield* fails(
            DemoOrganization.seed("http://localhost:9991"),
            "BadRequest",
            "Subdomain is already in use. Please choose a different one."
          )
        }).pipe(withTestClock))

      it.effect("every user: address case, name, role, timezone; bots with types and owners", () =>
        Effect.gen(function*() {
          const realm = yield* demo
          const users = yield* Users
          const all = yield* (yield* UserRepo).listByRealm(realm.id)
          const people: ReadonlyArray<readonly [number, string, string, Role, string]> = [
            [1, "desdemona@zulip.com", "Desdemona", 100, "Canada/Newfoundland"],
            [2, "ZOE@zulip.com", "Zoe", 400, "US/Eastern"],
            [3, "othello@zulip.com", "Othello, the Moor of Venice", 400, "US/Pacific"],
            [4, "iago@zulip.com", "Iago", 200, "US/Eastern"],
            [5, "prospero@zulip.com", "Prospero from The Tempest", 400, ""],
            [6, "cordelia@zulip.com", "Cordelia, Lear's daughter", 400, "UTC"],
            [7, "hamlet@zulip.com", "King Hamlet", 400, ""],
            [8, "AARON@zulip.com", "aaron", 400, "US/Pacific"],
            [9, "polonius@zulip.com", "Polonius", 600, "Asia/Shanghai"],
            [10, "shiva@zulip.com", "शिव", 300, "Asia/Kolkata"]
          ]
          const botRows: ReadonlyArray<readonly [number, string, string, 1 | 2 | 3, number]> = [
            [11, "default-bot@zulip.com", "Zulip Default Bot", 1, ids.desdemona],
            [12, "webhook-bot@zulip.com", "Zulip Webhook Bot", 2, ids.ZOE],
            [13, "outgoing-webhook@zulip.com", "Outgoing Webhook", 3, ids.AARON],
            [14, "commit-bot@zulip.com", "Zulip Commit Bot", 1, ids.desdemona],
            [15, "trac-bot@zulip.com", "Zulip Trac Bot", 1, ids.desdemona],
            [16, "nagios-bot@zulip.com", "Zulip Nagios Bot", 1, ids.desdemona]
          ]
          const summary = (u: User) => ({
            id: u.id,
            delivery_email: u.delivery_email,
            email: u.email,
            full_name: u.full_name,
            role: u.role,
            timezone: u.timezone,
            is_bot: u.is_bot,
            bot_type: u.bot_type,
            bot_owner_id: u.bot_owner_id,
            is_active: u.is_active,
            email_address_visibility: u.email_address_visibility,
            date_joined: u.date_joined
          })
          assert.deepStrictEqual(all.map(summary), [
            ...people.map(([id, email, full_name, role, timezone]) => ({
              id: userId(id),
              delivery_email: email,
              email: `user${id}@zulipdev.com`,
              full_name,
              role,
              timezone,
              is_bot: false,
              bot_type: null,
              bot_owner_id: null,
              is_active: true,
              email_address_visibility: 3 as const,
              date_joined: T0
            })),
            ...botRows.map(([id, email, full_name, bot_type, owner]) => ({
              id: userId(id),
              delivery_email: email,
              email,
              full_name,
              role: 400 as const,
              timezone: "",
              is_bot: true,
              bot_type,
              bot_owner_id: userId(owner),
              is_active: true,
              email_address_visibility: 1 as const,
              date_joined: T0
            }))
          ])
          // The data module agrees with what was seeded.
          assert.deepStrictEqual(
            [DemoData.owner, ...DemoData.users].map((u) => [u.email, u.full_name, u.role, u.timezone]),
            people.map(([, email, name, role, tz]) => [email, name, role, tz])
          )
          // Every person logs in with the demo password; bots cannot.
          for (const user of all) {
            assert.strictEqual(yield* users.checkPassword(user, DemoData.password), !user.is_bot, user.delivery_email)
          }
          assert.lengthOf(new Set(all.map((u) => u.api_key)), all.length)
        }).pipe(withTestClock))

      it.effect("channels: Rome web-public, core team private, in creation order", () =>
        Effect.gen(function*() {
          const realm = yield* demo
          const rows = yield* (yield* ChannelRepo).listByRealm(realm.id)
          assert.deepStrictEqual(
            rows.map((c) => [c.id, c.name, c.description, c.invite_only, c.is_web_public, c.history_public_to_subscribers]),
            [
              [1, "Verona", "A city in Italy", false, false, true],
              [2, "Denmark", "A Scandinavian country", false, false, true],
              [3, "Scotland", "Located in the United Kingdom", false, false, true],
              [4, "Venice", "A northeastern Italian city", false, false, true],
              [5, "Rome", "Yet another Italian city", false, true, true],
              [6, "core team", "A private channel for core team members", true, false, false],
              [7, "sandbox", "Experiment with Zulip here. :test_tube:", false, false, true]
            ]
          )
          assert.isTrue(rows.every((c) => c.creator_id === null && !c.is_archived && !c.is_default))
          assert.isTrue(rows.every((c) => c.date_created === Math.floor(T0 / 1000)))
          assert.strictEqual(rows[0]!.rendered_description, "<p>A city in Italy</p>")
        }).pipe(withTestClock))

      it.effect("the subscription plan: populate_db's prefixes, with palette colours in order", () =>
        Effect.gen(function*() {
          const realm = yield* demo
          const channels = yield* Channels
          const plan = DemoData.subscriptionPlan(
            [DemoData.owner, ...DemoData.users].map((u) => u.email),
            DemoData.channels.map((c) => c.name)
          )
          const V = ["Verona", "Denmark", "Scotland", "Venice", "Rome", "core team", "sandbox"]
          assert.deepStrictEqual(plan, [
            ["AARON@zulip.com", V.slice(0, 1)],
            ["ZOE@zulip.com", V.slice(0, 1)],
            ["cordelia@zulip.com", V.slice(0, 2)],
            ["desdemona@zulip.com", V.slice(0, 3)],
            ["hamlet@zulip.com", V.slice(0, 3)],
            ["iago@zulip.com", V.slice(0, 4)],
            ["othello@zulip.com", V.slice(0, 5)],
            ["polonius@zulip.com", V.slice(0, 5)],
            ["prospero@zulip.com", V.slice(0, 6)],
            ["shiva@zulip.com", V.slice(0, 7)]
          ])
          const channelIds = new Map((yield* (yield* ChannelRepo).listByRealm(realm.id)).map((c) => [c.name, c.id]))
          for (const [email, expected] of plan) {
            const user = (yield* (yield* Users).findByEmail(realm.id, email))!
            const subs = yield* channels.subscriptionsOf(user.id)
            assert.deepStrictEqual(
              subs.map((s) => [s.channel_id, s.properties.color]),
              expected.map((name, i) => [channelIds.get(name)!, SubscriptionColors[i]!]),
              email
            )
          }
          for (const bot of bots) {
            assert.deepStrictEqual(yield* channels.subscriptionsOf(userId(bot)), [])
          }
          const counts = (yield* channels.list(yield* byEmail("desdemona@zulip.com"), only({ include_all: true })))
            .map((c) => [c.name, c.subscriber_count])
          assert.deepStrictEqual(counts, [
            ["Denmark", 8],
            ["Rome", 4],
            ["Scotland", 7],
            ["Venice", 5],
            ["Verona", 10],
            ["core team", 2],
            ["sandbox", 1]
          ])
        }).pipe(withTestClock))

      it.effect("Channels.list with the default flags, as every role", () =>
        Effect.gen(function*() {
          yield* demo
          const channels = yield* Channels
          const publicNames = ["Denmark", "Rome", "Scotland", "Venice", "Verona", "sandbox"]
          const expected: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
            ["desdemona@zulip.com", publicNames],
            ["iago@zulip.com", publicNames],
            ["shiva@zulip.com", ["Denmark", "Rome", "Scotland", "Venice", "Verona", "core team", "sandbox"]],
            ["hamlet@zulip.com", publicNames],
            ["prospero@zulip.com", ["Denmark", "Rome", "Scotland", "Venice", "Verona", "core team", "sandbox"]],
            ["polonius@zulip.com", ["Denmark", "Rome", "Scotland", "Venice", "Verona"]],
            ["AARON@zulip.com", publicNames],
            ["default-bot@zulip.com", publicNames]
          ]
          for (const [email, list] of expected) {
            assert.deepStrictEqual(names(yield* channels.list(yield* byEmail(email), defaultListChannelsOptions)), list, email)
          }
          const asBot = yield* byEmail("default-bot@zulip.com")
          assert.deepStrictEqual(names(yield* channels.list(asBot, only({ include_owner_subscribed: true }))), [
            "Denmark",
            "Scotland",
            "Verona"
          ])
          const asGuest = yield* byEmail("polonius@zulip.com")
          assert.deepStrictEqual(names(yield* channels.list(asGuest, only({ include_web_public: true }))), ["Rome"])
          assert.deepStrictEqual(names(yield* channels.list(asGuest, only({ include_all: true }))), [
            "Denmark",
            "Rome",
            "Scotland",
            "Venice",
            "Verona"
          ])
          const asAdmin = yield* byEmail("iago@zulip.com")
          assert.deepStrictEqual(names(yield* channels.list(asAdmin, only({ include_all: true }))), [
            "Denmark",
            "Rome",
            "Scotland",
            "Venice",
            "Verona",
            "core team",
            "sandbox"
          ])
          // Administrators see the private channel but cannot read it unsubscribed.
          assert.deepStrictEqual(names(yield* channels.list(asAdmin, only({ include_can_access_content: true }))), publicNames)
        }).pipe(withTestClock))

      it.effect("Users.list as every role: addresses under the admins-only visibility, client_gravatar", () =>
        Effect.gen(function*() {
          const realm = yield* demo
          const users = yield* Users
          const everyone = Array.from({ length: 16 }, (_, i) => i + 1)
          const viewers: ReadonlyArray<readonly [string | undefined, ReadonlyArray<number>]> = [
            ["desdemona@zulip.com", everyone],
            ["iago@zulip.com", everyone],
            ["shiva@zulip.com", [ids.shiva, ...bots]],
            ["hamlet@zulip.com", [ids.hamlet, ...bots]],
            ["polonius@zulip.com", [ids.polonius, ...bots]],
            ["default-bot@zulip.com", bots],
            [undefined, bots]
          ]
          const all = yield* (yield* UserRepo).listByRealm(realm.id)
          for (const [email, visible] of viewers) {
            const viewer = email === undefined ? undefined : (yield* byEmail(email)).user
            const label = email ?? "spectator"
            const list = yield* users.list(realm, viewer, gravatar)
            assert.deepStrictEqual(userIds(list), everyone, label)
            assert.deepStrictEqual(
              list.filter((u) => u.delivery_email !== null).map((u) => u.user_id),
              [...visible],
              `${label}: real addresses`
            )
            assert.deepStrictEqual(
              list.filter((u) => u.avatar_url === null).map((u) => u.user_id),
              [...visible],
              `${label}: client_gravatar`
            )
            for (const entry of list) {
              const user = all.find((u) => u.id === entry.user_id)!
              assert.strictEqual(entry.email, user.is_bot ? user.delivery_email : `user${user.id}@zulipdev.com`)
              if (entry.delivery_email !== null) assert.strictEqual(entry.delivery_email, user.delivery_email)
              if (entry.avatar_url !== null) assert.strictEqual(entry.avatar_url, gravatarUrl(user.delivery_email))
            }
          }
          // One full entry, as an administrator and as a member sees it.
          const hamletAsAdmin = (yield* users.list(realm, (yield* byEmail("iago@zulip.com")).user, plain))[ids.hamlet - 1]
          assert.deepStrictEqual(hamletAsAdmin, {
            email: "user7@zulipdev.com",
            user_id: 7,
            avatar_version: 1,
            is_admin: false,
            is_owner: false,
            is_guest: false,
            is_bot: false,
            role: 400,
            timezone: "",
            is_active: true,
            date_joined: "2024-01-15T10:30:00.123000+00:00",
            delivery_email: "hamlet@zulip.com",
            avatar_url: gravatarUrl("hamlet@zulip.com"),
            full_name: "King Hamlet",
            bot_type: null
          })
          const hamletAsMember = (yield* users.list(realm, (yield* byEmail("ZOE@zulip.com")).user, plain))[ids.hamlet - 1]
          assert.deepStrictEqual(hamletAsMember, { ...hamletAsAdmin!, delivery_email: null })
          const iago = (yield* users.list(realm, undefined, plain))[ids.iago - 1]!
          assert.isTrue(iago.is_admin)
          assert.isFalse(iago.is_owner)
          const webhook = (yield* users.list(realm, undefined, plain))[ids.webhookBot - 1]!
          assert.strictEqual(webhook.bot_type, 2)
          assert.strictEqual(webhook.bot_owner_id, ids.ZOE)
        }).pipe(withTestClock))

      it.effect("getById / getByEmail as every role: placeholders for all, real addresses for admins", () =>
        Effect.gen(function*() {
          yield* demo
          const users = yield* Users
          for (const email of ["desdemona@zulip.com", "iago@zulip.com"]) {
            const p = yield* byEmail(email)
            for (const lookup of ["hamlet@zulip.com", "HAMLET@ZULIP.COM", "user7@zulipdev.com"]) {
              const found = yield* users.getByEmail(p, lookup, plain)
              assert.strictEqual(found.user_id, ids.hamlet, `${email} looks up ${lookup}`)
              assert.strictEqual(found.delivery_email, "hamlet@zulip.com")
              assert.deepStrictEqual(yield* users.getById(p, ids.hamlet, plain), found)
            }
          }
          for (const email of ["shiva@zulip.com", "ZOE@zulip.com", "polonius@zulip.com", "default-bot@zulip.com"]) {
            const p = yield* byEmail(email)
            const found = yield* users.getByEmail(p, "user7@zulipdev.com", plain)
            assert.strictEqual(found.user_id, ids.hamlet)
            assert.strictEqual(found.delivery_email, null)
            assert.deepStrictEqual(yield* users.getById(p, ids.hamlet, plain), found)
            yield* fails(users.getByEmail(p, "hamlet@zulip.com", plain), "NoSuchUser", "No such user")
            assert.strictEqual((yield* users.getByEmail(p, "commit-bot@zulip.com", plain)).user_id, ids.commitBot)
            assert.strictEqual((yield* users.getByEmail(p, p.user.delivery_email, plain)).user_id, p.user.id)
          }
          yield* fails(users.getById(yield* byEmail("hamlet@zulip.com"), 17, plain), "NoSuchUser", "No such user")
        }).pipe(withTestClock))

      it.effect("Users.me, logins and the dev user list", () =>
        Effect.gen(function*() {
          const realm = yield* demo
          const users = yield* Users
          const auth = yield* Authentication
          const zoe = yield* byEmail("ZOE@zulip.com")
          assert.deepStrictEqual(yield* users.me(zoe), {
            avatar_url: gravatarUrl("zoe@zulip.com"),
            avatar_version: 1,
            email: "user2@zulipdev.com",
            full_name: "Zoe",
            is_admin: false,
            is_owner: false,
            role: 400,
            is_guest: false,
            is_bot: false,
            is_active: true,
            timezone: "US/Eastern",
            date_joined: "2024-01-15T10:30:00.123000+00:00",
            max_message_id: -1,
            user_id: 2,
            delivery_email: "ZOE@zulip.com",
            profile_data: {}
          })
          assert.deepStrictEqual(yield* auth.fetchApiKey(realm.id, "zoe@zulip.com", DemoData.password), {
            api_key: zoe.user.api_key,
            email: "ZOE@zulip.com",
            user_id: 2
          })
          assert.deepStrictEqual(yield* auth.devFetchApiKey(realm.id, "aaron@ZULIP.com"), {
            api_key: (yield* byEmail("AARON@zulip.com")).user.api_key,
            email: "AARON@zulip.com",
            user_id: 8
          })
          assert.strictEqual((yield* auth.basic("zoe@zulip.com", zoe.user.api_key)).user.id, 2)
          const entry = (email: string) => ({ email, realm_url: "http://localhost:9991" })
          assert.deepStrictEqual(yield* auth.devListUsers(realm.id), {
            direct_admins: ["desdemona@zulip.com", "iago@zulip.com"].map(entry),
            direct_users: [
              "AARON@zulip.com",
              "ZOE@zulip.com",
              "cordelia@zulip.com",
              "hamlet@zulip.com",
              "othello@zulip.com",
              "polonius@zulip.com",
              "prospero@zulip.com",
              "shiva@zulip.com"
            ].map(entry)
          })
          assert.deepStrictEqual(yield* auth.devListUsers((realm.id + 1000) as RealmId), { direct_admins: [], direct_users: [] })
        }).pipe(withTestClock))

      it.effect("group memberships of the demo roles", () =>
        Effect.gen(function*() {
          const realm = yield* demo
          const direct = (id: number) => directGroups(realm.id, userId(id))
          assert.deepStrictEqual(yield* direct(ids.desdemona), ["role:owners"])
          assert.deepStrictEqual(yield* direct(ids.iago), ["role:administrators"])
          assert.deepStrictEqual(yield* direct(ids.shiva), ["role:moderators"])
          assert.deepStrictEqual(yield* direct(ids.hamlet), ["role:fullmembers", "role:members"])
          assert.deepStrictEqual(yield* direct(ids.polonius), ["role:everyone"])
          assert.deepStrictEqual(yield* direct(ids.defaultBot), ["role:fullmembers", "role:members"])
          const g = yield* (yield* Organizations).systemGroups(realm.id)
          const groupIds: ReadonlyArray<GroupId> = Object.values(g)
          assert.deepStrictEqual([...groupIds].sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8])
        }).pipe(withTestClock))
    })
  })
}
