/**
 * POST /user_uploads, GET /attachments, DELETE
 * /attachments/{attachment_id} (the `uploads` group) and the download at
 * GET /user_uploads/{realm_id}/{path} (the `files` group).
 *
 * The upload reads the multipart body as it arrives (`asMultipartStream`):
 * text fields are skipped, the first file part (a part with a file name, as
 * Django counts files) is streamed to the store, and the rest of the body
 * is read before the upload is recorded, so a second file part refuses it
 * ("You may only upload one file at a time") with nothing kept. A body that
 * is not multipart has no file ("You must specify a file to upload"), as
 * Django finds none in it.
 *
 * The download answers as Zulip's `serve_file`: the bytes with the stored
 * type, `inline` only for the types Zulip inlines and `attachment`
 * otherwise, `Cache-Control: private, immutable`; other answers are
 * Zulip's HTML 404 and 403. Every file is sent with
 * `X-Content-Type-Options: nosniff` and a Content-Security-Policy that
 * blocks scripts, and the types served as attachments are sandboxed too,
 * so an uploaded page or SVG never runs in the server's origin. A single
 * byte range (`Range: bytes=…`) is answered with 206 and `Content-Range`;
 * one past the end with 416.
 *
 * @since 0.1.0
 */
import { Attachment, Errors, Uploads } from "@teamchat/core"
import type { FileStorage } from "@teamchat/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Multipart from "effect/http/Multipart"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Stream from "effect/Stream"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"

const malformed = () => new Errors.BadRequest({ msg: "Malformed request body" })

/** The parts of a multipart body one at a time; undefined once it ends. */
const partReader = Effect.fnUntraced(function*(parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>) {
  const pull = yield* Stream.toPull(parts)
  const pending: Array<Multipart.Part> = []
  const next: Effect.Effect<Multipart.Part | undefined, Errors.BadRequest> = Effect.suspend(() => {
    if (pending.length > 0) return Effect.succeed(pending.shift())
    return pull.pipe(
      Effect.map((chunk) => {
        pending.push(...chunk)
        return pending.shift()
      }),
      Effect.catchCause((cause) => Cause.hasFails(cause) && Cause.isDone(Cause.squash(cause)) ? Effect.undefined : Effect.fail(malformed()))
    )
  })
  return next
})

/** A file part Django counts as a file, with its name; undefined for other parts. */
const fileOf = (part: Multipart.Part) => {
  if (!Multipart.isFile(part)) return undefined
  const name = Attachment.clientFileName(part.name)
  return name === undefined ? undefined : { part, name }
}

const drain = (part: Multipart.Part) =>
  Multipart.isFile(part) ? Stream.runDrain(part.content).pipe(Effect.mapError(malformed)) : Effect.void

const htmlAnswer = (status: number, body: string) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: { vary: "Accept" } })

const notFound = () => htmlAnswer(404, "<p>This file does not exist or has been deleted.</p>")
const forbidden = () => htmlAnswer(403, "<p>You are not authorized to view this file.</p>")

/** Scripts never run in a served file; types served as attachments are sandboxed as well. */
const contentSecurityPolicy = (inline: boolean) =>
  "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; object-src 'self'" + (inline ? "" : "; sandbox")

/**
 * The one range of a `Range` header (`bytes=a-b`, `bytes=a-`, `bytes=-n`)
 * over `size` bytes: the range, "unsatisfiable", or undefined (no header,
 * another unit, several ranges or a malformed one: the whole file, as RFC
 * 9110 allows).
 */
export const parseRange = (header: string | undefined, size: number): FileStorage.ByteRange | "unsatisfiable" | undefined => {
  if (header === undefined) return undefined
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null || (match[1] === "" && match[2] === "")) return undefined
  if (match[1] === "") {
    const suffix = Number(match[2])
    if (suffix === 0) return "unsatisfiable"
    return size === 0 ? "unsatisfiable" : { start: Math.max(size - suffix, 0), end: size - 1 }
  }
  const start = Number(match[1])
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1)
  if (match[2] !== "" && Number(match[2]) < start) return undefined
  if (start >= size) return "unsatisfiable"
  return { start, end }
}

/** A found file as Zulip's `serve_file` serves it: the whole file or one range of it, with its headers. */
const serveFile = Effect.fnUntraced(function*(found: Uploads.FoundDownload, rangeHeader: string | undefined) {
  const { attachment } = found
  const inline = Attachment.isInline(attachment.content_type)
  const headers: Record<string, string> = {
    "content-disposition": Attachment.contentDisposition(inline, attachment.name),
    "cache-control": "private, immutable",
    "accept-ranges": "bytes",
    "x-content-type-options": "nosniff",
    "content-security-policy": contentSecurityPolicy(inline)
  }
  const size = attachment.size
  const range = parseRange(rangeHeader, size)
  if (range === "unsatisfiable") {
    return HttpServerResponse.empty({ status: 416, headers: { ...headers, "content-range": `bytes */${size}` } })
  }
  const body = yield* found.read(range).pipe(
    Effect.map(Stream.orDie),
    Effect.catchTag("ObjectNotFound", () => Effect.succeed(undefined)),
    Effect.orDie
  )
  if (body === undefined) return notFound()
  return HttpServerResponse.stream(body, {
    status: range === undefined ? 200 : 206,
    contentType: attachment.content_type,
    contentLength: range === undefined ? size : range.end - range.start + 1,
    headers: range === undefined ? headers : { ...headers, "content-range": `bytes ${range.start}-${range.end}/${size}` }
  })
})

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "uploads",
  Effect.fn(function*(handlers) {
    const uploads = yield* Uploads.Uploads
    return handlers.handleAll({
      upload: ({ payload }) =>
        Effect.scoped(Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          // Every part with a file name is a file, whatever its type (Django's rule).
          const next = yield* partReader(payload.pipe(Stream.provideService(Multipart.FieldMimeTypes, [])))
          let file: ReturnType<typeof fileOf>
          while (file === undefined) {
            const part = yield* next
            if (part === undefined) return yield* new Errors.BadRequest({ msg: Attachment.UploadTexts.noFile })
            file = fileOf(part)
            if (file === undefined) yield* drain(part)
          }
          const rest = Effect.gen(function*() {
            while (true) {
              const part = yield* next
              if (part === undefined) return
              if (fileOf(part) !== undefined) return yield* new Errors.BadRequest({ msg: Attachment.UploadTexts.tooManyFiles })
              yield* drain(part)
            }
          })
          const { part, name } = file
          const result = yield* uploads.upload(principal, {
            name,
            // A part without a type comes as application/octet-stream: the type is then guessed from the name.
            contentType: part.contentType === "application/octet-stream" ? undefined : part.contentType,
            content: part.content.pipe(Stream.mapError(malformed)),
            rest
          })
          return { uri: result.url, url: result.url, filename: result.filename }
        })).pipe(
          Effect.catchTag("StorageUnavailable", (error) => Effect.die(error)),
          Envelope.wrap
        ),
      attachments: () =>
        Effect.flatMap(CurrentPrincipal, (principal) => uploads.list(principal)).pipe(Envelope.wrap),
      removeAttachment: ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* uploads.remove(principal, params.attachment_id)
          return {}
        }).pipe(Envelope.wrap),
      temporaryUrl: ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          if (!/^\d+$/.test(params.realm_id)) return notFound()
          const found = yield* uploads.temporaryUrl(principal, `${params.realm_id}/${params["*"]}`)
          if (found._tag === "NotFound") return notFound()
          if (found._tag === "Forbidden") return forbidden()
          return yield* Envelope.succeed({ url: found.url })
        })
    })
  })
)

/** @category handlers */
export const layerFiles = HttpApiBuilder.group(
  Api,
  "files",
  Effect.fn(function*(handlers) {
    const uploads = yield* Uploads.Uploads
    return handlers.handleAll({
      download: ({ params, request }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          if (!/^\d+$/.test(params.realm_id)) return notFound()
          const found = yield* uploads.download(principal, `${params.realm_id}/${params["*"]}`)
          if (found._tag === "NotFound") return notFound()
          if (found._tag === "Forbidden") return forbidden()
          return yield* serveFile(found, request.headers["range"])
        })
    })
  })
)

/** @category handlers */
export const layerTemporaryFiles = HttpApiBuilder.group(
  Api,
  "temporaryFiles",
  Effect.fn(function*(handlers) {
    const uploads = yield* Uploads.Uploads
    return handlers.handleAll({
      temporaryDownload: ({ params, request }) => {
        // `{token}/{filename}`: anything else is a path of the download's (Zulip's urls.py), and names no file.
        const [token, filename, ...rest] = params["*"].split("/")
        if (token === undefined || token === "" || filename === undefined || filename === "" || rest.length > 0) {
          return Effect.succeed(notFound())
        }
        return Effect.flatMap(uploads.downloadByToken(token, filename), (found) => serveFile(found, request.headers["range"]))
      }
    })
  })
)
