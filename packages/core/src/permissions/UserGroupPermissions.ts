/**
 * The rules of user groups as pure functions: who may create, manage and
 * change the membership of a group, which values each group setting
 * accepts, and where a group is still in use (what stops its deactivation).
 *
 * Every "is user U allowed by setting S" question goes through
 * {@link hasGroupPermission} over one organization's {@link GroupIndex}, the
 * same code the channel and organization permissions use. Following Zulip
 * (`zerver/lib/user_groups.py`, `zerver/models/groups.py`).
 *
 * @since 0.1.0
 */
import type { Channel } from "../domain/Channel.ts"
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import { isNamed } from "../domain/GroupSetting.ts"
import type { GroupId, UserId } from "../domain/Ids.ts"
import type { Realm } from "../domain/Realm.ts"
import type { User } from "../domain/User.ts"
import type { GroupPermissionSettings, SystemGroupName, UserGroup } from "../domain/UserGroup.ts"
import type { GroupObjection } from "../errors/UserGroupErrors.ts"
import type { GroupIndex } from "./GroupMembership.ts"
import { hasGroupPermission } from "./GroupMembership.ts"

/**
 * The names of a group's permission settings, in Zulip's order (requests are
 * checked, and changes announced, in this order).
 *
 * @category constants
 * @since 0.1.0
 */
export const GroupSettingNames = [
  "can_add_members_group",
  "can_join_group",
  "can_leave_group",
  "can_manage_group",
  "can_mention_group",
  "can_remove_members_group"
] as const satisfies ReadonlyArray<keyof GroupPermissionSettings>

/** @category models */
export type GroupSettingName = typeof GroupSettingNames[number]

/**
 * Which system groups a setting accepts as its value (Zulip's
 * `GroupPermissionSetting`); `role:nobody` is accepted by every one.
 *
 * @category models
 * @since 0.1.0
 */
export interface SettingRule {
  readonly allowInternet: boolean
  readonly allowEveryone: boolean
  readonly allowOwners: boolean
  /** The value of a new group: a system group, or the creator alone. */
  readonly default: SystemGroupName | "creator"
}

/**
 * Each group setting's rule. `allowEveryone` is also what decides whether a
 * guest can hold the permission at all (see {@link hasGroupPermission}).
 *
 * @category constants
 * @since 0.1.0
 */
export const GroupSettingRules: Readonly<Record<GroupSettingName, SettingRule>> = {
  can_add_members_group: { allowInternet: false, allowEveryone: false, allowOwners: true, default: "creator" },
  can_join_group: { allowInternet: false, allowEveryone: false, allowOwners: true, default: "role:nobody" },
  can_leave_group: { allowInternet: false, allowEveryone: true, allowOwners: true, default: "role:everyone" },
  can_manage_group: { allowInternet: false, allowEveryone: false, allowOwners: true, default: "creator" },
  can_mention_group: { allowInternet: false, allowEveryone: true, allowOwners: false, default: "role:everyone" },
  can_remove_members_group: { allowInternet: false, allowEveryone: false, allowOwners: true, default: "role:nobody" }
}

/**
 * Why a named system group may not be a setting's value, if it may not.
 *
 * @category predicates
 * @since 0.1.0
 */
export const systemGroupRefusal = (
  rule: SettingRule,
  systemName: string | undefined
): "role:internet" | "role:everyone" | "role:owners" | undefined => {
  if (systemName === "role:internet" && !rule.allowInternet) return "role:internet"
  if (systemName === "role:everyone" && !rule.allowEveryone) return "role:everyone"
  if (systemName === "role:owners" && !rule.allowOwners) return "role:owners"
  return undefined
}

/**
 * The settings of a new group: the caller's values over the defaults.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultGroupSettings = (
  creator: UserId,
  systemGroups: Readonly<Record<SystemGroupName, GroupId>>,
  given: Partial<GroupPermissionSettings>
): GroupPermissionSettings => {
  const out: Partial<Record<GroupSettingName, GroupSettingValue>> = {}
  for (const name of GroupSettingNames) {
    const fallback = GroupSettingRules[name].default
    out[name] = given[name] ??
      (fallback === "creator" ? { direct_members: [creator], direct_subgroups: [] } : systemGroups[fallback])
  }
  return out as GroupPermissionSettings
}

/** The caller of a group rule. @category models */
export type Actor = Pick<User, "id" | "role" | "is_active">

/**
 * The organization's `can_create_groups`.
 *
 * @category predicates
 * @since 0.1.0
 */
export const canCreateGroups = (index: GroupIndex, realm: Realm, user: Actor): boolean =>
  hasGroupPermission(index, user, realm.settings.can_create_groups, { allowEveryoneGroup: false })

/**
 * Whether the user manages the group: the organization's
 * `can_manage_all_groups`, or the group's own `can_manage_group`. System
 * groups are never managed through the API (the caller refuses them first).
 *
 * @category predicates
 * @since 0.1.0
 */
export const canManageGroup = (index: GroupIndex, realm: Realm, user: Actor, group: UserGroup): boolean =>
  hasGroupPermission(index, user, realm.settings.can_manage_all_groups, { allowEveryoneGroup: false }) ||
  hasSetting(index, user, group, "can_manage_group")

const hasSetting = (index: GroupIndex, user: Actor, group: UserGroup, name: GroupSettingName): boolean =>
  hasGroupPermission(index, user, group.settings[name], { allowEveryoneGroup: GroupSettingRules[name].allowEveryone })

/**
 * Adding users: managers, `can_add_members_group`, and a user adding only
 * themselves through `can_join_group`.
 *
 * @category predicates
 * @since 0.1.0
 */
export const canAddMembers = (
  index: GroupIndex,
  realm: Realm,
  user: Actor,
  group: UserGroup,
  userIds: ReadonlyArray<number>
): boolean =>
  canManageGroup(index, realm, user, group) || hasSetting(index, user, group, "can_add_members_group") ||
  (onlySelf(user, userIds) && hasSetting(index, user, group, "can_join_group"))

/**
 * Removing users: managers, `can_remove_members_group`, and a user removing
 * only themselves through `can_leave_group`.
 *
 * @category predicates
 * @since 0.1.0
 */
export const canRemoveMembers = (
  index: GroupIndex,
  realm: Realm,
  user: Actor,
  group: UserGroup,
  userIds: ReadonlyArray<number>
): boolean =>
  canManageGroup(index, realm, user, group) || hasSetting(index, user, group, "can_remove_members_group") ||
  (onlySelf(user, userIds) && hasSetting(index, user, group, "can_leave_group"))

/**
 * Adding subgroups is adding members, removing them is removing members
 * (never through joining or leaving).
 *
 * @category predicates
 * @since 0.1.0
 */
export const canAddSubgroups = (index: GroupIndex, realm: Realm, user: Actor, group: UserGroup): boolean =>
  canManageGroup(index, realm, user, group) || hasSetting(index, user, group, "can_add_members_group")

/** @category predicates */
export const canRemoveSubgroups = (index: GroupIndex, realm: Realm, user: Actor, group: UserGroup): boolean =>
  canManageGroup(index, realm, user, group) || hasSetting(index, user, group, "can_remove_members_group")

const onlySelf = (user: Actor, userIds: ReadonlyArray<number>): boolean =>
  userIds.length > 0 && userIds.every((id) => id === user.id)

/**
 * Whether adding `subgroups` under `groupId` would close a cycle: the group
 * is already one of their recursive subgroups (itself included).
 *
 * @category predicates
 * @since 0.1.0
 */
export const wouldCycle = (index: GroupIndex, groupId: GroupId, subgroups: ReadonlyArray<GroupId>): boolean =>
  subgroups.some((sub) => index.recursiveSubgroups(sub).includes(groupId))

/** Whether a value names the group, directly or as a subgroup of an anonymous value. */
const uses = (value: GroupSettingValue, groupId: GroupId): boolean =>
  isNamed(value) ? value === groupId : value.direct_subgroups.includes(groupId)

const usingSettings = (settings: Readonly<Record<string, GroupSettingValue>>, groupId: GroupId): Array<string> =>
  Object.keys(settings).filter((name) => uses(settings[name]!, groupId)).sort()

const isGroupSetting = (entry: [string, unknown]): entry is [string, GroupSettingValue] =>
  entry[0].startsWith("can_") && (typeof entry[1] === "number" || (typeof entry[1] === "object" && entry[1] !== null))

/**
 * Where a group is still in use, as Zulip lists it when refusing its
 * deactivation: active named supergroups, channels that are not archived,
 * other active groups' settings, and the organization's settings. Empty when
 * the group may be deactivated.
 *
 * @category predicates
 * @since 0.1.0
 */
export const groupObjections = (
  groupId: GroupId,
  index: GroupIndex,
  groups: ReadonlyArray<UserGroup>,
  channels: ReadonlyArray<Channel>,
  realm: Realm
): ReadonlyArray<GroupObjection> => {
  const objections: Array<GroupObjection> = []
  const supergroups = groups
    .filter((g) => !g.deactivated && g.id !== groupId && index.directSubgroups(g.id).includes(groupId))
    .map((g) => g.id)
  if (supergroups.length > 0) objections.push({ type: "subgroup", supergroup_ids: supergroups })
  for (const channel of channels) {
    if (channel.is_archived) continue
    const settings = usingSettings(channel.settings, groupId)
    if (settings.length > 0) objections.push({ type: "channel", channel_id: channel.id, settings })
  }
  for (const group of groups) {
    if (group.deactivated || group.id === groupId) continue
    const settings = usingSettings(group.settings, groupId)
    if (settings.length > 0) objections.push({ type: "user_group", group_id: group.id, settings })
  }
  const realmSettings = Object.fromEntries(Object.entries(realm.settings).filter(isGroupSetting))
  const settings = usingSettings(realmSettings, groupId)
  if (settings.length > 0) objections.push({ type: "realm", settings })
  return objections
}
