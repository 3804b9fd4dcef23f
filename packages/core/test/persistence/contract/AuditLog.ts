/**
 * The audit log's rows: ids in the order given, every column and nested
 * `extra_data` kept, each organization's rows only, the newest `limit` read
 * back oldest first, one type at a time, and nothing left by a rollback.
 */
import { assert } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { AuditLogEntry } from "../../../src/domain/AuditLog.ts"
import type { RealmId } from "../../../src/domain/Ids.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { AuditLogRepo } from "../../../src/ports/AuditLogRepo.ts"
import { ChannelRepo, GroupRepo, RealmRepo } from "../../../src/ports/Repositories.ts"
import type { Insert } from "../../../src/ports/Repositories.ts"
import { Transactor } from "../../../src/ports/Transactor.ts"
import { Boom, newChannel, newGroup, newRealm, seed } from "./fixtures.ts"

const row = (
  realm: RealmId,
  event_type: AuditLogEntry["event_type"],
  overrides: Partial<Insert<AuditLogEntry>> = {}
): Insert<AuditLogEntry> => ({
  realm_id: realm,
  acting_user_id: null,
  modified_user_id: null,
  modified_stream_id: null,
  modified_user_group_id: null,
  event_type,
  event_time: 1_700_000_000_123,
  extra_data: {},
  ...overrides
})

const withoutIds = (rows: ReadonlyArray<AuditLogEntry>) => rows.map(({ id: _, ...rest }) => rest)

export const auditLogTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  it.effect("audit log: every column kept, ids in the order given, each organization's rows only", () =>
    Effect.gen(function*() {
      const repo = yield* AuditLogRepo
      const { alice, bob, realm } = yield* seed
      const other = yield* (yield* RealmRepo).insert(newRealm())
      const channel = yield* (yield* ChannelRepo).insert(newChannel(realm.id))
      const group = yield* (yield* GroupRepo).insert(newGroup(realm.id))
      const rows = [
        row(realm.id, "user_role_changed", {
          acting_user_id: alice.id,
          modified_user_id: bob.id,
          event_time: 1_700_000_000_456,
          extra_data: { old_value: 400, new_value: 200 }
        }),
        row(other.id, "realm_created"),
        row(realm.id, "subscription_property_changed", {
          acting_user_id: bob.id,
          modified_user_id: bob.id,
          modified_stream_id: channel.id,
          extra_data: { property: "color", old_value: "#76ce90", new_value: "#ff0000" }
        }),
        row(realm.id, "user_group_group_based_setting_changed", {
          acting_user_id: alice.id,
          modified_user_group_id: group.id,
          // Nested values, unicode, null and a large time survive.
          event_time: 8_640_000_000_000_000,
          extra_data: {
            property: "can_manage_group",
            old_value: { direct_members: [alice.id], direct_subgroups: [] },
            new_value: 7,
            note: "Zoë \u2192 \"quoted\"",
            nothing: null
          }
        })
      ]
      yield* repo.insertMany(rows)
      const mine = yield* repo.list(realm.id, { limit: 100 })
      assert.deepStrictEqual(withoutIds(mine), [rows[0], rows[2], rows[3]])
      for (let i = 1; i < mine.length; i++) assert.isTrue(mine[i]!.id > mine[i - 1]!.id)
      assert.deepStrictEqual(withoutIds(yield* repo.list(other.id, { limit: 100 })), [rows[1]])
      // Nothing to write is no write.
      yield* repo.insertMany([])
      assert.lengthOf(yield* repo.list(realm.id, { limit: 100 }), 3)
    }))

  it.effect("audit log: the newest `limit` rows, oldest first, optionally of one type", () =>
    Effect.gen(function*() {
      const repo = yield* AuditLogRepo
      const { alice, realm } = yield* seed
      const user = (n: number) => ({ modified_user_id: alice.id, extra_data: { n } })
      yield* repo.insertMany([
        row(realm.id, "user_created", user(1)),
        row(realm.id, "user_deactivated", user(2)),
        row(realm.id, "user_reactivated", user(3))
      ])
      yield* repo.insertMany([row(realm.id, "user_deactivated", user(4)), row(realm.id, "user_reactivated", user(5))])
      const ns = (rows: ReadonlyArray<AuditLogEntry>) => rows.map((r) => r.extra_data.n)
      assert.deepStrictEqual(ns(yield* repo.list(realm.id, { limit: 100 })), [1, 2, 3, 4, 5])
      assert.deepStrictEqual(ns(yield* repo.list(realm.id, { limit: 2 })), [4, 5])
      assert.deepStrictEqual(ns(yield* repo.list(realm.id, { limit: 100, eventType: "user_deactivated" })), [2, 4])
      assert.deepStrictEqual(ns(yield* repo.list(realm.id, { limit: 1, eventType: "user_reactivated" })), [5])
      assert.deepStrictEqual(ns(yield* repo.list(realm.id, { limit: 100, eventType: "stream_created" })), [])
    }))

  it.effect("audit log: a rolled-back transaction leaves no row", () =>
    Effect.gen(function*() {
      const repo = yield* AuditLogRepo
      const { alice, realm } = yield* seed
      const exit = yield* (yield* Transactor).withTransaction(Effect.gen(function*() {
        yield* repo.insertMany([row(realm.id, "user_api_key_changed", { modified_user_id: alice.id })])
        return yield* new Boom()
      })).pipe(Effect.exit)
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(yield* repo.list(realm.id, { limit: 100 }), [])
    }))
}
