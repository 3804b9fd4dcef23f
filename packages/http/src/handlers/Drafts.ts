/**
 * GET and POST /drafts, PATCH and DELETE /drafts/{draft_id}. The sync
 * setting is checked before the draft parameters are decoded, as Zulip's.
 *
 * @since 0.1.0
 */
import { Drafts } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { DraftParam, DraftsParam } from "../api/Drafts.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"

const decodeDrafts = Params.decodeIn(DraftsParam)
const decodeDraft = Params.decodeIn(DraftParam)

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "drafts",
  Effect.fn(function*(handlers) {
    const drafts = yield* Drafts.Drafts
    return handlers.handleAll({
      list: () => Effect.flatMap(CurrentPrincipal, (principal) => drafts.list(principal)).pipe(Envelope.wrap),
      create: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* drafts.requireSync(principal)
          const params = yield* decodeDrafts(query)
          const ids = yield* drafts.create(principal, params.drafts)
          return { ids: ids as ReadonlyArray<number> }
        }).pipe(Envelope.wrap),
      edit: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* drafts.requireSync(principal)
          const { draft } = yield* decodeDraft(query)
          yield* drafts.edit(principal, params.draft_id, draft)
          return {}
        }).pipe(Envelope.wrap),
      remove: ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* drafts.remove(principal, params.draft_id)
          return {}
        }).pipe(Envelope.wrap)
    })
  })
)
