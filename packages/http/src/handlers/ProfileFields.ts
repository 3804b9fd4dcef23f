/**
 * GET, POST and PATCH /realm/profile_fields, PATCH and DELETE
 * /realm/profile_fields/{field_id}, PATCH /users/me/profile_data.
 *
 * @since 0.1.0
 */
import { CustomProfileFields, Errors } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"
import * as Envelope from "../internal/Envelope.ts"
import { NotFoundRoute } from "../internal/Errors.ts"
import * as Params from "../internal/Params.ts"

/**
 * The field a path segment names: digits an id (beyond any issued, Zulip's
 * not-found with the digits), anything else no route.
 */
const fieldKey = (segment: string): Effect.Effect<number, NotFoundRoute | Errors.BadRequest> => {
  const id = Params.readPathId(segment)
  if (typeof id === "number") return Effect.succeed(id)
  return id === "NotDigits"
    ? Effect.fail(new NotFoundRoute())
    : Effect.fail(new Errors.BadRequest({ msg: `Field id ${segment} not found.` }))
}

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "profileFields",
  Effect.fn(function*(handlers) {
    const fields = yield* CustomProfileFields.CustomProfileFields
    return handlers.handleAll({
      list: () =>
        Effect.flatMap(CurrentPrincipal, (principal) => fields.list(principal)).pipe(
          Effect.map((list) => ({ custom_fields: list })),
          Envelope.wrap
        ),
      create: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => fields.create(principal, query)).pipe(
          Effect.map((id) => ({ id: id as number })),
          Envelope.wrap
        ),
      reorder: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => fields.reorder(principal, query.order)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      update: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* fields.update(principal, yield* fieldKey(params.field_id), query)
          return {}
        }).pipe(Envelope.wrap),
      remove: ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* fields.remove(principal, yield* fieldKey(params.field_id))
          return {}
        }).pipe(Envelope.wrap),
      updateOwnData: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => fields.updateOwnData(principal, query.data)).pipe(
          Effect.as({}),
          Envelope.wrap
        )
    })
  })
)
