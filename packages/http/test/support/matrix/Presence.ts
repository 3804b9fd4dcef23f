/**
 * Matrix rows of the presence routes. Pinging is for people
 * (human_users_only); reading someone's presence and the organization's is
 * open to every authenticated caller, bots included.
 */
import * as Effect from "effect/Effect"
import type { Row } from "./Table.ts"
import { allRoles, authenticated, notForBots, ok, success } from "./Table.ts"

const bystanderPinged = (fixture: Parameters<Row["request"]>[0]) =>
  fixture.once(
    "presence: the bystander pinged",
    fixture.call("bystander", "POST", "/users/me/presence", { form: { status: "active", ping_only: "true" } })
  )

export const presenceRows: ReadonlyArray<Row> = [
  {
    operation: "POST /users/me/presence",
    request: () => Effect.succeed({ form: { status: "active", ping_only: "true", last_update_id: "5" } }),
    expect: authenticated({ ...allRoles(success({ presence_last_update_id: 5 })), bot: notForBots })
  },
  {
    operation: "GET /users/{user_id_or_email}/presence",
    scenario: "of the bystander, modern form",
    request: (fixture) =>
      Effect.as(bystanderPinged(fixture), {
        path: `/users/${fixture.bystander.userId}/presence`,
        query: { slim_presence: "true" }
      }),
    digest: (body) => ({ keys: Object.keys(body.presence) }),
    expect: authenticated(allRoles(ok(() => ({ keys: ["active_timestamp", "idle_timestamp"] }))))
  },
  {
    operation: "GET /realm/presence",
    request: (fixture) => Effect.as(bystanderPinged(fixture), {}),
    digest: (body) => ({ legacy: Object.values(body.presences).every((entry: any) => "aggregated" in entry) }),
    expect: authenticated(allRoles(ok(() => ({ legacy: true }))))
  }
]
