/**
 * Users' alert words on SQL.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import { AccessCache } from "../ports/AccessCache.ts"
import { AlertWordRepo } from "../ports/Repositories.ts"
import { int, str } from "./internal/Columns.ts"
import type { Row } from "./internal/Columns.ts"
import { inIds, jsonList } from "./SqlArrays.ts"

/** @category layers */
export const layer: Layer.Layer<AlertWordRepo, never, SqlClient.SqlClient | AccessCache> = Layer.effect(
  AlertWordRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { changed } = yield* AccessCache
    return AlertWordRepo.of({
      list: Effect.fn("AlertWordRepo.list")(function*(user: UserId) {
        const rows = yield* sql<Row>`SELECT word FROM alert_words WHERE user_id = ${user} ORDER BY id`
        return rows.map((r) => str(r.word))
      }, Effect.orDie),
      listByUsers: Effect.fn("AlertWordRepo.listByUsers")(function*(users: ReadonlyArray<UserId>) {
        const out = new Map<UserId, Array<string>>()
        if (users.length === 0) return out
        const rows = yield* sql<Row>`SELECT user_id, word FROM alert_words WHERE ${inIds(sql, "user_id", users)} ORDER BY id`
        for (const r of rows) {
          const id = fromRow.userId(int(r.user_id))
          let list = out.get(id)
          if (list === undefined) out.set(id, list = [])
          list.push(str(r.word))
        }
        return out
      }, Effect.orDie),
      // One statement each, whatever the number of words: the list is one
      // JSON parameter (see SqlArrays.ts), deduplicated here so the first
      // spelling of a word is the one inserted.
      add: Effect.fn("AlertWordRepo.add")(function*(user: UserId, words: ReadonlyArray<string>) {
        const seen = new Set<string>()
        const fresh = words.filter((word) => {
          const key = word.toLowerCase()
          if (seen.has(key)) return false
          seen.add(key)
          return true
        })
        if (fresh.length === 0) return
        yield* sql`
          INSERT INTO alert_words (user_id, word)
          SELECT ${user}, w.word FROM jsonb_array_elements_text(${jsonList(fresh)}::jsonb) WITH ORDINALITY AS w(word, n)
          ORDER BY w.n
          ON CONFLICT (user_id, lower(word)) DO NOTHING`
        // The rows name users, not organizations.
        yield* changed(undefined)
      }, Effect.orDie),
      remove: Effect.fn("AlertWordRepo.remove")(function*(user: UserId, words: ReadonlyArray<string>) {
        if (words.length === 0) return
        yield* sql`
          DELETE FROM alert_words
          WHERE user_id = ${user}
            AND lower(word) IN (SELECT lower(w) FROM jsonb_array_elements_text(${jsonList(words)}::jsonb) AS w)`
        yield* changed(undefined)
      }, Effect.orDie)
    })
  })
)
