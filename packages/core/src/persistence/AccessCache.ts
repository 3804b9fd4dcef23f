/**
 * One read of each organization's access state (users, groups, channels,
 * subscriptions) kept between requests on SQL, valid while the
 * organization's access version (bumped by triggers on every write to those
 * tables, see migration `0006_access_versions`) stays the same. Checking the
 * version is one indexed single-row read instead of loading the whole
 * organization on every message sent or read.
 *
 * The memory backend has no version and no cache: it reads its maps anyway.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { RealmId } from "../domain/Ids.ts"

/** @category services */
export class AccessCache extends Context.Service<AccessCache, {
  /** The organization's current access version; null when it has none yet (nothing is cached then). */
  readonly version: (realmId: RealmId) => Effect.Effect<number | null>
  /** The last read per organization, with the version it was read at. */
  readonly entries: Map<RealmId, { readonly version: number; readonly value: unknown }>
}>()("teamchat/core/persistence/AccessCache") {
  static readonly layerSql: Layer.Layer<AccessCache, never, SqlClient.SqlClient> = Layer.effect(
    AccessCache,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return AccessCache.of({
        version: (realmId) =>
          sql<{ version: unknown }>`SELECT version FROM access_versions WHERE realm_id = ${realmId}`.pipe(
            Effect.map((rows) => (rows.length === 0 ? null : Number(rows[0]!.version))),
            Effect.orDie
          ),
        entries: new Map()
      })
    })
  )
}
