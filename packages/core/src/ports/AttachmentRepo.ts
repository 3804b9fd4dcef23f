/**
 * The attachment rows and their links to messages (port). Implemented by
 * `memory/MemoryAttachmentRepo.ts` and `sql/SqlAttachmentRepo.ts`.
 *
 * A link is written once (`claim` answers whether it was new); a deleted
 * message's links go with it, and an attachment's with the attachment.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { Attachment, AttachmentId, AttachmentMessage } from "../domain/Attachment.ts"
import type { MessageId, RealmId, UserId } from "../domain/Ids.ts"
import type { Insert } from "./Repositories.ts"

/** @category services */
export class AttachmentRepo extends Context.Service<AttachmentRepo, {
  insert(row: Insert<Attachment>): Effect.Effect<Attachment>
  /** The attachment at a path id (any organization), if any. */
  findByPathId(pathId: string): Effect.Effect<Attachment | undefined>
  /** The attachments of an organization at these path ids, by id. */
  findByPathIds(realmId: RealmId, pathIds: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Attachment>>
  /** The row, locked for the rest of the calling transaction (SQL). */
  lock(id: AttachmentId): Effect.Effect<Attachment | undefined>
  delete(id: AttachmentId): Effect.Effect<void>
  /** The user's attachments by id. */
  listByOwner(ownerId: UserId): Effect.Effect<ReadonlyArray<Attachment>>
  /** The messages linking each of these attachments, ascending by id (attachments linked by none are absent). */
  messagesOf(ids: ReadonlyArray<AttachmentId>): Effect.Effect<ReadonlyMap<AttachmentId, ReadonlyArray<AttachmentMessage>>>
  /** Links the attachment to the message; false when it already was. */
  claim(id: AttachmentId, messageId: MessageId): Effect.Effect<boolean>
  /** The attachments the message links, by id. */
  linkedTo(messageId: MessageId): Effect.Effect<ReadonlyArray<Attachment>>
  /** Removes the attachment's link to the message; false when there was none. */
  unclaim(id: AttachmentId, messageId: MessageId): Effect.Effect<boolean>
  /** The total size of the organization's attachments, in bytes. */
  spaceUsed(realmId: RealmId): Effect.Effect<number>
}>()("teamchat/core/ports/AttachmentRepo") {}
