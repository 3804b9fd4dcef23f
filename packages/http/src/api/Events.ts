/**
 * The `events` group: POST /register, GET /events and DELETE /events.
 *
 * POST /register registers an event queue and returns the initial state of
 * the requested types. GET /events long-polls a queue: it answers at once
 * when events are pending (or with `dont_block=true`), otherwise when an
 * event for the queue commits, a newer poll of the same queue arrives, or
 * with a heartbeat after 45–55 s. Without `queue_id`, `dont_block=true`
 * registers a queue with the registration parameters of the same request.
 *
 * @since 0.1.0
 */
import { EventPayload, Narrow } from "@teamchat/core"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { Authentication } from "./Middleware.ts"

/** `idle_queue_timeout=mobile`: the 12 hours Zulip keeps a mobile client's queue. @category constants */
export const MobileIdleQueueTimeoutSecs = 12 * 60 * 60

const typeNames = EventPayload.EventTypes.map((type) => `\`${type}\``).join(", ")

/** Event type names; `null` (zulip-js sends it) means every type. @category schemas */
export const EventTypes = (description: string) =>
  Params.json(
    Params.Value.nullOr(Params.Value.list(Params.Value.string)),
    `JSON list of event types or \`null\`. ${description} The types (each event's schema is \`Event\`): ${typeNames}.`
  )

/**
 * The legacy pair-list narrow of event queues, `[["channel","Denmark"]]`.
 *
 * @category schemas
 */
export const EventNarrow = Params.json(
  Params.Value.list(Params.Value.pair(Params.Value.string), Narrow.MaxNarrowTerms),
  "JSON list of `[operator, operand]` pairs; operators channel (stream), topic, sender and is."
)

/** `client_capabilities`: a JSON object of booleans. @category schemas */
export const ClientCapabilities = Params.json(
  Params.Value.record(Params.Value.boolean),
  "JSON object of boolean client capabilities, e.g. `{\"user_settings_object\":true}`; absent keys are false."
)

/** `include_subscribers`: `true`, `false` or `partial`. @category schemas */
export const IncludeSubscribers = Params.literalOrJson(
  ["partial"],
  Params.Value.oneOf(Params.Value.boolean),
  "`true`, `false` or `partial` (full subscriber lists are always sent)."
)

/** `idle_queue_timeout`: seconds, or `mobile` (12 hours). @category schemas */
export const IdleQueueTimeout = Params.literalOrJson(
  ["mobile"],
  Params.Value.integer,
  "Seconds a queue survives without a poll (0: the default 600), or `mobile` for 12 hours; at most 7 days. " +
    "Zulip 12's name for `queue_lifespan_secs`, accepted here for the mobile app."
)

/** The queue parameters shared by POST /register and a registering GET /events. @category schemas */
export const QueueParams = {
  event_types: Schema.optionalKey(EventTypes("The events the queue receives; absent or null: every type.")),
  narrow: Schema.optionalKey(EventNarrow),
  all_public_streams: Schema.optionalKey(Params.JsonBoolean),
  client_capabilities: Schema.optionalKey(ClientCapabilities),
  apply_markdown: Schema.optionalKey(Params.JsonBoolean),
  client_gravatar: Schema.optionalKey(Params.JsonBoolean),
  include_subscribers: Schema.optionalKey(IncludeSubscribers),
  slim_presence: Schema.optionalKey(Params.JsonBoolean),
  queue_lifespan_secs: Schema.optionalKey(Params.JsonInteger),
  idle_queue_timeout: Schema.optionalKey(IdleQueueTimeout)
}

/**
 * An event as the response encodes it: a record of JSON values. The events
 * are JSON data as the core built them (`EventPayload.ClientEvent`): an
 * answer at once is encoded with this record, a blocked poll's answer is
 * written by `Envelope.encoder`'s fast path, so no poll pays the union's
 * encoder (which would also write each event's keys in the schema's order).
 * The OpenAPI document describes them with the union itself (the `Event`
 * component and one per kind: `EventSchemas`, `documentEvents`), and the
 * tests check every event against it.
 *
 * @category schemas
 */
export const Event = Schema.Record(Schema.String, Schema.Unknown).annotate({
  description: "An event: `type`, `id` (increasing, not necessarily consecutive) and the fields of its type."
})

/** The schemas the OpenAPI document adds as components: `Event` and each kind of event. @category schemas */
export const EventSchemas = [EventPayload.ClientEvent] as const

/** GET /events' `events` in the OpenAPI document: the `Event` union instead of the record the response encodes. */
const documentEvents = (operation: Record<string, any>): Record<string, any> => {
  const events = operation.responses?.["200"]?.content?.["application/json"]?.schema?.properties?.events
  if (events === undefined) throw new Error("GET /events: no `events` in the success schema to document")
  events.items = { $ref: "#/components/schemas/Event" }
  return operation
}

/** @category groups */
export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.post("register", "/register", {
      query: {
        ...QueueParams,
        fetch_event_types: Schema.optionalKey(
          EventTypes("The initial state to fetch; absent: `event_types`; both absent: everything.")
        ),
        presence_history_limit_days: Schema.optionalKey(
          Params.JsonInteger.annotate({ description: "How many days back the initial `presences` reach (default 14)." })
        )
      },
      success: Envelope.SuccessWithRest({
        queue_id: Schema.String,
        last_event_id: Schema.Int,
        zulip_version: Schema.String,
        zulip_feature_level: Schema.Int,
        zulip_merge_base: Schema.String
      })
    }).annotate(OpenApi.Summary, "Register an event queue"),
    HttpApiEndpoint.get("get", "/events", {
      query: {
        queue_id: Schema.optionalKey(Schema.String),
        last_event_id: Schema.optionalKey(Params.JsonInteger),
        dont_block: Params.optionalBoolean(false),
        ...QueueParams,
        lifespan_secs: Schema.optionalKey(Params.JsonInteger.annotate({ description: "Alias of queue_lifespan_secs." }))
      },
      success: Envelope.Success({
        events: Schema.Array(Event),
        queue_id: Schema.optionalKey(Schema.String)
      })
    }).annotate(OpenApi.Summary, "Get events from an event queue").annotate(OpenApi.Transform, documentEvents),
    HttpApiEndpoint.delete("delete", "/events", {
      query: { queue_id: Schema.String },
      success: Envelope.Success({})
    }).annotate(OpenApi.Summary, "Delete an event queue")
  )
  .middleware(Authentication)
{}
