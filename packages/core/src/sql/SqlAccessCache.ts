/**
 * AccessCache on SQL: the organization's access version read from
 * `access_versions` (see `ports/AccessCache.ts` for the design); on PGlite,
 * versions read outside transactions are kept until the database's
 * `teamchat_access` notice for the organization.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import type { AccessRead } from "../domain/AccessState.ts"
import { RealmId } from "../domain/Ids.ts"
import { LruMap } from "../domain/LruMap.ts"
import { AccessCache, keptOrganizations } from "../ports/AccessCache.ts"
import { PgliteClient } from "./PgliteClient.ts"

/** The notice channel of migration `0008_access_change_notices`. */
const noticeChannel = "teamchat_access"

/**
 * The cache keeping the reads of the `organizations` most recently used
 * organizations (and, on PGlite, as many known versions).
 *
 * @category layers
 */
export const layerWith = (options: { readonly organizations: number }): Layer.Layer<AccessCache, never, SqlClient.SqlClient> =>
  Layer.effect(
    AccessCache,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // Read on nearly every request: the simple protocol skips the
      // extended one's parse/describe/bind steps (on PGlite 0.34 → 0.22 ms).
      // The id is an integer, written into the text.
      const read = (realmId: RealmId) =>
        sql.unsafe<{ version: unknown }>(
          `SELECT version FROM access_versions WHERE realm_id = ${Math.trunc(Number(realmId))}`
        ).unprepared.pipe(
          Effect.map((rows) => (rows.length === 0 ? null : Number(rows[0]!.version))),
          Effect.orDie
        )
      const entries = new LruMap<RealmId, AccessRead>(options.organizations)

      const pglite = yield* Effect.serviceOption(PgliteClient)
      if (Option.isNone(pglite)) return AccessCache.of({ version: read, entries, deferrable: true })

      // Versions read outside transactions, dropped by the notices. A notice
      // between a read and its result being kept (another fiber committing
      // while this one waits for its turn) discards that result.
      const known = new LruMap<RealmId, number>(options.organizations)
      let notices = 0
      const stop = pglite.value.pglite.onNotification((channel, payload) => {
        if (channel !== noticeChannel) return
        notices++
        // The payload is the trigger's realm id; were it ever unreadable,
        // dropping every kept version is the safe answer.
        Option.match(RealmId.makeOption(Number(payload)), {
          onNone: () => known.clear(),
          onSome: (realmId) => known.delete(realmId)
        })
      })
      yield* Effect.addFinalizer(() => Effect.sync(stop))
      yield* sql.unsafe(`SET teamchat.access_notices = 'on'`).unprepared.pipe(Effect.orDie)
      yield* sql.unsafe(`LISTEN ${noticeChannel}`).unprepared.pipe(Effect.orDie)

      const version = (realmId: RealmId): Effect.Effect<number | null> =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) => {
          if (Option.isSome(transaction)) return read(realmId)
          const current = known.get(realmId)
          if (current !== undefined) return Effect.succeed(current)
          const before = notices
          return Effect.map(read(realmId), (value) => {
            if (value !== null && notices === before) known.set(realmId, value)
            return value
          })
        })
      return AccessCache.of({ version, entries, deferrable: false })
    })
  )

/** @category layers */
export const layer: Layer.Layer<AccessCache, never, SqlClient.SqlClient> = layerWith({ organizations: keptOrganizations })
