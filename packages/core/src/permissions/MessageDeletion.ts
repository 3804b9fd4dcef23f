/**
 * Who may delete a message (Zulip's `validate_can_delete_message`), once the
 * message is known to be accessible to the user:
 *
 * 1. members of the organization's `can_delete_any_message_group`, or (a
 *    channel message) of the channel's `can_delete_any_message_group`,
 *    delete any message, whenever it was sent;
 * 2. anyone else deletes only their own messages and their bots' ones, and
 *    only as a member of the organization's `can_delete_own_message_group`
 *    or (a channel message) the channel's `can_delete_own_message_group`;
 * 3. and only within the organization's `message_content_delete_limit_seconds`
 *    of sending (null: no limit; no grace period).
 *
 * The "any" settings may not be set to `role:everyone`, so they never grant
 * anything to guests; the "own" ones may.
 *
 * @since 0.1.0
 */
import type { ChannelPermissionSettings } from "../domain/Channel.ts"
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import type { UserId } from "../domain/Ids.ts"
import type { RealmSettings } from "../domain/Realm.ts"

/**
 * Whether the deleting user holds a group-based permission (e.g.
 * `GroupMembership.hasGroupPermission` bound to the user).
 *
 * @category models
 */
export type HoldsPermission = (value: GroupSettingValue, options: { readonly allowEveryoneGroup: boolean }) => boolean

/** Everything the rule reads. @category models */
export interface DeletionInput {
  readonly userId: UserId
  readonly sender: { readonly id: UserId; readonly bot_owner_id: UserId | null }
  readonly realm: Pick<
    RealmSettings,
    "can_delete_any_message_group" | "can_delete_own_message_group" | "message_content_delete_limit_seconds"
  >
  /** The channel's settings for a channel message; undefined for a direct message. */
  readonly channel: Pick<ChannelPermissionSettings, "can_delete_any_message_group" | "can_delete_own_message_group"> | undefined
  readonly holds: HoldsPermission
  /** Seconds since the message was sent. */
  readonly ageSeconds: number
}

/** The rule's answer. @category models */
export type DeletionDecision = "allowed" | "not_permitted" | "time_limit_passed"

/**
 * Whether the user may delete the message, and if not, why.
 *
 * @category predicates
 */
export const deletionDecision = (input: DeletionInput): DeletionDecision => {
  const { channel, holds, realm } = input
  const any = { allowEveryoneGroup: false }
  const own = { allowEveryoneGroup: true }
  if (holds(realm.can_delete_any_message_group, any)) return "allowed"
  if (channel !== undefined && holds(channel.can_delete_any_message_group, any)) return "allowed"
  const mine = input.sender.id === input.userId || input.sender.bot_owner_id === input.userId
  if (!mine) return "not_permitted"
  const mayDeleteOwn = holds(realm.can_delete_own_message_group, own) ||
    (channel !== undefined && holds(channel.can_delete_own_message_group, own))
  if (!mayDeleteOwn) return "not_permitted"
  const limit = realm.message_content_delete_limit_seconds
  if (limit !== null && input.ageSeconds > limit) return "time_limit_passed"
  return "allowed"
}
