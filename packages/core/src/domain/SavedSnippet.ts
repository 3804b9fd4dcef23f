/**
 * Saved snippets: a titled piece of Markdown a user keeps to insert into
 * messages (Zulip's `SavedSnippet` row), and how it reads through the API
 * (GET /saved_snippets, register's `saved_snippets`, the `saved_snippets`
 * events).
 *
 * @since 0.1.0
 */
import { SavedSnippetId } from "./Ids.ts"
import type { UserId } from "./Ids.ts"

/** The id and its checked constructor live with every other id, in `Ids.ts`. @category ids */
export { SavedSnippetId, savedSnippetId } from "./Ids.ts"

/** @category models */
export interface SavedSnippet {
  readonly id: SavedSnippetId
  readonly user_id: UserId
  /** Stripped, 1 to {@link MaxSnippetTitleLength} characters. */
  readonly title: string
  /** Stripped Markdown source, 1 to `max_message_length` characters. */
  readonly content: string
  /** Seconds since the epoch. */
  readonly date_created: number
}

/** A snippet as the API shows it. @category models */
export interface ApiSavedSnippet {
  readonly id: number
  readonly title: string
  readonly content: string
  readonly date_created: number
}

/** Zulip's `SavedSnippet.MAX_TITLE_LENGTH`. @category constants */
export const MaxSnippetTitleLength = 60

/** @category views */
export const toApiSavedSnippet = (snippet: SavedSnippet): ApiSavedSnippet => ({
  id: snippet.id,
  title: snippet.title,
  content: snippet.content,
  date_created: snippet.date_created
})
