/**
 * The push device rows (port): one per user and `push_account_id`.
 * Implemented by `memory/MemoryPushDeviceRepo.ts` and
 * `sql/SqlPushDeviceRepo.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { PushDevice } from "../domain/PushDevice.ts"

/** What the bouncer's answer writes on a pending row. @category models */
export type PushDeviceOutcome =
  | { readonly _tag: "Registered"; readonly bouncer_device_id: number }
  | { readonly _tag: "Failed"; readonly error_code: string }

/** @category services */
export class PushDeviceRepo extends Context.Service<PushDeviceRepo, {
  /** The user's row for that account; on SQL it stays locked for the rest of the transaction. */
  find(userId: UserId, pushAccountId: number): Effect.Effect<PushDevice | undefined>
  /** Inserts or replaces the row of `device.user_id` and `device.push_account_id`. */
  upsert(device: PushDevice): Effect.Effect<void>
  /**
   * Writes the bouncer's answer on the row if it is still pending (and
   * empties its ciphertext); returns the updated row, or undefined when
   * there is no pending row.
   */
  settle(userId: UserId, pushAccountId: number, outcome: PushDeviceOutcome): Effect.Effect<PushDevice | undefined>
  /**
   * Every pending row with its ciphertext, of every organization (the
   * registrations to send again after a restart), by user and account.
   */
  listPending(): Effect.Effect<ReadonlyArray<{ readonly realm_id: RealmId; readonly device: PushDevice }>>
  /** The user's rows, by `push_account_id`. */
  listByUser(userId: UserId): Effect.Effect<ReadonlyArray<PushDevice>>
}>()("teamchat/core/ports/PushDeviceRepo") {}
