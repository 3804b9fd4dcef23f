/** Matrix rows of the users routes. */
import { userId } from "@teamchat/core/domain/Ids"
import { RealmRepo } from "@teamchat/core/ports/Repositories"
import { Users } from "@teamchat/core/services/Users"
import * as Effect from "effect/Effect"
import { realmUrl } from "../Harness.ts"
import type { Fixture, Row } from "./Table.ts"
import { allRoles, authenticated, eachRole, ok, refused, success } from "./Table.ts"

/** A new member of the demo organization (deactivated when asked); their id. */
const freshMember = (fixture: Fixture, deactivated = false) =>
  fixture.server.core(Effect.gen(function*() {
    const realms = yield* RealmRepo
    const realm = (yield* realms.list).find((r) => r.url === realmUrl)!
    const users = yield* Users
    const name = fixture.unique("Matrix member")
    const user = yield* users.create(realm.id, {
      email: `${name.replace(/\s+/g, "-").toLowerCase()}@zulip.com`,
      full_name: name,
      role: 400
    })
    if (deactivated) yield* users.deactivate(userId(user.id))
    return user.id as number
  }).pipe(Effect.orDie))

/**
 * Reactivates every principal's account that a case deactivated (a person
 * deactivating themselves takes their bots along: the member, the matrix bot).
 */
export const reactivatePrincipals = (fixture: Fixture) =>
  fixture.server.core(Effect.gen(function*() {
    const users = yield* Users
    for (const role of ["owner", "admin", "moderator", "member", "guest", "bot"] as const) {
      const id = userId(fixture.accounts[role].userId)
      if ((yield* users.findById(id))?.is_active === false) yield* users.reactivate(id)
    }
  }).pipe(Effect.orDie))

/** PATCH /users/{id} and friends: administrators over anyone (owners aside), nobody else. */
const administratorsOnly = authenticated({
  ...allRoles(refused("Insufficient permission")),
  owner: success(),
  admin: success()
})

const roleCodes = { owner: 100, admin: 200, moderator: 300, member: 400, guest: 600, bot: 400 } as const

export const usersRows: ReadonlyArray<Row> = [
  {
    operation: "GET /users",
    request: () => Effect.succeed({}),
    // The demo's 10 people and 6 bots, and the matrix's bot and deactivated user (listed, inactive).
    digest: (body, fixture) => ({
      count: body.members.length,
      deactivated: body.members.find((u: any) => u.user_id === fixture.accounts.deactivated.userId)?.is_active
    }),
    expect: {
      ...authenticated(allRoles(ok(() => ({ count: 18, deactivated: false })))),
      // The demo organization is open to spectators (enable_spectator_access).
      anonymous: ok(() => ({ count: 18, deactivated: false }))
    }
  },
  {
    operation: "GET /users/me",
    request: () => Effect.succeed({}),
    expect: authenticated(eachRole((role) =>
      ok((fixture) => ({
        user_id: fixture.accounts[role].userId,
        role: roleCodes[role],
        is_bot: role === "bot",
        is_active: true
      }))
    ))
  },
  {
    operation: "DELETE /users/me",
    request: () => Effect.succeed({}),
    // The demo organization has one owner, who may not leave it ownerless.
    expect: authenticated({
      ...allRoles(success()),
      owner: refused("Cannot deactivate the only organization owner.", "CANNOT_DEACTIVATE_LAST_USER", {
        is_last_owner: true,
        entity: "organization owner"
      })
    }),
    restore: reactivatePrincipals
  },
  {
    operation: "GET /users/{user_id_or_email}",
    request: (fixture) => Effect.succeed({ path: `/users/${fixture.accounts.member.userId}` }),
    digest: (body) => ({ user_id: body.user.user_id, role: body.user.role }),
    expect: authenticated(allRoles(ok((fixture) => ({ user_id: fixture.accounts.member.userId, role: 400 }))))
  },
  {
    operation: "PATCH /users/{user_id_or_email}",
    scenario: "the bystander's name",
    request: (fixture) =>
      Effect.succeed({ path: `/users/${fixture.bystander.userId}`, form: { full_name: fixture.unique("Renamed") } }),
    expect: administratorsOnly
  },
  {
    operation: "PATCH /users/{user_id_or_email}",
    scenario: "a fresh member made a moderator",
    request: (fixture) => Effect.map(freshMember(fixture), (id) => ({ path: `/users/${id}`, form: { role: "300" } })),
    expect: administratorsOnly
  },
  {
    operation: "PATCH /users/{user_id_or_email}",
    scenario: "the member's bot's name (its owner may)",
    request: (fixture) =>
      Effect.succeed({ path: `/users/${fixture.accounts.bot.userId}`, form: { full_name: fixture.unique("Matrix Bot") } }),
    expect: authenticated({
      ...allRoles(refused("Insufficient permission")),
      owner: success(),
      admin: success(),
      member: success()
    })
  },
  {
    operation: "PATCH /users/{user_id_or_email}",
    scenario: "a fresh member's address (the owner alone holds can_change_user_emails)",
    request: (fixture) =>
      Effect.gen(function*() {
        yield* fixture.once("owner may change emails", fixture.server.core(Effect.gen(function*() {
          yield* (yield* Users).setCanChangeUserEmails(userId(fixture.accounts.owner.userId), true)
        }).pipe(Effect.orDie)))
        const id = yield* freshMember(fixture)
        const address = `${fixture.unique("moved").replace(/\s+/g, "-").toLowerCase()}@zulip.com`
        return { path: `/users/${id}`, form: { new_email: address } }
      }),
    expect: authenticated({
      ...allRoles(refused("Insufficient permission")),
      owner: success(),
      admin: refused("User not authorized to change user emails")
    })
  },
  {
    operation: "DELETE /users/{user_id}",
    scenario: "a fresh member",
    request: (fixture) => Effect.map(freshMember(fixture), (id) => ({ path: `/users/${id}` })),
    expect: administratorsOnly
  },
  {
    operation: "POST /users/{user_id}/reactivate",
    scenario: "a fresh deactivated member",
    request: (fixture) => Effect.map(freshMember(fixture, true), (id) => ({ path: `/users/${id}/reactivate` })),
    expect: administratorsOnly
  }
]
