/**
 * The `attachment` events, to the uploader's clients: an upload (`add`),
 * a message linking it (`update`), its deletion (`remove`), each with the
 * organization's `upload_space_used`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** An attachment as GET /attachments lists it. @category schemas */
export const EventAttachment = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  path_id: Schema.String,
  size: Schema.Int,
  create_time: Schema.Int,
  messages: Schema.Array(Schema.Struct({ id: Schema.Int, date_sent: Schema.Int }))
})

/** @category schemas */
export const AttachmentAddEvent = Schema.Struct({
  type: Schema.Literal("attachment"),
  op: Schema.Literal("add"),
  attachment: EventAttachment,
  upload_space_used: Schema.Int
})

/** @category schemas */
export const AttachmentUpdateEvent = Schema.Struct({
  type: Schema.Literal("attachment"),
  op: Schema.Literal("update"),
  attachment: EventAttachment,
  upload_space_used: Schema.Int
})

/** @category schemas */
export const AttachmentRemoveEvent = Schema.Struct({
  type: Schema.Literal("attachment"),
  op: Schema.Literal("remove"),
  attachment: Schema.Struct({ id: Schema.Int }),
  upload_space_used: Schema.Int
})
