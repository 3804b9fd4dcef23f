/**
 * The draft rows in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { byEditTime, draftId } from "../domain/Draft.ts"
import type { Draft } from "../domain/Draft.ts"
import { DraftRepo } from "../ports/DraftRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category layers */
export const layer: Layer.Layer<DraftRepo, never, MemoryDatabase> = Layer.effect(
  DraftRepo,
  MemoryDatabase.useSync((db) =>
    DraftRepo.of({
      insertMany: (rows) =>
        Effect.sync(() =>
          rows.map((row) => {
            const draft: Draft = { ...row, id: draftId(db.nextId("drafts")) }
            db.tables.drafts.set(draft.id, draft)
            return draft
          })
        ),
      lock: (id) => Effect.sync(() => db.tables.drafts.get(id)),
      update: (draft) => Effect.sync(() => void db.tables.drafts.set(draft.id, draft)),
      delete: (id) => Effect.sync(() => void db.tables.drafts.delete(id)),
      listByUser: (userId, order, limit) =>
        Effect.sync(() => {
          const mine = [...db.tables.drafts.values()].filter((d) => d.user_id === userId).sort(byEditTime)
          if (order === "newest") mine.reverse()
          return limit === undefined ? mine : mine.slice(0, limit)
        }),
      deleteByUser: (userId) =>
        Effect.sync(() => {
          for (const [id, draft] of db.tables.drafts) if (draft.user_id === userId) db.tables.drafts.delete(id)
        })
    })
  )
)
