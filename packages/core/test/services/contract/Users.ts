/**
 * Users: create (addresses, roles, groups, validation, rollback),
 * deactivate / reactivate / changeRole, and list / getById / getByEmail / me
 * as each viewer sees them.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { userId } from "../../../src/domain/Ids.ts"
import type { Role } from "../../../src/domain/Role.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { GroupRepo, SubscriptionRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { Transactor } from "../../../src/ports/Transactor.ts"
import { Channels } from "../../../src/services/Channels.ts"
import { Users } from "../../../src/services/Users.ts"
import type * as Teamchat from "../../../src/Teamchat.ts"
import type { ApiUser } from "../../../src/views/UserView.ts"
import type { Vitest } from "@effect/vitest"
import { plain, gravatar, day, T0, Rollback, fails, gravatarUrl, makeOrg, addUser, addBot, principal, updateRealmSettings, directGroups, recursiveGroups, userIds, withTestClock } from "./fixtures.ts"

export const usersTests = (it: Vitest.MethodsNonLive<Teamchat.Services | Persistence>): void => {
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
        email_address_visibility: 1,
        can_change_user_emails: false
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
      const refusedNames: ReadonlyArray<{ readonly case: string; readonly name: string; readonly tag: string; readonly msg: string }> = [
        { case: "empty", name: "", tag: "NameEmpty", msg: "Name must not be empty!" },
        { case: "blank", name: " \t ", tag: "NameEmpty", msg: "Name must not be empty!" },
        { case: "101 characters", name: "x".repeat(101), tag: "NameTooLong", msg: "Name too long!" },
        { case: "101 emoji", name: "😀".repeat(101), tag: "NameTooLong", msg: "Name too long!" },
        ...["a*b", "a`b", "a\\b", "a>b", "a\"b", "a@b", "bell\u0007", "nul\u0000x", "c1\u0085x"].map((bad) => ({
          case: `invalid character in ${JSON.stringify(bad)}`,
          name: bad,
          tag: "NameInvalidCharacters",
          msg: "Invalid characters in name!"
        })),
        { case: "a user id suffix", name: "Hamlet|12", tag: "NameInvalidFormat", msg: "Invalid format!" },
        { case: "a user id suffix, padded", name: "  Hamlet|7  ", tag: "NameInvalidFormat", msg: "Invalid format!" }
      ]
      for (const row of refusedNames) {
        yield* fails(name(row.name), row.tag, row.msg, row.case)
      }
      for (const bad of ["", "not-an-email", "a@b", "a b@c.test", "@c.test", "a@.test"]) {
        yield* fails(addUser(org, 400, { email: bad }), "InvalidEmailAddress", "Enter a valid email address.")
      }
      // The system bots' addresses, in any case, for people and bots alike.
      for (const reserved of ["welcome-bot@zulip.com", "Notification-Bot@zulip.com", " emailgateway@zulip.com"]) {
        const trimmed = reserved.trim()
        yield* fails(addUser(org, 400, { email: reserved }), "BadRequest", `${trimmed} is reserved for system bots`)
        yield* fails(addBot(org, org.owner, { email: reserved }), "BadRequest", `${trimmed} is reserved for system bots`)
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
}
