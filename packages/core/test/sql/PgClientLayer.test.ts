import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
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
