/**
 * Matrix rows of uploaded files. Every person and bot may upload (guests
 * too) and list and delete their own uploads; anyone else's attachment is
 * "Invalid attachment". A download is the uploader's, and that of whoever
 * may read a message linking the file; anyone else gets Zulip's HTML 403.
 * Nobody without credentials gets anything (401, as on the API).
 * A temporary URL is asked under the download's rule (with its HTML 403);
 * it then serves the file to anyone, credentials or not, while its token
 * is valid; a forged token is "Invalid token" for everyone.
 */
import * as Effect from "effect/Effect"
import { sendCall } from "../AuthorizationMatrix.ts"
import type { Account, Expected, Fixture, Row } from "./Table.ts"
import { allRoles, authenticated, everyone, ok, refused, success } from "./Table.ts"

const file = { field: "file", name: "matrix notes.txt", type: "text/plain", content: "matrix" }

/** A file uploaded by `as` (or the bystander): its URL and attachment id. */
const uploadAs = (fixture: Fixture, as: Account | "bystander") =>
  Effect.gen(function*() {
    const who = as === "bystander" ? fixture.bystander : fixture.accounts[as]
    const reply = yield* sendCall(fixture.server, "POST", "/api/v1/user_uploads", who, { files: [file] })
    if (reply.status !== 200) return yield* Effect.die(new Error(`fixture upload as ${as}: ${reply.text}`))
    const listed = yield* sendCall(fixture.server, "GET", "/api/v1/attachments", who, {})
    const id = (listed.json.attachments as Array<{ id: number }>).at(-1)!.id
    return { url: reply.json.url as string, id }
  })

const downloaded: Expected = { status: 200, text: "matrix" }

/** The bystander's file, linked from the private channel only the bystander is in: nobody else may read it. */
const privateUpload = (fixture: Fixture) =>
  fixture.once(
    "private upload",
    Effect.gen(function*() {
      const { url } = yield* uploadAs(fixture, "bystander")
      yield* fixture.call("bystander", "POST", "/messages", {
        form: { type: "stream", to: String(fixture.privateChannel.id), topic: "files", content: `[notes](${url})` }
      })
      return url
    })
  )

/** A fresh temporary URL of a file the member uploaded. */
const temporaryOfMember = (fixture: Fixture) =>
  Effect.gen(function*() {
    const { url } = yield* uploadAs(fixture, "member")
    const reply = yield* fixture.call("member", "GET", url, {})
    return reply.url as string
  })
const notAuthorized: Expected = { status: 403, text: "<p>You are not authorized to view this file.</p>" }

export const uploadsRows: ReadonlyArray<Row> = [
  {
    operation: "POST /user_uploads",
    request: () => Effect.succeed({ files: [file] }),
    digest: (body) => ({ shape: /^\/user_uploads\/\d+\/[0-9a-f]{2}\/[\w-]{24}\/matrix-notes\.txt$/.test(body.url) && body.uri === body.url }),
    expect: authenticated(allRoles(ok(() => ({ filename: "matrix notes.txt", shape: true }))))
  },
  {
    operation: "GET /attachments",
    request: (fixture, as) => Effect.map(uploadAs(fixture, as), (made) => ({ made })),
    digest: (body, _fixture, call) => ({
      listed: body.attachments.some((a: { id: number }) => a.id === call.made!.id),
      space: body.upload_space_used > 0
    }),
    expect: authenticated(allRoles(ok(() => ({ listed: true, space: true }))))
  },
  {
    operation: "DELETE /attachments/{attachment_id}",
    scenario: "one's own",
    request: (fixture, as) => Effect.map(uploadAs(fixture, as), ({ id }) => ({ path: `/attachments/${id}` })),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "DELETE /attachments/{attachment_id}",
    scenario: "the bystander's",
    request: (fixture) =>
      Effect.map(fixture.once("bystander upload", uploadAs(fixture, "bystander")), ({ id }) => ({ path: `/attachments/${id}` })),
    expect: authenticated(allRoles(refused("Invalid attachment")))
  },
  {
    operation: "GET /user_uploads/{realm_id}/{filename}",
    outsideApi: true,
    scenario: "one's own upload",
    request: (fixture, as) => Effect.map(uploadAs(fixture, as), ({ url }) => ({ path: url })),
    expect: authenticated(allRoles(downloaded))
  },
  {
    operation: "GET /user_uploads/{realm_id}/{filename}",
    outsideApi: true,
    scenario: "linked from the channel everyone is in",
    request: (fixture) =>
      Effect.map(
        fixture.once(
          "linked upload",
          Effect.gen(function*() {
            const { url } = yield* uploadAs(fixture, "member")
            yield* fixture.call("member", "POST", "/messages", {
              form: { type: "stream", to: String(fixture.everyoneChannel.id), topic: "files", content: `[notes](${url})` }
            })
            return url
          })
        ),
        (url) => ({ path: url })
      ),
    expect: authenticated(allRoles(downloaded))
  },
  {
    operation: "GET /user_uploads/{realm_id}/{filename}",
    outsideApi: true,
    scenario: "the bystander's, linked from the private channel only the bystander is in",
    request: (fixture) => Effect.map(privateUpload(fixture), (url) => ({ path: url })),
    expect: authenticated(allRoles(notAuthorized))
  },
  {
    operation: "GET /user_uploads/{realm_id_str}/{filename}",
    scenario: "one's own upload",
    request: (fixture, as) => Effect.map(uploadAs(fixture, as), ({ url }) => ({ path: url })),
    digest: (body) => ({ shape: /^\/user_uploads\/temporary\/[0-9A-F]+\/matrix-notes\.txt$/.test(body.url) }),
    expect: authenticated(allRoles(ok(() => ({ shape: true }))))
  },
  {
    operation: "GET /user_uploads/{realm_id_str}/{filename}",
    scenario: "the bystander's, linked from the private channel only the bystander is in",
    request: (fixture) => Effect.map(privateUpload(fixture), (url) => ({ path: url })),
    expect: authenticated(allRoles(notAuthorized))
  },
  {
    operation: "GET /user_uploads/temporary/{token}/{filename}",
    outsideApi: true,
    scenario: "a fresh token: no credentials needed",
    request: (fixture) => Effect.map(temporaryOfMember(fixture), (url) => ({ path: url })),
    expect: everyone(downloaded)
  },
  {
    operation: "GET /user_uploads/temporary/{token}/{filename}",
    outsideApi: true,
    scenario: "a forged token",
    request: (fixture) =>
      Effect.map(fixture.once("temporary URL", temporaryOfMember(fixture)), (url) => {
        const [, , , token, filename] = url.split("/")
        // The last hex digit of the signature changed.
        const forged = token!.slice(0, -1) + (token!.endsWith("0") ? "1" : "0")
        return { path: `/user_uploads/temporary/${forged}/${filename}` }
      }),
    expect: everyone(refused("Invalid token"))
  }
]
