/**
 * Matrix rows of the drafts and saved-snippet routes. Every person and bot
 * keeps their own drafts and snippets (no role is refused); anyone else's id
 * is Zulip's 404 ("Draft does not exist", "Saved snippet does not exist.").
 * A channel draft needs a channel the caller can read: a guest cannot
 * address a public channel they are not in, and nobody (administrators
 * included) a private channel they are not in ("Invalid channel ID").
 */
import * as Effect from "effect/Effect"
import type { Account, Expected, Fixture, Row } from "./Table.ts"
import { allRoles, authenticated, ok, refused, success } from "./Table.ts"

/** A channel draft by `as` on the channel every principal is in; its id. */
const draft = (fixture: Fixture, as: Account) =>
  Effect.map(
    fixture.call(as, "POST", "/drafts", {
      form: {
        drafts: JSON.stringify([{ type: "stream", to: [fixture.everyoneChannel.id], topic: "draft", content: "drafted" }])
      }
    }),
    (body) => body.ids[0] as number
  )

/** A saved snippet by `as`; its id. */
const snippet = (fixture: Fixture, as: Account) =>
  Effect.map(
    fixture.call(as, "POST", "/saved_snippets", { form: { title: "greeting", content: "Welcome!" } }),
    (body) => body.saved_snippet_id as number
  )

const draftNotFound: Expected = {
  status: 404,
  body: { result: "error", msg: "Draft does not exist", code: "BAD_REQUEST" }
}

const snippetNotFound: Expected = {
  status: 404,
  body: { result: "error", msg: "Saved snippet does not exist.", code: "BAD_REQUEST" }
}

const created: Expected = ok(() => ({ ids: 1 }))

const channelDraft = (scenario: string, channel: (fixture: Fixture) => number, expect: Row["expect"]): Row => ({
  operation: "POST /drafts",
  scenario,
  request: (fixture) =>
    Effect.succeed({
      form: { drafts: JSON.stringify([{ type: "stream", to: [channel(fixture)], topic: "draft", content: "drafted" }]) }
    }),
  digest: (body) => ({ ids: body.ids.length }),
  expect
})

export const draftsRows: ReadonlyArray<Row> = [
  {
    operation: "GET /drafts",
    request: (fixture, as) => Effect.map(draft(fixture, as), (id) => ({ made: { id } })),
    digest: (body, _fixture, call) => ({
      listed: body.drafts.some((d: { id: number }) => d.id === call.made!.id),
      count: body.count === body.drafts.length
    }),
    expect: authenticated(allRoles(ok(() => ({ listed: true, count: true }))))
  },
  channelDraft("a channel everyone is in", (fixture) => fixture.everyoneChannel.id, authenticated(allRoles(created))),
  channelDraft(
    "a public channel the caller is not in",
    (fixture) => fixture.publicChannel.id,
    authenticated({ ...allRoles(created), guest: refused("Invalid channel ID") })
  ),
  channelDraft(
    "a private channel the caller is not in",
    (fixture) => fixture.privateChannel.id,
    authenticated(allRoles(refused("Invalid channel ID")))
  ),
  {
    operation: "POST /drafts",
    scenario: "to the bystander",
    request: (fixture) =>
      Effect.succeed({
        form: { drafts: JSON.stringify([{ type: "private", to: [fixture.bystander.userId], topic: "", content: "hi" }]) }
      }),
    digest: (body) => ({ ids: body.ids.length }),
    expect: authenticated(allRoles(created))
  },
  {
    operation: "PATCH /drafts/{draft_id}",
    scenario: "its own",
    request: (fixture, as) =>
      Effect.map(draft(fixture, as), (id) => ({
        path: `/drafts/${id}`,
        form: { draft: JSON.stringify({ type: "", to: [], topic: "", content: "edited" }) }
      })),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "PATCH /drafts/{draft_id}",
    scenario: "the member's",
    request: (fixture) =>
      Effect.map(draft(fixture, "member"), (id) => ({
        path: `/drafts/${id}`,
        form: { draft: JSON.stringify({ type: "", to: [], topic: "", content: "edited" }) }
      })),
    expect: authenticated({ ...allRoles(draftNotFound), member: success() })
  },
  {
    operation: "DELETE /drafts/{draft_id}",
    scenario: "its own",
    request: (fixture, as) => Effect.map(draft(fixture, as), (id) => ({ path: `/drafts/${id}` })),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "DELETE /drafts/{draft_id}",
    scenario: "the member's",
    request: (fixture) => Effect.map(draft(fixture, "member"), (id) => ({ path: `/drafts/${id}` })),
    expect: authenticated({ ...allRoles(draftNotFound), member: success() })
  }
]

export const savedSnippetsRows: ReadonlyArray<Row> = [
  {
    operation: "GET /saved_snippets",
    request: (fixture, as) => Effect.map(snippet(fixture, as), (id) => ({ made: { id } })),
    digest: (body, _fixture, call) => ({
      listed: body.saved_snippets.some((s: { id: number }) => s.id === call.made!.id)
    }),
    expect: authenticated(allRoles(ok(() => ({ listed: true }))))
  },
  {
    operation: "POST /saved_snippets",
    request: () => Effect.succeed({ form: { title: "greeting", content: "Welcome!" } }),
    digest: (body) => ({ id: typeof body.saved_snippet_id }),
    expect: authenticated(allRoles(ok(() => ({ id: "number" }))))
  },
  {
    operation: "PATCH /saved_snippets/{saved_snippet_id}",
    scenario: "its own",
    request: (fixture, as) =>
      Effect.map(snippet(fixture, as), (id) => ({ path: `/saved_snippets/${id}`, form: { title: "renamed" } })),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "PATCH /saved_snippets/{saved_snippet_id}",
    scenario: "the member's",
    request: (fixture) =>
      Effect.map(snippet(fixture, "member"), (id) => ({ path: `/saved_snippets/${id}`, form: { title: "renamed" } })),
    expect: authenticated({ ...allRoles(snippetNotFound), member: success() })
  },
  {
    operation: "DELETE /saved_snippets/{saved_snippet_id}",
    scenario: "its own",
    request: (fixture, as) => Effect.map(snippet(fixture, as), (id) => ({ path: `/saved_snippets/${id}` })),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "DELETE /saved_snippets/{saved_snippet_id}",
    scenario: "the member's",
    request: (fixture) => Effect.map(snippet(fixture, "member"), (id) => ({ path: `/saved_snippets/${id}` })),
    expect: authenticated({ ...allRoles(snippetNotFound), member: success() })
  }
]
