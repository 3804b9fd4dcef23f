/**
 * POST /invites/multiuse, GET /invites and DELETE /invites/multiuse/{id}.
 *
 * @since 0.1.0
 */
import { Invitations } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "invitations",
  Effect.fn(function*(handlers) {
    const invitations = yield* Invitations.Invitations
    return handlers.handleAll({
      createMultiuse: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => invitations.create(principal, query)).pipe(
          Effect.map((created) => ({ invite_link: created.invite_link })),
          Envelope.wrap
        ),
      list: () =>
        Effect.flatMap(CurrentPrincipal, (principal) => invitations.list(principal)).pipe(
          Effect.map((invites) => ({ invites })),
          Envelope.wrap
        ),
      revokeMultiuse: ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => invitations.revoke(principal, params.invite_id)).pipe(
          Effect.as({}),
          Envelope.wrap
        )
    })
  })
)
