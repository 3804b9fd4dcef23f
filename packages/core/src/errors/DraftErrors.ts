/**
 * Errors of drafts and saved snippets.
 *
 * @since 0.1.0
 */
import * as ZulipError from "./ZulipError.ts"

/**
 * @category drafts
 * @since 0.1.0
 */
export class DraftsSyncDisabled extends ZulipError.make<DraftsSyncDisabled>()("DraftsSyncDisabled", {
  code: "BAD_REQUEST",
  message: "User has disabled synchronizing drafts."
}) {}

/**
 * @category drafts
 * @since 0.1.0
 */
export class TimestampNegative extends ZulipError.make<TimestampNegative>()("TimestampNegative", {
  code: "BAD_REQUEST",
  message: "Timestamp must not be negative."
}) {}

/**
 * A channel draft whose `to` does not hold exactly one id.
 *
 * @category drafts
 * @since 0.1.0
 */
export class DraftChannelCount extends ZulipError.make<DraftChannelCount>()("DraftChannelCount", {
  code: "BAD_REQUEST",
  message: "Must specify exactly 1 channel ID for channel messages"
}) {}

/**
 * Unknown id, or a draft of another user.
 *
 * @category drafts
 * @since 0.1.0
 */
export class DraftNotFound extends ZulipError.make<DraftNotFound>()("DraftNotFound", {
  code: "BAD_REQUEST",
  message: "Draft does not exist"
}) {}

/**
 * Unknown id, or a snippet of another user.
 *
 * @category saved snippets
 * @since 0.1.0
 */
export class SavedSnippetNotFound extends ZulipError.make<SavedSnippetNotFound>()("SavedSnippetNotFound", {
  code: "BAD_REQUEST",
  message: "Saved snippet does not exist."
}) {}

/**
 * A blank title, in the newer explicit wording.
 *
 * @category saved snippets
 * @since 0.1.0
 */
export class SavedSnippetTitleEmpty extends ZulipError.make<SavedSnippetTitleEmpty>()("SavedSnippetTitleEmpty", {
  code: "BAD_REQUEST",
  message: "Title cannot be empty."
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const DraftErrors = [
  DraftsSyncDisabled,
  TimestampNegative,
  DraftChannelCount,
  DraftNotFound,
  SavedSnippetNotFound,
  SavedSnippetTitleEmpty
] as const
