/**
 * Database layers for tests: a fresh in-memory PGlite, or a fresh, uniquely
 * named database on a real PostgreSQL server that is dropped afterwards.
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { createHash, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Exit from "effect/Exit"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as Migrator from "effect/sql/Migrator"
import { SqlError, UnknownError } from "effect/sql/SqlError"
import type * as Scope from "effect/Scope"
import { fileURLToPath } from "node:url"
import * as PgClientLayer from "../sql/PgClientLayer.ts"
import * as Migrations from "../sql/Migrations.ts"
import { PgliteClient, type PgliteClientConfig } from "../sql/PgliteClient.ts"

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

/**
 * A fresh in-memory PGlite; each build of the layer is a new database. It
 * starts from a copy of an empty database made once (`pgliteTemplate`)
 * instead of running initdb: about 0.6 s instead of 3.5 s per database.
 */
export const pgliteLayer = (): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.unwrap(Effect.map(pgliteTemplate, (loadDataDir) => PgliteClient.layer({ loadDataDir })))

/**
 * `pgliteLayer` with teamchat's schema already in place: a copy of a database
 * migrated once (`pgliteMigratedTemplate`), for the layers that migrate
 * (`Persistence.layerSql`, which then finds nothing pending). Saves running
 * every migration for each database.
 */
export const pgliteMigratedLayer = (): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.unwrap(Effect.map(pgliteMigratedTemplate, (loadDataDir) => PgliteClient.layer({ loadDataDir })))

/**
 * Caches a template (a PGlite data directory as a tarball) made at most once
 * per process, and once per machine while `key` stays the same: kept in the
 * system's temporary directory, so every test process and run after the
 * first reads it instead of making it again. A file is written under a
 * temporary name and renamed, so a reader never sees half of one; processes
 * racing to make it each write a whole one. A failure is not kept: the next
 * database tries again.
 */
const cachedTemplate = (
  name: string,
  key: () => string | undefined,
  make: Effect.Effect<Blob, SqlError | Migrator.MigrationError>
): Effect.Effect<Blob, SqlError> => {
  let load: Promise<Exit.Exit<Blob, SqlError>> | undefined
  const loadOrMake = Effect.gen(function*() {
    const k = key()
    const file = k === undefined ? undefined : path.join(os.tmpdir(), `teamchat-pglite-${name}-${k}.tar`)
    if (file !== undefined && fs.existsSync(file)) return yield* Effect.promise(() => fs.openAsBlob(file))
    const dump = yield* make.pipe(Effect.mapError((error) =>
      error._tag === "SqlError" ? error : new SqlError({
        reason: new UnknownError({ cause: error, message: `TestDatabase: could not migrate the ${name} template` })
      })
    ))
    if (file === undefined) return dump
    const bytes = new Uint8Array(yield* Effect.promise(() => dump.arrayBuffer()))
    const temporary = `${file}.${process.pid}.${randomUUID()}`
    yield* Effect.sync(() => {
      fs.writeFileSync(temporary, bytes)
      fs.renameSync(temporary, file)
    })
    return new Blob([bytes])
  })
  return Effect.suspend(() => {
    const current = load ??= Effect.runPromiseExit(loadOrMake)
    return Effect.flatMap(Effect.promise(() => current), (exit) => {
      if (Exit.isFailure(exit) && load === current) load = undefined
      return exit
    })
  })
}

const hash = (...parts: ReadonlyArray<string>): string => {
  const digest = createHash("sha256")
  for (const part of parts) digest.update(part).update("\0")
  return digest.digest("hex").slice(0, 16)
}

/** The installed PGlite (its resolved path names its version). */
const pgliteEntry = (): string => createRequire(import.meta.url).resolve("@electric-sql/pglite")

/** A database's data directory after `setup`, as a tarball. */
const dumpAfter = <E>(
  base: PgliteClientConfig,
  setup: (context: Context.Context<PgliteClient | SqlClient.SqlClient>) => Effect.Effect<void, E, Scope.Scope>
): Effect.Effect<Blob, SqlError | E> =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(PgliteClient.layer({ ...base, autovacuumIntervalSeconds: 0 }))
    yield* setup(context)
    return yield* Effect.promise(() => Context.get(context, PgliteClient).pglite.dumpDataDir("none"))
  }))

/** An empty database's data directory: one per installed PGlite. */
export const pgliteTemplate: Effect.Effect<Blob, SqlError> = cachedTemplate(
  "empty",
  () => hash(pgliteEntry()),
  dumpAfter({}, () => Effect.void)
)

/**
 * A migrated database's data directory: one per installed PGlite and content
 * of `sql/Migrations.ts` (which holds every migration). Where that source is
 * not beside this module (a build), it is made once per process instead.
 */
export const pgliteMigratedTemplate: Effect.Effect<Blob, SqlError> = cachedTemplate(
  "migrated",
  () => {
    const source = fileURLToPath(new URL("../sql/Migrations.ts", import.meta.url))
    return fs.existsSync(source) ? hash(pgliteEntry(), fs.readFileSync(source, "utf8")) : undefined
  },
  Effect.flatMap(pgliteTemplate, (loadDataDir) =>
    dumpAfter({ loadDataDir }, (context) => Effect.asVoid(Layer.build(Migrations.layer.pipe(Layer.provide(Layer.succeedContext(context)))))))
)

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
