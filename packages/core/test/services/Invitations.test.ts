/**
 * Joining through a link checks its maker's current rights, in the
 * transaction that makes the account: a demoted maker's link grants only what
 * they may still invite, a maker deactivated behind the service's back (as
 * another process would write it) stops the link, and nothing is written. Deactivating a maker through the service
 * expires their links, as Zulip's `revoke_invites_generated_by_user` does.
 * On memory and PGlite.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Principal } from "../../src/domain/Principal.ts"
import { InvitationRepo } from "../../src/ports/InvitationRepo.ts"
import { UserRepo } from "../../src/ports/Repositories.ts"
import { Invitations } from "../../src/services/Invitations.ts"
import type { NewInvitation } from "../../src/services/Invitations.ts"
import { Users } from "../../src/services/Users.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"

const keyOf = (link: string) => /\/join\/([a-z0-9]{24})\/$/.exec(link)![1]!

const makeLink = (maker: Principal, input: NewInvitation = {}) =>
  Effect.flatMap(Invitations, (invitations) => invitations.create(maker, input))

const form = () => {
  const name = unique("joiner")
  return { full_name: name, email: `${name}@example.test`, password: "long enough" }
}

/** The maker's row changed directly, as another process would. */
const rewrite = (maker: Principal, change: { readonly is_active?: boolean }) =>
  Effect.gen(function*() {
    const users = yield* UserRepo
    const current = (yield* users.findById(maker.user.id))!
    yield* users.update({ ...current, ...change })
  })

/** The organization's people (the first join also makes the Welcome Bot). */
const peopleIn = (maker: Principal) =>
  Effect.map(UserRepo.use((users) => users.listByRealm(maker.realm.id)), (all) => all.filter((u) => !u.is_bot).length)

for (const backend of ["memory", "PGlite"] as const) {
  describe(`Invitations.join and the maker's rights on ${backend}`, () => {
    layer(backends[backend](), { timeout: "60 seconds" })((it) => {
      it.effect("a deactivated maker's link makes no account", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const invitations = yield* Invitations
          const { invite_link } = yield* makeLink(org.admin)
          yield* rewrite(org.admin, { is_active: false })
          const before = yield* peopleIn(org.admin)
          const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string; readonly msg: string }>> = [
            invitations.check(org.realm, keyOf(invite_link)),
            invitations.join(org.realm, keyOf(invite_link), form())
          ]
          for (const attempt of attempts) {
            const error = yield* Effect.flip(attempt)
            assert.strictEqual(error._tag, "InvitationLinkMakerNotAllowed")
            assert.strictEqual(error.msg, "The person who made this invitation link may no longer invite people with it. Ask for a new one.")
          }
          assert.strictEqual(yield* peopleIn(org.admin), before)
        }))

      it.effect("a demoted maker's link grants only what they may still invite", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const invitations = yield* Invitations
          const users = yield* Users
          const maker: Principal = {
            realm: org.realm,
            user: yield* users.create(org.realm.id, { email: `${unique("maker")}@example.test`, full_name: "Maker", role: 100 })
          }
          const ownerLink = keyOf((yield* makeLink(maker, { invite_as: 100 })).invite_link)
          const adminLink = keyOf((yield* makeLink(maker, { invite_as: 200 })).invite_link)
          const memberLink = keyOf((yield* makeLink(maker, { invite_as: 400 })).invite_link)
          const refused = (key: string) =>
            Effect.map(Effect.flip(invitations.join(org.realm, key, form())), (error) => error._tag)
          yield* users.changeRole(maker.user.id, 200)
          const before = yield* peopleIn(maker)
          assert.strictEqual(yield* refused(ownerLink), "InvitationLinkMakerNotAllowed")
          assert.strictEqual(yield* peopleIn(maker), before)
          assert.strictEqual((yield* invitations.join(org.realm, adminLink, form())).role, 200)
          // Moderators are not in the organization's invitation group (its administrators).
          yield* users.changeRole(maker.user.id, 300)
          assert.strictEqual(yield* refused(adminLink), "InvitationLinkMakerNotAllowed")
          assert.strictEqual(yield* refused(memberLink), "InvitationLinkMakerNotAllowed")
          assert.strictEqual(yield* peopleIn(maker), before + 1)
        }))

      it.effect("Users.deactivate expires the maker's usable links; others' and revoked ones are left alone", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const invitations = yield* Invitations
          const repo = yield* InvitationRepo
          const mine = (yield* makeLink(org.admin)).id
          const forever = (yield* makeLink(org.admin, { invite_expires_in_minutes: null })).id
          const revoked = (yield* makeLink(org.admin)).id
          yield* invitations.revoke(org.admin, revoked)
          const others = (yield* makeLink(org.owner)).id
          yield* (yield* Users).deactivate(org.admin.user.id)
          const rows = new Map((yield* repo.listByRealm(org.realm.id)).map((i) => [i.id, i]))
          for (const id of [mine, forever]) {
            const link = rows.get(id)!
            assert.isNotNull(link.expires)
            assert.isFalse(yield* Effect.map(invitations.list(org.owner), (all) => all.some((i) => i.id === id)), `link ${id} listed`)
            assert.strictEqual(
              (yield* Effect.flip(invitations.check(org.realm, link.key)))._tag,
              "InvitationLinkExpired"
            )
          }
          assert.isTrue(rows.get(revoked)!.revoked)
          assert.strictEqual(rows.get(others)!.expires, rows.get(others)!.created + 14400 * 60_000)
        }))

      it.effect("an expiry must be a positive number of minutes or null", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          for (const minutes of [-5, 0]) {
            const error = yield* Effect.flip(makeLink(org.admin, { invite_expires_in_minutes: minutes }))
            assert.deepStrictEqual([error._tag, error.msg], ["TooSmall", "invite_expires_in_minutes is too small"])
          }
        }))
    })
  })
}
