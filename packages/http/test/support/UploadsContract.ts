/**
 * Uploaded files over the wire, written once and run on every core backend
 * (memory files on memory; a local folder on PGlite and PostgreSQL):
 * POST /user_uploads, the download at /user_uploads/{realm_id}/{path},
 * GET /attachments, DELETE /attachments/{attachment_id}, the `attachment`
 * events, messages claiming the uploads they link, and register's
 * `max_file_upload_size_mib` (1 MiB here).
 *
 * Facts from Zulip (zerver/views/upload.py, zerver/lib/upload,
 * zerver/lib/attachments.py, zerver/views/attachments.py): any file part
 * counts, whatever its field name; a part with no (or an empty) file name is
 * no file ("You must specify a file to upload"), as is a body that is not
 * multipart; two files are refused ("You may only upload one file at a
 * time"); a file strictly larger than the limit is refused with "File is
 * larger than this server's configured maximum upload size (N MiB)."; an
 * empty named file is a file. The URL is
 * `/user_uploads/{realm_id}/{2 hex}/{token}/{sanitized name}`, `filename` the
 * name as sent. A refused upload leaves no row, no stored object and no
 * event. Downloads: the uploader, and whoever may read a message that links
 * the file; others get the HTML 403, a missing file the HTML 404.
 *
 * Temporary URLs (zerver/views/upload.py, `get_file_temporary_url` and
 * `serve_file_unauthed_from_token`): GET /api/v1/user_uploads/{path id},
 * under the download's rule and with its HTML 403/404, answers
 * `/user_uploads/temporary/{token}/{filename}`, the token the path id and a
 * time signed and hex-encoded in upper case; that URL serves the file
 * without credentials, as the download does, for 60 seconds (still at 60,
 * not after). A malformed, forged or expired token, or one whose file was
 * deleted since, is 400 "Invalid token"; a file name that is not the
 * token's is 400 "Invalid filename".
 */
import { assert, describe, layer } from "@effect/vitest"
import { MaxFileUploadSizeMib } from "@teamchat/core/domain/Attachment"
import { FileStorage } from "@teamchat/core/ports/FileStorage"
import * as Persistence from "@teamchat/core/Persistence"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { openQueue } from "./EventListener.ts"
import type { Backend, Credentials, Role } from "./Harness.ts"
import { accounts, basic, demoLayer, layerServer, makeRequest, realmUrl, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const badRequest = (msg: string) => ({ result: "error", msg, code: "BAD_REQUEST" })
const roles: ReadonlyArray<Role> = ["owner", "admin", "moderator", "member", "guest", "bot"]

const MiB = 1024 * 1024

/** The keys the store holds (written and not deleted), and, for a folder, the files in it. */
const recordingStorage = (backend: Backend) => {
  const live = new Set<string>()
  const root = backend === "memory" ? undefined : path.join(fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-uploads-")), "uploads")
  const inner = root === undefined ? Persistence.layerFileStorageMemory : Persistence.layerFileStorageLocal(root)
  const layer = Layer.effect(
    FileStorage,
    Effect.gen(function*() {
      const storage = yield* FileStorage
      return FileStorage.of({
        write: (key, body, options) => Effect.tap(storage.write(key, body, options), () => Effect.sync(() => live.add(key))),
        read: storage.read,
        stat: storage.stat,
        delete: (key) => Effect.tap(storage.delete(key), () => Effect.sync(() => live.delete(key)))
      })
    })
  ).pipe(Layer.provide(inner))
  /** The files under the folder, as keys. */
  const files = (): ReadonlyArray<string> => {
    if (root === undefined || !fs.existsSync(root)) return []
    return (fs.readdirSync(root, { recursive: true }) as Array<string>)
      .filter((entry) => fs.statSync(path.join(root, entry)).isFile())
      .map((entry) => entry.split(path.sep).join("/"))
      .sort()
  }
  const cleanup = () => {
    if (root !== undefined) fs.rmSync(path.dirname(root), { recursive: true, force: true })
  }
  return { layer, live, files, cleanup, root }
}

interface FilePart {
  readonly field?: string
  readonly name: string
  readonly type?: string
  readonly content: string | Uint8Array
}

export const uploadsContract = (backend: Backend) =>
  describe(`uploads over HTTP on ${backend}`, () => {
    const storage = recordingStorage(backend)
    const core = (clock: Parameters<typeof demoLayer>[1]) =>
      demoLayer(backend, clock, storage.layer).pipe(Layer.provide(Layer.succeed(MaxFileUploadSizeMib)(1)))
    layer(layerServer(core), { timeout: "120 seconds" })((it) => {
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const login = (email: string) => Effect.flatMap(Server, (server) => server.login(email))

      /** Sends a request and reads the answer whatever its type. */
      const send = (request: Request) =>
        Effect.flatMap(Server, (server) =>
          Effect.promise(async () => {
            const response = await server.handler(request)
            const bytes = new Uint8Array(await response.arrayBuffer())
            const text = new TextDecoder().decode(bytes)
            let json: any
            try {
              json = JSON.parse(text)
            } catch {
              json = undefined
            }
            return { status: response.status, headers: response.headers, bytes, text, json }
          }))

      const upload = (who: Credentials | undefined, parts: ReadonlyArray<FilePart>, fields: Record<string, string> = {}) => {
        const data = new FormData()
        for (const [key, value] of Object.entries(fields)) data.append(key, value)
        for (const part of parts) {
          data.append(part.field ?? "file", new Blob([part.content], { type: part.type ?? "" }), part.name)
        }
        return send(makeRequest("POST", "/api/v1/user_uploads", { as: who, body: data }))
      }
      /** A multipart body written by hand: [field, file name, type, content] per part. */
      const rawMultipart = (who: Credentials, parts: ReadonlyArray<readonly [string, string, string, string]>) => {
        const boundary = "teamchat-boundary"
        const body = parts.map(([field, name, type, content]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\n` +
          `Content-Type: ${type}\r\n\r\n${content}\r\n`
        ).join("") + `--${boundary}--\r\n`
        return makeRequest("POST", "/api/v1/user_uploads", {
          as: who,
          body,
          headers: { "content-type": `multipart/form-data; boundary=${boundary}` }
        })
      }
      const uploaded = (who: Credentials, part: FilePart) =>
        Effect.map(upload(who, [part]), (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json as { url: string; uri: string; filename: string }
        })
      const download = (who: Credentials | undefined, url: string, headers: Record<string, string> = {}) =>
        send(makeRequest("GET", url, { as: who, headers }))
      const attachments = (who: Credentials) =>
        Effect.map(send(makeRequest("GET", "/api/v1/attachments", { as: who })), (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json as { readonly attachments: Array<any>; readonly upload_space_used: number; readonly [key: string]: unknown }
        })
      const sendMessage = (who: Credentials, form: Record<string, string>) =>
        Effect.map(send(makeRequest("POST", "/api/v1/messages", { as: who, form })), (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json.id as number
        })
      const createChannel = (who: Credentials, name: string, subscribers: ReadonlyArray<number>, inviteOnly = false) =>
        Effect.map(
          send(makeRequest("POST", "/api/v1/users/me/subscriptions", {
            as: who,
            form: {
              subscriptions: JSON.stringify([{ name }]),
              principals: JSON.stringify(subscribers),
              invite_only: String(inviteOnly)
            }
          })),
          (reply) => assert.strictEqual(reply.status, 200, reply.text)
        )
      /** The store holds exactly the files GET /attachments lists (and the folder exactly those). */
      const storeMatches = (paths: ReadonlyArray<string>) =>
        Effect.sync(() => {
          assert.deepStrictEqual([...storage.live].sort(), [...paths].sort())
          if (storage.root !== undefined) assert.deepStrictEqual(storage.files(), [...paths].sort())
        })
      const allPaths = Effect.gen(function*() {
        const out: Array<string> = []
        for (const role of roles) for (const a of (yield* attachments(yield* as(role))).attachments) out.push(a.path_id)
        for (const email of ["othello@zulip.com", "cordelia@zulip.com", "ZOE@zulip.com", "prospero@zulip.com", "AARON@zulip.com"]) {
          for (const a of (yield* attachments(yield* login(email))).attachments) out.push(a.path_id)
        }
        return out
      })

      it.effect("every role uploads: Zulip's answer, the attachment listed and announced, the file downloaded", () =>
        Effect.gen(function*() {
          const server = yield* Server
          let space = (yield* attachments(yield* as("member"))).upload_space_used
          for (const role of roles) {
            const who = yield* as(role)
            const queue = yield* openQueue(who, ["attachment"])
            const content = `hello from the ${role}`
            const reply = yield* upload(who, [{ field: role === "guest" ? "filename" : "file", name: `notes ${role}.txt`, type: "text/plain", content }])
            assert.strictEqual(reply.status, 200, `${role}: ${reply.text}`)
            const url = reply.json.url as string
            const match = /^\/user_uploads\/(\d+)\/([0-9a-f]{2})\/([A-Za-z0-9_-]{24})\/notes-(\w+)\.txt$/.exec(url)
            assert.isNotNull(match, url)
            assert.deepStrictEqual(reply.json, success({ uri: url, url, filename: `notes ${role}.txt` }))
            const pathId = url.slice("/user_uploads/".length)
            space += content.length
            const attachment = {
              id: (yield* attachments(who)).attachments.at(-1).id,
              name: `notes ${role}.txt`,
              path_id: pathId,
              size: content.length,
              create_time: server.clock.now(),
              messages: []
            }
            assert.deepStrictEqual<unknown>(yield* attachments(who), success({ attachments: [attachment], upload_space_used: space }))
            assert.deepStrictEqual(yield* queue.poll, [{ type: "attachment", op: "add", attachment, upload_space_used: space }])
            const file = yield* download(who, url)
            assert.strictEqual(file.status, 200, file.text)
            assert.strictEqual(file.text, content)
            assert.strictEqual(file.headers.get("content-type"), "text/plain")
            assert.strictEqual(file.headers.get("content-length"), String(content.length))
            assert.strictEqual(file.headers.get("content-disposition"), `inline; filename="notes ${role}.txt"`)
            assert.strictEqual(file.headers.get("cache-control"), "private, immutable")
            assert.strictEqual(file.headers.get("accept-ranges"), "bytes")
            assert.strictEqual(file.headers.get("x-content-type-options"), "nosniff")
          }
          yield* storeMatches(yield* allPaths)
        }))

      it.effect("the last segment is Zulip's sanitized name; filename is the name as sent, percent-decoded", () =>
        Effect.gen(function*() {
          const who = yield* login("othello@zulip.com")
          const cases: ReadonlyArray<readonly [string, string, string]> = [
            ["my report (final)!.txt", "my-report-final.txt", "my report (final)!.txt"],
            ["  spaced -- out  .pdf", "spaced-out-.pdf", "  spaced -- out  .pdf"],
            ["Ünïcödé résumé.txt", "Ünïcödé-résumé.txt", "Ünïcödé résumé.txt"],
            ["%E2%9C%93 done.txt", "done.txt", "✓ done.txt"],
            ["!!!", "uploaded-file", "!!!"],
            ["../../etc/passwd", "passwd", "passwd"],
            ["C:\\Users\\me\\photo.png", "photo.png", "photo.png"],
            ["ﬁle①.txt", "file1.txt", "ﬁle①.txt"]
          ]
          for (const [sent, segment, filename] of cases) {
            const reply = yield* uploaded(who, { name: sent, type: "text/plain", content: "x" })
            assert.strictEqual(decodeURIComponent(reply.url.split("/").at(-1)!), segment, sent)
            assert.strictEqual(reply.filename, filename, sent)
            // The URL as a client writes it (percent-encoded) downloads the file.
            const encoded = reply.url.split("/").map((s, i) => i < 5 ? s : encodeURIComponent(s)).join("/")
            assert.strictEqual((yield* download(who, encoded)).status, 200, sent)
          }
        }))

      it.effect("no file, two files, a file over the limit: Zulip's texts, nothing kept, nothing announced", () =>
        Effect.gen(function*() {
          const who = yield* as("member")
          const queue = yield* openQueue(who, ["attachment"])
          const before = yield* attachments(who)
          const keys = [...storage.live]
          const noFile = badRequest("You must specify a file to upload")
          const cases: ReadonlyArray<readonly [string, Effect.Effect<{ status: number; json: any; text: string }, never, Server>, unknown]> = [
            ["fields only", upload(who, [], { description: "no file" }), noFile],
            ["an empty file name", send(rawMultipart(who, [["file", "", "text/plain", "ignored"]])), noFile],
            ["the name of no file", send(rawMultipart(who, [["file", "..", "text/plain", "ignored"]])), noFile],
            ["no body", send(makeRequest("POST", "/api/v1/user_uploads", { as: who })), noFile],
            ["a form body", send(makeRequest("POST", "/api/v1/user_uploads", { as: who, form: { file: "x" } })), noFile],
            [
              "a JSON body",
              send(makeRequest("POST", "/api/v1/user_uploads", {
                as: who,
                body: "{\"file\":\"x\"}",
                headers: { "content-type": "application/json" }
              })),
              noFile
            ],
            [
              "two files",
              upload(who, [{ name: "one.txt", content: "one" }, { field: "other", name: "two.txt", content: "two" }]),
              badRequest("You may only upload one file at a time")
            ],
            [
              "a file one byte over 1 MiB",
              upload(who, [{ name: "big.bin", type: "application/octet-stream", content: new Uint8Array(MiB + 1) }]),
              badRequest("File is larger than this server's configured maximum upload size (1 MiB).")
            ],
            [
              "a multipart body without a boundary",
              send(makeRequest("POST", "/api/v1/user_uploads", {
                as: who,
                body: "garbage",
                headers: { "content-type": "multipart/form-data" }
              })),
              badRequest("Malformed request body")
            ]
          ]
          for (const [name, request, body] of cases) {
            const reply = yield* request
            assert.strictEqual(reply.status, 400, `${name}: ${reply.text}`)
            assert.deepStrictEqual(reply.json, body, name)
          }
          assert.deepStrictEqual(yield* attachments(who), before)
          assert.deepStrictEqual(yield* queue.poll, [])
          assert.deepStrictEqual([...storage.live].sort(), keys.sort())
          yield* storeMatches(yield* allPaths)

          // Exactly the limit is accepted; so is an empty named file (Django keeps it).
          const atLimit = yield* upload(who, [{ name: "limit.bin", type: "application/octet-stream", content: new Uint8Array(MiB) }])
          assert.strictEqual(atLimit.status, 200, atLimit.text)
          const empty = yield* upload(who, [{ name: "empty.txt", type: "text/plain", content: "" }])
          assert.strictEqual(empty.status, 200, empty.text)
          assert.strictEqual((yield* download(who, empty.json.url)).text, "")
          // A JSON file is a file (no part with a file name is a field).
          const json = yield* upload(who, [{ name: "data.json", type: "application/json", content: "{}" }])
          assert.strictEqual(json.status, 200, json.text)
          const served = yield* download(who, json.json.url)
          assert.strictEqual(served.headers.get("content-type"), "application/json")
          assert.strictEqual(served.headers.get("content-disposition"), "attachment; filename=\"data.json\"")
          yield* storeMatches(yield* allPaths)
        }))

      it.effect("register reports the server's limit", () =>
        Effect.gen(function*() {
          const who = yield* as("guest")
          const { state } = yield* openQueue(who, ["realm"])
          assert.strictEqual(state.max_file_upload_size_mib, 1)
        }))

      it.effect("types: images inline; HTML, SVG and unknown types as sandboxed attachments; names outside ASCII encoded", () =>
        Effect.gen(function*() {
          const who = yield* login("cordelia@zulip.com")
          const cases: ReadonlyArray<readonly [FilePart, string, string]> = [
            [{ name: "cat.png", type: "image/png", content: "png" }, "image/png", "inline; filename=\"cat.png\""],
            [{ name: "page.html", type: "text/html", content: "<script>alert(1)</script>" }, "text/html", "attachment; filename=\"page.html\""],
            [{ name: "logo.svg", type: "image/svg+xml", content: "<svg/>" }, "image/svg+xml", "attachment; filename=\"logo.svg\""],
            // No type sent: guessed from the name, else application/octet-stream.
            [{ name: "photo.jpg", content: "jpg" }, "image/jpeg", "inline; filename=\"photo.jpg\""],
            [{ name: "blob", content: "?" }, "application/octet-stream", "attachment; filename=\"blob\""],
            [{ name: "naïve \"q\".pdf", type: "application/pdf", content: "%PDF" }, "application/pdf", "inline; filename*=utf-8''na%C3%AFve%20%22q%22.pdf"]
          ]
          for (const [part, type, disposition] of cases) {
            const { url } = yield* uploaded(who, part)
            const file = yield* download(who, url)
            assert.strictEqual(file.status, 200, part.name)
            assert.strictEqual(file.headers.get("content-type"), type, part.name)
            assert.strictEqual(file.headers.get("content-disposition"), disposition, part.name)
            const inline = disposition.startsWith("inline")
            assert.strictEqual(
              file.headers.get("content-security-policy"),
              "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; object-src 'self'" + (inline ? "" : "; sandbox"),
              part.name
            )
          }
        }))

      it.effect("byte ranges: 206 with Content-Range, 416 past the end, the whole file for what is not one range", () =>
        Effect.gen(function*() {
          const who = yield* login("cordelia@zulip.com")
          const { url } = yield* uploaded(who, { name: "digits.txt", type: "text/plain", content: "0123456789" })
          const cases: ReadonlyArray<readonly [string, number, string, string | null]> = [
            ["bytes=0-0", 206, "0", "bytes 0-0/10"],
            ["bytes=2-5", 206, "2345", "bytes 2-5/10"],
            ["bytes=7-", 206, "789", "bytes 7-9/10"],
            ["bytes=-3", 206, "789", "bytes 7-9/10"],
            ["bytes=5-100", 206, "56789", "bytes 5-9/10"],
            ["bytes=-100", 206, "0123456789", "bytes 0-9/10"],
            ["bytes=0-1,4-5", 200, "0123456789", null],
            ["items=0-1", 200, "0123456789", null],
            ["bytes=5-2", 200, "0123456789", null]
          ]
          for (const [range, status, body, contentRange] of cases) {
            const file = yield* download(who, url, { range })
            assert.strictEqual(file.status, status, range)
            assert.strictEqual(file.text, body, range)
            assert.strictEqual(file.headers.get("content-range"), contentRange, range)
            assert.strictEqual(file.headers.get("content-length"), String(body.length), range)
          }
          for (const range of ["bytes=10-", "bytes=10-20", "bytes=-0"]) {
            const file = yield* download(who, url, { range })
            assert.strictEqual(file.status, 416, range)
            assert.strictEqual(file.headers.get("content-range"), "bytes */10", range)
            assert.strictEqual(file.text, "", range)
          }
        }))

      it.effect("downloads: the uploader, and readers of a message linking it; others 403; missing paths 404", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const othello = yield* login("othello@zulip.com")
          const cordelia = yield* login("cordelia@zulip.com")
          const guest = yield* as("guest")
          const forbidden = { status: 403, text: "<p>You are not authorized to view this file.</p>" }
          const missing = { status: 404, text: "<p>This file does not exist or has been deleted.</p>" }
          const outcome = (reply: { status: number; text: string }) => ({ status: reply.status, text: reply.status === 200 ? "file" : reply.text })
          const file = { status: 200, text: "file" }

          const { url } = yield* uploaded(hamlet, { name: "shared.txt", type: "text/plain", content: "shared" })
          for (const who of [othello, cordelia, guest]) assert.deepStrictEqual(outcome(yield* download(who, url)), forbidden)
          const refused = yield* download(othello, url)
          assert.strictEqual(refused.headers.get("content-type"), "text/html; charset=utf-8")
          assert.strictEqual(refused.headers.get("vary"), "Accept")

          // A direct message to Cordelia: she may read it, Othello may not.
          yield* sendMessage(hamlet, { type: "private", to: JSON.stringify([cordelia.userId]), content: `[shared.txt](${url})` })
          assert.deepStrictEqual(outcome(yield* download(cordelia, url)), file)
          assert.deepStrictEqual(outcome(yield* download(othello, url)), forbidden)

          // A public channel only Hamlet is in: its history is open to members, not to a guest outside it.
          yield* createChannel(hamlet, `uploads ${backend}`, [hamlet.userId])
          const { url: other } = yield* uploaded(hamlet, { name: "public.txt", type: "text/plain", content: "public" })
          yield* sendMessage(hamlet, { type: "stream", to: `uploads ${backend}`, topic: "files", content: `see ${realmUrl}${other}` })
          assert.deepStrictEqual(outcome(yield* download(othello, other)), file)
          assert.deepStrictEqual(outcome(yield* download(guest, other)), forbidden)

          // A private channel: its subscribers only.
          yield* createChannel(hamlet, `uploads private ${backend}`, [hamlet.userId, cordelia.userId], true)
          const { url: secret } = yield* uploaded(hamlet, { name: "secret.txt", type: "text/plain", content: "secret" })
          yield* sendMessage(hamlet, { type: "stream", to: `uploads private ${backend}`, topic: "files", content: `[secret](${secret})` })
          assert.deepStrictEqual(outcome(yield* download(cordelia, secret)), file)
          assert.deepStrictEqual(outcome(yield* download(othello, secret)), forbidden)
          const admin = yield* as("admin")
          assert.deepStrictEqual(outcome(yield* download(admin, secret)), forbidden)

          // Someone else linking Hamlet's file claims nothing: it stays Hamlet's alone.
          const { url: mine } = yield* uploaded(hamlet, { name: "mine.txt", type: "text/plain", content: "mine" })
          yield* sendMessage(othello, { type: "stream", to: "Denmark", topic: "files", content: `[stolen](${mine})` })
          assert.deepStrictEqual(outcome(yield* download(cordelia, mine)), forbidden)

          // Paths that name no upload; paths that try to leave the store.
          const realm = url.split("/")[2]!
          for (const wrong of [
            `/user_uploads/${realm}/00/nothing/here.txt`,
            `/user_uploads/${realm}/..%2F..%2F..%2Fetc%2Fpasswd`,
            `/user_uploads/999/${url.split("/").slice(3).join("/")}`,
            `/user_uploads/abc/${url.split("/").slice(3).join("/")}`
          ]) {
            const reply = yield* download(hamlet, wrong)
            assert.deepStrictEqual(outcome(reply), missing, wrong)
          }
          // Dot segments are resolved before routing: what is left names no route (Zulip's JSON 404).
          for (const dots of [`/user_uploads/${realm}/../../etc/passwd`, `/user_uploads/${realm}/%2e%2e/%2e%2e/pgdata/PG_VERSION`]) {
            const resolved = yield* download(hamlet, dots)
            assert.strictEqual(resolved.status, 404, dots)
            assert.strictEqual(resolved.json.code, "BAD_REQUEST", dots)
          }
          // Credentials are required, as on the API.
          const anonymous = yield* download(undefined, url)
          assert.strictEqual(anonymous.status, 401)
          assert.deepStrictEqual(anonymous.json, {
            result: "error",
            msg: "Not logged in: API authentication or user session required",
            code: "UNAUTHORIZED"
          })
          const wrongKey = yield* send(makeRequest("GET", url, { headers: { authorization: basic(hamlet.email, "x".repeat(32)) } }))
          assert.strictEqual(wrongKey.status, 401)
        }))

      it.effect("a sent message claims its sender's uploads: attachment update, GET /attachments lists the messages", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const who = yield* login("ZOE@zulip.com")
          const queue = yield* openQueue(who, ["attachment"])
          const first = yield* uploaded(who, { name: "a.txt", type: "text/plain", content: "a" })
          const second = yield* uploaded(who, { name: "b.txt", type: "text/plain", content: "bb" })
          const listed = (yield* attachments(who)).attachments
          const [a, b] = listed
          assert.deepStrictEqual(listed.map((x) => x.path_id), [first.url.slice(14), second.url.slice(14)])
          yield* queue.poll
          server.clock.advance(5000)
          const sentAt = server.clock.now()
          const id = yield* sendMessage(who, {
            type: "stream",
            to: "Verona",
            topic: "files",
            content: `[a](${first.url}) and [b](${realmUrl}${second.url}) and [a again](${first.url})`
          })
          const linked = [{ id, date_sent: Math.floor(sentAt / 1000) * 1000 }]
          const space = (yield* attachments(who)).upload_space_used
          assert.deepStrictEqual(yield* queue.poll, [
            { type: "attachment", op: "update", attachment: { ...a, messages: linked }, upload_space_used: space },
            { type: "attachment", op: "update", attachment: { ...b, messages: linked }, upload_space_used: space }
          ])
          // A second message linking one of them adds itself to its list.
          const again = yield* sendMessage(who, { type: "private", to: JSON.stringify([who.userId]), content: `[a](${first.url})` })
          const both = [...linked, { id: again, date_sent: Math.floor(sentAt / 1000) * 1000 }]
          assert.deepStrictEqual(yield* queue.poll, [
            { type: "attachment", op: "update", attachment: { ...a, messages: both }, upload_space_used: space }
          ])
          assert.deepStrictEqual((yield* attachments(who)).attachments, [
            { ...a, messages: both },
            { ...b, messages: linked }
          ])
          // A message linking nothing of the sender's announces nothing.
          yield* sendMessage(who, { type: "stream", to: "Verona", topic: "files", content: "[no](/user_uploads/1/00/none/x.txt)" })
          assert.deepStrictEqual(yield* queue.poll, [])
        }))

      /** GET /api/v1/user_uploads/{path id}. */
      const temporaryUrl = (who: Credentials | undefined, url: string) => send(makeRequest("GET", `/api/v1${url}`, { as: who }))
      const temporaryPattern = /^\/user_uploads\/temporary\/([0-9A-F]+)\/([^/]+)$/
      /** The temporary URL of a file `who` may download. */
      const temporary = (who: Credentials, url: string) =>
        Effect.map(temporaryUrl(who, url), (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          const match = temporaryPattern.exec(reply.json.url)
          assert.isNotNull(match, reply.json.url)
          return { url: reply.json.url as string, token: match![1]!, filename: match![2]! }
        })
      const hexOf = (text: string) => Buffer.from(text, "utf8").toString("hex").toUpperCase()
      const textOf = (hex: string) => Buffer.from(hex, "hex").toString("utf8")
      const fromToken = (token: string, filename: string) => `/user_uploads/temporary/${token}/${filename}`

      it.effect("temporary URLs: Zulip's answer; the file without credentials, as the download serves it, for 60 seconds", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const who = yield* login("othello@zulip.com")
          const content = "%PDF-1.4 the whole report"
          const { url } = yield* uploaded(who, { name: "quarterly report.pdf", type: "application/pdf", content })
          const pathId = url.slice("/user_uploads/".length)
          const issuedAt = server.clock.now()
          const reply = yield* temporaryUrl(who, url)
          assert.strictEqual(reply.status, 200, reply.text)
          assert.strictEqual(reply.headers.get("content-type"), "application/json")
          const temporaryUrlOf = reply.json.url as string
          assert.strictEqual(reply.text, JSON.stringify({ result: "success", msg: "", url: temporaryUrlOf }))
          const [, token, filename] = temporaryPattern.exec(temporaryUrlOf)!
          assert.strictEqual(filename, "quarterly-report.pdf")
          // The token: the path id and when it expires, then the signature, in upper-case hex.
          const [signedPath, expires, signature] = [
            textOf(token!).split(":").slice(0, -2).join(":"),
            textOf(token!).split(":").at(-2),
            textOf(token!).split(":").at(-1)
          ]
          assert.strictEqual(signedPath, pathId)
          assert.strictEqual(Number(expires), Math.floor(issuedAt / 1000) + 60)
          assert.match(signature!, /^[A-Za-z0-9_-]{43}$/)

          // Without credentials, with the download's headers.
          const normal = yield* download(who, url)
          const file = yield* download(undefined, temporaryUrlOf)
          assert.strictEqual(file.status, 200, file.text)
          assert.strictEqual(file.text, content)
          for (const header of ["content-type", "content-length", "content-disposition", "cache-control", "accept-ranges", "x-content-type-options", "content-security-policy"]) {
            assert.strictEqual(file.headers.get(header), normal.headers.get(header), header)
          }
          assert.strictEqual(file.headers.get("content-type"), "application/pdf")
          assert.strictEqual(file.headers.get("content-disposition"), "inline; filename=\"quarterly report.pdf\"")
          assert.strictEqual(file.headers.get("content-security-policy"), "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; object-src 'self'")
          // Credentials of someone else change nothing: the token is the credential.
          assert.strictEqual((yield* download(yield* as("guest"), temporaryUrlOf)).text, content)
          // Ranges as the download answers them.
          const part = yield* download(undefined, temporaryUrlOf, { range: "bytes=0-7" })
          assert.strictEqual(part.status, 206)
          assert.strictEqual(part.text, "%PDF-1.4")
          assert.strictEqual(part.headers.get("content-range"), `bytes 0-7/${content.length}`)
          const past = yield* download(undefined, temporaryUrlOf, { range: `bytes=${content.length}-` })
          assert.strictEqual(past.status, 416)
          assert.strictEqual(past.headers.get("content-range"), `bytes */${content.length}`)

          // Valid until 60 seconds after the second it was signed in, not a millisecond more.
          const invalidToken = badRequest("Invalid token")
          server.clock.advance(Number(expires) * 1000 - server.clock.now())
          assert.strictEqual((yield* download(undefined, temporaryUrlOf)).status, 200)
          server.clock.advance(1)
          const expired = yield* download(undefined, temporaryUrlOf)
          assert.strictEqual(expired.status, 400, expired.text)
          assert.deepStrictEqual(expired.json, invalidToken)
          assert.strictEqual(expired.headers.get("content-type"), "application/json")
          // A new one works again.
          const fresh = yield* temporary(who, url)
          assert.notStrictEqual(fresh.token, token)
          assert.strictEqual((yield* download(undefined, fresh.url)).text, content)

          // A name outside ASCII: percent-encoded in the URL, which serves it.
          const unicode = yield* uploaded(who, { name: "Ünïcödé résumé.txt", type: "text/plain", content: "unicode" })
          const its = yield* temporary(who, unicode.url)
          assert.strictEqual(its.filename, encodeURIComponent("Ünïcödé-résumé.txt"))
          assert.strictEqual(textOf(its.token).split(":").slice(0, -2).join(":"), decodeURIComponent(unicode.url.slice("/user_uploads/".length)))
          const served = yield* download(undefined, its.url)
          assert.strictEqual(served.status, 200, served.text)
          assert.strictEqual(served.text, "unicode")
        }))

      it.effect("temporary URLs: malformed, forged, expired-extended and deleted tokens; another file's name", () =>
        Effect.gen(function*() {
          const who = yield* as("admin")
          const first = yield* uploaded(who, { name: "first.txt", type: "text/plain", content: "first" })
          const second = yield* uploaded(who, { name: "second.txt", type: "text/plain", content: "second" })
          const a = yield* temporary(who, first.url)
          const b = yield* temporary(who, second.url)
          const invalidToken = badRequest("Invalid token")
          const answer = (url: string) => Effect.map(download(undefined, url), (reply) => ({ status: reply.status, json: reply.json }))
          const refused = (body: unknown) => ({ status: 400, json: body })

          const [path, expires, signature] = (() => {
            const parts = textOf(a.token).split(":")
            return [parts.slice(0, -2).join(":"), parts.at(-2)!, parts.at(-1)!]
          })()
          const otherPath = second.url.slice("/user_uploads/".length)
          const flipped = signature.slice(0, -1) + (signature.endsWith("A") ? "B" : "A")
          const cases: ReadonlyArray<readonly [string, string, string, unknown]> = [
            ["not hex", "not-a-token", "first.txt", invalidToken],
            ["odd length", a.token.slice(1), "first.txt", invalidToken],
            ["lower-case hex", a.token.toLowerCase(), "first.txt", invalidToken],
            ["no signature", hexOf(path), "first.txt", invalidToken],
            ["a forged signature", hexOf(`${path}:${expires}:${flipped}`), "first.txt", invalidToken],
            ["an empty signature", hexOf(`${path}:${expires}:`), "first.txt", invalidToken],
            ["the expiry moved on", hexOf(`${path}:${Number(expires) + 3600}:${signature}`), "first.txt", invalidToken],
            ["another path under this signature", hexOf(`${otherPath}:${expires}:${signature}`), "second.txt", invalidToken],
            ["a signature from another file's token", hexOf(`${path}:${expires}:${textOf(b.token).split(":").at(-1)}`), "first.txt", invalidToken],
            ["another file's name", a.token, "second.txt", badRequest("Invalid filename")],
            ["a name not the token's", a.token, "first.txt.exe", badRequest("Invalid filename")]
          ]
          for (const [name, token, filename, body] of cases) {
            assert.deepStrictEqual(yield* answer(fromToken(token, filename)), refused(body), name)
          }
          // Each token serves its own file only.
          assert.strictEqual((yield* download(undefined, a.url)).text, "first")
          assert.strictEqual((yield* download(undefined, b.url)).text, "second")
          // A file deleted since: the token names nothing.
          const [, attachment] = (yield* attachments(who)).attachments.filter((x) => x.path_id === path || x.path_id === otherPath)
          assert.strictEqual(attachment.path_id, otherPath)
          const removed = yield* send(makeRequest("DELETE", `/api/v1/attachments/${attachment.id}`, { as: who }))
          assert.strictEqual(removed.status, 200, removed.text)
          assert.deepStrictEqual(yield* answer(b.url), refused(invalidToken))
        }))

      it.effect("temporary URLs: asked under the download's rule, by every role; refusals are the download's HTML", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const cordelia = yield* login("cordelia@zulip.com")
          const { url } = yield* uploaded(hamlet, { name: "plan.txt", type: "text/plain", content: "plan" })
          const forbidden = { status: 403, text: "<p>You are not authorized to view this file.</p>" }
          const missing = { status: 404, text: "<p>This file does not exist or has been deleted.</p>" }
          const outcome = (reply: { status: number; text: string }) => ({ status: reply.status, text: reply.status === 200 ? "url" : reply.text })
          for (const role of roles.filter((r) => r !== "member")) {
            const reply = yield* temporaryUrl(yield* as(role), url)
            assert.deepStrictEqual(outcome(reply), forbidden, role)
            assert.strictEqual(reply.headers.get("content-type"), "text/html; charset=utf-8", role)
          }
          assert.deepStrictEqual(outcome(yield* temporaryUrl(cordelia, url)), forbidden)
          assert.deepStrictEqual(outcome(yield* temporaryUrl(hamlet, url)), { status: 200, text: "url" })
          // A direct message to Cordelia lets her have one too.
          yield* sendMessage(hamlet, { type: "private", to: JSON.stringify([cordelia.userId]), content: `[plan](${url})` })
          const hers = yield* temporary(cordelia, url)
          assert.strictEqual((yield* download(undefined, hers.url)).text, "plan")
          assert.deepStrictEqual(outcome(yield* temporaryUrl(yield* login("othello@zulip.com"), url)), forbidden)
          // Paths that name no upload.
          const realm = url.split("/")[2]!
          for (const wrong of [`/user_uploads/${realm}/00/nothing/here.txt`, `/user_uploads/999/${url.split("/").slice(3).join("/")}`, `/user_uploads/abc/x.txt`]) {
            assert.deepStrictEqual(outcome(yield* temporaryUrl(hamlet, wrong)), missing, wrong)
          }
          // Credentials are required to ask.
          const anonymous = yield* temporaryUrl(undefined, url)
          assert.strictEqual(anonymous.status, 401)
          assert.deepStrictEqual(anonymous.json, {
            result: "error",
            msg: "Not logged in: API authentication or user session required",
            code: "UNAUTHORIZED"
          })
        }))

      it.effect("an edit unlinks what its content drops and claims what it adds; detached_uploads lists the editor's files left unlinked", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const who = yield* login("AARON@zulip.com")
          const edit = (id: number, content: string) =>
            send(makeRequest("PATCH", `/api/v1/messages/${id}`, { as: who, form: { content } }))
          const a = yield* uploaded(who, { name: "keep.txt", type: "text/plain", content: "a" })
          const b = yield* uploaded(who, { name: "drop.txt", type: "text/plain", content: "bb" })
          const c = yield* uploaded(who, { name: "add.txt", type: "text/plain", content: "ccc" })
          const d = yield* uploaded(who, { name: "shared.txt", type: "text/plain", content: "dddd" })
          const sentAt = Math.floor(server.clock.now() / 1000) * 1000
          const id = yield* sendMessage(who, {
            type: "stream",
            to: "Verona",
            topic: "edited files",
            content: `[a](${a.url}) [b](${b.url}) [d](${d.url})`
          })
          const other = yield* sendMessage(who, { type: "private", to: JSON.stringify([who.userId]), content: `[d](${d.url})` })
          const before = (yield* attachments(who)).attachments
          const byName = (name: string) => before.find((x) => x.name === name)!
          const queue = yield* openQueue(who, ["attachment"])
          yield* queue.poll

          // b and d dropped, c added: b is left linked by nothing; d is still linked by the other message.
          const reply = yield* edit(id, `[a](${a.url}) [c](${c.url})`)
          assert.strictEqual(reply.status, 200, reply.text)
          assert.deepStrictEqual(reply.json, {
            result: "success",
            msg: "",
            detached_uploads: [{ ...byName("drop.txt"), messages: [] }]
          })
          const linked = [{ id, date_sent: sentAt }]
          const space = (yield* attachments(who)).upload_space_used
          assert.deepStrictEqual(yield* queue.poll, [
            { type: "attachment", op: "update", attachment: { ...byName("add.txt"), messages: linked }, upload_space_used: space }
          ])
          assert.deepStrictEqual((yield* attachments(who)).attachments, [
            { ...byName("keep.txt"), messages: linked },
            { ...byName("drop.txt"), messages: [] },
            { ...byName("add.txt"), messages: linked },
            { ...byName("shared.txt"), messages: [{ id: other, date_sent: sentAt }] }
          ])
          // An edit that keeps its links detaches nothing and announces nothing.
          const same = yield* edit(id, `again: [a](${a.url}) [c](${c.url})`)
          assert.deepStrictEqual(same.json, { result: "success", msg: "", detached_uploads: [] })
          assert.deepStrictEqual(yield* queue.poll, [])
        }))

      it.effect("DELETE /attachments/{id}: only the uploader's; the file goes, downloads 404, remove announced", () =>
        Effect.gen(function*() {
          const who = yield* login("prospero@zulip.com")
          const other = yield* login("othello@zulip.com")
          const queue = yield* openQueue(who, ["attachment"])
          const { url } = yield* uploaded(who, { name: "gone.txt", type: "text/plain", content: "gone" })
          const [attachment] = (yield* attachments(who)).attachments
          yield* queue.poll
          const remove = (as: Credentials, id: number | string) =>
            send(makeRequest("DELETE", `/api/v1/attachments/${id}`, { as }))
          for (const [as, id] of [[other, attachment.id], [who, 999999], [who, 0]] as const) {
            const reply = yield* remove(as, id)
            assert.strictEqual(reply.status, 400, reply.text)
            assert.deepStrictEqual(reply.json, badRequest("Invalid attachment"))
          }
          assert.strictEqual((yield* remove(who, "abc")).status, 404)
          assert.deepStrictEqual(yield* queue.poll, [])
          assert.deepStrictEqual((yield* remove(who, attachment.id)).json, success())
          const space = (yield* attachments(who)).upload_space_used
          assert.deepStrictEqual(yield* queue.poll, [
            { type: "attachment", op: "remove", attachment: { id: attachment.id }, upload_space_used: space }
          ])
          assert.deepStrictEqual((yield* attachments(who)).attachments, [])
          const reply = yield* download(who, url)
          assert.strictEqual(reply.status, 404)
          assert.strictEqual(reply.text, "<p>This file does not exist or has been deleted.</p>")
          assert.deepStrictEqual(yield* remove(who, attachment.id).pipe(Effect.map((r) => r.json)), badRequest("Invalid attachment"))
          yield* storeMatches(yield* allPaths)
          storage.cleanup()
        }))
    })
  })
