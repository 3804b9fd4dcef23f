/**
 * Every write to the messages and their rows in memory, through the
 * indexed tables (`internal/MessageTables.ts`), whose writes a rollback
 * undoes. A send's events go to the log through `EventStore.append`, in
 * the same transaction.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { messageId } from "../domain/Ids.ts"
import type { MessageId } from "../domain/Ids.ts"
import type { Message } from "../domain/Message.ts"
import { AccessCache, StaleAccess } from "../ports/AccessCache.ts"
import { EventStore, withMessageId } from "../ports/EventStore.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import type { Recipient } from "../ports/MessageStore.ts"
import type { Insert } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** Unique ids, ascending: the order SQL `ORDER BY id` gives for an `IN` list. */
const ascendingIds = (ids: Iterable<number>): Array<number> => Array.from(new Set(ids)).sort((a, b) => a - b)

/** @category layers */
export const layer: Layer.Layer<MessageStore, never, MemoryDatabase | Transactor | EventStore | AccessCache> = Layer.effect(
  MessageStore,
  Effect.gen(function*() {
    const db = yield* MemoryDatabase
    const tx = yield* Transactor
    const log = yield* EventStore
    const access = yield* AccessCache
    const store = db.tables.messages
    const insert = (row: Insert<Message>, recipients: ReadonlyArray<Recipient>): Message => {
      const message: Message = { ...row, id: messageId(db.nextId("messages")) }
      store.insert(message, recipients)
      return message
    }
    return MessageStore.of({
      send: (realmId, row, recipients, events, options) => {
        const write = Effect.flatMap(Effect.sync(() => insert(row, recipients)), (message) =>
          Effect.as(log.append(realmId, events.map((event) => withMessageId(event, message.id))), message.id))
        const expected = options?.accessVersion
        return tx.withTransaction(
          expected === undefined ? write : Effect.flatMap(
            access.version(realmId),
            (current): Effect.Effect<MessageId, StaleAccess> => current === expected ? write : Effect.fail(new StaleAccess())
          )
        )
      },
      insert: (row, recipients) => Effect.sync(() => insert(row, recipients)),
      insertMany: (items) => Effect.sync(() => items.map(({ message, recipients }) => insert(message, recipients))),
      insertUserMessages: (rows) =>
        Effect.sync(() => {
          for (const row of rows) {
            if (store.rowsOf(row.user_id)?.has(row.message_id) !== true) store.setFlags(row.user_id, row.message_id, row.flags)
          }
        }),
      updateFlags: (user, ids, mask, add) =>
        Effect.sync(() => {
          const rows = store.rowsOf(user)
          if (rows === undefined) return []
          const changed: Array<MessageId> = []
          for (const id of ascendingIds(ids)) {
            const flags = rows.get(id)
            if (flags === undefined) continue
            const next = add ? flags | mask : flags & ~mask
            if (next !== flags) {
              store.setFlags(user, id, next)
              changed.push(messageId(id))
            }
          }
          return changed
        }),
      edit: (id, edit) =>
        Effect.sync(() => {
          const message = store.get(id)
          if (message === undefined) return undefined
          const changes = Object.fromEntries(Object.entries(edit).filter(([, value]) => value !== undefined))
          const edited: Message = { ...message, ...changes }
          store.replace(edited)
          return edited
        }),
      move: (ids, to) =>
        Effect.sync(() => {
          const moved: Array<MessageId> = []
          for (const id of ascendingIds(ids)) {
            const message = store.get(id)
            if (message === undefined || message.channel_id === null) continue
            store.replace({
              ...message,
              channel_id: to.channel_id,
              topic: to.topic,
              ...(to.last_moved_time === undefined ? {} : { last_moved_time: to.last_moved_time }),
              edit_history: [to.entry, ...(message.edit_history ?? [])]
            })
            moved.push(messageId(id))
          }
          return moved
        }),
      delete: (ids) =>
        Effect.sync(() => {
          const deleted: Array<MessageId> = []
          for (const id of ascendingIds(ids)) {
            if (store.get(id) === undefined) continue
            store.delete(id)
            deleted.push(messageId(id))
          }
          return deleted
        }),
      deleteUserMessages: (ids, userIds) =>
        Effect.sync(() => {
          for (const id of ids) for (const user of userIds) store.deleteRow(user, id)
        })
    })
  })
)
