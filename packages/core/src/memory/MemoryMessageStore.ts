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
import { messageId, submessageId } from "../domain/Ids.ts"
import type { MessageId } from "../domain/Ids.ts"
import { FlagBits } from "../domain/Message.ts"
import type { Message } from "../domain/Message.ts"
import { pgLower } from "../narrow/NarrowPredicate.ts"
import { AccessCache, StaleAccess } from "../ports/AccessCache.ts"
import { EventStore, withMessageId } from "../ports/EventStore.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import type { ReactionKey, Recipient } from "../ports/MessageStore.ts"
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
    const submessages = db.tables.submessages
    const reactions = db.tables.reactions
    const sameEmoji = (a: ReactionKey) => (b: ReactionKey) =>
      a.user_id === b.user_id && a.emoji_code === b.emoji_code && a.reaction_type === b.reaction_type
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
      markRead: (user, within) =>
        Effect.sync(() => {
          const lowerTopic = within?.topic === undefined ? undefined : pgLower(within.topic)
          const marked: Array<MessageId> = []
          // Collected first: marking a row takes it out of the unread index being walked.
          for (const id of Array.from(store.userRows(user).unread.ascending())) {
            if (within !== undefined) {
              const message = store.get(id)
              if (message === undefined || message.channel_id !== within.channel_id) continue
              if (lowerTopic !== undefined && pgLower(message.topic) !== lowerTopic) continue
            }
            store.setFlags(user, id, store.rowsOf(user)!.get(id)! | FlagBits.read)
            marked.push(messageId(id))
          }
          return marked
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
            submessages.delete(id)
            reactions.delete(id)
            deleted.push(messageId(id))
          }
          return deleted
        }),
      deleteUserMessages: (ids, userIds) =>
        Effect.sync(() => {
          for (const id of ids) for (const user of userIds) store.deleteRow(user, id)
        }),
      // Transactions run one at a time in memory: nothing can delete it meanwhile.
      lockMessage: (id) => Effect.sync(() => store.get(id) !== undefined),
      addSubmessage: (row) =>
        Effect.sync(() => {
          const submessage = { ...row, id: submessageId(db.nextId("submessages")) }
          submessages.set(row.message_id, [...(submessages.get(row.message_id) ?? []), submessage])
          return submessage
        }),
      submessages: (ids) =>
        Effect.sync(() =>
          ascendingIds(ids).flatMap((id) => submessages.get(id) ?? []).sort((a, b) => a.id - b.id)
        ),
      addReaction: (reaction) =>
        Effect.sync(() => {
          const existing = reactions.get(reaction.message_id) ?? []
          if (existing.some(sameEmoji(reaction))) return false
          reactions.set(reaction.message_id, [...existing, reaction])
          return true
        }),
      removeReaction: (key) =>
        Effect.sync(() => {
          const existing = reactions.get(key.message_id) ?? []
          const found = existing.find(sameEmoji(key))
          if (found === undefined) return undefined
          const rest = existing.filter((r) => r !== found)
          if (rest.length === 0) reactions.delete(key.message_id)
          else reactions.set(key.message_id, rest)
          return found
        })
    })
  })
)
