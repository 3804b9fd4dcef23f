/**
 * Every event the server publishes, as one tagged union keyed by Zulip's
 * `type` (and `op` where Zulip distinguishes operations), in two forms:
 *
 * - `EventPayload`: what services publish and the log keeps. `Events.publish`
 *   takes only values of it, so the type checker holds every publisher to
 *   these shapes.
 * - `ClientEvent`: what GET /events answers, each event with its `id`: the
 *   payload as one queue's client sees it (a `message` event without its
 *   `~`-keys, in the queue's form), and the `heartbeat`.
 *
 * Tests decode every published event strictly (`checkPublished`), as Zulip's
 * tests check each event against its schema, so a wrong or extra field
 * fails them. The areas' schemas live beside this file.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { AttachmentAddEvent, AttachmentRemoveEvent, AttachmentUpdateEvent } from "./AttachmentEvents.ts"
import {
  StreamCreateEvent,
  StreamDeleteEvent,
  StreamUpdateEvent,
  SubscriptionAddEvent,
  SubscriptionPeerAddEvent,
  SubscriptionPeerRemoveEvent,
  SubscriptionRemoveEvent,
  SubscriptionUpdateEvent
} from "./ChannelEvents.ts"
import {
  DraftsAddEvent,
  DraftsRemoveEvent,
  DraftsUpdateEvent,
  SavedSnippetsAddEvent,
  SavedSnippetsRemoveEvent,
  SavedSnippetsUpdateEvent,
  ScheduledMessagesAddEvent,
  ScheduledMessagesRemoveEvent,
  ScheduledMessagesUpdateEvent
} from "./DraftEvents.ts"
import {
  DeleteMessageEvent,
  DeleteMessagesEvent,
  MessageEvent,
  ReactionAddEvent,
  ReactionRemoveEvent,
  StoredMessageEvent,
  SubmessageEvent,
  TypingEditMessageStartEvent,
  TypingEditMessageStopEvent,
  TypingStartDirectEvent,
  TypingStartStreamEvent,
  TypingStopDirectEvent,
  TypingStopStreamEvent,
  UpdateMessageEvent,
  UpdateMessageFlagsAddEvent,
  UpdateMessageFlagsRemoveEvent
} from "./MessageEvents.ts"
import { MutedTopicsEvent, MutedUsersEvent, UserTopicEvent } from "./MutingEvents.ts"
import { CustomProfileFieldsEvent, HeartbeatEvent, InvitesChangedEvent } from "./RealmEvents.ts"
import {
  AlertWordsEvent,
  PushDeviceEvent,
  UpdateDisplaySettingsEvent,
  UpdateGlobalNotificationsEvent,
  UserSettingsUpdateEvent
} from "./SettingsEvents.ts"
import {
  UserGroupAddEvent,
  UserGroupAddMembersEvent,
  UserGroupAddSubgroupsEvent,
  UserGroupRemoveEvent,
  UserGroupRemoveMembersEvent,
  UserGroupRemoveSubgroupsEvent,
  UserGroupUpdateEvent
} from "./UserGroupEvents.ts"
import {
  LegacyPresenceEvent,
  PresenceEvent,
  RealmUserAddEvent,
  RealmUserRemoveEvent,
  RealmUserUpdateEvent,
  UserStatusEvent
} from "./UserEvents.ts"

/**
 * The objects events carry that GET answers share (a channel of GET /streams,
 * a subscription of GET /users/me/subscriptions, a message of GET /messages,
 * a user of GET /users, a custom profile field, a user group, a draft): one
 * schema each, which
 * the HTTP API's answers extend.
 */
export { EventAttachment } from "./AttachmentEvents.ts"
export { EventChannel, EventSubscription } from "./ChannelEvents.ts"
export { EventDraft } from "./DraftEvents.ts"
export { EventMessage } from "./MessageEvents.ts"
export { EventProfileField } from "./RealmEvents.ts"
export { EventProfileData, EventUser } from "./UserEvents.ts"
export { EventUserGroup } from "./UserGroupEvents.ts"

/** The events both forms share: every published event but `message`. */
const shared = {
  UpdateMessageFlagsAddEvent,
  UpdateMessageFlagsRemoveEvent,
  UpdateMessageEvent,
  DeleteMessagesEvent,
  DeleteMessageEvent,
  ReactionAddEvent,
  ReactionRemoveEvent,
  SubmessageEvent,
  TypingStartDirectEvent,
  TypingStartStreamEvent,
  TypingStopDirectEvent,
  TypingStopStreamEvent,
  TypingEditMessageStartEvent,
  TypingEditMessageStopEvent,
  StreamCreateEvent,
  StreamDeleteEvent,
  StreamUpdateEvent,
  SubscriptionAddEvent,
  SubscriptionRemoveEvent,
  SubscriptionUpdateEvent,
  SubscriptionPeerAddEvent,
  SubscriptionPeerRemoveEvent,
  RealmUserAddEvent,
  RealmUserUpdateEvent,
  RealmUserRemoveEvent,
  UserStatusEvent,
  LegacyPresenceEvent,
  PresenceEvent,
  UserGroupAddEvent,
  UserGroupUpdateEvent,
  UserGroupAddMembersEvent,
  UserGroupRemoveMembersEvent,
  UserGroupAddSubgroupsEvent,
  UserGroupRemoveSubgroupsEvent,
  UserGroupRemoveEvent,
  UserSettingsUpdateEvent,
  UpdateDisplaySettingsEvent,
  UpdateGlobalNotificationsEvent,
  AlertWordsEvent,
  PushDeviceEvent,
  DraftsAddEvent,
  DraftsUpdateEvent,
  DraftsRemoveEvent,
  SavedSnippetsAddEvent,
  SavedSnippetsUpdateEvent,
  SavedSnippetsRemoveEvent,
  ScheduledMessagesAddEvent,
  ScheduledMessagesUpdateEvent,
  ScheduledMessagesRemoveEvent,
  CustomProfileFieldsEvent,
  InvitesChangedEvent,
  UserTopicEvent,
  MutedTopicsEvent,
  MutedUsersEvent,
  AttachmentAddEvent,
  AttachmentUpdateEvent,
  AttachmentRemoveEvent
} as const

type Shared = typeof shared[keyof typeof shared]

/**
 * An event as services publish it and the log keeps it.
 *
 * @category schemas
 */
export const EventPayload = Schema.Union([StoredMessageEvent, ...Object.values(shared) as Array<Shared>])
/** @category models */
export type EventPayload = typeof EventPayload.Type

/** The `type` of an event. @category models */
export type EventType = EventPayload["type"] | "heartbeat"

/** The published events of one `type` (and `op`). @category models */
export type EventOf<Type extends EventPayload["type"], Op extends string = string> = Extract<
  EventPayload,
  { readonly type: Type } & ({ readonly op: Op } | { readonly op?: never })
>

/** A member of `ClientEvent`: the event's fields and its `id`, named for the OpenAPI document. */
const withId = <S extends Schema.Struct<Schema.Struct.Fields>>(name: string, event: S) =>
  Schema.Struct({ ...event.fields, id: Schema.Int }).annotate({ identifier: name })

type WithId<S> = S extends Schema.Struct<infer Fields> ? Schema.Struct<Fields & { readonly id: typeof Schema.Int }> : never

const clientMembers = [
  withId("MessageEvent", MessageEvent),
  ...Object.entries(shared).map(([name, event]) => withId(name, event as Schema.Struct<Schema.Struct.Fields>)),
  withId("HeartbeatEvent", HeartbeatEvent)
] as unknown as ReadonlyArray<WithId<typeof MessageEvent | Shared | typeof HeartbeatEvent>>

/**
 * An event as GET /events answers it: its fields, as the queue's client
 * sees them, and `id` (increasing, not necessarily consecutive).
 *
 * @category schemas
 */
export const ClientEvent = Schema.Union(clientMembers).annotate({
  identifier: "Event",
  description: "An event: `type` (and `op` where the type has several), the fields of its kind, and `id` " +
    "(increasing, not necessarily consecutive)."
})
/** @category models */
export type ClientEvent = typeof ClientEvent.Type

/** Every event type, sorted (POST /register's `event_types` names them). @category constants */
export const EventTypes: ReadonlyArray<EventType> = Array.from(
  new Set([...EventPayload.members, HeartbeatEvent].map((member) => (member as typeof HeartbeatEvent).fields.type.literal))
).sort() as Array<EventType>

const strict = { onExcessProperty: "error" } as const
const decodePublished = Schema.decodeUnknownSync(EventPayload)
const decodeClient = Schema.decodeUnknownSync(ClientEvent)

/**
 * Checks a published event against its schema, strictly: a missing, wrong
 * or extra field throws the schema's error. For tests: publishing does not
 * pay for it.
 *
 * @category validation
 */
export const checkPublished = (event: unknown): EventPayload => decodePublished(event, strict)

/** Checks an event as GET /events answers it, strictly (see `checkPublished`). @category validation */
export const checkClient = (event: unknown): ClientEvent => decodeClient(event, strict)
