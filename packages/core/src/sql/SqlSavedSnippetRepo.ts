/**
 * The saved-snippet rows on SQL.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import type { SavedSnippet, SavedSnippetId } from "../domain/SavedSnippet.ts"
import type { Insert } from "../ports/Repositories.ts"
import { SavedSnippetRepo } from "../ports/SavedSnippetRepo.ts"

type Row = Readonly<Record<string, unknown>>

const columns = (s: Insert<SavedSnippet>) => ({
  user_id: s.user_id,
  title: s.title,
  content: s.content,
  date_created: s.date_created
})

const decode = (row: Row): SavedSnippet => ({
  id: fromRow.savedSnippetId(Number(row.id)),
  user_id: fromRow.userId(Number(row.user_id)),
  title: String(row.title),
  content: String(row.content),
  date_created: Number(row.date_created)
})

/** @category layers */
export const layer: Layer.Layer<SavedSnippetRepo, never, SqlClient.SqlClient> = Layer.effect(
  SavedSnippetRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return SavedSnippetRepo.of({
      insert: Effect.fn("SavedSnippetRepo.insert")(function*(row: Insert<SavedSnippet>) {
        const [inserted] = yield* sql<{ id: unknown }>`
          INSERT INTO saved_snippets ${sql.insert(columns(row))} RETURNING id`
        const out: SavedSnippet = { ...row, id: fromRow.savedSnippetId(Number(inserted!.id)) }
        return out
      }, Effect.orDie),
      lock: Effect.fn("SavedSnippetRepo.lock")(function*(id: SavedSnippetId) {
        const rows = yield* sql<Row>`SELECT * FROM saved_snippets WHERE id = ${id} FOR UPDATE`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      update: Effect.fn("SavedSnippetRepo.update")(function*(snippet: SavedSnippet) {
        yield* sql`UPDATE saved_snippets SET ${sql.update(columns(snippet))} WHERE id = ${snippet.id}`
      }, Effect.orDie),
      delete: Effect.fn("SavedSnippetRepo.delete")(function*(id: SavedSnippetId) {
        yield* sql`DELETE FROM saved_snippets WHERE id = ${id}`
      }, Effect.orDie),
      listByUser: Effect.fn("SavedSnippetRepo.listByUser")(function*(userId: UserId) {
        return (yield* sql<Row>`SELECT * FROM saved_snippets WHERE user_id = ${userId} ORDER BY id`).map(decode)
      }, Effect.orDie)
    })
  })
)
