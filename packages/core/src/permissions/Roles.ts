/**
 * Role-based rules about users acting on users: who may manage whom, who may
 * change a role, and who counts as a full member.
 *
 * Zulip sources: `UserProfile.can_admin_user` and `is_provisional_member`
 * (`zerver/models/users.py`), `update_user_backend`, `deactivate_user_backend`
 * and `check_last_owner` (`zerver/views/users.py`). The refusal texts are
 * Zulip's; they all travel with code `UNAUTHORIZED_PRINCIPAL` except the
 * only-owner ones, which are plain `BAD_REQUEST` errors.
 *
 * Bots follow the role they hold, like in Zulip: nothing here forbids a bot
 * from being an administrator or an owner. Only the last-owner protection
 * looks at `is_bot`, because Zulip counts human owners there.
 *
 * @since 0.1.0
 */
import type { Role } from "../domain/Role.ts"
import { isAdministrator, isGuest, isModeratorOrAbove, isOwner, Roles } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"

/**
 * Refusal texts used by the role rules, verbatim from Zulip.
 *
 * @category constants
 * @since 0.1.0
 */
export const RoleErrors = {
  ownerRequired: "Must be an organization owner",
  administratorRequired: "Must be an organization administrator",
  onlyOwnerDemotion: "The owner permission cannot be removed from the only organization owner.",
  onlyOwnerDeactivation: "Cannot deactivate the only organization owner"
} as const

/**
 * The user performing an action.
 *
 * @category models
 * @since 0.1.0
 */
export type Actor = Pick<User, "id" | "realm_id" | "role" | "is_active">

/**
 * The user an action is performed on.
 *
 * @category models
 * @since 0.1.0
 */
export type Target = Pick<User, "realm_id" | "role" | "bot_owner_id">

/**
 * Whether `actor` may perform owner-sensitive administration on `target`
 * (deactivating, changing the role of, or otherwise acting as an
 * administrator on them): owners over anyone, administrators over anyone who
 * is not an owner, both only within their own organization. Zulip answers
 * an administrator acting on an owner with "Must be an organization owner".
 *
 * @category predicates
 * @since 0.1.0
 */
export const canAdministerUser = (actor: Actor, target: Pick<User, "realm_id" | "role">): boolean => {
  if (!actor.is_active || actor.realm_id !== target.realm_id) return false
  if (isOwner(actor.role)) return true
  return isAdministrator(actor.role) && !isOwner(target.role)
}

/**
 * Zulip's `can_admin_user`, the gate of `PATCH /users/{id}` and of bot
 * management ("Insufficient permission" otherwise): administrators of the
 * organization over any user, and any user over the bots they own. Operations
 * that touch an owner additionally need {@link canAdministerUser} or
 * {@link canChangeRole}.
 *
 * @category predicates
 * @since 0.1.0
 */
export const canManageUser = (actor: Actor, target: Target): boolean => {
  if (!actor.is_active || actor.realm_id !== target.realm_id) return false
  return target.bot_owner_id === actor.id || isAdministrator(actor.role)
}

/**
 * Outcome of {@link canChangeRole}.
 *
 * @category models
 * @since 0.1.0
 */
export type RoleChangeDecision =
  | { readonly _tag: "Allowed" }
  | {
    readonly _tag: "Denied"
    readonly code: "UNAUTHORIZED_PRINCIPAL"
    readonly reason: typeof RoleErrors.ownerRequired | typeof RoleErrors.administratorRequired
  }

const allowed: RoleChangeDecision = { _tag: "Allowed" }

/**
 * Whether an actor may change a user's role from `from` to `to`, with Zulip's
 * refusal: when the owner role is granted or removed and the actor is not an
 * owner, "Must be an organization owner"; otherwise, when the actor is not an
 * administrator, "Must be an organization administrator". Leaving the role
 * unchanged is always allowed here (Zulip skips the role checks then). The
 * only-owner protection needs the organization's owner count: see
 * {@link removesOnlyOwner}.
 *
 * @category predicates
 * @since 0.1.0
 */
export const canChangeRole = (actor: Pick<User, "role">, from: Role, to: Role): RoleChangeDecision => {
  if (from === to) return allowed
  if ((isOwner(from) || isOwner(to)) && !isOwner(actor.role)) {
    return { _tag: "Denied", code: "UNAUTHORIZED_PRINCIPAL", reason: RoleErrors.ownerRequired }
  }
  if (!isAdministrator(actor.role)) {
    return { _tag: "Denied", code: "UNAUTHORIZED_PRINCIPAL", reason: RoleErrors.administratorRequired }
  }
  return allowed
}

/**
 * Whether giving `target` the role `to` (or deactivating them, with `to`
 * omitted) would leave the organization without a human owner. Zulip's
 * `check_last_owner`: the target is a human owner and the organization has
 * exactly one active human owner (bots holding the owner role do not count).
 * Refusal texts: {@link RoleErrors}.onlyOwnerDemotion / onlyOwnerDeactivation.
 *
 * @category predicates
 * @since 0.1.0
 */
export const removesOnlyOwner = (
  target: Pick<User, "role" | "is_bot">,
  activeHumanOwnerCount: number,
  to?: Role
): boolean => isOwner(target.role) && to !== Roles.owner && !target.is_bot && activeHumanOwnerCount === 1

const millisecondsPerDay = 24 * 60 * 60 * 1000

/**
 * Whether a user belongs in `role:fullmembers`: moderators and above always,
 * members once `waitingPeriodDays` whole days have passed since they joined,
 * guests and deactivated users never. Zulip compares whole days
 * (`timedelta.days`), so a member who joined 2.9 days ago with a 3-day
 * threshold is still provisional.
 *
 * @param now milliseconds since the epoch, like `User.date_joined`
 * @category predicates
 * @since 0.1.0
 */
export const isFullMember = (
  user: Pick<User, "role" | "is_active" | "date_joined">,
  waitingPeriodDays: number,
  now: number
): boolean => {
  if (!user.is_active || isGuest(user.role)) return false
  if (isModeratorOrAbove(user.role)) return true
  return Math.floor((now - user.date_joined) / millisecondsPerDay) >= waitingPeriodDays
}

/**
 * Refusal of an administrator's request about one user, checked in Zulip's
 * order by {@link administrationRefusal}, {@link roleChangeRefusal} and
 * {@link deactivationRefusal}. Texts are Zulip's.
 *
 * @category models
 * @since 0.1.0
 */
export type AdministrationRefusal =
  | "NoSuchUser"
  | "UserIsDeactivated"
  | "InsufficientPermission"
  | "OwnerRequired"
  | "AdministratorRequired"
  | "OnlyOwner"
  | "OnlyOwnerDeactivation"
  | "GuestCannotBeAdmin"

/**
 * Zulip's `access_user_by_id(..., for_admin=True)`: the target must be of
 * the actor's organization (else "No such user"), a bot only where `allowBots`
 * (else "No such user"), active unless `allowDeactivated` ("User is
 * deactivated"), and the actor must be able to manage them
 * ({@link canManageUser}; else "Insufficient permission").
 *
 * @category predicates
 * @since 0.1.0
 */
export const administrationRefusal = (
  actor: Actor,
  target: Target & Pick<User, "is_bot" | "is_active">,
  options: { readonly allowBots: boolean; readonly allowDeactivated: boolean }
): AdministrationRefusal | undefined => {
  if (actor.realm_id !== target.realm_id) return "NoSuchUser"
  if (target.is_bot && !options.allowBots) return "NoSuchUser"
  if (!target.is_active && !options.allowDeactivated) return "UserIsDeactivated"
  if (!canManageUser(actor, target)) return "InsufficientPermission"
  return undefined
}

/**
 * The role checks of `PATCH /users/{id}` after {@link administrationRefusal}:
 * {@link canChangeRole}, then the last-owner protection
 * ({@link removesOnlyOwner}), then the spec's refusal to make a guest an
 * administrator (owners are administrators too). Unchanged roles pass.
 *
 * @category predicates
 * @since 0.1.0
 */
export const roleChangeRefusal = (
  actor: Pick<User, "role">,
  target: Pick<User, "role" | "is_bot">,
  to: Role,
  activeHumanOwnerCount: number
): AdministrationRefusal | undefined => {
  if (target.role === to) return undefined
  const decision = canChangeRole(actor, target.role, to)
  if (decision._tag === "Denied") {
    return decision.reason === RoleErrors.ownerRequired ? "OwnerRequired" : "AdministratorRequired"
  }
  if (removesOnlyOwner(target, activeHumanOwnerCount, to)) return "OnlyOwner"
  if (isGuest(target.role) && isAdministrator(to)) return "GuestCannotBeAdmin"
  return undefined
}

/**
 * The checks of `DELETE /users/{id}` after {@link administrationRefusal}:
 * only owners deactivate owners, and the last human owner stays.
 *
 * @category predicates
 * @since 0.1.0
 */
export const deactivationRefusal = (
  actor: Pick<User, "role">,
  target: Pick<User, "role" | "is_bot">,
  activeHumanOwnerCount: number
): AdministrationRefusal | undefined => {
  if (isOwner(target.role) && !isOwner(actor.role)) return "OwnerRequired"
  if (removesOnlyOwner(target, activeHumanOwnerCount)) return "OnlyOwnerDeactivation"
  return undefined
}
