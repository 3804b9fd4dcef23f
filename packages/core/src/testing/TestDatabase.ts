/**
 * Database layers for tests: a fresh in-memory PGlite, or a fresh, uniquely
 * named database on a real PostgreSQL server that is dropped afterwards.
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { randomUUID } from "node:crypto"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as PgClientLayer from "../sql/PgClientLayer.ts"
import { PgliteClient } from "../sql/PgliteClient.ts"

/** The server used when `TEST_DATABASE_URL` is not set. */
export const defaultAdminUrl = "postgres://postgres@127.0.0.1:5432/test"

/** `TEST_DATABASE_URL`: where test databases are created from and dropped. */
export const adminUrl: Config.Config<string> = Config.String("TEST_DATABASE_URL").pipe(
  Config.withDefault(defaultAdminUrl)
)

/** The database a `postgresLayer` created. */
export class TestDatabase extends Context.Service<TestDatabase, {
  readonly name: string
  /** Connects to the test database. */
  readonly url: string
  /** Connects to the server's administrative database. */
  readonly adminUrl: string
}>()("teamchat/core/testing/TestDatabase") {}

/** A fresh in-memory PGlite; each build of the layer is a new database. */
export const pgliteLayer = (): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> => PgliteClient.layer({})

/**
 * A `SqlClient` on a new database `teamchat_test_<pid>_<random>`, created
 * through `TEST_DATABASE_URL` and dropped `WITH (FORCE)` when the layer's
 * scope closes.
 */
export const postgresLayer = (options: {
  /** Overrides `TEST_DATABASE_URL`. */
  readonly adminUrl?: string | undefined
  /** The client's pool settings (effect's defaults when omitted). */
  readonly pool?: PgClientLayer.PgClientOptions | undefined
} = {}): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | TestDatabase, SqlError | Config.ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const admin = options.adminUrl ?? (yield* adminUrl)
    // Fresh per build, so parallel workers and repeated builds never collide.
    const name = `teamchat_test_${process.pid}_${randomUUID().replaceAll("-", "").slice(0, 12)}`
    const url = databaseUrl(admin, name)
    const database = Layer.effect(
      TestDatabase,
      Effect.acquireRelease(
        Effect.as(createDatabase(admin, name), TestDatabase.of({ name, url, adminUrl: admin })),
        // A database left behind is a bug worth seeing, so failure is a defect.
        () => Effect.orDie(dropDatabase(admin, name))
      )
    )
    // provideMerge: the client closes before the database is dropped.
    return PgClientLayer.layer(url, options.pool).pipe(Layer.provideMerge(database))
  }))

/** `adminUrl` with its database replaced by `name`. */
export const databaseUrl = (adminUrl: string, name: string): string => {
  const url = new URL(adminUrl)
  url.pathname = `/${encodeURIComponent(name)}`
  return url.toString()
}

/** Runs `f` on a short-lived client connected to `adminUrl`. */
const withAdmin = <A>(
  adminUrl: string,
  f: (sql: PgClient.PgClient) => Effect.Effect<A, SqlError>
): Effect.Effect<A, SqlError> => Effect.scoped(Effect.flatMap(PgClientLayer.make(adminUrl, { maxConnections: 1 }), f))

/**
 * Connects once to `adminUrl` and asks nothing: fails when no server answers
 * there or it refuses the login (the tests' global setup, see
 * test/support/TestDatabaseSetup.ts).
 */
export const checkServer = Effect.fn("TestDatabase.checkServer")(function*(adminUrl: string) {
  yield* Effect.scoped(Effect.flatMap(
    PgClientLayer.make(adminUrl, { maxConnections: 1, connectTimeout: "10 seconds" }),
    (sql) => sql`SELECT 1`
  ))
})

export const createDatabase = Effect.fn("TestDatabase.createDatabase")(function*(adminUrl: string, name: string) {
  yield* withAdmin(adminUrl, (sql) => sql`CREATE DATABASE ${sql(name)}`.unprepared)
})

export const dropDatabase = Effect.fn("TestDatabase.dropDatabase")(function*(adminUrl: string, name: string) {
  yield* withAdmin(adminUrl, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`.unprepared)
})

export const databaseExists = Effect.fn("TestDatabase.databaseExists")(function*(adminUrl: string, name: string) {
  const rows = yield* withAdmin(adminUrl, (sql) => sql`SELECT 1 AS found FROM pg_database WHERE datname = ${name}`)
  return rows.length > 0
})
