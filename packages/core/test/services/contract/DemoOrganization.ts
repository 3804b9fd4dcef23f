/**
 * The seeded "Zulip Dev" organization, whose ids are exact because nothing
 * else lives in its database.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import * as DemoData from "../../../src/demo/DemoData.ts"
import * as DemoOrganization from "../../../src/demo/DemoOrganization.ts"
import { SubscriptionColors } from "../../../src/domain/Channel.ts"
import { realmId, userId } from "../../../src/domain/Ids.ts"
import type { GroupId } from "../../../src/domain/Ids.ts"
import type { Role } from "../../../src/domain/Role.ts"
import type { User } from "../../../src/domain/User.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { ChannelRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { Authentication } from "../../../src/services/Authentication.ts"
import { Channels, defaultListChannelsOptions } from "../../../src/services/Channels.ts"
import { Organizations } from "../../../src/services/Organizations.ts"
import { Users } from "../../../src/services/Users.ts"
import type * as Teamchat from "../../../src/Teamchat.ts"
import type { Vitest } from "@effect/vitest"
import { plain, gravatar, T0, only, fails, gravatarUrl, principal, directGroups, names, userIds, withTestClock } from "./fixtures.ts"

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

export const demoOrganizationTests = (it: Vitest.MethodsNonLive<Teamchat.Services | Persistence>): void => {
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
        demo: true,
        date_created: T0,
        settings: {
          email_address_visibility: 3,
          enable_spectator_access: true,
          invite_required: false,
          emails_restricted_to_domains: false,
          email_auth_enabled: true,
          allow_message_editing: true,
          message_content_edit_limit_seconds: 600,
          move_messages_within_stream_limit_seconds: 604800,
          move_messages_between_streams_limit_seconds: 604800,
          message_edit_history_visibility_policy: "all",
          enable_read_receipts: true,
          require_unique_names: false,
          waiting_period_threshold: 0,
          message_retention_days: -1,
          topics_policy: "allow_empty_topic",
          message_content_delete_limit_seconds: 600,
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
      // No organization, no dev login.
      yield* fails(auth.devListUsers(realmId(realm.id + 1000)), "DevAuthNotEnabled", "DevAuthBackend not enabled.")
    }).pipe(withTestClock))

  it.effect("group memberships of the demo roles", () =>
    Effect.gen(function*() {
      const realm = yield* demo
      const direct = (id: number) => directGroups(realm.id, userId(id))
      const expected: ReadonlyArray<readonly [keyof typeof ids, ReadonlyArray<string>]> = [
        ["desdemona", ["role:owners"]],
        ["iago", ["role:administrators"]],
        ["shiva", ["role:moderators"]],
        ["hamlet", ["role:fullmembers", "role:members"]],
        ["polonius", ["role:everyone"]],
        ["defaultBot", ["role:fullmembers", "role:members"]]
      ]
      for (const [who, groups] of expected) {
        assert.deepStrictEqual(yield* direct(ids[who]), groups, who)
      }
      const g = yield* (yield* Organizations).systemGroups(realm.id)
      const groupIds: ReadonlyArray<GroupId> = Object.values(g)
      assert.deepStrictEqual([...groupIds].sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8])
    }).pipe(withTestClock))
}
