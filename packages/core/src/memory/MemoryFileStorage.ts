/**
 * Files in this process's memory: for tests and the in-memory server
 * (`DATABASE_URL=memory://`), whose data is lost at exit anyway. Objects
 * are kept as the chunks they were written in; a write becomes visible
 * only once its whole stream is in.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { FileStorage, isValidKey, ObjectNotFound, StorageUnavailable } from "../ports/FileStorage.ts"
import type { ByteRange } from "../ports/FileStorage.ts"

/** A fresh empty store. @category constructors */
export const make = (): FileStorage["Service"] => {
  const objects = new Map<string, ReadonlyArray<Uint8Array>>()
  const sizeOf = (chunks: ReadonlyArray<Uint8Array>) => chunks.reduce((n, c) => n + c.length, 0)
  const checked = (key: string) =>
    isValidKey(key) ? Effect.succeed(key) : Effect.fail(new StorageUnavailable({ key, reason: "invalid key" }))
  const find = (key: string) =>
    Effect.flatMap(checked(key), () => {
      const chunks = objects.get(key)
      return chunks === undefined ? Effect.fail(new ObjectNotFound({ key })) : Effect.succeed(chunks)
    })
  return FileStorage.of({
    write: <E>(key: string, body: Stream.Stream<Uint8Array, E>) =>
      Effect.flatMap(checked(key), () =>
        Effect.map(Stream.runCollect(body), (collected) => {
          const chunks = Array.from(collected, (c) => c.slice())
          objects.set(key, chunks)
          return { size: sizeOf(chunks) }
        })),
    read: (key: string, range?: ByteRange) =>
      Effect.map(find(key), (chunks) => {
        if (range === undefined) return Stream.fromIterable(chunks)
        const out: Array<Uint8Array> = []
        let offset = 0
        for (const chunk of chunks) {
          const from = Math.max(range.start - offset, 0)
          const to = Math.min(range.end + 1 - offset, chunk.length)
          if (from < to) out.push(chunk.subarray(from, to))
          offset += chunk.length
        }
        return Stream.fromIterable(out)
      }),
    stat: (key: string) => Effect.map(find(key), (chunks) => ({ size: sizeOf(chunks) })),
    delete: (key: string) => Effect.map(checked(key), () => void objects.delete(key))
  })
}

/** A fresh empty store per build. @category layers */
export const layer: Layer.Layer<FileStorage> = Layer.sync(FileStorage, make)
