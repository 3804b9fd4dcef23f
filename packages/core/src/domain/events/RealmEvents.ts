/**
 * The events about the organization as a whole: its custom profile fields
 * (`custom_profile_fields`), its invitations (`invites_changed`, to those
 * who manage them), and the queue's own `heartbeat`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A custom profile field as GET /realm/profile_fields lists it. @category schemas */
export const EventProfileField = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  type: Schema.Int,
  hint: Schema.String,
  field_data: Schema.String,
  order: Schema.Int,
  required: Schema.Boolean,
  editable_by_user: Schema.Boolean,
  /** Present (true) only when set. */
  display_in_profile_summary: Schema.optionalKey(Schema.Literal(true))
})

/** Every custom profile field of the organization, in order. @category schemas */
export const CustomProfileFieldsEvent = Schema.Struct({
  type: Schema.Literal("custom_profile_fields"),
  fields: Schema.Array(EventProfileField)
})

/** The organization's invitations changed: clients fetch them again. @category schemas */
export const InvitesChangedEvent = Schema.Struct({ type: Schema.Literal("invites_changed") })

/** Nothing happened: the poll answers before the client's timeout. Never published. @category schemas */
export const HeartbeatEvent = Schema.Struct({ type: Schema.Literal("heartbeat") })
