/**
 * GET, POST and DELETE /users/me/alert_words.
 *
 * @since 0.1.0
 */
import { AlertWords } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"

const wrapList = <E, R>(self: Effect.Effect<ReadonlyArray<string>, E, R>) =>
  self.pipe(Effect.map((words) => ({ alert_words: words })), Envelope.wrap)

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "alertWords",
  Effect.fn(function*(handlers) {
    const alertWords = yield* AlertWords.AlertWords
    return handlers.handleAll({
      list: () => wrapList(Effect.flatMap(CurrentPrincipal, (principal) => alertWords.list(principal.user.id))),
      add: ({ query }) =>
        wrapList(Effect.flatMap(CurrentPrincipal, (principal) => alertWords.add(principal, query.alert_words))),
      remove: ({ query }) =>
        wrapList(Effect.flatMap(CurrentPrincipal, (principal) => alertWords.remove(principal, query.alert_words)))
    })
  })
)
