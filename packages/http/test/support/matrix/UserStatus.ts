/**
 * Matrix rows of the user status routes. Setting one's own status is for
 * people (human_users_only); setting another's needs administrative access
 * to the target (access_user_by_id with for_admin: "Insufficient
 * permission" otherwise); reading a person's status is open to everyone who
 * can see them.
 */
import * as Effect from "effect/Effect"
import type { Row } from "./Table.ts"
import { allRoles, authenticated, notForBots, ok, refused, success } from "./Table.ts"

export const userStatusRows: ReadonlyArray<Row> = [
  {
    operation: "POST /users/me/status",
    request: () => Effect.succeed({ form: { status_text: "in the matrix" } }),
    expect: authenticated({ ...allRoles(success()), bot: notForBots })
  },
  {
    operation: "POST /users/{user_id}/status",
    scenario: "of the member",
    request: (fixture) =>
      Effect.succeed({ path: `/users/${fixture.accounts.member.userId}/status`, form: { status_text: "set for you" } }),
    expect: authenticated({
      ...allRoles(refused("Insufficient permission")),
      owner: success(),
      admin: success()
    })
  },
  {
    operation: "GET /users/{user_id}/status",
    scenario: "of the bystander",
    request: (fixture) =>
      Effect.as(
        fixture.call("bystander", "POST", "/users/me/status", { form: { status_text: "watching" } }),
        { path: `/users/${fixture.bystander.userId}/status` }
      ),
    expect: authenticated(allRoles(ok(() => ({ status: { status_text: "watching" } }))))
  }
]
