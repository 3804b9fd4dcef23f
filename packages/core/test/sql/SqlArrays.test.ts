/**
 * Id lists as one array parameter, on PGlite and PostgreSQL: any length,
 * the empty list, and values that cannot be ids.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { bigintArray, inIds } from "../../src/sql/SqlArrays.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const backends: Record<string, () => Layer.Layer<SqlClient.SqlClient, unknown>> = {
  PGlite: TestDatabase.pgliteLayer,
  PostgreSQL: () => TestDatabase.postgresLayer()
}

for (const [name, make] of Object.entries(backends)) {
  describe(`SqlArrays on ${name}`, () => {
    layer(make(), { timeout: "60 seconds" })((it) => {
      it.effect("inIds matches a list of any length with one parameter; non-integers match nothing", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const count = (ids: ReadonlyArray<number>) =>
            Effect.map(
              sql<{ n: unknown }>`SELECT count(*) AS n FROM generate_series(1, 10) AS g(id) WHERE ${inIds(sql, "id", ids)}`,
              (rows) => Number(rows[0]!.n)
            )
          assert.strictEqual(yield* count([]), 0)
          assert.strictEqual(yield* count([2, 3, 3, 42]), 2)
          assert.strictEqual(yield* count([1, 1.5, Number.NaN, Infinity, 2 ** 53, 4]), 2)
          // Far past PostgreSQL's 32767 bind parameters.
          assert.strictEqual(yield* count(Array.from({ length: 100_000 }, (_, i) => i + 1)), 10)
          const unnested = yield* sql<{ n: unknown }>`SELECT count(*) AS n FROM unnest(${bigintArray(sql, [5, 6, 7])}) AS u`
          assert.strictEqual(Number(unnested[0]!.n), 3)
        }))
    })
  })
}
