/**
 * Scheduled messages: a message validated now and sent later by the
 * delivery worker (`services/ScheduledDelivery.ts`).
 *
 * States: pending (neither `delivered` nor `failed`) → delivered at the
 * scheduled second (`delivered_message_id` is the message that went out) or
 * → failed (`failure_message` says why). Editing a pending message keeps it
 * pending; a failed one is edited only with a new delivery time, which makes
 * it pending again. Delivered rows stay for the record and are never shown.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ChannelId, MessageId, RealmId, ScheduledMessageId, UserId } from "./Ids.ts"
import { MessageType } from "./Message.ts"

/** The id and its checked constructor live with every other id, in `Ids.ts`. @category ids */
export { ScheduledMessageId, scheduledMessageId } from "./Ids.ts"

/** @category models */
export const ScheduledMessage = Schema.Struct({
  id: ScheduledMessageId,
  realm_id: RealmId,
  sender_id: UserId,
  type: MessageType,
  /** Channel messages only. */
  channel_id: Schema.NullOr(ChannelId),
  /** Channel messages: the normalised topic ("" is the empty topic). Direct messages: "". */
  topic: Schema.String,
  /** Direct messages: every participant, sorted, sender included (as in `Message`). Channel messages: []. */
  dm_user_ids: Schema.Array(UserId),
  /** Normalised Markdown source, as `Messages.validate` returned it. */
  content: Schema.String,
  rendered_content: Schema.String,
  /** Seconds since the epoch. */
  scheduled_timestamp: Schema.Int,
  read_by_sender: Schema.Boolean,
  /** The client that scheduled (or last edited) it; the delivered message carries it. */
  client: Schema.String,
  delivered: Schema.Boolean,
  delivered_message_id: Schema.NullOr(MessageId),
  failed: Schema.Boolean,
  failure_message: Schema.NullOr(Schema.String)
})
/** @category models */
export type ScheduledMessage = typeof ScheduledMessage.Type

/** Neither delivered nor failed: the worker will send it. @category predicates */
export const isPending = (m: Pick<ScheduledMessage, "delivered" | "failed">): boolean => !m.delivered && !m.failed

/**
 * How late a delivery may be (after downtime) before it fails instead
 * (Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES).
 *
 * @category constants
 */
export const LateCutoffSeconds = 10 * 60

/**
 * Zulip's `to` of a scheduled direct message: the participants other than
 * the sender, or the sender alone for a message to oneself.
 *
 * @category views
 */
export const directRecipientIds = (m: Pick<ScheduledMessage, "dm_user_ids" | "sender_id">): Array<UserId> => {
  const others = m.dm_user_ids.filter((id) => id !== m.sender_id)
  return others.length === 0 ? [m.sender_id] : others
}

/** A scheduled message as GET /scheduled_messages and the events show it. @category models */
export type ApiScheduledMessage =
  | {
    readonly scheduled_message_id: number
    readonly to: number
    readonly type: "stream"
    readonly content: string
    readonly rendered_content: string
    readonly topic: string
    readonly scheduled_delivery_timestamp: number
    readonly failed: boolean
  }
  | {
    readonly scheduled_message_id: number
    readonly to: ReadonlyArray<number>
    readonly type: "private"
    readonly content: string
    readonly rendered_content: string
    readonly scheduled_delivery_timestamp: number
    readonly failed: boolean
  }

/** @category views */
export const toApiScheduledMessage = (m: ScheduledMessage): ApiScheduledMessage =>
  m.type === "stream"
    ? {
      scheduled_message_id: m.id,
      to: m.channel_id ?? 0,
      type: "stream",
      content: m.content,
      rendered_content: m.rendered_content,
      topic: m.topic,
      scheduled_delivery_timestamp: m.scheduled_timestamp,
      failed: m.failed
    }
    : {
      scheduled_message_id: m.id,
      to: directRecipientIds(m),
      type: "private",
      content: m.content,
      rendered_content: m.rendered_content,
      scheduled_delivery_timestamp: m.scheduled_timestamp,
      failed: m.failed
    }

/** Undelivered first by delivery time, then by id (GET /scheduled_messages's order). @category ordering */
export const byDeliveryTime = (a: ScheduledMessage, b: ScheduledMessage): number =>
  a.scheduled_timestamp - b.scheduled_timestamp || a.id - b.id
