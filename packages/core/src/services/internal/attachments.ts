/**
 * Claiming uploads: a sent message that links uploads of its sender's
 * (`/user_uploads/{path id}` in its content) records each link, in the
 * send's transaction, and tells the uploader's clients (`attachment`
 * `update`, with the messages now linking it). Links to files of others,
 * of other organizations or to nothing are left alone.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { linkedPathIds, toApiAttachment } from "../../domain/Attachment.ts"
import { Audience } from "../../domain/Event.ts"
import type { EventPayload } from "../../domain/Event.ts"
import type { RealmId } from "../../domain/Ids.ts"
import type { Message } from "../../domain/Message.ts"
import type { AttachmentRepo } from "../../ports/AttachmentRepo.ts"

/** `Events.publishAll` (the events module sits above this one). */
type PublishAll = (
  realmId: RealmId,
  publications: ReadonlyArray<{ readonly event: EventPayload; readonly audience: Audience }>
) => Effect.Effect<void>

/** Whether a content links any upload of the organization (a send that does is written in a transaction). */
export const linksUploads = (content: string, realmId: RealmId): boolean =>
  content.includes("/user_uploads/") && linkedPathIds(content, realmId).length > 0

/** Claims the uploads the message links for it (see the module's doc). */
export const claimAttachments = Effect.fnUntraced(function*(
  repo: AttachmentRepo["Service"],
  publishAll: PublishAll,
  message: Message
) {
  if (!message.content.includes("/user_uploads/")) return
  const pathIds = linkedPathIds(message.content, message.realm_id)
  if (pathIds.length === 0) return
  const owned = (yield* repo.findByPathIds(message.realm_id, pathIds)).filter((a) => a.owner_id === message.sender_id)
  const claimed = []
  for (const attachment of owned) {
    if (yield* repo.claim(attachment.id, message.id)) claimed.push(attachment)
  }
  if (claimed.length === 0) return
  const linked = yield* repo.messagesOf(claimed.map((a) => a.id))
  const space = yield* repo.spaceUsed(message.realm_id)
  yield* publishAll(
    message.realm_id,
    claimed.map((attachment) => ({
      event: {
        type: "attachment",
        op: "update",
        attachment: toApiAttachment(attachment, linked.get(attachment.id) ?? []),
        upload_space_used: space
      },
      audience: Audience.users([attachment.owner_id])
    }))
  )
})
