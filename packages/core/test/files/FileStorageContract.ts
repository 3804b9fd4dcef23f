/**
 * The contract every `FileStorage` backend passes (see `ports/FileStorage.ts`):
 * write, read, ranges, stat, delete, a missing object, a failing stream that
 * leaves nothing, keys that would leave the store.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { FileStorage } from "../../src/ports/FileStorage.ts"
import { ObjectNotFound } from "../../src/ports/FileStorage.ts"

const encoder = new TextEncoder()
const bytes = (text: string) => encoder.encode(text)

const collect = (stream: Stream.Stream<Uint8Array, unknown>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(Array.from(chunks)).toString("utf8"))

export const fileStorageContract = (
  name: string,
  /** A fresh, empty store per test. */
  make: () => Effect.Effect<FileStorage["Service"], unknown, never>
) =>
  describe(`FileStorage contract: ${name}`, () => {
    it.effect("writes a stream and reads it back; stat answers the size", () =>
      Effect.gen(function*() {
        const storage = yield* make()
        const info = yield* storage.write("1/ab/token/hello.txt", Stream.fromIterable([bytes("Hello, "), bytes("world!")]))
        assert.deepStrictEqual(info, { size: 13 })
        assert.strictEqual(yield* collect(yield* storage.read("1/ab/token/hello.txt")), "Hello, world!")
        assert.deepStrictEqual(yield* storage.stat("1/ab/token/hello.txt"), { size: 13 })
      }))

    it.effect("an empty object is an object", () =>
      Effect.gen(function*() {
        const storage = yield* make()
        assert.deepStrictEqual(yield* storage.write("empty", Stream.empty), { size: 0 })
        assert.strictEqual(yield* collect(yield* storage.read("empty")), "")
        assert.deepStrictEqual(yield* storage.stat("empty"), { size: 0 })
      }))

    it.effect("reads inclusive byte ranges, across the chunks written", () =>
      Effect.gen(function*() {
        const storage = yield* make()
        yield* storage.write("r", Stream.fromIterable([bytes("0123"), bytes("4567"), bytes("89")]))
        const range = (start: number, end: number) => Effect.flatMap(storage.read("r", { start, end }), collect)
        assert.strictEqual(yield* range(0, 0), "0")
        assert.strictEqual(yield* range(2, 5), "2345")
        assert.strictEqual(yield* range(3, 8), "345678")
        assert.strictEqual(yield* range(9, 9), "9")
        assert.strictEqual(yield* range(0, 9), "0123456789")
      }))

    it.effect("a second write replaces the object", () =>
      Effect.gen(function*() {
        const storage = yield* make()
        yield* storage.write("k", Stream.make(bytes("first version")))
        yield* storage.write("k", Stream.make(bytes("second")))
        assert.strictEqual(yield* collect(yield* storage.read("k")), "second")
      }))

    it.effect("a missing object is ObjectNotFound for read and stat; deleting it succeeds", () =>
      Effect.gen(function*() {
        const storage = yield* make()
        const read = yield* Effect.flip(storage.read("no/such/object"))
        assert.deepStrictEqual(read, new ObjectNotFound({ key: "no/such/object" }))
        const stat = yield* Effect.flip(storage.stat("no/such/object"))
        assert.deepStrictEqual(stat, new ObjectNotFound({ key: "no/such/object" }))
        yield* storage.delete("no/such/object")
      }))

    it.effect("delete removes the object", () =>
      Effect.gen(function*() {
        const storage = yield* make()
        yield* storage.write("d/e", Stream.make(bytes("x")))
        yield* storage.delete("d/e")
        assert.strictEqual((yield* Effect.flip(storage.stat("d/e")))._tag, "ObjectNotFound")
        assert.strictEqual((yield* Effect.flip(storage.read("d/e")))._tag, "ObjectNotFound")
      }))

    it.effect("a stream that fails leaves no object and passes its error on", () =>
      Effect.gen(function*() {
        const storage = yield* make()
        const failing = Stream.concat(Stream.make(bytes("partial")), Stream.fail("client went away"))
        assert.strictEqual(yield* Effect.flip(storage.write("f", failing)), "client went away")
        assert.strictEqual((yield* Effect.flip(storage.stat("f")))._tag, "ObjectNotFound")
        // An object already there stays as it was.
        yield* storage.write("g", Stream.make(bytes("kept")))
        yield* Effect.flip(storage.write("g", failing))
        assert.strictEqual(yield* collect(yield* storage.read("g")), "kept")
      }))

    it.effect("keys that would leave the store are refused", () =>
      Effect.gen(function*() {
        const storage = yield* make()
        for (const key of ["../escape", "a/../../b", "/absolute", "a//b", "a/./b", "a\\b", "", "a\u0000b"]) {
          const error = yield* Effect.flip(storage.write(key, Stream.make(bytes("x"))))
          assert.strictEqual(error._tag, "StorageUnavailable", JSON.stringify(key))
          assert.strictEqual((yield* Effect.flip(storage.read(key)))._tag, "StorageUnavailable", JSON.stringify(key))
        }
      }))
  })
