/**
 * PATCH /settings.
 *
 * @since 0.1.0
 */
import { UserSettings } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "settings",
  Effect.fn(function*(handlers) {
    const settings = yield* UserSettings.UserSettings
    return handlers.handle("update", ({ query }) =>
      Effect.flatMap(CurrentPrincipal, (principal) => settings.update(principal, query)).pipe(Envelope.wrap))
  })
)
