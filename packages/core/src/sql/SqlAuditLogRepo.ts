/**
 * The audit log's rows on SQL (`realm_audit_log`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type { AuditLogEntry, AuditLogEventType } from "../domain/AuditLog.ts"
import { fromRow } from "../domain/Ids.ts"
import type { RealmId } from "../domain/Ids.ts"
import { AuditLogRepo } from "../ports/AuditLogRepo.ts"
import type { AuditLogQuery } from "../ports/AuditLogRepo.ts"
import type { Insert } from "../ports/Repositories.ts"
import { jsonList } from "./SqlArrays.ts"

type Row = Readonly<Record<string, unknown>>

const optional = <A>(value: unknown, make: (n: number) => A): A | null =>
  value === null || value === undefined ? null : make(Number(value))

const decode = (row: Row): AuditLogEntry => ({
  id: fromRow.auditLogId(Number(row.id)),
  realm_id: fromRow.realmId(Number(row.realm_id)),
  acting_user_id: optional(row.acting_user_id, fromRow.userId),
  modified_user_id: optional(row.modified_user_id, fromRow.userId),
  modified_stream_id: optional(row.modified_stream_id, fromRow.channelId),
  modified_user_group_id: optional(row.modified_user_group_id, fromRow.groupId),
  event_type: String(row.event_type) as AuditLogEventType,
  event_time: Number(row.event_time),
  extra_data: (typeof row.extra_data === "string" ? JSON.parse(row.extra_data) : row.extra_data) as Schema.JsonObject
})

/** @category layers */
export const layer: Layer.Layer<AuditLogRepo, never, SqlClient.SqlClient> = Layer.effect(
  AuditLogRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return AuditLogRepo.of({
      // Any number of rows as one JSON parameter, in one statement; the
      // ordinality keeps the identity values in the order given.
      insertMany: Effect.fn("AuditLogRepo.insertMany")(function*(entries: ReadonlyArray<Insert<AuditLogEntry>>) {
        if (entries.length === 0) return
        yield* sql`
          INSERT INTO realm_audit_log (realm_id, acting_user_id, modified_user_id, modified_stream_id,
            modified_user_group_id, event_type, event_time, extra_data)
          SELECT r.realm_id, r.acting_user_id, r.modified_user_id, r.modified_stream_id,
            r.modified_user_group_id, r.event_type, r.event_time, r.extra_data
          FROM jsonb_populate_recordset(NULL::realm_audit_log, ${jsonList(entries)}::jsonb) WITH ORDINALITY AS r
          ORDER BY r.ordinality`
      }, Effect.orDie),
      list: Effect.fn("AuditLogRepo.list")(function*(realmId: RealmId, query: AuditLogQuery) {
        if (query.limit <= 0) return []
        const rows = yield* sql<Row>`
          SELECT * FROM (
            SELECT * FROM realm_audit_log
            WHERE realm_id = ${realmId}${query.eventType === undefined ? sql.literal("") : sql` AND event_type = ${query.eventType}`}
            ORDER BY id DESC
            LIMIT ${query.limit}
          ) newest
          ORDER BY id`
        return rows.map(decode)
      }, Effect.orDie)
    })
  })
)
