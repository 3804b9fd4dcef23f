import { assert, describe, it, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Context from "effect/Context"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { autovacuumPass } from "../../src/sql/internal/PgliteAutovacuum.ts"
import { parseTimestamp, PgliteClient } from "../../src/sql/PgliteClient.ts"
import * as Migrations from "../../src/sql/Migrations.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { sqlContract } from "./SqlContract.ts"

// One PGlite per block: each instance costs ~3 s of WASM start-up.
layer(TestDatabase.pgliteLayer())("PgliteClient", (it) => {
  sqlContract(it)

  it.effect("provides the same client as PgliteClient and SqlClient", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const pg = yield* PgliteClient
      assert.strictEqual(sql, pg)
      assert.strictEqual(sql.driver, "pglite")
      assert.isFalse(pg.pglite.closed)
    }))

  it.effect("runs with a 16 MB buffer pool (the files are in memory already)", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      assert.deepStrictEqual(yield* sql`SHOW shared_buffers`, [{ shared_buffers: "16MB" }])
      // PGlite's own defaults stay.
      assert.deepStrictEqual(yield* sql`SHOW search_path`, [{ search_path: "public" }])
    }))

  it.effect("runs several statements in one unprepared call", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql.unsafe(`
        DROP TABLE IF EXISTS p_multi;
        CREATE TABLE p_multi (x INT);
        INSERT INTO p_multi VALUES (1), (2);
        SELECT sum(x)::int8 AS total FROM p_multi;
      `).unprepared
      assert.deepStrictEqual(rows, [{ total: 3 }])
    }))

  it.effect("binds json fragments as jsonb", () =>
    Effect.gen(function*() {
      const pg = yield* PgliteClient
      yield* pg`DROP TABLE IF EXISTS p_json`
      yield* pg`CREATE TABLE p_json (id INT PRIMARY KEY, body JSONB NOT NULL)`
      yield* pg`INSERT INTO p_json ${pg.insert({ id: 1, body: pg.json({ a: [1, 2], big: 3n }) })}`
      const rows = yield* pg`SELECT body, ${pg.json(["x"])} AS echoed, ${"plain"} AS text FROM p_json`
      assert.deepStrictEqual(rows, [{ body: { a: [1, 2], big: "3" }, echoed: ["x"], text: "plain" }])
    }))

  it.effect("statements with parameters are prepared once and stay right across rollbacks, errors and schema changes", () =>
    Effect.gen(function*() {
      const pg = yield* PgliteClient
      yield* pg`DROP TABLE IF EXISTS p_prepared`
      yield* pg`CREATE TABLE p_prepared (id INT PRIMARY KEY, label TEXT)`
      const insert = (id: number, label: string) => pg`INSERT INTO p_prepared (id, label) VALUES (${id}, ${label}) RETURNING *`
      const byId = (id: number) => pg`SELECT * FROM p_prepared WHERE id = ${id}`
      const named = pg<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%FROM p_prepared WHERE id = $1%'`
      // Prepared in a transaction that rolls back: the statement stays usable, the row does not.
      const rolledBack = yield* Effect.exit(pg.withTransaction(Effect.andThen(insert(1, "gone"), Effect.fail("undo"))))
      assert.isTrue(rolledBack._tag === "Failure")
      assert.deepStrictEqual(yield* insert(2, "kept"), [{ id: 2, label: "kept" }])
      // A failing execution leaves the connection ready; in a transaction it aborts it as usual.
      const duplicate = yield* Effect.flip(insert(2, "again"))
      assert.strictEqual(duplicate.reason._tag, "UniqueViolation")
      assert.deepStrictEqual(yield* byId(2), [{ id: 2, label: "kept" }])
      const inTransaction = yield* Effect.flip(pg.withTransaction(Effect.andThen(Effect.ignore(insert(2, "x")), byId(2))))
      assert.include(String(inTransaction.reason.cause), "current transaction is aborted")
      assert.isFalse(pg.pglite.isInTransaction())
      // A transaction whose failed statement was caught does not commit: its COMMIT is refused.
      const swallowed = yield* Effect.flip(pg.withTransaction(Effect.ignore(insert(2, "x"))))
      assert.include(swallowed.message, "COMMIT rolled back an aborted transaction")
      assert.isFalse(pg.pglite.isInTransaction())
      // Each text is prepared once, however often it runs.
      for (let i = 0; i < 5; i++) yield* byId(2)
      assert.deepStrictEqual(yield* named, [{ n: 1 }])
      // A batch (more than 32 parameters) runs unprepared: its text varies with its size. Only the
      // one-row insert above is kept.
      const ids = Array.from({ length: 40 }, (_, i) => 100 + i)
      const [first, ...rest] = ids.map((id): Record<string, unknown> => ({ id, label: `b${id}` }))
      const batch: [Record<string, unknown>, ...Array<Record<string, unknown>>] = [first!, ...rest]
      yield* pg`INSERT INTO p_prepared ${pg.insert(batch)}`
      assert.deepStrictEqual(
        yield* pg<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO p_prepared%'`,
        [{ n: 1 }]
      )
      // The table changes under a prepared `SELECT *`: it is prepared again and sees the new column.
      yield* pg`ALTER TABLE p_prepared ADD COLUMN extra INT`
      assert.deepStrictEqual(yield* byId(2), [{ id: 2, label: "kept", extra: null }])
      // Parameters are serialized by the types PostgreSQL inferred for them.
      const typed = pg`SELECT ${7} + 1 AS sum, ${"a"} || 'b' AS text, ${true}::boolean AS flag, ${null}::int AS nothing`
      assert.deepStrictEqual(yield* typed, [{ sum: 8, text: "ab", flag: true, nothing: null }])
    }))

  it.effect("delivers NOTIFY payloads to listen streams by exact channel name", () =>
    Effect.gen(function*() {
      const pg = yield* PgliteClient
      const listening = (channel: string) =>
        Effect.map(
          pg<{ c: string }>`SELECT c FROM pg_listening_channels() AS c WHERE c = ${channel}`,
          (rows) => rows.length > 0
        )

      const received = yield* Effect.forkChild(Stream.runCollect(Stream.take(pg.listen("Room_1"), 2)))
      const lower = yield* Effect.forkChild(Stream.runCollect(Stream.take(pg.listen("room_1"), 1)))
      // LISTEN runs when the stream starts; wait for the server to confirm it.
      yield* Effect.repeat(listening("Room_1"), { until: (yes) => yes })
      yield* Effect.repeat(listening("room_1"), { until: (yes) => yes })

      yield* pg.notify("Room_1", "first")
      // Inside a transaction NOTIFY is delivered on commit.
      yield* pg.withTransaction(pg.notify("Room_1", "second"))
      yield* pg.notify("room_1", "lower")

      assert.deepStrictEqual(Array.from(yield* Fiber.join(received)), ["first", "second"])
      assert.deepStrictEqual(Array.from(yield* Fiber.join(lower)), ["lower"])
      // The last subscriber leaving issues UNLISTEN.
      assert.isFalse(yield* listening("Room_1"))
      assert.isFalse(yield* listening("room_1"))

      const invalid = yield* Effect.flip(pg.notify("x".repeat(64), "too long"))
      assert.strictEqual(invalid.reason._tag, "UnknownError")
    }))

  it.effect("lets other fibers run while one fiber issues statements back to back", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      let ran = false
      yield* Effect.forkChild(Effect.sync(() => {
        ran = true
      }))
      let statements = 0
      while (!ran && statements < 500) {
        yield* sql`SELECT 1 AS one`
        statements++
      }
      assert.isTrue(ran)
      assert.isBelow(statements, 5)
    }))

  it.effect("never interleaves a transaction with other statements on the single connection", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`DROP TABLE IF EXISTS p_serial`
      yield* sql`CREATE TABLE p_serial (id INT PRIMARY KEY)`
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const transaction = yield* Effect.forkChild(Effect.exit(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO p_serial (id) VALUES (1)`
        yield* Deferred.succeed(started, undefined)
        yield* Deferred.await(release)
        return yield* Effect.fail("abandon")
      }))))
      yield* Deferred.await(started)
      const outside = yield* Effect.forkChild(sql<{ n: number }>`SELECT count(*) AS n FROM p_serial`)
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      assert.isUndefined(outside.pollUnsafe(), "the statement waits for the transaction to end")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(transaction)
      assert.deepStrictEqual(yield* Fiber.join(outside), [{ n: 0 }])
    }))

  it.effect("an autovacuum pass vacuums tables past PostgreSQL's dead-row threshold and analyzes changed ones", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`
        DROP TABLE IF EXISTS av_dead, av_new;
        CREATE TABLE av_dead (id INT PRIMARY KEY, n INT);
        INSERT INTO av_dead SELECT g, 0 FROM generate_series(1, 1000) g;
      `).unprepared
      // Analyzed once, then every row updated: 1,000 dead rows past 50 + 20 % of 1,000.
      yield* sql.unsafe(`ANALYZE av_dead`)
      yield* sql.unsafe(`UPDATE av_dead SET n = n + 1`)
      yield* sql.unsafe(`CREATE TABLE av_new (id INT); INSERT INTO av_new SELECT generate_series(1, 500);`).unprepared
      const stats = Effect.gen(function*() {
        // Statistics reach the shared counters when a statement ends; force it.
        yield* sql.unsafe(`SELECT pg_stat_force_next_flush()`)
        yield* sql.unsafe(`SELECT 1`)
        return yield* sql.unsafe<{ relname: string; n_dead_tup: number; vacuum_count: number; analyze_count: number }>(
          `SELECT relname, n_dead_tup::int, vacuum_count::int, analyze_count::int FROM pg_stat_user_tables
          WHERE relname IN ('av_dead', 'av_new') ORDER BY relname`
        )
      })
      const before = yield* stats
      assert.deepStrictEqual(before.map((r) => [r.relname, r.n_dead_tup, r.vacuum_count]), [["av_dead", 1000, 0], ["av_new", 0, 0]])
      const done = (yield* autovacuumPass(sql)).filter((c) => c.table.startsWith("public.av_"))
      assert.deepStrictEqual(done, [{ table: "public.av_dead", vacuum: true }, { table: "public.av_new", vacuum: false }])
      const after = yield* stats
      assert.deepStrictEqual(
        after.map((r) => [r.relname, r.n_dead_tup, r.vacuum_count, r.analyze_count]),
        [["av_dead", 0, 1, 2], ["av_new", 0, 0, 1]]
      )
      // The planner now knows av_new's size.
      assert.deepStrictEqual(yield* sql`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'av_new'`, [{ n: 500 }])
      // Nothing left to do for them.
      const again = (yield* autovacuumPass(sql)).filter((c) => c.table.startsWith("public.av_"))
      assert.deepStrictEqual(again, [])
    }))

})

describe("PgliteClient lifecycle", () => {
  it.live("vacuums on its own, every autovacuumIntervalSeconds", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(PgliteClient.layer({ autovacuumIntervalSeconds: 1 }))
      const sql = Context.get(context, PgliteClient)
      yield* sql.unsafe(`
        CREATE TABLE churn (id INT PRIMARY KEY, n INT);
        INSERT INTO churn SELECT g, 0 FROM generate_series(1, 1000) g;
        UPDATE churn SET n = n + 1;
      `).unprepared
      // Polled, not timed: the pass comes within a second or so.
      let vacuums = 0
      for (let i = 0; i < 100 && vacuums === 0; i++) {
        yield* Effect.sleep("200 millis")
        yield* sql.unsafe(`SELECT pg_stat_force_next_flush()`)
        const [row] = yield* sql.unsafe<{ vacuums: number }>(
          `SELECT vacuum_count::int AS vacuums FROM pg_stat_user_tables WHERE relname = 'churn'`
        )
        vacuums = row?.vacuums ?? 0
      }
      // At least one: a loaded machine may see two passes between two looks.
      assert.isAtLeast(vacuums, 1)
    }).pipe(Effect.scoped), 60_000)

  it.effect("closes PGlite when the layer's scope closes", () =>
    Effect.gen(function*() {
      const pglite = yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(PgliteClient.layer({ dataDir: "memory://" }))
        const pg = Context.get(context, PgliteClient)
        assert.deepStrictEqual(yield* pg`SELECT 1 AS one`, [{ one: 1 }])
        return pg.pglite
      }))
      assert.isTrue(pglite.closed)
    }))

  it.effect("persists data in a dataDir across layer lifetimes", () =>
    Effect.gen(function*() {
      const dataDir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "teamchat-pglite-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
        Effect.provide(effect, PgliteClient.layer({ dataDir }))

      yield* run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE kept (id BIGSERIAL PRIMARY KEY, note TEXT NOT NULL)`
        yield* sql.withTransaction(sql`INSERT INTO kept (note) VALUES ('survives'), ('restarts')`)
      }))
      const rows = yield* run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql`SELECT id, note FROM kept ORDER BY id`
      }))
      assert.deepStrictEqual(rows, [{ id: 1, note: "survives" }, { id: 2, note: "restarts" }])
    }), 120_000)

  it.effect("creates a new dataDir (in a child process) as PGlite creates an in-memory one", () =>
    Effect.gen(function*() {
      const parent = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "teamchat-pglite-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      // A directory that does not exist yet, as the server's first start gives it.
      const dataDir = join(parent, "pgdata")
      const describe = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const settings = yield* sql.unsafe(
          `SELECT name, setting FROM pg_settings WHERE name IN
            ('server_encoding', 'lc_collate', 'lc_ctype', 'wal_segment_size', 'data_checksums', 'shared_buffers', 'search_path')
          ORDER BY name`
        )
        const databases = yield* sql.unsafe(
          `SELECT datname, datcollate, datctype, pg_encoding_to_char(encoding) AS encoding FROM pg_database ORDER BY datname`
        )
        return { settings, databases }
      })
      const created = yield* Effect.provide(describe, PgliteClient.layer({ dataDir }))
      assert.isTrue(existsSync(join(dataDir, "PG_VERSION")))
      const inMemory = yield* Effect.provide(describe, PgliteClient.layer({ dataDir: "memory://" }))
      assert.deepStrictEqual(created, inMemory)
    }), 120_000)

  it.effect("fails with a SqlError when the dataDir cannot be created", () =>
    Effect.gen(function*() {
      const parent = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "teamchat-pglite-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const file = join(parent, "a-file")
      writeFileSync(file, "")
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(PgliteClient.layer({ dataDir: join(file, "pgdata") }))))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Cause.squash((exit as Exit.Failure<unknown, unknown>).cause)), "SqlError")
    }), 60_000)
})

describe("parseTimestamp", () => {
  it("reads PostgreSQL's ISO text like @effect/sql-pg's binary codec", () => {
    assert.strictEqual(parseTimestamp("2024-01-02 03:04:05").toISOString(), "2024-01-02T03:04:05.000Z")
    assert.strictEqual(parseTimestamp("2024-01-02 03:04:05.1+00").toISOString(), "2024-01-02T03:04:05.100Z")
    assert.strictEqual(parseTimestamp("2024-01-02 03:04:05.999999-05:30").toISOString(), "2024-01-02T08:34:05.999Z")
    assert.strictEqual(parseTimestamp("0044-03-15 12:00:00+00").toISOString(), "0044-03-15T12:00:00.000Z")
    assert.strictEqual(parseTimestamp("0044-03-15 12:00:00+00 BC").getUTCFullYear(), -43)
    assert.isTrue(Number.isNaN(parseTimestamp("-infinity").getTime()))
  })
})

describe("TestDatabase.pgliteLayer (databases copied from one empty template)", () => {
  const tables = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return (yield* sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)
      .map((row) => row.name)
  })

  it.effect("each build is a new, empty database: a table made in one is absent from the next", () =>
    Effect.gen(function*() {
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(TestDatabase.pgliteLayer())
        return yield* Effect.provide(
          Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            yield* sql`CREATE TABLE only_here (id int)`
            yield* sql`INSERT INTO only_here VALUES (1)`
            return yield* tables
          }),
          context
        )
      }))
      assert.deepStrictEqual(first, ["only_here"])
      const second = yield* Effect.provide(tables, TestDatabase.pgliteLayer())
      assert.deepStrictEqual(second, [])
    }))

  it.effect("the template is an empty database's data directory, the same for every build", () =>
    Effect.gen(function*() {
      const first = yield* TestDatabase.pgliteTemplate
      const second = yield* TestDatabase.pgliteTemplate
      assert.isAbove(first.size, 1_000_000)
      assert.strictEqual(second.size, first.size)
      const head = new Uint8Array(yield* Effect.promise(() => first.slice(0, 512).arrayBuffer()))
      // A tar header: "ustar" at byte 257.
      assert.strictEqual(new TextDecoder().decode(head.slice(257, 262)), "ustar")
    }))

  it.effect("the migrated template has every migration applied, and migrating it again runs none", () =>
    Effect.gen(function*() {
      const applied = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return (yield* sql<{ name: string }>`SELECT name FROM effect_sql_migrations ORDER BY migration_id`)
          .map((row) => row.name)
      })
      const expected = Object.keys(Migrations.migrations).map((key) => key.slice(key.indexOf("_") + 1))
      const context = yield* Layer.build(TestDatabase.pgliteMigratedLayer())
      assert.deepStrictEqual(yield* Effect.provide(applied, context), expected)
      assert.include(yield* Effect.provide(tables, context), "realms")
      yield* Layer.build(Migrations.layer.pipe(Layer.provide(Layer.succeedContext(context))))
      assert.deepStrictEqual(yield* Effect.provide(applied, context), expected)
    }))
})

