/**
 * The saved-snippet rows (port). Implemented by
 * `memory/MemorySavedSnippetRepo.ts` and `sql/SqlSavedSnippetRepo.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { UserId } from "../domain/Ids.ts"
import type { SavedSnippet, SavedSnippetId } from "../domain/SavedSnippet.ts"
import type { Insert } from "./Repositories.ts"

/** @category services */
export class SavedSnippetRepo extends Context.Service<SavedSnippetRepo, {
  insert(row: Insert<SavedSnippet>): Effect.Effect<SavedSnippet>
  /** The row, locked for the rest of the calling transaction (SQL). */
  lock(id: SavedSnippetId): Effect.Effect<SavedSnippet | undefined>
  update(snippet: SavedSnippet): Effect.Effect<void>
  delete(id: SavedSnippetId): Effect.Effect<void>
  /** The user's snippets by id. */
  listByUser(userId: UserId): Effect.Effect<ReadonlyArray<SavedSnippet>>
}>()("teamchat/core/ports/SavedSnippetRepo") {}
