/**
 * How a user looks through the API to a given viewer: the `members` element
 * of GET /users, the own-user shape of GET /users/me, and the email rules
 * (placeholder `email`, `delivery_email` only for viewers allowed to see it).
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import type { ProfileData } from "../domain/CustomProfileField.ts"
import { LruMap } from "../domain/LruMap.ts"
import type { Realm } from "../domain/Realm.ts"
import { EmailVisibilities, isAdministrator, isGuest, isModeratorOrAbove, isOwner } from "../domain/Role.ts"
import type { BotType, Role } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"

/** The `members` element of GET /users. @category models */
export interface ApiUser {
  readonly email: string
  readonly user_id: number
  readonly avatar_version: number
  readonly is_admin: boolean
  readonly is_owner: boolean
  readonly is_guest: boolean
  readonly is_bot: boolean
  readonly role: Role
  readonly timezone: string
  readonly is_active: boolean
  readonly date_joined: string
  readonly delivery_email: string | null
  readonly avatar_url: string | null
  readonly full_name: string
  /** `null` for people. */
  readonly bot_type: BotType | null
  /** Bots only. */
  readonly bot_owner_id?: number | null
  readonly profile_data?: ProfileData
}

/** GET /users/me. @category models */
export interface OwnUser {
  readonly avatar_url: string
  readonly avatar_version: number
  readonly email: string
  readonly full_name: string
  readonly is_admin: boolean
  readonly is_owner: boolean
  readonly role: Role
  readonly is_guest: boolean
  readonly is_bot: boolean
  readonly is_active: boolean
  readonly timezone: string
  readonly date_joined: string
  readonly max_message_id: number
  readonly user_id: number
  readonly delivery_email: string
  readonly profile_data?: ProfileData
}

/** @category options */
export interface ViewOptions {
  /** When true, gravatar-hosted avatars are reported as null for users whose email the viewer can see. */
  readonly clientGravatar: boolean
  readonly includeCustomProfileFields: boolean
}

/**
 * Whether `viewer` may see `target`'s real address; `undefined` viewer is an
 * unauthenticated spectator.
 *
 * @category rules
 */
export const canAccessDeliveryEmail = (viewer: User | undefined, target: User): boolean => {
  if (target.is_bot) return true
  if (viewer !== undefined && viewer.id === target.id) return true
  switch (target.email_address_visibility) {
    case EmailVisibilities.everyone:
      return true
    case EmailVisibilities.members:
      return viewer !== undefined && !isGuest(viewer.role)
    case EmailVisibilities.administrators:
      return viewer !== undefined && isAdministrator(viewer.role)
    case EmailVisibilities.moderators:
      return viewer !== undefined && isModeratorOrAbove(viewer.role)
    case EmailVisibilities.nobody:
      return false
  }
}

/** Formatted instants and gravatar hashes kept, each (docs/memory.md). */
export const keptFormats = 10_000

// Join dates are formatted on every view of a user; the least recently used dropped past `keptFormats`.
const isoDates = new LruMap<number, string>(keptFormats)

/**
 * Zulip's `isoformat()` text for a UTC instant: microseconds and `+00:00`.
 *
 * @category formatting
 */
export const isoDate = (millis: number): string => {
  let text = isoDates.get(millis)
  if (text === undefined) {
    // `toISOString` always ends in `.sssZ`.
    const iso = new Date(millis).toISOString()
    text = `${iso.slice(0, -1)}000+00:00`
    isoDates.set(millis, text)
  }
  return text
}

// Gravatar hashes by address; bounded (`keptFormats`), as addresses come and go.
const gravatarHashes = new LruMap<string, string>(keptFormats)

const gravatarHash = (email: string): string => {
  let hash = gravatarHashes.get(email)
  if (hash === undefined) {
    hash = createHash("md5").update(email.toLowerCase()).digest("hex")
    gravatarHashes.set(email, hash)
  }
  return hash
}

/** @category formatting */
export const avatarUrl = (user: User, _realm: Realm): string =>
  // Uploaded avatars arrive with the uploads feature; until then every user
  // has the third-party (gravatar) avatar derived from the real address.
  `https://secure.gravatar.com/avatar/${gravatarHash(user.delivery_email)}?d=identicon&version=${user.avatar_version}`

/** The medium-size avatar (`avatar_url_medium`): gravatar's 500-pixel image. @category formatting */
export const avatarUrlMedium = (user: User, realm: Realm): string =>
  avatarUrl(user, realm).replace("?d=identicon", "?d=identicon&s=500")

/**
 * `profileData` is the user's custom profile field values, shown to people
 * only and only when `includeCustomProfileFields`.
 *
 * @category views
 */
export const toApiUser = (
  realm: Realm,
  viewer: User | undefined,
  user: User,
  options: ViewOptions,
  profileData: ProfileData = {}
): ApiUser => {
  const emailVisible = canAccessDeliveryEmail(viewer, user)
  const base: ApiUser = {
    email: user.email,
    user_id: user.id,
    avatar_version: user.avatar_version,
    is_admin: isAdministrator(user.role),
    is_owner: isOwner(user.role),
    is_guest: isGuest(user.role),
    is_bot: user.is_bot,
    role: user.role,
    timezone: user.timezone,
    is_active: user.is_active,
    date_joined: isoDate(user.date_joined),
    delivery_email: emailVisible ? user.delivery_email : null,
    avatar_url: options.clientGravatar && emailVisible && user.avatar_source === "G" ? null : avatarUrl(user, realm),
    full_name: user.full_name,
    bot_type: user.is_bot ? user.bot_type : null
  }
  if (user.is_bot) return { ...base, bot_owner_id: user.bot_owner_id }
  if (options.includeCustomProfileFields) return { ...base, profile_data: profileData }
  return base
}

/** @category views */
export const toOwnUser = (realm: Realm, user: User, maxMessageId: number, profileData: ProfileData = {}): OwnUser => {
  const own: OwnUser = {
    avatar_url: avatarUrl(user, realm),
    avatar_version: user.avatar_version,
    email: user.email,
    full_name: user.full_name,
    is_admin: isAdministrator(user.role),
    is_owner: isOwner(user.role),
    role: user.role,
    is_guest: isGuest(user.role),
    is_bot: user.is_bot,
    is_active: user.is_active,
    timezone: user.timezone,
    date_joined: isoDate(user.date_joined),
    max_message_id: maxMessageId,
    user_id: user.id,
    delivery_email: user.delivery_email
  }
  return user.is_bot ? own : { ...own, profile_data: profileData }
}

/**
 * The "Unknown user" placeholder Zulip sends about a user the viewer cannot
 * access (clients without the `user_list_incomplete` capability).
 *
 * @category views
 */
export const inaccessibleUser = (realm: Realm, userId: number): ApiUser => ({
  email: `user${userId}@${realm.fake_email_domain}`,
  user_id: userId,
  avatar_version: 1,
  is_admin: false,
  is_owner: false,
  is_guest: false,
  is_bot: false,
  role: 400,
  timezone: "",
  is_active: true,
  date_joined: isoDate(realm.date_created),
  delivery_email: null,
  avatar_url: `${realm.url}/static/images/unknown-user-avatar.png`,
  full_name: "Unknown user",
  bot_type: null,
  profile_data: {}
})
