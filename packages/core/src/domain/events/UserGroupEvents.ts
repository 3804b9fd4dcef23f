/**
 * The events about user groups (`user_group`), to the whole organization:
 * a group created (or reactivated, for queues without
 * `include_deactivated_groups`), changed, deactivated, and its members and
 * subgroups.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { GroupSettingValue } from "../GroupSetting.ts"

/** A user group as GET /user_groups lists it. @category schemas */
export const EventUserGroup = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  description: Schema.String,
  /** Active direct members, ascending. */
  members: Schema.Array(Schema.Int),
  direct_subgroup_ids: Schema.Array(Schema.Int),
  creator_id: Schema.NullOr(Schema.Int),
  /** Seconds; null for system groups. */
  date_created: Schema.NullOr(Schema.Int),
  is_system_group: Schema.Boolean,
  can_add_members_group: GroupSettingValue,
  can_join_group: GroupSettingValue,
  can_leave_group: GroupSettingValue,
  can_manage_group: GroupSettingValue,
  can_mention_group: GroupSettingValue,
  can_remove_members_group: GroupSettingValue,
  deactivated: Schema.Boolean
})
/** @category models */
export type EventUserGroup = typeof EventUserGroup.Type

/** @category schemas */
export const UserGroupAddEvent = Schema.Struct({
  type: Schema.Literal("user_group"),
  op: Schema.Literal("add"),
  group: EventUserGroup
})

/** What one `user_group update` changes (one field per event). @category schemas */
export const UserGroupUpdateData = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  can_add_members_group: Schema.optionalKey(GroupSettingValue),
  can_join_group: Schema.optionalKey(GroupSettingValue),
  can_leave_group: Schema.optionalKey(GroupSettingValue),
  can_manage_group: Schema.optionalKey(GroupSettingValue),
  can_mention_group: Schema.optionalKey(GroupSettingValue),
  can_remove_members_group: Schema.optionalKey(GroupSettingValue),
  deactivated: Schema.optionalKey(Schema.Boolean)
})
/** @category models */
export type UserGroupUpdateData = typeof UserGroupUpdateData.Type

/** @category schemas */
export const UserGroupUpdateEvent = Schema.Struct({
  type: Schema.Literal("user_group"),
  op: Schema.Literal("update"),
  group_id: Schema.Int,
  data: UserGroupUpdateData
})

/** @category schemas */
export const UserGroupAddMembersEvent = Schema.Struct({
  type: Schema.Literal("user_group"),
  op: Schema.Literal("add_members"),
  group_id: Schema.Int,
  user_ids: Schema.Array(Schema.Int)
})

/** @category schemas */
export const UserGroupRemoveMembersEvent = Schema.Struct({
  type: Schema.Literal("user_group"),
  op: Schema.Literal("remove_members"),
  group_id: Schema.Int,
  user_ids: Schema.Array(Schema.Int)
})

/** @category schemas */
export const UserGroupAddSubgroupsEvent = Schema.Struct({
  type: Schema.Literal("user_group"),
  op: Schema.Literal("add_subgroups"),
  group_id: Schema.Int,
  direct_subgroup_ids: Schema.Array(Schema.Int)
})

/** @category schemas */
export const UserGroupRemoveSubgroupsEvent = Schema.Struct({
  type: Schema.Literal("user_group"),
  op: Schema.Literal("remove_subgroups"),
  group_id: Schema.Int,
  direct_subgroup_ids: Schema.Array(Schema.Int)
})

/** A deactivated group, for queues without `include_deactivated_groups`. @category schemas */
export const UserGroupRemoveEvent = Schema.Struct({
  type: Schema.Literal("user_group"),
  op: Schema.Literal("remove"),
  group_id: Schema.Int
})
