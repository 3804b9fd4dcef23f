/**
 * The events about channels (`stream`: created for, deleted for, or updated
 * to the users who can see them) and about subscriptions (`subscription`:
 * the user's own, and `peer_add`/`peer_remove` for the others' changes).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ChannelPermissionSettings } from "../Channel.ts"
import { TopicsPolicy } from "../Realm.ts"

/** A channel as `stream create` announces it (GET /streams' element without `is_default`). @category schemas */
export const EventChannel = Schema.Struct({
  stream_id: Schema.Int,
  name: Schema.String,
  is_archived: Schema.Boolean,
  description: Schema.String,
  rendered_description: Schema.String,
  date_created: Schema.Int,
  creator_id: Schema.NullOr(Schema.Int),
  invite_only: Schema.Boolean,
  is_web_public: Schema.Boolean,
  stream_post_policy: Schema.Literals([1, 2, 3, 4]),
  is_announcement_only: Schema.Boolean,
  message_retention_days: Schema.NullOr(Schema.Int),
  history_public_to_subscribers: Schema.Boolean,
  topics_policy: TopicsPolicy,
  first_message_id: Schema.NullOr(Schema.Int),
  folder_id: Schema.NullOr(Schema.Int),
  is_recently_active: Schema.Boolean,
  ...ChannelPermissionSettings.fields,
  subscriber_count: Schema.Int,
  stream_weekly_traffic: Schema.NullOr(Schema.Int)
})

/**
 * A subscription as `subscription add` announces it: the channel and the
 * user's properties; `subscribers` for queues registered with
 * `include_subscribers`.
 *
 * @category schemas
 */
export const EventSubscription = Schema.Struct({
  ...EventChannel.fields,
  color: Schema.String,
  pin_to_top: Schema.Boolean,
  is_muted: Schema.Boolean,
  in_home_view: Schema.Boolean,
  desktop_notifications: Schema.NullOr(Schema.Boolean),
  email_notifications: Schema.NullOr(Schema.Boolean),
  push_notifications: Schema.NullOr(Schema.Boolean),
  audible_notifications: Schema.NullOr(Schema.Boolean),
  wildcard_mentions_notify: Schema.NullOr(Schema.Boolean),
  subscribers: Schema.optionalKey(Schema.Array(Schema.Int))
})

/** Channels the receiving users can now see. @category schemas */
export const StreamCreateEvent = Schema.Struct({
  type: Schema.Literal("stream"),
  op: Schema.Literal("create"),
  streams: Schema.Array(EventChannel)
})

/** Channels the receiving users can no longer see. @category schemas */
export const StreamDeleteEvent = Schema.Struct({
  type: Schema.Literal("stream"),
  op: Schema.Literal("delete"),
  streams: Schema.Array(Schema.Struct({ stream_id: Schema.Int })),
  stream_ids: Schema.Array(Schema.Int)
})

/**
 * A channel's property changed (`name`, `description` with its
 * `rendered_description`, `first_message_id`); `name` is the channel's name
 * before a rename.
 *
 * @category schemas
 */
export const StreamUpdateEvent = Schema.Struct({
  type: Schema.Literal("stream"),
  op: Schema.Literal("update"),
  property: Schema.Literals(["name", "description", "first_message_id"]),
  value: Schema.NullOr(Schema.Union([Schema.String, Schema.Int])),
  rendered_description: Schema.optionalKey(Schema.String),
  stream_id: Schema.Int,
  name: Schema.String
})

/** The user's new subscriptions. @category schemas */
export const SubscriptionAddEvent = Schema.Struct({
  type: Schema.Literal("subscription"),
  op: Schema.Literal("add"),
  subscriptions: Schema.Array(EventSubscription)
})

/** The user's ended subscriptions. @category schemas */
export const SubscriptionRemoveEvent = Schema.Struct({
  type: Schema.Literal("subscription"),
  op: Schema.Literal("remove"),
  subscriptions: Schema.Array(Schema.Struct({ name: Schema.String, stream_id: Schema.Int }))
})

/** One of the user's subscription properties changed (`color`, `is_muted` and `in_home_view`, …). @category schemas */
export const SubscriptionUpdateEvent = Schema.Struct({
  type: Schema.Literal("subscription"),
  op: Schema.Literal("update"),
  property: Schema.String,
  value: Schema.Union([Schema.Boolean, Schema.String, Schema.Int]),
  stream_id: Schema.Int
})

/** Other users subscribed to channels the receiving users can see the subscribers of. @category schemas */
export const SubscriptionPeerAddEvent = Schema.Struct({
  type: Schema.Literal("subscription"),
  op: Schema.Literal("peer_add"),
  stream_ids: Schema.Array(Schema.Int),
  user_ids: Schema.Array(Schema.Int)
})

/** Other users unsubscribed. @category schemas */
export const SubscriptionPeerRemoveEvent = Schema.Struct({
  type: Schema.Literal("subscription"),
  op: Schema.Literal("peer_remove"),
  stream_ids: Schema.Array(Schema.Int),
  user_ids: Schema.Array(Schema.Int)
})
