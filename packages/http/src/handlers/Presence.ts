/**
 * POST /users/me/presence, GET /users/{user_id_or_email}/presence and GET
 * /realm/presence.
 *
 * @since 0.1.0
 */
import { Presence } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"
import { userKey } from "./Users.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "presence",
  Effect.fn(function*(handlers) {
    const presence = yield* Presence.Presence
    // A ping answers with up to the whole organization's presence: sent
    // without HttpApi's generic encoder (see Envelope.respond).
    const respondUpdate = Envelope.respond(Api.groups.presence.endpoints.update)
    const respondRealm = Envelope.respond(Api.groups.presence.endpoints.realm)
    return handlers.handleAll({
      update: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => presence.ping(principal, query)).pipe(
          Effect.flatMap(respondUpdate)
        ),
      user: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.flatMap(userKey(params.user_id_or_email), (key) => presence.ofUser(principal, key, query.slim_presence))).pipe(
            Effect.map((found) => ({ presence: found })),
            Envelope.wrap
          ),
      realm: () =>
        Effect.flatMap(CurrentPrincipal, (principal) => presence.snapshot(principal, { slim: false })).pipe(
          // GET /realm/presence has no update id.
          Effect.flatMap(({ presence_last_update_id: _id, ...rest }) => respondRealm(rest))
        )
    })
  })
)
