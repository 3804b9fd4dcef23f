/**
 * POST /users/me/status, POST /users/{user_id}/status and GET
 * /users/{user_id}/status.
 *
 * @since 0.1.0
 */
import { UserStatus } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "userStatus",
  Effect.fn(function*(handlers) {
    const statuses = yield* UserStatus.UserStatus
    return handlers.handleAll({
      updateOwn: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => statuses.updateOwn(principal, query)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      updateOther: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => statuses.updateOther(principal, params.user_id, query)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      get: ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => statuses.get(principal, params.user_id)).pipe(
          Effect.map((status) => ({ status })),
          Envelope.wrap
        )
    })
  })
)
