/**
 * The presence rows (port): one per user who ever reported presence, each
 * stamped with the organization's presence sequence when written, so a
 * client can ask for what changed since the id it holds. Implemented by
 * `memory/MemoryPresenceRepo.ts` and `sql/SqlPresenceRepo.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { RealmId, UserId } from "../domain/Ids.ts"
import type { Presence, PresenceTimes } from "../domain/Presence.ts"

/** A presence row with what the API shows of its user. @category models */
export interface PresenceOfUser {
  readonly presence: Presence
  readonly email: string
  /** Milliseconds; stands in for a time the row lacks. */
  readonly date_joined: number
}

/** Which rows `list` returns. @category models */
export interface PresenceFilter {
  /** Only rows written after this update id. */
  readonly afterUpdateId?: number | undefined
  /** Only rows connected at or after this time (milliseconds). */
  readonly connectedSince?: number | undefined
}

/**
 * The rows of `rows` that `filter` keeps, by user id: what `list` answers,
 * for implementations that hold the rows in memory.
 *
 * @category filters
 */
export const selectRows = (rows: Iterable<Presence>, filter: PresenceFilter): Array<Presence> => {
  const out: Array<Presence> = []
  for (const row of rows) {
    if (filter.afterUpdateId !== undefined && row.last_update_id <= filter.afterUpdateId) continue
    if (
      filter.connectedSince !== undefined &&
      (row.last_connected_time === null || row.last_connected_time < filter.connectedSince)
    ) continue
    out.push(row)
  }
  return out.sort((a, b) => a.user_id - b.user_id)
}

/** @category services */
export class PresenceRepo extends Context.Service<PresenceRepo, {
  /**
   * The user's row. On SQL the row is locked for the rest of the
   * transaction, so concurrent pings of one user apply one after the other.
   */
  find(userId: UserId): Effect.Effect<Presence | undefined>
  /**
   * Inserts or replaces the user's row with `times`, stamped with the
   * organization's next presence update id, which it returns.
   */
  write(realmId: RealmId, userId: UserId, times: PresenceTimes): Effect.Effect<number>
  /**
   * The user's row as this process last read it, for a ping's first guess
   * (on SQL no statement once the organization's rows were read: it may lag
   * concurrent writes and other processes, which `writeIfUnchanged`
   * catches). Undefined when the user has no row. Called outside
   * transactions.
   */
  latest(realmId: RealmId, userId: UserId): Effect.Effect<Presence | undefined>
  /**
   * A ping's write decided without a lock, in one atomic step: replaces the
   * user's row with `times` and the organization's next update id (which
   * it returns) only if the row is still the one stamped `expectedUpdateId`
   * and the user's `presence_enabled` setting is on. Undefined when nothing
   * was written; the caller then takes the locked path (`find`, `write`).
   * Outside a transaction the write commits on its own before this answers
   * (on SQL in one statement with the writes of the pings waiting at the
   * same moment: a group commit); inside one it is part of it.
   */
  writeIfUnchanged(
    realmId: RealmId,
    userId: UserId,
    expectedUpdateId: number,
    times: PresenceTimes
  ): Effect.Effect<number | undefined>
  /**
   * The organization's rows, by user id, whatever their users (the caller
   * keeps those of active people, from the access state it holds): every
   * ping reads up to the whole organization, so this reads the presence
   * table alone. Outside a transaction the rows are those committed before
   * the call, or, given `committedThrough` (the update id of the caller's
   * own write, committed), those committed up to that write: presence ids
   * commit in order, so that is every row committed before it.
   */
  list(realmId: RealmId, filter: PresenceFilter, committedThrough?: number): Effect.Effect<ReadonlyArray<Presence>>
  /** One user's row with its user, whatever the user. */
  findOfUser(userId: UserId): Effect.Effect<PresenceOfUser | undefined>
}>()("teamchat/core/ports/PresenceRepo") {}
