/**
 * Organization roles with Zulip's integer codes, and the pure predicates the
 * permission rules are built from. A lower code is a more powerful role.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** @category models */
export const Role = Schema.Literals([100, 200, 300, 400, 600])
/** @category models */
export type Role = typeof Role.Type

/** @category constants */
export const Roles = {
  owner: 100,
  administrator: 200,
  moderator: 300,
  member: 400,
  guest: 600
} as const satisfies Record<string, Role>

/** @category predicates */
export const isRole = (n: number): n is Role => n === 100 || n === 200 || n === 300 || n === 400 || n === 600

/** @category predicates */
export const isOwner = (role: Role): boolean => role === Roles.owner
/** Owners are administrators too. @category predicates */
export const isAdministrator = (role: Role): boolean => role <= Roles.administrator
/** @category predicates */
export const isModeratorOrAbove = (role: Role): boolean => role <= Roles.moderator
/** @category predicates */
export const isMemberOrAbove = (role: Role): boolean => role <= Roles.member
/** @category predicates */
export const isGuest = (role: Role): boolean => role === Roles.guest

/**
 * Bot types: 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded.
 *
 * @category models
 */
export const BotType = Schema.Literals([1, 2, 3, 4])
/** @category models */
export type BotType = typeof BotType.Type

/** @category constants */
export const BotTypes = { generic: 1, incomingWebhook: 2, outgoingWebhook: 3, embedded: 4 } as const satisfies Record<
  string,
  BotType
>

/**
 * Who may see a user's real email address (a per-user setting since feature
 * level 163): 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators.
 *
 * @category models
 */
export const EmailVisibility = Schema.Literals([1, 2, 3, 4, 5])
/** @category models */
export type EmailVisibility = typeof EmailVisibility.Type

/** @category constants */
export const EmailVisibilities = {
  everyone: 1,
  members: 2,
  administrators: 3,
  nobody: 4,
  moderators: 5
} as const satisfies Record<string, EmailVisibility>
