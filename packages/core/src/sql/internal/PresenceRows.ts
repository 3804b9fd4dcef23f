/**
 * An organization's presence rows as the SQL repository keeps them between
 * reads: by user id, and in user id order, so a list (every ping reads up
 * to the whole organization) walks them without sorting.
 *
 * @internal
 */
import type { UserId } from "../../domain/Ids.ts"
import type { Presence } from "../../domain/Presence.ts"

export class PresenceRows {
  /** Sorted by user id. */
  private readonly rows: Array<Presence> = []
  private readonly positions = new Map<UserId, number>()

  get(userId: UserId): Presence | undefined {
    const at = this.positions.get(userId)
    return at === undefined ? undefined : this.rows[at]
  }

  /** Inserts or replaces the user's row. */
  set(row: Presence): void {
    const at = this.positions.get(row.user_id)
    if (at !== undefined) {
      this.rows[at] = row
      return
    }
    // A new user: usually the highest id, so the search ends at the end.
    let low = 0
    let high = this.rows.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.rows[mid]!.user_id < row.user_id) low = mid + 1
      else high = mid
    }
    this.rows.splice(low, 0, row)
    for (let i = low; i < this.rows.length; i++) this.positions.set(this.rows[i]!.user_id, i)
  }

  /** The rows in user id order. */
  values(): ReadonlyArray<Presence> {
    return this.rows
  }
}
