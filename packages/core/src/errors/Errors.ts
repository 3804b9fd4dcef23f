/**
 * Every Zulip API error the server can return, one class per error, each
 * area's in its own file beside this one (`AuthErrors.ts`,
 * `MessageErrors.ts`, ...); this module gathers them.
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
import { AuthErrors } from "./AuthErrors.ts"
import { DraftErrors } from "./DraftErrors.ts"
import { EventQueueErrors } from "./EventQueueErrors.ts"
import { GenericErrors } from "./GenericErrors.ts"
import { InvitationErrors } from "./InvitationErrors.ts"
import { MessageErrors } from "./MessageErrors.ts"
import { ParameterErrors } from "./ParameterErrors.ts"
import { PermissionErrors } from "./PermissionErrors.ts"
import { ProfileFieldErrors } from "./ProfileFieldErrors.ts"
import { PushErrors } from "./PushErrors.ts"
import { RecipientErrors } from "./RecipientErrors.ts"
import { ScheduledMessageErrors } from "./ScheduledMessageErrors.ts"
import { StatusErrors } from "./StatusErrors.ts"
import { UserErrors } from "./UserErrors.ts"
import { UserGroupErrors } from "./UserGroupErrors.ts"

export * from "./GenericErrors.ts"
export * from "./ParameterErrors.ts"
export * from "./AuthErrors.ts"
export * from "./PermissionErrors.ts"
export * from "./EventQueueErrors.ts"
export * from "./RecipientErrors.ts"
export * from "./ScheduledMessageErrors.ts"
export * from "./UserGroupErrors.ts"
export * from "./UserErrors.ts"
export * from "./StatusErrors.ts"
export * from "./ProfileFieldErrors.ts"
export * from "./DraftErrors.ts"
export * from "./InvitationErrors.ts"
export * from "./MessageErrors.ts"
export * from "./PushErrors.ts"

/**
 * Every error class, e.g. to declare the API's error set or to build a
 * `Schema.Union` of them.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const AllErrors = [
  ...GenericErrors,
  ...ParameterErrors,
  ...AuthErrors,
  ...PermissionErrors,
  ...EventQueueErrors,
  ...RecipientErrors,
  ...ScheduledMessageErrors,
  ...UserGroupErrors,
  ...UserErrors,
  ...StatusErrors,
  ...ProfileFieldErrors,
  ...DraftErrors,
  ...InvitationErrors,
  ...MessageErrors,
  ...PushErrors
] as const

/**
 * Any error of the catalogue.
 *
 * @category catalogue
 * @since 0.1.0
 */
export type AnyError = InstanceType<(typeof AllErrors)[number]>
