/**
 * Compare-and-set of a group setting under real concurrency on PostgreSQL:
 * many users each add themselves to a group's `can_mention_group` by
 * reading the value and PATCHing `{new: value + me, old: value}`, retrying
 * when `old` no longer matches. No update may be lost: every writer ends in
 * the value, each accepted change is one `update` event, and the accepted
 * changes form one chain (each one's `old` is the previous one's `new`).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { GroupSettingValue } from "../../src/domain/GroupSetting.ts"
import { isNamed } from "../../src/domain/GroupSetting.ts"
import type { UserId } from "../../src/domain/Ids.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import { GroupRepo } from "../../src/ports/Repositories.ts"
import { UserGroups } from "../../src/services/UserGroups.ts"
import { Users } from "../../src/services/Users.ts"
import { backends, makeOrg, openQueue, unique } from "../events/fixtures.ts"

const Writers = 24

const membersOf = (value: GroupSettingValue): ReadonlyArray<number> => isNamed(value) ? [] : value.direct_members

describe("group-setting compare-and-set on PostgreSQL", () => {
  layer(backends.PostgreSQL(), { timeout: "120 seconds" })((it) => {
    it.effect(`${Writers} writers add themselves to one setting at once: no update is lost`, () =>
      Effect.gen(function*() {
        const org = yield* makeOrg
        const users = yield* Users
        const groups = yield* UserGroups
        const repo = yield* GroupRepo
        const writers: Array<Principal> = yield* Effect.forEach(
          Array.from({ length: Writers }, (_, i) => i),
          (i) =>
            Effect.map(
              users.create(org.realm.id, { email: `w${i}@${org.realm.string_id}.test`, full_name: `W${i}`, role: 400 }),
              (user) => ({ realm: org.realm, user })
            )
        )
        const id = yield* groups.create(org.owner, { name: unique("cas"), description: "", members: [] })
        // Every writer may manage the group: the organization's owners plus an anonymous value of all of them.
        yield* groups.update(org.owner, id, {
          settings: {
            can_manage_group: { new: { direct_members: writers.map((w) => w.user.id), direct_subgroups: [] } },
            can_mention_group: { new: { direct_members: [], direct_subgroups: [] } }
          }
        })
        const observer = yield* openQueue(org.owner)
        yield* observer.drain
        let conflicts = 0
        const addSelf = (writer: Principal) =>
          Effect.gen(function*() {
            while (true) {
              const current = (yield* repo.findById(id))!.settings.can_mention_group
              const next = { direct_members: [...membersOf(current), writer.user.id], direct_subgroups: [] }
              const result = yield* Effect.result(
                groups.update(writer, id, { settings: { can_mention_group: { new: next, old: current } } })
              )
              if (result._tag === "Success") return
              assert.strictEqual(result.failure._tag, "ExpectationMismatch")
              conflicts++
            }
          })
        yield* Effect.forEach(writers, addSelf, { concurrency: "unbounded", discard: true })

        const final = (yield* repo.findById(id))!.settings.can_mention_group
        assert.deepStrictEqual(
          [...membersOf(final)].sort((a, b) => a - b),
          writers.map((w) => w.user.id as number).sort((a, b) => a - b)
        )
        const updates = (yield* observer.drain).filter((e) => e.type === "user_group" && e.op === "update")
        assert.strictEqual(updates.length, Writers)
        // One chain: each accepted value adds exactly one writer to the one before.
        let previous = new Set<number>()
        for (const event of updates) {
          const value = (event.data as { can_mention_group: { direct_members: ReadonlyArray<UserId> } }).can_mention_group
          const now = new Set<number>(value.direct_members)
          assert.strictEqual(now.size, previous.size + 1)
          for (const member of previous) assert.isTrue(now.has(member))
          previous = now
        }
        // The writers did race: some read a value another had already replaced.
        assert.isAbove(conflicts, 0)
      }))
  })
})
