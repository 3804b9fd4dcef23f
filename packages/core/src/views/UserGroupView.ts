/**
 * A user group as the API shows it (GET /user_groups, `realm_user_groups`
 * in POST /register, the `user_group` `add` event).
 *
 * @since 0.1.0
 */
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import type { GroupId, UserId } from "../domain/Ids.ts"
import type { UserGroup } from "../domain/UserGroup.ts"
import type { GroupIndex } from "../permissions/GroupMembership.ts"

/** @category models */
export interface ApiUserGroup {
  readonly id: GroupId
  readonly name: string
  readonly description: string
  /** Active direct members, ascending. */
  readonly members: ReadonlyArray<UserId>
  readonly direct_subgroup_ids: ReadonlyArray<GroupId>
  readonly creator_id: UserId | null
  /** Seconds since the epoch; null for system groups. */
  readonly date_created: number | null
  readonly is_system_group: boolean
  readonly can_add_members_group: GroupSettingValue
  readonly can_join_group: GroupSettingValue
  readonly can_leave_group: GroupSettingValue
  readonly can_manage_group: GroupSettingValue
  readonly can_mention_group: GroupSettingValue
  readonly can_remove_members_group: GroupSettingValue
  readonly deactivated: boolean
}

/**
 * Zulip's `user_groups_in_realm_serialized` entry, keys in its order.
 *
 * @category views
 */
export const toApiUserGroup = (group: UserGroup, index: GroupIndex): ApiUserGroup =>
  toApiUserGroupWith(group, { members: index.directMembers(group.id), subgroups: index.directSubgroups(group.id) })

/**
 * `toApiUserGroup` from the group's direct members (active, ascending) and
 * direct subgroups (ascending) as given: a group just created, announced
 * from the values in hand.
 *
 * @category views
 */
export const toApiUserGroupWith = (
  group: UserGroup,
  direct: { readonly members: ReadonlyArray<UserId>; readonly subgroups: ReadonlyArray<GroupId> }
): ApiUserGroup => ({
  id: group.id,
  name: group.name,
  description: group.description,
  members: direct.members,
  direct_subgroup_ids: direct.subgroups,
  creator_id: group.creator_id,
  date_created: group.date_created === null ? null : Math.floor(group.date_created / 1000),
  is_system_group: group.is_system_group,
  ...group.settings,
  deactivated: group.deactivated
})
