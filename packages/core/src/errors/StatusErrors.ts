/**
 * Errors of presence, user status and emoji.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

/**
 * @category presence
 * @since 0.1.0
 */
export class InvalidPresenceStatus extends ZulipError.make<InvalidPresenceStatus>()("InvalidPresenceStatus", {
  code: "BAD_REQUEST",
  params: { status: Schema.String },
  message: ({ status }) => `Invalid status: ${status}`
}) {}

/**
 * A status update with no parameter.
 *
 * @category status
 * @since 0.1.0
 */
export class NoNewValues extends ZulipError.make<NoNewValues>()("NoNewValues", {
  code: "BAD_REQUEST",
  message: "Client did not pass any new values."
}) {}

/**
 * @category status
 * @since 0.1.0
 */
export class StatusTextTooLong extends ZulipError.make<StatusTextTooLong>()("StatusTextTooLong", {
  code: "BAD_REQUEST",
  message: "status_text is too long (limit: 60 characters)"
}) {}

/**
 * `emoji_code` or `reaction_type` without `emoji_name`.
 *
 * @category status
 * @since 0.1.0
 */
export class EmojiNameRequired extends ZulipError.make<EmojiNameRequired>()("EmojiNameRequired", {
  code: "BAD_REQUEST",
  message: "Client must pass emoji_name if they pass either emoji_code or reaction_type."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class EmojiDoesNotExist extends ZulipError.make<EmojiDoesNotExist>()("EmojiDoesNotExist", {
  code: "BAD_REQUEST",
  params: { emoji_name: Schema.String },
  message: ({ emoji_name }) => `Emoji '${emoji_name}' does not exist`
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidEmojiName extends ZulipError.make<InvalidEmojiName>()("InvalidEmojiName", {
  code: "BAD_REQUEST",
  message: "Invalid emoji name."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidEmojiCode extends ZulipError.make<InvalidEmojiCode>()("InvalidEmojiCode", {
  code: "BAD_REQUEST",
  message: "Invalid emoji code."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidEmojiType extends ZulipError.make<InvalidEmojiType>()("InvalidEmojiType", {
  code: "BAD_REQUEST",
  message: "Invalid emoji type."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidCustomEmoji extends ZulipError.make<InvalidCustomEmoji>()("InvalidCustomEmoji", {
  code: "BAD_REQUEST",
  message: "Invalid custom emoji."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidCustomEmojiName extends ZulipError.make<InvalidCustomEmojiName>()("InvalidCustomEmojiName", {
  code: "BAD_REQUEST",
  message: "Invalid custom emoji name."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class CustomEmojiDeactivated extends ZulipError.make<CustomEmojiDeactivated>()("CustomEmojiDeactivated", {
  code: "BAD_REQUEST",
  message: "This custom emoji has been deactivated."
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const StatusErrors = [
  InvalidPresenceStatus,
  NoNewValues,
  StatusTextTooLong,
  EmojiNameRequired,
  EmojiDoesNotExist,
  InvalidEmojiName,
  InvalidEmojiCode,
  InvalidEmojiType,
  InvalidCustomEmoji,
  InvalidCustomEmojiName,
  CustomEmojiDeactivated
] as const
