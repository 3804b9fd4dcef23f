/**
 * User groups: named groups with members and subgroups, and the system groups
 * that mirror organization roles.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { GroupSettingValue } from "./GroupSetting.ts"
import { GroupId, RealmId, UserId } from "./Ids.ts"

/** The permission settings every group carries. @category models */
export const GroupPermissionSettings = Schema.Struct({
  can_add_members_group: GroupSettingValue,
  can_join_group: GroupSettingValue,
  can_leave_group: GroupSettingValue,
  can_manage_group: GroupSettingValue,
  can_mention_group: GroupSettingValue,
  can_remove_members_group: GroupSettingValue
})
/** @category models */
export type GroupPermissionSettings = typeof GroupPermissionSettings.Type

/** @category models */
export const UserGroup = Schema.Struct({
  id: GroupId,
  realm_id: RealmId,
  name: Schema.String,
  description: Schema.String,
  is_system_group: Schema.Boolean,
  creator_id: Schema.NullOr(UserId),
  /** Milliseconds since the epoch; null for system groups. */
  date_created: Schema.NullOr(Schema.Int),
  deactivated: Schema.Boolean,
  settings: GroupPermissionSettings
})
/** @category models */
export type UserGroup = typeof UserGroup.Type

/** Direct membership edges of the groups of one organization. @category models */
export interface GroupMembership {
  readonly members: ReadonlyMap<GroupId, ReadonlySet<UserId>>
  readonly subgroups: ReadonlyMap<GroupId, ReadonlySet<GroupId>>
}

/**
 * Read-only view of one organization's groups with cached recursive lookups.
 * All id lists are sorted ascending without duplicates.
 *
 * @category models
 * @since 0.1.0
 */
export interface GroupIndex {
  /** Whether the id is one of the organization's groups (deactivated or not). */
  readonly hasGroup: (groupId: GroupId) => boolean
  /** Whether the group exists and is deactivated. */
  readonly isDeactivated: (groupId: GroupId) => boolean
  /** Whether the lookup knows the user and the user is active. */
  readonly isActiveUser: (userId: UserId) => boolean
  /** Active direct members of a group. */
  readonly directMembers: (groupId: GroupId) => ReadonlyArray<UserId>
  /** Direct subgroups of a group that belong to the organization. */
  readonly directSubgroups: (groupId: GroupId) => ReadonlyArray<GroupId>
  /** The group and every group reachable through subgroup edges (empty for an unknown id). */
  readonly recursiveSubgroups: (groupId: GroupId) => ReadonlyArray<GroupId>
  /** Active users in the group or any of its recursive subgroups. */
  readonly recursiveMembers: (groupId: GroupId) => ReadonlyArray<UserId>
  /** Active users a group-setting value resolves to. */
  readonly recursiveMembersOfValue: (value: GroupSettingValue) => ReadonlyArray<UserId>
  /** Whether an active user belongs to the group, recursively. */
  readonly isMember: (userId: UserId, groupId: GroupId) => boolean
  /** Whether an active user belongs to the group-setting value, recursively. */
  readonly isMemberOfValue: (userId: UserId, value: GroupSettingValue) => boolean
  /** Every group the user belongs to, recursively (Zulip's `get_recursive_membership_groups`). */
  readonly membershipGroups: (userId: UserId) => ReadonlyArray<GroupId>
}

/**
 * System groups, in creation order (so ids ascend in this order). Each from
 * administrators on has the previous one as its only direct subgroup.
 *
 * @category constants
 */
export const SystemGroups = [
  { name: "role:nobody", description: "Nobody" },
  { name: "role:owners", description: "Owners of this organization" },
  { name: "role:administrators", description: "Administrators of this organization, including owners" },
  { name: "role:moderators", description: "Moderators of this organization, including administrators" },
  { name: "role:fullmembers", description: "Members of this organization, not including new accounts and guests" },
  { name: "role:members", description: "Members of this organization, not including guests" },
  { name: "role:everyone", description: "Everyone in this organization, including guests" },
  { name: "role:internet", description: "Everyone on the Internet" }
] as const

/** @category models */
export type SystemGroupName = typeof SystemGroups[number]["name"]

/** Each system group's id, by name. @category models */
export type SystemGroupIds = Readonly<Record<SystemGroupName, GroupId>>

/** The system groups' ids among an organization's groups (every organization has all of them). */
export const systemGroupIdsOf = (groups: ReadonlyArray<UserGroup>): SystemGroupIds => {
  const ids: Partial<Record<SystemGroupName, GroupId>> = {}
  for (const group of groups) if (group.is_system_group) ids[group.name as SystemGroupName] = group.id
  return ids as SystemGroupIds
}
