/**
 * Recursive user-group membership as pure functions over an in-memory index.
 *
 * A user belongs to a group when they are an active direct member of it or of
 * any group reachable through its subgroups. Group-setting values (a named
 * group id, or an anonymous `{direct_members, direct_subgroups}`) are resolved
 * the same way. {@link makeGroupIndex} takes one organization's groups, their
 * direct membership edges and a user lookup, and answers repeated questions
 * cheaply: each group's recursive member set is computed once, on first use.
 *
 * Rules, following Zulip (`zerver/lib/user_groups.py`):
 *
 * - Deactivated users never count, not even as direct members of a group or
 *   of an anonymous value. Zulip keeps their membership rows (so reactivation
 *   restores them) but every member query filters on `is_active`. Users the
 *   lookup does not know are treated the same way.
 * - Deactivated groups still count. Zulip's recursive subgroup query does not
 *   look at `deactivated`, so the members of a deactivated subgroup remain
 *   members of its supergroups, and a value naming a deactivated group still
 *   resolves to its members. Deactivation only stops a group from being newly
 *   used (as a subgroup or a setting value); that is checked where values are
 *   set, not here.
 * - Only groups in the given list take part. An edge to or from an id that is
 *   not one of the organization's groups is ignored, so a value can never pull
 *   in members through a group of another organization.
 * - Zulip refuses to create subgroup cycles, but the traversal does not rely
 *   on that: it tracks visited groups and terminates on any graph.
 *
 * Role restrictions (guests excluded from settings that do not allow the
 * `role:everyone` group) are not membership: see {@link hasGroupPermission}.
 *
 * @since 0.1.0
 */
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import { isNamed } from "../domain/GroupSetting.ts"
import type { GroupId, UserId } from "../domain/Ids.ts"
import { isGuest } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import type { GroupIndex, GroupMembership, UserGroup } from "../domain/UserGroup.ts"

/** Defined in the domain (`domain/UserGroup.ts`), where the organization's access read names it. @category models */
export type { GroupIndex }

/**
 * Finds a user by id. Only `is_active` is consulted, so a full `User` works.
 *
 * @category models
 * @since 0.1.0
 */
export type UserLookup = (id: UserId) => Pick<User, "is_active"> | undefined

/**
 * What the index needs to know about a group.
 *
 * @category models
 * @since 0.1.0
 */
export type GroupRef = Pick<UserGroup, "id" | "deactivated">

/**
 * Answers "is this user in this group / this group-setting value" for one user.
 * The channel rules take one of these so they stay independent of the index.
 *
 * @category models
 * @since 0.1.0
 */
export type MembershipCheck = (value: GroupSettingValue) => boolean


const ascending = (a: number, b: number): number => a - b

const sortedUnique = <A extends number>(values: Iterable<A>): ReadonlyArray<A> =>
  Array.from(new Set(values)).sort(ascending)

const emptySet: ReadonlySet<never> = new Set()

/**
 * Builds the index. Inputs are only read; later changes to them are not seen
 * by lookups already cached, so build a new index after every change.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeGroupIndex = (
  groups: ReadonlyArray<GroupRef>,
  membership: GroupMembership,
  users: UserLookup
): GroupIndex => {
  const byId = new Map<GroupId, GroupRef>()
  for (const group of groups) byId.set(group.id, group)

  const hasGroup = (groupId: GroupId): boolean => byId.has(groupId)
  const isActiveUser = (userId: UserId): boolean => users(userId)?.is_active === true

  const directMembers = (groupId: GroupId): ReadonlyArray<UserId> =>
    hasGroup(groupId)
      ? sortedUnique(Array.from(membership.members.get(groupId) ?? emptySet).filter(isActiveUser))
      : []

  const directSubgroups = (groupId: GroupId): ReadonlyArray<GroupId> =>
    hasGroup(groupId)
      ? sortedUnique(Array.from(membership.subgroups.get(groupId) ?? emptySet).filter(hasGroup))
      : []

  // Caches are private and only ever filled with values derived from the
  // inputs, so every function of the index stays referentially transparent.
  const closureCache = new Map<GroupId, ReadonlyArray<GroupId>>()
  const recursiveSubgroups = (groupId: GroupId): ReadonlyArray<GroupId> => {
    const cached = closureCache.get(groupId)
    if (cached !== undefined) return cached
    const seen = new Set<GroupId>()
    if (hasGroup(groupId)) {
      // Iterative depth-first walk; `seen` makes cycles harmless.
      const stack: Array<GroupId> = [groupId]
      while (stack.length > 0) {
        const current = stack.pop()!
        if (seen.has(current)) continue
        seen.add(current)
        for (const sub of membership.subgroups.get(current) ?? emptySet) {
          if (hasGroup(sub) && !seen.has(sub)) stack.push(sub)
        }
      }
    }
    const result = sortedUnique(seen)
    closureCache.set(groupId, result)
    return result
  }

  const memberSetCache = new Map<GroupId, ReadonlySet<UserId>>()
  const memberSet = (groupId: GroupId): ReadonlySet<UserId> => {
    const cached = memberSetCache.get(groupId)
    if (cached !== undefined) return cached
    const result = new Set<UserId>()
    for (const group of recursiveSubgroups(groupId)) {
      for (const userId of membership.members.get(group) ?? emptySet) {
        if (isActiveUser(userId)) result.add(userId)
      }
    }
    memberSetCache.set(groupId, result)
    return result
  }

  const membersCache = new Map<GroupId, ReadonlyArray<UserId>>()
  const recursiveMembers = (groupId: GroupId): ReadonlyArray<UserId> => {
    const cached = membersCache.get(groupId)
    if (cached !== undefined) return cached
    const result = sortedUnique(memberSet(groupId))
    membersCache.set(groupId, result)
    return result
  }

  const isMember = (userId: UserId, groupId: GroupId): boolean => memberSet(groupId).has(userId)

  const isMemberOfValue = (userId: UserId, value: GroupSettingValue): boolean => {
    if (isNamed(value)) return isMember(userId, value)
    if (!isActiveUser(userId)) return false
    return value.direct_members.includes(userId) ||
      value.direct_subgroups.some((groupId) => isMember(userId, groupId))
  }

  const recursiveMembersOfValue = (value: GroupSettingValue): ReadonlyArray<UserId> => {
    if (isNamed(value)) return recursiveMembers(value)
    const result = new Set<UserId>(value.direct_members.filter(isActiveUser))
    for (const groupId of value.direct_subgroups) {
      for (const userId of memberSet(groupId)) result.add(userId)
    }
    return sortedUnique(result)
  }

  const membershipGroups = (userId: UserId): ReadonlyArray<GroupId> =>
    isActiveUser(userId) ? sortedUnique(Array.from(byId.keys()).filter((groupId) => isMember(userId, groupId))) : []

  return {
    hasGroup,
    isDeactivated: (groupId) => byId.get(groupId)?.deactivated === true,
    isActiveUser,
    directMembers,
    directSubgroups,
    recursiveSubgroups,
    recursiveMembers,
    recursiveMembersOfValue,
    isMember,
    isMemberOfValue,
    membershipGroups
  }
}

/**
 * The membership check of one user, for the channel rules.
 *
 * @category constructors
 * @since 0.1.0
 */
export const membershipCheck = (index: GroupIndex, userId: UserId): MembershipCheck => (value) =>
  index.isMemberOfValue(userId, value)

/**
 * Whether a user holds a group-based permission. Zulip's
 * `user_has_permission_for_group_setting`: settings that may not be set to
 * `role:everyone` (`allowEveryoneGroup: false`) never grant anything to
 * guests, even when a guest is listed in the value directly.
 *
 * @category predicates
 * @since 0.1.0
 */
export const hasGroupPermission = (
  index: GroupIndex,
  user: Pick<User, "id" | "role" | "is_active">,
  value: GroupSettingValue,
  options: { readonly allowEveryoneGroup: boolean }
): boolean => {
  if (!user.is_active) return false
  if (!options.allowEveryoneGroup && isGuest(user.role)) return false
  return index.isMemberOfValue(user.id, value)
}
