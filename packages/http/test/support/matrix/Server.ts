/**
 * Matrix rows of the routes that need no credentials: server settings and
 * the API key fetches. Zulip serves them outside its authenticated dispatch,
 * so credentials sent with them are not checked; what counts is the account
 * named in the parameters.
 */
import * as Effect from "effect/Effect"
import { demoPassword, realmUrl } from "../Harness.ts"
import type { Expected, Fixture, Principal, Row } from "./Table.ts"
import { everyone, ok } from "./Table.ts"

/** The account a principal names in a key fetch (nobody names the member). */
const ownAccount = (fixture: Fixture, principal: Principal) =>
  fixture.accounts[principal === "anonymous" ? "member" : principal]

const grant = ok((fixture, principal) => {
  const account = ownAccount(fixture, principal)
  return { email: account.email, user_id: account.userId, api_key: account.apiKey }
})

const deactivated: Expected = {
  status: 401,
  body: { result: "error", msg: "Account is deactivated", code: "USER_DEACTIVATED" }
}

export const serverRows: ReadonlyArray<Row> = [
  {
    operation: "GET /server_settings",
    request: () => Effect.succeed({}),
    expect: everyone(ok(() => ({ realm_url: realmUrl, realm_name: "Zulip Dev" })))
  },
  {
    operation: "POST /fetch_api_key",
    request: (fixture, _as, principal) =>
      Effect.succeed({ form: { username: ownAccount(fixture, principal).email, password: demoPassword } }),
    expect: {
      ...everyone(grant),
      deactivated,
      // Bots have no password: EmailAuthBackend finds no match.
      bot: {
        status: 401,
        body: { result: "error", msg: "Your username or password is incorrect", code: "AUTHENTICATION_FAILED" }
      }
    }
  },
  {
    operation: "POST /dev_fetch_api_key",
    request: (fixture, _as, principal) => Effect.succeed({ form: { username: ownAccount(fixture, principal).email } }),
    expect: { ...everyone(grant), deactivated }
  },
  {
    operation: "GET /dev_list_users",
    request: () => Effect.succeed({}),
    // Active people only, administrators apart, by email.
    digest: (body) => ({
      admins: body.direct_admins.map((u: { email: string }) => u.email),
      users: body.direct_users.map((u: { email: string }) => u.email).length
    }),
    expect: everyone(ok(() => ({ admins: ["desdemona@zulip.com", "iago@zulip.com"], users: 8 })))
  }
]
