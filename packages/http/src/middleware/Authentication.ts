/**
 * HTTP Basic authentication (`email:api_key`) for /api/v1, as Zulip does it:
 *
 * - no `Authorization` header (or an empty one): 401 `UNAUTHORIZED` "Not
 *   logged in: API authentication or user session required", with
 *   `WWW-Authenticate: Basic realm="zulip"`;
 * - a scheme other than Basic: 400 "This endpoint requires HTTP basic
 *   authentication.";
 * - credentials that do not decode as base64 `email:key`: 401 "Invalid
 *   authorization header for basic auth";
 * - then the core's checks (malformed or unknown key, deactivated
 *   organization or account), then the per-user rate limit.
 *
 * `Authentication` requires credentials and provides `CurrentPrincipal`.
 * `OptionalAuthentication` also admits requests without credentials when the
 * organization of the request's host allows spectators
 * (`enable_spectator_access`); it provides `CurrentViewer`.
 *
 * @since 0.1.0
 */
import type { Realm } from "@teamchat/core/domain/Realm"
import type { User } from "@teamchat/core/domain/User"
import { BasicAuthRequired, InvalidBasicAuthHeader, Unauthorized } from "@teamchat/core/errors/Errors"
import type * as ZulipError from "@teamchat/core/errors/ZulipError"
import { Authentication as CoreAuthentication } from "@teamchat/core/services/Authentication"
import { Organizations } from "@teamchat/core/services/Organizations"
import type { Principal } from "@teamchat/core/services/Users"
import { Users } from "@teamchat/core/services/Users"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import { ErrorResponses } from "../internal/Errors.ts"
import * as RealmResolution from "../internal/Realm.ts"
import { RateLimiter } from "./RateLimit.ts"
import * as RequestLog from "./RequestLog.ts"

/** The authenticated caller. @category services */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()(
  "@teamchat/http/middleware/Authentication/CurrentPrincipal"
) {}

/** Who reads: an authenticated user, or a spectator (`user` undefined) of `realm`. @category models */
export interface Viewer {
  readonly realm: Realm
  readonly user: User | undefined
}

/** @category services */
export class CurrentViewer extends Context.Service<CurrentViewer, Viewer>()(
  "@teamchat/http/middleware/Authentication/CurrentViewer"
) {}

/** Requires HTTP Basic credentials. @category middleware */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: CurrentPrincipal
}>()("@teamchat/http/middleware/Authentication", {
  security: { basic: HttpApiSecurity.basic },
  error: ErrorResponses
}) {
  /** @category layers */
  static get layer(): Layer.Layer<Authentication, never, CoreAuthentication | RateLimiter> {
    return authenticationLayer
  }
}

/** HTTP Basic credentials, or none in organizations open to spectators. @category middleware */
export class OptionalAuthentication extends HttpApiMiddleware.Service<OptionalAuthentication, {
  provides: CurrentViewer
}>()("@teamchat/http/middleware/Authentication/OptionalAuthentication", {
  security: { basic: HttpApiSecurity.basic },
  error: ErrorResponses
}) {
  /** @category layers */
  static get layer(): Layer.Layer<
    OptionalAuthentication,
    never,
    CoreAuthentication | RateLimiter | Organizations | Users
  > {
    return optionalAuthenticationLayer
  }
}

const base64 = /^[A-Za-z0-9+/]*={0,2}$/
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** `undefined` when the request carries no credentials at all. */
const parseAuthorization = (
  header: string | undefined
): Effect.Effect<{ readonly email: string; readonly apiKey: string } | undefined, ZulipError.ZulipError> => {
  if (header === undefined || header === "") return Effect.succeed(undefined)
  const parts = header.trim().split(/\s+/)
  if (parts.length !== 2) return Effect.fail(new InvalidBasicAuthHeader())
  const [scheme, encoded] = parts as [string, string]
  if (scheme.toLowerCase() !== "basic") return Effect.fail(new BasicAuthRequired())
  if (encoded.length % 4 !== 0 || !base64.test(encoded)) return Effect.fail(new InvalidBasicAuthHeader())
  let decoded: string
  try {
    decoded = utf8.decode(Buffer.from(encoded, "base64"))
  } catch {
    return Effect.fail(new InvalidBasicAuthHeader())
  }
  // Zulip splits on every colon: a second one makes the header invalid.
  const fields = decoded.split(":")
  if (fields.length !== 2) return Effect.fail(new InvalidBasicAuthHeader())
  return Effect.succeed({ email: fields[0]!, apiKey: fields[1]! })
}

const makeAuthenticate = Effect.gen(function*() {
  const core = yield* CoreAuthentication
  const limiter = yield* RateLimiter
  return Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest, credentials: {
    readonly email: string
    readonly apiKey: string
  }) {
    const principal = yield* core.basic(credentials.email, credentials.apiKey)
    RequestLog.setUser(request, principal.user.id)
    yield* limiter.user(principal.user.id)
    return principal
  })
})

const authenticationLayer: Layer.Layer<Authentication, never, CoreAuthentication | RateLimiter> = Layer.effect(
  Authentication,
  Effect.map(makeAuthenticate, (authenticate) =>
    Authentication.of({
      basic: (httpEffect) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const credentials = yield* parseAuthorization(request.headers.authorization)
          if (credentials === undefined) return yield* new Unauthorized()
          const principal = yield* authenticate(request, credentials)
          return yield* Effect.provideService(httpEffect, CurrentPrincipal, principal)
        })
    }))
)

const optionalAuthenticationLayer: Layer.Layer<
  OptionalAuthentication,
  never,
  CoreAuthentication | RateLimiter | Organizations | Users
> = Layer.effect(
  OptionalAuthentication,
  Effect.gen(function*() {
    const authenticate = yield* makeAuthenticate
    const limiter = yield* RateLimiter
    const services = yield* Effect.context<Organizations | Users>()
    return OptionalAuthentication.of({
      basic: (httpEffect) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const credentials = yield* parseAuthorization(request.headers.authorization)
          if (credentials !== undefined) {
            const { realm, user } = yield* authenticate(request, credentials)
            return yield* Effect.provideService(httpEffect, CurrentViewer, { realm, user })
          }
          const realm = yield* RealmResolution.resolve(request).pipe(Effect.provideContext(services))
          if (!realm.settings.enable_spectator_access) return yield* new Unauthorized()
          yield* limiter.address
          return yield* Effect.provideService(httpEffect, CurrentViewer, { realm, user: undefined })
        })
    })
  })
)
