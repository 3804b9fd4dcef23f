/**
 * Who may edit a message's content, and when (Zulip's
 * `validate_user_can_edit_message`): only its sender, while the
 * organization allows editing, within the content edit limit plus a grace
 * period for a slow network.
 *
 * @since 0.1.0
 */
import type { Channel } from "../domain/Channel.ts"
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import type { Message } from "../domain/Message.ts"
import type { RealmSettings } from "../domain/Realm.ts"
import type { Role } from "../domain/Role.ts"
import { isAdministrator, isModeratorOrAbove } from "../domain/Role.ts"

/** Seconds allowed past an edit limit, for an edit started just before it (Zulip: 20 s). @category constants */
export const EditLimitGraceSeconds = 20

/** Refusal texts, verbatim from Zulip. @category constants */
export const EditRefusals = {
  editingDisabled: "Your organization has turned off message editing",
  notSender: "You don't have permission to edit this message",
  contentLimitPassed: "The time limit for editing this message has passed",
  topicLimitPassed: "The time limit for editing this message's topic has passed.",
  notMover: "You don't have permission to move this message",
  channelLimitPassed: "The time limit for editing this message's channel has passed",
  dmToChannel: "Direct messages cannot be moved to channels.",
  contentWithChannel: "Cannot change message content while changing channel",
  cannotPost: "You do not have permission to post in this channel."
} as const

/** The prefix of a resolved topic (U+2714 and a space). @category constants */
export const ResolvedTopicPrefix = "\u2714 "

/** Whether renaming `from` to `to` resolves or unresolves the topic (and is not an ordinary move). @category predicates */
export const isResolveOrUnresolve = (from: string, to: string): boolean =>
  to === ResolvedTopicPrefix + from || from === ResolvedTopicPrefix + to

/** Whether a move within a channel may go on past the time limit (moderators and above). @category predicates */
export const movesWithoutTimeLimit = (role: Role): boolean => isModeratorOrAbove(role)

/**
 * Why the mover may not move `message` to another topic of its channel at
 * `now`, or undefined when they may: the organization's
 * `can_move_messages_between_topics_group`, or the channel's administrators
 * or `can_move_messages_within_channel_group` (administrators always); then,
 * below moderators, the move limit plus the grace period.
 *
 * @category rules
 */
export const topicMoveRefusal = (
  settings: Pick<RealmSettings, "can_move_messages_between_topics_group" | "move_messages_within_stream_limit_seconds">,
  mover: { readonly role: Role; readonly isMemberOf: (value: GroupSettingValue) => boolean },
  channel: Pick<Channel, "settings">,
  message: Pick<Message, "date_sent">,
  now: number
): string | undefined => {
  const may = isAdministrator(mover.role) ||
    mover.isMemberOf(settings.can_move_messages_between_topics_group) ||
    mover.isMemberOf(channel.settings.can_administer_channel_group) ||
    mover.isMemberOf(channel.settings.can_move_messages_within_channel_group)
  if (!may) return EditRefusals.notSender
  const limit = settings.move_messages_within_stream_limit_seconds
  if (!movesWithoutTimeLimit(mover.role) && limit !== null && now - message.date_sent > limit + EditLimitGraceSeconds) {
    return EditRefusals.topicLimitPassed
  }
  return undefined
}

/**
 * Why `editorId` may not change the content of `message` at `now` (seconds),
 * or undefined when they may.
 *
 * @category rules
 */
export const contentEditRefusal = (
  settings: Pick<RealmSettings, "allow_message_editing" | "message_content_edit_limit_seconds">,
  editorId: number,
  message: Pick<Message, "sender_id" | "date_sent">,
  now: number,
  /** Seconds allowed past the limit: the grace period for an edit, none for POST /messages/{id}/typing. */
  graceSeconds: number = EditLimitGraceSeconds
): string | undefined => {
  if (!settings.allow_message_editing) return EditRefusals.editingDisabled
  if (message.sender_id !== editorId) return EditRefusals.notSender
  const limit = settings.message_content_edit_limit_seconds
  if (limit !== null && now - message.date_sent > limit + graceSeconds) return EditRefusals.contentLimitPassed
  return undefined
}

/** Zulip's default for `move_messages_between_streams_limit_seconds`: a week. @category constants */
export const DefaultChannelMoveLimitSeconds = 604800

/** The organization's limit for moves to another channel (absent: Zulip's default; null: none). @category rules */
export const channelMoveLimitSeconds = (
  settings: Pick<RealmSettings, "move_messages_between_streams_limit_seconds">
): number | null =>
  settings.move_messages_between_streams_limit_seconds === undefined
    ? DefaultChannelMoveLimitSeconds
    : settings.move_messages_between_streams_limit_seconds

/**
 * Why the mover may not move `message` out of its channel `origin` at `now`,
 * or undefined when they may (Zulip's `can_move_messages_out_of_channel` and
 * the channel move limit): administrators, the organization's
 * `can_move_messages_between_channels_group`, the origin's administrators or
 * its `can_move_messages_out_of_channel_group`; then, below moderators, the
 * limit plus the grace period. Guests never move messages between channels.
 *
 * @category rules
 */
export const channelMoveRefusal = (
  settings: Pick<RealmSettings, "can_move_messages_between_channels_group" | "move_messages_between_streams_limit_seconds">,
  mover: { readonly role: Role; readonly isMemberOf: (value: GroupSettingValue) => boolean },
  origin: Pick<Channel, "settings">,
  message: Pick<Message, "date_sent">,
  now: number
): string | undefined => {
  const may = isAdministrator(mover.role) ||
    mover.isMemberOf(settings.can_move_messages_between_channels_group) ||
    mover.isMemberOf(origin.settings.can_administer_channel_group) ||
    mover.isMemberOf(origin.settings.can_move_messages_out_of_channel_group)
  if (!may) return EditRefusals.notMover
  const limit = channelMoveLimitSeconds(settings)
  if (!movesWithoutTimeLimit(mover.role) && limit !== null && now - message.date_sent > limit + EditLimitGraceSeconds) {
    return EditRefusals.channelLimitPassed
  }
  return undefined
}

/**
 * Whether the mover may post in the destination (its `can_send_message_group`;
 * a bot through its owner as well), as a move needs.
 *
 * @category predicates
 */
export const mayPostIn = (
  destination: Pick<Channel, "settings">,
  isMemberOf: (userId: number, value: GroupSettingValue) => boolean,
  moverId: number,
  botOwnerId: number | null
): boolean =>
  isMemberOf(moverId, destination.settings.can_send_message_group) ||
  (botOwnerId !== null && isMemberOf(botOwnerId, destination.settings.can_send_message_group))
