/**
 * The middleware the API declares: what its groups and endpoints require
 * (credentials, rate limits, merged parameters, Zulip's error bodies) and
 * what the handlers are given (`CurrentPrincipal`, `CurrentViewer`). Their
 * implementations are the layers of `middleware/`.
 *
 * @since 0.1.0
 */
import type { Principal, Realm, User, ZulipError } from "@teamchat/core"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import { ErrorResponses } from "../internal/Errors.ts"
import type * as IgnoredParameters from "../internal/IgnoredParameters.ts"

/** The authenticated caller. @category services */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal.Principal>()(
  "@teamchat/http/middleware/Authentication/CurrentPrincipal"
) {}

/**
 * Authenticates the current request again, with the organization's access
 * version checked: for a handler whose principal came from a kept read
 * nobody checked (`Principal.access.unverified`, GET /messages) and that
 * found the version moved (`StaleAccess`). Provided with such principals
 * only. @category services
 */
export class Reauthenticate extends Context.Service<Reauthenticate, Effect.Effect<Principal.Principal, ZulipError.ZulipError>>()(
  "@teamchat/http/middleware/Authentication/Reauthenticate"
) {}

/**
 * An endpoint annotation: its handler checks the organization's access
 * version in its core call's own statement (GET /messages:
 * `Messages.fetchDeferred`; POST /messages: `Messages.sendDeferred`;
 * `AccessCache.deferrable`), so `Authentication` may authenticate it from a
 * kept read without the statement that reads the version, and provides
 * `Reauthenticate` for a read found stale. @category annotations
 */
export const ChecksAccessItself = Context.Reference<boolean>(
  "@teamchat/http/middleware/Authentication/ChecksAccessItself",
  { defaultValue: () => false }
)

/**
 * An endpoint annotation: its handler reads the request body itself, as a
 * stream (POST /user_uploads: the file goes to the store as it arrives), so
 * `RequestParams` leaves the body alone (parameters come from the query
 * string only) and its `maxBodyBytes` does not apply; the handler enforces
 * its own limit. @category annotations
 */
export const ReadsBodyItself = Context.Reference<boolean>(
  "@teamchat/http/middleware/RequestParams/ReadsBodyItself",
  { defaultValue: () => false }
)

/** Who reads: an authenticated user, or a spectator (`user` undefined) of `realm`. @category models */
export interface Viewer {
  readonly realm: Realm.Realm
  readonly user: User.User | undefined
}

/** @category services */
export class CurrentViewer extends Context.Service<CurrentViewer, Viewer>()(
  "@teamchat/http/middleware/Authentication/CurrentViewer"
) {}

/**
 * HTTP Basic, documented as `HttpApiSecurity.basic` is (`type: http`,
 * `scheme: basic`). The middleware parses the header itself, with Zulip's
 * rules, so HttpApi's own Basic decoding would be wasted work on every request;
 * the generic HTTP scheme only slices the header.
 */
const basicSecurity = HttpApiSecurity.http({ scheme: "basic" })

/** Requires HTTP Basic credentials. @category middleware */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: CurrentPrincipal
}>()("@teamchat/http/middleware/Authentication", {
  security: { basic: basicSecurity },
  error: ErrorResponses
}) {}

/** HTTP Basic credentials, or none in organizations open to spectators. @category middleware */
export class OptionalAuthentication extends HttpApiMiddleware.Service<OptionalAuthentication, {
  provides: CurrentViewer
}>()("@teamchat/http/middleware/Authentication/OptionalAuthentication", {
  security: { basic: basicSecurity },
  error: ErrorResponses
}) {}

/**
 * Rate limiting for the endpoints that need no credentials, by client address
 * (`HttpServerRequest.remoteAddress`; behind a proxy, install
 * `HttpMiddleware.xForwardedHeaders` in the server).
 *
 * @category middleware
 */
export class RateLimit extends HttpApiMiddleware.Service<RateLimit>()("@teamchat/http/middleware/RateLimit", {
  error: ErrorResponses
}) {}

/** @category middleware */
export class RequestParams extends HttpApiMiddleware.Service<RequestParams, {
  provides: IgnoredParameters.IgnoredParameters
}>()("@teamchat/http/middleware/RequestParams", {
  error: ErrorResponses
}) {}

/** @category middleware */
export class ZulipErrors extends HttpApiMiddleware.Service<ZulipErrors>()("@teamchat/http/middleware/ZulipErrors", {
  error: ErrorResponses
}) {}
