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
 *   organization or account);
 * - a `Host` naming another organization than the account's: 400 "Account
 *   is not associated with this subdomain" (a host that names none is let
 *   through, as the single-organization fallback of `internal/Realm.ts` is);
 * - then the per-user rate limit.
 *
 * `Authentication` requires credentials and provides `CurrentPrincipal`.
 * `OptionalAuthentication` also admits requests without credentials when the
 * organization of the request's host allows spectators
 * (`enable_spectator_access`); it provides `CurrentViewer`.
 *
 * @since 0.1.0
 */
import { Authentication as CoreAuthentication, Errors, LruMap, Organizations, Users } from "@teamchat/core"
import type { Principal } from "@teamchat/core"
import { ZulipError } from "@teamchat/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { unhandled } from "effect/Types"
import {
  Authentication,
  ChecksAccessItself,
  CurrentPrincipal,
  CurrentViewer,
  OptionalAuthentication,
  Reauthenticate
} from "../api/Middleware.ts"
import { RateLimiter } from "../internal/RateLimiter.ts"
import * as RealmResolution from "../internal/Realm.ts"
import * as RequestLog from "./RequestLog.ts"

const base64 = /^[A-Za-z0-9+/]*={0,2}$/
const utf8 = new TextDecoder("utf-8", { fatal: true })
/** The common shape, `Basic <base64>`, which needs no trimming or splitting. */
const plainBasic = /^Basic [A-Za-z0-9+/]+={0,2}$/

export interface Credentials {
  readonly email: string
  readonly apiKey: string
}

/** Distinct valid `Authorization` headers kept parsed (docs/memory.md). */
export const keptHeaders = 1024

// Clients send the same header on every request; valid ones are remembered,
// the least recently used dropped past `keptHeaders`. Errors are not: each
// failure gets its own error value.
const parsed = LruMap.make<string, Credentials>(keptHeaders)

/**
 * The credentials of an `Authorization` header, `undefined` when the request
 * carries none at all, or the error to answer with.
 */
export const parseAuthorization = (header: string | undefined): Credentials | ZulipError.ZulipError | undefined => {
  if (header === undefined || header === "") return undefined
  const known = parsed.get(header)
  if (known !== undefined) return known
  const result = parseHeader(header)
  if (isCredentials(result)) parsed.set(header, result)
  return result
}

const parseHeader = (header: string): Credentials | ZulipError.ZulipError => {
  let encoded: string
  if (plainBasic.test(header)) {
    encoded = header.slice(6)
  } else {
    const parts = header.trim().split(/\s+/)
    if (parts.length !== 2) return new Errors.InvalidBasicAuthHeader()
    const [scheme, rest] = parts as [string, string]
    if (scheme.toLowerCase() !== "basic") return new Errors.BasicAuthRequired()
    encoded = rest
  }
  if (encoded.length % 4 !== 0 || !base64.test(encoded)) return new Errors.InvalidBasicAuthHeader()
  let decoded: string
  try {
    decoded = utf8.decode(Buffer.from(encoded, "base64"))
  } catch {
    return new Errors.InvalidBasicAuthHeader()
  }
  // Zulip splits on every colon: a second one makes the header invalid.
  const colon = decoded.indexOf(":")
  if (colon === -1 || decoded.indexOf(":", colon + 1) !== -1) return new Errors.InvalidBasicAuthHeader()
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) }
}

export const isCredentials = (parsed: Credentials | ZulipError.ZulipError): parsed is Credentials => "apiKey" in parsed

/**
 * Zulip's validate_account_and_subdomain: the principal, unless the request's
 * host (`RealmResolution.requestHost`) names another organization.
 */
export const makeHomeCheck = Effect.gen(function*() {
  const organizations = yield* Organizations.Organizations
  // Read only when the host is not the account's own (clients of a single
  // organization at another name, e.g. 127.0.0.1, on every request): kept a
  // few seconds, as organizations are added by the CLI in another process.
  const recentOrganizations = yield* Effect.cachedWithTTL(organizations.list, "10 seconds")
  return (host: string | undefined) =>
  (principal: Principal.Principal): Effect.Effect<Principal.Principal, Errors.AccountNotInSubdomain> => {
    if (host === undefined || host === RealmResolution.hostOfUrl(principal.realm.url)) return Effect.succeed(principal)
    return Effect.flatMap(recentOrganizations, (realms) =>
      realms.some((realm) => realm.id !== principal.realm.id && RealmResolution.hostOfUrl(realm.url) === host)
        ? Effect.fail(new Errors.AccountNotInSubdomain())
        : Effect.succeed(principal))
  }
})

const makeAuthenticate = Effect.gen(function*() {
  const core = yield* CoreAuthentication.Authentication
  const limiter = yield* RateLimiter
  const homeCheck = yield* makeHomeCheck
  const atHome = (request: HttpServerRequest.HttpServerRequest) => homeCheck(RealmResolution.requestHost(request))
  const recorded = (loggedUser: LoggedUserCell) => (principal: Principal.Principal) => {
    RequestLog.recordUser(loggedUser, principal.user.id)
    return principal
  }
  const limited = (loggedUser: LoggedUserCell) => (principal: Principal.Principal) => {
    RequestLog.recordUser(loggedUser, principal.user.id)
    return Effect.as(limiter.user(principal.user.id), principal)
  }
  return (
    context: Context.Context<HttpServerRequest.HttpServerRequest>,
    credentials: Credentials,
    options?: { readonly deferAccessCheck?: boolean; readonly again?: boolean }
  ): Effect.Effect<Principal.Principal, ZulipError.ZulipError, HttpServerRequest.HttpServerRequest> => {
    const request = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
    const loggedUser = Context.get(context, RequestLog.LoggedUser)
    const checked = Effect.flatMap(core.basic(credentials.email, credentials.apiKey), atHome(request))
    const principal = options?.deferAccessCheck === true
      ? Effect.flatMap(core.basic(credentials.email, credentials.apiKey, options), (found) =>
        found.access?.unverified === true
          // The unchecked read's realm may be what refuses: asked again with the check.
          ? Effect.catch(atHome(request)(found), () => checked)
          : atHome(request)(found))
      : checked
    // Authenticated again (`Reauthenticate`): the request was counted once already.
    return limiter.limitsUsers && options?.again !== true
      ? Effect.flatMap(principal, limited(loggedUser))
      : Effect.map(principal, recorded(loggedUser))
  }
})

/**
 * `run` as `principal`; a refusal made from a kept read that another
 * process's change has made stale (its notice not yet here) is answered
 * afresh, as `again` authenticates (`CoreAuthentication.refusalIsStale`):
 * a client that created a channel through one worker and sends to it through
 * another is not told it does not exist. A refused request wrote nothing.
 */
const freshOnStaleRefusal = <A, E, R>(
  core: CoreAuthentication.Authentication["Service"],
  principal: Principal.Principal,
  again: Effect.Effect<Principal.Principal, ZulipError.ZulipError, R>,
  run: (principal: Principal.Principal) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | ZulipError.ZulipError, R> =>
  Effect.catchIf(run(principal), ZulipError.isZulipError, (refusal) =>
    Effect.flatMap(core.refusalIsStale(principal), (stale) =>
      stale ? Effect.flatMap(again, run) : Effect.fail(refusal)))

/** The request log's cell for the current request's user, if requests are logged. */
type LoggedUserCell = (typeof RequestLog.LoggedUser)["Service"]

/** Requires HTTP Basic credentials. @category layers */
export const layer: Layer.Layer<
  Authentication,
  never,
  CoreAuthentication.Authentication | RateLimiter | Organizations.Organizations
> = Layer.effect(
  Authentication,
  Effect.map(Effect.all([makeAuthenticate, CoreAuthentication.Authentication]), ([authenticate, core]) =>
    Authentication.of({
      basic: (httpEffect, { endpoint }) =>
        Effect.contextWith((context: Context.Context<HttpServerRequest.HttpServerRequest>) => {
          const request = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
          const credentials = parseAuthorization(request.headers.authorization)
          if (credentials === undefined) return Effect.fail(new Errors.Unauthorized())
          if (!isCredentials(credentials)) return Effect.fail(credentials)
          // The endpoint's own annotation says whether its handler checks the access version itself.
          if (Context.get(endpoint.annotations, ChecksAccessItself)) {
            return Effect.flatMap(
              // A refusal by an unchecked read is asked again with the check.
              authenticate(context, credentials, { deferAccessCheck: true }),
              (principal) =>
                principal.access?.unverified === true
                  ? httpEffect.pipe(
                    Effect.provideService(CurrentPrincipal, principal),
                    Effect.provideService(Reauthenticate, Effect.suspend(() => authenticate(context, credentials, { again: true })))
                  )
                  : Effect.provideService(httpEffect, CurrentPrincipal, principal)
            )
          }
          return Effect.flatMap(authenticate(context, credentials), (principal) =>
            freshOnStaleRefusal(
              core,
              principal,
              authenticate(context, credentials, { again: true }),
              (current) => Effect.provideService(httpEffect, CurrentPrincipal, current)
            ))
        })
    }))
)

/** HTTP Basic credentials, or none in organizations open to spectators. @category layers */
export const layerOptional: Layer.Layer<
  OptionalAuthentication,
  never,
  CoreAuthentication.Authentication | RateLimiter | Organizations.Organizations | Users.Users
> = Layer.effect(
  OptionalAuthentication,
  Effect.gen(function*() {
    const authenticate = yield* makeAuthenticate
    const core = yield* CoreAuthentication.Authentication
    const limiter = yield* RateLimiter
    const resolveRealm = yield* RealmResolution.make
    return OptionalAuthentication.of({
      basic: (httpEffect) =>
        Effect.contextWith((context: Context.Context<HttpServerRequest.HttpServerRequest>) => {
          const request = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
          const credentials = parseAuthorization(request.headers.authorization)
          if (credentials !== undefined) {
            if (!isCredentials(credentials)) return Effect.fail(credentials)
            return Effect.flatMap(authenticate(context, credentials), (principal) =>
              freshOnStaleRefusal(
                core,
                principal,
                authenticate(context, credentials, { again: true }),
                ({ realm, user }) => Effect.provideService(httpEffect, CurrentViewer, { realm, user })
              ))
          }
          return Effect.flatMap(resolveRealm(request), (realm): Effect.Effect<
            HttpServerResponse.HttpServerResponse,
            ZulipError.ZulipError | unhandled,
            HttpServerRequest.HttpServerRequest
          > => {
            if (!realm.settings.enable_spectator_access) return Effect.fail(new Errors.Unauthorized())
            const viewing = Effect.provideService(httpEffect, CurrentViewer, { realm, user: undefined })
            return limiter.limitsAddresses ? Effect.andThen(limiter.address, viewing) : viewing
          })
        })
    })
  })
)
