/**
 * Who may invite with a link of each role (the rule POST /invites/multiuse
 * and joining through a link share), per maker role, with the invitation
 * group of Zulip's default (its administrators) and with another one.
 */
import { assert, describe, it } from "@effect/vitest"
import type { GroupId, UserId } from "../../src/domain/Ids.ts"
import { groupId, userId } from "../../src/domain/Ids.ts"
import type { Role } from "../../src/domain/Role.ts"
import { Roles } from "../../src/domain/Role.ts"
import type { User } from "../../src/domain/User.ts"
import { makeGroupIndex } from "../../src/permissions/GroupMembership.ts"
import { inviteRefusal } from "../../src/permissions/InvitationPermissions.ts"
import type { InviteRefusal } from "../../src/permissions/InvitationPermissions.ts"
import { makeUser } from "../support/Users.ts"

const G = { owners: groupId(1), administrators: groupId(2), moderators: groupId(3), members: groupId(4), everyone: groupId(5) }

const owner = makeUser(1, Roles.owner)
const admin = makeUser(2, Roles.administrator)
const moderator = makeUser(3, Roles.moderator)
const member = makeUser(4, Roles.member)
const guest = makeUser(5, Roles.guest)
const bot = makeUser(6, Roles.administrator, { is_bot: true, bot_type: 1, bot_owner_id: userId(1) })
const deactivatedOwner = makeUser(7, Roles.owner, { is_active: false })
const users = [owner, admin, moderator, member, guest, bot, deactivatedOwner]
const groupOf: Record<Role, GroupId> = {
  100: G.owners,
  200: G.administrators,
  300: G.moderators,
  400: G.members,
  600: G.everyone
}

const index = makeGroupIndex(
  Object.values(G).map((id) => ({ id, deactivated: false })),
  {
    members: new Map<GroupId, ReadonlySet<UserId>>(
      Object.values(G).map((g) => [g, new Set(users.filter((u) => groupOf[u.role] === g).map((u) => u.id))] as const)
    ),
    subgroups: new Map<GroupId, ReadonlySet<GroupId>>([
      [G.administrators, new Set([G.owners])],
      [G.moderators, new Set([G.administrators])],
      [G.members, new Set([G.moderators])],
      [G.everyone, new Set([G.members])]
    ])
  },
  (id) => users.find((u) => u.id === id)
)

const roles = [Roles.owner, Roles.administrator, Roles.moderator, Roles.member, Roles.guest] as const

const verdicts = (inviteGroup: GroupId, maker: User): ReadonlyArray<InviteRefusal | undefined> =>
  roles.map((role) => inviteRefusal(index, inviteGroup, maker, role))

describe("inviteRefusal", () => {
  it("per maker: the administrators' group (Zulip's default), then the members' group", () => {
    const a = "administrator_required"
    assert.deepStrictEqual(verdicts(G.administrators, owner), [undefined, undefined, undefined, undefined, undefined])
    assert.deepStrictEqual(verdicts(G.administrators, admin), ["owner_required", undefined, undefined, undefined, undefined])
    const none = Array(5).fill("insufficient_permission")
    assert.deepStrictEqual(verdicts(G.administrators, moderator), none)
    assert.deepStrictEqual(verdicts(G.administrators, member), none)
    assert.deepStrictEqual(verdicts(G.administrators, guest), Array(5).fill("guest"))
    assert.deepStrictEqual(verdicts(G.administrators, bot), Array(5).fill("bot"))
    assert.deepStrictEqual(verdicts(G.administrators, deactivatedOwner), Array(5).fill("deactivated"))
    // Members allowed to invite: only members, moderators' and the rest still need an administrator.
    assert.deepStrictEqual(verdicts(G.members, member), ["owner_required", a, a, undefined, undefined])
    assert.deepStrictEqual(verdicts(G.members, moderator), ["owner_required", a, a, undefined, undefined])
  })
})
