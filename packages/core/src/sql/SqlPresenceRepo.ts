/**
 * The presence rows on SQL. `find` locks the user's row for the rest of the
 * transaction (`FOR UPDATE`); `write` bumps the organization's presence
 * sequence and writes the row in one statement, so the sequence row, which
 * every presence write of the organization contends for, is held as briefly
 * as the transaction allows. `writeIfUnchanged` is a ping's write in one
 * statement of its own, and `list` and `latest` read from rows kept between
 * calls (see `cache` below), so a steady-state ping is two statements.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { Presence, PresenceTimes } from "../domain/Presence.ts"
import { UserSettingDefaults } from "../domain/UserSettings.ts"
import type { PresenceFilter, PresenceOfUser } from "../ports/PresenceRepo.ts"
import { PresenceRepo, selectRows } from "../ports/PresenceRepo.ts"

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

/**
 * A ping's conditional write ($1 user, $2 expected update id, $3
 * organization, $4 last active, $5 last connected). The user's row is
 * locked first (as `find` then `write` do), then the sequence row, so this
 * never deadlocks with the locked path; a row changed meanwhile fails the
 * re-checked condition, and nothing is locked or written.
 */
const writeIfUnchangedSql = `
  WITH target AS (
    SELECT user_id FROM user_presence
    WHERE user_id = $1 AND last_update_id = $2
      AND coalesce(
        (SELECT (settings->>'presence_enabled')::boolean FROM user_settings WHERE user_id = $1),
        ${UserSettingDefaults.presence_enabled}
      )
    FOR UPDATE
  ), next AS (
    UPDATE presence_sequences SET last_update_id = last_update_id + 1
    WHERE realm_id = $3 AND EXISTS (SELECT 1 FROM target)
    RETURNING last_update_id
  )
  UPDATE user_presence SET
    last_active_time = $4::bigint,
    last_connected_time = $5::bigint,
    last_update_id = next.last_update_id
  FROM next, target
  WHERE user_presence.user_id = target.user_id
  RETURNING user_presence.last_update_id`

/** @category layers */
export const layer: Layer.Layer<PresenceRepo, never, SqlClient.SqlClient> = Layer.effect(
  PresenceRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /**
     * Each organization's rows as last read outside a transaction, with the
     * highest update id read (the watermark). Presence writes of one
     * organization take their ids under the lock of its sequence row, held
     * until commit, so ids commit in order: once a read outside a
     * transaction returns id N, every row with a lower id is in it or in an
     * earlier read. A list then reads only the rows written after the
     * watermark (one indexed range, usually a few rows) instead of the whole
     * organization, which every ping used to read. Writes by other processes
     * arrive the same way.
     */
    const cache = new Map<RealmId, { watermark: number; readonly rows: Map<UserId, Presence> }>()

    // A statement with parameters: prepared once on PGlite (PgliteClient).
    const readAfter = (realmId: RealmId, watermark: number) =>
      sql.unsafe<Row>(
        `SELECT coalesce(json_agg(json_build_array(
          user_id, last_active_time, last_connected_time, last_update_id
        )), '[]')::text AS rows
        FROM user_presence
        WHERE realm_id = $1 AND last_update_id > $2`,
        [realmId, watermark]
      ).pipe(
        Effect.map((rows) =>
          (JSON.parse(String(rows[0]!.rows)) as ReadonlyArray<PackedRow>).map(
            ([user, active, connected, updateId]): Presence => ({
              user_id: fromRow.userId(user),
              realm_id: realmId,
              last_active_time: active,
              last_connected_time: connected,
              last_update_id: updateId
            })
          )
        ),
        Effect.orDie
      )

    /** Merges committed rows into the cache; reads that finish out of order never move a row back. */
    const keep = (realmId: RealmId, changed: ReadonlyArray<Presence>) => {
      let entry = cache.get(realmId)
      if (entry === undefined) {
        entry = { watermark: 0, rows: new Map() }
        cache.set(realmId, entry)
      }
      for (const row of changed) {
        const held = entry.rows.get(row.user_id)
        if (held === undefined || held.last_update_id < row.last_update_id) entry.rows.set(row.user_id, row)
        if (row.last_update_id > entry.watermark) entry.watermark = row.last_update_id
      }
    }

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
      latest: Effect.fn("PresenceRepo.latest")(function*(realmId: RealmId, userId: UserId) {
        if (!cache.has(realmId)) keep(realmId, yield* readAfter(realmId, 0))
        return cache.get(realmId)!.rows.get(userId)
      }),
      writeIfUnchanged: Effect.fn("PresenceRepo.writeIfUnchanged")(
        function*(realmId: RealmId, userId: UserId, expectedUpdateId: number, times: PresenceTimes) {
          const rows = yield* sql.unsafe<Row>(writeIfUnchangedSql, [
            userId,
            expectedUpdateId,
            realmId,
            times.last_active_time,
            times.last_connected_time
          ])
          return rows.length === 0 ? undefined : Number(rows[0]!.last_update_id)
        },
        Effect.orDie
      ),
      list: Effect.fn("PresenceRepo.list")(function*(realmId: RealmId, filter: PresenceFilter) {
        const known = cache.get(realmId) ?? { watermark: 0, rows: new Map<UserId, Presence>() }
        const inTransaction = Option.isSome(yield* Effect.serviceOption(sql.transactionService))
        const changed = yield* readAfter(realmId, known.watermark)
        // Rows read inside a transaction may be its own, not yet committed
        // (and a rollback gives their ids back): they answer this call only.
        let rows = known.rows
        if (inTransaction) {
          if (changed.length > 0) {
            rows = new Map(known.rows)
            for (const row of changed) rows.set(row.user_id, row)
          }
        } else {
          keep(realmId, changed)
          rows = cache.get(realmId)!.rows
        }
        return selectRows(rows.values(), filter)
      }),
      findOfUser: Effect.fn("PresenceRepo.findOfUser")(function*(userId: UserId) {
        const rows = yield* sql<Row>`
          SELECT p.*, u.email, u.date_joined FROM user_presence p JOIN users u ON u.id = p.user_id
          WHERE p.user_id = ${userId}`
        return rows.length === 0 ? undefined : withUser(rows[0]!)
      }, Effect.orDie)
    })
  })
)
