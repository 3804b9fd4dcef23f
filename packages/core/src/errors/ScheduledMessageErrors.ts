/**
 * Errors of scheduled messages.
 *
 * @since 0.1.0
 */
import * as ZulipError from "./ZulipError.ts"

/**
 * A direct-message recipient list that contains emails.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class RecipientListUserIdsOnly extends ZulipError.make<RecipientListUserIdsOnly>()("RecipientListUserIdsOnly", {
  code: "BAD_REQUEST",
  message: "Recipient list may only contain user IDs"
}) {}

/**
 * Also sent when a failed scheduled message is edited without a new time.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledDeliveryTimeNotInFuture
  extends ZulipError.make<ScheduledDeliveryTimeNotInFuture>()("ScheduledDeliveryTimeNotInFuture", {
    code: "BAD_REQUEST",
    message: "Scheduled delivery time must be in the future."
  })
{}

/**
 * PATCH /scheduled_messages/{id} with no parameter.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class NothingToChange extends ZulipError.make<NothingToChange>()("NothingToChange", {
  code: "BAD_REQUEST",
  message: "Nothing to change"
}) {}

/**
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledRecipientRequired
  extends ZulipError.make<ScheduledRecipientRequired>()("ScheduledRecipientRequired", {
    code: "BAD_REQUEST",
    message: "Recipient required when updating type of scheduled message."
  })
{}

/**
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledTopicRequired extends ZulipError.make<ScheduledTopicRequired>()("ScheduledTopicRequired", {
  code: "BAD_REQUEST",
  message: "Topic required when updating scheduled message type to stream."
}) {}

/**
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledMessageAlreadySent
  extends ZulipError.make<ScheduledMessageAlreadySent>()("ScheduledMessageAlreadySent", {
    code: "BAD_REQUEST",
    message: "Scheduled message was already sent"
  })
{}

/**
 * Unknown id, or a scheduled message of another user.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledMessageNotFound extends ZulipError.make<ScheduledMessageNotFound>()("ScheduledMessageNotFound", {
  code: "BAD_REQUEST",
  message: "Scheduled message does not exist"
}) {}

/**
 * The delivery worker's reason for failing a message more than 10 minutes
 * late; stored as `failure_message`, not sent as a response.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledMessageDeliveryLate
  extends ZulipError.make<ScheduledMessageDeliveryLate>()("ScheduledMessageDeliveryLate", {
    code: "BAD_REQUEST",
    message: "Message could not be sent at the scheduled time."
  })
{}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const ScheduledMessageErrors = [
  RecipientListUserIdsOnly,
  ScheduledDeliveryTimeNotInFuture,
  NothingToChange,
  ScheduledRecipientRequired,
  ScheduledTopicRequired,
  ScheduledMessageAlreadySent,
  ScheduledMessageNotFound,
  ScheduledMessageDeliveryLate
] as const
