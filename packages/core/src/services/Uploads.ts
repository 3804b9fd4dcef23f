/**
 * Uploaded files: POST /user_uploads, the download at
 * /user_uploads/{realm_id}/{path}, GET /attachments and DELETE
 * /attachments/{attachment_id}, with the `attachment` events (to the
 * uploader's clients only). Messages claim the uploads they link
 * (`Messages`, `internal/attachments.ts`).
 *
 * An upload streams into the file store (`FileStorage`) while it is
 * counted against the server's limit (`MaxFileUploadSizeMib`), then its
 * row is written and announced in one transaction. A refused upload (too
 * large, a body cut off, a failing store or database) leaves no object and
 * no row behind.
 *
 * Who may download (Zulip's `validate_attachment_request`): the uploader,
 * and whoever may read a message that links the file. Whoever may download
 * a file may also get a temporary URL for it (GET
 * /api/v1/user_uploads/{realm_id}/{path}), which serves it without
 * credentials for `TemporaryUrlValiditySeconds`: its token is the path id
 * and the time it expires, signed with the server's key
 * (`KeyGenerator.sign`), hex-encoded in upper case as Zulip's.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import {
  contentTypeOf,
  decodeFileName,
  isAttachmentId,
  isPathId,
  MaxFileUploadSizeMib,
  sanitizeName,
  temporaryUrl as temporaryUrlOf,
  TemporaryUrlValiditySeconds,
  toApiAttachment,
  UploadTexts,
  uploadUrl
} from "../domain/Attachment.ts"
import type { ApiAttachment, Attachment } from "../domain/Attachment.ts"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import type { Principal } from "../domain/Principal.ts"
import { BadRequest } from "../errors/Errors.ts"
import { AttachmentRepo } from "../ports/AttachmentRepo.ts"
import { FileStorage, StorageUnavailable } from "../ports/FileStorage.ts"
import type { ByteRange, ObjectNotFound } from "../ports/FileStorage.ts"
import { MessageRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"
import { makeAccessLoader } from "./internal/access.ts"
import { accessMessage } from "./internal/messageAccess.ts"
import { KeyGenerator } from "./internal/KeyGenerator.ts"

/** One file part of POST /user_uploads. @category models */
export interface UploadedFile<E> {
  /** The file name the client gave (`clientFileName` already applied). */
  readonly name: string
  /** The part's own `Content-Type`, if any. */
  readonly contentType: string | undefined
  readonly content: Stream.Stream<Uint8Array, E>
  /**
   * The rest of the request, read once the file is stored and before it is
   * recorded: a failure (a second file) refuses the upload, nothing kept.
   */
  readonly rest?: Effect.Effect<void, E> | undefined
}

/** POST /user_uploads' answer. @category models */
export interface UploadResult {
  /** `/user_uploads/{path id}`. */
  readonly url: string
  /** The name the client sent, percent-decoded. */
  readonly filename: string
}

/** What a download finds. @category models */
export type Download =
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "Forbidden" }
  | {
    readonly _tag: "Found"
    readonly attachment: Attachment
    /** The file's bytes (or a range of them); `ObjectNotFound` when the store lost it. */
    readonly read: (
      range?: ByteRange
    ) => Effect.Effect<Stream.Stream<Uint8Array, StorageUnavailable>, ObjectNotFound | StorageUnavailable>
  }

/** What asking for a temporary URL finds. @category models */
export type TemporaryUrl =
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "Forbidden" }
  | { readonly _tag: "Url"; readonly url: string }

/** A download that was found. @category models */
export type FoundDownload = Extract<Download, { readonly _tag: "Found" }>

/** GET /attachments. @category models */
export interface AttachmentList {
  readonly attachments: ReadonlyArray<ApiAttachment>
  readonly upload_space_used: number
}

/** Without a configured store every file operation fails. */
const noStorage: FileStorage["Service"] = (() => {
  const fail = (key: string) => Effect.fail(new StorageUnavailable({ key, reason: "no file storage configured" }))
  return FileStorage.of({ write: (key) => fail(key), read: (key) => fail(key), stat: (key) => fail(key), delete: (key) => fail(key) })
})()

const hexDigits = "0123456789abcdef"

/** The salt of temporary URLs' signatures. */
const temporaryUrlSalt = "teamchat/uploads/temporary-url"

/** Upper-case hex of a string's UTF-8 bytes (Python's `base64.b16encode`), and back: undefined unless well formed. */
const toHex = (text: string) => Buffer.from(text, "utf8").toString("hex").toUpperCase()
const fromHex = (hex: string): string | undefined => {
  if (hex.length % 2 !== 0 || !/^[0-9A-F]*$/.test(hex)) return undefined
  const bytes = Buffer.from(hex, "hex")
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}
const urlSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** @category services */
export class Uploads extends Context.Service<Uploads, {
  /** POST /user_uploads: the file stored and recorded, announced (`attachment` `add`). */
  upload<E>(principal: Principal, file: UploadedFile<E>): Effect.Effect<UploadResult, BadRequest | StorageUnavailable | E>
  /** GET /user_uploads/{path id}: the attachment when the user may read it. */
  download(principal: Principal, pathId: string): Effect.Effect<Download>
  /** GET /api/v1/user_uploads/{path id}: a URL serving the file without credentials for a while, under the download's rule. */
  temporaryUrl(principal: Principal, pathId: string): Effect.Effect<TemporaryUrl>
  /**
   * GET /user_uploads/temporary/{token}/{filename}, without credentials:
   * the file when the token is the server's, unexpired, for `filename`.
   */
  downloadByToken(token: string, filename: string): Effect.Effect<FoundDownload, BadRequest>
  /** GET /attachments: the user's uploads and the organization's total. */
  list(principal: Principal): Effect.Effect<AttachmentList>
  /** DELETE /attachments/{attachment_id}: only the uploader's; the file goes too. */
  remove(principal: Principal, id: number): Effect.Effect<void, BadRequest>
}>()("teamchat/core/services/Uploads") {
  static readonly layer = Layer.effect(
    Uploads,
    Effect.gen(function*() {
      const repo = yield* AttachmentRepo
      const messages = yield* MessageRepo
      const events = yield* Events
      const tx = yield* Transactor
      const keys = yield* KeyGenerator
      const loadAccess = yield* makeAccessLoader
      const storage = Option.getOrElse(yield* Effect.serviceOption(FileStorage), () => noStorage)
      const maxMib = yield* MaxFileUploadSizeMib

      const publish = (principal: Principal, event: EventOf<"attachment">) =>
        events.publish(principal.realm.id, event, Audience.users([principal.user.id]))

      const upload = Effect.fn("Uploads.upload")(function*<E>(principal: Principal, file: UploadedFile<E>) {
        const filename = decodeFileName(file.name)
        const pathId = `${principal.realm.id}/${yield* keys.token(2, hexDigits)}/${yield* keys.token(24, urlSafe)}/${
          sanitizeName(filename)
        }`
        const limit = maxMib * 1024 * 1024
        let received = 0
        const counted = Stream.mapEffect(file.content, (chunk) => {
          received += chunk.length
          return received > limit ? Effect.fail(new BadRequest({ msg: UploadTexts.tooLarge(maxMib) })) : Effect.succeed(chunk)
        })
        const content_type = contentTypeOf(file.contentType, filename)
        const { size } = yield* storage.write(pathId, counted, { contentType: content_type })
        const create_time = yield* Clock.currentTimeMillis
        yield* Effect.andThen(file.rest ?? Effect.void, tx.withTransaction(Effect.gen(function*() {
          const attachment = yield* repo.insert({
            realm_id: principal.realm.id,
            owner_id: principal.user.id,
            path_id: pathId,
            name: filename,
            size,
            content_type,
            create_time
          })
          const space = yield* repo.spaceUsed(principal.realm.id)
          yield* publish(principal, {
            type: "attachment",
            op: "add",
            attachment: toApiAttachment(attachment, []),
            upload_space_used: space
          })
        }))).pipe(
          // Nothing recorded: nothing kept.
          Effect.onError(() => Effect.ignore(storage.delete(pathId)))
        )
        return { url: uploadUrl(pathId), filename } satisfies UploadResult
      })

      const download = Effect.fn("Uploads.download")(function*(principal: Principal, pathId: string) {
        // A path no upload can have is not looked up (a NUL byte would not even reach the database).
        const attachment = isPathId(pathId) ? yield* repo.findByPathId(pathId) : undefined
        if (attachment === undefined) return { _tag: "NotFound" } satisfies Download as Download
        const found: Download = {
          _tag: "Found",
          attachment,
          read: (range) => storage.read(attachment.path_id, range)
        }
        if (attachment.realm_id !== principal.realm.id) return { _tag: "Forbidden" } satisfies Download as Download
        if (attachment.owner_id === principal.user.id) return found
        const linked = (yield* repo.messagesOf([attachment.id])).get(attachment.id) ?? []
        if (linked.length > 0) {
          const ctx = yield* loadAccess(principal.realm)
          const user = ctx.state.usersById.get(principal.user.id) ?? principal.user
          for (const { id } of linked) {
            const readable = yield* accessMessage(messages, ctx, user, yield* messages.findById(id), "read")
            if (readable !== undefined) return found
          }
        }
        return { _tag: "Forbidden" } satisfies Download as Download
      })

      const list = Effect.fn("Uploads.list")(function*(principal: Principal) {
        const own = yield* repo.listByOwner(principal.user.id)
        const linked = yield* repo.messagesOf(own.map((a) => a.id))
        return {
          attachments: own.map((a) => toApiAttachment(a, linked.get(a.id) ?? [])),
          upload_space_used: yield* repo.spaceUsed(principal.realm.id)
        } satisfies AttachmentList
      })

      const remove = Effect.fn("Uploads.remove")(function*(principal: Principal, id: number) {
        yield* tx.withTransaction(Effect.gen(function*() {
          const row = isAttachmentId(id) ? yield* repo.lock(id) : undefined
          if (row === undefined || row.owner_id !== principal.user.id) {
            return yield* new BadRequest({ msg: UploadTexts.invalidAttachment })
          }
          yield* repo.delete(row.id)
          const space = yield* repo.spaceUsed(principal.realm.id)
          yield* publish(principal, { type: "attachment", op: "remove", attachment: { id: row.id }, upload_space_used: space })
          // The bytes go once the row is gone for good.
          yield* tx.afterCommit(
            storage.delete(row.path_id).pipe(
              Effect.catch((error) => Effect.logWarning("Uploads.remove: the file stays in the store", error))
            )
          )
        }))
      })

      const temporaryUrl = Effect.fn("Uploads.temporaryUrl")(function*(principal: Principal, pathId: string) {
        const found = yield* download(principal, pathId)
        if (found._tag !== "Found") return found
        const path = found.attachment.path_id
        const expires = Math.floor((yield* Clock.currentTimeMillis) / 1000) + TemporaryUrlValiditySeconds
        const signed = `${path}:${expires}`
        const token = toHex(`${signed}:${yield* keys.sign(temporaryUrlSalt, signed)}`)
        return { _tag: "Url", url: temporaryUrlOf(token, path) } satisfies TemporaryUrl as TemporaryUrl
      })

      const downloadByToken = Effect.fn("Uploads.downloadByToken")(function*(token: string, filename: string) {
        const invalidToken = new BadRequest({ msg: UploadTexts.invalidToken })
        const data = fromHex(token)
        const signatureAt = data?.lastIndexOf(":") ?? -1
        const expiresAt = signatureAt > 0 ? data!.lastIndexOf(":", signatureAt - 1) : -1
        if (data === undefined || expiresAt <= 0) return yield* invalidToken
        const signed = data.slice(0, signatureAt)
        const path = data.slice(0, expiresAt)
        const expires = data.slice(expiresAt + 1, signatureAt)
        if (!/^\d{1,15}$/.test(expires) || !(yield* keys.verify(temporaryUrlSalt, signed, data.slice(signatureAt + 1)))) {
          return yield* invalidToken
        }
        // Django's `TimestampSigner`: expired once more than the validity has passed since the (whole) second it was signed.
        if ((yield* Clock.currentTimeMillis) > Number(expires) * 1000) return yield* invalidToken
        if (path.slice(path.lastIndexOf("/") + 1) !== filename) return yield* new BadRequest({ msg: UploadTexts.invalidFilename })
        const attachment = isPathId(path) ? yield* repo.findByPathId(path) : undefined
        if (attachment === undefined) return yield* invalidToken
        return {
          _tag: "Found",
          attachment,
          read: (range) => storage.read(attachment.path_id, range)
        } satisfies FoundDownload as FoundDownload
      })

      return Uploads.of({ upload, download, temporaryUrl, downloadByToken, list, remove })
    })
  )
}
