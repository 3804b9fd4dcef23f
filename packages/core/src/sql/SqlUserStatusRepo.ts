/**
 * The status rows on SQL. `away` is the user's `presence_enabled` setting,
 * stored among the settings that differ from the defaults (true by default).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { ReactionType } from "../domain/Emoji.ts"
import { fromRow } from "../domain/Ids.ts"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { UserStatus } from "../domain/UserStatus.ts"
import { UserStatusRepo } from "../ports/UserStatusRepo.ts"

type Row = Readonly<Record<string, unknown>>

const decode = (row: Row): UserStatus => ({
  user_id: fromRow.userId(Number(row.user_id)),
  status_text: String(row.status_text),
  emoji_name: String(row.emoji_name),
  emoji_code: String(row.emoji_code),
  reaction_type: String(row.reaction_type) as ReactionType
})

/** @category layers */
export const layer: Layer.Layer<UserStatusRepo, never, SqlClient.SqlClient> = Layer.effect(
  UserStatusRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return UserStatusRepo.of({
      find: Effect.fn("UserStatusRepo.find")(function*(userId: UserId) {
        const rows = yield* sql<Row>`SELECT * FROM user_statuses WHERE user_id = ${userId}`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      upsert: Effect.fn("UserStatusRepo.upsert")(function*(status: UserStatus) {
        yield* sql`
          INSERT INTO user_statuses (user_id, status_text, emoji_name, emoji_code, reaction_type)
          VALUES (${status.user_id}, ${status.status_text}, ${status.emoji_name}, ${status.emoji_code}, ${status.reaction_type})
          ON CONFLICT (user_id) DO UPDATE SET
            status_text = EXCLUDED.status_text,
            emoji_name = EXCLUDED.emoji_name,
            emoji_code = EXCLUDED.emoji_code,
            reaction_type = EXCLUDED.reaction_type`
      }, Effect.orDie),
      listByRealm: Effect.fn("UserStatusRepo.listByRealm")(function*(realmId: RealmId) {
        const rows = yield* sql<Row>`
          SELECT s.*, COALESCE((us.settings ->> 'presence_enabled')::boolean, TRUE) AS presence_enabled
          FROM user_statuses s
          JOIN users u ON u.id = s.user_id
          LEFT JOIN user_settings us ON us.user_id = s.user_id
          WHERE u.realm_id = ${realmId} AND u.is_active
          ORDER BY s.user_id`
        return rows.map((row) => ({
          status: decode(row),
          presence_enabled: row.presence_enabled === true || row.presence_enabled === "t"
        }))
      }, Effect.orDie)
    })
  })
)
