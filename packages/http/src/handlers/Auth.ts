/**
 * POST /fetch_api_key, and the demo's POST /dev_fetch_api_key and
 * GET /dev_list_users, for the organization the request's host addresses.
 * Only the demo organization has the dev login; for any other the dev
 * routes answer the 404 of an unknown route, as on a server without the demo.
 *
 * @since 0.1.0
 */
import { Authentication, Errors } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
import { NotFoundRoute } from "../internal/Errors.ts"
import * as RealmResolution from "../internal/Realm.ts"
import { RateLimiter } from "../internal/RateLimiter.ts"

const makeRealmOf = RealmResolution.make

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "auth",
  Effect.fn(function*(handlers) {
    const authentication = yield* Authentication.Authentication
    const realmOf = yield* makeRealmOf
    const limiter = yield* RateLimiter
    return handlers.handle("fetchApiKey", ({ query, request }) =>
      realmOf(request).pipe(
        Effect.flatMap((realm) =>
          limiter.authenticate(query.username, authentication.fetchApiKey(realm.id, query.username, query.password))
        ),
        Envelope.wrap
      ))
  })
)

/** @category handlers */
export const layerDev = HttpApiBuilder.group(
  Api,
  "dev",
  Effect.fn(function*(handlers) {
    const authentication = yield* Authentication.Authentication
    const realmOf = yield* makeRealmOf
    // An organization without the dev login gets what a server without the
    // demo answers: no such route (nor a hint that it exists elsewhere).
    const withoutDevLogin = <A, E, R>(effect: Effect.Effect<A, E | Errors.DevAuthNotEnabled, R>) =>
      Effect.catchIf(effect, (e) => e instanceof Errors.DevAuthNotEnabled, () => Effect.fail(new NotFoundRoute()))
    return handlers.handleAll({
      fetchApiKey: ({ query, request }) =>
        realmOf(request).pipe(
          Effect.flatMap((realm) => authentication.devFetchApiKey(realm.id, query.username)),
          withoutDevLogin,
          Envelope.wrap
        ),
      listUsers: ({ request }) =>
        realmOf(request).pipe(
          Effect.flatMap((realm) => authentication.devListUsers(realm.id)),
          withoutDevLogin,
          Envelope.wrap
        )
    })
  })
)
