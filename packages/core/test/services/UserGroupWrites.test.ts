/**
 * Creating a user group builds its `user_group add` event from the values in
 * hand (the inserted row, the members and subgroups it was given and
 * checked), as Zulip's `do_create_user_group` does, instead of reading the
 * organization again after the insert (issue #33: 15 statements). On SQL the
 * creation is at most 5 statements: the group-write lock, the access version
 * (the organization as authentication read it), the group with its members
 * and subgroups, and the event.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { UserGroups } from "../../src/services/UserGroups.ts"
import { backends, makeOrg, openQueue, unique, withoutIds } from "../events/fixtures.ts"
import { statementsOf } from "../support/Statements.ts"

for (const backend of ["memory", "PGlite", "PostgreSQL"] as const) {
  describe(`user group creation on ${backend}`, () => {
    layer(backends[backend](), { timeout: "120 seconds" })((it) => {
      it.effect("POST /user_groups/create: the add event is the group as listed; on SQL at most 5 statements", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const groups = yield* UserGroups
          const subgroup = yield* groups.create(org.owner, { name: unique("sub"), description: "", members: [] })
          const queue = yield* openQueue(org.admin, { event_types: ["user_group"] })
          yield* queue.drain
          // What authentication does first: the organization's read, kept while nothing changes.
          yield* groups.list(org.owner, { includeDeactivated: false })
          const name = unique("team")
          const created = yield* statementsOf(groups.create(org.owner, {
            name,
            description: "A team",
            members: [org.other.user.id, org.member.user.id, org.other.user.id],
            subgroups: [subgroup]
          }))
          if (backend !== "memory") assert.isAtMost(created.statements.length, 5, created.statements.join("\n"))
          const listed = (yield* groups.list(org.owner, { includeDeactivated: false })).find((g) => g.id === created.result)
          assert.deepStrictEqual(listed?.members, [org.member.user.id, org.other.user.id].sort((a, b) => a - b))
          assert.deepStrictEqual(listed?.direct_subgroup_ids, [subgroup])
          assert.deepStrictEqual(withoutIds(yield* queue.drain), [{ type: "user_group", op: "add", group: listed }])
        }))
    })
  })
}
