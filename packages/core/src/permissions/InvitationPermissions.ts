/**
 * Who may invite with a reusable invitation link, as a pure rule: the same
 * rule decides whether a user may make a link (POST /invites/multiuse) and
 * whether a link may still be used (its maker's current rights, when someone
 * joins). Zulip's `generate_multiuse_invite_backend` order: guests and bots
 * are refused; the maker must be in the organization's
 * `create_multiuse_invite_group` (its administrators); owners are invited
 * only by owners; administrators and moderators (and owners) only by
 * administrators (`check_role_based_permissions`).
 *
 * @since 0.1.0
 */
import type { GroupId } from "../domain/Ids.ts"
import { isAdministrator, isGuest, isOwner, Roles } from "../domain/Role.ts"
import type { Role } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import type { GroupIndex } from "./GroupMembership.ts"
import { hasGroupPermission } from "./GroupMembership.ts"

/**
 * Why a user may not invite with a link of a role, in the order of the
 * checks; `undefined` when they may.
 *
 * @category models
 * @since 0.1.0
 */
export type InviteRefusal =
  | "deactivated"
  | "guest"
  | "bot"
  | "insufficient_permission"
  | "owner_required"
  | "administrator_required"

/**
 * Whether `maker` may invite people as `invitedAs` through a link.
 * `inviteGroup` is the organization's `create_multiuse_invite_group`.
 *
 * @category rules
 * @since 0.1.0
 */
export const inviteRefusal = (
  index: GroupIndex,
  inviteGroup: GroupId,
  maker: User,
  invitedAs: Role
): InviteRefusal | undefined => {
  // A deactivated user invites nobody (Zulip also expires their links).
  if (!maker.is_active) return "deactivated"
  if (isGuest(maker.role)) return "guest"
  if (maker.is_bot) return "bot"
  if (!hasGroupPermission(index, maker, inviteGroup, { allowEveryoneGroup: false })) return "insufficient_permission"
  if (invitedAs === Roles.owner && !isOwner(maker.role)) return "owner_required"
  const privileged = invitedAs === Roles.owner || invitedAs === Roles.administrator || invitedAs === Roles.moderator
  if (privileged && !isAdministrator(maker.role)) return "administrator_required"
  return undefined
}
