/**
 * POST /user_topics, PATCH /users/me/subscriptions/muted_topics and POST / DELETE /users/me/muted_users/{muted_user_id}.
 *
 * @since 0.1.0
 */
import { Muting } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "muting",
  Effect.fn(function*(handlers) {
    const muting = yield* Muting.Muting
    return handlers.handleAll({
      updateUserTopic: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => muting.updateUserTopic(principal, query)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      updateMutedTopic: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => muting.updateMutedTopic(principal, query)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      muteUser: ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => muting.muteUser(principal, params.muted_user_id)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      unmuteUser: ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => muting.unmuteUser(principal, params.muted_user_id)).pipe(
          Effect.as({}),
          Envelope.wrap
        )
    })
  })
)
