/**
 * The audit log (Zulip's RealmAuditLog): one row per change to an
 * organization's state, written in the change's own transaction, naming who
 * made it (`acting_user_id`, null for the operator's command line and the
 * system), what it changed (a user, a channel, a group, or the organization
 * itself when none is named), when (the Clock) and, in `extra_data`, the old
 * and new values (`old_value`, `new_value`, and `property` when the type
 * covers several).
 *
 * Event types are Zulip's `AuditLogEventType` names, lowercased, where Zulip
 * has one (Zulip stores their numbers; newer Zulip spells the channel ones
 * `channel_*`, with the same numbers); the custom profile field and
 * invitation types are teamchat's own, Zulip logs neither.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { AuditLogId, ChannelId, GroupId, RealmId, UserId } from "./Ids.ts"

export { AuditLogId } from "./Ids.ts"

/**
 * What teamchat logs today, by what changed. The `extra_data` of each is
 * described in docs/audit-log.md.
 *
 * @category models
 */
export const AuditLogEventTypes = [
  "realm_created",
  "user_created",
  "user_deactivated",
  "user_reactivated",
  "user_role_changed",
  "user_special_permission_changed",
  "user_password_changed",
  "user_full_name_changed",
  "user_email_changed",
  "user_api_key_changed",
  "user_setting_changed",
  "subscription_created",
  "subscription_activated",
  "subscription_deactivated",
  "subscription_property_changed",
  "stream_created",
  "stream_name_changed",
  "stream_property_changed",
  "user_group_created",
  "user_group_direct_user_membership_added",
  "user_group_direct_user_membership_removed",
  "user_group_direct_subgroup_membership_added",
  "user_group_direct_subgroup_membership_removed",
  "user_group_direct_supergroup_membership_added",
  "user_group_direct_supergroup_membership_removed",
  "user_group_name_changed",
  "user_group_description_changed",
  "user_group_group_based_setting_changed",
  "user_group_deactivated",
  "user_group_reactivated",
  "custom_profile_field_created",
  "custom_profile_field_properties_changed",
  "custom_profile_field_deleted",
  "custom_profile_fields_reordered",
  "invitation_created",
  "invitation_revoked"
] as const

/** @category models */
export const AuditLogEventType = Schema.Literals(AuditLogEventTypes)
/** @category models */
export type AuditLogEventType = typeof AuditLogEventType.Type

/** @category models */
export const AuditLogEntry = Schema.Struct({
  id: AuditLogId,
  realm_id: RealmId,
  /** Who made the change; null: the operator (command line) or the system. */
  acting_user_id: Schema.NullOr(UserId),
  modified_user_id: Schema.NullOr(UserId),
  modified_stream_id: Schema.NullOr(ChannelId),
  modified_user_group_id: Schema.NullOr(GroupId),
  event_type: AuditLogEventType,
  /** Milliseconds since the epoch, from the Clock. */
  event_time: Schema.Int,
  /** `old_value`, `new_value`, `property` and what else the type records; `{}` when nothing. */
  extra_data: Schema.JsonObject
})
/** @category models */
export type AuditLogEntry = typeof AuditLogEntry.Type

/**
 * One change as a service records it: the row without its id, organization,
 * actor and time, which the recording adds (the same for every change of one
 * request). Absent targets are null, absent `extra_data` is `{}`.
 *
 * @category models
 */
export interface AuditChange {
  readonly event_type: AuditLogEventType
  readonly modified_user_id?: UserId | undefined
  readonly modified_stream_id?: ChannelId | undefined
  readonly modified_user_group_id?: GroupId | undefined
  readonly extra_data?: Schema.JsonObject | undefined
}

/** `extra_data` of a change from `old_value` to `new_value`, of `property` when given. @category constructors */
export const valueChange = (
  old_value: Schema.Json,
  new_value: Schema.Json,
  property?: string
): Schema.JsonObject => property === undefined ? { old_value, new_value } : { property, old_value, new_value }
