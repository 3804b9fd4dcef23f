/**
 * User groups through the service: creation with Zulip's defaults, name and
 * setting-value rules, compare-and-set updates, membership through nested
 * subgroups, cycles, deactivation with its objections, reactivation, and
 * that a refused request writes nothing.
 */
import { assert } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import type { GroupId } from "../../../src/domain/Ids.ts"
import type { User } from "../../../src/domain/User.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { ChannelRepo, GroupRepo } from "../../../src/ports/Repositories.ts"
import { Channels } from "../../../src/services/Channels.ts"
import { UserGroups } from "../../../src/services/UserGroups.ts"
import { Users } from "../../../src/services/Users.ts"
import type { NewUserGroup } from "../../../src/services/UserGroups.ts"
import type * as Teamchat from "../../../src/Teamchat.ts"
import { addBot, addUser, fails, makeOrg, principal, T0, unique, updateRealmSettings, withTestClock } from "./fixtures.ts"
import type { Org } from "./fixtures.ts"

const create = (by: User, input: Partial<NewUserGroup> = {}) =>
  Effect.gen(function*() {
    const groups = yield* UserGroups
    return yield* groups.create(yield* principal(by), {
      name: unique("team"),
      description: "A team",
      members: [],
      ...input
    })
  })

const listed = (org: Org, id: GroupId) =>
  Effect.gen(function*() {
    const groups = yield* UserGroups
    const all = yield* groups.list(yield* principal(org.owner), { includeDeactivated: true })
    return all.find((g) => g.id === id)!
  })

export const userGroupsTests = (it: Vitest.MethodsNonLive<Teamchat.Services | Persistence>): void => {
  it.effect("UserGroups.create: the record, Zulip's defaults, the creator in the two anonymous settings", () =>
    withTestClock(Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const org = yield* makeOrg()
      const member = yield* addUser(org, 400)
      const other = yield* addUser(org, 400)
      const id = yield* create(member, { name: "backend", description: "Backend team", members: [other.id, member.id, other.id] })
      const g = org.groups
      assert.deepStrictEqual(yield* listed(org, id), {
        id,
        name: "backend",
        description: "Backend team",
        members: [member.id, other.id].sort((a, b) => a - b),
        direct_subgroup_ids: [],
        creator_id: member.id,
        date_created: Math.floor(T0 / 1000),
        is_system_group: false,
        can_add_members_group: { direct_members: [member.id], direct_subgroups: [] },
        can_join_group: g["role:nobody"],
        can_leave_group: g["role:everyone"],
        can_manage_group: { direct_members: [member.id], direct_subgroups: [] },
        can_mention_group: g["role:everyone"],
        can_remove_members_group: g["role:nobody"],
        deactivated: false
      })
    })))

  it.effect("UserGroups.create: name rules, in Zulip's order", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      yield* create(org.owner, { name: "taken" })
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["   ", "UserGroupNameEmpty", "User group name can't be empty!"],
        ["x".repeat(101), "UserGroupNameTooLong", "User group name cannot exceed 100 characters."],
        ["@team", "UserGroupNameReservedPrefix", "User group name cannot start with '@'."],
        ["role:team", "UserGroupNameReservedPrefix", "User group name cannot start with 'role:'."],
        ["user:team", "UserGroupNameReservedPrefix", "User group name cannot start with 'user:'."],
        ["stream:team", "UserGroupNameReservedPrefix", "User group name cannot start with 'stream:'."],
        ["channel:team", "UserGroupNameReservedPrefix", "User group name cannot start with 'channel:'."],
        ["taken", "UserGroupNameExists", "User group 'taken' already exists."],
        ["role:members", "UserGroupNameReservedPrefix", "User group name cannot start with 'role:'."]
      ]
      for (const [name, tag, msg] of cases) yield* fails(create(org.owner, { name }), tag, msg, name)
      // 100 characters is allowed.
      const id = yield* create(org.owner, { name: "y".repeat(100) })
      assert.strictEqual((yield* listed(org, id)).name, "y".repeat(100))
    }))

  it.effect("UserGroups.create: members and subgroups must exist and be active", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const gone = yield* addUser(org, 400)
      const otherOrg = yield* makeOrg()
      yield* (yield* Users).deactivate(gone.id)
      yield* fails(create(org.owner, { members: [gone.id] }), "InvalidUserIdColon", `Invalid user ID: ${gone.id}`)
      yield* fails(create(org.owner, { members: [otherOrg.owner.id] }), "InvalidUserIdColon", `Invalid user ID: ${otherOrg.owner.id}`)
      yield* fails(create(org.owner, { subgroups: [otherOrg.groups["role:members"]] }), "InvalidSubgroupId",
        `Invalid user group ID: ${otherOrg.groups["role:members"]}`)
      const sub = yield* create(org.owner)
      yield* (yield* UserGroups).deactivate(yield* principal(org.owner), sub)
      yield* fails(create(org.owner, { subgroups: [sub] }), "UserGroupDeactivated", "User group is deactivated.")
      const id = yield* create(org.owner, { subgroups: [org.groups["role:moderators"]] })
      assert.deepStrictEqual((yield* listed(org, id)).direct_subgroup_ids, [org.groups["role:moderators"]])
    }))

  it.effect("UserGroups.create: the organization's can_create_groups; guests and bots never", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const admin = yield* addUser(org, 200)
      const moderator = yield* addUser(org, 300)
      const member = yield* addUser(org, 400)
      const guest = yield* addUser(org, 600)
      const bot = yield* addBot(org, org.owner)
      yield* fails(create(guest), "NotAllowedForGuests", "Not allowed for guest users")
      yield* fails(create(bot), "BotsNotAllowed", "This endpoint does not accept bot requests.")
      yield* updateRealmSettings(org.realm.id, { can_create_groups: org.groups["role:moderators"] })
      yield* fails(create(member), "InsufficientPermission", "Insufficient permission")
      yield* create(moderator)
      yield* create(admin)
      // Even with role:everyone named directly, a guest holds no such permission.
      yield* updateRealmSettings(org.realm.id, { can_create_groups: { direct_members: [guest.id, member.id], direct_subgroups: [] } })
      yield* fails(create(guest), "NotAllowedForGuests", "Not allowed for guest users")
      yield* create(member)
      yield* fails(create(admin), "InsufficientPermission", "Insufficient permission")
    }))

  it.effect("UserGroups settings: which system groups each setting refuses, deactivated and unknown values", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const g = org.groups
      const refused: ReadonlyArray<readonly [string, GroupId, string, string]> = [
        ["can_add_members_group", g["role:internet"], "GroupSettingCannotBeInternet", "'can_add_members_group' setting cannot be set to 'role:internet' group."],
        ["can_add_members_group", g["role:everyone"], "GroupSettingCannotBeEveryone", "'can_add_members_group' setting cannot be set to 'role:everyone' group."],
        ["can_join_group", g["role:everyone"], "GroupSettingCannotBeEveryone", "'can_join_group' setting cannot be set to 'role:everyone' group."],
        ["can_leave_group", g["role:internet"], "GroupSettingCannotBeInternet", "'can_leave_group' setting cannot be set to 'role:internet' group."],
        ["can_manage_group", g["role:internet"], "GroupSettingCannotBeInternet", "'can_manage_group' setting cannot be set to 'role:internet' group."],
        ["can_manage_group", g["role:everyone"], "GroupSettingCannotBeEveryone", "'can_manage_group' setting cannot be set to 'role:everyone' group."],
        ["can_mention_group", g["role:internet"], "GroupSettingCannotBeInternet", "'can_mention_group' setting cannot be set to 'role:internet' group."],
        ["can_mention_group", g["role:owners"], "GroupSettingCannotBeOwners", "'can_mention_group' setting cannot be set to 'role:owners' group."],
        ["can_remove_members_group", g["role:everyone"], "GroupSettingCannotBeEveryone", "'can_remove_members_group' setting cannot be set to 'role:everyone' group."]
      ]
      for (const [name, value, tag, msg] of refused) {
        yield* fails(create(org.owner, { settings: { [name]: value } }), tag, msg, `${name}=${value}`)
        // The anonymous form of one subgroup is the same value.
        yield* fails(create(org.owner, { settings: { [name]: { direct_members: [], direct_subgroups: [value] } } }), tag, msg)
      }
      // Allowed: role:everyone for leaving and mentioning, role:nobody and role:owners elsewhere.
      const id = yield* create(org.owner, {
        settings: {
          can_leave_group: g["role:everyone"],
          can_mention_group: { direct_members: [], direct_subgroups: [g["role:everyone"]] },
          can_join_group: g["role:nobody"],
          can_manage_group: g["role:owners"]
        }
      })
      const group = yield* listed(org, id)
      assert.strictEqual(group.can_mention_group, g["role:everyone"])
      assert.strictEqual(group.can_manage_group, g["role:owners"])
      yield* fails(create(org.owner, { settings: { can_join_group: 999_999 } }), "InvalidSubgroupId", "Invalid user group ID: 999999")
      yield* fails(create(org.owner, { settings: { can_join_group: { direct_members: [999_999], direct_subgroups: [] } } }),
        "InvalidUserIdColon", "Invalid user ID: 999999")
      yield* (yield* UserGroups).deactivate(yield* principal(org.owner), id)
      yield* fails(create(org.owner, { settings: { can_join_group: id } }), "UserGroupDeactivated", "User group is deactivated.")
      yield* fails(create(org.owner, { settings: { can_join_group: { direct_members: [], direct_subgroups: [id, g["role:administrators"]] } } }),
        "UserGroupDeactivated", "User group is deactivated.")
    }))

  it.effect("UserGroups.update: compare-and-set on each setting, no-ops, nothing written on a mismatch", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const member = yield* addUser(org, 400)
      const groups = yield* UserGroups
      const id = yield* create(org.owner)
      const owner = yield* principal(org.owner)
      const g = org.groups
      yield* fails(groups.update(owner, id, {}), "NoNewData", "No new data supplied")
      yield* fails(
        groups.update(owner, id, {
          description: "changed",
          settings: { can_join_group: { new: g["role:members"], old: g["role:everyone"] } }
        }),
        "ExpectationMismatch",
        "'old' value does not match the expected value."
      )
      assert.strictEqual((yield* listed(org, id)).description, "A team")
      // The anonymous value compares as sets.
      yield* groups.update(owner, id, {
        settings: {
          can_manage_group: {
            new: { direct_members: [member.id, org.owner.id], direct_subgroups: [] },
            old: { direct_members: [org.owner.id, org.owner.id], direct_subgroups: [] }
          },
          can_join_group: { new: g["role:members"], old: g["role:nobody"] }
        }
      })
      const after = yield* listed(org, id)
      assert.deepStrictEqual(after.can_manage_group, {
        direct_members: [org.owner.id, member.id].sort((a, b) => a - b),
        direct_subgroups: []
      })
      assert.strictEqual(after.can_join_group, g["role:members"])
      // The member now manages the group; renaming needs a free name.
      const other = yield* create(org.owner, { name: unique("other") })
      const otherName = (yield* listed(org, other)).name
      yield* fails(groups.update(yield* principal(member), id, { name: otherName }), "UserGroupNameExists",
        `User group '${otherName}' already exists.`)
      yield* groups.update(yield* principal(member), id, { name: "renamed" })
      assert.strictEqual((yield* listed(org, id)).name, "renamed")
    }))

  it.effect("UserGroups: system groups are never changed, unknown ids are invalid", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const groups = yield* UserGroups
      const owner = yield* principal(org.owner)
      for (const id of Object.values(org.groups)) {
        yield* fails(groups.update(owner, id, { description: "x" }), "InsufficientPermission", "Insufficient permission")
        yield* fails(groups.deactivate(owner, id), "InsufficientPermission", "Insufficient permission")
        yield* fails(groups.updateMembers(owner, id, { add: [org.owner.id] }), "InsufficientPermission", "Insufficient permission")
      }
      yield* fails(groups.update(owner, 999_999, { description: "x" }), "InvalidUserGroup", "Invalid user group")
      yield* fails(groups.members(owner, 999_999, { directOnly: false }), "InvalidUserGroup", "Invalid user group")
    }))

  it.effect("UserGroups membership: recursive through subgroups, direct-only, and no cycles", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const [a, b, c] = [yield* addUser(org, 400), yield* addUser(org, 400), yield* addUser(org, 400)]
      const groups = yield* UserGroups
      const owner = yield* principal(org.owner)
      const leaf = yield* create(org.owner, { members: [c.id] })
      const middle = yield* create(org.owner, { members: [b.id], subgroups: [leaf] })
      const top = yield* create(org.owner, { members: [a.id], subgroups: [middle] })
      const sorted = <A extends number>(ids: ReadonlyArray<A>): Array<A> => [...ids].sort((x, y) => x - y)
      assert.deepStrictEqual(yield* groups.members(owner, top, { directOnly: false }), sorted([a.id, b.id, c.id]))
      assert.deepStrictEqual(yield* groups.members(owner, top, { directOnly: true }), [a.id])
      assert.deepStrictEqual(yield* groups.subgroups(owner, top, { directOnly: false }), sorted([middle, leaf]))
      assert.strictEqual(yield* groups.isMember(owner, top, c.id, { directOnly: false }), true)
      assert.strictEqual(yield* groups.isMember(owner, top, c.id, { directOnly: true }), false)
      yield* fails(groups.updateSubgroups(owner, leaf, { add: [top] }), "SubgroupCycle",
        `User group ${leaf} is already a subgroup of one of the passed subgroups.`)
      yield* fails(groups.updateSubgroups(owner, leaf, { add: [leaf] }), "SubgroupCycle",
        `User group ${leaf} is already a subgroup of one of the passed subgroups.`)
      yield* fails(groups.updateSubgroups(owner, top, { add: [middle] }), "SubgroupAlreadyMember",
        `User group ${middle} is already a subgroup of this group.`)
      yield* fails(groups.updateSubgroups(owner, top, { delete: [leaf] }), "NotASubgroup",
        `User group ${leaf} is not a subgroup of this group.`)
      yield* fails(groups.updateSubgroups(owner, top, {}), "SubgroupsNothingToDo",
        "Nothing to do. Specify at least one of \"add\" or \"delete\".")
      yield* fails(groups.updateMembers(owner, top, { add: [] }), "GroupMembersNothingToDo",
        "Nothing to do. Specify at least one of \"add\", \"delete\", \"add_subgroups\" or \"delete_subgroups\".")
      // One request is one transaction: a failing part undoes the parts before it.
      yield* fails(groups.updateMembers(owner, top, { add: [c.id], delete: [b.id] }), "UserNotGroupMember",
        `There is no member '${b.id}' in this user group`)
      assert.deepStrictEqual(yield* groups.members(owner, top, { directOnly: true }), [a.id])
      yield* fails(groups.updateMembers(owner, top, { add: [a.id] }), "UserAlreadyGroupMember",
        `User ${a.id} is already a member of this group`)
      yield* groups.updateMembers(owner, top, { add: [c.id], delete: [a.id], delete_subgroups: [middle] })
      assert.deepStrictEqual(yield* groups.members(owner, top, { directOnly: false }), [c.id])
    }))

  it.effect("UserGroups.deactivate: objections while in use, then deactivated, reactivated by PATCH", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const groups = yield* UserGroups
      const owner = yield* principal(org.owner)
      const used = yield* create(org.owner)
      const supergroup = yield* create(org.owner, { subgroups: [used] })
      const user = yield* create(org.owner, {
        settings: { can_mention_group: used, can_join_group: { direct_members: [], direct_subgroups: [used, org.groups["role:moderators"]] } }
      })
      const channel = yield* (yield* Channels).create(org.realm.id, { name: unique("ch"), creator_id: org.owner.id })
      const channelRepo = yield* ChannelRepo
      yield* channelRepo.update({ ...channel, settings: { ...channel.settings, can_send_message_group: used } })
      yield* updateRealmSettings(org.realm.id, { can_create_groups: { direct_members: [], direct_subgroups: [used, org.groups["role:members"]] } })
      const error = yield* fails(groups.deactivate(owner, used), "CannotDeactivateGroupInUse", "Cannot deactivate user group in use.")
      assert.deepStrictEqual((error as unknown as { objections: unknown }).objections, [
        { type: "subgroup", supergroup_ids: [supergroup] },
        { type: "channel", channel_id: channel.id, settings: ["can_send_message_group"] },
        { type: "user_group", group_id: user, settings: ["can_join_group", "can_mention_group"] },
        { type: "realm", settings: ["can_create_groups"] }
      ])
      // A deactivated supergroup or group and an archived channel no longer object.
      yield* groups.deactivate(owner, supergroup)
      yield* channelRepo.update({ ...channel, is_archived: true })
      yield* groups.deactivate(owner, user)
      yield* updateRealmSettings(org.realm.id, { can_create_groups: org.groups["role:members"] })
      yield* groups.deactivate(owner, used)
      assert.strictEqual((yield* listed(org, used)).deactivated, true)
      const active = yield* groups.list(owner, { includeDeactivated: false })
      assert.isFalse(active.some((g) => g.id === used))
      yield* fails(groups.deactivate(owner, used), "UserGroupDeactivated", "User group is deactivated.")
      // Deactivated groups stay editable and keep their members.
      yield* groups.update(owner, used, { description: "still editable" })
      yield* groups.updateMembers(owner, used, { add: [org.owner.id] })
      yield* groups.update(owner, used, { deactivated: true })
      assert.strictEqual((yield* listed(org, used)).deactivated, true)
      yield* groups.update(owner, used, { deactivated: false })
      const reactivated = yield* listed(org, used)
      assert.deepStrictEqual(
        [reactivated.deactivated, reactivated.description, reactivated.members],
        [false, "still editable", [org.owner.id]]
      )
      assert.strictEqual((yield* (yield* GroupRepo).findById(used))!.deactivated, false)
    }))

  it.effect("UserGroups: who may manage and change membership (manage-all, can_manage_group, join, leave)", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const groups = yield* UserGroups
      const admin = yield* addUser(org, 200)
      const member = yield* addUser(org, 400)
      const joiner = yield* addUser(org, 400)
      const id = yield* create(org.owner)
      const as = (u: User) => principal(u)
      // Default can_manage_all_groups is role:owners: administrators manage only what names them.
      yield* fails(groups.update(yield* as(admin), id, { description: "x" }), "InsufficientPermission", "Insufficient permission")
      yield* updateRealmSettings(org.realm.id, { can_manage_all_groups: org.groups["role:administrators"] })
      yield* groups.update(yield* as(admin), id, { description: "by admin" })
      yield* fails(groups.updateMembers(yield* as(joiner), id, { add: [joiner.id] }), "InsufficientPermission", "Insufficient permission")
      yield* groups.update(yield* as(admin), id, { settings: { can_join_group: { new: org.groups["role:members"] } } })
      yield* groups.updateMembers(yield* as(joiner), id, { add: [joiner.id] })
      // Joining is for oneself only.
      yield* fails(groups.updateMembers(yield* as(joiner), id, { add: [member.id] }), "InsufficientPermission", "Insufficient permission")
      // Leaving: can_leave_group is role:everyone by default.
      yield* groups.updateMembers(yield* as(joiner), id, { delete: [joiner.id] })
      yield* groups.updateMembers(yield* as(admin), id, { add: [member.id] })
      yield* fails(groups.updateMembers(yield* as(joiner), id, { delete: [member.id] }), "InsufficientPermission", "Insufficient permission")
      yield* groups.update(yield* as(admin), id, { settings: { can_remove_members_group: { new: { direct_members: [joiner.id], direct_subgroups: [] } } } })
      yield* groups.updateMembers(yield* as(joiner), id, { delete: [member.id] })
      assert.deepStrictEqual(yield* groups.members(yield* as(member), id, { directOnly: true }), [])
    }))

  it.effect("Channel permissions stored as group-setting values work with real groups, nested ones included", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const groups = yield* UserGroups
      const channelsService = yield* Channels
      const [direct, nested, outsider] = [yield* addUser(org, 400), yield* addUser(org, 400), yield* addUser(org, 400)]
      const inner = yield* create(org.owner, { members: [nested.id] })
      const admins = yield* create(org.owner, { members: [direct.id], subgroups: [inner] })
      const channel = yield* channelsService.create(org.realm.id, { name: unique("perm"), creator_id: org.owner.id })
      const channelRepo = yield* ChannelRepo
      yield* channelRepo.update({ ...channel, settings: { ...channel.settings, can_administer_channel_group: admins } })
      yield* channelsService.update(yield* principal(direct), channel.id, { description: "by a direct member" })
      yield* channelsService.update(yield* principal(nested), channel.id, { description: "by a subgroup's member" })
      yield* fails(channelsService.update(yield* principal(outsider), channel.id, { description: "x" }),
        "CannotAdministerChannel", "You do not have permission to administer this channel.")
      // Membership changes apply at once: the outsider joins the subgroup.
      yield* groups.updateMembers(yield* principal(org.owner), inner, { add: [outsider.id] })
      yield* channelsService.update(yield* principal(outsider), channel.id, { description: "now allowed" })
      assert.strictEqual((yield* channelRepo.findById(channel.id))!.description, "now allowed")
    }))
}
