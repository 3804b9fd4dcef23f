/**
 * The status rows (port): one per user who ever set a status. Implemented by
 * `memory/MemoryUserStatusRepo.ts` and `sql/SqlUserStatusRepo.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { UserStatus } from "../domain/UserStatus.ts"

/** A status row with its user's `presence_enabled` setting (the API's `away`). @category models */
export interface StatusWithPresenceSetting {
  readonly status: UserStatus
  readonly presence_enabled: boolean
}

/** @category services */
export class UserStatusRepo extends Context.Service<UserStatusRepo, {
  find(userId: UserId): Effect.Effect<UserStatus | undefined>
  /** Inserts or replaces the user's row. */
  upsert(status: UserStatus): Effect.Effect<void>
  /** The rows of the organization's active users, by user id. */
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<StatusWithPresenceSetting>>
}>()("teamchat/core/ports/UserStatusRepo") {}
