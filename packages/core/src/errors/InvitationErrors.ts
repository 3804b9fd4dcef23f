/**
 * Errors of invitations.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

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

/**
 * DELETE /invites/multiuse/{id} for an id of no invitation of the caller's
 * organization.
 *
 * @category invitations
 * @since 0.1.0
 */
export class NoSuchInvitation extends ZulipError.make<NoSuchInvitation>()("NoSuchInvitation", {
  code: "BAD_REQUEST",
  message: "No such invitation"
}) {}

/**
 * @category invitations
 * @since 0.1.0
 */
export class InvitationAlreadyRevoked extends ZulipError.make<InvitationAlreadyRevoked>()("InvitationAlreadyRevoked", {
  code: "BAD_REQUEST",
  message: "Invitation has already been revoked"
}) {}

/**
 * The join page for a key that names no invitation (Zulip's "could not find
 * your confirmation link"). Shown as a page, never through the API.
 *
 * @category invitations
 * @since 0.1.0
 */
export class InvitationLinkUnknown extends ZulipError.make<InvitationLinkUnknown>()("InvitationLinkUnknown", {
  code: "BAD_REQUEST",
  message: "This invitation link is not valid. Check that you copied the whole link, or ask for a new one."
}) {}

/**
 * The join page for a link past its expiry.
 *
 * @category invitations
 * @since 0.1.0
 */
export class InvitationLinkExpired extends ZulipError.make<InvitationLinkExpired>()("InvitationLinkExpired", {
  code: "BAD_REQUEST",
  message: "This invitation link has expired. Ask the person who invited you for a new one."
}) {}

/**
 * The join page for a revoked link.
 *
 * @category invitations
 * @since 0.1.0
 */
export class InvitationLinkRevoked extends ZulipError.make<InvitationLinkRevoked>()("InvitationLinkRevoked", {
  code: "BAD_REQUEST",
  message: "This invitation link has been revoked. Ask the person who invited you for a new one."
}) {}

/**
 * The join page for a link whose maker may no longer invite with it
 * (deactivated, or no longer holding the role the link grants): links act
 * with their maker's current rights.
 *
 * @category invitations
 * @since 0.1.0
 */
export class InvitationLinkMakerNotAllowed extends ZulipError.make<InvitationLinkMakerNotAllowed>()("InvitationLinkMakerNotAllowed", {
  code: "BAD_REQUEST",
  message: "The person who made this invitation link may no longer invite people with it. Ask for a new one."
}) {}

/**
 * A password shorter than Zulip's PASSWORD_MIN_LENGTH (6) on the join page.
 *
 * @category invitations
 * @since 0.1.0
 */
export class PasswordTooWeak extends ZulipError.make<PasswordTooWeak>()("PasswordTooWeak", {
  code: "BAD_REQUEST",
  message: "The password is too weak."
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const InvitationErrors = [
  InvalidInviteChannel,
  CannotSubscribeOthers,
  NoSuchInvitation,
  InvitationAlreadyRevoked,
  InvitationLinkUnknown,
  InvitationLinkExpired,
  InvitationLinkRevoked,
  InvitationLinkMakerNotAllowed,
  PasswordTooWeak
] as const
