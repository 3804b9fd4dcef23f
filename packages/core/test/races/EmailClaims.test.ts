/**
 * Concurrent claims of one new address on PostgreSQL: administrators
 * changing several users' emails to one address, and accounts created with
 * one address at once. Exactly one claim wins; every other gets Zulip's
 * refusal (never the database's unique-index failure, which was a 500).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { UserRepo } from "../../src/ports/Repositories.ts"
import { Users } from "../../src/services/Users.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"

const Claimants = 12

describe("concurrent claims of one address on PostgreSQL", () => {
  layer(backends.PostgreSQL(), { timeout: "60 seconds" })((it) => {
    it.effect(`${Claimants} users changed to one new address at once: one succeeds, the rest "Already has an account."`, () =>
      Effect.gen(function*() {
        const org = yield* makeOrg
        const users = yield* Users
        const repo = yield* UserRepo
        // The owner may change emails.
        yield* repo.update({ ...org.owner.user, can_change_user_emails: true })
        const owner = { ...org.owner, user: { ...org.owner.user, can_change_user_emails: true } }
        const targets = yield* Effect.forEach(Array.from({ length: Claimants }, (_, i) => i), (i) =>
          users.create(org.realm.id, { email: `t${i}@${org.realm.string_id}.test`, full_name: `T${i}`, role: 400 }))
        const address = `${unique("claimed")}@${org.realm.string_id}.test`
        const outcomes = yield* Effect.forEach(
          targets,
          (target) =>
            users.administer(owner, target.id, { new_email: address }).pipe(
              Effect.map(() => "changed"),
              Effect.catch((error) => Effect.succeed(`${error._tag}: ${error.message}`))
            ),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(outcomes.filter((o) => o === "changed").length, 1)
        assert.deepStrictEqual(
          outcomes.filter((o) => o !== "changed"),
          Array.from({ length: Claimants - 1 }, () => "NewEmailInUse: New email value error: Already has an account.")
        )
        const holders = (yield* repo.listByRealm(org.realm.id)).filter((u) => u.delivery_email === address)
        assert.strictEqual(holders.length, 1)
      }))

    it.effect(`${Claimants} accounts created with one address at once: one is made, the rest "already in use"`, () =>
      Effect.gen(function*() {
        const org = yield* makeOrg
        const users = yield* Users
        const address = `${unique("new")}@${org.realm.string_id}.test`
        const outcomes = yield* Effect.forEach(
          Array.from({ length: Claimants }, (_, i) => i),
          (i) =>
            users.create(org.realm.id, { email: address, full_name: `N${i}`, role: 400 }).pipe(
              Effect.map(() => "created"),
              Effect.catch((error) => Effect.succeed(`${error._tag}: ${error.message}`))
            ),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(outcomes.filter((o) => o === "created").length, 1)
        assert.deepStrictEqual(
          outcomes.filter((o) => o !== "created"),
          Array.from({ length: Claimants - 1 }, () => `BadRequest: Email '${address}' already in use`)
        )
      }))
  })
})
