/**
 * The audit log's rows (port). Implemented by `memory/MemoryAuditLogRepo.ts`
 * and `sql/SqlAuditLogRepo.ts`; services write through `AuditLog`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { AuditLogEntry, AuditLogEventType } from "../domain/AuditLog.ts"
import type { RealmId } from "../domain/Ids.ts"
import type { Insert } from "./Repositories.ts"

/** Which rows `list` reads. @category models */
export interface AuditLogQuery {
  /** At most this many, the newest. */
  readonly limit: number
  /** Only rows of this type. */
  readonly eventType?: AuditLogEventType | undefined
}

/** @category services */
export class AuditLogRepo extends Context.Service<AuditLogRepo, {
  /** Inserts the rows in one write; ids ascend in the order given. */
  insertMany(entries: ReadonlyArray<Insert<AuditLogEntry>>): Effect.Effect<void>
  /** The organization's newest rows the query selects, oldest first (by id). */
  list(realmId: RealmId, query: AuditLogQuery): Effect.Effect<ReadonlyArray<AuditLogEntry>>
}>()("teamchat/core/ports/AuditLogRepo") {}
