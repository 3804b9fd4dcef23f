/**
 * Matrix rows of the push device routes. Registering is for people
 * (human_users_only); the matrix's server has no push bouncer, so every
 * person gets Zulip's PUSH_SERVICE_NOT_CONFIGURED after the checks that
 * come first (the forward to a bouncer is tested in PushDevicesContract).
 */
import * as Effect from "effect/Effect"
import type { Row } from "./Table.ts"
import { allRoles, authenticated, notForBots, refused } from "./Table.ts"

export const pushDevicesRows: ReadonlyArray<Row> = [
  {
    operation: "POST /mobile_push/register",
    request: () =>
      Effect.succeed({
        form: {
          token_kind: "fcm",
          push_account_id: "2408",
          push_public_key: "cHVzaC1wdWJsaWMta2V5",
          bouncer_public_key: "Ym91bmNlci1wdWJsaWMta2V5",
          encrypted_push_registration: "ZW5jcnlwdGVkLXB1c2gtcmVnaXN0cmF0aW9u"
        }
      }),
    expect: authenticated({
      ...allRoles(refused("Server is not configured to use push notification service.", "PUSH_SERVICE_NOT_CONFIGURED")),
      bot: notForBots
    })
  }
]
