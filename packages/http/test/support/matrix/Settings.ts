/** Matrix rows of the caller's own settings and alert words. */
import * as Effect from "effect/Effect"
import type { Row } from "./Table.ts"
import { allRoles, authenticated, notForBots, ok, success } from "./Table.ts"

export const settingsRows: ReadonlyArray<Row> = [
  {
    operation: "PATCH /settings",
    request: () => Effect.succeed({ form: { enter_sends: "true" } }),
    // json_change_settings is human_users_only.
    expect: authenticated({ ...allRoles(success()), bot: notForBots })
  },
  {
    operation: "GET /users/me/alert_words",
    request: (fixture, as) => {
      const word = fixture.unique("listed")
      return Effect.as(
        fixture.call(as, "POST", "/users/me/alert_words", { form: { alert_words: JSON.stringify([word]) } }),
        { made: { word } }
      )
    },
    digest: (body, _fixture, call) => ({ listed: body.alert_words.includes(call.made!.word) }),
    expect: authenticated(allRoles(ok(() => ({ listed: true }))))
  },
  {
    operation: "POST /users/me/alert_words",
    request: (fixture) => {
      const word = fixture.unique("added")
      return Effect.succeed({ form: { alert_words: JSON.stringify([word]) }, made: { word } })
    },
    digest: (body, _fixture, call) => ({ listed: body.alert_words.includes(call.made!.word) }),
    expect: authenticated(allRoles(ok(() => ({ listed: true }))))
  },
  {
    operation: "DELETE /users/me/alert_words",
    request: (fixture, as) => {
      const word = fixture.unique("removed")
      const alert_words = JSON.stringify([word])
      return Effect.as(
        fixture.call(as, "POST", "/users/me/alert_words", { form: { alert_words } }),
        { form: { alert_words }, made: { word } }
      )
    },
    digest: (body, _fixture, call) => ({ listed: body.alert_words.includes(call.made!.word) }),
    expect: authenticated(allRoles(ok(() => ({ listed: false }))))
  }
]
