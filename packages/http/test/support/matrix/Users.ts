/** Matrix rows of the users routes. */
import * as Effect from "effect/Effect"
import type { Row } from "./Table.ts"
import { allRoles, authenticated, eachRole, ok } from "./Table.ts"

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
    operation: "GET /users/{user_id_or_email}",
    request: (fixture) => Effect.succeed({ path: `/users/${fixture.accounts.member.userId}` }),
    digest: (body) => ({ user_id: body.user.user_id, role: body.user.role }),
    expect: authenticated(allRoles(ok((fixture) => ({ user_id: fixture.accounts.member.userId, role: 400 }))))
  }
]
