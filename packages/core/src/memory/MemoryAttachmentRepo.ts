/**
 * The attachment rows and their message links in memory. A link to a
 * message since deleted is not read (SQL deletes it with the message).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { attachmentId } from "../domain/Attachment.ts"
import type { Attachment, AttachmentId, AttachmentMessage } from "../domain/Attachment.ts"
import { messageId } from "../domain/Ids.ts"
import { AttachmentRepo } from "../ports/AttachmentRepo.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category layers */
export const layer: Layer.Layer<AttachmentRepo, never, MemoryDatabase> = Layer.effect(
  AttachmentRepo,
  MemoryDatabase.useSync((db) => {
    const rows = db.tables.attachments
    const links = db.tables.attachmentMessages
    const byId = (a: Attachment, b: Attachment) => a.id - b.id
    return AttachmentRepo.of({
      insert: (row) =>
        Effect.sync(() => {
          const attachment: Attachment = { ...row, id: attachmentId(db.nextId("attachments")) }
          rows.set(attachment.id, attachment)
          return attachment
        }),
      findByPathId: (pathId) => Effect.sync(() => [...rows.values()].find((a) => a.path_id === pathId)),
      findByPathIds: (realmId, pathIds) =>
        Effect.sync(() => {
          const wanted = new Set(pathIds)
          return [...rows.values()].filter((a) => a.realm_id === realmId && wanted.has(a.path_id)).sort(byId)
        }),
      lock: (id) => Effect.sync(() => rows.get(id)),
      delete: (id) =>
        Effect.sync(() => {
          rows.delete(id)
          links.delete(id)
        }),
      listByOwner: (ownerId) => Effect.sync(() => [...rows.values()].filter((a) => a.owner_id === ownerId).sort(byId)),
      messagesOf: (ids) =>
        Effect.sync(() => {
          const out = new Map<AttachmentId, ReadonlyArray<AttachmentMessage>>()
          for (const id of ids) {
            const list: Array<AttachmentMessage> = []
            for (const m of [...(links.get(id) ?? [])].sort((a, b) => a - b)) {
              const message = db.tables.messages.get(m)
              if (message !== undefined) list.push({ id: messageId(m), date_sent: message.date_sent })
            }
            if (list.length > 0) out.set(id, list)
          }
          return out
        }),
      claim: (id, message) =>
        Effect.sync(() => {
          const current = links.get(id) ?? []
          if (current.includes(message)) return false
          links.set(id, [...current, message])
          return true
        }),
      linkedTo: (message) =>
        Effect.sync(() =>
          [...links].filter(([, ids]) => ids.includes(message)).flatMap(([id]) => {
            const row = rows.get(id)
            return row === undefined ? [] : [row]
          }).sort(byId)
        ),
      unclaim: (id, message) =>
        Effect.sync(() => {
          const current = links.get(id) ?? []
          if (!current.includes(message)) return false
          links.set(id, current.filter((m) => m !== message))
          return true
        }),
      spaceUsed: (realmId) =>
        Effect.sync(() => [...rows.values()].reduce((n, a) => a.realm_id === realmId ? n + a.size : n, 0))
    })
  })
)
