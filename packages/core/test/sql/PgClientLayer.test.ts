import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import * as Persistence from "../../src/Persistence.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import * as PgClientLayer from "../../src/sql/PgClientLayer.ts"
import * as SqlTransactor from "../../src/sql/SqlTransactor.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { sqlContract } from "./SqlContract.ts"

// Needs the PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
layer(TestDatabase.postgresLayer())("PgClientLayer on PostgreSQL", (it) => {
  sqlContract(it)

  it.effect("provides the same client as PgClient and SqlClient, on a fresh database", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const pg = yield* PgClient.PgClient
      const database = yield* TestDatabase.TestDatabase
      assert.strictEqual(sql, pg)
      assert.strictEqual(sql.driver, "pg")
      assert.match(database.name, /^teamchat_test_\d+_[0-9a-f]{12}$/)
      const [row] = yield* sql<{ name: string }>`SELECT current_database() AS name`
      assert.strictEqual(row.name, database.name)
    }))
})

describe("TestDatabase.postgresLayer", () => {
  it.effect("drops its database when the scope closes", () =>
    Effect.gen(function*() {
      const database = yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(TestDatabase.postgresLayer())
        const database = Context.get(context, TestDatabase.TestDatabase)
        const sql = Context.get(context, SqlClient.SqlClient)
        yield* sql`CREATE TABLE scratch (id INT)`
        assert.isTrue(yield* TestDatabase.databaseExists(database.adminUrl, database.name))
        return database
      }))
      assert.isFalse(yield* TestDatabase.databaseExists(database.adminUrl, database.name))
    }))

  it.effect("gives every build its own database", () =>
    Effect.gen(function*() {
      const names = yield* Effect.forEach([1, 2], () =>
        Effect.scoped(Effect.map(
          Layer.build(TestDatabase.postgresLayer()),
          (context) => Context.get(context, TestDatabase.TestDatabase).name
        )))
      assert.notStrictEqual(names[0], names[1])
    }))
})

/**
 * The bounded wait for a pooled connection (issue #32 item 8): with every
 * connection in use, a statement, a transaction or a listener fails with an
 * `acquire` ConnectionError after `acquireTimeout` instead of waiting
 * forever; the database counts as unavailable (the HTTP adapter's 503), the
 * transactor does not try again, and the pool serves once a connection frees.
 */
describe("PgClientLayer: a busy pool's wait is bounded", () => {
  const busyPool = TestDatabase.postgresLayer({ pool: { maxConnections: 2, acquireTimeout: "150 millis" } })

  /** Holds one of the pool's connections in an open transaction until `release` opens. */
  const hold = (sql: SqlClient.SqlClient, release: Deferred.Deferred<void>) =>
    Effect.gen(function*() {
      const held = yield* Deferred.make<void>()
      yield* Effect.forkScoped(sql.withTransaction(
        Effect.andThen(sql`SELECT 1`, Effect.andThen(Deferred.succeed(held, undefined), Deferred.await(release)))
      ))
      yield* Deferred.await(held)
    })

  const failure = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.exit(effect), (exit) =>
      Exit.isFailure(exit) ? Effect.succeed(Cause.squash(exit.cause)) : Effect.die(new Error("expected a failure")))

  it.live("a statement, a transaction and a listener fail as unavailable; the pool serves once one frees", () =>
    Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(busyPool)
      const sql = Context.get(context, SqlClient.SqlClient)
      const pg = Context.get(context, PgClient.PgClient)
      const release = yield* Deferred.make<void>()
      yield* hold(sql, release)
      yield* hold(sql, release)

      const busyWork: ReadonlyArray<Effect.Effect<unknown, SqlError>> = [
        sql`SELECT 1`,
        sql.withTransaction(sql`SELECT 1`),
        Effect.scoped(pg.listen("teamchat_test"))
      ]
      for (const busy of busyWork) {
        const error = yield* failure(busy)
        assert.isTrue(isSqlError(error))
        if (!isSqlError(error)) return
        assert.isTrue(PgClientLayer.isAcquireTimeout(error))
        assert.isTrue(Persistence.isUnavailable(error))
        assert.isFalse(SqlTransactor.isConnectionLoss(Cause.fail(error)))
        assert.strictEqual(error.reason.message, "PgClient: all 2 connections in use for 150ms")
      }

      yield* Deferred.succeed(release, undefined)
      const [row] = yield* sql<{ one: number }>`SELECT 1 AS one`
      assert.strictEqual(row?.one, 1)
    })))

  it.live("the transactor gives the same failure at once, without a second attempt", () =>
    Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(Layer.provideMerge(SqlTransactor.layer, busyPool))
      const sql = Context.get(context, SqlClient.SqlClient)
      const transactor = Context.get(context, Transactor)
      const release = yield* Deferred.make<void>()
      yield* hold(sql, release)
      yield* hold(sql, release)
      let attempts = 0
      const error = yield* failure(transactor.withTransaction(Effect.sync(() => void attempts++)))
      assert.isTrue(isSqlError(error) && PgClientLayer.isAcquireTimeout(error))
      // The body never ran: no connection was had, and none was waited for twice.
      assert.strictEqual(attempts, 0)
      yield* Deferred.succeed(release, undefined)
      yield* transactor.withTransaction(Effect.sync(() => void attempts++))
      assert.strictEqual(attempts, 1)
    })))
})
