/**
 * Users' setting overrides on SQL (one JSONB row per user).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import { UserSettingsRepo } from "../ports/Repositories.ts"
import { int, json, jsonText } from "./internal/Columns.ts"
import { inIds } from "./SqlArrays.ts"
import type { Row } from "./internal/Columns.ts"

/** @category layers */
export const layer: Layer.Layer<UserSettingsRepo, never, SqlClient.SqlClient> = Layer.effect(
  UserSettingsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return UserSettingsRepo.of({
      get: Effect.fn("UserSettingsRepo.get")(function*(user: UserId) {
        const rows = yield* sql<Row>`SELECT settings FROM user_settings WHERE user_id = ${user}`
        return rows.length === 0 ? {} : json<Record<string, unknown>>(rows[0]!.settings)
      }, Effect.orDie),
      getMany: Effect.fn("UserSettingsRepo.getMany")(function*(users: ReadonlyArray<UserId>) {
        const out = new Map<UserId, Readonly<Record<string, unknown>>>()
        if (users.length === 0) return out
        const rows = yield* sql<Row>`SELECT user_id, settings FROM user_settings WHERE ${inIds(sql, "user_id", users)}`
        for (const row of rows) out.set(fromRow.userId(int(row.user_id)), json<Record<string, unknown>>(row.settings))
        return out
      }, Effect.orDie),
      set: Effect.fn("UserSettingsRepo.set")(function*(user: UserId, overrides: Readonly<Record<string, unknown>>) {
        yield* sql`
          INSERT INTO user_settings (user_id, settings) VALUES (${user}, ${jsonText(overrides)}::jsonb)
          ON CONFLICT (user_id) DO UPDATE SET settings = EXCLUDED.settings`
      }, Effect.orDie)
    })
  })
)
