/**
 * Users: people and bots, with the real `delivery_email` kept apart from the
 * API `email` clients see.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { RealmId, UserId } from "./Ids.ts"
import { BotType, EmailVisibility, Role } from "./Role.ts"

/** @category models */
export const AvatarSource = Schema.Literals(["G", "U"])
/** @category models */
export type AvatarSource = typeof AvatarSource.Type

/** @category models */
export const User = Schema.Struct({
  id: UserId,
  realm_id: RealmId,
  /** The real address, case kept as entered. */
  delivery_email: Schema.String,
  /**
   * The API address: the real one when the user's email visibility is
   * "everyone" (and always for bots), else the placeholder `user{id}@{domain}`.
   */
  email: Schema.String,
  full_name: Schema.String,
  role: Role,
  is_bot: Schema.Boolean,
  bot_type: Schema.NullOr(BotType),
  bot_owner_id: Schema.NullOr(UserId),
  is_active: Schema.Boolean,
  timezone: Schema.String,
  avatar_source: AvatarSource,
  avatar_version: Schema.Int,
  /** Milliseconds since the epoch. */
  date_joined: Schema.Int,
  email_address_visibility: EmailVisibility,
  api_key: Schema.String,
  /** `scrypt$N$r$p$salt$hash` or null when the account has no password. */
  password_hash: Schema.NullOr(Schema.String),
  /**
   * Zulip's special permission `can_change_user_emails`: with an
   * administrator's role, the user may change other users' addresses
   * (`new_email` on PATCH /users/{id}). Granted by the server's operator (the
   * CLI), never through the API.
   */
  can_change_user_emails: Schema.Boolean
})
/** @category models */
export type User = typeof User.Type

/** @category constructors */
export const placeholderEmail = (id: UserId, fakeEmailDomain: string): string => `user${id}@${fakeEmailDomain}`
