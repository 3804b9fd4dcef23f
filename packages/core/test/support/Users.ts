/**
 * A user record for pure rule tests: id `id`, the given role, active, a
 * person, in organization 1; `overrides` for the rest.
 */
import { realmId, userId } from "../../src/domain/Ids.ts"
import type { Role } from "../../src/domain/Role.ts"
import type { User } from "../../src/domain/User.ts"

export const makeUser = (id: number, role: Role, overrides: Partial<User> = {}): User => ({
  id: userId(id),
  realm_id: realmId(1),
  delivery_email: `user${id}@example.com`,
  email: `user${id}@example.com`,
  full_name: `User ${id}`,
  role,
  is_bot: false,
  bot_type: null,
  bot_owner_id: null,
  is_active: true,
  timezone: "UTC",
  avatar_source: "G",
  avatar_version: 1,
  date_joined: 0,
  email_address_visibility: 1,
  api_key: `key${id}`,
  password_hash: null,
  can_change_user_emails: false,
  ...overrides
})
