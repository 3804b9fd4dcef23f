/**
 * Matrix rows of uploaded files. Every person and bot may upload (guests
 * too) and list and delete their own uploads; anyone else's attachment is
 * "Invalid attachment". A download is the uploader's, and that of whoever
 * may read a message linking the file; anyone else gets Zulip's HTML 403.
 * Nobody without credentials gets anything (401, as on the API).
 */
import * as Effect from "effect/Effect"
import { sendCall } from "../AuthorizationMatrix.ts"
import type { Account, Expected, Fixture, Row } from "./Table.ts"
import { allRoles, authenticated, ok, refused, success } from "./Table.ts"

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
    request: (fixture) =>
      Effect.map(
        fixture.once(
          "private upload",
          Effect.gen(function*() {
            const { url } = yield* uploadAs(fixture, "bystander")
            yield* fixture.call("bystander", "POST", "/messages", {
              form: { type: "stream", to: String(fixture.privateChannel.id), topic: "files", content: `[notes](${url})` }
            })
            return url
          })
        ),
        (url) => ({ path: url })
      ),
    expect: authenticated(allRoles(notAuthorized))
  }
]
