/**
 * Users.deactivateSelf (DELETE /users/me): Zulip's CANNOT_DEACTIVATE_LAST_USER
 * for the organization's only active account (the system bots aside) and for
 * its only active owner, checked in that order; anyone else leaves. On memory
 * and PGlite (the wire contract runs on all three backends).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Organizations } from "../../src/services/Organizations.ts"
import { Users } from "../../src/services/Users.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"

const wire = (error: { readonly wire: unknown }) => error.wire

for (const backend of ["memory", "PGlite"] as const) {
  describe(`Users.deactivateSelf on ${backend}`, () => {
    layer(backends[backend](), { timeout: "60 seconds" })((it) => {
      it.effect("the only account of an organization may not leave it", () =>
        Effect.gen(function*() {
          const id = unique("lone")
          const { owner, realm } = yield* (yield* Organizations).create({
            string_id: id,
            name: `Org ${id}`,
            url: `http://${id}.example.test`,
            owner: { email: `owner@${id}.test`, full_name: "Owner" }
          })
          const error = yield* Effect.flip((yield* Users).deactivateSelf({ realm, user: owner! }))
          assert.deepStrictEqual(wire(error), {
            result: "error",
            msg: "Cannot deactivate the only user.",
            code: "CANNOT_DEACTIVATE_LAST_USER",
            is_last_owner: false,
            entity: "user"
          })
        }))

      it.effect("the only owner may not leave; a member may, and is deactivated", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const users = yield* Users
          const error = yield* Effect.flip(users.deactivateSelf(org.owner))
          assert.deepStrictEqual(wire(error), {
            result: "error",
            msg: "Cannot deactivate the only organization owner.",
            code: "CANNOT_DEACTIVATE_LAST_USER",
            is_last_owner: true,
            entity: "organization owner"
          })
          assert.isTrue((yield* users.findById(org.owner.user.id))!.is_active)
          yield* users.deactivateSelf(org.member)
          assert.isFalse((yield* users.findById(org.member.user.id))!.is_active)
          const again = yield* Effect.flip(users.deactivateSelf(org.member))
          assert.strictEqual(again._tag, "UserDeactivated")
        }))
    })
  })
}
