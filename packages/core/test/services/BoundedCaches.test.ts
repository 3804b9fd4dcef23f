/**
 * The per-organization caches are bounded (docs/memory.md): the access read
 * (`AccessCache.entries`) and the presence rows (SqlPresenceRepo) keep the
 * most recently used organizations only. Here both hold one organization, so
 * every switch evicts the other: what an evicted organization answers next
 * must be read again, current, including what changed while it was out.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as SqlClient from "effect/sql/SqlClient"
import { AccessCache } from "../../src/ports/AccessCache.ts"
import { PresenceRepo } from "../../src/ports/PresenceRepo.ts"
import * as Persistence from "../../src/Persistence.ts"
import { Authentication } from "../../src/services/Authentication.ts"
import { Users } from "../../src/services/Users.ts"
import * as SqlAccessCache from "../../src/sql/SqlAccessCache.ts"
import * as SqlPresenceRepo from "../../src/sql/SqlPresenceRepo.ts"
import * as Teamchat from "../../src/Teamchat.ts"
import * as CheckedEvents from "../../src/testing/CheckedEvents.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { makeOrg } from "../events/fixtures.ts"

const oneOrganization = { organizations: 1 }

const stack = <E>(database: Layer.Layer<SqlClient.SqlClient, E>) =>
  Teamchat.layerServices.pipe(
    Layer.provideMerge(CheckedEvents.layer),
    Layer.provideMerge(Layer.mergeAll(SqlAccessCache.layerWith(oneOrganization), SqlPresenceRepo.layerWith(oneOrganization))),
    Layer.provideMerge(Persistence.layerSql),
    Layer.provide(Teamchat.layerSecretsTest),
    Layer.provide(database)
  )

const backends = {
  PGlite: () => stack(TestDatabase.pgliteMigratedLayer()),
  PostgreSQL: () => stack(TestDatabase.postgresLayer())
}

for (const [name, make] of Object.entries(backends)) {
  describe(`bounded caches on ${name}`, () => {
    layer(make(), { timeout: "120 seconds" })((it) => {
      it.effect("an organization's evicted access read is read again, with what changed meanwhile", () =>
        Effect.gen(function*() {
          const a = yield* makeOrg
          const b = yield* makeOrg
          const auth = yield* Authentication
          const users = yield* Users
          const { entries } = yield* AccessCache
          const options = { clientGravatar: false, includeCustomProfileFields: false }
          // A request: authenticates, then reads another user of the organization through its access read.
          const request = (org: typeof a) =>
            Effect.gen(function*() {
              const principal = yield* auth.basic(org.member.user.delivery_email, org.member.user.api_key)
              assert.strictEqual(principal.user.id, org.member.user.id)
              return (yield* users.getById(principal, org.other.user.id, options)).is_active
            })

          assert.isTrue(yield* request(a))
          assert.deepStrictEqual([...entries.keys()], [a.realm.id])
          assert.isTrue(yield* request(b))
          // One organization kept: b's read took a's place.
          assert.strictEqual(entries.size, 1)
          assert.deepStrictEqual([...entries.keys()], [b.realm.id])

          // Changed while a is out of the cache: its next request reads it again and sees it.
          yield* users.deactivate(a.other.user.id)
          assert.isFalse(yield* request(a))
          assert.deepStrictEqual([...entries.keys()], [a.realm.id])
          const refused = yield* Effect.flip(auth.basic(a.other.user.delivery_email, a.other.user.api_key))
          assert.strictEqual(refused._tag, "UserDeactivated")
          // And b, evicted in turn, answers as before.
          assert.isTrue(yield* request(b))
          assert.deepStrictEqual([...entries.keys()], [b.realm.id])
        }))

      it.effect("an organization's evicted presence rows are read again, whole", () =>
        Effect.gen(function*() {
          const a = yield* makeOrg
          const b = yield* makeOrg
          const repo = yield* PresenceRepo
          const times = (t: number) => ({ last_active_time: t, last_connected_time: t })
          const usersOf = (rows: ReadonlyArray<{ readonly user_id: number; readonly last_active_time: number | null }>) =>
            rows.map((r) => [r.user_id, r.last_active_time])

          yield* repo.write(a.realm.id, a.member.user.id, times(100))
          assert.deepStrictEqual(usersOf(yield* repo.list(a.realm.id, {})), [[a.member.user.id, 100]])
          // b's rows take a's place.
          yield* repo.write(b.realm.id, b.member.user.id, times(200))
          assert.deepStrictEqual(usersOf(yield* repo.list(b.realm.id, {})), [[b.member.user.id, 200]])
          // Written while a is out: its next list holds the old row and the new ones.
          yield* repo.write(a.realm.id, a.other.user.id, times(300))
          yield* repo.write(a.realm.id, a.member.user.id, times(400))
          assert.deepStrictEqual(usersOf(yield* repo.list(a.realm.id, {})), [[a.member.user.id, 400], [a.other.user.id, 300]].sort((x, y) => x[0]! - y[0]!))
          assert.strictEqual((yield* repo.latest(b.realm.id, b.member.user.id))?.last_active_time, 200)
          assert.strictEqual((yield* repo.latest(a.realm.id, a.other.user.id))?.last_active_time, 300)
          // A conditional write after eviction (b's `latest` read b whole) lands and is listed.
          const known = (yield* repo.latest(a.realm.id, a.member.user.id))!
          yield* repo.latest(b.realm.id, b.member.user.id)
          const written = yield* repo.writeIfUnchanged(a.realm.id, a.member.user.id, known.last_update_id, times(500))
          assert.isDefined(written)
          assert.deepStrictEqual(usersOf(yield* repo.list(a.realm.id, {})), [[a.member.user.id, 500], [a.other.user.id, 300]].sort((x, y) => x[0]! - y[0]!))
        }))
    })
  })
}
