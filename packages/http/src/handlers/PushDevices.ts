/**
 * POST /mobile_push/register.
 *
 * @since 0.1.0
 */
import { PushDevices } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "pushDevices",
  Effect.fn(function*(handlers) {
    const devices = yield* PushDevices.PushDevices
    return handlers.handleAll({
      register: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => devices.register(principal, query)).pipe(
          Effect.as({}),
          Envelope.wrap
        )
    })
  })
)
