/**
 * Id lists as one SQL parameter.
 *
 * `sql.in(column, ids)` binds one parameter per id: PostgreSQL's protocol
 * caps a statement at 32767 of them, and PGlite overflows its stack
 * compiling a list of tens of thousands. An array literal bound as one text
 * parameter and cast by the statement costs one parameter at any length and
 * reads the same on both drivers.
 *
 * @since 0.1.0
 */
import type * as Statement from "effect/sql/Statement"

/** `ids` as one `bigint[]` parameter, for `= ANY(...)` and `unnest(...)`. @category constructors */
export const bigintArray = (sql: Statement.Constructor, ids: ReadonlyArray<number>): Statement.Fragment =>
  sql`${`{${ids.join(",")}}`}::bigint[]`

/**
 * `column = ANY(ids)`: `sql.in` for lists of any length (false for none).
 * A value that is not a safe integer matches no id, so it is left out
 * rather than failing the cast.
 *
 * @category constructors
 */
export const inIds = (sql: Statement.Constructor, column: string, ids: ReadonlyArray<number>): Statement.Fragment =>
  sql`${sql(column)} = ANY(${bigintArray(sql, ids.filter(Number.isSafeInteger))})`

/**
 * `values` as one JSON text parameter, for `jsonb_array_elements_text(...::jsonb)`
 * and `jsonb_to_recordset(...::jsonb)`: lists of strings or records of any
 * length in one parameter, read the same on both drivers.
 *
 * @category constructors
 */
export const jsonList = (values: ReadonlyArray<unknown>): string => JSON.stringify(values)
