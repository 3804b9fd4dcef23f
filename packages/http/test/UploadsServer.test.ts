/**
 * Uploads through the standalone server on real sockets: the files go to
 * the data directory's `uploads` folder (PGlite here; PostgreSQL uses the
 * same folder of DATA_DIR), bodies larger than MAX_BODY_BYTES are taken
 * when they are uploads (the upload limit, MAX_FILE_UPLOAD_SIZE_MIB,
 * applies instead), a refused upload leaves no file, and downloads stream
 * back, ranges too.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ServerConfig } from "../src/Config.ts"
import * as Server from "../src/Server.ts"

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-server-uploads-"))
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }))

const config: ServerConfig = {
  port: 0,
  host: "127.0.0.1",
  database: { _tag: "Pglite", dataDir },
  demo: true,
  externalUrl: undefined,
  rateLimit: false,
  logLevel: "None",
  logFormat: "logfmt",
  filesDir: path.join(dataDir, "uploads"),
  maxFileUploadSizeMib: 8
}

const MiB = 1024 * 1024

/** Every file under the uploads folder, as path ids. */
const stored = (): ReadonlyArray<string> => {
  const root = path.join(dataDir, "uploads")
  if (!fs.existsSync(root)) return []
  return (fs.readdirSync(root, { recursive: true }) as Array<string>)
    .filter((entry) => fs.statSync(path.join(root, entry)).isFile())
    .map((entry) => entry.split(path.sep).join("/"))
}

describe("uploads through the standalone server", () => {
  it.live("a 6 MiB file (over MAX_BODY_BYTES) is stored in DATA_DIR/uploads and streamed back; 9 MiB is refused and leaves nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(Server.layer(config, { secrets: Teamchat.layerSecretsTest, output: () => {} }))
      const address = Context.get(context, HttpServer.HttpServer).address
      const base = `http://127.0.0.1:${"port" in address ? address.port : 0}`
      const result = yield* Effect.promise(async () => {
        const key = await (await fetch(`${base}/api/v1/dev_fetch_api_key`, {
          method: "POST",
          body: new URLSearchParams({ username: "hamlet@zulip.com" })
        })).json() as { api_key: string }
        const authorization = `Basic ${Buffer.from(`hamlet@zulip.com:${key.api_key}`).toString("base64")}`
        const content = new Uint8Array(6 * MiB).map((_, i) => i % 251)
        const body = new FormData()
        body.append("file", new Blob([content], { type: "application/octet-stream" }), "big data.bin")
        const uploaded = await fetch(`${base}/api/v1/user_uploads`, { method: "POST", headers: { authorization }, body })
        const json = await uploaded.json() as { url: string }
        const download = await fetch(`${base}${json.url}`, { headers: { authorization } })
        const bytes = new Uint8Array(await download.arrayBuffer())
        const ranged = await fetch(`${base}${json.url}`, { headers: { authorization, range: `bytes=${5 * MiB}-${5 * MiB + 9}` } })
        const rangeBytes = Array.from(new Uint8Array(await ranged.arrayBuffer()))
        const filesAfterUpload = stored()
        const tooBig = new FormData()
        tooBig.append("file", new Blob([new Uint8Array(9 * MiB)]), "too big.bin")
        const refused = await fetch(`${base}/api/v1/user_uploads`, { method: "POST", headers: { authorization }, body: tooBig })
        return {
          status: uploaded.status,
          url: json.url,
          downloadStatus: download.status,
          same: Buffer.compare(Buffer.from(bytes), Buffer.from(content)) === 0,
          length: download.headers.get("content-length"),
          rangeStatus: ranged.status,
          rangeBytes,
          expectedRange: Array.from(content.subarray(5 * MiB, 5 * MiB + 10)),
          filesAfterUpload,
          refusedStatus: refused.status,
          refused: await refused.json(),
          filesAfterRefusal: stored()
        }
      })
      assert.strictEqual(result.status, 200)
      assert.match(result.url, /^\/user_uploads\/\d+\/[0-9a-f]{2}\/[\w-]{24}\/big-data\.bin$/)
      assert.strictEqual(result.downloadStatus, 200)
      assert.isTrue(result.same)
      assert.strictEqual(result.length, String(6 * MiB))
      assert.strictEqual(result.rangeStatus, 206)
      assert.deepStrictEqual(result.rangeBytes, result.expectedRange)
      assert.deepStrictEqual(result.filesAfterUpload, [result.url.slice("/user_uploads/".length)])
      assert.strictEqual(result.refusedStatus, 400)
      assert.deepStrictEqual(result.refused, {
        result: "error",
        msg: "File is larger than this server's configured maximum upload size (8 MiB).",
        code: "BAD_REQUEST"
      })
      assert.deepStrictEqual(result.filesAfterRefusal, result.filesAfterUpload)
    })), { timeout: 120_000 })
})
