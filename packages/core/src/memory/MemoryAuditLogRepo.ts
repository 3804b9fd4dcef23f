/**
 * The audit log's rows in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { auditLogId } from "../domain/Ids.ts"
import { AuditLogRepo } from "../ports/AuditLogRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category layers */
export const layer: Layer.Layer<AuditLogRepo, never, MemoryDatabase> = Layer.effect(
  AuditLogRepo,
  MemoryDatabase.useSync((db) =>
    AuditLogRepo.of({
      insertMany: (entries) =>
        Effect.sync(() => {
          for (const entry of entries) {
            const id = auditLogId(db.nextId("auditLog"))
            db.tables.auditLog.set(id, { ...entry, id })
          }
        }),
      list: (realmId, query) =>
        Effect.sync(() => {
          const rows = [...db.tables.auditLog.values()].filter((entry) =>
            entry.realm_id === realmId && (query.eventType === undefined || entry.event_type === query.eventType)
          ).sort((a, b) => a.id - b.id)
          return query.limit <= 0 ? [] : rows.slice(-query.limit)
        })
    })
  )
)
