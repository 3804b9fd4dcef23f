/**
 * Who may edit a message's content, and when (Zulip's
 * `validate_user_can_edit_message`): only its sender, while the
 * organization allows editing, within the content edit limit plus a grace
 * period for a slow network.
 *
 * @since 0.1.0
 */
import type { Message } from "../domain/Message.ts"
import type { RealmSettings } from "../domain/Realm.ts"

/** Seconds allowed past an edit limit, for an edit started just before it (Zulip: 20 s). @category constants */
export const EditLimitGraceSeconds = 20

/** Refusal texts, verbatim from Zulip. @category constants */
export const EditRefusals = {
  editingDisabled: "Your organization has turned off message editing",
  notSender: "You don't have permission to edit this message",
  contentLimitPassed: "The time limit for editing this message has passed"
} as const

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
  now: number
): string | undefined => {
  if (!settings.allow_message_editing) return EditRefusals.editingDisabled
  if (message.sender_id !== editorId) return EditRefusals.notSender
  const limit = settings.message_content_edit_limit_seconds
  if (limit !== null && now - message.date_sent > limit + EditLimitGraceSeconds) return EditRefusals.contentLimitPassed
  return undefined
}
