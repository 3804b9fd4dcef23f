import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import type { GroupSettingValue } from "../../src/domain/GroupSetting.ts"
import { equivalent, isNamed, normalize } from "../../src/domain/GroupSetting.ts"
import type { GroupId, UserId } from "../../src/domain/Ids.ts"
import { groupId, userId } from "../../src/domain/Ids.ts"
import { Roles } from "../../src/domain/Role.ts"
import type { GroupMembership } from "../../src/domain/UserGroup.ts"
import type { GroupRef } from "../../src/permissions/GroupMembership.ts"
import { hasGroupPermission, makeGroupIndex, membershipCheck } from "../../src/permissions/GroupMembership.ts"
import { checkReaching, propertyOptions } from "../support/Properties.ts"

// ---------------------------------------------------------------------------
// A random organization: a few users (some deactivated), a few groups (some
// deactivated) and random membership / subgroup edges, cycles and self-loops
// included. Id USERS + 1 and GROUPS + 1 are unknown to the organization, so
// edges and values can point at ids that do not exist.

const USERS = 8
const GROUPS = 6

const intBetween = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))
const bool = Arbitrary.schema(Schema.Boolean)
const userIdArb = intBetween(1, USERS + 1).pipe(Arbitrary.map(userId))
const groupIdArb = intBetween(1, GROUPS + 1).pipe(Arbitrary.map(groupId))

interface World {
  readonly active: ReadonlyArray<boolean>
  readonly deactivatedGroups: ReadonlyArray<boolean>
  readonly memberEdges: ReadonlyArray<readonly [GroupId, UserId]>
  readonly subgroupEdges: ReadonlyArray<readonly [GroupId, GroupId]>
}

const worldArb: Arbitrary.Arbitrary<World> = Arbitrary.all({
  active: Arbitrary.array(bool, { minLength: USERS, maxLength: USERS }),
  deactivatedGroups: Arbitrary.array(bool, { minLength: GROUPS, maxLength: GROUPS }),
  memberEdges: Arbitrary.array(Arbitrary.all([groupIdArb, userIdArb]), { maxLength: 24 }),
  subgroupEdges: Arbitrary.array(Arbitrary.all([groupIdArb, groupIdArb]), { maxLength: 14 })
})

const valueArb: Arbitrary.Arbitrary<GroupSettingValue> = bool.pipe(
  Arbitrary.flatMap((named): Arbitrary.Arbitrary<GroupSettingValue> =>
    named
      ? groupIdArb
      : Arbitrary.all({
        direct_members: Arbitrary.array(userIdArb, { maxLength: 6 }),
        direct_subgroups: Arbitrary.array(groupIdArb, { maxLength: 4 })
      })
  )
)

const allUserIds: ReadonlyArray<UserId> = Array.from({ length: USERS + 1 }, (_, i) => userId(i + 1))
const allGroupIds: ReadonlyArray<GroupId> = Array.from({ length: GROUPS + 1 }, (_, i) => groupId(i + 1))
const knownGroupIds = allGroupIds.slice(0, GROUPS)

const isActiveIn = (world: World, id: UserId): boolean => world.active[id - 1] === true

const groupsOf = (world: World): ReadonlyArray<GroupRef> =>
  knownGroupIds.map((id) => ({ id, deactivated: world.deactivatedGroups[id - 1] === true }))

const membershipOf = (world: World): GroupMembership => {
  const members = new Map<GroupId, Set<UserId>>()
  const subgroups = new Map<GroupId, Set<GroupId>>()
  for (const [g, u] of world.memberEdges) members.set(g, (members.get(g) ?? new Set()).add(u))
  for (const [g, s] of world.subgroupEdges) subgroups.set(g, (subgroups.get(g) ?? new Set()).add(s))
  return { members, subgroups }
}

const indexOf = (world: World) =>
  makeGroupIndex(
    groupsOf(world),
    membershipOf(world),
    (id) => id >= 1 && id <= USERS ? { is_active: isActiveIn(world, id) } : undefined
  )

// Independent model: iterate "a supergroup has its subgroups' members" to a
// fixpoint. No visited sets, no recursion, so it shares no logic with the
// implementation under test.
const modelMembers = (world: World): ReadonlyMap<GroupId, ReadonlySet<UserId>> => {
  const known = new Set(knownGroupIds)
  const members = new Map<GroupId, Set<UserId>>(knownGroupIds.map((g) => [g, new Set<UserId>()]))
  for (const [g, u] of world.memberEdges) {
    if (known.has(g) && isActiveIn(world, u)) members.get(g)!.add(u)
  }
  let changed = true
  while (changed) {
    changed = false
    for (const [sup, sub] of world.subgroupEdges) {
      if (!known.has(sup) || !known.has(sub)) continue
      const target = members.get(sup)!
      for (const u of members.get(sub)!) {
        if (!target.has(u)) {
          target.add(u)
          changed = true
        }
      }
    }
  }
  return members
}

const modelMembersOfValue = (world: World, value: GroupSettingValue): ReadonlyArray<UserId> => {
  const members = modelMembers(world)
  if (isNamed(value)) return sorted(members.get(value) ?? [])
  const result = new Set(value.direct_members.filter((u) => isActiveIn(world, u)))
  for (const g of value.direct_subgroups) for (const u of members.get(g) ?? []) result.add(u)
  return sorted(result)
}

const sorted = <A extends number>(values: Iterable<A>): Array<A> => Array.from(values).sort((a, b) => a - b)

const isSubset = <A>(small: ReadonlyArray<A>, large: ReadonlyArray<A>): boolean =>
  small.every((x) => large.includes(x))

const assertSortedUnique = (values: ReadonlyArray<number>): void => {
  for (let i = 1; i < values.length; i++) assert.isTrue(values[i - 1]! < values[i]!, `not sorted: ${values}`)
}

// Scrambles an anonymous value without changing what it means: reversed
// order and duplicated entries.
const scramble = (value: GroupSettingValue): GroupSettingValue =>
  isNamed(value) ? { direct_members: [], direct_subgroups: [value, value] } : {
    direct_members: [...value.direct_members].reverse().concat(value.direct_members.slice(0, 1)),
    direct_subgroups: [...value.direct_subgroups].reverse().concat(value.direct_subgroups.slice(0, 1))
  }

const RUNS = 300
const runs = propertyOptions(RUNS)

// Independent reference for `equivalent`: a value is the set of users it
// names directly plus the set of groups it names (a named group is the
// anonymous value with that one subgroup); two values are equivalent when
// both sets are equal. No sorting, no canonical form.
const asSets = (value: GroupSettingValue) =>
  isNamed(value)
    ? { members: new Set<number>(), groups: new Set<number>([value]) }
    : { members: new Set<number>(value.direct_members), groups: new Set<number>(value.direct_subgroups) }
const sameSet = (a: ReadonlySet<number>, b: ReadonlySet<number>) => a.size === b.size && [...a].every((x) => b.has(x))
const referenceEquivalent = (a: GroupSettingValue, b: GroupSettingValue): boolean => {
  const x = asSets(a)
  const y = asSets(b)
  return sameSet(x.members, y.members) && sameSet(x.groups, y.groups)
}

// A value and a rewriting of it that means the same: entries shuffled and
// some repeated, a named group spelled as an anonymous value and back.
const shuffled = <A>(values: ReadonlyArray<A>, keys: ReadonlyArray<number>): Array<A> =>
  values.map((v, i) => [v, keys[i % Math.max(1, keys.length)] ?? 0, i] as const)
    .sort((x, y) => x[1] - y[1] || x[2] - y[2])
    .map(([v]) => v)
const rewritten = (value: GroupSettingValue, keys: ReadonlyArray<number>, repeat: number, spell: boolean): GroupSettingValue => {
  const { groups, members } = asSets(value)
  if (spell && members.size === 0 && groups.size === 1) {
    const only = [...groups][0]!
    return isNamed(value) ? { direct_members: [], direct_subgroups: Array(repeat + 1).fill(only) } : groupId(only)
  }
  const ms = isNamed(value) ? [] : value.direct_members
  const gs = isNamed(value) ? [value] : value.direct_subgroups
  return {
    direct_members: shuffled([...ms, ...ms.slice(0, repeat)], keys),
    direct_subgroups: shuffled([...gs, ...gs.slice(0, repeat)], keys)
  }
}
const equivalentPairArb = Arbitrary.all({
  a: valueArb,
  keys: Arbitrary.array(intBetween(0, 100), { minLength: 1, maxLength: 12 }),
  repeat: intBetween(0, 3),
  spell: bool
}).pipe(Arbitrary.map(({ a, keys, repeat, spell }) => ({ a, b: rewritten(a, keys, repeat, spell) })))

// Half the pairs equivalent by construction, half drawn independently
// (mostly not equivalent), so both answers are checked often.
const pairArb = bool.pipe(Arbitrary.flatMap((related) =>
  related ? equivalentPairArb : Arbitrary.all({ a: valueArb, b: valueArb })
))

describe("GroupMembership properties", () => {
  it.prop("recursive members match a fixpoint model, cycles included", { world: worldArb }, ({ world }) => {
    const index = indexOf(world)
    const model = modelMembers(world)
    for (const g of allGroupIds) {
      const members = index.recursiveMembers(g)
      assertSortedUnique(members)
      assert.deepStrictEqual(members, sorted(model.get(g) ?? []))
    }
  }, runs)

  it.prop("isMember and membershipGroups agree with recursiveMembers", { world: worldArb }, ({ world }) => {
    const index = indexOf(world)
    for (const u of allUserIds) {
      const groups = index.membershipGroups(u)
      assertSortedUnique(groups)
      for (const g of allGroupIds) {
        const inMembers = index.recursiveMembers(g).includes(u)
        assert.strictEqual(index.isMember(u, g), inMembers)
        assert.strictEqual(groups.includes(g), inMembers)
      }
    }
  }, runs)

  it.prop("a subgroup's members are members of its supergroup", { world: worldArb }, ({ world }) => {
    const index = indexOf(world)
    for (const sup of knownGroupIds) {
      for (const sub of index.recursiveSubgroups(sup)) {
        assert.isTrue(isSubset(index.recursiveMembers(sub), index.recursiveMembers(sup)), `${sub} ⊄ ${sup}`)
      }
    }
  }, runs)

  it.prop(
    "adding a membership or subgroup edge never removes a member",
    { world: worldArb, addSubgroup: bool, group: groupIdArb, other: intBetween(1, USERS + 1) },
    ({ addSubgroup, group, other, world }) => {
      const grown: World = addSubgroup
        ? { ...world, subgroupEdges: [...world.subgroupEdges, [group, groupId(Math.min(other, GROUPS + 1))]] }
        : { ...world, memberEdges: [...world.memberEdges, [group, userId(other)]] }
      const before = indexOf(world)
      const after = indexOf(grown)
      for (const g of allGroupIds) {
        assert.isTrue(isSubset(before.recursiveMembers(g), after.recursiveMembers(g)))
      }
    },
    runs
  )

  it.prop("deactivated and unknown users are never members of anything", {
    world: worldArb,
    value: valueArb
  }, ({ value, world }) => {
    const index = indexOf(world)
    const inactive = allUserIds.filter((u) => !isActiveIn(world, u))
    for (const u of inactive) {
      assert.isFalse(index.isActiveUser(u))
      assert.isFalse(index.isMemberOfValue(u, value))
      assert.isFalse(index.recursiveMembersOfValue(value).includes(u))
      assert.deepStrictEqual(index.membershipGroups(u), [])
      for (const g of allGroupIds) {
        assert.isFalse(index.isMember(u, g))
        assert.isFalse(index.directMembers(g).includes(u))
      }
    }
  }, runs)

  it.prop("deactivating groups changes no membership (Zulip counts them)", { world: worldArb }, ({ world }) => {
    const flipped: World = { ...world, deactivatedGroups: world.deactivatedGroups.map((d) => !d) }
    const a = indexOf(world)
    const b = indexOf(flipped)
    for (const g of allGroupIds) assert.deepStrictEqual(a.recursiveMembers(g), b.recursiveMembers(g))
  }, runs)

  it.prop("values resolve like the model, and isMemberOfValue agrees", {
    world: worldArb,
    value: valueArb
  }, ({ value, world }) => {
    const index = indexOf(world)
    const members = index.recursiveMembersOfValue(value)
    assertSortedUnique(members)
    assert.deepStrictEqual(members, modelMembersOfValue(world, value))
    for (const u of allUserIds) assert.strictEqual(index.isMemberOfValue(u, value), members.includes(u))
  }, runs)

  it.prop("normalize is idempotent", { value: valueArb }, ({ value }) => {
    const once = normalize(value)
    assert.deepStrictEqual(normalize(once), once)
  }, runs)

  it.prop("normalize preserves the recursive member set", { world: worldArb, value: valueArb }, ({ value, world }) => {
    const index = indexOf(world)
    assert.deepStrictEqual(index.recursiveMembersOfValue(normalize(value)), index.recursiveMembersOfValue(value))
  }, runs)

  it.effect("equivalent agrees with comparing the sets a value names, and is symmetric", () =>
    checkReaching(pairArb, { runs: RUNS, minimum: { equivalent: RUNS / 4, different: RUNS / 4 } }, ({ a, b }) => {
      const expected = referenceEquivalent(a, b)
      assert.strictEqual(equivalent(a, b), expected)
      assert.strictEqual(equivalent(b, a), expected)
      assert.isTrue(equivalent(a, a))
      assert.isTrue(equivalent(a, normalize(a)))
      return expected ? "equivalent" : "different"
    }))

  it.prop("reordering and duplicating entries gives an equivalent value with the same members", {
    world: worldArb,
    value: valueArb
  }, ({ value, world }) => {
    const index = indexOf(world)
    const other = scramble(value)
    assert.isTrue(equivalent(value, other))
    assert.deepStrictEqual(index.recursiveMembersOfValue(other), index.recursiveMembersOfValue(value))
  }, runs)

  it.effect("equivalent values have the same members", () =>
    checkReaching(
      Arbitrary.all({ world: worldArb, pair: equivalentPairArb }),
      { runs: RUNS, minimum: { "named": 20, "anonymous": RUNS / 4 } },
      ({ pair: { a, b }, world }) => {
        assert.isTrue(equivalent(a, b))
        const index = indexOf(world)
        assert.deepStrictEqual(index.recursiveMembersOfValue(a), index.recursiveMembersOfValue(b))
        return isNamed(a) ? "named" : "anonymous"
      }
    ))
})

// ---------------------------------------------------------------------------
// Examples

const u = userId
const g = groupId

const edges = (
  members: ReadonlyArray<readonly [number, ReadonlyArray<number>]>,
  subgroups: ReadonlyArray<readonly [number, ReadonlyArray<number>]>
): GroupMembership => ({
  members: new Map(members.map(([group, users]) => [g(group), new Set(users.map(u))])),
  subgroups: new Map(subgroups.map(([group, subs]) => [g(group), new Set(subs.map(g))]))
})

const activeUsers = (...inactive: ReadonlyArray<number>) => (id: UserId) =>
  id >= 1 && id <= 20 ? { is_active: !inactive.includes(id) } : undefined

const groupRefs = (ids: ReadonlyArray<number>, deactivated: ReadonlyArray<number> = []): ReadonlyArray<GroupRef> =>
  ids.map((id) => ({ id: g(id), deactivated: deactivated.includes(id) }))

describe("GroupMembership examples", () => {
  // System groups as Zulip creates them: 1 nobody, 2 owners, 3 administrators,
  // 4 moderators, 5 full members, 6 members, 7 everyone, each (from 3 on)
  // with the previous one as its only subgroup. Users 1 owner, 2 admin,
  // 3 moderator, 4 full member, 5 new member, 6 guest.
  const system = makeGroupIndex(
    groupRefs([1, 2, 3, 4, 5, 6, 7]),
    edges(
      [[2, [1]], [3, [2]], [4, [3]], [5, [4]], [6, [4, 5]], [7, [6]]],
      [[3, [2]], [4, [3]], [5, [4]], [6, [5]], [7, [6]]]
    ),
    activeUsers()
  )

  it("resolves the role hierarchy of system groups", () => {
    assert.deepStrictEqual(system.recursiveMembers(g(1)), [])
    assert.deepStrictEqual(system.recursiveMembers(g(2)), [u(1)])
    assert.deepStrictEqual(system.recursiveMembers(g(3)), [u(1), u(2)])
    assert.deepStrictEqual(system.recursiveMembers(g(4)), [u(1), u(2), u(3)])
    assert.deepStrictEqual(system.recursiveMembers(g(5)), [u(1), u(2), u(3), u(4)])
    assert.deepStrictEqual(system.recursiveMembers(g(6)), [u(1), u(2), u(3), u(4), u(5)])
    assert.deepStrictEqual(system.recursiveMembers(g(7)), [u(1), u(2), u(3), u(4), u(5), u(6)])
    assert.deepStrictEqual(system.membershipGroups(u(6)), [g(7)])
    assert.deepStrictEqual(system.membershipGroups(u(1)), [g(2), g(3), g(4), g(5), g(6), g(7)])
    assert.deepStrictEqual(system.recursiveSubgroups(g(5)), [g(2), g(3), g(4), g(5)])
  })

  it("equivalence, stated by hand", () => {
    assert.isTrue(equivalent(g(3), { direct_members: [], direct_subgroups: [g(3)] }))
    assert.isTrue(equivalent(g(3), { direct_members: [], direct_subgroups: [g(3), g(3)] }))
    assert.isTrue(equivalent({ direct_members: [u(1), u(2)], direct_subgroups: [g(3)] }, {
      direct_members: [u(2), u(1), u(1)],
      direct_subgroups: [g(3), g(3)]
    }))
    assert.isTrue(equivalent({ direct_members: [], direct_subgroups: [] }, { direct_members: [], direct_subgroups: [] }))
    assert.isFalse(equivalent(g(3), g(4)))
    assert.isFalse(equivalent(g(3), { direct_members: [], direct_subgroups: [g(3), g(4)] }))
    assert.isFalse(equivalent(g(3), { direct_members: [u(1)], direct_subgroups: [g(3)] }))
    // A user and a group with the same number are different things.
    assert.isFalse(equivalent({ direct_members: [u(1)], direct_subgroups: [] }, { direct_members: [], direct_subgroups: [g(1)] }))
    assert.isFalse(equivalent({ direct_members: [u(1)], direct_subgroups: [] }, { direct_members: [u(1), u(2)], direct_subgroups: [] }))
    assert.deepStrictEqual(normalize({ direct_members: [], direct_subgroups: [g(5), g(5)] }), g(5))
    assert.deepStrictEqual(normalize({ direct_members: [u(2), u(1), u(2)], direct_subgroups: [g(4), g(3)] }), {
      direct_members: [u(1), u(2)],
      direct_subgroups: [g(3), g(4)]
    })
  })

  it("resolves anonymous values through their subgroups", () => {
    const value = { direct_members: [u(6)], direct_subgroups: [g(3)] }
    assert.deepStrictEqual(system.recursiveMembersOfValue(value), [u(1), u(2), u(6)])
    assert.isTrue(system.isMemberOfValue(u(1), value))
    assert.isFalse(system.isMemberOfValue(u(3), value))
    assert.isTrue(membershipCheck(system, u(6))(value))
  })

  it("terminates on cycles and gives every group of the cycle all its members", () => {
    const index = makeGroupIndex(
      groupRefs([1, 2, 3]),
      edges([[1, [1]], [2, [2]], [3, [3]]], [[1, [2]], [2, [3]], [3, [1, 3]]]),
      activeUsers()
    )
    for (const id of [1, 2, 3]) assert.deepStrictEqual(index.recursiveMembers(g(id)), [u(1), u(2), u(3)])
    assert.deepStrictEqual(index.recursiveSubgroups(g(2)), [g(1), g(2), g(3)])
  })

  it("ignores deactivated users, even as direct members", () => {
    const index = makeGroupIndex(groupRefs([1]), edges([[1, [1, 2]]], []), activeUsers(2))
    assert.deepStrictEqual(index.directMembers(g(1)), [u(1)])
    const value = { direct_members: [u(2), u(1)], direct_subgroups: [] }
    assert.deepStrictEqual(index.recursiveMembersOfValue(value), [u(1)])
    assert.isFalse(index.isMemberOfValue(u(2), { direct_members: [u(2)], direct_subgroups: [] }))
  })

  it("keeps counting the members of a deactivated subgroup, as Zulip does", () => {
    const index = makeGroupIndex(groupRefs([1, 2], [2]), edges([[2, [5]]], [[1, [2]]]), activeUsers())
    assert.isTrue(index.isDeactivated(g(2)))
    assert.deepStrictEqual(index.recursiveMembers(g(1)), [u(5)])
    assert.deepStrictEqual(index.recursiveMembers(g(2)), [u(5)])
  })

  it("ignores groups outside the organization", () => {
    const index = makeGroupIndex(groupRefs([1]), edges([[1, [1]], [9, [2]]], [[1, [9]], [9, [1]]]), activeUsers())
    assert.isFalse(index.hasGroup(g(9)))
    assert.deepStrictEqual(index.recursiveMembers(g(1)), [u(1)])
    assert.deepStrictEqual(index.recursiveMembers(g(9)), [])
    assert.deepStrictEqual(index.directSubgroups(g(1)), [])
    assert.deepStrictEqual(index.recursiveMembersOfValue({ direct_members: [], direct_subgroups: [g(9)] }), [])
  })

  it("excludes guests from settings that do not allow role:everyone", () => {
    const guest = { id: u(6), role: Roles.guest, is_active: true }
    const member = { id: u(5), role: Roles.member, is_active: true }
    const everyone = g(7)
    const namingTheGuest = { direct_members: [u(6)], direct_subgroups: [] }
    assert.isTrue(hasGroupPermission(system, guest, everyone, { allowEveryoneGroup: true }))
    assert.isFalse(hasGroupPermission(system, guest, everyone, { allowEveryoneGroup: false }))
    assert.isFalse(hasGroupPermission(system, guest, namingTheGuest, { allowEveryoneGroup: false }))
    assert.isTrue(hasGroupPermission(system, member, everyone, { allowEveryoneGroup: false }))
    assert.isFalse(hasGroupPermission(system, { ...member, is_active: false }, everyone, { allowEveryoneGroup: true }))
  })
})
