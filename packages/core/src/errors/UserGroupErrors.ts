/**
 * Errors of user groups: names, members, subgroups, group settings and deactivation.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

/**
 * Unknown group id, or one the user cannot see.
 *
 * @category user groups
 * @since 0.1.0
 */
export class InvalidUserGroup extends ZulipError.make<InvalidUserGroup>()("InvalidUserGroup", {
  code: "BAD_REQUEST",
  message: "Invalid user group"
}) {}

/**
 * An unknown group in a subgroup list.
 *
 * @category user groups
 * @since 0.1.0
 */
export class InvalidSubgroupId extends ZulipError.make<InvalidSubgroupId>()("InvalidSubgroupId", {
  code: "BAD_REQUEST",
  params: { group_id: Schema.Int },
  message: ({ group_id }) => `Invalid user group ID: ${group_id}`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupNameEmpty extends ZulipError.make<UserGroupNameEmpty>()("UserGroupNameEmpty", {
  code: "BAD_REQUEST",
  message: "User group name can't be empty!"
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupNameTooLong extends ZulipError.make<UserGroupNameTooLong>()("UserGroupNameTooLong", {
  code: "BAD_REQUEST",
  message: "User group name cannot exceed 100 characters."
}) {}

/**
 * A name starting with `@`, `role:`, `user:`, `stream:` or `channel:`.
 *
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupNameReservedPrefix
  extends ZulipError.make<UserGroupNameReservedPrefix>()("UserGroupNameReservedPrefix", {
    code: "BAD_REQUEST",
    params: { prefix: Schema.String },
    message: ({ prefix }) => `User group name cannot start with '${prefix}'.`
  })
{}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupNameExists extends ZulipError.make<UserGroupNameExists>()("UserGroupNameExists", {
  code: "BAD_REQUEST",
  params: { name: Schema.String },
  message: ({ name }) => `User group '${name}' already exists.`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupDeactivated extends ZulipError.make<UserGroupDeactivated>()("UserGroupDeactivated", {
  code: "BAD_REQUEST",
  message: "User group is deactivated."
}) {}

/**
 * PATCH /user_groups/{id} with no parameter.
 *
 * @category user groups
 * @since 0.1.0
 */
export class NoNewData extends ZulipError.make<NoNewData>()("NoNewData", {
  code: "BAD_REQUEST",
  message: "No new data supplied"
}) {}

/**
 * A `{new, old}` group setting whose `old` differs from the current value
 * (`field_name` is then `"old"`).
 *
 * @category user groups
 * @since 0.1.0
 */
export class ExpectationMismatch extends ZulipError.make<ExpectationMismatch>()("ExpectationMismatch", {
  code: "EXPECTATION_MISMATCH",
  fields: { field_name: Schema.String },
  message: ({ field_name }) => `'${field_name}' value does not match the expected value.`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class GroupSettingCannotBeInternet
  extends ZulipError.make<GroupSettingCannotBeInternet>()("GroupSettingCannotBeInternet", {
    code: "BAD_REQUEST",
    params: { setting_name: Schema.String },
    message: ({ setting_name }) => `'${setting_name}' setting cannot be set to 'role:internet' group.`
  })
{}

/**
 * @category user groups
 * @since 0.1.0
 */
export class GroupSettingCannotBeEveryone
  extends ZulipError.make<GroupSettingCannotBeEveryone>()("GroupSettingCannotBeEveryone", {
    code: "BAD_REQUEST",
    params: { setting_name: Schema.String },
    message: ({ setting_name }) => `'${setting_name}' setting cannot be set to 'role:everyone' group.`
  })
{}

/**
 * @category user groups
 * @since 0.1.0
 */
export class GroupSettingCannotBeOwners
  extends ZulipError.make<GroupSettingCannotBeOwners>()("GroupSettingCannotBeOwners", {
    code: "BAD_REQUEST",
    params: { setting_name: Schema.String },
    message: ({ setting_name }) => `'${setting_name}' setting cannot be set to 'role:owners' group.`
  })
{}

/**
 * A setting that only accepts system groups.
 *
 * @category user groups
 * @since 0.1.0
 */
export class SystemGroupRequired extends ZulipError.make<SystemGroupRequired>()("SystemGroupRequired", {
  code: "SYSTEM_GROUP_REQUIRED",
  fields: { setting_name: Schema.String },
  message: ({ setting_name }) => `'${setting_name}' must be a system user group.`
}) {}

/**
 * POST /user_groups/{id}/members with nothing to add or remove.
 *
 * @category user groups
 * @since 0.1.0
 */
export class GroupMembersNothingToDo extends ZulipError.make<GroupMembersNothingToDo>()("GroupMembersNothingToDo", {
  code: "BAD_REQUEST",
  message: "Nothing to do. Specify at least one of \"add\", \"delete\", \"add_subgroups\" or \"delete_subgroups\"."
}) {}

/**
 * POST /user_groups/{id}/subgroups with nothing to add or remove.
 *
 * @category user groups
 * @since 0.1.0
 */
export class SubgroupsNothingToDo extends ZulipError.make<SubgroupsNothingToDo>()("SubgroupsNothingToDo", {
  code: "BAD_REQUEST",
  message: "Nothing to do. Specify at least one of \"add\" or \"delete\"."
}) {}

/**
 * Adding a subgroup that already contains the group (directly or through
 * its own subgroups) would make a cycle.
 *
 * @category user groups
 * @since 0.1.0
 */
export class SubgroupCycle extends ZulipError.make<SubgroupCycle>()("SubgroupCycle", {
  code: "BAD_REQUEST",
  params: { group_id: Schema.Int },
  message: ({ group_id }) => `User group ${group_id} is already a subgroup of one of the passed subgroups.`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserAlreadyGroupMember extends ZulipError.make<UserAlreadyGroupMember>()("UserAlreadyGroupMember", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `User ${user_id} is already a member of this group`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserNotGroupMember extends ZulipError.make<UserNotGroupMember>()("UserNotGroupMember", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `There is no member '${user_id}' in this user group`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class SubgroupAlreadyMember extends ZulipError.make<SubgroupAlreadyMember>()("SubgroupAlreadyMember", {
  code: "BAD_REQUEST",
  params: { group_id: Schema.Int },
  message: ({ group_id }) => `User group ${group_id} is already a subgroup of this group.`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class NotASubgroup extends ZulipError.make<NotASubgroup>()("NotASubgroup", {
  code: "BAD_REQUEST",
  params: { group_id: Schema.Int },
  message: ({ group_id }) => `User group ${group_id} is not a subgroup of this group.`
}) {}

/**
 * One place where a group is still in use, as listed by
 * {@link CannotDeactivateGroupInUse}.
 *
 * @category user groups
 * @since 0.1.0
 */
export const GroupObjection = Schema.Union([
  Schema.Struct({ type: Schema.Literal("subgroup"), supergroup_ids: Schema.Array(Schema.Int) }),
  Schema.Struct({ type: Schema.Literal("channel"), channel_id: Schema.Int, settings: Schema.Array(Schema.String) }),
  Schema.Struct({ type: Schema.Literal("user_group"), group_id: Schema.Int, settings: Schema.Array(Schema.String) }),
  Schema.Struct({ type: Schema.Literal("realm"), settings: Schema.Array(Schema.String) })
])

/**
 * @category user groups
 * @since 0.1.0
 */
export type GroupObjection = typeof GroupObjection.Type

/**
 * Deactivating a group that other groups, channels or the organization
 * still use.
 *
 * @category user groups
 * @since 0.1.0
 */
export class CannotDeactivateGroupInUse
  extends ZulipError.make<CannotDeactivateGroupInUse>()("CannotDeactivateGroupInUse", {
    code: "CANNOT_DEACTIVATE_GROUP_IN_USE",
    fields: { objections: Schema.Array(GroupObjection) },
    message: "Cannot deactivate user group in use."
  })
{}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const UserGroupErrors = [
  InvalidUserGroup,
  InvalidSubgroupId,
  UserGroupNameEmpty,
  UserGroupNameTooLong,
  UserGroupNameReservedPrefix,
  UserGroupNameExists,
  UserGroupDeactivated,
  NoNewData,
  ExpectationMismatch,
  GroupSettingCannotBeInternet,
  GroupSettingCannotBeEveryone,
  GroupSettingCannotBeOwners,
  SystemGroupRequired,
  GroupMembersNothingToDo,
  SubgroupsNothingToDo,
  SubgroupCycle,
  UserAlreadyGroupMember,
  UserNotGroupMember,
  SubgroupAlreadyMember,
  NotASubgroup,
  CannotDeactivateGroupInUse
] as const
