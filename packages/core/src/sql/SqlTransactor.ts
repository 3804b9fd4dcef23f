/**
 * Transactor on SQL: the client's transactions, savepoints for nested calls,
 * and its after-commit buffer.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { Transactor } from "../ports/Transactor.ts"

/** SQL transactions; savepoints for nested calls. Database failures are defects. */
export const layer: Layer.Layer<Transactor, never, SqlClient.SqlClient> = Layer.effect(
  Transactor,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return Transactor.of({
      withTransaction: (effect) =>
        sql.withTransaction(effect).pipe(
          Effect.catchTag("SqlError", (error) => Effect.die(error))
        ) as typeof effect,
      afterCommit: (effect) => sql.afterCommit(effect)
    })
  })
)
