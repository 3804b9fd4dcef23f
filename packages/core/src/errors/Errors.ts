/**
 * Every Zulip API error the server can return, one class per error.
 *
 * Codes and message texts are Zulip's (server 9.x-11.x). Fields are
 * Zulip's wire data fields under their wire names; params only feed the
 * message. Errors that Zulip reports with the generic `BAD_REQUEST` code
 * still get their own class so that callers can catch them by tag and the
 * text stays in one place. For one-off validation texts use {@link BadRequest}.
 *
 * ```ts
 * return yield* new StreamDoesNotExist({ stream_id })
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

// ---------------------------------------------------------------------------
// Generic errors
// ---------------------------------------------------------------------------

/**
 * Any one-off 400 message (Zulip's plain `JsonableError(msg)`).
 *
 * @category generic
 * @since 0.1.0
 */
export class BadRequest extends ZulipError.make<BadRequest>()("BadRequest", {
  code: "BAD_REQUEST",
  params: { msg: Schema.String }
}) {}

/**
 * A 404 with a custom message (Zulip's `ResourceNotFoundError`); the code
 * stays `BAD_REQUEST`.
 *
 * @category generic
 * @since 0.1.0
 */
export class ResourceNotFound extends ZulipError.make<ResourceNotFound>()("ResourceNotFound", {
  code: "BAD_REQUEST",
  params: { msg: Schema.String }
}) {}

/**
 * @category generic
 * @since 0.1.0
 */
export class AccessDenied extends ZulipError.make<AccessDenied>()("AccessDenied", {
  code: "BAD_REQUEST",
  message: "Access denied"
}) {}

/**
 * @category generic
 * @since 0.1.0
 */
export class InsufficientPermission extends ZulipError.make<InsufficientPermission>()("InsufficientPermission", {
  code: "BAD_REQUEST",
  message: "Insufficient permission"
}) {}

// ---------------------------------------------------------------------------
// Request parameters
// ---------------------------------------------------------------------------

/**
 * A required parameter is absent.
 *
 * @category parameters
 * @since 0.1.0
 */
export class RequestVariableMissing extends ZulipError.make<RequestVariableMissing>()("RequestVariableMissing", {
  code: "REQUEST_VARIABLE_MISSING",
  fields: { var_name: Schema.String },
  message: ({ var_name }) => `Missing '${var_name}' argument`
}) {}

/**
 * The same parameter was sent under two aliases (e.g. `topic` and `subject`).
 *
 * @category parameters
 * @since 0.1.0
 */
export class RequestConfusingVar extends ZulipError.make<RequestConfusingVar>()("RequestConfusingVar", {
  code: "REQUEST_CONFUSING_VAR",
  fields: { var_name1: Schema.String, var_name2: Schema.String },
  message: ({ var_name1, var_name2 }) => `Can't decide between '${var_name1}' and '${var_name2}' arguments`
}) {}

/**
 * A legacy converter rejected a parameter's raw text.
 *
 * @category parameters
 * @since 0.1.0
 */
export class RequestVariableInvalid extends ZulipError.make<RequestVariableInvalid>()("RequestVariableInvalid", {
  code: "REQUEST_VARIABLE_INVALID",
  fields: { var_name: Schema.String, bad_value: Schema.String },
  message: ({ bad_value, var_name }) => `Bad value for '${var_name}': ${bad_value}`
}) {}

/**
 * The request body as a whole is not valid JSON.
 *
 * @category parameters
 * @since 0.1.0
 */
export class InvalidJson extends ZulipError.make<InvalidJson>()("InvalidJson", {
  code: "INVALID_JSON",
  message: "Malformed JSON"
}) {}

// The type errors below name the parameter by its location: `content`, or
// nested JSON-style as `drafts[0]["content"]`. The location is part of the
// message only; Zulip sends no data field for them.

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotAnInteger extends ZulipError.make<NotAnInteger>()("NotAnInteger", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not an integer`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotABoolean extends ZulipError.make<NotABoolean>()("NotABoolean", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a boolean`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotAString extends ZulipError.make<NotAString>()("NotAString", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a string`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotAList extends ZulipError.make<NotAList>()("NotAList", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a list`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotADict extends ZulipError.make<NotADict>()("NotADict", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a dict`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotAFloat extends ZulipError.make<NotAFloat>()("NotAFloat", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a float`
}) {}

/**
 * Also used for date-type custom profile field values (`<field name> is not a date`).
 *
 * @category parameters
 * @since 0.1.0
 */
export class NotADate extends ZulipError.make<NotADate>()("NotADate", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a date`
}) {}

/**
 * Used for URL-type custom profile field values and `field_data["url_pattern"]`.
 *
 * @category parameters
 * @since 0.1.0
 */
export class NotAUrl extends ZulipError.make<NotAUrl>()("NotAUrl", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a URL`
}) {}

/**
 * A JSON-typed form field that does not parse (typed endpoints).
 *
 * @category parameters
 * @since 0.1.0
 */
export class NotValidJson extends ZulipError.make<NotValidJson>()("NotValidJson", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not valid JSON`
}) {}

/**
 * The legacy form of {@link NotValidJson}, still used by `/realm/profile_fields`.
 *
 * @category parameters
 * @since 0.1.0
 */
export class ArgumentNotValidJson extends ZulipError.make<ArgumentNotValidJson>()("ArgumentNotValidJson", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `Argument "${var_name}" is not valid JSON.`
}) {}

/**
 * A number below its minimum.
 *
 * @category parameters
 * @since 0.1.0
 */
export class TooSmall extends ZulipError.make<TooSmall>()("TooSmall", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is too small`
}) {}

/**
 * A number above its maximum.
 *
 * @category parameters
 * @since 0.1.0
 */
export class TooLarge extends ZulipError.make<TooLarge>()("TooLarge", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is too large`
}) {}

/**
 * A string over its length limit (also `<field name> is too long (limit: 50 characters)`).
 *
 * @category parameters
 * @since 0.1.0
 */
export class TooLong extends ZulipError.make<TooLong>()("TooLong", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String, max_length: Schema.Int },
  message: ({ max_length, var_name }) => `${var_name} is too long (limit: ${max_length} characters)`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class TooShort extends ZulipError.make<TooShort>()("TooShort", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is too short.`
}) {}

/**
 * A string that is empty after stripping (typed endpoints; no final period).
 *
 * @category parameters
 * @since 0.1.0
 */
export class CannotBeBlank extends ZulipError.make<CannotBeBlank>()("CannotBeBlank", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} cannot be blank`
}) {}

/**
 * The legacy validators' blank-string text, with a final period, e.g.
 * `field_data["order"] cannot be blank.` or `'value' cannot be blank.`
 *
 * @category parameters
 * @since 0.1.0
 */
export class RequiredStringBlank extends ZulipError.make<RequiredStringBlank>()("RequiredStringBlank", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} cannot be blank.`
}) {}

/**
 * A value outside an enumeration, e.g. `Invalid invite_as` or `Invalid token_kind`.
 *
 * @category parameters
 * @since 0.1.0
 */
export class InvalidParameter extends ZulipError.make<InvalidParameter>()("InvalidParameter", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `Invalid ${var_name}`
}) {}

/**
 * An object carries a key its schema does not allow.
 *
 * @category parameters
 * @since 0.1.0
 */
export class UnexpectedArgument extends ZulipError.make<UnexpectedArgument>()("UnexpectedArgument", {
  code: "BAD_REQUEST",
  params: { argument: Schema.String, var_name: Schema.String },
  message: ({ argument, var_name }) => `Argument "${argument}" at ${var_name} is unexpected`
}) {}

// ---------------------------------------------------------------------------
// Authentication
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Roles and permissions
// ---------------------------------------------------------------------------

/**
 * @category permissions
 * @since 0.1.0
 */
export class OrganizationAdministratorRequired
  extends ZulipError.make<OrganizationAdministratorRequired>()("OrganizationAdministratorRequired", {
    code: "UNAUTHORIZED_PRINCIPAL",
    message: "Must be an organization administrator"
  })
{}

/**
 * @category permissions
 * @since 0.1.0
 */
export class OrganizationOwnerRequired extends ZulipError.make<OrganizationOwnerRequired>()("OrganizationOwnerRequired", {
  code: "UNAUTHORIZED_PRINCIPAL",
  message: "Must be an organization owner"
}) {}

/**
 * @category permissions
 * @since 0.1.0
 */
export class OrganizationMemberRequired
  extends ZulipError.make<OrganizationMemberRequired>()("OrganizationMemberRequired", {
    code: "UNAUTHORIZED_PRINCIPAL",
    message: "Must be an organization member"
  })
{}

/**
 * The same text as {@link OrganizationAdministratorRequired} but with the
 * plain code, as `/invites/multiuse` sends it when a non-administrator
 * invites as owner, administrator or moderator.
 *
 * @category permissions
 * @since 0.1.0
 */
export class InviteAsAdministratorRequired
  extends ZulipError.make<InviteAsAdministratorRequired>()("InviteAsAdministratorRequired", {
    code: "BAD_REQUEST",
    message: "Must be an organization administrator"
  })
{}

/**
 * @category permissions
 * @since 0.1.0
 */
export class NotAllowedForGuests extends ZulipError.make<NotAllowedForGuests>()("NotAllowedForGuests", {
  code: "BAD_REQUEST",
  message: "Not allowed for guest users"
}) {}

/**
 * @category permissions
 * @since 0.1.0
 */
export class BotsNotAllowed extends ZulipError.make<BotsNotAllowed>()("BotsNotAllowed", {
  code: "BAD_REQUEST",
  message: "This endpoint does not accept bot requests."
}) {}

/**
 * @category permissions
 * @since 0.1.0
 */
export class UserNotAuthorizedForQuery extends ZulipError.make<UserNotAuthorizedForQuery>()("UserNotAuthorizedForQuery", {
  code: "BAD_REQUEST",
  message: "User not authorized for this query"
}) {}

/**
 * @category permissions
 * @since 0.1.0
 */
export class CannotAdministerChannel extends ZulipError.make<CannotAdministerChannel>()("CannotAdministerChannel", {
  code: "BAD_REQUEST",
  message: "You do not have permission to administer this channel."
}) {}

// ---------------------------------------------------------------------------
// Event queues: POST /register, GET/DELETE /events
// ---------------------------------------------------------------------------

/**
 * Unknown or expired queue, or a queue owned by another user.
 *
 * @category events
 * @since 0.1.0
 */
export class BadEventQueueId extends ZulipError.make<BadEventQueueId>()("BadEventQueueId", {
  code: "BAD_EVENT_QUEUE_ID",
  fields: { queue_id: Schema.String },
  message: ({ queue_id }) => `Bad event queue ID: ${queue_id}`
}) {}

/**
 * `last_event_id` is older than the events already discarded.
 *
 * @category events
 * @since 0.1.0
 */
export class EventPruned extends ZulipError.make<EventPruned>()("EventPruned", {
  code: "BAD_REQUEST",
  params: { last_event_id: Schema.Int },
  message: ({ last_event_id }) => `An event newer than ${last_event_id} has already been pruned!`
}) {}

/**
 * `last_event_id` names no event this queue has held.
 *
 * @category events
 * @since 0.1.0
 */
export class EventNotInQueue extends ZulipError.make<EventNotInQueue>()("EventNotInQueue", {
  code: "BAD_REQUEST",
  params: { last_event_id: Schema.Int },
  message: ({ last_event_id }) => `Event ${last_event_id} was not in this queue`
}) {}

/**
 * GET /events without `queue_id` and without `dont_block`. Unlike
 * {@link RequestVariableMissing} this is a plain `BAD_REQUEST` with no `var_name`.
 *
 * @category events
 * @since 0.1.0
 */
export class MissingQueueId extends ZulipError.make<MissingQueueId>()("MissingQueueId", {
  code: "BAD_REQUEST",
  message: "Missing 'queue_id' argument"
}) {}

/**
 * GET /events with `queue_id` but without `last_event_id` (plain `BAD_REQUEST`).
 *
 * @category events
 * @since 0.1.0
 */
export class MissingLastEventId extends ZulipError.make<MissingLastEventId>()("MissingLastEventId", {
  code: "BAD_REQUEST",
  message: "Missing 'last_event_id' argument"
}) {}

/**
 * An event-queue narrow with an operator queues cannot filter on.
 *
 * @category events
 * @since 0.1.0
 */
export class NarrowOperatorNotSupported
  extends ZulipError.make<NarrowOperatorNotSupported>()("NarrowOperatorNotSupported", {
    code: "BAD_REQUEST",
    params: { operator: Schema.String },
    message: ({ operator }) => `Operator ${operator} not supported.`
  })
{}

/**
 * An event-queue narrow with an operand queues cannot filter on (`is:followed`).
 *
 * @category events
 * @since 0.1.0
 */
export class NarrowOperandNotSupported extends ZulipError.make<NarrowOperandNotSupported>()("NarrowOperandNotSupported", {
  code: "BAD_REQUEST",
  params: { operand: Schema.String },
  message: ({ operand }) => `Operand ${operand} not supported.`
}) {}

/**
 * @category events
 * @since 0.1.0
 */
export class EventQueueAllocationFailed
  extends ZulipError.make<EventQueueAllocationFailed>()("EventQueueAllocationFailed", {
    code: "BAD_REQUEST",
    message: "Could not allocate event queue"
  })
{}

// ---------------------------------------------------------------------------
// Channels, users and message addressing
// ---------------------------------------------------------------------------

/**
 * @category channels
 * @since 0.1.0
 */
export class StreamDoesNotExist extends ZulipError.make<StreamDoesNotExist>()("StreamDoesNotExist", {
  code: "STREAM_DOES_NOT_EXIST",
  fields: { stream_id: Schema.Int },
  message: ({ stream_id }) => `Channel with ID '${stream_id}' does not exist`
}) {}

/**
 * The by-name variant of {@link StreamDoesNotExist}.
 *
 * @category channels
 * @since 0.1.0
 */
export class StreamNameDoesNotExist extends ZulipError.make<StreamNameDoesNotExist>()("StreamNameDoesNotExist", {
  code: "STREAM_DOES_NOT_EXIST",
  fields: { stream: Schema.String },
  message: ({ stream }) => `Channel '${stream}' does not exist`
}) {}

/**
 * A channel id the user cannot access (drafts).
 *
 * @category channels
 * @since 0.1.0
 */
export class InvalidChannelId extends ZulipError.make<InvalidChannelId>()("InvalidChannelId", {
  code: "BAD_REQUEST",
  message: "Invalid channel ID"
}) {}

/**
 * An unknown recipient user id (messages, scheduled messages, drafts).
 *
 * @category users
 * @since 0.1.0
 */
export class InvalidUserId extends ZulipError.make<InvalidUserId>()("InvalidUserId", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `Invalid user ID ${user_id}`
}) {}

/**
 * The colon form of {@link InvalidUserId}, sent for user-id lists (user group
 * members) and user-type custom profile field values.
 *
 * @category users
 * @since 0.1.0
 */
export class InvalidUserIdColon extends ZulipError.make<InvalidUserIdColon>()("InvalidUserIdColon", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `Invalid user ID: ${user_id}`
}) {}

/**
 * @category users
 * @since 0.1.0
 */
export class NoSuchUser extends ZulipError.make<NoSuchUser>()("NoSuchUser", {
  code: "BAD_REQUEST",
  message: "No such user"
}) {}

/**
 * @category messages
 * @since 0.1.0
 */
export class TopicNullBytes extends ZulipError.make<TopicNullBytes>()("TopicNullBytes", {
  code: "BAD_REQUEST",
  message: "Topic must not contain null bytes"
}) {}

/**
 * @category messages
 * @since 0.1.0
 */
export class MessageNullBytes extends ZulipError.make<MessageNullBytes>()("MessageNullBytes", {
  code: "BAD_REQUEST",
  message: "Message must not contain null bytes"
}) {}

// ---------------------------------------------------------------------------
// Scheduled messages
// ---------------------------------------------------------------------------

/**
 * A direct-message recipient list that contains emails.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class RecipientListUserIdsOnly extends ZulipError.make<RecipientListUserIdsOnly>()("RecipientListUserIdsOnly", {
  code: "BAD_REQUEST",
  message: "Recipient list may only contain user IDs"
}) {}

/**
 * Also sent when a failed scheduled message is edited without a new time.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledDeliveryTimeNotInFuture
  extends ZulipError.make<ScheduledDeliveryTimeNotInFuture>()("ScheduledDeliveryTimeNotInFuture", {
    code: "BAD_REQUEST",
    message: "Scheduled delivery time must be in the future."
  })
{}

/**
 * PATCH /scheduled_messages/{id} with no parameter.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class NothingToChange extends ZulipError.make<NothingToChange>()("NothingToChange", {
  code: "BAD_REQUEST",
  message: "Nothing to change"
}) {}

/**
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledRecipientRequired
  extends ZulipError.make<ScheduledRecipientRequired>()("ScheduledRecipientRequired", {
    code: "BAD_REQUEST",
    message: "Recipient required when updating type of scheduled message."
  })
{}

/**
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledTopicRequired extends ZulipError.make<ScheduledTopicRequired>()("ScheduledTopicRequired", {
  code: "BAD_REQUEST",
  message: "Topic required when updating scheduled message type to stream."
}) {}

/**
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledMessageAlreadySent
  extends ZulipError.make<ScheduledMessageAlreadySent>()("ScheduledMessageAlreadySent", {
    code: "BAD_REQUEST",
    message: "Scheduled message was already sent"
  })
{}

/**
 * Unknown id, or a scheduled message of another user.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledMessageNotFound extends ZulipError.make<ScheduledMessageNotFound>()("ScheduledMessageNotFound", {
  code: "BAD_REQUEST",
  message: "Scheduled message does not exist"
}) {}

/**
 * The delivery worker's reason for failing a message more than 10 minutes
 * late; stored as `failure_message`, not sent as a response.
 *
 * @category scheduled messages
 * @since 0.1.0
 */
export class ScheduledMessageDeliveryLate
  extends ZulipError.make<ScheduledMessageDeliveryLate>()("ScheduledMessageDeliveryLate", {
    code: "BAD_REQUEST",
    message: "Message could not be sent at the scheduled time."
  })
{}

// ---------------------------------------------------------------------------
// User groups
// ---------------------------------------------------------------------------

/**
 * Unknown group id, or one the user cannot see.
 *
 * @category user groups
 * @since 0.1.0
 */
export class InvalidUserGroup extends ZulipError.make<InvalidUserGroup>()("InvalidUserGroup", {
  code: "BAD_REQUEST",
  message: "Invalid user group"
}) {}

/**
 * An unknown group in a subgroup list.
 *
 * @category user groups
 * @since 0.1.0
 */
export class InvalidSubgroupId extends ZulipError.make<InvalidSubgroupId>()("InvalidSubgroupId", {
  code: "BAD_REQUEST",
  params: { group_id: Schema.Int },
  message: ({ group_id }) => `Invalid user group ID: ${group_id}`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupNameEmpty extends ZulipError.make<UserGroupNameEmpty>()("UserGroupNameEmpty", {
  code: "BAD_REQUEST",
  message: "User group name can't be empty!"
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupNameTooLong extends ZulipError.make<UserGroupNameTooLong>()("UserGroupNameTooLong", {
  code: "BAD_REQUEST",
  message: "User group name cannot exceed 100 characters."
}) {}

/**
 * A name starting with `@`, `role:`, `user:`, `stream:` or `channel:`.
 *
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupNameReservedPrefix
  extends ZulipError.make<UserGroupNameReservedPrefix>()("UserGroupNameReservedPrefix", {
    code: "BAD_REQUEST",
    params: { prefix: Schema.String },
    message: ({ prefix }) => `User group name cannot start with '${prefix}'.`
  })
{}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupNameExists extends ZulipError.make<UserGroupNameExists>()("UserGroupNameExists", {
  code: "BAD_REQUEST",
  params: { name: Schema.String },
  message: ({ name }) => `User group '${name}' already exists.`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserGroupDeactivated extends ZulipError.make<UserGroupDeactivated>()("UserGroupDeactivated", {
  code: "BAD_REQUEST",
  message: "User group is deactivated."
}) {}

/**
 * PATCH /user_groups/{id} with no parameter.
 *
 * @category user groups
 * @since 0.1.0
 */
export class NoNewData extends ZulipError.make<NoNewData>()("NoNewData", {
  code: "BAD_REQUEST",
  message: "No new data supplied"
}) {}

/**
 * A `{new, old}` group setting whose `old` differs from the current value
 * (`field_name` is then `"old"`).
 *
 * @category user groups
 * @since 0.1.0
 */
export class ExpectationMismatch extends ZulipError.make<ExpectationMismatch>()("ExpectationMismatch", {
  code: "EXPECTATION_MISMATCH",
  fields: { field_name: Schema.String },
  message: ({ field_name }) => `'${field_name}' value does not match the expected value.`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class GroupSettingCannotBeInternet
  extends ZulipError.make<GroupSettingCannotBeInternet>()("GroupSettingCannotBeInternet", {
    code: "BAD_REQUEST",
    params: { setting_name: Schema.String },
    message: ({ setting_name }) => `'${setting_name}' setting cannot be set to 'role:internet' group.`
  })
{}

/**
 * @category user groups
 * @since 0.1.0
 */
export class GroupSettingCannotBeEveryone
  extends ZulipError.make<GroupSettingCannotBeEveryone>()("GroupSettingCannotBeEveryone", {
    code: "BAD_REQUEST",
    params: { setting_name: Schema.String },
    message: ({ setting_name }) => `'${setting_name}' setting cannot be set to 'role:everyone' group.`
  })
{}

/**
 * A setting that only accepts system groups.
 *
 * @category user groups
 * @since 0.1.0
 */
export class SystemGroupRequired extends ZulipError.make<SystemGroupRequired>()("SystemGroupRequired", {
  code: "SYSTEM_GROUP_REQUIRED",
  fields: { setting_name: Schema.String },
  message: ({ setting_name }) => `'${setting_name}' must be a system user group.`
}) {}

/**
 * POST /user_groups/{id}/members with nothing to add or remove.
 *
 * @category user groups
 * @since 0.1.0
 */
export class GroupMembersNothingToDo extends ZulipError.make<GroupMembersNothingToDo>()("GroupMembersNothingToDo", {
  code: "BAD_REQUEST",
  message: "Nothing to do. Specify at least one of \"add\", \"delete\", \"add_subgroups\" or \"delete_subgroups\"."
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserAlreadyGroupMember extends ZulipError.make<UserAlreadyGroupMember>()("UserAlreadyGroupMember", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `User ${user_id} is already a member of this group`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class UserNotGroupMember extends ZulipError.make<UserNotGroupMember>()("UserNotGroupMember", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `There is no member '${user_id}' in this user group`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class SubgroupAlreadyMember extends ZulipError.make<SubgroupAlreadyMember>()("SubgroupAlreadyMember", {
  code: "BAD_REQUEST",
  params: { group_id: Schema.Int },
  message: ({ group_id }) => `User group ${group_id} is already a subgroup of this group.`
}) {}

/**
 * @category user groups
 * @since 0.1.0
 */
export class NotASubgroup extends ZulipError.make<NotASubgroup>()("NotASubgroup", {
  code: "BAD_REQUEST",
  params: { group_id: Schema.Int },
  message: ({ group_id }) => `User group ${group_id} is not a subgroup of this group.`
}) {}

/**
 * One place where a group is still in use, as listed by
 * {@link CannotDeactivateGroupInUse}.
 *
 * @category user groups
 * @since 0.1.0
 */
export const GroupObjection = Schema.Union([
  Schema.Struct({ type: Schema.Literal("subgroup"), supergroup_ids: Schema.Array(Schema.Int) }),
  Schema.Struct({ type: Schema.Literal("channel"), channel_id: Schema.Int, settings: Schema.Array(Schema.String) }),
  Schema.Struct({ type: Schema.Literal("user_group"), group_id: Schema.Int, settings: Schema.Array(Schema.String) }),
  Schema.Struct({ type: Schema.Literal("realm"), settings: Schema.Array(Schema.String) })
])

/**
 * @category user groups
 * @since 0.1.0
 */
export type GroupObjection = typeof GroupObjection.Type

/**
 * Deactivating a group that other groups, channels or the organization
 * still use.
 *
 * @category user groups
 * @since 0.1.0
 */
export class CannotDeactivateGroupInUse
  extends ZulipError.make<CannotDeactivateGroupInUse>()("CannotDeactivateGroupInUse", {
    code: "CANNOT_DEACTIVATE_GROUP_IN_USE",
    fields: { objections: Schema.Array(GroupObjection) },
    message: "Cannot deactivate user group in use."
  })
{}

// ---------------------------------------------------------------------------
// Users: roles, names, custom profile data
// ---------------------------------------------------------------------------

/**
 * @category users
 * @since 0.1.0
 */
export class InvalidRole extends ZulipError.make<InvalidRole>()("InvalidRole", {
  code: "BAD_REQUEST",
  message: "Invalid role"
}) {}

/**
 * @category users
 * @since 0.1.0
 */
export class GuestCannotBeAdmin extends ZulipError.make<GuestCannotBeAdmin>()("GuestCannotBeAdmin", {
  code: "BAD_REQUEST",
  message: "Guests cannot be organization administrators"
}) {}

/**
 * Demoting the organization's only owner.
 *
 * @category users
 * @since 0.1.0
 */
export class OnlyOwner extends ZulipError.make<OnlyOwner>()("OnlyOwner", {
  code: "BAD_REQUEST",
  message: "The owner permission cannot be removed from the only organization owner."
}) {}

/**
 * A full name over 100 characters.
 *
 * @category users
 * @since 0.1.0
 */
export class NameTooLong extends ZulipError.make<NameTooLong>()("NameTooLong", {
  code: "BAD_REQUEST",
  message: "Name too long!"
}) {}

/**
 * @category users
 * @since 0.1.0
 */
export class NameInvalidCharacters extends ZulipError.make<NameInvalidCharacters>()("NameInvalidCharacters", {
  code: "BAD_REQUEST",
  message: "Invalid characters in name!"
}) {}

/**
 * A full name ending in `|<digits>`, which would clash with mention syntax.
 *
 * @category users
 * @since 0.1.0
 */
export class NameInvalidFormat extends ZulipError.make<NameInvalidFormat>()("NameInvalidFormat", {
  code: "BAD_REQUEST",
  message: "Invalid format!"
}) {}

/**
 * @category users
 * @since 0.1.0
 */
export class NameNotUnique extends ZulipError.make<NameNotUnique>()("NameNotUnique", {
  code: "BAD_REQUEST",
  message: "Unique names required in this organization."
}) {}

/**
 * @category users
 * @since 0.1.0
 */
export class NameEmpty extends ZulipError.make<NameEmpty>()("NameEmpty", {
  code: "BAD_REQUEST",
  message: "Name must not be empty!"
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileFieldNotFound extends ZulipError.make<ProfileFieldNotFound>()("ProfileFieldNotFound", {
  code: "BAD_REQUEST",
  params: { field_id: Schema.Int },
  message: ({ field_id }) => `Field id ${field_id} not found.`
}) {}

/**
 * A select-field value that is not one of the field's choices.
 *
 * @category custom profile fields
 * @since 0.1.0
 */
export class InvalidProfileChoice extends ZulipError.make<InvalidProfileChoice>()("InvalidProfileChoice", {
  code: "BAD_REQUEST",
  params: { value: Schema.String, field_name: Schema.String },
  message: ({ field_name, value }) => `'${value}' is not a valid choice for '${field_name}'.`
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileUserDeactivated extends ZulipError.make<ProfileUserDeactivated>()("ProfileUserDeactivated", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `User with ID ${user_id} is deactivated`
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileUserIsBot extends ZulipError.make<ProfileUserIsBot>()("ProfileUserIsBot", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `User with ID ${user_id} is a bot`
}) {}

// ---------------------------------------------------------------------------
// Presence and status
// ---------------------------------------------------------------------------

/**
 * @category presence
 * @since 0.1.0
 */
export class InvalidPresenceStatus extends ZulipError.make<InvalidPresenceStatus>()("InvalidPresenceStatus", {
  code: "BAD_REQUEST",
  params: { status: Schema.String },
  message: ({ status }) => `Invalid status: ${status}`
}) {}

/**
 * A status update with no parameter.
 *
 * @category status
 * @since 0.1.0
 */
export class NoNewValues extends ZulipError.make<NoNewValues>()("NoNewValues", {
  code: "BAD_REQUEST",
  message: "Client did not pass any new values."
}) {}

/**
 * @category status
 * @since 0.1.0
 */
export class StatusTextTooLong extends ZulipError.make<StatusTextTooLong>()("StatusTextTooLong", {
  code: "BAD_REQUEST",
  message: "status_text is too long (limit: 60 characters)"
}) {}

/**
 * `emoji_code` or `reaction_type` without `emoji_name`.
 *
 * @category status
 * @since 0.1.0
 */
export class EmojiNameRequired extends ZulipError.make<EmojiNameRequired>()("EmojiNameRequired", {
  code: "BAD_REQUEST",
  message: "Client must pass emoji_name if they pass either emoji_code or reaction_type."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class EmojiDoesNotExist extends ZulipError.make<EmojiDoesNotExist>()("EmojiDoesNotExist", {
  code: "BAD_REQUEST",
  params: { emoji_name: Schema.String },
  message: ({ emoji_name }) => `Emoji '${emoji_name}' does not exist`
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidEmojiName extends ZulipError.make<InvalidEmojiName>()("InvalidEmojiName", {
  code: "BAD_REQUEST",
  message: "Invalid emoji name."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidEmojiCode extends ZulipError.make<InvalidEmojiCode>()("InvalidEmojiCode", {
  code: "BAD_REQUEST",
  message: "Invalid emoji code."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidEmojiType extends ZulipError.make<InvalidEmojiType>()("InvalidEmojiType", {
  code: "BAD_REQUEST",
  message: "Invalid emoji type."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidCustomEmoji extends ZulipError.make<InvalidCustomEmoji>()("InvalidCustomEmoji", {
  code: "BAD_REQUEST",
  message: "Invalid custom emoji."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class InvalidCustomEmojiName extends ZulipError.make<InvalidCustomEmojiName>()("InvalidCustomEmojiName", {
  code: "BAD_REQUEST",
  message: "Invalid custom emoji name."
}) {}

/**
 * @category emoji
 * @since 0.1.0
 */
export class CustomEmojiDeactivated extends ZulipError.make<CustomEmojiDeactivated>()("CustomEmojiDeactivated", {
  code: "BAD_REQUEST",
  message: "This custom emoji has been deactivated."
}) {}

// ---------------------------------------------------------------------------
// Custom profile field definitions: /realm/profile_fields
// ---------------------------------------------------------------------------

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileFieldLabelBlank extends ZulipError.make<ProfileFieldLabelBlank>()("ProfileFieldLabelBlank", {
  code: "BAD_REQUEST",
  message: "Label cannot be blank."
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class InvalidFieldType extends ZulipError.make<InvalidFieldType>()("InvalidFieldType", {
  code: "BAD_REQUEST",
  message: "Invalid field type."
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileFieldLabelExists extends ZulipError.make<ProfileFieldLabelExists>()("ProfileFieldLabelExists", {
  code: "BAD_REQUEST",
  message: "A field with that label already exists."
}) {}

/**
 * `display_in_profile_summary` on a long-text or user field.
 *
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileSummaryTypeUnsupported
  extends ZulipError.make<ProfileSummaryTypeUnsupported>()("ProfileSummaryTypeUnsupported", {
    code: "BAD_REQUEST",
    message: "Field type not supported for display in profile summary."
  })
{}

/**
 * A third field with `display_in_profile_summary`.
 *
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileSummaryLimit extends ZulipError.make<ProfileSummaryLimit>()("ProfileSummaryLimit", {
  code: "BAD_REQUEST",
  message: "Only 2 custom profile fields can be displayed in the profile summary."
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class SelectFieldNoChoices extends ZulipError.make<SelectFieldNoChoices>()("SelectFieldNoChoices", {
  code: "BAD_REQUEST",
  message: "Field must have at least one choice."
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class SelectFieldDuplicateChoices
  extends ZulipError.make<SelectFieldDuplicateChoices>()("SelectFieldDuplicateChoices", {
    code: "BAD_REQUEST",
    message: "Field must not have duplicate choices."
  })
{}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class FieldDataNotAllowedType extends ZulipError.make<FieldDataNotAllowedType>()("FieldDataNotAllowedType", {
  code: "BAD_REQUEST",
  message: "field_data contains a value that is not an allowed_type"
}) {}

/**
 * A required `field_data` key (`order`, `text`, `subtype`) is absent.
 *
 * @category custom profile fields
 * @since 0.1.0
 */
export class FieldDataKeyMissing extends ZulipError.make<FieldDataKeyMissing>()("FieldDataKeyMissing", {
  code: "BAD_REQUEST",
  params: { key: Schema.String },
  message: ({ key }) => `${key} key is missing from field_data`
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class InvalidExternalAccountType
  extends ZulipError.make<InvalidExternalAccountType>()("InvalidExternalAccountType", {
    code: "BAD_REQUEST",
    message: "Invalid external account type"
  })
{}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class CustomExternalAccountUrlRequired
  extends ZulipError.make<CustomExternalAccountUrlRequired>()("CustomExternalAccountUrlRequired", {
    code: "BAD_REQUEST",
    message: "Custom external account must define URL pattern"
  })
{}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class UrlPatternMissingUsername extends ZulipError.make<UrlPatternMissingUsername>()("UrlPatternMissingUsername", {
  code: "BAD_REQUEST",
  message: "URL pattern must contain '%(username)s'."
}) {}

/**
 * Editing a built-in external-account field beyond its summary flag.
 *
 * @category custom profile fields
 * @since 0.1.0
 */
export class DefaultFieldNotUpdatable extends ZulipError.make<DefaultFieldNotUpdatable>()("DefaultFieldNotUpdatable", {
  code: "BAD_REQUEST",
  message: "Default custom field cannot be updated."
}) {}

// ---------------------------------------------------------------------------
// Drafts and saved snippets
// ---------------------------------------------------------------------------

/**
 * @category drafts
 * @since 0.1.0
 */
export class DraftsSyncDisabled extends ZulipError.make<DraftsSyncDisabled>()("DraftsSyncDisabled", {
  code: "BAD_REQUEST",
  message: "User has disabled synchronizing drafts."
}) {}

/**
 * @category drafts
 * @since 0.1.0
 */
export class TimestampNegative extends ZulipError.make<TimestampNegative>()("TimestampNegative", {
  code: "BAD_REQUEST",
  message: "Timestamp must not be negative."
}) {}

/**
 * A channel draft whose `to` does not hold exactly one id.
 *
 * @category drafts
 * @since 0.1.0
 */
export class DraftChannelCount extends ZulipError.make<DraftChannelCount>()("DraftChannelCount", {
  code: "BAD_REQUEST",
  message: "Must specify exactly 1 channel ID for channel messages"
}) {}

/**
 * Unknown id, or a draft of another user.
 *
 * @category drafts
 * @since 0.1.0
 */
export class DraftNotFound extends ZulipError.make<DraftNotFound>()("DraftNotFound", {
  code: "BAD_REQUEST",
  message: "Draft does not exist"
}) {}

/**
 * Unknown id, or a snippet of another user.
 *
 * @category saved snippets
 * @since 0.1.0
 */
export class SavedSnippetNotFound extends ZulipError.make<SavedSnippetNotFound>()("SavedSnippetNotFound", {
  code: "BAD_REQUEST",
  message: "Saved snippet does not exist."
}) {}

/**
 * A blank title, in the newer explicit wording.
 *
 * @category saved snippets
 * @since 0.1.0
 */
export class SavedSnippetTitleEmpty extends ZulipError.make<SavedSnippetTitleEmpty>()("SavedSnippetTitleEmpty", {
  code: "BAD_REQUEST",
  message: "Title cannot be empty."
}) {}

// ---------------------------------------------------------------------------
// Invitations
// ---------------------------------------------------------------------------

/**
 * A `stream_ids` entry that does not exist or is inaccessible.
 *
 * @category invitations
 * @since 0.1.0
 */
export class InvalidInviteChannel extends ZulipError.make<InvalidInviteChannel>()("InvalidInviteChannel", {
  code: "BAD_REQUEST",
  params: { stream_id: Schema.Int },
  message: ({ stream_id }) => `Invalid channel ID ${stream_id}. No invites were sent.`
}) {}

/**
 * @category invitations
 * @since 0.1.0
 */
export class CannotSubscribeOthers extends ZulipError.make<CannotSubscribeOthers>()("CannotSubscribeOthers", {
  code: "BAD_REQUEST",
  message: "You do not have permission to subscribe other users to channels."
}) {}

// ---------------------------------------------------------------------------
// Message flags and narrows
// ---------------------------------------------------------------------------

/**
 * An unknown flag, or one clients may not name.
 *
 * @category flags
 * @since 0.1.0
 */
export class InvalidFlag extends ZulipError.make<InvalidFlag>()("InvalidFlag", {
  code: "BAD_REQUEST",
  params: { flag: Schema.String },
  message: ({ flag }) => `Invalid flag: '${flag}'`
}) {}

/**
 * A flag the server manages (`mentioned`, `has_alert_word`, ...).
 *
 * @category flags
 * @since 0.1.0
 */
export class FlagNotEditable extends ZulipError.make<FlagNotEditable>()("FlagNotEditable", {
  code: "BAD_REQUEST",
  params: { flag: Schema.String },
  message: ({ flag }) => `Flag not editable: '${flag}'`
}) {}

/**
 * An `op` other than `add` or `remove`.
 *
 * @category flags
 * @since 0.1.0
 */
export class InvalidFlagOperation extends ZulipError.make<InvalidFlagOperation>()("InvalidFlagOperation", {
  code: "BAD_REQUEST",
  params: { operation: Schema.String },
  message: ({ operation }) => `Invalid message flag operation: '${operation}'`
}) {}

/**
 * @category flags
 * @since 0.1.0
 */
export class InvalidMessages extends ZulipError.make<InvalidMessages>()("InvalidMessages", {
  code: "BAD_REQUEST",
  message: "Invalid message(s)"
}) {}

/**
 * `include_anchor=false` with messages requested on both sides.
 *
 * @category flags
 * @since 0.1.0
 */
export class AnchorExcludedMidRange extends ZulipError.make<AnchorExcludedMidRange>()("AnchorExcludedMidRange", {
  code: "BAD_REQUEST",
  message: "The anchor can only be excluded at an end of the range"
}) {}

/**
 * @category flags
 * @since 0.1.0
 */
export class InvalidAnchor extends ZulipError.make<InvalidAnchor>()("InvalidAnchor", {
  code: "BAD_REQUEST",
  message: "Invalid anchor"
}) {}

/**
 * @category narrows
 * @since 0.1.0
 */
export class NarrowElementNotStringPair
  extends ZulipError.make<NarrowElementNotStringPair>()("NarrowElementNotStringPair", {
    code: "BAD_REQUEST",
    params: { index: Schema.Int },
  // Zulip 9+ (pydantic) names the element: "Invalid narrow[0]: Value error, …".
  message: ({ index }) => `Invalid narrow[${index}]: Value error, element is not a string pair`
  })
{}

/**
 * @category narrows
 * @since 0.1.0
 */
export class NarrowOperandMissing extends ZulipError.make<NarrowOperandMissing>()("NarrowOperandMissing", {
  code: "BAD_REQUEST",
  params: { index: Schema.Int },
  // Zulip 9+ (pydantic) names the element: "Invalid narrow[0]: Value error, …".
  message: ({ index }) => `Invalid narrow[${index}]: Value error, operand is missing`
}) {}

/**
 * @category narrows
 * @since 0.1.0
 */
export class NarrowOperatorMissing extends ZulipError.make<NarrowOperatorMissing>()("NarrowOperatorMissing", {
  code: "BAD_REQUEST",
  params: { index: Schema.Int },
  // Zulip 9+ (pydantic) names the element: "Invalid narrow[0]: Value error, …".
  message: ({ index }) => `Invalid narrow[${index}]: Value error, operator is missing`
}) {}

/**
 * @category narrows
 * @since 0.1.0
 */
export class NarrowDictOrListRequired extends ZulipError.make<NarrowDictOrListRequired>()("NarrowDictOrListRequired", {
  code: "BAD_REQUEST",
  params: { index: Schema.Int },
  // Zulip 9+ (pydantic) names the element: "Invalid narrow[0]: Value error, …".
  message: ({ index }) => `Invalid narrow[${index}]: Value error, dict or list required`
}) {}

/**
 * A narrow term the message search cannot apply. `desc` is sent on the wire;
 * the static constructors build Zulip's texts.
 *
 * @category narrows
 * @since 0.1.0
 */
export class BadNarrow extends ZulipError.make<BadNarrow>()("BadNarrow", {
  code: "BAD_NARROW",
  fields: { desc: Schema.String },
  message: ({ desc }) => `Invalid narrow operator: ${desc}`
}) {
  /** `unknown operator X` */
  static unknownOperator(operator: string): BadNarrow {
    return new BadNarrow({ desc: `unknown operator ${operator}` })
  }
  /** `unknown 'is' operand X` (also `'has'` and `'in'`) */
  static unknownOperand(operator: "is" | "has" | "in", operand: string): BadNarrow {
    return new BadNarrow({ desc: `unknown '${operator}' operand ${operand}` })
  }
  /** `unknown channel X` */
  static unknownChannel(channel: string | number): BadNarrow {
    return new BadNarrow({ desc: `unknown channel ${channel}` })
  }
  /** `unknown channels operand X` */
  static unknownChannelsOperand(operand: string): BadNarrow {
    return new BadNarrow({ desc: `unknown channels operand ${operand}` })
  }
  /** A channel term combined with a direct-message term. */
  static channelAndDirect(): BadNarrow {
    return new BadNarrow({ desc: "No message can be both a channel message and direct message" })
  }
}

/**
 * Narrow terms that are valid alone but not together.
 *
 * @category narrows
 * @since 0.1.0
 */
export class InvalidNarrowCombination extends ZulipError.make<InvalidNarrowCombination>()("InvalidNarrowCombination", {
  code: "BAD_NARROW",
  fields: { desc: Schema.String },
  message: ({ desc }) => `Invalid narrow operator combination: ${desc}`
}) {}

// ---------------------------------------------------------------------------
// Push notifications
// ---------------------------------------------------------------------------

/**
 * @category push notifications
 * @since 0.1.0
 */
export class PushServiceNotConfigured extends ZulipError.make<PushServiceNotConfigured>()("PushServiceNotConfigured", {
  code: "PUSH_SERVICE_NOT_CONFIGURED",
  message: "Server is not configured to use push notification service."
}) {}

// ---------------------------------------------------------------------------
// The catalogue
// ---------------------------------------------------------------------------

/**
 * Every error class, e.g. to declare the API's error set or to build a
 * `Schema.Union` of them.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const AllErrors = [
  BadRequest,
  ResourceNotFound,
  AccessDenied,
  InsufficientPermission,
  RequestVariableMissing,
  RequestConfusingVar,
  RequestVariableInvalid,
  InvalidJson,
  NotAnInteger,
  NotABoolean,
  NotAString,
  NotAList,
  NotADict,
  NotAFloat,
  NotADate,
  NotAUrl,
  NotValidJson,
  ArgumentNotValidJson,
  TooSmall,
  TooLarge,
  TooLong,
  TooShort,
  CannotBeBlank,
  RequiredStringBlank,
  InvalidParameter,
  UnexpectedArgument,
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
  RateLimitHit,
  OrganizationAdministratorRequired,
  OrganizationOwnerRequired,
  OrganizationMemberRequired,
  InviteAsAdministratorRequired,
  NotAllowedForGuests,
  BotsNotAllowed,
  UserNotAuthorizedForQuery,
  CannotAdministerChannel,
  BadEventQueueId,
  EventPruned,
  EventNotInQueue,
  MissingQueueId,
  MissingLastEventId,
  NarrowOperatorNotSupported,
  NarrowOperandNotSupported,
  EventQueueAllocationFailed,
  StreamDoesNotExist,
  StreamNameDoesNotExist,
  InvalidChannelId,
  InvalidUserId,
  InvalidUserIdColon,
  NoSuchUser,
  TopicNullBytes,
  MessageNullBytes,
  RecipientListUserIdsOnly,
  ScheduledDeliveryTimeNotInFuture,
  NothingToChange,
  ScheduledRecipientRequired,
  ScheduledTopicRequired,
  ScheduledMessageAlreadySent,
  ScheduledMessageNotFound,
  ScheduledMessageDeliveryLate,
  InvalidUserGroup,
  InvalidSubgroupId,
  UserGroupNameEmpty,
  UserGroupNameTooLong,
  UserGroupNameReservedPrefix,
  UserGroupNameExists,
  UserGroupDeactivated,
  NoNewData,
  ExpectationMismatch,
  GroupSettingCannotBeInternet,
  GroupSettingCannotBeEveryone,
  SystemGroupRequired,
  GroupMembersNothingToDo,
  UserAlreadyGroupMember,
  UserNotGroupMember,
  SubgroupAlreadyMember,
  NotASubgroup,
  CannotDeactivateGroupInUse,
  InvalidRole,
  GuestCannotBeAdmin,
  OnlyOwner,
  NameTooLong,
  NameInvalidCharacters,
  NameInvalidFormat,
  NameNotUnique,
  NameEmpty,
  ProfileFieldNotFound,
  InvalidProfileChoice,
  ProfileUserDeactivated,
  ProfileUserIsBot,
  InvalidPresenceStatus,
  NoNewValues,
  StatusTextTooLong,
  EmojiNameRequired,
  EmojiDoesNotExist,
  InvalidEmojiName,
  InvalidEmojiCode,
  InvalidEmojiType,
  InvalidCustomEmoji,
  InvalidCustomEmojiName,
  CustomEmojiDeactivated,
  ProfileFieldLabelBlank,
  InvalidFieldType,
  ProfileFieldLabelExists,
  ProfileSummaryTypeUnsupported,
  ProfileSummaryLimit,
  SelectFieldNoChoices,
  SelectFieldDuplicateChoices,
  FieldDataNotAllowedType,
  FieldDataKeyMissing,
  InvalidExternalAccountType,
  CustomExternalAccountUrlRequired,
  UrlPatternMissingUsername,
  DefaultFieldNotUpdatable,
  DraftsSyncDisabled,
  TimestampNegative,
  DraftChannelCount,
  DraftNotFound,
  SavedSnippetNotFound,
  SavedSnippetTitleEmpty,
  InvalidInviteChannel,
  CannotSubscribeOthers,
  InvalidFlag,
  FlagNotEditable,
  InvalidFlagOperation,
  InvalidMessages,
  AnchorExcludedMidRange,
  InvalidAnchor,
  NarrowElementNotStringPair,
  NarrowOperandMissing,
  NarrowOperatorMissing,
  NarrowDictOrListRequired,
  BadNarrow,
  InvalidNarrowCombination,
  PushServiceNotConfigured
] as const

/**
 * Any error of the catalogue.
 *
 * @category catalogue
 * @since 0.1.0
 */
export type AnyError = InstanceType<(typeof AllErrors)[number]>
