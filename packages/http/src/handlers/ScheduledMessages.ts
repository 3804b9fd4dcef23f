/**
 * GET and POST /scheduled_messages, PATCH and DELETE
 * /scheduled_messages/{id}.
 *
 * @since 0.1.0
 */
import { Messages, ScheduledMessages } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "scheduledMessages",
  Effect.fn(function*(handlers) {
    const scheduled = yield* ScheduledMessages.ScheduledMessages
    return handlers.handleAll({
      list: () =>
        Effect.flatMap(CurrentPrincipal, (principal) => scheduled.list(principal)).pipe(
          Effect.map((list) => ({ scheduled_messages: list })),
          Envelope.wrap
        ),
      create: ({ query, request }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          scheduled.create(principal, query, { client: Messages.clientName(request.headers["user-agent"]) })).pipe(
            Effect.map((id) => ({ scheduled_message_id: id as number })),
            Envelope.wrap
          ),
      update: ({ params, query, request }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* scheduled.update(principal, params.scheduled_message_id, query, { client: Messages.clientName(request.headers["user-agent"]) })
          return {}
        }).pipe(Envelope.wrap),
      remove: ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* scheduled.remove(principal, params.scheduled_message_id)
          return {}
        }).pipe(Envelope.wrap)
    })
  })
)
