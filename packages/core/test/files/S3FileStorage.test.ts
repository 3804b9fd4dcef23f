/**
 * The S3 store passes the same contract as the memory and folder stores,
 * against a real S3-compatible server started here (s3rver, on a free port
 * and a temporary folder): write, read, ranges, stat, delete, a missing
 * object, a failing stream (also one past a multipart upload's first part,
 * which is aborted). A store whose server is down fails every operation
 * with `StorageUnavailable`.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import S3rver from "s3rver"
import * as S3FileStorage from "../../src/files/S3FileStorage.ts"
import * as Persistence from "../../src/Persistence.ts"
import { FileStorage } from "../../src/ports/FileStorage.ts"
import { fileStorageContract } from "./FileStorageContract.ts"

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-s3-"))
let server: S3rver | undefined
let endpoint = ""
let buckets = 0

/** s3rver's fixed credentials; requests to it are signed as to any S3. */
const client = {
  region: "us-east-1",
  credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  maxAttempts: 1
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as net.AddressInfo).port
      probe.close(() => resolve(port))
    })
  })

beforeAll(async () => {
  const port = await freePort()
  server = new S3rver({
    port,
    address: "127.0.0.1",
    directory,
    silent: true,
    configureBuckets: Array.from({ length: 12 }, (_, i) => ({ name: `teamchat-${i}` }))
  })
  await server.run()
  endpoint = `http://127.0.0.1:${port}`
}, 60_000)

afterAll(async () => {
  await server?.close()
  fs.rmSync(directory, { recursive: true, force: true })
})

/** A store on a bucket of its own (the contract wants an empty one per test). */
const fresh = () => Effect.sync(() => S3FileStorage.make({ bucket: `teamchat-${buckets++}`, endpoint, client }))

fileStorageContract("S3 (s3rver)", fresh)

describe("S3FileStorage", () => {
  it.effect("a file larger than a part goes up in parts and reads back whole and in ranges", () =>
    Effect.gen(function*() {
      const storage = yield* fresh()
      const size = S3FileStorage.partSize * 2 + 1234
      const content = new Uint8Array(size).map((_, i) => i % 253)
      const chunks = Array.from({ length: Math.ceil(size / 65536) }, (_, i) => content.subarray(i * 65536, (i + 1) * 65536))
      assert.deepStrictEqual(yield* storage.write("big/file.bin", Stream.fromIterable(chunks)), { size })
      assert.deepStrictEqual(yield* storage.stat("big/file.bin"), { size })
      const read = (range?: { start: number; end: number }) =>
        Effect.flatMap(storage.read("big/file.bin", range), (stream) =>
          Effect.map(Stream.runCollect(stream), (all) => Buffer.concat(Array.from(all))))
      assert.isTrue((yield* read()).equals(Buffer.from(content)))
      const start = S3FileStorage.partSize - 10
      assert.isTrue((yield* read({ start, end: start + 19 })).equals(Buffer.from(content.subarray(start, start + 20))))
    }), { timeout: 60_000 })

  it.effect("a stream that fails after a first part aborts the upload: no object", () =>
    Effect.gen(function*() {
      const storage = yield* fresh()
      const failing = Stream.concat(Stream.make(new Uint8Array(S3FileStorage.partSize + 1)), Stream.fail("client went away"))
      assert.strictEqual(yield* Effect.flip(storage.write("aborted.bin", failing)), "client went away")
      assert.strictEqual((yield* Effect.flip(storage.stat("aborted.bin")))._tag, "ObjectNotFound")
    }), { timeout: 60_000 })

  it.effect("Persistence.layerFileStorageS3 (the server's S3_BUCKET and S3_ENDPOINT) is this store", () =>
    Effect.gen(function*() {
      const storage = yield* FileStorage
      yield* storage.write("through/the/layer.txt", Stream.make(new TextEncoder().encode("layered")))
      assert.deepStrictEqual(yield* storage.stat("through/the/layer.txt"), { size: 7 })
    }).pipe(
      Effect.provide(Layer.suspend(() => Persistence.layerFileStorageS3({ bucket: `teamchat-${buckets++}`, endpoint, client })))
    ), { timeout: 60_000 })

  it.effect("a server that is down: every operation fails with StorageUnavailable", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      const storage = S3FileStorage.make({ bucket: "teamchat-down", endpoint: `http://127.0.0.1:${port}`, client })
      const failures = [
        yield* Effect.flip(storage.write("a", Stream.make(new Uint8Array([1])))),
        yield* Effect.flip(storage.read("a")),
        yield* Effect.flip(storage.stat("a")),
        yield* Effect.flip(storage.delete("a"))
      ]
      assert.deepStrictEqual(failures.map((f) => f._tag), Array(4).fill("StorageUnavailable"))
    }), { timeout: 60_000 })
})
