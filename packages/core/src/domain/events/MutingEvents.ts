/**
 * The events of a user's personal visibility settings, to that user's
 * clients only: a topic's policy (`user_topic`, and the deprecated
 * `muted_topics` list for queues that did not ask for `user_topic`) and the
 * muted users (`muted_users`, the whole list).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A topic's policy changed; `visibility_policy` 0 when it was cleared. @category schemas */
export const UserTopicEvent = Schema.Struct({
  type: Schema.Literal("user_topic"),
  stream_id: Schema.Int,
  topic_name: Schema.String,
  /** Unix time in seconds. */
  last_updated: Schema.Int,
  visibility_policy: Schema.Literals([0, 1, 2, 3])
})

/**
 * Deprecated (Zulip 6.0): every muted topic as `[channel name, topic, unix
 * time]`, sent before `user_topic` to queues that did not ask for it.
 *
 * @category schemas
 */
export const MutedTopicsEvent = Schema.Struct({
  type: Schema.Literal("muted_topics"),
  muted_topics: Schema.Array(Schema.Tuple([Schema.String, Schema.String, Schema.Int]))
})

/** The user's muted users, all of them, after a mute or an unmute. @category schemas */
export const MutedUsersEvent = Schema.Struct({
  type: Schema.Literal("muted_users"),
  muted_users: Schema.Array(Schema.Struct({ id: Schema.Int, timestamp: Schema.Int }))
})
