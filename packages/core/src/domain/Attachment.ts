/**
 * Uploaded files (Zulip's `Attachment`): the record kept for each upload,
 * how it reads through the API (GET /attachments, the `attachment`
 * events), and Zulip's pure rules around it: the sanitized last segment of
 * an upload's URL, its path id, the links to uploads in a message's
 * content, the content type kept for a file and how a download presents
 * it (inline or as an attachment).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type { MessageId, RealmId, UserId } from "./Ids.ts"
import { AttachmentId } from "./Ids.ts"

/** The id and its checked constructor live with every other id, in `Ids.ts`. @category ids */
export { AttachmentId, attachmentId } from "./Ids.ts"

/** @category models */
export interface Attachment {
  readonly id: AttachmentId
  readonly realm_id: RealmId
  readonly owner_id: UserId
  /** `{realm_id}/{2 hex}/{token}/{sanitized name}`: the upload's URL without `/user_uploads/`, and its storage key. */
  readonly path_id: string
  /** The file name the client sent (percent-decoded). */
  readonly name: string
  /** Bytes. */
  readonly size: number
  /** The media type kept for downloads (`contentTypeOf`). */
  readonly content_type: string
  /** Milliseconds since the epoch. */
  readonly create_time: number
}

/** A message that links an attachment. @category models */
export interface AttachmentMessage {
  readonly id: MessageId
  /** Seconds since the epoch (the message's `date_sent`). */
  readonly date_sent: number
}

/** An attachment as GET /attachments and the `attachment` events show it. @category models */
export interface ApiAttachment {
  readonly id: number
  readonly name: string
  readonly path_id: string
  readonly size: number
  /** Milliseconds. */
  readonly create_time: number
  /** Every message linking it; `date_sent` in milliseconds. */
  readonly messages: ReadonlyArray<{ readonly id: number; readonly date_sent: number }>
}

/** @category views */
export const toApiAttachment = (attachment: Attachment, messages: ReadonlyArray<AttachmentMessage>): ApiAttachment => ({
  id: attachment.id,
  name: attachment.name,
  path_id: attachment.path_id,
  size: attachment.size,
  create_time: attachment.create_time,
  messages: messages.map((m) => ({ id: m.id, date_sent: m.date_sent * 1000 }))
})

/** Zulip's `MAX_FILE_UPLOAD_SIZE` default, in MiB. @category constants */
export const DefaultMaxFileUploadSizeMib = 100

/**
 * The server's upload limit in MiB (Zulip's `MAX_FILE_UPLOAD_SIZE`; 0
 * refuses every non-empty file): POST /register's
 * `max_file_upload_size_mib` and POST /user_uploads' limit. Read when the
 * services are built.
 *
 * @category constants
 */
export const MaxFileUploadSizeMib = Context.Reference<number>("teamchat/core/domain/Attachment/MaxFileUploadSizeMib", {
  defaultValue: () => DefaultMaxFileUploadSizeMib
})

/**
 * Django's `MultiPartParser.sanitize_file_name`: the name a client gave a
 * file part, after its last `/` or `\`, without unprintable characters;
 * undefined (the part is not a file) when nothing, `.` or `..` is left.
 *
 * @category paths
 */
export const clientFileName = (raw: string): string | undefined => {
  const last = raw.split("/").pop()!.split("\\").pop()!
  const printable = Array.from(last).filter((c) => c === " " || !/[\p{C}\p{Z}]/u.test(c)).join("")
  return printable === "" || printable === "." || printable === ".." ? undefined : printable
}

/** The URL of an upload (relative to the organization). @category paths */
export const uploadUrl = (pathId: string): string => `/user_uploads/${pathId}`

/**
 * Zulip's `sanitize_name`: Unicode NFKC; every character that is not a
 * letter, a digit, `_`, whitespace, `.` or `-` dropped; trimmed; each run
 * of whitespace and `-` one `-`; nothing left (or `.`, `..`) is
 * `uploaded-file`.
 *
 * @category paths
 */
export const sanitizeName = (name: string): string => {
  const kept = name.normalize("NFKC").replace(/[^\p{L}\p{N}_\s.-]/gu, "").trim()
  const value = kept.replace(/[-\s]+/gu, "-")
  return value === "" || value === "." || value === ".." ? "uploaded-file" : value
}

/** The name the client sent, percent-decoded (as sent when it does not decode). @category paths */
export const decodeFileName = (name: string): string => {
  try {
    return decodeURIComponent(name)
  } catch {
    return name
  }
}

/** A path id of an upload: `{realm_id}/{2 hex}/{token}/{name}`. @category paths */
export const pathIdPattern = /^(\d+)\/[0-9a-f]{2}\/[A-Za-z0-9_-]+\/[^/]+$/

/**
 * Whether `path` can be an upload's path id: its shape, no control
 * characters (no NUL, which no database text holds) and well-formed
 * Unicode. Anything else names no upload and is not looked up.
 *
 * @category paths
 */
export const isPathId = (path: string): boolean =>
  pathIdPattern.test(path) && !/[\u0000-\u001f\u007f]/.test(path) && !/\p{Cs}/u.test(path)

/**
 * The path ids of the uploads of `realmId` a message's content links:
 * `/user_uploads/{path id}`, relative or absolute, a percent-encoded name
 * decoded; each once, in order of appearance.
 *
 * @category paths
 */
export const linkedPathIds = (content: string, realmId: number): ReadonlyArray<string> => {
  const out: Array<string> = []
  const pattern = /\/user_uploads\/(\d+)\/([0-9a-f]{2})\/([A-Za-z0-9_-]+)\/([^\s)\]"'<>?#/]+)/g
  for (const match of content.matchAll(pattern)) {
    if (Number(match[1]) !== realmId) continue
    const pathId = `${match[1]}/${match[2]}/${match[3]}/${decodeFileName(match[4]!)}`
    if (!out.includes(pathId)) out.push(pathId)
  }
  return out
}

const byExtension: Readonly<Record<string, string>> = {
  apng: "image/apng",
  avif: "image/avif",
  gif: "image/gif",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  svg: "image/svg+xml",
  bmp: "image/bmp",
  tif: "image/tiff",
  tiff: "image/tiff",
  aac: "audio/aac",
  flac: "audio/flac",
  m4a: "audio/mp4",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  weba: "audio/webm",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  pdf: "application/pdf",
  txt: "text/plain",
  log: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  xhtml: "application/xhtml+xml",
  xml: "application/xml",
  js: "text/javascript",
  json: "application/json",
  zip: "application/zip",
  gz: "application/gzip",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation"
}

/**
 * Zulip's `get_file_info`: the file part's own content type (its media type,
 * lower-cased), else one guessed from the name's extension, else
 * `application/octet-stream`.
 *
 * @category content types
 */
export const contentTypeOf = (partType: string | undefined, name: string): string => {
  const given = (partType ?? "").split(";")[0]!.trim().toLowerCase()
  if (given !== "") return given
  const dot = name.lastIndexOf(".")
  const guessed = dot === -1 ? undefined : byExtension[name.slice(dot + 1).toLowerCase()]
  return guessed ?? "application/octet-stream"
}

/**
 * The types Zulip serves `inline` (zerver/lib/mime_types.py
 * `INLINE_MIME_TYPES`); every other type is served as an attachment, so a
 * browser never renders an uploaded page or script in the server's origin.
 *
 * @category content types
 */
export const InlineContentTypes: ReadonlySet<string> = new Set([
  "application/pdf",
  "audio/aac",
  "audio/flac",
  "audio/mp4",
  "audio/mpeg",
  "audio/wav",
  "audio/webm",
  "image/apng",
  "image/avif",
  "image/gif",
  "image/jpeg",
  "image/png",
  "image/webp",
  "text/plain",
  "video/mp4",
  "video/webm"
])

/** @category content types */
export const isInline = (contentType: string): boolean => InlineContentTypes.has(contentType)

/**
 * Django's `content_disposition_header`: `inline` or `attachment`, with the
 * name quoted when it is printable ASCII (`\` and `"` escaped), else as
 * `filename*=utf-8''…` (percent-encoded).
 *
 * @category content types
 */
export const contentDisposition = (inline: boolean, name: string): string => {
  const disposition = inline ? "inline" : "attachment"
  if (/^[\t \x21-\x7e]*$/.test(name)) {
    return `${disposition}; filename="${name.replace(/\\/g, "\\\\").replace(/"/g, "\\\"")}"`
  }
  // Python's `quote` (safe "/"): what encodeURIComponent leaves, less !'()*.
  const quoted = encodeURIComponent(name).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, "/")
  return `${disposition}; filename*=utf-8''${quoted}`
}

/** Zulip's texts for uploads. @category constants */
export const UploadTexts = {
  noFile: "You must specify a file to upload",
  tooManyFiles: "You may only upload one file at a time",
  tooLarge: (mib: number) => `File is larger than this server's configured maximum upload size (${mib} MiB).`,
  invalidAttachment: "Invalid attachment",
  /** A temporary URL's token that is malformed, forged, expired or names a file deleted since. */
  invalidToken: "Invalid token",
  /** A temporary URL whose file name is not its token's. */
  invalidFilename: "Invalid filename"
} as const

/** How long a temporary file URL works, in seconds (Zulip's `SIGNED_ACCESS_TOKEN_VALIDITY_IN_SECONDS`). @category constants */
export const TemporaryUrlValiditySeconds = 60

/** A temporary file URL: `/user_uploads/temporary/{token}/{filename}`. @category paths */
export const temporaryUrl = (token: string, pathId: string): string =>
  `/user_uploads/temporary/${token}/${encodeURIComponent(pathId.slice(pathId.lastIndexOf("/") + 1))}`

/** @internal */
export const isAttachmentId = (n: number): n is AttachmentId => AttachmentId.makeOption(n)._tag === "Some"
