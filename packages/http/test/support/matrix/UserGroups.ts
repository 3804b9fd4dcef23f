/**
 * Matrix rows of the user group routes. Every one is refused to guests and
 * bots (require_member_or_admin). A group made by the member is managed by
 * the member (its can_manage_group and can_add_members_group default to the
 * creator) and by the owner (the organization's can_manage_all_groups
 * defaults to owners); administrators and moderators have no say in it.
 * Each case that changes a group gets a fresh one.
 */
import * as Effect from "effect/Effect"
import type { Expected, Fixture, Role, Row } from "./Table.ts"
import { authenticated, notForBots, notForGuests, ok, refused, success } from "./Table.ts"

/** A new group made by the member, with the member in it. */
const memberGroup = (fixture: Fixture) =>
  Effect.map(
    fixture.call("member", "POST", "/user_groups/create", {
      form: {
        name: fixture.unique("matrix group"),
        description: "",
        members: JSON.stringify([fixture.accounts.member.userId])
      }
    }),
    (body) => body.group_id as number
  )

/** People may read groups; guests and bots may not. */
const people = (expected: Expected): Record<Role, Expected> => ({
  owner: expected,
  admin: expected,
  moderator: expected,
  member: expected,
  guest: notForGuests,
  bot: notForBots
})

/** Only the group's managers (the member who made it, the owner) may change it. */
const managers = (expected: Expected): Record<Role, Expected> => ({
  ...people(refused("Insufficient permission")),
  owner: expected,
  member: expected
})

export const userGroupsRows: ReadonlyArray<Row> = [
  {
    operation: "GET /user_groups",
    request: () => Effect.succeed({}),
    // The eight system groups, role:nobody to role:internet.
    digest: (body) => ({
      system: body.user_groups.filter((g: { is_system_group: boolean }) => g.is_system_group).length
    }),
    expect: authenticated(people(ok(() => ({ system: 8 }))))
  },
  {
    operation: "POST /user_groups/create",
    request: (fixture) =>
      Effect.succeed({
        form: {
          name: fixture.unique("created group"),
          description: "",
          members: JSON.stringify([fixture.accounts.member.userId])
        }
      }),
    digest: (body) => ({ group_id: typeof body.group_id }),
    // The organization's can_create_groups defaults to members.
    expect: authenticated(people(ok(() => ({ group_id: "number" }))))
  },
  {
    operation: "PATCH /user_groups/{user_group_id}",
    request: (fixture) =>
      Effect.map(memberGroup(fixture), (id) => ({ path: `/user_groups/${id}`, form: { description: "changed" } })),
    expect: authenticated(managers(success()))
  },
  {
    operation: "POST /user_groups/{user_group_id}/deactivate",
    request: (fixture) => Effect.map(memberGroup(fixture), (id) => ({ path: `/user_groups/${id}/deactivate` })),
    expect: authenticated(managers(success()))
  },
  {
    operation: "GET /user_groups/{user_group_id}/members",
    request: (fixture) => Effect.map(memberGroup(fixture), (id) => ({ path: `/user_groups/${id}/members` })),
    expect: authenticated(people(ok((fixture) => ({ members: [fixture.accounts.member.userId] }))))
  },
  {
    operation: "POST /user_groups/{user_group_id}/members",
    request: (fixture) =>
      Effect.map(memberGroup(fixture), (id) => ({
        path: `/user_groups/${id}/members`,
        form: { add: JSON.stringify([fixture.bystander.userId]) }
      })),
    expect: authenticated(managers(success()))
  },
  {
    operation: "GET /user_groups/{user_group_id}/members/{user_id}",
    request: (fixture) =>
      Effect.map(memberGroup(fixture), (id) => ({ path: `/user_groups/${id}/members/${fixture.accounts.member.userId}` })),
    expect: authenticated(people(ok(() => ({ is_user_group_member: true }))))
  },
  {
    operation: "GET /user_groups/{user_group_id}/subgroups",
    request: (fixture) => Effect.map(memberGroup(fixture), (id) => ({ path: `/user_groups/${id}/subgroups` })),
    expect: authenticated(people(ok(() => ({ subgroups: [] }))))
  },
  {
    operation: "POST /user_groups/{user_group_id}/subgroups",
    request: (fixture) =>
      Effect.gen(function*() {
        const group = yield* memberGroup(fixture)
        const subgroup = yield* memberGroup(fixture)
        return { path: `/user_groups/${group}/subgroups`, form: { add: JSON.stringify([subgroup]) } }
      }),
    expect: authenticated(managers(success()))
  }
]
