/**
 * Where uploaded files' bytes live (port): objects under string keys,
 * written and read as streams, never whole in memory. Implemented by
 * `memory/MemoryFileStorage.ts` (tests, the in-memory server) and
 * `files/LocalFileStorage.ts` (a folder under the data directory); an
 * object store (S3) implements the same contract
 * (`packages/core/test/files/FileStorageContract.ts`).
 *
 * Keys are relative paths of `/`-separated segments, each of letters,
 * digits, `.`, `_`, `-` and other printable characters but never empty,
 * `.` or `..`, and never a backslash or NUL (`isValidKey`): a key never
 * names anything outside the store.
 *
 * The contract:
 * - `write` stores the whole stream under the key (replacing what was
 *   there) and answers its size; a stream that fails leaves no object (the
 *   stream's own error is passed on).
 * - `read` answers the object's bytes, or the bytes `start`..`end`
 *   (inclusive, as HTTP ranges) when a range is given; a missing object
 *   fails with `ObjectNotFound` before any byte.
 * - `stat` answers the size; a missing object is `ObjectNotFound`.
 * - `delete` removes the object; deleting a missing one succeeds.
 * - Anything else the store fails with (a disk, a server that is down) is
 *   `StorageUnavailable`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"

/** No object under the key. @category errors */
export class ObjectNotFound extends Schema.TaggedError<ObjectNotFound>()("ObjectNotFound", {
  key: Schema.String
}) {}

/** The store failed (I/O error, server down, invalid key). @category errors */
export class StorageUnavailable extends Schema.TaggedError<StorageUnavailable>()("StorageUnavailable", {
  key: Schema.String,
  reason: Schema.String
}) {}

/** An inclusive byte range (`end` at most size - 1). @category models */
export interface ByteRange {
  readonly start: number
  readonly end: number
}

/** @category models */
export interface ObjectInfo {
  readonly size: number
}

/** @category models */
export interface WriteOptions {
  /** The object's media type, kept by stores that keep one (S3). */
  readonly contentType?: string | undefined
}

/** @category services */
export class FileStorage extends Context.Service<FileStorage, {
  /** Stores the stream under `key`; its size. A failing stream leaves no object. */
  write<E>(key: string, body: Stream.Stream<Uint8Array, E>, options?: WriteOptions): Effect.Effect<ObjectInfo, E | StorageUnavailable>
  /** The object's bytes (or a range of them); `ObjectNotFound` before any byte when missing. */
  read(
    key: string,
    range?: ByteRange
  ): Effect.Effect<Stream.Stream<Uint8Array, StorageUnavailable>, ObjectNotFound | StorageUnavailable>
  stat(key: string): Effect.Effect<ObjectInfo, ObjectNotFound | StorageUnavailable>
  /** Removes the object; a missing object is no failure. */
  delete(key: string): Effect.Effect<void, StorageUnavailable>
}>()("teamchat/core/ports/FileStorage") {}

/** Whether `key` is a relative path of safe segments (see the module's doc). @category keys */
export const isValidKey = (key: string): boolean => {
  if (key.length === 0 || key.length > 1024) return false
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(key)) return false
  return key.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..")
}
