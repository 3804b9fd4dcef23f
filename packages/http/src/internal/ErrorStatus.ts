/**
 * The HTTP status and headers of each Zulip error. Core errors say what went
 * wrong (code, message, data fields); how that is answered over HTTP is
 * chosen here, as Zulip's exception classes choose it.
 *
 * @internal
 */
import { Errors, type ZulipError } from "@teamchat/core"

/** Zulip's status for an error that names none (`JsonableError.http_status_code`). */
export const DEFAULT_STATUS = 400

/** The tags of the errors this adapter defines itself (`internal/Errors.ts`). */
type AdapterTag = "NotFoundRoute" | "PayloadTooLarge" | "NullCharacters" | "InternalServerError" | "ServiceUnavailable"

type Tag = Errors.AnyError["_tag"] | AdapterTag

/** Every error whose status is not 400, by tag. */
const statuses: { readonly [K in Tag]?: number } = {
  // 401: authentication (Zulip's UnauthorizedError, InvalidAPIKeyError, ...)
  Unauthorized: 401,
  MissingBasicAuthHeader: 401,
  InvalidBasicAuthHeader: 401,
  InvalidApiKey: 401,
  MalformedApiKey: 401,
  UserDeactivated: 401,
  RealmDeactivated: 401,
  AuthenticationFailed: 401,
  PasswordAuthDisabled: 401,
  PasswordResetRequired: 401,
  // 403
  AccessDenied: 403,
  // 404: Zulip's ResourceNotFoundError and the unknown organization
  ResourceNotFound: 404,
  NotFoundRoute: 404,
  NonexistentSubdomain: 404,
  ScheduledMessageNotFound: 404,
  DraftNotFound: 404,
  SavedSnippetNotFound: 404,
  // the join page of an invitation link (never an API answer)
  InvitationLinkUnknown: 404,
  InvitationLinkExpired: 410,
  InvitationLinkRevoked: 410,
  InvitationLinkMakerNotAllowed: 410,
  // the adapter's own
  PayloadTooLarge: 413,
  RateLimitHit: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503
}

const noHeaders: Readonly<Record<string, string>> = Object.freeze({})

// Zulip's UnauthorizedError asks for Basic credentials; its other 401s do not.
const basicChallenge: Readonly<Record<string, string>> = Object.freeze({
  "WWW-Authenticate": "Basic realm=\"zulip\""
})

// The adapter's 503 (internal/Errors.ts ServiceUnavailable): retry after a second.
const retryShortly: Readonly<Record<string, string>> = Object.freeze({ "Retry-After": "1" })

/** The HTTP status Zulip answers an error with. */
export const status = (error: ZulipError.ZulipError): number =>
  statuses[error._tag as Tag] ?? DEFAULT_STATUS

/** The response headers an error adds: the Basic challenge, or when to retry. */
export const headers = (error: ZulipError.ZulipError): Readonly<Record<string, string>> => {
  if (error.code === "UNAUTHORIZED") return basicChallenge
  if (error instanceof Errors.RateLimitHit) return { "Retry-After": String(error.retry_after_seconds) }
  if (error._tag === "ServiceUnavailable") return retryShortly
  return noHeaders
}
