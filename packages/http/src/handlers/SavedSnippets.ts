/**
 * GET and POST /saved_snippets, PATCH and DELETE
 * /saved_snippets/{saved_snippet_id}.
 *
 * @since 0.1.0
 */
import { SavedSnippets } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "savedSnippets",
  Effect.fn(function*(handlers) {
    const snippets = yield* SavedSnippets.SavedSnippets
    return handlers.handleAll({
      list: () =>
        Effect.flatMap(CurrentPrincipal, (principal) => snippets.list(principal)).pipe(
          Effect.map((list) => ({ saved_snippets: list })),
          Envelope.wrap
        ),
      create: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => snippets.create(principal, query)).pipe(
          Effect.map((id) => ({ saved_snippet_id: id as number })),
          Envelope.wrap
        ),
      edit: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* snippets.edit(principal, params.saved_snippet_id, query)
          return {}
        }).pipe(Envelope.wrap),
      remove: ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* snippets.remove(principal, params.saved_snippet_id)
          return {}
        }).pipe(Envelope.wrap)
    })
  })
)
