/**
 * Behaviour every SqlClient backend of ours must share; run against PGlite
 * and against a real PostgreSQL so domain code sees the same thing on both.
 */
import { assert, type Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import * as Stream from "effect/Stream"

/** Drops and recreates one table per test, so tests sharing a database stay independent. */
const freshTable = (sql: SqlClient.SqlClient, name: string, columns: string) =>
  Effect.andThen(
    sql`DROP TABLE IF EXISTS ${sql(name)} CASCADE`,
    sql.unsafe(`CREATE TABLE ${name} (${columns})`)
  )

const assertSqlError = (u: unknown): SqlError => {
  assert.isTrue(isSqlError(u), `expected a SqlError, got ${String(u)}`)
  return u as SqlError
}

class Boom {
  readonly _tag = "Boom"
}

export const sqlContract = (it: Vitest.MethodsNonLive<SqlClient.SqlClient>): void => {
  it.effect("selects and inserts with parameters", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* freshTable(sql, "c_items", "id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, qty INT NOT NULL")
      const [inserted] = yield* sql<{ id: number }>`INSERT INTO c_items (name, qty) VALUES (${"apple"}, ${3}) RETURNING id`
      assert.strictEqual(inserted.id, 1)
      const rows = yield* sql`SELECT id, name, qty FROM c_items WHERE name = ${"apple"} AND qty > ${1}`
      assert.deepStrictEqual(rows, [{ id: 1, name: "apple", qty: 3 }])
    }))

  it.effect("expands sql.in and sql.insert", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* freshTable(sql, "c_people", "id INT PRIMARY KEY, name TEXT NOT NULL")
      const returned = yield* sql<{ id: number; name: string }>`INSERT INTO c_people ${
        sql.insert([{ id: 1, name: "ann" }, { id: 2, name: "bob" }, { id: 3, name: "cid" }]).returning("*")
      }`
      assert.deepStrictEqual(returned, [{ id: 1, name: "ann" }, { id: 2, name: "bob" }, { id: 3, name: "cid" }])
      const picked = yield* sql`SELECT name FROM c_people WHERE id IN ${sql.in([1, 3])} ORDER BY id`
      assert.deepStrictEqual(picked, [{ name: "ann" }, { name: "cid" }])
      const none = yield* sql`SELECT name FROM c_people WHERE ${sql.in("id", [])}`
      assert.deepStrictEqual(none, [])
      const [single] = yield* sql`INSERT INTO c_people ${sql.insert({ id: 4, name: "dee" })} RETURNING name`
      assert.strictEqual(single.name, "dee")
    }))

  it.effect("reads rows as values and as a stream", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const values = yield* sql`SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, 'y' ORDER BY a`.values
      assert.deepStrictEqual(values, [[1, "x"], [2, "y"]])
      const streamed = yield* Stream.runCollect(sql`SELECT generate_series(1, 3) AS n`.stream)
      assert.deepStrictEqual(Array.from(streamed), [{ n: 1 }, { n: 2 }, { n: 3 }])
    }))

  it.effect("stores and reads json columns", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* freshTable(sql, "c_docs", "id INT PRIMARY KEY, body JSONB NOT NULL, extra JSON")
      const body = { title: "hi", tags: ["a", "b"], nested: { n: 1, ok: true, none: null } }
      // A JSON string bound to a json(b) column is the portable way to write json.
      yield* sql`INSERT INTO c_docs ${sql.insert({ id: 1, body: JSON.stringify(body), extra: JSON.stringify([1, 2]) })}`
      yield* sql`INSERT INTO c_docs (id, body) VALUES (2, ${JSON.stringify({ n: 2 })}::jsonb)`
      const rows = yield* sql`SELECT id, body, extra FROM c_docs ORDER BY id`
      assert.deepStrictEqual(rows, [
        { id: 1, body, extra: [1, 2] },
        { id: 2, body: { n: 2 }, extra: null }
      ])
      const [found] = yield* sql`SELECT body->>'title' AS title FROM c_docs WHERE body @> ${JSON.stringify({ tags: ["b"] })}::jsonb`
      assert.strictEqual(found.title, "hi")
    }))

  it.effect("returns int8, dates and other types identically on every backend", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql`SELECT
        9007199254740991::int8 AS big,
        (SELECT count(*) FROM generate_series(1, 5)) AS n,
        ARRAY[1, 2]::int8[] AS ids,
        ${12345678901}::int8 AS param_big,
        ${10n}::int8 AS param_bigint,
        1.50::numeric AS amount,
        DATE '2024-02-29' AS day,
        TIMESTAMPTZ '2024-01-02 03:04:05.678999+00' AS at,
        TIMESTAMPTZ '2024-01-02 05:34:05.678999+02:30' AS offset_at,
        TIMESTAMP '2024-01-02 03:04:05.678999' AS wall,
        TIMESTAMPTZ '1999-12-31 23:59:59.9995+00' AS before_epoch,
        TIMESTAMPTZ 'infinity' AS forever,
        ${new Date("2020-05-06T07:08:09.123Z")}::timestamptz AS param_date,
        '\\x0102'::bytea AS bytes,
        1.5::float8 AS ratio,
        true AS flag,
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS uid,
        NULL::text AS nothing`
      assert.strictEqual(row.big, Number.MAX_SAFE_INTEGER)
      assert.strictEqual(row.n, 5)
      assert.deepStrictEqual(row.ids, [1, 2])
      assert.strictEqual(row.param_big, 12345678901)
      assert.strictEqual(row.param_bigint, 10)
      assert.strictEqual(row.amount, "1.50")
      assert.strictEqual(row.day, "2024-02-29")
      assert.instanceOf(row.at, Date)
      assert.strictEqual((row.at as Date).toISOString(), "2024-01-02T03:04:05.678Z")
      assert.strictEqual((row.offset_at as Date).toISOString(), "2024-01-02T03:04:05.678Z")
      assert.strictEqual((row.wall as Date).toISOString(), "2024-01-02T03:04:05.678Z")
      // Microseconds are truncated toward the PostgreSQL epoch (2000-01-01).
      assert.strictEqual((row.before_epoch as Date).toISOString(), "2000-01-01T00:00:00.000Z")
      assert.isTrue(Number.isNaN((row.forever as Date).getTime()))
      assert.strictEqual((row.param_date as Date).toISOString(), "2020-05-06T07:08:09.123Z")
      assert.deepStrictEqual(Array.from(row.bytes as Uint8Array), [1, 2])
      assert.strictEqual(row.ratio, 1.5)
      assert.strictEqual(row.flag, true)
      assert.strictEqual(row.uid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
      assert.strictEqual(row.nothing, null)
    }))

  // Both halves of the 64 bits, signs, the 2^53 edge (where numbers start
  // rounding) and both ends of the range.
  const int8Texts = [
    "0", "1", "-1", "255", "-256", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295",
    "4294967296", "-4294967296", "-4294967297", "1234567890123", "-1234567890123", "9007199254740991",
    "-9007199254740991", "9007199254740993", "-9007199254740993", "1234567890123456789", "9223372036854775807",
    "-9223372036854775808"
  ]

  it.effect("returns every int8 as the nearest number, alone, in arrays and as parameters, on every backend", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const expected = int8Texts.map((text) => Number(BigInt(text)))
      const rows = yield* sql<{ value: unknown }>`
        SELECT t.text::int8 AS value
        FROM unnest(${`{${int8Texts.join(",")}}`}::text[]) WITH ORDINALITY AS t(text, i) ORDER BY t.i`
      assert.deepStrictEqual(rows.map((row) => row.value), expected)
      const [array] = yield* sql<{ values: unknown }>`SELECT ${`{${int8Texts.join(",")}}`}::int8[] AS values`
      assert.deepStrictEqual(array.values, expected)
      for (const text of int8Texts) {
        const big = BigInt(text)
        const [row] = yield* sql<{ value: unknown; text: string }>`SELECT ${big}::int8 AS value, ${big}::int8::text AS text`
        assert.deepStrictEqual([row.value, row.text], [Number(big), text])
        if (Number.isSafeInteger(Number(big))) {
          const [fromNumber] = yield* sql<{ value: unknown }>`SELECT ${Number(big)}::int8 AS value`
          assert.strictEqual(fromNumber.value, Number(big))
        }
      }
    }))

  it.effect("commits a transaction", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* freshTable(sql, "c_tx_commit", "id INT PRIMARY KEY")
      const result = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO c_tx_commit ${sql.insert([{ id: 1 }, { id: 2 }])}`
        return "done"
      }))
      assert.strictEqual(result, "done")
      const rows = yield* sql`SELECT id FROM c_tx_commit ORDER BY id`
      assert.deepStrictEqual(rows, [{ id: 1 }, { id: 2 }])
    }))

  it.effect("rolls a transaction back when it fails", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* freshTable(sql, "c_tx_rollback", "id INT PRIMARY KEY")
      const error = yield* Effect.flip(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO c_tx_rollback (id) VALUES (1)`
        return yield* Effect.fail(new Boom())
      })))
      assert.instanceOf(error, Boom)
      const rows = yield* sql`SELECT id FROM c_tx_rollback`
      assert.deepStrictEqual(rows, [])
    }))

  it.effect("fails the whole transaction when a statement failed, even if the error was swallowed", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* freshTable(sql, "c_tx_aborted", "id INT PRIMARY KEY")
      yield* sql`INSERT INTO c_tx_aborted (id) VALUES (1)`
      const error = yield* Effect.flip(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO c_tx_aborted (id) VALUES (2)`
        // Swallowing this leaves PostgreSQL's transaction aborted.
        yield* Effect.ignore(sql`INSERT INTO c_tx_aborted (id) VALUES (1)`)
        return "looks fine"
      })))
      assertSqlError(error)
      const rows = yield* sql`SELECT id FROM c_tx_aborted ORDER BY id`
      assert.deepStrictEqual(rows, [{ id: 1 }])
      // The connection is usable again.
      yield* sql.withTransaction(sql`INSERT INTO c_tx_aborted (id) VALUES (3)`)
      assert.deepStrictEqual(yield* sql`SELECT count(*) AS n FROM c_tx_aborted`, [{ n: 2 }])
    }))

  it.effect("nests transactions as savepoints", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* freshTable(sql, "c_tx_nested", "id INT PRIMARY KEY")
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO c_tx_nested (id) VALUES (1)`
        // A failing effect rolls back only its savepoint.
        const failed = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO c_tx_nested (id) VALUES (2)`
          return yield* Effect.fail(new Boom())
        })))
        assert.isTrue(Exit.isFailure(failed))
        // A failing statement too: the savepoint is the way to recover inside a transaction.
        const duplicate = yield* Effect.flip(sql.withTransaction(sql`INSERT INTO c_tx_nested (id) VALUES (1)`))
        assert.strictEqual(duplicate.reason._tag, "UniqueViolation")
        yield* sql.withTransaction(sql`INSERT INTO c_tx_nested (id) VALUES (3)`)
      }))
      const rows = yield* sql`SELECT id FROM c_tx_nested ORDER BY id`
      assert.deepStrictEqual(rows, [{ id: 1 }, { id: 3 }])
    }))

  it.effect("classifies unique violations with the constraint name", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* freshTable(sql, "c_users", "id INT PRIMARY KEY, email TEXT NOT NULL CONSTRAINT c_users_email_key UNIQUE")
      yield* sql`INSERT INTO c_users (id, email) VALUES (1, 'a@example.com')`
      const error = yield* Effect.flip(sql`INSERT INTO c_users (id, email) VALUES (2, 'a@example.com')`)
      assert.strictEqual(error.reason._tag, "UniqueViolation")
      if (error.reason._tag === "UniqueViolation") {
        assert.strictEqual(error.reason.constraint, "c_users_email_key")
      }
      const recovered = yield* sql`INSERT INTO c_users (id, email) VALUES (3, 'a@example.com')`.pipe(
        Effect.as("inserted"),
        Effect.catchReason("SqlError", "UniqueViolation", (reason) => Effect.succeed(reason.constraint))
      )
      assert.strictEqual(recovered, "c_users_email_key")
      const notNull = yield* Effect.flip(sql`INSERT INTO c_users (id, email) VALUES (4, NULL)`)
      assert.strictEqual(notNull.reason._tag, "ConstraintError")
    }))

  it.effect("classifies syntax errors and unknown relations", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const syntax = yield* Effect.flip(sql`SELEC 1`)
      assert.strictEqual(syntax.reason._tag, "SqlSyntaxError")
      const missing = yield* Effect.flip(sql`SELECT * FROM c_no_such_table`)
      assert.strictEqual(missing.reason._tag, "SqlSyntaxError")
      const division = yield* Effect.flip(sql`SELECT 1 / 0 AS x`)
      assert.strictEqual(division.reason._tag, "UnknownError")
    }))

  it.effect("runs afterCommit callbacks only after a commit", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* freshTable(sql, "c_after", "id INT PRIMARY KEY")
      const log: Array<string> = []
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO c_after (id) VALUES (1)`
        yield* sql.afterCommit(Effect.sync(() => log.push("committed")))
        assert.deepStrictEqual(log, [], "callbacks wait for COMMIT")
      }))
      assert.deepStrictEqual(log, ["committed"])

      yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
        yield* sql.afterCommit(Effect.sync(() => log.push("rolled back")))
        return yield* Effect.fail(new Boom())
      })))
      yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
        yield* sql.afterCommit(Effect.sync(() => log.push("aborted")))
        yield* Effect.ignore(sql`INSERT INTO c_after (id) VALUES (1)`)
      })))
      assert.deepStrictEqual(log, ["committed"])
    }))

  it.effect("runs effect's Migrator once per migration", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`DROP TABLE IF EXISTS c_migrated_users, c_migrations`
      const migrate = Migrator.make({})({
        table: "c_migrations",
        loader: Migrator.fromRecord({
          "0001_create_users": Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            yield* sql`CREATE TABLE c_migrated_users (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL)`
          }),
          "0002_seed_users": Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            yield* sql`INSERT INTO c_migrated_users ${sql.insert([{ name: "ann" }, { name: "bob" }])}`
          })
        })
      })
      assert.deepStrictEqual(yield* migrate, [[1, "create_users"], [2, "seed_users"]])
      assert.deepStrictEqual(yield* migrate, [])
      const users = yield* sql`SELECT id, name FROM c_migrated_users ORDER BY id`
      assert.deepStrictEqual(users, [{ id: 1, name: "ann" }, { id: 2, name: "bob" }])
      const recorded = yield* sql`SELECT migration_id, name FROM c_migrations ORDER BY migration_id`
      assert.deepStrictEqual(recorded, [{ migration_id: 1, name: "create_users" }, { migration_id: 2, name: "seed_users" }])
    }))
}
