/**
 * The scheduled-message store: the port and its memory and SQL
 * implementations (same observable results; see RepositoryContract).
 *
 * `claimDue` is what makes delivery exactly-once: on SQL it locks the due
 * rows it returns (`FOR UPDATE SKIP LOCKED`) for the rest of the calling
 * transaction, so another process's worker skips them, and a transaction
 * that dies releases them still pending. In memory the Transactor admits one
 * writer at a time, which gives the same guarantee.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { channelId, messageId, realmId, userId } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import type { MessageType } from "../domain/Message.ts"
import { byDeliveryTime, isPending, scheduledMessageId } from "../domain/ScheduledMessage.ts"
import { inIds } from "../sql/SqlArrays.ts"
import type { ScheduledMessage, ScheduledMessageId } from "../domain/ScheduledMessage.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"
import type { Insert } from "./Repositories.ts"

/** @category services */
export class ScheduledMessageRepo extends Context.Service<ScheduledMessageRepo, {
  insert(row: Insert<ScheduledMessage>): Effect.Effect<ScheduledMessage>
  update(row: ScheduledMessage): Effect.Effect<void>
  /** Marks rows delivered, each with the id of the message it became (one statement for a batch). */
  markDelivered(
    rows: ReadonlyArray<{ readonly id: ScheduledMessageId; readonly messageId: number }>
  ): Effect.Effect<void>
  delete(id: ScheduledMessageId): Effect.Effect<void>
  findById(id: ScheduledMessageId): Effect.Effect<ScheduledMessage | undefined>
  /**
   * `findById`, locking the row until the surrounding transaction ends (an
   * edit waits for a delivery in progress, then sees it delivered).
   */
  lock(id: ScheduledMessageId): Effect.Effect<ScheduledMessage | undefined>
  /** The user's undelivered rows (failed ones included), by delivery time then id. */
  listUndelivered(userId: UserId): Effect.Effect<ReadonlyArray<ScheduledMessage>>
  /**
   * Up to `limit` pending rows due at `nowSeconds` (scheduled at or before
   * it), oldest first, locked until the surrounding transaction ends; rows
   * another transaction holds are skipped, and so are the ids in `skip`.
   * Call inside a transaction.
   */
  claimDue(
    nowSeconds: number,
    limit: number,
    skip?: ReadonlyArray<ScheduledMessageId>
  ): Effect.Effect<ReadonlyArray<ScheduledMessage>>
  /** The earliest delivery time of any pending row; null when none. */
  nextDue: Effect.Effect<number | null>
}>()("teamchat/core/persistence/ScheduledMessageRepo") {}

// -----------------------------------------------------------------------------
// memory

/** @category layers */
export const layerMemory = Layer.effect(
  ScheduledMessageRepo,
  MemoryDatabase.useSync((db) => {
    const rows = () => db.tables.scheduledMessages.values()
    return ScheduledMessageRepo.of({
      insert: (row) =>
        Effect.sync(() => {
          const inserted: ScheduledMessage = { ...row, id: scheduledMessageId(db.nextId("scheduledMessages")) }
          db.tables.scheduledMessages.set(inserted.id, inserted)
          return inserted
        }),
      update: (row) =>
        Effect.sync(() => {
          if (db.tables.scheduledMessages.has(row.id)) db.tables.scheduledMessages.set(row.id, row)
        }),
      markDelivered: (delivered) =>
        Effect.sync(() => {
          for (const d of delivered) {
            const row = db.tables.scheduledMessages.get(d.id)
            if (row !== undefined) {
              db.tables.scheduledMessages.set(d.id, { ...row, delivered: true, delivered_message_id: messageId(d.messageId) })
            }
          }
        }),
      delete: (id) => Effect.sync(() => void db.tables.scheduledMessages.delete(id)),
      findById: (id) => Effect.sync(() => db.tables.scheduledMessages.get(id)),
      lock: (id) => Effect.sync(() => db.tables.scheduledMessages.get(id)),
      listUndelivered: (user) =>
        Effect.sync(() => Array.from(rows()).filter((m) => m.sender_id === user && !m.delivered).sort(byDeliveryTime)),
      claimDue: (now, limit, skip = []) =>
        Effect.sync(() =>
          Array.from(rows())
            .filter((m) => isPending(m) && m.scheduled_timestamp <= now && !skip.includes(m.id))
            .sort(byDeliveryTime)
            .slice(0, Math.max(0, limit))
        ),
      nextDue: Effect.sync(() => {
        let next: number | null = null
        for (const m of rows()) {
          if (isPending(m) && (next === null || m.scheduled_timestamp < next)) next = m.scheduled_timestamp
        }
        return next
      })
    })
  })
)

// -----------------------------------------------------------------------------
// SQL

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
  id: scheduledMessageId(int(row.id)),
  realm_id: realmId(int(row.realm_id)),
  sender_id: userId(int(row.sender_id)),
  type: String(row.type) as MessageType,
  channel_id: row.channel_id === null || row.channel_id === undefined ? null : channelId(int(row.channel_id)),
  topic: String(row.topic),
  dm_user_ids: json<ReadonlyArray<number>>(row.dm_user_ids).map(userId),
  content: String(row.content),
  rendered_content: String(row.rendered_content),
  scheduled_timestamp: int(row.scheduled_timestamp),
  read_by_sender: bool(row.read_by_sender),
  client: String(row.client),
  delivered: bool(row.delivered),
  delivered_message_id: row.delivered_message_id === null || row.delivered_message_id === undefined
    ? null
    : messageId(int(row.delivered_message_id)),
  failed: bool(row.failed),
  failure_message: row.failure_message === null || row.failure_message === undefined ? null : String(row.failure_message)
})

/** @category layers */
export const layerSql = Layer.effect(
  ScheduledMessageRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return ScheduledMessageRepo.of({
      insert: Effect.fn("ScheduledMessageRepo.insert")(function*(row: Insert<ScheduledMessage>) {
        const [inserted] = yield* sql<{ id: unknown }>`
          INSERT INTO scheduled_messages ${sql.insert(columns(row))} RETURNING id`
        const out: ScheduledMessage = { ...row, id: scheduledMessageId(int(inserted!.id)) }
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
