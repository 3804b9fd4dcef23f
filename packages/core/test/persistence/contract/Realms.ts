/** RealmRepo. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { groupId, realmId } from "../../../src/domain/Ids.ts"
import type { Realm } from "../../../src/domain/Realm.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { RealmRepo } from "../../../src/ports/Repositories.ts"
import type { Vitest } from "@effect/vitest"
import { unique, anonymous, newRealm, ids } from "./fixtures.ts"

export const realmsTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  // --- realms ---------------------------------------------------------

  it.effect("RealmRepo: insert, find and update round-trip every field", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const row = newRealm()
      const realm = yield* realms.insert(row)
      assert.deepStrictEqual(realm, { ...row, id: realm.id })
      assert.deepStrictEqual(yield* realms.findById(realm.id), realm)
      assert.deepStrictEqual(yield* realms.findByStringId(row.string_id), realm)

      const updated: Realm = {
        ...realm,
        name: "Renamed — ünïcode ✓",
        description: "",
        url: "https://chat.example.com",
        fake_email_domain: "chat.example.com",
        deactivated: true,
        demo: true,
        date_created: 1_800_000_000_999,
        settings: {
          ...realm.settings,
          email_address_visibility: 4,
          enable_spectator_access: true,
          waiting_period_threshold: 90,
          message_retention_days: -1,
          topics_policy: "disable_empty_topic",
          can_access_all_users_group: anonymous([3, 1], [2]),
          can_create_groups: groupId(9),
          can_mention_many_users_group: anonymous([], [])
        }
      }
      yield* realms.update(updated)
      assert.deepStrictEqual(yield* realms.findById(realm.id), updated)
      assert.deepStrictEqual(yield* realms.findByStringId(row.string_id), updated)

      const back: Realm = { ...updated, settings: { ...updated.settings, message_retention_days: null } }
      yield* realms.update(back)
      assert.deepStrictEqual(yield* realms.findById(realm.id), back)
    }))

  it.effect("RealmRepo: unknown ids and string ids find nothing; updating an unknown id creates nothing", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const realm = yield* realms.insert(newRealm())
      const missing = realmId(realm.id + 1000)
      assert.strictEqual(yield* realms.findById(missing), undefined)
      assert.strictEqual(yield* realms.findByStringId(unique("nope")), undefined)
      assert.strictEqual(yield* realms.findByStringId(realm.string_id.toUpperCase()), undefined)
      yield* realms.update({ ...realm, id: missing })
      assert.strictEqual(yield* realms.findById(missing), undefined)
      assert.deepStrictEqual(yield* realms.findById(realm.id), realm)
    }))

  it.effect("RealmRepo: list is ordered by id", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const a = yield* realms.insert(newRealm())
      const b = yield* realms.insert(newRealm())
      const c = yield* realms.insert(newRealm())
      const all = yield* realms.list
      const sorted = [...ids(all)].sort((x, y) => x - y)
      assert.deepStrictEqual(ids(all), sorted)
      assert.deepStrictEqual(all.filter((r) => [a.id, b.id, c.id].includes(r.id)), [a, b, c])
    }))
}
