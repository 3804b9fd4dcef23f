/**
 * The shapes of the event system: events as clients see them, the audience a
 * publisher addresses, the options a queue is registered with, and the pure
 * rules deciding whether a queue receives an event (Zulip's
 * `ClientDescriptor.accepts_event`).
 *
 * @since 0.1.0
 */
import type { ChannelId, RealmId, UserId } from "./Ids.ts"
import { LruMap } from "./LruMap.ts"
import { EmptyTopicDisplayName, flagNames } from "./Message.ts"
import type { ClientEvent, EventOf, EventPayload } from "./events/EventPayload.ts"
import type { EventMessage, StoredMessageEvent } from "./events/MessageEvents.ts"

/**
 * An event as published and logged, without its id (the log assigns it),
 * and an event as GET /events returns it: their schemas, one per type, are
 * in `events/`.
 *
 * @category models
 */
export type { ClientEvent, EventOf, EventPayload }

/**
 * Who receives an event. Resolved to user ids inside the publishing
 * transaction, so the audience matches the state being committed.
 *
 * - `users`: exactly these users.
 * - `realm`: every user of the organization (stored without a user list).
 * - `canAccessUser`: everyone who can access the user under the
 *   organization's `can_access_all_users_group` policy.
 * - `subscribers`: the active subscribers of a channel.
 * - `channelMetadata`: every active user with metadata access to a channel.
 *
 * @category models
 */
export type Audience =
  | { readonly _tag: "users"; readonly userIds: ReadonlyArray<UserId> }
  | { readonly _tag: "realm" }
  | { readonly _tag: "canAccessUser"; readonly userId: UserId }
  | { readonly _tag: "subscribers"; readonly channelId: ChannelId }
  | { readonly _tag: "channelMetadata"; readonly channelId: ChannelId }

/** @category constructors */
export const Audience = {
  users: (userIds: ReadonlyArray<UserId>): Audience => ({ _tag: "users", userIds }),
  realm: { _tag: "realm" } as Audience,
  canAccessUser: (userId: UserId): Audience => ({ _tag: "canAccessUser", userId }),
  subscribers: (channelId: ChannelId): Audience => ({ _tag: "subscribers", channelId }),
  channelMetadata: (channelId: ChannelId): Audience => ({ _tag: "channelMetadata", channelId })
}

/**
 * The client capabilities of POST /register (absent means false).
 *
 * @category constants
 */
export const ClientCapabilities = [
  "notification_settings_null",
  "bulk_message_deletion",
  "user_avatar_url_field_optional",
  "stream_typing_notifications",
  "user_settings_object",
  "linkifier_url_template",
  "user_list_incomplete",
  "include_deactivated_groups",
  "archived_channels",
  "empty_topic_name",
  "simplified_presence_events"
] as const

/** @category models */
export type ClientCapability = typeof ClientCapabilities[number]

/** @category models */
export type Capabilities = Readonly<Record<ClientCapability, boolean>>

/** One frozen `Capabilities` per combination, shared by every queue registered with it. */
const internedCapabilities = new Map<number, Capabilities>()

/**
 * Reads `client_capabilities` as sent (unknown keys and non-true values are
 * false). Equal sets of capabilities give the same (frozen) object.
 *
 * @category constructors
 */
export const capabilitiesFrom = (raw: Readonly<Record<string, unknown>> | undefined): Capabilities => {
  let bits = 0
  for (let i = 0; i < ClientCapabilities.length; i++) if (raw?.[ClientCapabilities[i]!] === true) bits |= 1 << i
  let capabilities = internedCapabilities.get(bits)
  if (capabilities === undefined) {
    const out: Partial<Record<ClientCapability, boolean>> = {}
    for (let i = 0; i < ClientCapabilities.length; i++) out[ClientCapabilities[i]!] = (bits & (1 << i)) !== 0
    capabilities = Object.freeze(out as Capabilities)
    internedCapabilities.set(bits, capabilities)
  }
  return capabilities
}

/**
 * A condition on the registering client's capabilities: the event reaches a
 * queue only when each named capability has the given value.
 *
 * @category models
 */
export type CapabilityCondition = Partial<Record<ClientCapability, boolean>>

/** One `[operator, operand]` term of an event-queue narrow. @category models */
export type NarrowTerm = readonly [operator: string, operand: string]

/** How `include_subscribers` was requested. @category models */
export type IncludeSubscribers = "true" | "false" | "partial"

/**
 * Everything a queue was registered with, stored with the queue.
 *
 * @category models
 */
export interface QueueOptions {
  /** null: every type. */
  readonly event_types: ReadonlyArray<string> | null
  readonly narrow: ReadonlyArray<NarrowTerm>
  readonly all_public_streams: boolean
  readonly client_capabilities: Capabilities
  readonly apply_markdown: boolean
  readonly client_gravatar: boolean
  readonly include_subscribers: IncludeSubscribers
  readonly slim_presence: boolean
}

/**
 * Distinct `QueueOptions` values by their JSON text, the 1,024 most recently
 * used (docs/memory.md); an evicted one is made again, equal, when next registered.
 */
const internedOptions = new LruMap<string, QueueOptions>(1024)

/**
 * The shared (frozen) `QueueOptions` equal to `options`: queues registered
 * alike (clients of one app) keep one object, however they were read.
 *
 * @category constructors
 */
export const internOptions = (options: QueueOptions): QueueOptions => {
  const key = JSON.stringify(options)
  let shared = internedOptions.get(key)
  if (shared === undefined) {
    shared = Object.freeze({
      ...options,
      event_types: options.event_types === null ? null : Object.freeze(options.event_types.slice()),
      narrow: Object.freeze(options.narrow.slice())
    })
    internedOptions.set(key, shared)
  }
  return shared
}

/**
 * A queue as stored. Ids in the log are global and increase; a queue is a
 * cursor into it.
 *
 * - `acked_id`: Zulip's `newest_pruned_id`, the last id the client
 *   acknowledged (-1 at first).
 * - `cursor_id`: every log event with an id up to this one is behind the
 *   queue (acknowledged, or older than the queue).
 * - `heartbeat_id`: the id of a heartbeat the queue handed out and that is
 *   not acknowledged yet.
 * - `last_connected`: milliseconds; set at creation and whenever a poll
 *   blocks.
 * - `blocked_until`: milliseconds; while a poll waits on the queue this is
 *   in the future (the latest the poll can last), else 0. A waiting queue
 *   never expires.
 *
 * @category models
 */
export interface QueueRecord {
  readonly id: string
  readonly realm_id: RealmId
  readonly user_id: UserId
  readonly options: QueueOptions
  readonly created_at: number
  readonly lifespan_secs: number
  readonly last_connected: number
  readonly blocked_until: number
  readonly acked_id: number
  readonly cursor_id: number
  readonly heartbeat_id: number | null
}

/** A log row. `user_ids` null: the whole organization. @category models */
export interface LoggedEvent {
  readonly id: number
  readonly realm_id: RealmId
  readonly type: string
  readonly payload: EventPayload
  readonly user_ids: ReadonlyArray<UserId> | null
  readonly requires: CapabilityCondition | null
}

/** What a publisher appends: the payload and its resolved audience. @category models */
export interface NewLoggedEvent {
  readonly payload: EventPayload
  readonly user_ids: ReadonlyArray<UserId> | null
  readonly requires: CapabilityCondition | null
}

/** Whether a queue has expired at `now` (milliseconds). @category predicates */
export const isExpired = (queue: QueueRecord, now: number): boolean =>
  queue.blocked_until <= now && now - queue.last_connected >= queue.lifespan_secs * 1000

// -----------------------------------------------------------------------------
// filtering

const legacySettingsTypes = new Set(["update_display_settings", "update_global_notifications"])

const lower = (s: string): string => s.toLowerCase()

/**
 * Whether a message event matches an event-queue narrow (Zulip's
 * `build_narrow_predicate`): channel name, topic and sender email compared
 * case-insensitively, `is:` on the message type and the user's flags.
 *
 * @category predicates
 */
export const messageMatchesNarrow = (
  narrow: ReadonlyArray<NarrowTerm>,
  event: Pick<StoredMessageEvent, "message" | "flags">
): boolean => {
  const message = event.message
  const flags = new Set<string>(event.flags)
  const channelName = typeof message.display_recipient === "string" ? message.display_recipient : ""
  for (const [operator, operand] of narrow) {
    switch (operator) {
      case "channel":
      case "stream":
        if (message.type !== "stream" || lower(channelName) !== lower(operand)) return false
        break
      case "topic":
        if (message.type !== "stream" || lower(message.subject) !== lower(operand)) return false
        break
      case "sender":
        if (lower(message.sender_email) !== lower(operand)) return false
        break
      case "is":
        switch (operand) {
          case "dm":
          case "private":
            if (message.type !== "private") return false
            break
          case "starred":
            if (!flags.has("starred")) return false
            break
          case "unread":
            if (flags.has("read")) return false
            break
          case "mentioned":
          case "alerted":
            if (!flags.has("mentioned")) return false
            break
          case "resolved":
            if (!message.subject.startsWith("✔ ")) return false
            break
          default:
            return false
        }
        break
      default:
        return false
    }
  }
  return true
}

/**
 * Whether a queue receives a logged event (the audience was already
 * checked): event types, capability conditions, the narrow for message
 * events, and the capability rules of Zulip's `accepts_event`.
 *
 * @category predicates
 */
export const accepts = (options: QueueOptions, event: Pick<LoggedEvent, "type" | "payload" | "requires">): boolean => {
  const caps = options.client_capabilities
  if (event.requires !== null) {
    for (const [key, value] of Object.entries(event.requires)) {
      if (caps[key as ClientCapability] !== value) return false
    }
  }
  if (options.event_types !== null && !options.event_types.includes(event.type)) return false
  const payload = event.payload
  switch (payload.type) {
    case "message":
      return messageMatchesNarrow(options.narrow, payload)
    case "typing":
      return payload.message_type !== "stream" || caps.stream_typing_notifications
    case "muted_topics":
      // Zulip 6.0: a queue that asked for `user_topic` gets it instead.
      return options.event_types === null || !options.event_types.includes("user_topic")
    case "user_group":
      if (payload.op === "remove") return !caps.include_deactivated_groups
      if (payload.op === "update" && "deactivated" in payload.data) return caps.include_deactivated_groups
      return true
  }
  if (legacySettingsTypes.has(payload.type)) return !caps.user_settings_object
  return true
}

/**
 * What a `message` event carries for the per-queue views besides the message
 * as `apply_markdown`/`client_gravatar` clients see it. The keys start with
 * `~` and never reach a client.
 */
export interface MessageEventExtras {
  /** The Markdown source, for queues registered with `apply_markdown: false`. */
  readonly rawContent: string
  /** Whether `avatar_url` is null for `client_gravatar` queues. */
  readonly gravatarNullable: boolean
  /** The sending client's queue, which gets `local_message_id`. */
  readonly queueId?: string | undefined
  readonly localId?: string | undefined
}

/**
 * A `message` event as stored once for every recipient with the same flags.
 *
 * @category constructors
 */
export const messageEvent = (message: EventMessage, flags: number, extras: MessageEventExtras): StoredMessageEvent => ({
  type: "message",
  message,
  flags: flagNames(flags),
  "~raw_content": extras.rawContent,
  "~gravatar_nullable": extras.gravatarNullable,
  ...(extras.queueId !== undefined && extras.localId !== undefined
    ? { "~queue_id": extras.queueId, "~local_id": extras.localId }
    : {})
})

const presentMessage = (
  options: QueueOptions,
  payload: StoredMessageEvent,
  id: number,
  queueId: string | undefined
): ClientEvent => {
  const {
    "~raw_content": raw,
    "~gravatar_nullable": nullable,
    "~queue_id": senderQueue,
    "~local_id": localId,
    ...rest
  } = payload
  let message = rest.message
  if (!options.apply_markdown) message = { ...message, content: raw, content_type: "text/x-markdown" }
  if (options.client_gravatar && nullable) message = { ...message, avatar_url: null }
  if (!options.client_capabilities.empty_topic_name && message.type === "stream" && message.subject === "") {
    message = { ...message, subject: EmptyTopicDisplayName }
  }
  return queueId !== undefined && senderQueue === queueId && localId !== undefined
    ? { ...rest, message, local_message_id: localId, id }
    : { ...rest, message, id }
}

/**
 * The event as this queue's client sees it: `subscribers` in subscription
 * `add` events only for queues registered with `include_subscribers`.
 *
 * @category views
 */
export const present = (options: QueueOptions, event: LoggedEvent, queueId?: string): ClientEvent => {
  const payload = event.payload
  if (payload.type === "message") return presentMessage(options, payload, event.id, queueId)
  if (payload.type === "user_topic" && payload.topic_name === "" && !options.client_capabilities.empty_topic_name) {
    return { ...payload, topic_name: EmptyTopicDisplayName, id: event.id }
  }
  if (payload.type === "subscription" && payload.op === "add" && options.include_subscribers === "false") {
    return {
      ...payload,
      subscriptions: payload.subscriptions.map(({ subscribers: _subscribers, ...rest }) => rest),
      id: event.id
    }
  }
  return { ...payload, id: event.id }
}

/** The heartbeat event. @category constructors */
export const heartbeat = (id: number): ClientEvent => ({ type: "heartbeat", id })

/** Whether the audience of a logged event includes a user. @category predicates */
export const addressedTo = (event: Pick<LoggedEvent, "user_ids">, userId: UserId): boolean =>
  event.user_ids === null || event.user_ids.includes(userId)
