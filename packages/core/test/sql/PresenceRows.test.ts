/**
 * The SQL presence repository's kept rows: by user id, and walked in user
 * id order whatever order the rows arrive in.
 */
import { assert, describe, it } from "@effect/vitest"
import { realmId, userId } from "../../src/domain/Ids.ts"
import type { Presence } from "../../src/domain/Presence.ts"
import { PresenceRows } from "../../src/sql/internal/PresenceRows.ts"

const row = (user: number, updateId: number): Presence => ({
  user_id: userId(user),
  realm_id: realmId(1),
  last_active_time: updateId * 1000,
  last_connected_time: updateId * 1000,
  last_update_id: updateId
})

describe("PresenceRows", () => {
  it("keeps one row per user, replaced in place, in user id order", () => {
    const rows = new PresenceRows()
    const arrivals = [7, 3, 9, 1, 5, 3, 10, 2, 7]
    arrivals.forEach((user, i) => rows.set(row(user, i + 1)))
    assert.deepStrictEqual(rows.values().map((r) => [r.user_id as number, r.last_update_id]), [
      [1, 4], [2, 8], [3, 6], [5, 5], [7, 9], [9, 3], [10, 7]
    ])
    assert.deepStrictEqual(rows.get(userId(3)), row(3, 6))
    assert.deepStrictEqual(rows.get(userId(7)), row(7, 9))
    assert.isUndefined(rows.get(userId(4)))
    // A user inserted in the middle moves the others' places; each is still found.
    rows.set(row(4, 11))
    for (const r of rows.values()) assert.strictEqual(rows.get(r.user_id), r)
    assert.deepStrictEqual(rows.values().map((r) => r.user_id as number), [1, 2, 3, 4, 5, 7, 9, 10])
  })
})
