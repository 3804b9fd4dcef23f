import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import { realmId, userId } from "../../src/domain/Ids.ts"
import type { Role as RoleType } from "../../src/domain/Role.ts"
import { isAdministrator, isOwner, Role, Roles } from "../../src/domain/Role.ts"
import type { Actor, RoleChangeDecision } from "../../src/permissions/Roles.ts"
import {
  administrationRefusal,
  canAdministerUser,
  canChangeRole,
  canManageUser,
  deactivationRefusal,
  isFullMember,
  removesOnlyOwner,
  roleChangeRefusal,
  RoleErrors
} from "../../src/permissions/Roles.ts"
import { propertyOptions } from "../support/Properties.ts"

const DAY = 24 * 60 * 60 * 1000
const NOW = Date.UTC(2025, 0, 31)

const actor = (role: RoleType, overrides: Partial<Actor> = {}): Actor => ({
  id: userId(1),
  realm_id: realmId(1),
  role,
  is_active: true,
  ...overrides
})

const target = (role: RoleType, botOwner: number | null = null) => ({
  realm_id: realmId(1),
  role,
  bot_owner_id: botOwner === null ? null : userId(botOwner)
})

const change = (actorRole: RoleType, from: RoleType, to: RoleType) => canChangeRole(actor(actorRole), from, to)

const roleArb = Arbitrary.schema(Role)
const bool = Arbitrary.schema(Schema.Boolean)
const dayArb = Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: -5, maximum: 400 })))
const runs = propertyOptions(300)

const allRoles: ReadonlyArray<readonly [string, RoleType]> = [
  ["owner", Roles.owner],
  ["administrator", Roles.administrator],
  ["moderator", Roles.moderator],
  ["member", Roles.member],
  ["guest", Roles.guest]
]

describe("Roles examples", () => {
  it("owners administer anyone; administrators anyone but owners; nobody else anyone", () => {
    for (const [, targetRole] of allRoles) {
      assert.isTrue(canAdministerUser(actor(Roles.owner), target(targetRole)))
      assert.strictEqual(canAdministerUser(actor(Roles.administrator), target(targetRole)), targetRole !== Roles.owner)
      for (const weak of [Roles.moderator, Roles.member, Roles.guest]) {
        assert.isFalse(canAdministerUser(actor(weak), target(targetRole)))
      }
    }
  })

  it("never crosses organizations and ignores deactivated actors", () => {
    assert.isFalse(canAdministerUser(actor(Roles.owner), { ...target(Roles.member), realm_id: realmId(2) }))
    assert.isFalse(canAdministerUser(actor(Roles.owner, { is_active: false }), target(Roles.member)))
    assert.isFalse(canManageUser(actor(Roles.administrator), { ...target(Roles.member), realm_id: realmId(2) }))
  })

  it("lets administrators and bot owners manage users (Zulip's can_admin_user)", () => {
    assert.isTrue(canManageUser(actor(Roles.administrator), target(Roles.owner)))
    assert.isTrue(canManageUser(actor(Roles.member), target(Roles.member, 1)))
    assert.isTrue(canManageUser(actor(Roles.guest), target(Roles.member, 1)))
    assert.isFalse(canManageUser(actor(Roles.member), target(Roles.member, 7)))
    assert.isFalse(canManageUser(actor(Roles.moderator), target(Roles.member)))
  })

  it("requires an owner whenever the owner role is granted or removed", () => {
    const denied = (reason: typeof RoleErrors.ownerRequired): RoleChangeDecision => ({
      _tag: "Denied",
      code: "UNAUTHORIZED_PRINCIPAL",
      reason
    })
    assert.deepStrictEqual(change(Roles.administrator, Roles.member, Roles.owner), denied(RoleErrors.ownerRequired))
    assert.deepStrictEqual(change(Roles.administrator, Roles.owner, Roles.member), denied(RoleErrors.ownerRequired))
    assert.deepStrictEqual(change(Roles.member, Roles.owner, Roles.guest), denied(RoleErrors.ownerRequired))
    assert.deepStrictEqual(change(Roles.owner, Roles.owner, Roles.member), { _tag: "Allowed" })
    assert.deepStrictEqual(change(Roles.owner, Roles.guest, Roles.owner), { _tag: "Allowed" })
  })

  it("requires an administrator for the other role changes", () => {
    const denied: RoleChangeDecision = {
      _tag: "Denied",
      code: "UNAUTHORIZED_PRINCIPAL",
      reason: RoleErrors.administratorRequired
    }
    assert.deepStrictEqual(change(Roles.administrator, Roles.guest, Roles.administrator), { _tag: "Allowed" })
    assert.deepStrictEqual(change(Roles.administrator, Roles.administrator, Roles.guest), { _tag: "Allowed" })
    assert.deepStrictEqual(change(Roles.moderator, Roles.member, Roles.moderator), denied)
    assert.deepStrictEqual(change(Roles.member, Roles.guest, Roles.member), denied)
    assert.deepStrictEqual(change(Roles.guest, Roles.member, Roles.guest), denied)
    assert.deepStrictEqual(change(Roles.guest, Roles.member, Roles.member), { _tag: "Allowed" })
  })

  it("protects the only human owner", () => {
    const owner = { role: Roles.owner, is_bot: false }
    assert.isTrue(removesOnlyOwner(owner, 1, Roles.administrator))
    assert.isTrue(removesOnlyOwner(owner, 1))
    assert.isFalse(removesOnlyOwner(owner, 1, Roles.owner))
    assert.isFalse(removesOnlyOwner(owner, 2, Roles.member))
    assert.isFalse(removesOnlyOwner({ role: Roles.owner, is_bot: true }, 1, Roles.member))
    assert.isFalse(removesOnlyOwner({ role: Roles.administrator, is_bot: false }, 1, Roles.member))
  })

  it("decides full membership by role and whole days since joining", () => {
    const joined = (role: RoleType, daysAgo: number, is_active = true) => ({
      role,
      is_active,
      date_joined: NOW - daysAgo * DAY
    })
    assert.isTrue(isFullMember(joined(Roles.owner, 0), 3, NOW))
    assert.isTrue(isFullMember(joined(Roles.administrator, 0), 3, NOW))
    assert.isTrue(isFullMember(joined(Roles.moderator, 0), 3, NOW))
    assert.isFalse(isFullMember(joined(Roles.member, 2.9), 3, NOW))
    assert.isTrue(isFullMember(joined(Roles.member, 3), 3, NOW))
    assert.isTrue(isFullMember(joined(Roles.member, 0), 0, NOW))
    assert.isFalse(isFullMember(joined(Roles.guest, 400), 3, NOW))
    assert.isFalse(isFullMember(joined(Roles.member, 400, false), 3, NOW))
  })
})

describe("administration refusals", () => {
  const person = (role: RoleType, overrides: { is_bot?: boolean; is_active?: boolean; bot_owner?: number } = {}) => ({
    ...target(role, overrides.bot_owner ?? null),
    is_bot: overrides.is_bot ?? false,
    is_active: overrides.is_active ?? true
  })
  const lenient = { allowBots: true, allowDeactivated: true }
  const strict = { allowBots: false, allowDeactivated: false }

  it("access for administration: organization, then bots, then deactivation, then can_admin_user", () => {
    assert.strictEqual(administrationRefusal(actor(Roles.owner), { ...person(Roles.member), realm_id: realmId(2) }, lenient), "NoSuchUser")
    assert.strictEqual(administrationRefusal(actor(Roles.member), person(Roles.member, { is_bot: true }), strict), "NoSuchUser")
    assert.strictEqual(administrationRefusal(actor(Roles.member), person(Roles.member, { is_active: false }), strict), "UserIsDeactivated")
    for (const [name, role] of allRoles) {
      const expected = isAdministrator(role) ? undefined : "InsufficientPermission"
      assert.strictEqual(administrationRefusal(actor(role), person(Roles.member), lenient), expected, name)
      assert.strictEqual(administrationRefusal(actor(role), person(Roles.member, { is_active: false }), lenient), expected, name)
      // A bot's owner manages it whatever their role.
      assert.strictEqual(
        administrationRefusal(actor(role), person(Roles.member, { is_bot: true, bot_owner: 1 }), lenient),
        undefined,
        name
      )
    }
  })

  it("role changes: owner role by owners, others by administrators, the last owner, no guest administrators", () => {
    const human = (role: RoleType) => ({ role, is_bot: false })
    assert.strictEqual(roleChangeRefusal(actor(Roles.member), human(Roles.member), Roles.member, 1), undefined)
    assert.strictEqual(roleChangeRefusal(actor(Roles.administrator), human(Roles.member), Roles.owner, 1), "OwnerRequired")
    assert.strictEqual(roleChangeRefusal(actor(Roles.administrator), human(Roles.owner), Roles.member, 2), "OwnerRequired")
    assert.strictEqual(roleChangeRefusal(actor(Roles.member), human(Roles.member), Roles.moderator, 1), "AdministratorRequired")
    assert.strictEqual(roleChangeRefusal(actor(Roles.owner), human(Roles.owner), Roles.administrator, 1), "OnlyOwner")
    assert.strictEqual(roleChangeRefusal(actor(Roles.owner), human(Roles.owner), Roles.administrator, 2), undefined)
    assert.strictEqual(roleChangeRefusal(actor(Roles.owner), human(Roles.guest), Roles.administrator, 1), "GuestCannotBeAdmin")
    assert.strictEqual(roleChangeRefusal(actor(Roles.owner), human(Roles.guest), Roles.owner, 1), "GuestCannotBeAdmin")
    assert.strictEqual(roleChangeRefusal(actor(Roles.owner), human(Roles.guest), Roles.moderator, 1), undefined)
  })

  it("deactivation: owners only by owners, never the last human owner", () => {
    assert.strictEqual(deactivationRefusal(actor(Roles.administrator), { role: Roles.owner, is_bot: false }, 2), "OwnerRequired")
    assert.strictEqual(deactivationRefusal(actor(Roles.owner), { role: Roles.owner, is_bot: false }, 1), "OnlyOwnerDeactivation")
    assert.strictEqual(deactivationRefusal(actor(Roles.owner), { role: Roles.owner, is_bot: false }, 2), undefined)
    assert.strictEqual(deactivationRefusal(actor(Roles.owner), { role: Roles.owner, is_bot: true }, 1), undefined)
    assert.strictEqual(deactivationRefusal(actor(Roles.administrator), { role: Roles.administrator, is_bot: false }, 1), undefined)
  })
})

describe("Roles properties", () => {
  it.prop("an allowed role change is made by an administrator, and by an owner when owners are involved", {
    actorRole: roleArb,
    from: roleArb,
    to: roleArb
  }, ({ actorRole, from, to }) => {
    const decision = canChangeRole(actor(actorRole), from, to)
    if (from === to) {
      assert.strictEqual(decision._tag, "Allowed")
      return
    }
    const ownerInvolved = isOwner(from) || isOwner(to)
    const expected = isAdministrator(actorRole) && (isOwner(actorRole) || !ownerInvolved)
    assert.strictEqual(decision._tag === "Allowed", expected)
  }, runs)

  it.prop("administering a user implies managing them, and needs an administrator", {
    actorRole: roleArb,
    targetRole: roleArb,
    active: bool
  }, ({ active, actorRole, targetRole }) => {
    const a = actor(actorRole, { is_active: active })
    if (canAdministerUser(a, target(targetRole))) {
      assert.isTrue(active && isAdministrator(actorRole))
      assert.isTrue(canManageUser(a, target(targetRole)))
      assert.strictEqual(canChangeRole(a, targetRole, Roles.member)._tag, "Allowed")
    }
  }, runs)

  it.prop("full membership never expires and never reaches guests or deactivated users", {
    role: roleArb,
    active: bool,
    daysAgo: dayArb,
    later: dayArb,
    threshold: dayArb
  }, ({ active, daysAgo, later, role, threshold }) => {
    const user = { role, is_active: active, date_joined: NOW - daysAgo * DAY }
    const full = isFullMember(user, threshold, NOW)
    if (full) assert.isTrue(isFullMember(user, threshold, NOW + Math.abs(later) * DAY))
    if (!active || role === Roles.guest) assert.isFalse(full)
  }, runs)
})
