/**
 * Files in a local folder (the default store: under the server's data
 * directory, `<DATA_DIR>/uploads`). Each key is a path below the folder.
 * A write goes to a temporary file beside its target and is renamed into
 * place once the whole stream is in, so a reader never sees half an object
 * and a failed write leaves nothing behind. Reads stream from the file
 * (a range reads only its bytes).
 *
 * One folder serves one machine: processes on several machines share files
 * through an object store instead.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileStorage, isValidKey, ObjectNotFound, StorageUnavailable } from "../ports/FileStorage.ts"
import type { ByteRange } from "../ports/FileStorage.ts"

const reasonOf = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException
  return e?.code !== undefined ? `${e.code}: ${e.message}` : String((e as Error | undefined)?.message ?? error)
}

const isMissing = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === "ENOENT" || code === "ENOTDIR"
}

/** The file storage of the folder `root` (created when missing). @category constructors */
export const make = (root: string): FileStorage["Service"] => {
  const base = path.resolve(root)
  const fileOf = (key: string): Effect.Effect<string, StorageUnavailable> =>
    isValidKey(key)
      ? Effect.succeed(path.join(base, ...key.split("/")))
      : Effect.fail(new StorageUnavailable({ key, reason: "invalid key" }))
  const fail = (key: string) => (error: unknown) => new StorageUnavailable({ key, reason: reasonOf(error) })

  const stat = (key: string) =>
    Effect.flatMap(fileOf(key), (file) =>
      Effect.tryPromise({
        try: () => fs.promises.stat(file),
        catch: (error) => isMissing(error) ? new ObjectNotFound({ key }) : fail(key)(error)
      }).pipe(
        Effect.flatMap((stats) => stats.isFile() ? Effect.succeed({ size: stats.size }) : Effect.fail(new ObjectNotFound({ key })))
      ))

  return FileStorage.of({
    write: <E>(key: string, body: Stream.Stream<Uint8Array, E>) =>
      Effect.flatMap(fileOf(key), (file) => {
        const temporary = `${file}.${randomBytes(8).toString("hex")}.partial`
        const removeTemporary = Effect.promise(() => fs.promises.rm(temporary, { force: true }).catch(() => undefined))
        return Effect.acquireUseRelease(
          Effect.tryPromise({
            try: async () => {
              await fs.promises.mkdir(path.dirname(file), { recursive: true })
              return await fs.promises.open(temporary, "wx")
            },
            catch: fail(key)
          }),
          (handle) =>
            Effect.gen(function*() {
              let size = 0
              yield* Stream.runForEach(body, (chunk) =>
                Effect.tryPromise({
                  try: async () => {
                    let offset = 0
                    while (offset < chunk.length) {
                      const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset)
                      offset += bytesWritten
                    }
                    size += chunk.length
                  },
                  catch: fail(key)
                }))
              yield* Effect.tryPromise({ try: () => handle.close(), catch: fail(key) })
              yield* Effect.tryPromise({ try: () => fs.promises.rename(temporary, file), catch: fail(key) })
              return { size }
            }).pipe(Effect.onError(() => removeTemporary)),
          (handle) => Effect.promise(() => handle.close().catch(() => undefined))
        )
      }),
    read: (key: string, range?: ByteRange) =>
      Effect.flatMap(stat(key), () =>
        Effect.map(fileOf(key), (file) =>
          Stream.fromAsyncIterable(
            {
              [Symbol.asyncIterator]: () =>
                fs.createReadStream(file, range === undefined ? {} : { start: range.start, end: range.end })[
                  Symbol.asyncIterator
                ]()
            } as AsyncIterable<Buffer>,
            fail(key)
          ).pipe(Stream.map((chunk) => new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)))
        )),
    stat,
    delete: (key: string) =>
      Effect.flatMap(fileOf(key), (file) =>
        Effect.tryPromise({ try: () => fs.promises.rm(file, { force: true }), catch: fail(key) }))
  })
}

/** @category layers */
export const layer = (root: string): Layer.Layer<FileStorage> => Layer.sync(FileStorage, () => make(root))
