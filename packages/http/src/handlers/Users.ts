/**
 * GET /users, GET /users/me and GET /users/{user_id | email}; PATCH
 * /users/{user_id | email}, DELETE /users/{user_id} and POST
 * /users/{user_id}/reactivate.
 *
 * @since 0.1.0
 */
import { Errors, Users } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { CurrentPrincipal, CurrentViewer } from "../api/Middleware.ts"

const viewOptions = (query: { readonly client_gravatar: boolean; readonly include_custom_profile_fields: boolean }) => ({
  clientGravatar: query.client_gravatar,
  includeCustomProfileFields: query.include_custom_profile_fields
})

/**
 * Who `/users/{user_id_or_email}` names: digits a user id, anything else an
 * email address. Ids beyond any this server issues, and text no email
 * address can be (NUL bytes), name nobody.
 */
export const userKey = (segment: string): Effect.Effect<number | string, Errors.NoSuchUser> => {
  const id = Params.readPathId(segment)
  if (typeof id === "number") return Effect.succeed(id)
  if (id === "NoSuchId" || Params.badCharacters(segment) !== undefined) return Effect.fail(new Errors.NoSuchUser())
  return Effect.succeed(segment)
}

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "users",
  Effect.fn(function*(handlers) {
    const users = yield* Users.Users
    const endpoints = Api.groups.users.endpoints
    const respondList = Envelope.respond(endpoints.list)
    const respondMe = Envelope.respond(endpoints.me)
    const respondGet = Envelope.respond(endpoints.get)
    return handlers.handleAll({
      list: ({ query }) =>
        Effect.flatMap(CurrentViewer, (viewer) =>
          users.list(viewer.realm, viewer.user, {
            ...viewOptions(query),
            ...(query.user_ids === undefined ? {} : { userIds: query.user_ids })
          })).pipe(Effect.flatMap((members) => respondList({ members }))),
      me: () => Effect.flatMap(CurrentPrincipal, (principal) => Effect.flatMap(users.me(principal), respondMe)),
      get: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.flatMap(userKey(params.user_id_or_email), (key) =>
            typeof key === "number"
              ? users.getById(principal, key, viewOptions(query))
              : users.getByEmail(principal, key, viewOptions(query)))).pipe(
            Effect.flatMap((user) => respondGet({ user }))
          ),
      update: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const key = yield* userKey(params.user_id_or_email)
          yield* users.administer(principal, key, query)
          return {}
        }).pipe(Envelope.wrap),
      deactivateOwn: () =>
        Effect.flatMap(CurrentPrincipal, (principal) => users.deactivateSelf(principal)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      deactivate: ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => users.deactivateAs(principal, params.user_id)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      reactivate: ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => users.reactivateAs(principal, params.user_id)).pipe(
          Effect.as({}),
          Envelope.wrap
        )
    })
  })
)
