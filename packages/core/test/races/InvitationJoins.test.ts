/**
 * Joins through an administrator's link racing the demotion or deactivation
 * of its maker, on PostgreSQL. A join acts with the maker's rights as they are
 * when it commits: no account made through the link may commit after the
 * change that took those rights away. Commit order is read from the event
 * log, whose ids follow it (each transaction appends its events last, under
 * the organization's event-log lock): no `realm_user add` of a joined account
 * may come after the maker's `realm_user update`. Each round is repeated, as
 * a race that is lost only sometimes still loses.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Principal } from "../../src/domain/Principal.ts"
import { EventStore } from "../../src/ports/EventStore.ts"
import { Invitations } from "../../src/services/Invitations.ts"
import { Users } from "../../src/services/Users.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"

const rounds = 10
const joinsPerRound = 4

const keyOf = (link: string) => /\/join\/([a-z0-9]{24})\/$/.exec(link)![1]!

type Person = { readonly user_id?: number; readonly role?: number; readonly is_active?: boolean }

describe("invitation joins racing their maker's demotion or deactivation on PostgreSQL", () => {
  layer(backends.PostgreSQL(), { timeout: "240 seconds" })((it) => {
    it.effect("no account is made with rights the maker no longer had when it committed", () =>
      Effect.gen(function*() {
        const org = yield* makeOrg
        const users = yield* Users
        const invitations = yield* Invitations
        const store = yield* EventStore
        let late = 0
        let joinedBefore = 0
        for (let round = 0; round < rounds; round++) {
          const deactivating = round % 2 === 1
          const maker: Principal = {
            realm: org.realm,
            user: yield* users.create(org.realm.id, { email: `${unique("maker")}@example.test`, full_name: "Maker", role: 200 })
          }
          const key = keyOf((yield* invitations.create(maker, { invite_as: 200 })).invite_link)
          const mark = yield* store.highWaterMark(org.realm.id)
          const change = deactivating ? users.deactivate(maker.user.id) : users.changeRole(maker.user.id, 400)
          const joins = Array.from({ length: joinsPerRound }, () => {
            const name = unique("joiner")
            return invitations.join(org.realm, key, { full_name: name, email: `${name}@example.test`, password: "long enough" }).pipe(
              Effect.map((user) => ({ joined: user.id, role: user.role })),
              Effect.catch((error) => Effect.succeed({ refused: error._tag }))
            )
          })
          const [, ...outcomes] = yield* Effect.all([change, ...joins], { concurrency: "unbounded" })
          for (const outcome of outcomes) {
            if ("refused" in outcome) {
              assert.include(["InvitationLinkMakerNotAllowed", "InvitationLinkExpired"], outcome.refused)
            } else {
              assert.strictEqual(outcome.role, 200)
            }
          }
          const joined = new Set<number>(outcomes.flatMap((o) => "joined" in o ? [o.joined] : []))
          const log = (yield* store.read(org.realm.id, org.owner.user.id, mark)).filter((e) => e.payload.type === "realm_user")
          const person = (e: (typeof log)[number]) => (e.payload as { readonly person?: Person }).person ?? {}
          const op = (e: (typeof log)[number]) => (e.payload as { readonly op?: string }).op
          const changed = log.findIndex((e) =>
            op(e) === "update" && person(e).user_id === maker.user.id &&
            (deactivating ? person(e).is_active === false : person(e).role === 400)
          )
          assert.isAtLeast(changed, 0, "the maker's change is in the log")
          const adds = log.flatMap((e, i) => op(e) === "add" && joined.has(person(e).user_id!) ? [i] : [])
          assert.strictEqual(adds.length, joined.size)
          late += adds.filter((i) => i > changed).length
          joinedBefore += adds.length
        }
        // Joins committed after the maker lost the right to make administrators.
        assert.strictEqual(late, 0, `${late} of ${joinedBefore} joined accounts committed after the maker's change`)
      }))
  })
})
