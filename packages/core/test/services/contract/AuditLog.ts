/**
 * The audit log through the services: each kind of change writes exactly
 * its rows (type, acting user, targets, `extra_data`) at the TestClock's
 * time, in one statement per change, and a change that rolls back (a step
 * refused after the rows were written, or any failure of the surrounding
 * transaction) leaves none.
 */
import { assert } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import type { AuditLogEntry, AuditLogEventType } from "../../../src/domain/AuditLog.ts"
import type { ChannelId, GroupId, RealmId, UserId } from "../../../src/domain/Ids.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { GroupRepo, RealmRepo, SubscriptionRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { Transactor } from "../../../src/ports/Transactor.ts"
import { AuditLog } from "../../../src/services/AuditLog.ts"
import { Channels } from "../../../src/services/Channels.ts"
import { CustomProfileFields } from "../../../src/services/CustomProfileFields.ts"
import { Invitations } from "../../../src/services/Invitations.ts"
import { Organizations } from "../../../src/services/Organizations.ts"
import { Subscriptions } from "../../../src/services/Subscriptions.ts"
import { UserGroups } from "../../../src/services/UserGroups.ts"
import { Users } from "../../../src/services/Users.ts"
import { UserSettings } from "../../../src/services/UserSettings.ts"
import { WelcomeBotEmail } from "../../../src/services/WelcomeBot.ts"
import type * as Teamchat from "../../../src/Teamchat.ts"
import { addBot, addUser, day, makeOrg, principal, Rollback, T0, unique, withTestClock } from "./fixtures.ts"
import type { Org } from "./fixtures.ts"

type R = Teamchat.Services | Persistence

/** A row as the test states it: everything but the id, the organization and the time. */
type Expected = Omit<AuditLogEntry, "id" | "realm_id" | "event_time">

const row = (
  event_type: AuditLogEventType,
  actor: UserId | null,
  targets: { readonly user?: UserId; readonly stream?: ChannelId; readonly group?: GroupId } = {},
  extra_data: Schema.JsonObject = {}
): Expected => ({
  acting_user_id: actor,
  modified_user_id: targets.user ?? null,
  modified_stream_id: targets.stream ?? null,
  modified_user_group_id: targets.group ?? null,
  event_type,
  extra_data
})

/** When every audited change runs: the rows must carry this time. */
const At = T0 + 3 * day

/** The change to make, and the rows it must write given what it returned. */
interface Audited {
  readonly act: Effect.Effect<ReadonlyArray<Expected>, unknown, R>
}

const audited = <A>(act: Effect.Effect<A, unknown, R>, expected: (a: A) => ReadonlyArray<Expected>): Audited => ({
  act: Effect.map(act, expected)
})

const everything = { limit: 1_000_000 }

/** The rows written in `realm` since `after` (an id), without id, organization and time, checking those. */
const rowsSince = (realm: RealmId, after: number) =>
  Effect.gen(function*() {
    const rows = (yield* (yield* AuditLog).list(realm, everything)).filter((r) => r.id > after)
    return rows.map(({ event_time, id: _, realm_id, ...rest }) => {
      assert.strictEqual(realm_id, realm)
      assert.strictEqual(event_time, At)
      return rest
    })
  })

const lastId = (realm: RealmId) => Effect.map(AuditLog.use((audit) => audit.list(realm, { limit: 1 })), (rows) => rows[0]?.id ?? 0)

const groupNamed = (org: Org, prefix: string) =>
  Effect.flatMap(principal(org.owner), (p) =>
    UserGroups.use((groups) => groups.create(p, { name: unique(prefix), description: "", members: [] })))

const channelNamed = (org: Org, creator: UserId | null = null) =>
  Channels.use((channels) => channels.create(org.realm.id, { name: unique("channel"), creator_id: creator }))

/** Each kind of change and its rows. `setup` runs before the clock moves to `At`. */
const cases: ReadonlyArray<readonly [string, (org: Org) => Effect.Effect<Audited, unknown, R>]> = [
  ["Users.create: a person, by the operator", (org) =>
    Effect.succeed(audited(addUser(org, 400), (u) => [row("user_created", null, { user: u.id })]))],

  ["Users.create: a bot, by the operator", (org) =>
    Effect.succeed(audited(addBot(org, org.owner), (bot) => [row("user_created", null, { user: bot.id })]))],

  ["Users.deactivate: a person and the bot they own, by the operator", (org) =>
    Effect.gen(function*() {
      const person = yield* addUser(org, 400)
      const bot = yield* addBot(org, person)
      return audited(Users.use((users) => users.deactivate(person.id)), () => [
        row("user_deactivated", null, { user: person.id }),
        row("user_deactivated", null, { user: bot.id })
      ])
    })],

  ["Users.deactivateAs and reactivateAs: by an administrator", (org) =>
    Effect.gen(function*() {
      const admin = yield* addUser(org, 200)
      const target = yield* addUser(org, 400)
      return audited(
        Effect.gen(function*() {
          const users = yield* Users
          yield* users.deactivateAs(yield* principal(admin), target.id)
          yield* users.reactivateAs(yield* principal(admin), target.id)
        }),
        () => [row("user_deactivated", admin.id, { user: target.id }), row("user_reactivated", admin.id, { user: target.id })]
      )
    })],

  ["Users.reactivate: by the operator", (org) =>
    Effect.gen(function*() {
      const target = yield* addUser(org, 400)
      yield* Users.use((users) => users.deactivate(target.id))
      return audited(Users.use((users) => users.reactivate(target.id)), () => [row("user_reactivated", null, { user: target.id })])
    })],

  ["Users.changeRole: old and new role", (org) =>
    Effect.gen(function*() {
      const target = yield* addUser(org, 400)
      return audited(Users.use((users) => users.changeRole(target.id, 300)), () => [
        row("user_role_changed", null, { user: target.id }, { old_value: 400, new_value: 300 })
      ])
    })],

  ["Users.administer: role, name and address in one request", (org) =>
    Effect.gen(function*() {
      const target = yield* addUser(org, 400, { full_name: "Before" })
      yield* Users.use((users) => users.setCanChangeUserEmails(org.owner.id, true))
      const address = `renamed-${target.id}@${org.domain}`
      return audited(
        Effect.flatMap(principal(org.owner), (p) =>
          Users.use((users) => users.administer(p, target.id, { role: 200, full_name: "After", new_email: address }))),
        () => [
          row("user_role_changed", org.owner.id, { user: target.id }, { old_value: 400, new_value: 200 }),
          row("user_full_name_changed", org.owner.id, { user: target.id }, { old_value: "Before", new_value: "After" }),
          row("user_email_changed", org.owner.id, { user: target.id }, { old_value: target.delivery_email, new_value: address })
        ]
      )
    })],

  ["Users.setCanChangeUserEmails, rotateApiKey and setPassword: by the operator, no secrets", (org) =>
    Effect.gen(function*() {
      const target = yield* addUser(org, 200)
      return audited(
        Effect.gen(function*() {
          const users = yield* Users
          yield* users.setCanChangeUserEmails(target.id, true)
          yield* users.rotateApiKey(target.id)
          yield* users.setPassword(target.id, "another-secret")
        }),
        () => [
          row("user_special_permission_changed", null, { user: target.id }, {
            property: "can_change_user_emails",
            old_value: false,
            new_value: true
          }),
          row("user_api_key_changed", null, { user: target.id }),
          row("user_password_changed", null, { user: target.id })
        ]
      )
    })],

  ["UserSettings.update: name, password and each setting, by the user", (org) =>
    Effect.gen(function*() {
      const user = yield* addUser(org, 400, { full_name: "Old Name", timezone: "UTC" })
      return audited(
        Effect.flatMap(principal(user), (p) =>
          UserSettings.use((settings) =>
            settings.update(p, {
              full_name: "New Name",
              old_password: "pw",
              new_password: "a new secret",
              timezone: "Asia/Tokyo",
              enter_sends: true,
              // Unchanged: no row.
              twenty_four_hour_time: false
            })
          )),
        () => [
          row("user_full_name_changed", user.id, { user: user.id }, { old_value: "Old Name", new_value: "New Name" }),
          row("user_password_changed", user.id, { user: user.id }),
          row("user_setting_changed", user.id, { user: user.id }, { property: "enter_sends", old_value: false, new_value: true }),
          row("user_setting_changed", user.id, { user: user.id }, { property: "timezone", old_value: "UTC", new_value: "Asia/Tokyo" })
        ]
      )
    })],

  ["Channels.create: by its creator, or by the system", (org) =>
    Effect.succeed(audited(
      Effect.all([channelNamed(org, org.owner.id), channelNamed(org)]),
      ([mine, system]) => [row("stream_created", org.owner.id, { stream: mine.id }), row("stream_created", null, { stream: system.id })]
    ))],

  ["Channels.update: name and description", (org) =>
    Effect.gen(function*() {
      const channel = yield* channelNamed(org, org.owner.id)
      const name = unique("renamed")
      return audited(
        Effect.flatMap(principal(org.owner), (p) => Channels.use((channels) => channels.update(p, channel.id, { name, description: "About" }))),
        () => [
          row("stream_name_changed", org.owner.id, { stream: channel.id }, { old_value: channel.name, new_value: name }),
          row("stream_property_changed", org.owner.id, { stream: channel.id }, {
            property: "description",
            old_value: "",
            new_value: "About"
          })
        ]
      )
    })],

  ["Channels.subscribe: by the system", (org) =>
    Effect.gen(function*() {
      const channel = yield* channelNamed(org)
      const member = yield* addUser(org, 400)
      return audited(Channels.use((channels) => channels.subscribe(channel.id, [member.id, org.owner.id])), () => [
        row("subscription_created", null, { user: member.id, stream: channel.id }),
        row("subscription_created", null, { user: org.owner.id, stream: channel.id })
      ])
    })],

  ["Subscriptions.subscribe: a new channel and others subscribed to it", (org) =>
    Effect.gen(function*() {
      const member = yield* addUser(org, 400)
      const name = unique("created")
      return audited(
        Effect.gen(function*() {
          yield* (yield* Subscriptions).subscribe(yield* principal(org.owner), {
            subscriptions: [{ name }],
            principals: [org.owner.id, member.id]
          })
          return (yield* Channels.use((channels) => channels.findByName(org.realm.id, name)))!
        }),
        (channel) => [
          row("stream_created", org.owner.id, { stream: channel.id }),
          row("subscription_created", org.owner.id, { user: org.owner.id, stream: channel.id }),
          row("subscription_created", org.owner.id, { user: member.id, stream: channel.id })
        ]
      )
    })],

  ["Subscriptions: leaving, joining again, and properties", (org) =>
    Effect.gen(function*() {
      const member = yield* addUser(org, 400)
      const channel = yield* channelNamed(org)
      yield* Channels.use((channels) => channels.subscribe(channel.id, [member.id]))
      const color = (yield* SubscriptionRepo.use((subs) => subs.find(member.id, channel.id)))!.properties.color
      return audited(
        Effect.gen(function*() {
          const subscriptions = yield* Subscriptions
          const p = yield* principal(member)
          yield* subscriptions.unsubscribe(p, { subscriptions: [channel.name] })
          yield* subscriptions.subscribe(p, { subscriptions: [{ name: channel.name }] })
          yield* subscriptions.updateProperties(p, [
            { stream_id: channel.id, property: "color", value: "#ff0000" },
            { stream_id: channel.id, property: "in_home_view", value: false },
            // Unchanged: no row.
            { stream_id: channel.id, property: "pin_to_top", value: false }
          ])
        }),
        () => {
          const target = { user: member.id, stream: channel.id }
          return [
            row("subscription_deactivated", member.id, target),
            row("subscription_activated", member.id, target),
            row("subscription_property_changed", member.id, target, { property: "color", old_value: color, new_value: "#ff0000" }),
            row("subscription_property_changed", member.id, target, { property: "is_muted", old_value: false, new_value: true })
          ]
        }
      )
    })],

  ["UserGroups.create: the group, its members and subgroups", (org) =>
    Effect.gen(function*() {
      const member = yield* addUser(org, 400)
      const subgroup = yield* groupNamed(org, "sub")
      return audited(
        Effect.flatMap(principal(org.owner), (p) =>
          UserGroups.use((groups) =>
            groups.create(p, { name: unique("team"), description: "", members: [member.id], subgroups: [subgroup] })
          )),
        (group) => [
          row("user_group_created", org.owner.id, { group }),
          row("user_group_direct_user_membership_added", org.owner.id, { user: member.id, group }),
          row("user_group_direct_subgroup_membership_added", org.owner.id, { group }, { subgroup_ids: [subgroup] }),
          row("user_group_direct_supergroup_membership_added", org.owner.id, { group: subgroup }, { supergroup_ids: [group] })
        ]
      )
    })],

  ["UserGroups.update: name, description and a group setting", (org) =>
    Effect.gen(function*() {
      const group = yield* groupNamed(org, "before")
      const stored = (yield* GroupRepo.use((groups) => groups.findById(group)))!
      const name = unique("after")
      const members = org.groups["role:members"]
      return audited(
        Effect.flatMap(principal(org.owner), (p) =>
          UserGroups.use((groups) =>
            groups.update(p, group, { name, description: "Now described", settings: { can_mention_group: { new: members } } })
          )),
        () => [
          row("user_group_name_changed", org.owner.id, { group }, { old_value: stored.name, new_value: name }),
          row("user_group_description_changed", org.owner.id, { group }, { old_value: "", new_value: "Now described" }),
          row("user_group_group_based_setting_changed", org.owner.id, { group }, {
            property: "can_mention_group",
            old_value: stored.settings.can_mention_group as Schema.Json,
            new_value: members
          })
        ]
      )
    })],

  ["UserGroups.deactivate and reactivation", (org) =>
    Effect.gen(function*() {
      const group = yield* groupNamed(org, "passing")
      return audited(
        Effect.gen(function*() {
          const groups = yield* UserGroups
          const p = yield* principal(org.owner)
          yield* groups.deactivate(p, group)
          yield* groups.update(p, group, { deactivated: false })
        }),
        () => [row("user_group_deactivated", org.owner.id, { group }), row("user_group_reactivated", org.owner.id, { group })]
      )
    })],

  ["UserGroups.updateMembers and updateSubgroups: one row per user, two sides per subgroup", (org) =>
    Effect.gen(function*() {
      const group = yield* groupNamed(org, "team")
      const [a, b] = [yield* addUser(org, 400), yield* addUser(org, 400)]
      const [s1, s2] = [yield* groupNamed(org, "sub"), yield* groupNamed(org, "sub")]
      yield* Effect.flatMap(principal(org.owner), (p) => UserGroups.use((groups) => groups.updateMembers(p, group, { add: [b.id] })))
      return audited(
        Effect.gen(function*() {
          const groups = yield* UserGroups
          const p = yield* principal(org.owner)
          yield* groups.updateMembers(p, group, { add: [a.id], delete: [b.id], add_subgroups: [s2, s1] })
          yield* groups.updateSubgroups(p, group, { delete: [s1] })
        }),
        () => [
          row("user_group_direct_user_membership_added", org.owner.id, { user: a.id, group }),
          row("user_group_direct_user_membership_removed", org.owner.id, { user: b.id, group }),
          row("user_group_direct_subgroup_membership_added", org.owner.id, { group }, { subgroup_ids: [s1, s2] }),
          row("user_group_direct_supergroup_membership_added", org.owner.id, { group: s1 }, { supergroup_ids: [group] }),
          row("user_group_direct_supergroup_membership_added", org.owner.id, { group: s2 }, { supergroup_ids: [group] }),
          row("user_group_direct_subgroup_membership_removed", org.owner.id, { group }, { subgroup_ids: [s1] }),
          row("user_group_direct_supergroup_membership_removed", org.owner.id, { group: s1 }, { supergroup_ids: [group] })
        ]
      )
    })],

  ["CustomProfileFields: create, update, reorder, delete", (org) =>
    Effect.gen(function*() {
      const p = yield* principal(org.owner)
      const other = yield* CustomProfileFields.use((fields) => fields.create(p, { field_type: 1, name: "Other" }))
      return audited(
        Effect.gen(function*() {
          const fields = yield* CustomProfileFields
          const id = yield* fields.create(p, { field_type: 1, name: "Phone", hint: "Yours" })
          yield* fields.update(p, id, { name: "Mobile", hint: "Yours", required: true })
          // Unchanged: no row.
          yield* fields.update(p, id, { name: "Mobile" })
          yield* fields.reorder(p, [id, other])
          yield* fields.remove(p, id)
          return id
        }),
        (id) => [
          row("custom_profile_field_created", org.owner.id, {}, { custom_profile_field_id: id, name: "Phone", type: 1 }),
          row("custom_profile_field_properties_changed", org.owner.id, {}, {
            custom_profile_field_id: id,
            old_value: { name: "Phone", required: false },
            new_value: { name: "Mobile", required: true }
          }),
          row("custom_profile_fields_reordered", org.owner.id, {}, { old_value: [other, id], new_value: [id, other] }),
          row("custom_profile_field_deleted", org.owner.id, {}, { custom_profile_field_id: id, name: "Mobile" })
        ]
      )
    })],

  ["Invitations: create and revoke, by their maker", (org) =>
    Effect.succeed(audited(
      Effect.gen(function*() {
        const invitations = yield* Invitations
        const p = yield* principal(org.owner)
        const { id } = yield* invitations.create(p, { invite_as: 200 })
        yield* invitations.revoke(p, id)
        return id
      }),
      (id) => [
        row("invitation_created", org.owner.id, {}, { invitation_id: id, invited_as: 200 }),
        row("invitation_revoked", org.owner.id, {}, { invitation_id: id })
      ]
    ))],

  ["Invitations.join: the new user acts, the link and its maker named", (org) =>
    Effect.gen(function*() {
      const p = yield* principal(org.owner)
      const channel = yield* channelNamed(org, org.owner.id)
      const group = yield* groupNamed(org, "joined")
      const invitations = yield* Invitations
      const { id, invite_link } = yield* invitations.create(p, { stream_ids: [channel.id], group_ids: [group] })
      const key = /\/join\/([a-z0-9]{24})\/$/.exec(invite_link)![1]!
      const email = `${unique("joiner")}@${org.domain}`
      return audited(
        Effect.gen(function*() {
          const user = yield* invitations.join(org.realm, key, { full_name: "Joiner", email, password: "long enough" })
          const bot = (yield* UserRepo.use((users) => users.findByDeliveryEmail(org.realm.id, WelcomeBotEmail)))!
          return { user, bot }
        }),
        ({ bot, user }) => [
          row("user_created", user.id, { user: user.id }, { invitation_id: id, referred_by: org.owner.id }),
          row("subscription_created", user.id, { user: user.id, stream: channel.id }),
          row("user_group_direct_user_membership_added", user.id, { user: user.id, group }),
          // The organization's first join makes its Welcome Bot.
          row("user_created", null, { user: bot.id })
        ]
      )
    })]
]

export const auditLogTests = (it: Vitest.MethodsNonLive<R>): void => {
  for (const [name, make] of cases) {
    it.effect(`audit log: ${name}`, () =>
      withTestClock(Effect.gen(function*() {
        yield* TestClock.setTime(T0)
        const org = yield* makeOrg()
        const { act } = yield* make(org)
        const since = yield* lastId(org.realm.id)
        yield* TestClock.setTime(At)
        const expected = yield* act
        assert.deepStrictEqual(yield* rowsSince(org.realm.id, since), expected)
      })))
  }

  it.effect("audit log: Organizations.create writes the organization's row and its owner's, by the operator", () =>
    withTestClock(Effect.gen(function*() {
      yield* TestClock.setTime(At)
      const org = yield* makeOrg()
      assert.deepStrictEqual(yield* rowsSince(org.realm.id, 0), [
        row("realm_created", null),
        row("user_created", null, { user: org.owner.id })
      ])
    })))

  it.effect("audit log: list reads the newest rows, oldest first, of one type if asked", () =>
    withTestClock(Effect.gen(function*() {
      yield* TestClock.setTime(At)
      const org = yield* makeOrg()
      const users = [yield* addUser(org, 400), yield* addUser(org, 400), yield* addUser(org, 400)]
      const audit = yield* AuditLog
      const targets = (rows: ReadonlyArray<AuditLogEntry>) => rows.map((r) => [r.event_type, r.modified_user_id])
      assert.deepStrictEqual(targets(yield* audit.list(org.realm.id, { limit: 2 })), [
        ["user_created", users[1]!.id],
        ["user_created", users[2]!.id]
      ])
      assert.deepStrictEqual(targets(yield* audit.list(org.realm.id, { limit: 100, eventType: "realm_created" })), [
        ["realm_created", null]
      ])
      const names = yield* audit.names(org.realm.id)
      assert.strictEqual(names.users.get(users[0]!.id), users[0]!.delivery_email)
      assert.strictEqual(names.groups.get(org.groups["role:members"]), "role:members")
    })))

  it.effect("audit log: a step refused after the rows were written leaves none (an owner who cannot be made)", () =>
    withTestClock(Effect.gen(function*() {
      const organizations = yield* Organizations
      const stringId = unique("refused")
      const error = yield* Effect.flip(organizations.create({
        string_id: stringId,
        name: "Refused",
        url: `http://${stringId}.chat.test:9991`,
        owner: { email: "not an address", full_name: "Nobody" }
      }))
      assert.strictEqual(error._tag, "InvalidEmailAddress")
      assert.isUndefined(yield* organizations.findByStringId(stringId))
      // The refused organization took an id (sequences do not roll back): the next one's, less one.
      const next = yield* makeOrg()
      assert.deepStrictEqual(yield* AuditLog.use((audit) => audit.list(next.realm.id - 1 as RealmId, everything)), [])
      assert.isUndefined(yield* RealmRepo.use((realms) => realms.findById(next.realm.id - 1 as RealmId)))
    })))

  it.effect("audit log: a transaction that fails after a change, by failure or defect, leaves none of its rows", () =>
    withTestClock(Effect.gen(function*() {
      const org = yield* makeOrg()
      const target = yield* addUser(org, 400)
      const tx = yield* Transactor
      const since = yield* lastId(org.realm.id)
      const changes: ReadonlyArray<Effect.Effect<unknown, unknown, R>> = [
        Users.use((users) => users.changeRole(target.id, 300)),
        groupNamed(org, "doomed"),
        Effect.flatMap(principal(org.owner), (p) =>
          Subscriptions.use((subs) => subs.subscribe(p, { subscriptions: [{ name: unique("doomed") }], principals: [target.id] })))
      ]
      for (const change of changes) {
        for (const end of [Effect.fail(new Rollback({ user: target })), Effect.die("defect")]) {
          const exit = yield* Effect.exit(tx.withTransaction(Effect.andThen(change, end)))
          assert.isTrue(Exit.isFailure(exit))
          assert.deepStrictEqual(yield* rowsSince(org.realm.id, since), [])
        }
      }
      // The same changes, kept, are logged.
      yield* TestClock.setTime(At)
      yield* Users.use((users) => users.changeRole(target.id, 300))
      assert.deepStrictEqual(yield* rowsSince(org.realm.id, since), [
        row("user_role_changed", null, { user: target.id }, { old_value: 400, new_value: 300 })
      ])
    })))
}
