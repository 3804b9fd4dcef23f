/**
 * The attachment rows and their message links on SQL (`attachments`,
 * `attachment_messages`; migration 0027).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { Attachment, AttachmentId, AttachmentMessage } from "../domain/Attachment.ts"
import { fromRow } from "../domain/Ids.ts"
import type { MessageId, RealmId, UserId } from "../domain/Ids.ts"
import { AttachmentRepo } from "../ports/AttachmentRepo.ts"
import type { Insert } from "../ports/Repositories.ts"

type Row = Readonly<Record<string, unknown>>

const decode = (row: Row): Attachment => ({
  id: fromRow.attachmentId(Number(row.id)),
  realm_id: fromRow.realmId(Number(row.realm_id)),
  owner_id: fromRow.userId(Number(row.owner_id)),
  path_id: String(row.path_id),
  name: String(row.name),
  size: Number(row.size),
  content_type: String(row.content_type),
  create_time: Number(row.create_time)
})

/** @category layers */
export const layer: Layer.Layer<AttachmentRepo, never, SqlClient.SqlClient> = Layer.effect(
  AttachmentRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return AttachmentRepo.of({
      insert: Effect.fn("AttachmentRepo.insert")(function*(row: Insert<Attachment>) {
        const [inserted] = yield* sql<{ id: unknown }>`
          INSERT INTO attachments ${
          sql.insert({
            realm_id: row.realm_id,
            owner_id: row.owner_id,
            path_id: row.path_id,
            name: row.name,
            size: row.size,
            content_type: row.content_type,
            create_time: row.create_time
          })
        } RETURNING id`
        const out: Attachment = { ...row, id: fromRow.attachmentId(Number(inserted!.id)) }
        return out
      }, Effect.orDie),
      findByPathId: Effect.fn("AttachmentRepo.findByPathId")(function*(pathId: string) {
        const rows = yield* sql<Row>`SELECT * FROM attachments WHERE path_id = ${pathId}`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      findByPathIds: Effect.fn("AttachmentRepo.findByPathIds")(function*(realmId: RealmId, pathIds: ReadonlyArray<string>) {
        if (pathIds.length === 0) return []
        const rows = yield* sql<Row>`
          SELECT * FROM attachments WHERE realm_id = ${realmId} AND path_id IN ${sql.in(pathIds)} ORDER BY id`
        return rows.map(decode)
      }, Effect.orDie),
      lock: Effect.fn("AttachmentRepo.lock")(function*(id: AttachmentId) {
        const rows = yield* sql<Row>`SELECT * FROM attachments WHERE id = ${id} FOR UPDATE`
        return rows.length === 0 ? undefined : decode(rows[0]!)
      }, Effect.orDie),
      delete: Effect.fn("AttachmentRepo.delete")(function*(id: AttachmentId) {
        yield* sql`DELETE FROM attachments WHERE id = ${id}`
      }, Effect.orDie),
      listByOwner: Effect.fn("AttachmentRepo.listByOwner")(function*(ownerId: UserId) {
        return (yield* sql<Row>`SELECT * FROM attachments WHERE owner_id = ${ownerId} ORDER BY id`).map(decode)
      }, Effect.orDie),
      messagesOf: Effect.fn("AttachmentRepo.messagesOf")(function*(ids: ReadonlyArray<AttachmentId>) {
        const out = new Map<AttachmentId, Array<AttachmentMessage>>()
        if (ids.length === 0) return out
        const rows = yield* sql<Row>`
          SELECT l.attachment_id, l.message_id, m.date_sent
          FROM attachment_messages l JOIN messages m ON m.id = l.message_id
          WHERE l.attachment_id IN ${sql.in(ids)}
          ORDER BY l.attachment_id, l.message_id`
        for (const row of rows) {
          const id = fromRow.attachmentId(Number(row.attachment_id))
          let list = out.get(id)
          if (list === undefined) out.set(id, list = [])
          list.push({ id: fromRow.messageId(Number(row.message_id)), date_sent: Number(row.date_sent) })
        }
        return out
      }, Effect.orDie),
      claim: Effect.fn("AttachmentRepo.claim")(function*(id: AttachmentId, messageId: MessageId) {
        const rows = yield* sql`
          INSERT INTO attachment_messages (attachment_id, message_id) VALUES (${id}, ${messageId})
          ON CONFLICT DO NOTHING RETURNING attachment_id`
        return rows.length > 0
      }, Effect.orDie),
      linkedTo: Effect.fn("AttachmentRepo.linkedTo")(function*(messageId: MessageId) {
        const rows = yield* sql<Row>`
          SELECT a.* FROM attachments a JOIN attachment_messages l ON l.attachment_id = a.id
          WHERE l.message_id = ${messageId} ORDER BY a.id`
        return rows.map(decode)
      }, Effect.orDie),
      unclaim: Effect.fn("AttachmentRepo.unclaim")(function*(id: AttachmentId, messageId: MessageId) {
        const rows = yield* sql`
          DELETE FROM attachment_messages WHERE attachment_id = ${id} AND message_id = ${messageId}
          RETURNING attachment_id`
        return rows.length > 0
      }, Effect.orDie),
      spaceUsed: Effect.fn("AttachmentRepo.spaceUsed")(function*(realmId: RealmId) {
        const [row] = yield* sql<{ total: unknown }>`
          SELECT COALESCE(SUM(size), 0) AS total FROM attachments WHERE realm_id = ${realmId}`
        return Number(row!.total)
      }, Effect.orDie)
    })
  })
)
