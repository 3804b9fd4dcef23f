/**
 * The scheduled-message store in memory. The Transactor admits one writer at
 * a time, so `claimDue` needs no locks here.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { messageId } from "../domain/Ids.ts"
import { byDeliveryTime, isPending, scheduledMessageId } from "../domain/ScheduledMessage.ts"
import type { ScheduledMessage } from "../domain/ScheduledMessage.ts"
import { ScheduledMessageRepo } from "../ports/ScheduledMessageRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category layers */
export const layer: Layer.Layer<ScheduledMessageRepo, never, MemoryDatabase> = Layer.effect(
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
