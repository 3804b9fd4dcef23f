/**
 * The organization's access state is read once per request: a send after
 * authentication reuses the read authentication found current, instead of
 * checking the organization's access version again (on PostgreSQL, one
 * query per send).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as SqlClient from "effect/sql/SqlClient"
import { AccessCache } from "../../src/ports/AccessCache.ts"
import * as Persistence from "../../src/Persistence.ts"
import { Authentication } from "../../src/services/Authentication.ts"
import { Messages } from "../../src/services/Messages.ts"
import * as SqlAccessCache from "../../src/sql/SqlAccessCache.ts"
import * as Teamchat from "../../src/Teamchat.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { makeOrg } from "../events/fixtures.ts"

/** How many times the services asked for an organization's access version. */
class VersionReads extends Context.Service<VersionReads, { count: number }>()("test/VersionReads") {}

/** The SQL AccessCache, counting version reads. */
const countingCache = Layer.effect(
  AccessCache,
  Effect.gen(function*() {
    const inner = yield* AccessCache
    const reads = yield* VersionReads
    return AccessCache.of({
      entries: inner.entries,
      version: (realmId) => Effect.suspend(() => {
        reads.count++
        return inner.version(realmId)
      })
    })
  })
).pipe(Layer.provide(SqlAccessCache.layer), Layer.provideMerge(Layer.sync(VersionReads, () => ({ count: 0 }))))

const stack = <E>(database: Layer.Layer<SqlClient.SqlClient, E>) =>
  Teamchat.layerServices.pipe(
    Layer.provideMerge(countingCache),
    Layer.provideMerge(Persistence.layerSql),
    Layer.provide(Teamchat.layerSecretsTest),
    Layer.provide(database)
  )

const backends = {
  PGlite: () => stack(TestDatabase.pgliteLayer()),
  PostgreSQL: () => stack(TestDatabase.postgresLayer())
}

for (const [name, make] of Object.entries(backends)) {
  describe(`access reads on ${name}`, () => {
    layer(make(), { timeout: "120 seconds" })((it) => {
      it.effect("an authenticated send reads the access version once: at authentication", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const messages = yield* Messages
          const reads = yield* VersionReads
          const member = org.member.user
          const sendAs = Effect.gen(function*() {
            const principal = yield* auth.basic(member.delivery_email, member.api_key)
            return yield* messages.send(principal, { type: "private", to: [org.other.user.id], content: "hello" })
          })
          // The first request finds the key in the database and reads the organization.
          yield* sendAs
          const before = reads.count
          const sent = yield* sendAs
          assert.strictEqual(reads.count - before, 1)
          assert.strictEqual(sent.message.sender_id, member.id)
          assert.strictEqual(sent.message.content, "hello")
          // A principal not made by authentication is read as before.
          const again = reads.count
          yield* messages.send(org.member, { type: "private", to: [org.other.user.id], content: "again" })
          assert.strictEqual(reads.count - again, 1)
        }))
    })
  })
}
