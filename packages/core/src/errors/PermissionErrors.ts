/**
 * Errors of roles and permissions: what the caller's role does not allow.
 *
 * @since 0.1.0
 */
import * as ZulipError from "./ZulipError.ts"

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

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const PermissionErrors = [
  OrganizationAdministratorRequired,
  OrganizationOwnerRequired,
  OrganizationMemberRequired,
  InviteAsAdministratorRequired,
  NotAllowedForGuests,
  BotsNotAllowed,
  UserNotAuthorizedForQuery,
  CannotAdministerChannel
] as const
