/**
 * GET, POST and DELETE /users/me/subscriptions and
 * POST /users/me/subscriptions/properties.
 *
 * @since 0.1.0
 */
import { Subscriptions } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "subscriptions",
  Effect.fn(function*(handlers) {
    const subscriptions = yield* Subscriptions.Subscriptions
    return handlers.handleAll({
      list: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          subscriptions.list(principal, {
            // `partial` may send a subset; the full lists are always sent.
            includeSubscribers: query.include_subscribers === true || query.include_subscribers === "partial"
          })).pipe(Effect.map((list) => ({ subscriptions: list })), Envelope.wrap),
      subscribe: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => subscriptions.subscribe(principal, query)).pipe(Envelope.wrap),
      unsubscribe: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => subscriptions.unsubscribe(principal, query)).pipe(Envelope.wrap),
      updateProperties: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          subscriptions.updateProperties(principal, query.subscription_data)).pipe(Effect.as({}), Envelope.wrap)
    })
  })
)
