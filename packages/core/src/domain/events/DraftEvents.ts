/**
 * The events about what one user keeps on the server while composing, to
 * that user's clients: drafts (`drafts`), saved snippets (`saved_snippets`)
 * and scheduled messages (`scheduled_messages`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A draft as GET /drafts lists it. @category schemas */
export const EventDraft = Schema.Struct({
  id: Schema.Int,
  type: Schema.Literals(["", "stream", "private"]),
  to: Schema.Array(Schema.Int),
  topic: Schema.String,
  content: Schema.String,
  timestamp: Schema.Int
})

/** @category schemas */
export const DraftsAddEvent = Schema.Struct({
  type: Schema.Literal("drafts"),
  op: Schema.Literal("add"),
  drafts: Schema.Array(EventDraft)
})

/** @category schemas */
export const DraftsUpdateEvent = Schema.Struct({
  type: Schema.Literal("drafts"),
  op: Schema.Literal("update"),
  draft: EventDraft
})

/** @category schemas */
export const DraftsRemoveEvent = Schema.Struct({
  type: Schema.Literal("drafts"),
  op: Schema.Literal("remove"),
  draft_id: Schema.Int
})

/** A saved snippet as GET /saved_snippets lists it. @category schemas */
export const EventSavedSnippet = Schema.Struct({
  id: Schema.Int,
  title: Schema.String,
  content: Schema.String,
  date_created: Schema.Int
})

/** @category schemas */
export const SavedSnippetsAddEvent = Schema.Struct({
  type: Schema.Literal("saved_snippets"),
  op: Schema.Literal("add"),
  saved_snippet: EventSavedSnippet
})

/** @category schemas */
export const SavedSnippetsUpdateEvent = Schema.Struct({
  type: Schema.Literal("saved_snippets"),
  op: Schema.Literal("update"),
  saved_snippet: EventSavedSnippet
})

/** @category schemas */
export const SavedSnippetsRemoveEvent = Schema.Struct({
  type: Schema.Literal("saved_snippets"),
  op: Schema.Literal("remove"),
  saved_snippet_id: Schema.Int
})

const scheduled = {
  scheduled_message_id: Schema.Int,
  content: Schema.String,
  rendered_content: Schema.String,
  scheduled_delivery_timestamp: Schema.Int,
  failed: Schema.Boolean
}

/** A scheduled message as GET /scheduled_messages lists it: to a channel and topic, or to people. @category schemas */
export const EventScheduledMessage = Schema.Union([
  Schema.Struct({ ...scheduled, type: Schema.Literal("stream"), to: Schema.Int, topic: Schema.String }),
  Schema.Struct({ ...scheduled, type: Schema.Literal("private"), to: Schema.Array(Schema.Int) })
])

/** @category schemas */
export const ScheduledMessagesAddEvent = Schema.Struct({
  type: Schema.Literal("scheduled_messages"),
  op: Schema.Literal("add"),
  scheduled_messages: Schema.Array(EventScheduledMessage)
})

/** @category schemas */
export const ScheduledMessagesUpdateEvent = Schema.Struct({
  type: Schema.Literal("scheduled_messages"),
  op: Schema.Literal("update"),
  scheduled_message: EventScheduledMessage
})

/** A scheduled message was sent, or deleted. @category schemas */
export const ScheduledMessagesRemoveEvent = Schema.Struct({
  type: Schema.Literal("scheduled_messages"),
  op: Schema.Literal("remove"),
  scheduled_message_id: Schema.Int
})
