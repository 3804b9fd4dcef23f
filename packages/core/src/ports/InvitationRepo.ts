/**
 * The reusable invitation links (port). Implemented by
 * `memory/MemoryInvitationRepo.ts` and `sql/SqlInvitationRepo.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { InvitationId, RealmId, UserId } from "../domain/Ids.ts"
import type { Invitation } from "../domain/Invitation.ts"
import type { Insert } from "./Repositories.ts"

/** @category services */
export class InvitationRepo extends Context.Service<InvitationRepo, {
  insert(invitation: Insert<Invitation>): Effect.Effect<Invitation>
  findById(id: InvitationId): Effect.Effect<Invitation | undefined>
  /**
   * `findById` under a row lock held until the current transaction ends,
   * for a read a write is decided on (a revocation): a concurrent one waits
   * and then sees it.
   */
  findByIdForUpdate(id: InvitationId): Effect.Effect<Invitation | undefined>
  /** The invitation whose key hashes to `keyHash` (SHA-256, hex). */
  findByKeyHash(keyHash: string): Effect.Effect<Invitation | undefined>
  /** The organization's invitations, by id. */
  listByRealm(realmId: RealmId): Effect.Effect<ReadonlyArray<Invitation>>
  /** Marks the invitation revoked. */
  revoke(id: InvitationId): Effect.Effect<void>
  /**
   * Sets the expiry of every link `referrerId` made in `realmId` that is
   * neither revoked nor expired at `expires` to `expires`; how many changed.
   */
  expireByReferrer(realmId: RealmId, referrerId: UserId, expires: number): Effect.Effect<number>
}>()("teamchat/core/ports/InvitationRepo") {}
