/**
 * Reusable invitation links (Zulip's MultiuseInvite with its confirmation
 * key): what a link grants to whoever joins through it, and how it reads
 * through GET /invites.
 *
 * A link is usable while it is neither revoked nor past its expiry (`null`:
 * never expires). The key is the secret part of the link, 24 characters of
 * [a-z0-9] as Zulip's confirmation keys.
 *
 * @since 0.1.0
 */
import { createHash, timingSafeEqual } from "node:crypto"
import type { ChannelId, GroupId, InvitationId, RealmId, UserId } from "./Ids.ts"
import type { Role } from "./Role.ts"

/** The length of an invitation key. @category constants */
export const InvitationKeyLength = 24

/** The alphabet of invitation keys. @category constants */
export const InvitationKeyAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

/** Whether `key` has the shape of an invitation key. @category predicates */
export const isWellFormedKey = (key: string): boolean => /^[a-z0-9]{24}$/.test(key)

/**
 * The SHA-256 of a key (hex): links are found by it, so the lookup's timing
 * says nothing about how much of a guessed key was right.
 *
 * @category constructors
 */
export const keyHash = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex")

/** Whether two keys are equal, compared in constant time. @category predicates */
export const sameKey = (a: string, b: string): boolean => {
  const x = Buffer.from(a, "utf8")
  const y = Buffer.from(b, "utf8")
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Zulip's INVITATION_LINK_VALIDITY_MINUTES default (10 days). @category constants */
export const DefaultValidityMinutes = 14400

/**
 * The largest `invite_expires_in_minutes` accepted: the span of Python's
 * `timedelta` (999,999,999 days), beyond which Zulip cannot compute an expiry.
 *
 * @category constants
 */
export const MaxValidityMinutes = 999_999_999 * 24 * 60

/** `welcome_message_custom_text`'s limit (Zulip's MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH). @category constants */
export const MaxWelcomeMessageLength = 8000

/** @category models */
export interface Invitation {
  readonly id: InvitationId
  readonly realm_id: RealmId
  /** Who made the link. */
  readonly referrer_id: UserId
  readonly key: string
  readonly invited_as: Role
  /** Channels joined besides the organization's defaults (when asked for). */
  readonly stream_ids: ReadonlyArray<ChannelId>
  readonly group_ids: ReadonlyArray<GroupId>
  readonly include_realm_default_subscriptions: boolean
  /** `null`: the organization's default welcome message; "": no custom text. */
  readonly welcome_message_custom_text: string | null
  /** Milliseconds since the epoch. */
  readonly created: number
  /** Milliseconds since the epoch; `null`: never expires. */
  readonly expires: number | null
  readonly revoked: boolean
}

/** Whether the link can still be used at `now` (milliseconds). @category predicates */
export const isUsable = (invitation: Invitation, now: number): boolean =>
  !invitation.revoked && (invitation.expires === null || invitation.expires >= now)

/**
 * The expiry that ends a link at `now` (a link is usable through its expiry
 * millisecond). Deactivating a user ends their links so, as Zulip's
 * `revoke_invites_generated_by_user` sets their expiry to the present.
 *
 * @category rules
 */
export const expiryEndingAt = (now: number): number => now - 1

/** What is wrong with a link that cannot be used. @category models */
export type UnusableReason = "unknown" | "expired" | "revoked"

/** The link of an invitation of the organization at `realmUrl`. @category constructors */
export const linkUrl = (realmUrl: string, key: string): string => `${realmUrl.replace(/\/+$/, "")}/join/${key}/`

/** An element of GET /invites' `invites` for a reusable link. @category models */
export interface ApiInvitation {
  readonly invited_by_user_id: number
  readonly invited: number
  readonly expiry_date: number | null
  readonly id: number
  readonly link_url: string
  readonly invited_as: number
  readonly is_multiuse: true
}

/** How GET /invites shows an invitation (times in UTC seconds). @category views */
export const toApiInvitation = (invitation: Invitation, realmUrl: string): ApiInvitation => ({
  invited_by_user_id: invitation.referrer_id,
  invited: Math.floor(invitation.created / 1000),
  expiry_date: invitation.expires === null ? null : Math.floor(invitation.expires / 1000),
  id: invitation.id,
  link_url: linkUrl(realmUrl, invitation.key),
  invited_as: invitation.invited_as,
  is_multiuse: true
})
