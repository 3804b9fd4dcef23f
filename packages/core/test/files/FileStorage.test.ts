/**
 * The memory and local-folder file stores pass the same contract; the
 * folder store writes under its root only and leaves no temporary files.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as LocalFileStorage from "../../src/files/LocalFileStorage.ts"
import * as MemoryFileStorage from "../../src/memory/MemoryFileStorage.ts"
import { fileStorageContract } from "./FileStorageContract.ts"

const folders: Array<string> = []
const freshFolder = () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-files-"))
  folders.push(folder)
  return path.join(folder, "uploads")
}

afterAll(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true })
})

fileStorageContract("memory", () => Effect.sync(MemoryFileStorage.make))
fileStorageContract("local folder", () => Effect.sync(() => LocalFileStorage.make(freshFolder())))

describe("LocalFileStorage", () => {
  it.effect("keeps objects as files under its root, with no temporary files left", () =>
    Effect.gen(function*() {
      const root = freshFolder()
      const storage = LocalFileStorage.make(root)
      yield* storage.write("2/7f/abc/report.pdf", Stream.make(new TextEncoder().encode("%PDF")))
      yield* Effect.flip(storage.write("2/7f/abc/broken.pdf", Stream.fail("gone")))
      assert.deepStrictEqual(fs.readdirSync(path.join(root, "2/7f/abc")), ["report.pdf"])
      assert.strictEqual(fs.readFileSync(path.join(root, "2/7f/abc/report.pdf"), "utf8"), "%PDF")
    }))

  it.effect("a folder it cannot write is StorageUnavailable", () =>
    Effect.gen(function*() {
      const root = freshFolder()
      fs.writeFileSync(path.dirname(root) + "/uploads", "a file in the way")
      const storage = LocalFileStorage.make(root)
      const error = yield* Effect.flip(storage.write("a/b", Stream.make(new Uint8Array([1]))))
      assert.strictEqual(error._tag, "StorageUnavailable")
    }))
})
