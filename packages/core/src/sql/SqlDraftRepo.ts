/**
 * The draft rows on SQL. `to_ids` is the API's `to` as JSON; the edit time
 * is seconds with microseconds, as Zulip's datetime keeps it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { Draft, DraftId, DraftType } from "../domain/Draft.ts"
import { fromRow } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import { DraftRepo } from "../ports/DraftRepo.ts"
import type { Insert } from "../ports/Repositories.ts"

type Row = Readonly<Record<string, unknown>>

/** Rows per INSERT: 6 parameters each, far below the protocol's 65,535. */
const rowsPerStatement = 1000

const json = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A

const columns = (d: Insert<Draft>) => ({
  user_id: d.user_id,
  type: d.type,
  to_ids: JSON.stringify(d.to),
  topic: d.topic,
  content: d.content,
  last_edit_time: d.last_edit_time
})

const decode = (row: Row): Draft => ({
  id: fromRow.draftId(Number(row.id)),
  user_id: fromRow.userId(Number(row.user_id)),
  type: String(row.type) as DraftType,
  to: json<ReadonlyArray<number>>(row.to_ids),
  topic: String(row.topic),
  content: String(row.content),
  last_edit_time: Number(row.last_edit_time)
})

/** @category layers */
export const layer: Layer.Layer<DraftRepo, never, SqlClient.SqlClient> = Layer.effect(
  DraftRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return DraftRepo.of({
      insertMany: Effect.fn("DraftRepo.insertMany")(function*(rows: ReadonlyArray<Insert<Draft>>) {
        const out: Array<Draft> = []
        // One statement per chunk: a statement binds at most 65,535 parameters.
        for (let start = 0; start < rows.length; start += rowsPerStatement) {
          const [first, ...rest] = rows.slice(start, start + rowsPerStatement)
          const inserted = yield* sql<{ id: unknown }>`
            INSERT INTO drafts ${sql.insert([columns(first!), ...rest.map(columns)])} RETURNING id`
          // Identity values are handed out in the VALUES order.
          const ids = inserted.map((r) => Number(r.id)).sort((a, b) => a - b)
          ids.forEach((id, i) => out.push({ ...rows[start + i]!, id: fromRow.draftId(id) }))
        }
        return out
      }, Effect.orDie),
      lock: Effect.fn("DraftRepo.lock")(function*(id: DraftId) {
        const rows = yield* sql<Row>`SELECT * FROM drafts WHERE id = ${id} FOR UPDATE`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      update: Effect.fn("DraftRepo.update")(function*(draft: Draft) {
        yield* sql`UPDATE drafts SET ${sql.update(columns(draft))} WHERE id = ${draft.id}`
      }, Effect.orDie),
      delete: Effect.fn("DraftRepo.delete")(function*(id: DraftId) {
        yield* sql`DELETE FROM drafts WHERE id = ${id}`
      }, Effect.orDie),
      listByUser: Effect.fn("DraftRepo.listByUser")(function*(userId: UserId, order: "oldest" | "newest", limit?: number) {
        const rows = order === "oldest"
          ? yield* sql<Row>`
              SELECT * FROM drafts WHERE user_id = ${userId}
              ORDER BY last_edit_time, id LIMIT ${limit ?? null}`
          : yield* sql<Row>`
              SELECT * FROM drafts WHERE user_id = ${userId}
              ORDER BY last_edit_time DESC, id DESC LIMIT ${limit ?? null}`
        return rows.map(decode)
      }, Effect.orDie),
      deleteByUser: Effect.fn("DraftRepo.deleteByUser")(function*(userId: UserId) {
        yield* sql`DELETE FROM drafts WHERE user_id = ${userId}`
      }, Effect.orDie)
    })
  })
)
