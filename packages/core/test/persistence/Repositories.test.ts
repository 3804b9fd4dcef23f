/**
 * The repository contract on every backend: memory, PGlite and PostgreSQL
 * (a fresh database per block on the server named by TEST_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/test), plus the convenience
 * layers of Persistence.ts on a database that outlives one layer, and a
 * migration that reads rows written before it.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Migrations from "../../src/sql/Migrations.ts"
import * as Persistence from "../../src/Persistence.ts"
import { RealmRepo } from "../../src/ports/Repositories.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { newRealm } from "./MessagesFixtures.ts"
import { repositoryContract } from "./RepositoryContract.ts"

repositoryContract("memory", () => Persistence.layerMemory)

repositoryContract("PGlite", () => Persistence.layerSql.pipe(Layer.provide(TestDatabase.pgliteMigratedLayer())))

repositoryContract("PostgreSQL", () => Persistence.layerSql.pipe(Layer.provide(TestDatabase.postgresLayer())))


/** Opens `open()` twice: data written the first time is there the second, and no migration runs again. */
const reopen = <E>(open: () => Layer.Layer<Persistence.Persistence | SqlClient.SqlClient, E>) =>
  Effect.gen(function*() {
    const first = yield* Effect.gen(function*() {
      return yield* (yield* RealmRepo).insert(newRealm("persisted"))
    }).pipe(Effect.provide(open()))
    assert.strictEqual(first.id, 1)

    const [list, rerun] = yield* Effect.gen(function*() {
      return [yield* (yield* RealmRepo).list, yield* Migrator.make({})({ loader: Migrations.loader })] as const
    }).pipe(Effect.provide(open()))
    assert.deepStrictEqual(list, [first])
    assert.deepStrictEqual(rerun, [])
  })

describe("Persistence convenience layers", () => {
  it.effect("layerPglite(dataDir) migrates once and keeps data across reopenings", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "teamchat-pglite-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      yield* reopen(() => Persistence.layerPglite(dir))
    }), 120_000)

  layer(TestDatabase.postgresLayer(), { timeout: "60 seconds" })("layerPostgres", (it) => {
    it.effect("layerPostgres(url) migrates once and keeps data across reopenings", () =>
      Effect.gen(function*() {
        const database = yield* TestDatabase.TestDatabase
        yield* reopen(() => Persistence.layerPostgres(database.url, { maxConnections: 2 }))
      }))
  })
})

describe("migration 0017_demo_organization", () => {
  const before = Migrator.fromRecord(Object.fromEntries(Object.entries(Migrations.migrations).filter(([id]) => id < "0017")))
  const cases: ReadonlyArray<readonly [ReadonlyArray<readonly [string, string]>, ReadonlyArray<unknown>]> = [
    // Seeded by the demo before the migration: its string id and placeholder domain.
    [[["zulip", "zulipdev.com"], ["acme", "zulipdev.com"]], [{ string_id: "zulip", demo: true }, { string_id: "acme", demo: false }]],
    // create-organization --string-id zulip: the domain is its URL's host.
    [[["zulip", "localhost"]], [{ string_id: "zulip", demo: false }]]
  ]
  it.live("marks an organization the demo seed made before it, and no other", () =>
    Effect.forEach(cases, ([rows, expected]) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrator.make({})({ loader: before })
        for (const [stringId, domain] of rows) {
          yield* sql`INSERT INTO realms (string_id, name, description, url, fake_email_domain, deactivated, date_created, settings)
            VALUES (${stringId}, ${stringId}, '', 'http://localhost:9991', ${domain}, FALSE, 0, '{}')`
        }
        const applied = yield* Migrator.make({})({ loader: Migrations.loader })
        assert.deepStrictEqual(applied[0], [17, "demo_organization"])
        assert.deepStrictEqual(yield* sql`SELECT string_id, demo FROM realms ORDER BY id`, expected)
      }).pipe(Effect.provide(TestDatabase.postgresLayer()))), 60_000)
})
