/**
 * The presence rows on SQL. `find` locks the user's row for the rest of the
 * transaction (`FOR UPDATE`); `write` bumps the organization's presence
 * sequence and writes the row in one statement, so the sequence row, which
 * every presence write of the organization contends for, is held as briefly
 * as the transaction allows.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { Presence, PresenceTimes } from "../domain/Presence.ts"
import type { PresenceFilter, PresenceOfUser } from "../ports/PresenceRepo.ts"
import { PresenceRepo } from "../ports/PresenceRepo.ts"

type Row = Readonly<Record<string, unknown>>

const timeOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

const decode = (row: Row): Presence => ({
  user_id: fromRow.userId(Number(row.user_id)),
  realm_id: fromRow.realmId(Number(row.realm_id)),
  last_active_time: timeOrNull(row.last_active_time),
  last_connected_time: timeOrNull(row.last_connected_time),
  last_update_id: Number(row.last_update_id)
})

const withUser = (row: Row): PresenceOfUser => ({
  presence: decode(row),
  email: String(row.email),
  date_joined: Number(row.date_joined)
})

/** One row of `list`: user id, active and connected times, update id. */
type PackedRow = readonly [number, number | null, number | null, number]

/** @category layers */
export const layer: Layer.Layer<PresenceRepo, never, SqlClient.SqlClient> = Layer.effect(
  PresenceRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return PresenceRepo.of({
      find: Effect.fn("PresenceRepo.find")(function*(userId: UserId) {
        const rows = yield* sql<Row>`SELECT * FROM user_presence WHERE user_id = ${userId} FOR UPDATE`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      write: Effect.fn("PresenceRepo.write")(function*(realmId: RealmId, userId: UserId, times: PresenceTimes) {
        const rows = yield* sql<Row>`
          WITH next AS (
            INSERT INTO presence_sequences (realm_id, last_update_id) VALUES (${realmId}, 1)
            ON CONFLICT (realm_id) DO UPDATE SET last_update_id = presence_sequences.last_update_id + 1
            RETURNING last_update_id
          )
          INSERT INTO user_presence (user_id, realm_id, last_active_time, last_connected_time, last_update_id)
          SELECT ${userId}, ${realmId}, ${times.last_active_time}::bigint, ${times.last_connected_time}::bigint,
            next.last_update_id
          FROM next
          ON CONFLICT (user_id) DO UPDATE SET
            realm_id = EXCLUDED.realm_id,
            last_active_time = EXCLUDED.last_active_time,
            last_connected_time = EXCLUDED.last_connected_time,
            last_update_id = EXCLUDED.last_update_id
          RETURNING last_update_id`
        return Number(rows[0]!.last_update_id)
      }, Effect.orDie),
      list: Effect.fn("PresenceRepo.list")(function*(realmId: RealmId, filter: PresenceFilter) {
        const after = filter.afterUpdateId === undefined ? sql`` : sql`AND last_update_id > ${filter.afterUpdateId}`
        const since = filter.connectedSince === undefined
          ? sql``
          : sql`AND last_connected_time >= ${filter.connectedSince}`
        // Every ping reads up to the whole organization's rows: they come back
        // as one JSON text (one field to transfer and parse, not five per row).
        const rows = yield* sql<Row>`
          SELECT coalesce(json_agg(json_build_array(
            user_id, last_active_time, last_connected_time, last_update_id
          ) ORDER BY user_id), '[]')::text AS rows
          FROM user_presence
          WHERE realm_id = ${realmId} ${after} ${since}`
        const packed = JSON.parse(String(rows[0]!.rows)) as ReadonlyArray<PackedRow>
        return packed.map(([user, active, connected, updateId]): Presence => ({
          user_id: fromRow.userId(user),
          realm_id: realmId,
          last_active_time: active,
          last_connected_time: connected,
          last_update_id: updateId
        }))
      }, Effect.orDie),
      findOfUser: Effect.fn("PresenceRepo.findOfUser")(function*(userId: UserId) {
        const rows = yield* sql<Row>`
          SELECT p.*, u.email, u.date_joined FROM user_presence p JOIN users u ON u.id = p.user_id
          WHERE p.user_id = ${userId}`
        return rows.length === 0 ? undefined : withUser(rows[0]!)
      }, Effect.orDie)
    })
  })
)
