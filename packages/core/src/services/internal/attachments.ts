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
import { type ApiAttachment, linkedPathIds, toApiAttachment } from "../../domain/Attachment.ts"
import { Audience } from "../../domain/Event.ts"
import type { EventPayload } from "../../domain/Event.ts"
import type { RealmId, UserId } from "../../domain/Ids.ts"
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

/**
 * A content edit's links (Zulip's `check_attachment_reference_change`): the
 * uploads the old content linked and the new one does not lose their link
 * to the message; the sender's uploads the new content links are claimed as
 * a send claims them. Answers the edit's `detached_uploads`: the editor's
 * uploads that this edit left linked by no message. `before` is the content
 * the message had.
 */
export const relinkAttachments = Effect.fnUntraced(function*(
  repo: AttachmentRepo["Service"],
  publishAll: PublishAll,
  edited: Message,
  before: string,
  editorId: UserId
) {
  const detached: Array<ApiAttachment> = []
  // Links come only from content: content that never linked an upload has none to lose.
  if (before.includes("/user_uploads/")) {
    const kept = new Set(edited.content.includes("/user_uploads/") ? linkedPathIds(edited.content, edited.realm_id) : [])
    const unlinked = []
    for (const attachment of yield* repo.linkedTo(edited.id)) {
      if (!kept.has(attachment.path_id) && (yield* repo.unclaim(attachment.id, edited.id))) unlinked.push(attachment)
    }
    if (unlinked.length > 0) {
      const stillLinked = yield* repo.messagesOf(unlinked.map((a) => a.id))
      for (const attachment of unlinked) {
        if (attachment.owner_id === editorId && !stillLinked.has(attachment.id)) detached.push(toApiAttachment(attachment, []))
      }
    }
  }
  yield* claimAttachments(repo, publishAll, edited)
  return detached
})
