import { assert, describe, it } from "@effect/vitest"
import { realmId, userId } from "../../src/domain/Ids.ts"
import type { Role as RoleType } from "../../src/domain/Role.ts"
import { isAdministrator, isOwner, Roles } from "../../src/domain/Role.ts"
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

/**
 * The role rules over every kind of user, enumerated rather than sampled:
 * random roles left the interesting cases (an active administrator acting on
 * an owner, a bot's owner) to chance, and an implication over a random sample
 * passed without checking anything when its premise was never drawn. A bot
 * holds the member role (Zulip's default for bots); as a target it is owned
 * by the actor or by someone else.
 */
interface Kind {
  readonly name: string
  readonly role: RoleType
  readonly isBot: boolean
}

const kinds: ReadonlyArray<Kind> = [
  ...allRoles.map(([name, role]) => ({ name, role, isBot: false })),
  { name: "bot", role: Roles.member, isBot: true }
]
const booleans = [true, false] as const

/** Every combination of `dimensions`, in order. */
const product = <A extends Record<string, ReadonlyArray<unknown>>>(
  dimensions: A
): Array<{ readonly [K in keyof A]: A[K][number] }> =>
  Object.entries(dimensions).reduce<Array<Record<string, unknown>>>(
    (rows, [key, values]) => rows.flatMap((row) => values.map((value) => ({ ...row, [key]: value }))),
    [{}]
  ) as Array<{ readonly [K in keyof A]: A[K][number] }>

describe("Roles over every kind of user", () => {
  it("administering and managing: every actor, active or not, on every target in and out of the organization", () => {
    const cases = product({
      actor: kinds,
      active: booleans,
      target: kinds,
      /** For a bot target: whether the actor owns it. */
      ownedByActor: booleans,
      sameRealm: booleans
    }).filter((c) => c.target.isBot || c.ownedByActor)
    // 6 actors × 2 × (5 people + a bot owned by the actor or not) × 2 organizations.
    assert.strictEqual(cases.length, 6 * 2 * 7 * 2)
    let administered = 0
    for (const c of cases) {
      const a = actor(c.actor.role, { is_active: c.active })
      const t = {
        ...target(c.target.role, c.target.isBot ? (c.ownedByActor ? 1 : 7) : null),
        realm_id: realmId(c.sameRealm ? 1 : 2)
      }
      const label = JSON.stringify({ ...c, actor: c.actor.name, target: c.target.name })
      const inReach = c.active && c.sameRealm
      const administers = inReach && (isOwner(c.actor.role) || (isAdministrator(c.actor.role) && !isOwner(c.target.role)))
      const manages = inReach && (isAdministrator(c.actor.role) || (c.target.isBot && c.ownedByActor))
      assert.strictEqual(canAdministerUser(a, t), administers, label)
      assert.strictEqual(canManageUser(a, t), manages, label)
      if (administers) {
        administered++
        // Administering implies managing and changing the role away from the target's.
        assert.isTrue(manages, label)
        assert.strictEqual(canChangeRole(a, c.target.role, c.target.role === Roles.member ? Roles.guest : Roles.member)._tag, "Allowed", label)
      }
    }
    // The implication was checked: owners on all 7 targets, administrators on the 6 that are not owners (each in the organization, active).
    assert.strictEqual(administered, 7 + 6)
  })

  it("role changes: every actor, every role changed to every role", () => {
    const roles = allRoles.map(([, role]) => role)
    const cases = product({ actor: kinds, from: roles, to: roles })
    assert.strictEqual(cases.length, 6 * 5 * 5)
    const decisions: Record<string, number> = {}
    for (const { actor: who, from, to } of cases) {
      const ownerInvolved = from !== to && (isOwner(from) || isOwner(to))
      const expected: RoleChangeDecision = from === to
        ? { _tag: "Allowed" }
        : ownerInvolved && !isOwner(who.role)
        ? { _tag: "Denied", code: "UNAUTHORIZED_PRINCIPAL", reason: RoleErrors.ownerRequired }
        : !isAdministrator(who.role)
        ? { _tag: "Denied", code: "UNAUTHORIZED_PRINCIPAL", reason: RoleErrors.administratorRequired }
        : { _tag: "Allowed" }
      const decision = canChangeRole(actor(who.role), from, to)
      assert.deepStrictEqual(decision, expected, JSON.stringify({ actor: who.name, from, to }))
      const key = decision._tag === "Allowed" ? "allowed" : decision.reason
      decisions[key] = (decisions[key] ?? 0) + 1
    }
    // Each outcome is reached: 6 actors × 5 unchanged roles, owners' and administrators' changes allowed, …
    assert.deepStrictEqual(decisions, {
      allowed: 6 * 5 + 20 + 12,
      [RoleErrors.ownerRequired]: 5 * 8,
      [RoleErrors.administratorRequired]: 4 * 12
    })
  })

  it("full membership: every kind, active or not, around each threshold, and it never expires", () => {
    const cases = product({
      kind: kinds,
      active: booleans,
      threshold: [0, 3, 90],
      daysAgo: [0, 2.9, 3, 89, 90, 400],
      later: [0, 1, 400]
    })
    assert.strictEqual(cases.length, 6 * 2 * 3 * 6 * 3)
    const reached = { full: 0, provisional: 0, never: 0 }
    for (const c of cases) {
      const user = { role: c.kind.role, is_active: c.active, date_joined: NOW - c.daysAgo * DAY }
      const label = JSON.stringify({ ...c, kind: c.kind.name })
      const expected = c.active && c.kind.role !== Roles.guest &&
        (c.kind.role <= Roles.moderator || Math.floor(c.daysAgo) >= c.threshold)
      const full = isFullMember(user, c.threshold, NOW)
      assert.strictEqual(full, expected, label)
      if (full) assert.isTrue(isFullMember(user, c.threshold, NOW + c.later * DAY), label)
      if (!c.active || c.kind.role === Roles.guest) reached.never++
      else if (full) reached.full++
      else reached.provisional++
    }
    // Members and bots still waiting: threshold 3 at 0 and 2.9 days, threshold 90 at 0, 2.9, 3 and 89 days.
    assert.strictEqual(reached.provisional, 2 * (2 + 4) * 3)
    assert.strictEqual(reached.never, (6 * 2 - 5) * 3 * 6 * 3)
  })
})
