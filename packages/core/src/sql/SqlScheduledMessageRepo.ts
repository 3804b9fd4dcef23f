/**
 * The scheduled-message store on SQL. `claimDue` locks the due rows it
 * returns (`FOR UPDATE SKIP LOCKED`) for the rest of the calling transaction,
 * so another process's worker skips them, and a transaction that dies
 * releases them still pending.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import type { MessageType } from "../domain/Message.ts"
import type { ScheduledMessage, ScheduledMessageId } from "../domain/ScheduledMessage.ts"
import type { Insert } from "../ports/Repositories.ts"
import { ScheduledMessageRepo } from "../ports/ScheduledMessageRepo.ts"
import { inIds } from "./SqlArrays.ts"

type Row = Readonly<Record<string, unknown>>

const int = (value: unknown): number => Number(value)
const bool = (value: unknown): boolean => value === true || value === "t" || value === 1
const json = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A

const columns = (m: Insert<ScheduledMessage>) => ({
  realm_id: m.realm_id,
  sender_id: m.sender_id,
  type: m.type,
  channel_id: m.channel_id,
  topic: m.topic,
  dm_user_ids: JSON.stringify(m.dm_user_ids),
  content: m.content,
  rendered_content: m.rendered_content,
  scheduled_timestamp: m.scheduled_timestamp,
  read_by_sender: m.read_by_sender,
  client: m.client,
  delivered: m.delivered,
  delivered_message_id: m.delivered_message_id,
  failed: m.failed,
  failure_message: m.failure_message
})

const decode = (row: Row): ScheduledMessage => ({
  id: fromRow.scheduledMessageId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  sender_id: fromRow.userId(int(row.sender_id)),
  type: String(row.type) as MessageType,
  channel_id: row.channel_id === null || row.channel_id === undefined ? null : fromRow.channelId(int(row.channel_id)),
  topic: String(row.topic),
  dm_user_ids: json<ReadonlyArray<number>>(row.dm_user_ids).map(fromRow.userId),
  content: String(row.content),
  rendered_content: String(row.rendered_content),
  scheduled_timestamp: int(row.scheduled_timestamp),
  read_by_sender: bool(row.read_by_sender),
  client: String(row.client),
  delivered: bool(row.delivered),
  delivered_message_id: row.delivered_message_id === null || row.delivered_message_id === undefined
    ? null
    : fromRow.messageId(int(row.delivered_message_id)),
  failed: bool(row.failed),
  failure_message: row.failure_message === null || row.failure_message === undefined ? null : String(row.failure_message)
})

/** @category layers */
export const layer: Layer.Layer<ScheduledMessageRepo, never, SqlClient.SqlClient> = Layer.effect(
  ScheduledMessageRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return ScheduledMessageRepo.of({
      insert: Effect.fn("ScheduledMessageRepo.insert")(function*(row: Insert<ScheduledMessage>) {
        const [inserted] = yield* sql<{ id: unknown }>`
          INSERT INTO scheduled_messages ${sql.insert(columns(row))} RETURNING id`
        const out: ScheduledMessage = { ...row, id: fromRow.scheduledMessageId(int(inserted!.id)) }
        return out
      }, Effect.orDie),
      update: Effect.fn("ScheduledMessageRepo.update")(function*(row: ScheduledMessage) {
        yield* sql`UPDATE scheduled_messages SET ${sql.update(columns(row))} WHERE id = ${row.id}`
      }, Effect.orDie),
      markDelivered: Effect.fn("ScheduledMessageRepo.markDelivered")(function*(
        delivered: ReadonlyArray<{ readonly id: ScheduledMessageId; readonly messageId: number }>
      ) {
        if (delivered.length === 0) return
        yield* sql`
          UPDATE scheduled_messages AS s SET delivered = true, delivered_message_id = v.m
          FROM jsonb_to_recordset(${JSON.stringify(delivered.map((d) => ({ id: d.id, m: d.messageId })))}::jsonb)
            AS v(id bigint, m bigint)
          WHERE s.id = v.id`
      }, Effect.orDie),
      delete: Effect.fn("ScheduledMessageRepo.delete")(function*(id: ScheduledMessageId) {
        yield* sql`DELETE FROM scheduled_messages WHERE id = ${id}`
      }, Effect.orDie),
      findById: Effect.fn("ScheduledMessageRepo.findById")(function*(id: ScheduledMessageId) {
        const rows = yield* sql<Row>`SELECT * FROM scheduled_messages WHERE id = ${id}`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      lock: Effect.fn("ScheduledMessageRepo.lock")(function*(id: ScheduledMessageId) {
        const rows = yield* sql<Row>`SELECT * FROM scheduled_messages WHERE id = ${id} FOR UPDATE`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      listUndelivered: Effect.fn("ScheduledMessageRepo.listUndelivered")(function*(user: UserId) {
        const rows = yield* sql<Row>`
          SELECT * FROM scheduled_messages
          WHERE sender_id = ${user} AND NOT delivered
          ORDER BY scheduled_timestamp, id`
        return rows.map(decode)
      }, Effect.orDie),
      claimDue: Effect.fn("ScheduledMessageRepo.claimDue")(function*(
        now: number,
        limit: number,
        skip: ReadonlyArray<ScheduledMessageId> = []
      ) {
        const rows = yield* sql<Row>`
          SELECT * FROM scheduled_messages
          WHERE NOT delivered AND NOT failed AND scheduled_timestamp <= ${now}
            ${skip.length === 0 ? sql`` : sql`AND NOT ${inIds(sql, "id", skip)}`}
          ORDER BY scheduled_timestamp, id
          LIMIT ${Math.max(0, limit)}
          FOR UPDATE SKIP LOCKED`
        return rows.map(decode)
      }, Effect.orDie),
      nextDue: sql<{ next: unknown }>`
        SELECT min(scheduled_timestamp) AS next FROM scheduled_messages WHERE NOT delivered AND NOT failed`.pipe(
        Effect.map((rows) => (rows[0]?.next === null || rows[0]?.next === undefined ? null : int(rows[0].next))),
        Effect.orDie,
        Effect.withSpan("ScheduledMessageRepo.nextDue")
      )
    })
  })
)
