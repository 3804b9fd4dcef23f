/**
 * The organization the in-process endpoint benchmarks (drafts, invites,
 * presence, push) measure in: the demo organization plus `size` members,
 * each with the HTTP Basic credentials its requests carry.
 */
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import { realmId } from "@teamchat/core/domain/Ids"
import { Users } from "@teamchat/core/services/Users"
import * as Effect from "effect/Effect"

/** HTTP Basic credentials: an address and its API key. */
export const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

/** Seeds the demo organization at `origin` and `size` members; returns each member's `authorization` header. */
export const seedPeople = (origin: string, size: number) =>
  Effect.gen(function*() {
    yield* DemoOrganization.seed(origin)
    const users = yield* Users
    const out: Array<string> = []
    for (let i = 0; i < size; i++) {
      const user = yield* users.create(realmId(1), { email: `person${i}@zulip.com`, full_name: `Person ${i}`, role: 400 })
      out.push(basic(user.delivery_email, user.api_key))
    }
    return out
  })
