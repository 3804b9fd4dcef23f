/**
 * AccessCache in memory (see `ports/AccessCache.ts` for the design): the
 * organization's access version is its row of `MemoryTables.accessVersions`,
 * moved by the memory repositories on every write to what access decisions
 * read, as SQL's triggers move `access_versions`. So the services keep one
 * read of an organization between requests here as on SQL, through the same
 * loader (`makeAccessLoader`) and key lookup (`makeCachedKeyLookup`).
 *
 * Memory transactions do not isolate: a read outside a transaction sees its
 * writes before it commits. A read kept then carries a version handed out
 * inside the transaction, and a rollback restores the version from before
 * it, which no read of the rolled-back state carries: the next request
 * reads again.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AccessRead } from "../domain/AccessState.ts"
import type { RealmId } from "../domain/Ids.ts"
import { LruMap } from "../domain/LruMap.ts"
import { AccessCache, keptOrganizations } from "../ports/AccessCache.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category layers */
export const layer: Layer.Layer<AccessCache, never, MemoryDatabase> = Layer.effect(
  AccessCache,
  MemoryDatabase.useSync((db) =>
    AccessCache.of({
      version: (realmId) => Effect.sync(() => db.tables.accessVersions.get(realmId) ?? null),
      // One process, the version is the table's: nothing kept to check.
      verify: (realmId) => Effect.sync(() => db.tables.accessVersions.get(realmId) ?? null),
      entries: new LruMap<RealmId, AccessRead>(keptOrganizations),
      deferrable: false,
      // The version is read on every request here: a write moves it already.
      changed: () => Effect.void
    })
  )
)
