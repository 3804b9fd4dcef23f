/**
 * POST /fetch_api_key, and the demo's POST /dev_fetch_api_key and
 * GET /dev_list_users, for the organization the request's host addresses.
 *
 * @since 0.1.0
 */
import { Authentication } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
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
    return handlers.handleAll({
      fetchApiKey: ({ query, request }) =>
        realmOf(request).pipe(
          Effect.flatMap((realm) => authentication.devFetchApiKey(realm.id, query.username)),
          Envelope.wrap
        ),
      listUsers: ({ request }) =>
        realmOf(request).pipe(
          Effect.flatMap((realm) => authentication.devListUsers(realm.id)),
          Envelope.wrap
        )
    })
  })
)
