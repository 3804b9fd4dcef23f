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
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { NonEmptyArray } from "effect/Array"
import * as Request from "effect/Request"
import * as RequestResolver from "effect/RequestResolver"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import { LruMap } from "../domain/LruMap.ts"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { Presence, PresenceTimes } from "../domain/Presence.ts"
import { keptOrganizations } from "../ports/AccessCache.ts"
import { UserSettingDefaults } from "../domain/UserSettings.ts"
import type { PresenceFilter, PresenceOfUser } from "../ports/PresenceRepo.ts"
import { PresenceRepo, selectRows } from "../ports/PresenceRepo.ts"
import { PresenceRows } from "./internal/PresenceRows.ts"

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
 * The conditional writes of a batch of pings of one organization, in one
 * statement ($1 users, $2 expected update ids, $3 last active, $4 last
 * connected, as `bigint[]` literals; $5 the organization; $6 the batch's
 * size). The users' rows are locked first, in user id order (as `find`
 * then `write` lock one), then the sequence row, so this never deadlocks
 * with the locked path or another batch; a row changed meanwhile fails the
 * re-checked condition and is neither locked nor written. The sequence
 * moves by the batch's size, each request taking the id of its place in the
 * batch (a request not written leaves a gap, which clients accept); every
 * returned row carries the sequence's new value.
 */
const writeIfUnchangedSql = `
  WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[]) WITH ORDINALITY
      AS i(user_id, expected, active, connected, place)
  ), target AS (
    SELECT p.user_id, i.active, i.connected, i.place FROM user_presence p JOIN input i ON i.user_id = p.user_id
    WHERE p.realm_id = $5 AND p.last_update_id = i.expected
      AND coalesce(
        (SELECT (s.settings->>'presence_enabled')::boolean FROM user_settings s WHERE s.user_id = p.user_id),
        ${UserSettingDefaults.presence_enabled}
      )
    ORDER BY p.user_id
    FOR UPDATE OF p
  ), next AS (
    UPDATE presence_sequences SET last_update_id = last_update_id + $6
    WHERE realm_id = $5 AND EXISTS (SELECT 1 FROM target)
    RETURNING last_update_id
  )
  UPDATE user_presence SET
    last_active_time = target.active,
    last_connected_time = target.connected,
    last_update_id = next.last_update_id - $6 + target.place
  FROM target, next
  WHERE user_presence.user_id = target.user_id
  RETURNING user_presence.user_id, user_presence.last_update_id, next.last_update_id AS top`

/** A `bigint[]` literal of numbers or nulls, bound as one parameter (see SqlArrays). */
const bigintArrayLiteral = (values: ReadonlyArray<number | null>): string =>
  `{${values.map((value) => (value === null ? "NULL" : String(value))).join(",")}}`

/** A ping's conditional write, waiting for the batch it joins. */
class ConditionalWrite extends Request.Class<{
  readonly realmId: RealmId
  readonly userId: UserId
  readonly expectedUpdateId: number
  readonly times: PresenceTimes
}, number | undefined> {}

/** A list waiting for the next read of its organization's new rows. */
class NewRowsRead extends Request.Class<{ readonly realmId: RealmId }, PresenceRows> {}

/**
 * A resolver of one organization's requests in batches, as a group commit:
 * a batch collects its requests while the resolver's previous batch runs
 * (at least until the next turn of the scheduler), so batches grow with the
 * load instead of running one statement per request.
 */
const groupCommitByRealm = <A extends Request.Any & { readonly realmId: RealmId }>(
  run: (entries: NonEmptyArray<Request.Entry<A>>, realmId: RealmId) => Effect.Effect<void>
): RequestResolver.RequestResolver<A> => {
  let running: Deferred.Deferred<void> | undefined
  return RequestResolver.makeWith<A>({
    batchKey: (entry) => entry.request.realmId,
    delay: Effect.suspend(() => (running === undefined ? Effect.yieldNow : Deferred.await(running))),
    collectWhile: () => true,
    runAll: (entries, realmId) =>
      Effect.suspend(() => {
        const done = Deferred.makeUnsafe<void>()
        running = done
        return Effect.ensuring(
          run(entries, realmId as RealmId),
          Effect.sync(() => {
            if (running === done) running = undefined
            Deferred.doneUnsafe(done, Exit.void)
          })
        )
      })
  })
}

interface KeptRows {
  watermark: number
  readonly rows: PresenceRows
}

/**
 * The repository keeping the rows of the `organizations` most recently used
 * organizations; an evicted one is read whole again when next listed.
 *
 * @category layers
 */
export const layerWith = (options: { readonly organizations: number }): Layer.Layer<PresenceRepo, never, SqlClient.SqlClient> =>
  Layer.effect(
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
      const cache = new LruMap<RealmId, KeptRows>(options.organizations)

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

      /**
       * Merges committed rows into the cache; reads that finish out of order
       * never move a row back. `base` is the entry the read started from (it
       * read only the rows after its watermark), so those rows complete it,
       * and no other: were it evicted meanwhile, it is kept again unless a
       * newer entry (read whole) has taken its place.
       */
      const keep = (realmId: RealmId, changed: ReadonlyArray<Presence>, base?: KeptRows) => {
        const current = cache.get(realmId)
        const entry = base ?? current ?? { watermark: 0, rows: new PresenceRows() }
        if (current === undefined) cache.set(realmId, entry)
        for (const row of changed) {
          const held = entry.rows.get(row.user_id)
          if (held === undefined || held.last_update_id < row.last_update_id) entry.rows.set(row)
          if (row.last_update_id > entry.watermark) entry.watermark = row.last_update_id
        }
        return entry.rows
      }

      const inTransaction = Effect.map(Effect.serviceOption(sql.transactionService), Option.isSome)

      /**
       * Reads of an organization's new rows outside transactions, one per
       * batch: a batch holds the lists that arrived before it started, so
       * each list still reads every row committed before it was called.
       */
      const readResolver = groupCommitByRealm<NewRowsRead>((entries, realmId) =>
        Effect.suspend(() => {
          const base = cache.get(realmId)
          return Effect.map(readAfter(realmId, base?.watermark ?? 0), (changed) => {
            const rows = keep(realmId, changed, base)
            for (const entry of entries) entry.completeUnsafe(Exit.succeed(rows))
          })
        })
      )

      /**
       * The conditional writes of `requests` (one organization, each user
       * once): the update ids written, by user. Outside a transaction the
       * statement has committed when this answers, so when the kept rows
       * reach the batch's first id, the written rows are kept at once and the
       * watermark moves past the batch: no read is needed to see them.
       */
      const writeBatch = (realmId: RealmId, requests: ReadonlyArray<ConditionalWrite>, committed: boolean) =>
        sql.unsafe<Row>(writeIfUnchangedSql, [
          bigintArrayLiteral(requests.map((r) => r.userId)),
          bigintArrayLiteral(requests.map((r) => r.expectedUpdateId)),
          bigintArrayLiteral(requests.map((r) => r.times.last_active_time)),
          bigintArrayLiteral(requests.map((r) => r.times.last_connected_time)),
          realmId,
          requests.length
        ]).pipe(
          Effect.map((rows) => {
            const written = new Map(rows.map((row) => [Number(row.user_id), Number(row.last_update_id)]))
            const entry = cache.get(realmId)
            if (committed && rows.length > 0 && entry !== undefined) {
              const top = Number(rows[0]!.top)
              if (entry.watermark === top - requests.length) {
                for (const request of requests) {
                  const id = written.get(request.userId)
                  if (id === undefined) continue
                  entry.rows.set({ user_id: request.userId, realm_id: realmId, ...request.times, last_update_id: id })
                }
                entry.watermark = top
              }
            }
            return written
          }),
          Effect.orDie
        )

      /**
       * The conditional writes of concurrent pings, one statement per batch
       * of an organization (a statement commits on its own: it needs no
       * transaction of its own). A user's second write in one batch is not
       * attempted: it answers undefined and takes the locked path.
       */
      const writeResolver = groupCommitByRealm<ConditionalWrite>(Effect.fnUntraced(function*(entries, realmId) {
        const batch = new Map<number, Request.Entry<ConditionalWrite>>()
        for (const entry of entries) {
          if (batch.has(entry.request.userId)) entry.completeUnsafe(Exit.succeed(undefined))
          else batch.set(entry.request.userId, entry)
        }
        const written = yield* writeBatch(realmId, Array.from(batch.values(), (entry) => entry.request), true)
        for (const [userId, entry] of batch) entry.completeUnsafe(Exit.succeed(written.get(userId)))
      }))

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
          const rows = cache.get(realmId)?.rows ?? keep(realmId, yield* readAfter(realmId, 0))
          return rows.get(userId)
        }),
        writeIfUnchanged: Effect.fn("PresenceRepo.writeIfUnchanged")(
          function*(realmId: RealmId, userId: UserId, expectedUpdateId: number, times: PresenceTimes) {
            const request = new ConditionalWrite({ realmId, userId, expectedUpdateId, times })
            // Inside a caller's transaction the write is part of it, not of a batch.
            if (yield* inTransaction) return (yield* writeBatch(realmId, [request], false)).get(userId)
            return yield* Effect.request(request, writeResolver)
          }
        ),
        list: Effect.fn("PresenceRepo.list")(function*(realmId: RealmId, filter: PresenceFilter, committedThrough?: number) {
          if (!(yield* inTransaction)) {
            const known = cache.get(realmId)
            // Ids commit in order: the kept rows up to the caller's own write
            // hold every row committed before it.
            if (known !== undefined && committedThrough !== undefined && known.watermark >= committedThrough) {
              return selectRows(known.rows.values(), filter)
            }
            return selectRows((yield* Effect.request(new NewRowsRead({ realmId }), readResolver)).values(), filter)
          }
          // Rows read inside a transaction may be its own, not yet committed
          // (and a rollback gives their ids back): they answer this call only.
          const known = cache.get(realmId)
          const changed = yield* readAfter(realmId, known?.watermark ?? 0)
          if (changed.length === 0) return selectRows(known?.rows.values() ?? [], filter)
          const rows = new Map((known?.rows.values() ?? []).map((row) => [row.user_id, row]))
          for (const row of changed) rows.set(row.user_id, row)
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

/** @category layers */
export const layer: Layer.Layer<PresenceRepo, never, SqlClient.SqlClient> = layerWith({ organizations: keptOrganizations })
