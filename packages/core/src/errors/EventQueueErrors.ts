/**
 * Errors of event queues: POST /register, GET and DELETE /events.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

/**
 * Unknown or expired queue, or a queue owned by another user.
 *
 * @category events
 * @since 0.1.0
 */
export class BadEventQueueId extends ZulipError.make<BadEventQueueId>()("BadEventQueueId", {
  code: "BAD_EVENT_QUEUE_ID",
  fields: { queue_id: Schema.String },
  message: ({ queue_id }) => `Bad event queue ID: ${queue_id}`
}) {}

/**
 * `last_event_id` is older than the events already discarded.
 *
 * @category events
 * @since 0.1.0
 */
export class EventPruned extends ZulipError.make<EventPruned>()("EventPruned", {
  code: "BAD_REQUEST",
  params: { last_event_id: Schema.Int },
  message: ({ last_event_id }) => `An event newer than ${last_event_id} has already been pruned!`
}) {}

/**
 * `last_event_id` names no event this queue has held.
 *
 * @category events
 * @since 0.1.0
 */
export class EventNotInQueue extends ZulipError.make<EventNotInQueue>()("EventNotInQueue", {
  code: "BAD_REQUEST",
  params: { last_event_id: Schema.Int },
  message: ({ last_event_id }) => `Event ${last_event_id} was not in this queue`
}) {}

/**
 * GET /events without `queue_id` and without `dont_block`. Unlike
 * {@link RequestVariableMissing} this is a plain `BAD_REQUEST` with no `var_name`.
 *
 * @category events
 * @since 0.1.0
 */
export class MissingQueueId extends ZulipError.make<MissingQueueId>()("MissingQueueId", {
  code: "BAD_REQUEST",
  message: "Missing 'queue_id' argument"
}) {}

/**
 * GET /events with `queue_id` but without `last_event_id` (plain `BAD_REQUEST`).
 *
 * @category events
 * @since 0.1.0
 */
export class MissingLastEventId extends ZulipError.make<MissingLastEventId>()("MissingLastEventId", {
  code: "BAD_REQUEST",
  message: "Missing 'last_event_id' argument"
}) {}

/**
 * An event-queue narrow with an operator queues cannot filter on.
 *
 * @category events
 * @since 0.1.0
 */
export class NarrowOperatorNotSupported
  extends ZulipError.make<NarrowOperatorNotSupported>()("NarrowOperatorNotSupported", {
    code: "BAD_REQUEST",
    params: { operator: Schema.String },
    message: ({ operator }) => `Operator ${operator} not supported.`
  })
{}

/**
 * An event-queue narrow with an operand queues cannot filter on (`is:followed`).
 *
 * @category events
 * @since 0.1.0
 */
export class NarrowOperandNotSupported extends ZulipError.make<NarrowOperandNotSupported>()("NarrowOperandNotSupported", {
  code: "BAD_REQUEST",
  params: { operand: Schema.String },
  message: ({ operand }) => `Operand ${operand} not supported.`
}) {}

/**
 * @category events
 * @since 0.1.0
 */
export class EventQueueAllocationFailed
  extends ZulipError.make<EventQueueAllocationFailed>()("EventQueueAllocationFailed", {
    code: "BAD_REQUEST",
    message: "Could not allocate event queue"
  })
{}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const EventQueueErrors = [
  BadEventQueueId,
  EventPruned,
  EventNotInQueue,
  MissingQueueId,
  MissingLastEventId,
  NarrowOperatorNotSupported,
  NarrowOperandNotSupported,
  EventQueueAllocationFailed
] as const
