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
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const InvitationErrors = [
  InvalidInviteChannel,
  CannotSubscribeOthers
] as const
