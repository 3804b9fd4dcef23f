/**
 * Matrix rows of the custom profile field routes. Reading the fields is
 * open to everyone; creating, editing, reordering and deleting them takes
 * an administrator (require_realm_admin); a person sets their own values
 * (human_users_only).
 */
import * as Effect from "effect/Effect"
import type { Fixture, Row } from "./Table.ts"
import { administratorRequired, allRoles, authenticated, notForBots, ok, success } from "./Table.ts"

/** A new short-text field made by the owner; its id. */
const freshField = (fixture: Fixture) =>
  Effect.map(
    fixture.call("owner", "POST", "/realm/profile_fields", { form: { name: fixture.unique("Matrix field"), field_type: "1" } }),
    (body) => body.id as number
  )

const administratorsOnly = authenticated({
  ...allRoles(administratorRequired),
  owner: success(),
  admin: success()
})

export const profileFieldsRows: ReadonlyArray<Row> = [
  {
    operation: "GET /realm/profile_fields",
    request: (fixture) => Effect.map(freshField(fixture), (id) => ({ made: { id } })),
    digest: (body, _fixture, call) => ({ listed: body.custom_fields.some((f: any) => f.id === call.made!.id) }),
    expect: authenticated(allRoles(ok(() => ({ listed: true }))))
  },
  {
    operation: "POST /realm/profile_fields",
    request: (fixture) => Effect.succeed({ form: { name: fixture.unique("Matrix new field"), field_type: "1" } }),
    digest: (body) => ({ hasId: Number.isSafeInteger(body.id) }),
    expect: authenticated({
      ...allRoles(administratorRequired),
      owner: ok(() => ({ hasId: true })),
      admin: ok(() => ({ hasId: true }))
    })
  },
  {
    operation: "PATCH /realm/profile_fields",
    scenario: "every field, in reverse",
    request: (fixture) =>
      Effect.map(
        fixture.call("owner", "GET", "/realm/profile_fields", {}),
        (body) => ({ form: { order: JSON.stringify(body.custom_fields.map((f: any) => f.id).reverse()) } })
      ),
    expect: administratorsOnly
  },
  {
    operation: "PATCH /realm/profile_fields/{field_id}",
    request: (fixture) => Effect.map(freshField(fixture), (id) => ({ path: `/realm/profile_fields/${id}`, form: { hint: "edited" } })),
    expect: administratorsOnly
  },
  {
    operation: "DELETE /realm/profile_fields/{field_id}",
    request: (fixture) => Effect.map(freshField(fixture), (id) => ({ path: `/realm/profile_fields/${id}` })),
    expect: administratorsOnly
  },
  {
    operation: "PATCH /users/me/profile_data",
    request: (fixture) =>
      Effect.map(
        fixture.once("profile data field", freshField(fixture)),
        (id) => ({ form: { data: JSON.stringify([{ id, value: "matrix" }]) } })
      ),
    expect: authenticated({ ...allRoles(success()), bot: notForBots })
  }
]
