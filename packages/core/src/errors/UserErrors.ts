/**
 * Errors of users: roles, names and custom profile data.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

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
 * DELETE /users/me by the organization's only active user, or its only
 * active owner (Zulip's `CannotDeactivateLastUserError`): `entity` is
 * "user" or "organization owner".
 *
 * @category users
 * @since 0.1.0
 */
export class CannotDeactivateLastUser extends ZulipError.make<CannotDeactivateLastUser>()("CannotDeactivateLastUser", {
  code: "CANNOT_DEACTIVATE_LAST_USER",
  fields: { is_last_owner: Schema.Boolean, entity: Schema.String },
  message: ({ entity }) => `Cannot deactivate the only ${entity}.`
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

/**
 * `new_email` from someone without both an administrator's role and the
 * `can_change_user_emails` permission.
 *
 * @category users
 * @since 0.1.0
 */
export class ChangeUserEmailsNotAuthorized
  extends ZulipError.make<ChangeUserEmailsNotAuthorized>()("ChangeUserEmailsNotAuthorized", {
    code: "BAD_REQUEST",
    message: "User not authorized to change user emails"
  })
{}

/**
 * A `new_email` that is not an email address.
 *
 * @category users
 * @since 0.1.0
 */
export class InvalidNewEmail extends ZulipError.make<InvalidNewEmail>()("InvalidNewEmail", {
  code: "BAD_REQUEST",
  message: "Invalid new email address."
}) {}

/**
 * A `new_email` another active account of the organization has (compared
 * without case).
 *
 * @category users
 * @since 0.1.0
 */
export class NewEmailInUse extends ZulipError.make<NewEmailInUse>()("NewEmailInUse", {
  code: "BAD_REQUEST",
  message: "New email value error: Already has an account."
}) {}

/**
 * A `new_email` that is a system bot's address (Zulip's short form of
 * "reserved for system bots").
 *
 * @category errors
 * @since 0.1.0
 */
export class NewEmailReserved extends ZulipError.make<NewEmailReserved>()("NewEmailReserved", {
  code: "BAD_REQUEST",
  message: "New email value error: Reserved for system bots."
}) {}

/**
 * A `new_email` a deactivated account of the organization has.
 *
 * @category users
 * @since 0.1.0
 */
export class NewEmailDeactivated extends ZulipError.make<NewEmailDeactivated>()("NewEmailDeactivated", {
  code: "BAD_REQUEST",
  message: "New email value error: Account has been deactivated."
}) {}

/**
 * POST /users/me/muted_users/{id} with one's own id.
 *
 * @category users
 * @since 0.1.0
 */
export class CannotMuteSelf extends ZulipError.make<CannotMuteSelf>()("CannotMuteSelf", {
  code: "BAD_REQUEST",
  message: "Cannot mute self"
}) {}

/**
 * @category users
 * @since 0.1.0
 */
export class UserAlreadyMuted extends ZulipError.make<UserAlreadyMuted>()("UserAlreadyMuted", {
  code: "BAD_REQUEST",
  message: "User already muted"
}) {}

/**
 * @category users
 * @since 0.1.0
 */
export class UserNotMuted extends ZulipError.make<UserNotMuted>()("UserNotMuted", {
  code: "BAD_REQUEST",
  message: "User is not muted"
}) {}

/**
 * POST /user_topics with a `visibility_policy` other than 0-3 (Zulip's
 * typed-endpoint text for a value outside its list).
 *
 * @category users
 * @since 0.1.0
 */
export class InvalidVisibilityPolicy extends ZulipError.make<InvalidVisibilityPolicy>()("InvalidVisibilityPolicy", {
  code: "BAD_REQUEST",
  message: "Invalid visibility_policy: Value error, Not in the list of possible values"
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const UserErrors = [
  InvalidRole,
  GuestCannotBeAdmin,
  OnlyOwner,
  CannotDeactivateLastUser,
  NameTooLong,
  NameInvalidCharacters,
  NameInvalidFormat,
  NameNotUnique,
  NameEmpty,
  ProfileFieldNotFound,
  InvalidProfileChoice,
  ProfileUserDeactivated,
  ProfileUserIsBot,
  ChangeUserEmailsNotAuthorized,
  InvalidNewEmail,
  NewEmailInUse,
  NewEmailReserved,
  NewEmailDeactivated,
  CannotMuteSelf,
  UserAlreadyMuted,
  UserNotMuted,
  InvalidVisibilityPolicy
] as const
