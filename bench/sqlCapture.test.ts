/**
 * The capture the raw SQL baselines rest on (bench/sqlCapture.ts): what it
 * records of a real client's statements (text, parameters, method,
 * transactions, rows), and that replaying the record does the same writes.
 * Run with `pnpm exec vitest run --root bench` (the workspace's vitest
 * configuration covers the packages only).
 */
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "vitest"
import type { CapturedStatement } from "./sqlCapture.ts"
import * as Capture from "./sqlCapture.ts"

const statement = (sql: string, transaction: CapturedStatement["transaction"]): CapturedStatement => ({
  method: "execute",
  sql,
  params: [],
  transaction,
  rows: 0
})

/** Blocks as nested arrays of statement texts, for comparison. */
const shape = (blocks: ReadonlyArray<Capture.Block>): ReadonlyArray<unknown> =>
  blocks.map((b) => (b._tag === "Statement" ? b.statement.sql : shape(b.body)))

describe("transactionsOf", () => {
  it("keeps statements outside transactions as they are", () => {
    expect(shape(Capture.transactionsOf([statement("a", null), statement("b", null)]))).toEqual(["a", "b"])
  })

  it("groups a transaction's statements, and tells two transactions on one connection apart by their level", () => {
    const blocks = Capture.transactionsOf([
      statement("a", { connection: 1, level: 2, depth: 0 }),
      statement("b", { connection: 1, level: 2, depth: 0 }),
      statement("c", { connection: 1, level: 3, depth: 0 }),
      statement("d", null)
    ])
    expect(shape(blocks)).toEqual([["a", "b"], ["c"], "d"])
  })

  it("nests savepoints, and a second savepoint at the same depth is a sibling", () => {
    const blocks = Capture.transactionsOf([
      statement("a", { connection: 1, level: 2, depth: 0 }),
      statement("b", { connection: 1, level: 4, depth: 1 }),
      statement("c", { connection: 1, level: 5, depth: 1 }),
      statement("d", { connection: 1, level: 2, depth: 0 })
    ])
    expect(shape(blocks)).toEqual([["a", ["b"], ["c"], "d"]])
  })
})

describe("capture and replay on PGlite", () => {
  const program = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS bench_capture (id serial PRIMARY KEY, v text, n bigint)`
    const stop = Capture.start()
    yield* sql`SELECT ${1}::int AS one`
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`INSERT INTO bench_capture (v, n) VALUES (${"x"}, ${2}), (${"y"}, ${3})`
      yield* sql.withTransaction(sql`SELECT v FROM bench_capture WHERE n >= ${2}`)
      yield* sql`UPDATE bench_capture SET v = ${"z"} WHERE v = ${"y"}`.raw
    }))
    const captured = stop()
    // Stopped: nothing more is recorded.
    yield* sql`SELECT 2`
    return captured
  })

  const withPglite = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E, SqlClient.SqlClient>) =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(PgliteClient.layer({}))
      const sql = Context.get(context, SqlClient.SqlClient)
      return yield* Effect.provideContext(f(sql), context)
    })) as Effect.Effect<A, unknown>)

  it("records each statement's text, parameters, method, transaction and rows", async () => {
    const captured = await withPglite(() => program)
    expect(captured.map((s) => [s.method, s.sql.replace(/\s+/g, " "), s.params, s.rows, s.transaction?.depth ?? null])).toEqual([
      ["execute", "SELECT $1::int AS one", [1], 1, null],
      ["execute", "INSERT INTO bench_capture (v, n) VALUES ($1, $2), ($3, $4)", ["x", 2, "y", 3], 0, 0],
      ["execute", "SELECT v FROM bench_capture WHERE n >= $1", [2], 2, 1],
      ["executeRaw", "UPDATE bench_capture SET v = $1 WHERE v = $2", ["z", "y"], 0, 0]
    ])
    expect(shape(Capture.transactionsOf(captured)).map((b) => Array.isArray(b) ? b.length : b)).toEqual(["SELECT $1::int AS one", 3])
  }, 60_000)

  it("replays the same writes on another database, and refuses a statement that answers other rows", async () => {
    const captured = await withPglite(() => program)
    const rows = await withPglite((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE bench_capture (id serial PRIMARY KEY, v text, n bigint)`
        yield* Capture.replay(sql, captured)
        return yield* sql<{ v: string; n: number }>`SELECT v, n FROM bench_capture ORDER BY id`
      })
    )
    expect(rows).toEqual([{ v: "x", n: 2 }, { v: "z", n: 3 }])
    // Replayed twice, the SELECT inside finds four rows, not the two it found for the server.
    const again = await withPglite((sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE bench_capture (id serial PRIMARY KEY, v text, n bigint)`
        yield* Capture.replay(sql, captured)
        return yield* Effect.flip(Capture.replay(sql, captured))
      })
    )
    expect(again.message).toMatch(/^answered 4 rows where the server's answered 2/)
  }, 60_000)
})
