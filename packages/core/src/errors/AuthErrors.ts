/**
 * Errors of authentication: credentials, API keys, deactivated accounts and organizations, rate limits.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

/**
 * No credentials on an API request.
 *
 * @category authentication
 * @since 0.1.0
 */
export class Unauthorized extends ZulipError.make<Unauthorized>()("Unauthorized", {
  code: "UNAUTHORIZED",
  message: "Not logged in: API authentication or user session required"
}) {}

/**
 * @category authentication
 * @since 0.1.0
 */
export class MissingBasicAuthHeader extends ZulipError.make<MissingBasicAuthHeader>()("MissingBasicAuthHeader", {
  code: "UNAUTHORIZED",
  message: "Missing authorization header for basic auth"
}) {}

/**
 * The `Authorization` header does not decode as `user:key`.
 *
 * @category authentication
 * @since 0.1.0
 */
export class InvalidBasicAuthHeader extends ZulipError.make<InvalidBasicAuthHeader>()("InvalidBasicAuthHeader", {
  code: "UNAUTHORIZED",
  message: "Invalid authorization header for basic auth"
}) {}

/**
 * An `Authorization` header with a scheme other than Basic.
 *
 * @category authentication
 * @since 0.1.0
 */
export class BasicAuthRequired extends ZulipError.make<BasicAuthRequired>()("BasicAuthRequired", {
  code: "BAD_REQUEST",
  message: "This endpoint requires HTTP basic authentication."
}) {}

/**
 * Unknown API key, or a key that belongs to another account.
 *
 * @category authentication
 * @since 0.1.0
 */
export class InvalidApiKey extends ZulipError.make<InvalidApiKey>()("InvalidApiKey", {
  code: "INVALID_API_KEY",
  message: "Invalid API key"
}) {}

/**
 * An API key that is not 32 ASCII letters and digits.
 *
 * @category authentication
 * @since 0.1.0
 */
export class MalformedApiKey extends ZulipError.make<MalformedApiKey>()("MalformedApiKey", {
  code: "INVALID_API_KEY",
  message: "Malformed API key"
}) {}

/**
 * @category authentication
 * @since 0.1.0
 */
export class UserDeactivated extends ZulipError.make<UserDeactivated>()("UserDeactivated", {
  code: "USER_DEACTIVATED",
  message: "Account is deactivated"
}) {}

/**
 * @category authentication
 * @since 0.1.0
 */
export class RealmDeactivated extends ZulipError.make<RealmDeactivated>()("RealmDeactivated", {
  code: "REALM_DEACTIVATED",
  message: "This organization has been deactivated"
}) {}

/**
 * @category authentication
 * @since 0.1.0
 */
export class AuthenticationFailed extends ZulipError.make<AuthenticationFailed>()("AuthenticationFailed", {
  code: "AUTHENTICATION_FAILED",
  message: "Your username or password is incorrect"
}) {}

/**
 * @category authentication
 * @since 0.1.0
 */
export class PasswordAuthDisabled extends ZulipError.make<PasswordAuthDisabled>()("PasswordAuthDisabled", {
  code: "PASSWORD_AUTH_DISABLED",
  message: "Password authentication is disabled in this organization"
}) {}

/**
 * @category authentication
 * @since 0.1.0
 */
export class PasswordResetRequired extends ZulipError.make<PasswordResetRequired>()("PasswordResetRequired", {
  code: "PASSWORD_RESET_REQUIRED",
  message: "Your password has been disabled and needs to be reset"
}) {}

/**
 * @category authentication
 * @since 0.1.0
 */
export class AccountNotInSubdomain extends ZulipError.make<AccountNotInSubdomain>()("AccountNotInSubdomain", {
  code: "BAD_REQUEST",
  message: "Account is not associated with this subdomain"
}) {}

/**
 * @category authentication
 * @since 0.1.0
 */
export class WebhookBotsNotAllowed extends ZulipError.make<WebhookBotsNotAllowed>()("WebhookBotsNotAllowed", {
  code: "BAD_REQUEST",
  message: "This API is not available to incoming webhook bots."
}) {}

/**
 * The host names no organization.
 *
 * @category authentication
 * @since 0.1.0
 */
export class NonexistentSubdomain extends ZulipError.make<NonexistentSubdomain>()("NonexistentSubdomain", {
  code: "NONEXISTENT_SUBDOMAIN",
  message: "Invalid subdomain"
}) {}

/**
 * A username that is not an email address (Django's validator text).
 *
 * @category authentication
 * @since 0.1.0
 */
export class InvalidEmailAddress extends ZulipError.make<InvalidEmailAddress>()("InvalidEmailAddress", {
  code: "BAD_REQUEST",
  message: "Enter a valid email address."
}) {}

/**
 * `/dev_fetch_api_key` on a production server.
 *
 * @category authentication
 * @since 0.1.0
 */
export class DevEndpointInProduction extends ZulipError.make<DevEndpointInProduction>()("DevEndpointInProduction", {
  code: "BAD_REQUEST",
  message: "Endpoint not available in production."
}) {}

/**
 * @category authentication
 * @since 0.1.0
 */
export class DevAuthNotEnabled extends ZulipError.make<DevAuthNotEnabled>()("DevAuthNotEnabled", {
  code: "BAD_REQUEST",
  message: "DevAuthBackend not enabled."
}) {}

/**
 * Too many requests; `retry_after_seconds` is sent as `"retry-after"` (and the HTTP
 * adapter sends it as the `Retry-After` header).
 *
 * @category authentication
 * @since 0.1.0
 */
export class RateLimitHit extends ZulipError.make<RateLimitHit>()("RateLimitHit", {
  code: "RATE_LIMIT_HIT",
  fields: { retry_after_seconds: Schema.Number },
  wireNames: { retry_after_seconds: "retry-after" },
  message: "API usage exceeded rate limit"
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const AuthErrors = [
  Unauthorized,
  MissingBasicAuthHeader,
  InvalidBasicAuthHeader,
  BasicAuthRequired,
  InvalidApiKey,
  MalformedApiKey,
  UserDeactivated,
  RealmDeactivated,
  AuthenticationFailed,
  PasswordAuthDisabled,
  PasswordResetRequired,
  AccountNotInSubdomain,
  WebhookBotsNotAllowed,
  NonexistentSubdomain,
  InvalidEmailAddress,
  DevEndpointInProduction,
  DevAuthNotEnabled,
  RateLimitHit
] as const
