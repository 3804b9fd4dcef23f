/**
 * Files in an S3-compatible object store (AWS S3, MinIO, Ceph, R2, …) through
 * the official AWS SDK for JavaScript v3: the store that several machines
 * share. Each key is an object key in one bucket; credentials and region come
 * by the SDK's usual means (environment, profile, instance role) unless given.
 *
 * A write streams: up to 5 MiB is held at a time; a file that fits is one
 * PutObject, a larger one a multipart upload of 5 MiB parts, completed once
 * the whole stream is in (an object appears only then) and aborted when the
 * stream fails, so a failed write leaves no object. Reads stream the object
 * (a range asks the store for its bytes only).
 *
 * @since 0.1.0
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand
} from "@aws-sdk/client-s3"
import type { S3ClientConfig } from "@aws-sdk/client-s3"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { FileStorage, isValidKey, ObjectNotFound, StorageUnavailable } from "../ports/FileStorage.ts"
import type { ByteRange, WriteOptions } from "../ports/FileStorage.ts"

/** @category models */
export interface S3Options {
  readonly bucket: string
  /** An S3-compatible server's URL (`S3_ENDPOINT`); unset: AWS. Path-style addressing is used with one. */
  readonly endpoint?: string | undefined
  /** Anything else for the SDK's client (region, credentials, retries). */
  readonly client?: S3ClientConfig | undefined
}

/** The part size of multipart uploads (S3's minimum, but for the last part). @category constants */
export const partSize = 5 * 1024 * 1024

const reasonOf = (error: unknown): string => {
  const e = error as { name?: string; message?: string; code?: string }
  return [e?.name, e?.code, e?.message].filter((s) => s !== undefined && s !== "").join(": ") || String(error)
}

const isMissing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } }
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404
}

/** The bytes `range.start`..`range.end` of a whole object's stream. */
const slice = <E>(bytes: Stream.Stream<Uint8Array, E>, range: ByteRange): Stream.Stream<Uint8Array, E> => {
  let offset = 0
  return bytes.pipe(
    Stream.map((chunk) => {
      const from = Math.max(range.start - offset, 0)
      const to = Math.min(range.end + 1 - offset, chunk.length)
      offset += chunk.length
      return from < to ? chunk.subarray(from, to) : new Uint8Array(0)
    }),
    Stream.filter((chunk) => chunk.length > 0)
  )
}

/** The file storage of `options.bucket`. @category constructors */
export const make = (options: S3Options): FileStorage["Service"] & { readonly client: S3Client } => {
  const client = new S3Client({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint, forcePathStyle: true }),
    ...options.client
  })
  const Bucket = options.bucket
  const checked = (key: string) =>
    isValidKey(key) ? Effect.succeed(key) : Effect.fail(new StorageUnavailable({ key, reason: "invalid key" }))
  const call = <A>(key: string, run: (signal: AbortSignal) => Promise<A>) =>
    Effect.tryPromise({
      try: run,
      catch: (error) => isMissing(error) ? new ObjectNotFound({ key }) : new StorageUnavailable({ key, reason: reasonOf(error) })
    })
  const unavailable = <A>(key: string, run: (signal: AbortSignal) => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (error) => new StorageUnavailable({ key, reason: reasonOf(error) }) })

  const write = <E>(Key: string, body: Stream.Stream<Uint8Array, E>, writeOptions?: WriteOptions) =>
    Effect.flatMap(checked(Key), () => {
      const ContentType = writeOptions?.contentType
      let pending: Array<Uint8Array> = []
      let pendingSize = 0
      let size = 0
      let uploadId: string | undefined
      const parts: Array<{ ETag: string | undefined; PartNumber: number }> = []
      const take = () => {
        const bytes = Buffer.concat(pending)
        pending = []
        pendingSize = 0
        return bytes
      }
      const uploadPart = (bytes: Buffer) =>
        Effect.gen(function*() {
          if (uploadId === undefined) {
            const created = yield* unavailable(Key, (abortSignal) =>
              client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType }), { abortSignal }))
            uploadId = created.UploadId!
          }
          const PartNumber = parts.length + 1
          const done = yield* unavailable(Key, (abortSignal) =>
            client.send(new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body: bytes, ContentLength: bytes.length }), {
              abortSignal
            }))
          parts.push({ ETag: done.ETag, PartNumber })
        })
      return Effect.gen(function*() {
        yield* Stream.runForEach(body, (chunk) => {
          pending.push(chunk)
          pendingSize += chunk.length
          size += chunk.length
          return pendingSize >= partSize ? uploadPart(take()) : Effect.void
        })
        if (uploadId === undefined) {
          const bytes = take()
          yield* unavailable(Key, (abortSignal) =>
            client.send(new PutObjectCommand({ Bucket, Key, Body: bytes, ContentLength: bytes.length, ContentType }), { abortSignal }))
        } else {
          if (pendingSize > 0) yield* uploadPart(take())
          yield* unavailable(Key, (abortSignal) =>
            client.send(
              new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
              { abortSignal }
            ))
        }
        return { size }
      }).pipe(
        Effect.onError(() =>
          uploadId === undefined ? Effect.void : Effect.ignore(unavailable(Key, () =>
            client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })))
          )
        )
      )
    })

  const read = (Key: string, range?: ByteRange) =>
    Effect.flatMap(checked(Key), () =>
      Effect.map(
        call(Key, (abortSignal) =>
          client.send(
            new GetObjectCommand({ Bucket, Key, ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }) }),
            { abortSignal }
          )),
        (object) => {
          const bytes = Stream.fromAsyncIterable(
            object.Body as AsyncIterable<Uint8Array>,
            (error) => new StorageUnavailable({ key: Key, reason: reasonOf(error) })
          )
          if (range === undefined) return bytes
          // A server that sent more than the range (s3rver reads `bytes=0-0` as the whole object;
          // some ignore ranges) is cut here to what was asked.
          const served = /^bytes (\d+)-(\d+)\//.exec(object.ContentRange ?? "")
          const start = served === null ? 0 : Number(served[1])
          const end = served === null ? Infinity : Number(served[2])
          if (start === range.start && end === range.end) return bytes
          return slice(bytes, { start: range.start - start, end: range.end - start })
        }
      ))

  const stat = (Key: string) =>
    Effect.flatMap(checked(Key), () =>
      Effect.map(
        call(Key, (abortSignal) => client.send(new HeadObjectCommand({ Bucket, Key }), { abortSignal })),
        (head) => ({ size: Number(head.ContentLength ?? 0) })
      ))

  const remove = (Key: string) =>
    Effect.flatMap(checked(Key), () =>
      Effect.asVoid(unavailable(Key, (abortSignal) => client.send(new DeleteObjectCommand({ Bucket, Key }), { abortSignal }))))

  return Object.assign(FileStorage.of({ write, read, stat, delete: remove }), { client })
}

/** The store of `options.bucket`; the client is destroyed with the layer. @category layers */
export const layer = (options: S3Options): Layer.Layer<FileStorage> =>
  Layer.effect(
    FileStorage,
    Effect.acquireRelease(Effect.sync(() => make(options)), (storage) => Effect.sync(() => storage.client.destroy()))
  )
