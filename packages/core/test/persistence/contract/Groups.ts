/** GroupRepo: rows, and members and subgroups. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { groupId } from "../../../src/domain/Ids.ts"
import type { UserGroup } from "../../../src/domain/UserGroup.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { GroupRepo, RealmRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import type { Vitest } from "@effect/vitest"
import { unique, anonymous, newRealm, newUser, groupSettings, newGroup, sortedMembership, seed } from "./fixtures.ts"

export const groupsTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  // --- groups ---------------------------------------------------------

  it.effect("GroupRepo: insert, find and update round-trip every field", () =>
    Effect.gen(function*() {
      const { realm, alice } = yield* seed
      const groups = yield* GroupRepo
      const system = yield* groups.insert(newGroup(realm.id, { name: "role:everyone", is_system_group: true }))
      const row = newGroup(realm.id, {
        creator_id: alice.id,
        date_created: 1_700_000_111_222,
        settings: groupSettings(system.id)
      })
      const named = yield* groups.insert(row)
      assert.deepStrictEqual(named, { ...row, id: named.id })
      assert.deepStrictEqual(yield* groups.findById(system.id), system)
      assert.deepStrictEqual(yield* groups.findById(named.id), named)
      assert.strictEqual(system.creator_id, null)
      assert.strictEqual(system.date_created, null)

      const updated: UserGroup = {
        ...named,
        name: "Renamed",
        description: "Now with a description",
        deactivated: true,
        creator_id: null,
        date_created: null,
        settings: {
          ...named.settings,
          can_join_group: groupId(system.id),
          can_mention_group: anonymous([alice.id], [system.id]),
          can_manage_group: anonymous([], [])
        }
      }
      yield* groups.update(updated)
      assert.deepStrictEqual(yield* groups.findById(named.id), updated)
      assert.deepStrictEqual(yield* groups.findByName(realm.id, "Renamed"), updated)
      assert.strictEqual(yield* groups.findByName(realm.id, row.name), undefined)

      yield* groups.update({ ...updated, id: groupId(named.id + 1000), name: unique("ghost") })
      assert.strictEqual(yield* groups.findById(groupId(named.id + 1000)), undefined)
    }))

  it.effect("GroupRepo: findByName matches exactly within the organization", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const groups = yield* GroupRepo
      const r1 = yield* realms.insert(newRealm())
      const r2 = yield* realms.insert(newRealm())
      const g1 = yield* groups.insert(newGroup(r1.id, { name: "Design" }))
      const g2 = yield* groups.insert(newGroup(r2.id, { name: "Design" }))
      assert.deepStrictEqual(yield* groups.findByName(r1.id, "Design"), g1)
      assert.deepStrictEqual(yield* groups.findByName(r2.id, "Design"), g2)
      assert.strictEqual(yield* groups.findByName(r1.id, "design"), undefined)
      assert.strictEqual(yield* groups.findByName(r1.id, "Design "), undefined)
      assert.strictEqual(yield* groups.findByName(r1.id, "Desig%"), undefined)
    }))

  it.effect("GroupRepo: listByRealm keeps organizations apart and orders by id", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const groups = yield* GroupRepo
      const r1 = yield* realms.insert(newRealm())
      const r2 = yield* realms.insert(newRealm())
      const a = yield* groups.insert(newGroup(r1.id, { is_system_group: true }))
      const b = yield* groups.insert(newGroup(r2.id))
      const c = yield* groups.insert(newGroup(r1.id, { deactivated: true }))
      assert.deepStrictEqual(yield* groups.listByRealm(r1.id), [a, c])
      assert.deepStrictEqual(yield* groups.listByRealm(r2.id), [b])
    }))

  it.effect("GroupRepo: insert with its first members and subgroups writes them with the group", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const users = yield* UserRepo
      const groups = yield* GroupRepo
      const realm = yield* realms.insert(newRealm())
      const [u1, u2] = [yield* users.insert(newUser(realm.id)), yield* users.insert(newUser(realm.id))]
      const sub = yield* groups.insert(newGroup(realm.id))
      const row = newGroup(realm.id)
      const group = yield* groups.insert(row, { members: [u2.id, u1.id, u2.id], subgroups: [sub.id] })
      assert.deepStrictEqual(group, { ...row, id: group.id })
      assert.deepStrictEqual(yield* groups.findById(group.id), group)
      const empty = yield* groups.insert(newGroup(realm.id), { members: [], subgroups: [] })
      assert.deepStrictEqual(sortedMembership(yield* groups.membership(realm.id)), {
        members: [[group.id, [u1.id, u2.id].sort((a, b) => a - b)]],
        subgroups: [[group.id, [sub.id]]]
      })
      assert.deepStrictEqual(yield* groups.findById(empty.id), { ...empty })
    }))

  it.effect("GroupRepo: members and subgroups are added idempotently, removed, and reported per organization", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const users = yield* UserRepo
      const groups = yield* GroupRepo
      const r1 = yield* realms.insert(newRealm())
      const r2 = yield* realms.insert(newRealm())
      const [u1, u2, u3] = [
        yield* users.insert(newUser(r1.id)),
        yield* users.insert(newUser(r1.id)),
        yield* users.insert(newUser(r1.id))
      ]
      const other = yield* users.insert(newUser(r2.id))
      const [g1, g2, g3] = [
        yield* groups.insert(newGroup(r1.id)),
        yield* groups.insert(newGroup(r1.id)),
        yield* groups.insert(newGroup(r1.id))
      ]
      const h = yield* groups.insert(newGroup(r2.id))

      assert.deepStrictEqual(sortedMembership(yield* groups.membership(r1.id)), { members: [], subgroups: [] })

      yield* groups.addMembers(g2.id, [u3.id, u1.id])
      yield* groups.addMembers(g1.id, [u2.id])
      yield* groups.addMembers(g2.id, [u1.id, u2.id, u2.id])
      yield* groups.addMembers(g3.id, [])
      yield* groups.addSubgroups(g3.id, [g2.id, g1.id])
      yield* groups.addSubgroups(g3.id, [g1.id])
      yield* groups.addSubgroups(g2.id, [g1.id])
      yield* groups.addMembers(h.id, [other.id])
      yield* groups.addSubgroups(h.id, [h.id])

      const expected: ReturnType<typeof sortedMembership> = {
        members: [[g1.id, [u2.id]], [g2.id, [u1.id, u2.id, u3.id]]],
        subgroups: [[g2.id, [g1.id]], [g3.id, [g1.id, g2.id]]]
      }
      const membership = yield* groups.membership(r1.id)
      assert.deepStrictEqual(sortedMembership(membership), expected)
      assert.deepStrictEqual(
        membership,
        {
          members: new Map([[g1.id, new Set([u2.id])], [g2.id, new Set([u1.id, u2.id, u3.id])]]),
          subgroups: new Map([[g2.id, new Set([g1.id])], [g3.id, new Set([g1.id, g2.id])]])
        }
      )
      assert.deepStrictEqual(sortedMembership(yield* groups.membership(r2.id)), {
        members: [[h.id, [other.id]]],
        subgroups: [[h.id, [h.id]]]
      })

      yield* groups.removeMembers(g2.id, [u2.id, u3.id, u3.id])
      yield* groups.removeMembers(g1.id, [u2.id])
      yield* groups.removeMembers(g1.id, [u1.id])
      yield* groups.removeMembers(g1.id, [])
      yield* groups.removeSubgroups(g3.id, [g1.id])
      yield* groups.removeSubgroups(g2.id, [g1.id, g3.id])
      yield* groups.removeSubgroups(g2.id, [])
      assert.deepStrictEqual(sortedMembership(yield* groups.membership(r1.id)), {
        members: [[g2.id, [u1.id]]],
        subgroups: [[g3.id, [g2.id]]]
      })
      // The other organization is untouched.
      assert.deepStrictEqual(sortedMembership(yield* groups.membership(r2.id)), {
        members: [[h.id, [other.id]]],
        subgroups: [[h.id, [h.id]]]
      })
    }))
}
