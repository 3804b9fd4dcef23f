/**
 * Access changes pushed to every process of one PostgreSQL database: each
 * process keeps an organization's access read and its version until the
 * database's `teamchat_access` notice (or its own committed change) says it
 * moved, so an authenticated request reads nothing; a deactivation, a
 * demotion or a key rotation committed by one process is in force on
 * another as soon as its notice arrives, measured here against a 100 ms
 * bound. While a process does not listen it reads the version on every
 * request, and it forgets what it kept when it listens again.
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { RealmId } from "../../src/domain/Ids.ts"
import * as Persistence from "../../src/Persistence.ts"
import { Authentication } from "../../src/services/Authentication.ts"
import { Users } from "../../src/services/Users.ts"
import * as PgClientLayer from "../../src/sql/PgClientLayer.ts"
import { AccessNotices, listenerApplicationName } from "../../src/sql/SqlAccessCache.ts"
import * as CheckedEvents from "../../src/testing/CheckedEvents.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import * as Teamchat from "../../src/Teamchat.ts"
import { makeOrg } from "../events/fixtures.ts"
import { statementsOf } from "../support/Statements.ts"

/** The bound the issue sets on a change reaching every process. */
const deliveryBoundMillis = 100

/** The one statement a request sent per authentication before notices were pushed. */
const versionRead = (realmId: RealmId) => `SELECT version FROM access_versions WHERE realm_id = ${realmId}`

/** A server process: the services over a pool of its own to the test database. */
const openProcess = (url: string) =>
  Layer.build(
    Teamchat.layerServices.pipe(
      Layer.provideMerge(CheckedEvents.layer),
      // Real keys: the test key generator gives both processes the same API keys.
      Layer.provideMerge(Persistence.layerPostgres(url, { maxConnections: 4 })),
      Layer.provide(Teamchat.layerSecrets)
    )
  )

/** Runs `f` on a short-lived connection to the server's administrative database. */
const asAdmin = <A, E>(adminUrl: string, f: (sql: PgClient.PgClient) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(PgClientLayer.make(adminUrl, { maxConnections: 1 }), f))

/** GET /users/{id} of oneself on a process: authentication, then the user (its role) from the organization's access read, or the failure's tag. */
const ownUser = (process: Context.Context<Authentication | Users>) => (email: string, key: string) =>
  Effect.map(
    Effect.result(Effect.flatMap(Context.get(process, Authentication).basic(email, key), (principal) =>
      Context.get(process, Users).getById(principal, principal.user.id, {
        clientGravatar: false,
        includeCustomProfileFields: false
      }))),
    (result) => (result._tag === "Success" ? `role ${result.success.role}` : result.failure._tag)
  )

/**
 * Ends every access listener on the test database and keeps new connections
 * to it out, so they cannot listen again, until `restore`. The pools'
 * open connections go on serving requests.
 */
const cutListeners = (database: Context.Service.Shape<typeof TestDatabase.TestDatabase>) =>
  asAdmin(database.adminUrl, (sql) =>
    Effect.gen(function*() {
      yield* sql`ALTER DATABASE ${sql(database.name)} ALLOW_CONNECTIONS false`.unprepared
      const ended = yield* sql<{ ended: boolean }>`
        SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
        WHERE datname = ${database.name} AND application_name = ${listenerApplicationName}`
      return ended.length
    }))

const restore = (database: Context.Service.Shape<typeof TestDatabase.TestDatabase>) =>
  asAdmin(database.adminUrl, (sql) => sql`ALTER DATABASE ${sql(database.name)} ALLOW_CONNECTIONS true`.unprepared)

describe("access changes on two processes of one PostgreSQL database", () => {
  it.effect("a deactivation, a demotion and a key rotation on one process are in force on the other once its notice arrives, within 100 ms", () =>
    Effect.gen(function*() {
      const database = yield* TestDatabase.TestDatabase
      // Built one after the other: the second finds the migrations done.
      const a = yield* openProcess(database.url)
      const b = yield* openProcess(database.url)
      const noticesA = Context.get(a, AccessNotices)
      const noticesB = Context.get(b, AccessNotices)
      const usersA = Context.get(a, Users)
      yield* noticesA.whenListening
      yield* noticesB.whenListening
      const org = yield* Effect.provide(makeOrg, a)
      const { admin, member, other } = { admin: org.admin.user, member: org.member.user, other: org.other.user }
      const onB = ownUser(b)

      // B keeps the organization's read: after the first request, an
      // authenticated request sends no statement at all.
      assert.strictEqual(yield* onB(member.delivery_email, member.api_key), "role 400")
      assert.strictEqual(yield* onB(admin.delivery_email, admin.api_key), "role 200")
      assert.strictEqual(yield* onB(other.delivery_email, other.api_key), "role 400")
      const kept = yield* statementsOf(onB(admin.delivery_email, admin.api_key))
      assert.deepStrictEqual(kept, { result: "role 200", statements: [] })

      /** Commits `change` on A; answers how long after A's commit B heard of it (ms). */
      const delivery = <X, E>(change: Effect.Effect<X, E, never>) =>
        Effect.gen(function*() {
          const heardOnB = yield* noticesB.nextNotice(org.realm.id)
          const committedOnA = yield* noticesA.nextLocalChange(org.realm.id)
          yield* change
          const committed = yield* committedOnA
          const heard = yield* heardOnB
          return heard - committed
        })

      const deactivated = yield* delivery(usersA.deactivate(other.id))
      assert.strictEqual(yield* onB(other.delivery_email, other.api_key), "UserDeactivated")

      const demoted = yield* delivery(usersA.changeRole(admin.id, 400))
      assert.strictEqual(yield* onB(admin.delivery_email, admin.api_key), "role 400")

      let rotatedKey = ""
      const rotated = yield* delivery(Effect.map(usersA.rotateApiKey(member.id), (user) => void (rotatedKey = user.api_key)))
      assert.strictEqual(yield* onB(member.delivery_email, member.api_key), "InvalidApiKey")
      assert.strictEqual(yield* onB(member.delivery_email, rotatedKey), "role 400")

      const delays = { deactivated, demoted, rotated }
      yield* Effect.logInfo(`access notice delivery, A's commit → B (ms): ${JSON.stringify(delays)}`)
      for (const [change, millis] of Object.entries(delays)) {
        assert.isAtMost(millis, deliveryBoundMillis, `${change}: notice reached B ${millis} ms after A's commit`)
      }
      // Still listening, B answers from its new read without statements.
      assert.deepStrictEqual(yield* statementsOf(onB(admin.delivery_email, admin.api_key)), {
        result: "role 400",
        statements: []
      })
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 60_000)

  // Live: listening again waits out the retry schedule, in real time.
  it.live("while its LISTEN connection is lost a process reads the version on every request, and forgets what it kept when it listens again", () =>
    Effect.gen(function*() {
      const database = yield* TestDatabase.TestDatabase
      const a = yield* openProcess(database.url)
      const b = yield* openProcess(database.url)
      const noticesB = Context.get(b, AccessNotices)
      const usersA = Context.get(a, Users)
      yield* Context.get(a, AccessNotices).whenListening
      yield* noticesB.whenListening
      const org = yield* Effect.provide(makeOrg, a)
      const { admin, member, other } = { admin: org.admin.user, member: org.member.user, other: org.other.user }
      const onB = ownUser(b)
      const read = versionRead(org.realm.id)

      // Kept: no statement.
      assert.strictEqual(yield* onB(member.delivery_email, member.api_key), "role 400")
      assert.deepStrictEqual((yield* statementsOf(onB(member.delivery_email, member.api_key))).statements, [])

      // The listener's backend ends; B reads the version on every request
      // (its kept read is still current, so nothing more).
      const lost = yield* noticesB.nextLoss
      assert.isAtLeast(yield* cutListeners(database), 2)
      yield* lost
      assert.isFalse(yield* noticesB.listening)
      for (let i = 0; i < 2; i++) {
        assert.deepStrictEqual(yield* statementsOf(onB(member.delivery_email, member.api_key)), {
          result: "role 400",
          statements: [read]
        })
      }
      // A change on A reaches B through that read, without a notice.
      yield* usersA.changeRole(admin.id, 400)
      assert.strictEqual(yield* onB(admin.delivery_email, admin.api_key), "role 400")
      // A change B makes no request during: its notice is lost with the connection.
      yield* usersA.deactivate(member.id)
      assert.isFalse(yield* noticesB.listening)

      yield* restore(database)
      yield* noticesB.whenListening
      // Listening again, B answers from nothing it kept before: it reads the
      // version, sees the deactivation, and keeps the new read.
      const again = yield* statementsOf(onB(member.delivery_email, member.api_key))
      assert.strictEqual(again.result, "UserDeactivated")
      assert.strictEqual(again.statements[0], read)
      assert.strictEqual(yield* onB(other.delivery_email, other.api_key), "role 400")
      assert.deepStrictEqual(yield* statementsOf(onB(other.delivery_email, other.api_key)), {
        result: "role 400",
        statements: []
      })
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 60_000)
})
