/**
 * Errors of messages: flags, anchors, narrows, submessages, reactions and deletion.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

/**
 * An unknown flag, or one clients may not name.
 *
 * @category flags
 * @since 0.1.0
 */
export class InvalidFlag extends ZulipError.make<InvalidFlag>()("InvalidFlag", {
  code: "BAD_REQUEST",
  params: { flag: Schema.String },
  message: ({ flag }) => `Invalid flag: '${flag}'`
}) {}

/**
 * A flag the server manages (`mentioned`, `has_alert_word`, ...).
 *
 * @category flags
 * @since 0.1.0
 */
export class FlagNotEditable extends ZulipError.make<FlagNotEditable>()("FlagNotEditable", {
  code: "BAD_REQUEST",
  params: { flag: Schema.String },
  message: ({ flag }) => `Flag not editable: '${flag}'`
}) {}

/**
 * An `op` other than `add` or `remove`.
 *
 * @category flags
 * @since 0.1.0
 */
export class InvalidFlagOperation extends ZulipError.make<InvalidFlagOperation>()("InvalidFlagOperation", {
  code: "BAD_REQUEST",
  params: { operation: Schema.String },
  message: ({ operation }) => `Invalid message flag operation: '${operation}'`
}) {}

/**
 * @category flags
 * @since 0.1.0
 */
export class InvalidMessages extends ZulipError.make<InvalidMessages>()("InvalidMessages", {
  code: "BAD_REQUEST",
  message: "Invalid message(s)"
}) {}

/**
 * `include_anchor=false` with messages requested on both sides.
 *
 * @category flags
 * @since 0.1.0
 */
export class AnchorExcludedMidRange extends ZulipError.make<AnchorExcludedMidRange>()("AnchorExcludedMidRange", {
  code: "BAD_REQUEST",
  message: "The anchor can only be excluded at an end of the range"
}) {}

/**
 * @category flags
 * @since 0.1.0
 */
export class InvalidAnchor extends ZulipError.make<InvalidAnchor>()("InvalidAnchor", {
  code: "BAD_REQUEST",
  message: "Invalid anchor"
}) {}

/**
 * POST /mark_topic_as_read for a topic in which the user has no message
 * (the name as asked, `""` for the empty topic).
 *
 * @category flags
 * @since 0.1.0
 */
export class NoSuchTopic extends ZulipError.make<NoSuchTopic>()("NoSuchTopic", {
  code: "BAD_REQUEST",
  params: { topic: Schema.String },
  message: ({ topic }) => `No such topic '${topic}'`
}) {}

/**
 * GET /messages/{id}/read_receipts in an organization with
 * `enable_read_receipts` off.
 *
 * @category flags
 * @since 0.1.0
 */
export class ReadReceiptsDisabled extends ZulipError.make<ReadReceiptsDisabled>()("ReadReceiptsDisabled", {
  code: "BAD_REQUEST",
  message: "Read receipts are disabled in this organization."
}) {}

/**
 * @category narrows
 * @since 0.1.0
 */
export class NarrowElementNotStringPair
  extends ZulipError.make<NarrowElementNotStringPair>()("NarrowElementNotStringPair", {
    code: "BAD_REQUEST",
    params: { index: Schema.Int },
  // Zulip 9+ (pydantic) names the element: "Invalid narrow[0]: Value error, …".
  message: ({ index }) => `Invalid narrow[${index}]: Value error, element is not a string pair`
  })
{}

/**
 * @category narrows
 * @since 0.1.0
 */
export class NarrowOperandMissing extends ZulipError.make<NarrowOperandMissing>()("NarrowOperandMissing", {
  code: "BAD_REQUEST",
  params: { index: Schema.Int },
  // Zulip 9+ (pydantic) names the element: "Invalid narrow[0]: Value error, …".
  message: ({ index }) => `Invalid narrow[${index}]: Value error, operand is missing`
}) {}

/**
 * @category narrows
 * @since 0.1.0
 */
export class NarrowOperatorMissing extends ZulipError.make<NarrowOperatorMissing>()("NarrowOperatorMissing", {
  code: "BAD_REQUEST",
  params: { index: Schema.Int },
  // Zulip 9+ (pydantic) names the element: "Invalid narrow[0]: Value error, …".
  message: ({ index }) => `Invalid narrow[${index}]: Value error, operator is missing`
}) {}

/**
 * @category narrows
 * @since 0.1.0
 */
export class NarrowDictOrListRequired extends ZulipError.make<NarrowDictOrListRequired>()("NarrowDictOrListRequired", {
  code: "BAD_REQUEST",
  params: { index: Schema.Int },
  // Zulip 9+ (pydantic) names the element: "Invalid narrow[0]: Value error, …".
  message: ({ index }) => `Invalid narrow[${index}]: Value error, dict or list required`
}) {}

/**
 * A narrow term the message search cannot apply. `desc` is sent on the wire;
 * the static constructors build Zulip's texts.
 *
 * @category narrows
 * @since 0.1.0
 */
export class BadNarrow extends ZulipError.make<BadNarrow>()("BadNarrow", {
  code: "BAD_NARROW",
  fields: { desc: Schema.String },
  message: ({ desc }) => `Invalid narrow operator: ${desc}`
}) {
  /** `unknown operator X` */
  static unknownOperator(operator: string): BadNarrow {
    return new BadNarrow({ desc: `unknown operator ${operator}` })
  }
  /** `unknown 'is' operand X` (also `'has'` and `'in'`) */
  static unknownOperand(operator: "is" | "has" | "in", operand: string): BadNarrow {
    return new BadNarrow({ desc: `unknown '${operator}' operand ${operand}` })
  }
  /** `unknown channel X` */
  static unknownChannel(channel: string | number): BadNarrow {
    return new BadNarrow({ desc: `unknown channel ${channel}` })
  }
  /** `unknown channels operand X` */
  static unknownChannelsOperand(operand: string): BadNarrow {
    return new BadNarrow({ desc: `unknown channels operand ${operand}` })
  }
  /** A channel term combined with a direct-message term. */
  static channelAndDirect(): BadNarrow {
    return new BadNarrow({ desc: "No message can be both a channel message and direct message" })
  }
}

/**
 * Narrow terms that are valid alone but not together.
 *
 * @category narrows
 * @since 0.1.0
 */
export class InvalidNarrowCombination extends ZulipError.make<InvalidNarrowCombination>()("InvalidNarrowCombination", {
  code: "BAD_NARROW",
  fields: { desc: Schema.String },
  message: ({ desc }) => `Invalid narrow operator combination: ${desc}`
}) {}

/**
 * POST /submessage whose `content` is not JSON.
 *
 * @category submessages
 * @since 0.1.0
 */
export class InvalidSubmessageJson extends ZulipError.make<InvalidSubmessageJson>()("InvalidSubmessageJson", {
  code: "BAD_REQUEST",
  message: "Invalid json for submessage"
}) {}

/**
 * POST /submessage by someone other than the message's sender on a message
 * its sender has attached no submessage to (e.g. no widget).
 *
 * @category submessages
 * @since 0.1.0
 */
export class SubmessageNotAllowed extends ZulipError.make<SubmessageNotAllowed>()("SubmessageNotAllowed", {
  code: "BAD_REQUEST",
  message: "You cannot attach a submessage to this message."
}) {}

/**
 * DELETE /messages/{message_id} by someone who may not delete the message:
 * not theirs (nor their bot's), or not in a group allowed to delete it.
 *
 * @category deletion
 * @since 0.1.0
 */
export class CannotDeleteMessage extends ZulipError.make<CannotDeleteMessage>()("CannotDeleteMessage", {
  code: "BAD_REQUEST",
  message: "You don't have permission to delete this message"
}) {}

/**
 * DELETE /messages/{message_id} of one's own message after the
 * organization's `message_content_delete_limit_seconds`.
 *
 * @category deletion
 * @since 0.1.0
 */
export class MessageDeleteTimeLimitPassed extends ZulipError.make<MessageDeleteTimeLimitPassed>()("MessageDeleteTimeLimitPassed", {
  code: "BAD_REQUEST",
  message: "The time limit for deleting this message has passed"
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
/**
 * The user already reacted to the message with this emoji.
 *
 * @category reactions
 * @since 0.1.0
 */
export class ReactionAlreadyExists extends ZulipError.make<ReactionAlreadyExists>()("ReactionAlreadyExists", {
  code: "REACTION_ALREADY_EXISTS",
  message: "Reaction already exists."
}) {}

/**
 * The user has no reaction to the message with this emoji.
 *
 * @category reactions
 * @since 0.1.0
 */
export class ReactionDoesNotExist extends ZulipError.make<ReactionDoesNotExist>()("ReactionDoesNotExist", {
  code: "REACTION_DOES_NOT_EXIST",
  message: "Reaction doesn't exist."
}) {}

/**
 * DELETE /messages/{id}/reactions with neither `emoji_name` nor `emoji_code`.
 *
 * @category reactions
 * @since 0.1.0
 */
export class EmojiNameOrCodeRequired extends ZulipError.make<EmojiNameOrCodeRequired>()("EmojiNameOrCodeRequired", {
  code: "BAD_REQUEST",
  message: "At least one of the following arguments must be present: emoji_name, emoji_code"
}) {}

/**
 * An edit's `prev_content_sha256` is not the SHA-256 of the message's
 * content as stored: someone else edited it first.
 *
 * @category edits
 * @since 0.1.0
 */
export class PrevContentMismatch extends ZulipError.make<PrevContentMismatch>()("PrevContentMismatch", {
  code: "EXPECTATION_MISMATCH",
  message: "'prev_content_sha256' value does not match the expected value."
}) {}

/**
 * GET /messages/{message_id}/history where the organization shows no edit history.
 *
 * @category edits
 * @since 0.1.0
 */
export class EditHistoryDisabled extends ZulipError.make<EditHistoryDisabled>()("EditHistoryDisabled", {
  code: "BAD_REQUEST",
  message: "Message edit history is disabled in this organization"
}) {}

/**
 * A `change_all` move of a topic some of whose messages are older than the
 * mover's time limit: the client may offer to move the recent ones.
 *
 * @category edits
 * @since 0.1.0
 */
export class MoveTimeLimitExceeded extends ZulipError.make<MoveTimeLimitExceeded>()("MoveTimeLimitExceeded", {
  code: "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
  fields: {
    first_message_id_allowed_to_move: Schema.NullOr(Schema.Int),
    total_messages_in_topic: Schema.Int,
    total_messages_allowed_to_move: Schema.Int
  },
  message: ({ total_messages_allowed_to_move, total_messages_in_topic }) =>
    `You only have permission to move the ${total_messages_allowed_to_move}/${total_messages_in_topic} most recent messages in this topic.`
}) {}

export const MessageErrors = [
  InvalidFlag,
  FlagNotEditable,
  InvalidFlagOperation,
  InvalidMessages,
  AnchorExcludedMidRange,
  InvalidAnchor,
  NoSuchTopic,
  ReadReceiptsDisabled,
  NarrowElementNotStringPair,
  NarrowOperandMissing,
  NarrowOperatorMissing,
  NarrowDictOrListRequired,
  BadNarrow,
  InvalidNarrowCombination,
  InvalidSubmessageJson,
  SubmessageNotAllowed,
  ReactionAlreadyExists,
  ReactionDoesNotExist,
  EmojiNameOrCodeRequired,
  CannotDeleteMessage,
  MessageDeleteTimeLimitPassed,
  PrevContentMismatch,
  EditHistoryDisabled,
  MoveTimeLimitExceeded
] as const
