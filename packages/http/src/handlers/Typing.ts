/**
 * POST /typing and POST /messages/{message_id}/typing.
 *
 * @since 0.1.0
 */
import { Typing } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "typing",
  Effect.fn(function*(handlers) {
    const typing = yield* Typing.Typing
    return handlers.handle("notifyEdit", ({ params, query }) =>
      Effect.flatMap(CurrentPrincipal, (principal) => typing.notifyEdit(principal, params.message_id, query.op)).pipe(
        Effect.as({}),
        Envelope.wrap
      )).handle("notify", ({ query }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        typing.notify(principal, {
          op: query.op,
          // `private` and `channel` are the legacy and the new names of the same two types.
          type: query.type === "stream" || query.type === "channel" ? "stream" : "direct",
          to: query.to,
          stream_id: query.stream_id,
          topic: query.topic
        })).pipe(
          Effect.as({}),
          Envelope.wrap
        ))
  })
)
