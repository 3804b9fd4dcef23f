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
