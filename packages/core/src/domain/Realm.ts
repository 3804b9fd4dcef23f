/**
 * The organization (Zulip's "realm") and its settings.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { GroupSettingValue } from "./GroupSetting.ts"
import { RealmId } from "./Ids.ts"
import { EmailVisibility } from "./Role.ts"

/** @category models */
export const TopicsPolicy = Schema.Literals(["inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"])
/** @category models */
export type TopicsPolicy = typeof TopicsPolicy.Type

/** Who may see a message's edit history: everything, only moves, nothing. @category models */
export const EditHistoryVisibilityPolicy = Schema.Literals(["all", "moves", "none"])
/** @category models */
export type EditHistoryVisibilityPolicy = typeof EditHistoryVisibilityPolicy.Type

/**
 * Zulip's default `message_content_delete_limit_seconds`: a sender may
 * delete a message for ten minutes after sending it.
 *
 * @category constants
 */
export const DefaultMessageContentDeleteLimitSeconds = 600

/**
 * Organization settings. Group-based permissions hold group-setting values;
 * `role:*` system groups are referenced by id once the organization exists.
 *
 * @category models
 */
export const RealmSettings = Schema.Struct({
  /** Default for new users' per-user email visibility. */
  email_address_visibility: EmailVisibility,
  enable_spectator_access: Schema.Boolean,
  invite_required: Schema.Boolean,
  emails_restricted_to_domains: Schema.Boolean,
  email_auth_enabled: Schema.Boolean,
  allow_message_editing: Schema.Boolean,
  /** Seconds after sending its sender may edit a message's content; null: no limit. */
  message_content_edit_limit_seconds: Schema.NullOr(Schema.Int),
  message_edit_history_visibility_policy: EditHistoryVisibilityPolicy,
  /** Seconds after sending others than moderators may move a message to another topic; null: no limit. */
  move_messages_within_stream_limit_seconds: Schema.NullOr(Schema.Int),
  /**
   * Seconds after sending others than moderators may move a message to another channel; null: no limit.
   * Absent (organizations written before the setting) is Zulip's default, a week: no migration needed.
   */
  move_messages_between_streams_limit_seconds: Schema.optionalKey(Schema.NullOr(Schema.Int)),
  enable_read_receipts: Schema.Boolean,
  require_unique_names: Schema.Boolean,
  waiting_period_threshold: Schema.Int,
  /** null inherits the server default (forever). */
  message_retention_days: Schema.NullOr(Schema.Int),
  topics_policy: TopicsPolicy,
  /** Seconds after sending in which a message may be deleted by its sender; null: no limit. */
  message_content_delete_limit_seconds: Schema.NullOr(Schema.Int),
  can_access_all_users_group: GroupSettingValue,
  can_create_groups: GroupSettingValue,
  can_manage_all_groups: GroupSettingValue,
  can_create_public_channel_group: GroupSettingValue,
  can_create_private_channel_group: GroupSettingValue,
  can_create_web_public_channel_group: GroupSettingValue,
  can_add_subscribers_group: GroupSettingValue,
  can_invite_users_group: GroupSettingValue,
  can_move_messages_between_channels_group: GroupSettingValue,
  can_move_messages_between_topics_group: GroupSettingValue,
  can_delete_any_message_group: GroupSettingValue,
  can_delete_own_message_group: GroupSettingValue,
  can_mention_many_users_group: GroupSettingValue
})
/** @category models */
export type RealmSettings = typeof RealmSettings.Type

/** @category models */
export const Realm = Schema.Struct({
  id: RealmId,
  /** The subdomain-style identifier, e.g. "zulip". */
  string_id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  /** Public base URL of the organization, e.g. "http://localhost:9991". */
  url: Schema.String,
  /** Domain of placeholder addresses `user{id}@{fake_email_domain}`. */
  fake_email_domain: Schema.String,
  deactivated: Schema.Boolean,
  /**
   * Created by the demo seed (`DemoOrganization.seed`): the one organization
   * with the development login (`DevLogin.hasDevLogin`), whatever its string id.
   */
  demo: Schema.Boolean,
  /** Creation time, milliseconds since the epoch. */
  date_created: Schema.Int,
  settings: RealmSettings
})
/** @category models */
export type Realm = typeof Realm.Type
