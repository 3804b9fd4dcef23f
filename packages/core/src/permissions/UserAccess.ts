/**
 * Whether a caller may act on another user named by id (Zulip's
 * `access_user_by_id`): bots and deactivated users are refused unless the
 * endpoint allows them; reading needs access to the user under the
 * organization's `can_access_all_users_group`; administering needs the
 * caller to be an administrator (or the bot's owner).
 *
 * @since 0.1.0
 */
import { isAdministrator } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"

/** @category models */
export interface UserAccessOptions {
  readonly allowBots: boolean
  readonly allowDeactivated: boolean
  readonly forAdmin: boolean
}

/** Why access is refused, in Zulip's order of checks; "ok" when granted. @category models */
export type UserAccessVerdict = "ok" | "no_such_user" | "deactivated" | "insufficient_permission"

/**
 * `target` undefined: no such user in the caller's organization.
 * `canAccess`: whether the caller can access the target (the organization's
 * user-access rule, computed by the caller).
 *
 * @category rules
 */
export const userAccessVerdict = (
  caller: User,
  target: User | undefined,
  canAccess: boolean,
  options: UserAccessOptions
): UserAccessVerdict => {
  if (target === undefined || target.realm_id !== caller.realm_id) return "no_such_user"
  if (target.is_bot && !options.allowBots) return "no_such_user"
  if (!target.is_active && !options.allowDeactivated) return "deactivated"
  if (!options.forAdmin) return canAccess ? "ok" : "insufficient_permission"
  return target.bot_owner_id === caller.id || isAdministrator(caller.role) ? "ok" : "insufficient_permission"
}
