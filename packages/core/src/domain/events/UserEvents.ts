/**
 * The events about users: accounts (`realm_user` add, update and remove, to
 * those who can access the user), statuses (`user_status`) and presence
 * (`presence`, in the legacy or the simplified form the queue asked for).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { BotType, Role } from "../Role.ts"
import { ReactionType } from "./MessageEvents.ts"

/** A user's custom profile field values, by field id. @category schemas */
export const EventProfileData = Schema.Record(
  Schema.String,
  Schema.Struct({ value: Schema.String, rendered_value: Schema.optionalKey(Schema.String) })
)

/**
 * A user as `realm_user add` announces them (GET /users' element, as the
 * receiving users may see it: `delivery_email` null when they may not).
 *
 * @category schemas
 */
export const EventUser = Schema.Struct({
  email: Schema.String,
  user_id: Schema.Int,
  avatar_version: Schema.Int,
  is_admin: Schema.Boolean,
  is_owner: Schema.Boolean,
  is_guest: Schema.Boolean,
  is_bot: Schema.Boolean,
  role: Role,
  timezone: Schema.String,
  is_active: Schema.Boolean,
  date_joined: Schema.String,
  delivery_email: Schema.NullOr(Schema.String),
  avatar_url: Schema.NullOr(Schema.String),
  full_name: Schema.String,
  bot_type: Schema.NullOr(BotType),
  /** Bots only. */
  bot_owner_id: Schema.optionalKey(Schema.NullOr(Schema.Int)),
  /** People only. */
  profile_data: Schema.optionalKey(EventProfileData)
})

/** A user the receiving users can now access (or a newly created one). @category schemas */
export const RealmUserAddEvent = Schema.Struct({
  type: Schema.Literal("realm_user"),
  op: Schema.Literal("add"),
  person: EventUser
})

/** A user the receiving users can no longer access. @category schemas */
export const RealmUserRemoveEvent = Schema.Struct({
  type: Schema.Literal("realm_user"),
  op: Schema.Literal("remove"),
  person: Schema.Struct({ user_id: Schema.Int, full_name: Schema.String })
})

/** What one `realm_user update` changes: the user's id and one group of fields. @category schemas */
export const PersonUpdate = Schema.Union([
  Schema.Struct({ user_id: Schema.Int, full_name: Schema.String }),
  Schema.Struct({
    user_id: Schema.Int,
    avatar_source: Schema.String,
    avatar_url: Schema.String,
    avatar_url_medium: Schema.String,
    avatar_version: Schema.Int
  }),
  Schema.Struct({ user_id: Schema.Int, email: Schema.String, timezone: Schema.String }),
  Schema.Struct({ user_id: Schema.Int, role: Role }),
  /** null to users who may no longer see the address. */
  Schema.Struct({ user_id: Schema.Int, delivery_email: Schema.NullOr(Schema.String) }),
  Schema.Struct({
    user_id: Schema.Int,
    custom_profile_field: Schema.Struct({
      id: Schema.Int,
      /** null: the value was cleared. */
      value: Schema.NullOr(Schema.String),
      rendered_value: Schema.optionalKey(Schema.String)
    })
  }),
  Schema.Struct({ user_id: Schema.Int, new_email: Schema.String }),
  Schema.Struct({ user_id: Schema.Int, is_active: Schema.Boolean })
])
/** @category models */
export type PersonUpdate = typeof PersonUpdate.Type

/** A user's account changed. @category schemas */
export const RealmUserUpdateEvent = Schema.Struct({
  type: Schema.Literal("realm_user"),
  op: Schema.Literal("update"),
  person: PersonUpdate
})

/** A user's status changed: only the parts that changed. @category schemas */
export const UserStatusEvent = Schema.Struct({
  type: Schema.Literal("user_status"),
  user_id: Schema.Int,
  away: Schema.optionalKey(Schema.Boolean),
  status_text: Schema.optionalKey(Schema.String),
  emoji_name: Schema.optionalKey(Schema.String),
  emoji_code: Schema.optionalKey(Schema.String),
  reaction_type: Schema.optionalKey(ReactionType)
})

/** A user's presence, in the legacy form (queues without `simplified_presence_events`). @category schemas */
export const LegacyPresenceEvent = Schema.Struct({
  type: Schema.Literal("presence"),
  email: Schema.String,
  user_id: Schema.Int,
  /** Seconds, with a fraction. */
  server_timestamp: Schema.Number,
  /** By client name. */
  presence: Schema.Record(
    Schema.String,
    Schema.Struct({
      client: Schema.String,
      status: Schema.Literals(["active", "idle"]),
      timestamp: Schema.Int,
      pushable: Schema.Boolean
    })
  )
})

/** Users' presence, in the simplified form (queues with `simplified_presence_events`), by user id. @category schemas */
export const PresenceEvent = Schema.Struct({
  type: Schema.Literal("presence"),
  presences: Schema.Record(Schema.String, Schema.Struct({ active_timestamp: Schema.Int, idle_timestamp: Schema.Int }))
})
