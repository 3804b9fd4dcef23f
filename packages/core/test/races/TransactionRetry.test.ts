/**
 * SqlTransactor on PostgreSQL: a transaction that the database aborts as a
 * deadlock victim is run again as a whole, and only the attempt that commits
 * leaves anything behind (its after-commit and before-commit work included);
 * so is, once, a transaction whose connection is lost before its commit;
 * other failures are not retried. The deadlock is forced: each transaction
 * holds one row and waits for the other to hold the other row before asking
 * for it.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { Transactor } from "../../src/ports/Transactor.ts"
import * as PgClientLayer from "../../src/sql/PgClientLayer.ts"
import * as SqlTransactor from "../../src/sql/SqlTransactor.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const layerTx = SqlTransactor.layer.pipe(Layer.provideMerge(TestDatabase.postgresLayer()))

const setup = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP TABLE IF EXISTS retry_rows`
  yield* sql`CREATE TABLE retry_rows (id integer PRIMARY KEY, v integer NOT NULL)`
  yield* sql`INSERT INTO retry_rows VALUES (1, 0), (2, 0)`
  yield* sql`DROP TABLE IF EXISTS retry_log`
  yield* sql`CREATE TABLE retry_log (note text NOT NULL)`
})

/** The rows' values, as [id, v] by id. */
const counts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: number; v: number }>`SELECT id, v FROM retry_rows ORDER BY id`
  return rows.map((r) => [r.id, r.v])
})

const notes = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ note: string }>`SELECT note FROM retry_log ORDER BY note`
  return rows.map((r) => r.note)
})

describe("SqlTransactor on PostgreSQL", () => {
  layer(layerTx, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("a deadlock victim is run again; each transaction commits once, with its callbacks once", () =>
      Effect.gen(function*() {
        yield* setup
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactor
        const holding = [yield* Deferred.make<void>(), yield* Deferred.make<void>()] as const
        const attempts = [0, 0]
        let committedCallbacks = 0
        const crossing = (me: 0 | 1) =>
          tx.withTransaction(Effect.gen(function*() {
            attempts[me]!++
            const [mine, theirs] = me === 0 ? [1, 2] : [2, 1]
            yield* tx.afterCommit(Effect.sync(() => void committedCallbacks++))
            yield* tx.beforeCommit(Effect.orDie(sql`INSERT INTO retry_log VALUES (${`${me} attempt ${attempts[me]}`})`))
            yield* sql`UPDATE retry_rows SET v = v + 1 WHERE id = ${mine}`
            yield* Deferred.succeed(holding[me], undefined)
            yield* Deferred.await(holding[1 - me]!)
            yield* sql`UPDATE retry_rows SET v = v + 1 WHERE id = ${theirs}`
          }).pipe(Effect.orDie))
        yield* Effect.all([crossing(0), crossing(1)], { concurrency: 2 })
        // A victim ran again (usually one of the two; under load PostgreSQL may abort both, as in the nested
        // case below); each committed once, with only its committing attempt's before-commit write.
        assert.isTrue(attempts.every((n) => n >= 1), `${attempts}`)
        assert.isAtLeast(Math.max(...attempts), 2)
        assert.strictEqual(committedCallbacks, 2)
        assert.deepStrictEqual(yield* counts, [[1, 2], [2, 2]])
        assert.deepStrictEqual(yield* notes, attempts.map((n, me) => `${me} attempt ${n}`).sort())
      }))

    it.effect("a deadlock inside a nested transaction runs the outer one again from its start", () =>
      Effect.gen(function*() {
        yield* setup
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactor
        const holding = [yield* Deferred.make<void>(), yield* Deferred.make<void>()] as const
        const outerStarts = [0, 0]
        const crossing = (me: 0 | 1) =>
          tx.withTransaction(Effect.gen(function*() {
            outerStarts[me]!++
            const [mine, theirs] = me === 0 ? [1, 2] : [2, 1]
            yield* sql`UPDATE retry_rows SET v = v + 1 WHERE id = ${mine}`
            yield* tx.withTransaction(Effect.gen(function*() {
              yield* Deferred.succeed(holding[me], undefined)
              yield* Deferred.await(holding[1 - me]!)
              yield* sql`UPDATE retry_rows SET v = v + 1 WHERE id = ${theirs}`
            }))
          }).pipe(Effect.orDie))
        yield* Effect.all([crossing(0), crossing(1)], { concurrency: 2 })
        // A victim ran its outer transaction again from the start. Usually one of the two is the victim; on a
        // loaded machine both backends may run PostgreSQL's deadlock check before either has rolled back, and
        // both are aborted. Either way each committed once, whole.
        assert.isTrue(outerStarts.every((n) => n >= 1), `${outerStarts}`)
        assert.isAtLeast(Math.max(...outerStarts), 2)
        assert.deepStrictEqual(yield* counts, [[1, 2], [2, 2]])
      }))

    it.effect("a transaction whose connection is lost before its commit runs once more, on another connection", () =>
      Effect.gen(function*() {
        yield* setup
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactor
        const database = yield* TestDatabase.TestDatabase
        const admin = yield* PgClientLayer.make(database.url, { maxConnections: 1 })
        const backends: Array<number> = []
        yield* tx.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
          backends.push(Number(row!.pid))
          yield* sql`UPDATE retry_rows SET v = v + 1 WHERE id = 1`
          // The first attempt's connection dies, as in a restart of the database's backend.
          if (backends.length === 1) yield* admin`SELECT pg_terminate_backend(${row!.pid})`
          yield* sql`UPDATE retry_rows SET v = v + 1 WHERE id = 2`
        }).pipe(Effect.orDie))
        assert.strictEqual(backends.length, 2)
        assert.notStrictEqual(backends[0], backends[1])
        assert.deepStrictEqual(yield* counts, [[1, 1], [2, 1]])
      }).pipe(Effect.scoped))

    it.effect("a transaction whose connection is lost twice fails (it is run again once only)", () =>
      Effect.gen(function*() {
        yield* setup
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactor
        const database = yield* TestDatabase.TestDatabase
        const admin = yield* PgClientLayer.make(database.url, { maxConnections: 1 })
        let attempts = 0
        const exit = yield* Effect.exit(tx.withTransaction(Effect.gen(function*() {
          attempts++
          const [row] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
          yield* admin`SELECT pg_terminate_backend(${row!.pid})`
          yield* sql`UPDATE retry_rows SET v = v + 1 WHERE id = 2`
        }).pipe(Effect.orDie)))
        assert.isTrue(Exit.isFailure(exit))
        assert.strictEqual(attempts, 2)
        assert.deepStrictEqual(yield* counts, [[1, 0], [2, 0]])
      }).pipe(Effect.scoped))

    it.effect("other failures are not retried, and their before-commit work is dropped", () =>
      Effect.gen(function*() {
        yield* setup
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactor
        let attempts = 0
        const exit = yield* Effect.exit(tx.withTransaction(Effect.gen(function*() {
          attempts++
          yield* tx.beforeCommit(Effect.orDie(sql`INSERT INTO retry_log VALUES ('never')`))
          yield* sql`INSERT INTO retry_rows VALUES (1, 0)`
        }).pipe(Effect.orDie)))
        assert.isTrue(Exit.isFailure(exit))
        assert.strictEqual(attempts, 1)
        assert.deepStrictEqual(yield* notes, [])
      }))

    it.effect("a transaction begun in another's after-commit callback runs its own before-commit work", () =>
      Effect.gen(function*() {
        yield* setup
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactor
        const done = yield* Deferred.make<void>()
        yield* tx.withTransaction(
          tx.afterCommit(
            tx.withTransaction(tx.beforeCommit(Effect.orDie(sql`INSERT INTO retry_log VALUES ('after')`))).pipe(
              Effect.orDie,
              Effect.andThen(Deferred.succeed(done, undefined))
            )
          )
        )
        yield* Deferred.await(done)
        assert.deepStrictEqual(yield* notes, ["after"])
      }))

    it.effect("before-commit work runs after the body, in order, and not for a savepoint that rolled back", () =>
      Effect.gen(function*() {
        yield* setup
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactor
        const seenInBody = yield* tx.withTransaction(Effect.gen(function*() {
          yield* tx.beforeCommit(Effect.orDie(sql`INSERT INTO retry_log VALUES ('a first')`))
          yield* Effect.exit(tx.withTransaction(Effect.gen(function*() {
            yield* tx.beforeCommit(Effect.orDie(sql`INSERT INTO retry_log VALUES ('rolled back')`))
            return yield* Effect.fail("no")
          })))
          yield* tx.withTransaction(tx.beforeCommit(Effect.orDie(sql`INSERT INTO retry_log VALUES ('b second')`)))
          return yield* notes
        }).pipe(Effect.orDie))
        assert.deepStrictEqual(seenInBody, [])
        assert.deepStrictEqual(yield* notes, ["a first", "b second"])
      }))
  })
})
