/**
 * The saved-snippet rows in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { savedSnippetId } from "../domain/SavedSnippet.ts"
import type { SavedSnippet } from "../domain/SavedSnippet.ts"
import { SavedSnippetRepo } from "../ports/SavedSnippetRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category layers */
export const layer: Layer.Layer<SavedSnippetRepo, never, MemoryDatabase> = Layer.effect(
  SavedSnippetRepo,
  MemoryDatabase.useSync((db) =>
    SavedSnippetRepo.of({
      insert: (row) =>
        Effect.sync(() => {
          const snippet: SavedSnippet = { ...row, id: savedSnippetId(db.nextId("savedSnippets")) }
          db.tables.savedSnippets.set(snippet.id, snippet)
          return snippet
        }),
      lock: (id) => Effect.sync(() => db.tables.savedSnippets.get(id)),
      update: (snippet) => Effect.sync(() => void db.tables.savedSnippets.set(snippet.id, snippet)),
      delete: (id) => Effect.sync(() => void db.tables.savedSnippets.delete(id)),
      listByUser: (userId) =>
        Effect.sync(() => [...db.tables.savedSnippets.values()].filter((s) => s.user_id === userId).sort((a, b) => a.id - b.id))
    })
  )
)
