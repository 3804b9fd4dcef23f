/**
 * The statements the SQL repositories repeat for their table: a query's
 * first row or every row, decoded; find by id; every row of an
 * organization; insert returning the new id; update by id; and the
 * organization's transaction-scoped advisory locks. Each is a repository
 * method traced as `<Repo>.<method>`, whose SqlErrors are defects, as the
 * ports say.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { RealmId } from "../../domain/Ids.ts"
import { first, int } from "./Columns.ts"
import type { Row } from "./Columns.ts"

/** @internal */
export interface TableSpec<A> {
  /** The repository's name, for spans (`UserRepo`). */
  readonly repo: string
  readonly table: string
  readonly decode: (row: Row) => A
}

/** @internal */
export const makeTable = <A>(sql: SqlClient.SqlClient, spec: TableSpec<A>) => {
  const table = sql.literal(spec.table)
  const name = (method: string) => `${spec.repo}.${method}`

  /** A method answering the first row `query` reads, decoded (undefined for none). */
  const one = <Args extends ReadonlyArray<any>>(
    method: string,
    query: (...args: Args) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  ) =>
    Effect.fn(name(method))(function*(...args: Args) {
      return first((yield* query(...args)).map(spec.decode))
    }, Effect.orDie)

  /** A method answering every row `query` reads, decoded. */
  const all = <Args extends ReadonlyArray<any>>(
    method: string,
    query: (...args: Args) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  ) =>
    Effect.fn(name(method))(function*(...args: Args) {
      return (yield* query(...args)).map(spec.decode)
    }, Effect.orDie)

  return {
    one,
    all,
    findById: one("findById", (id: number) => sql<Row>`SELECT * FROM ${table} WHERE id = ${id}`),
    listByRealm: all("listByRealm", (realm: RealmId) => sql<Row>`SELECT * FROM ${table} WHERE realm_id = ${realm} ORDER BY id`),
    /** `insert`: the row's columns, then the row with the id the database gave it. */
    insert: <I>(columns: (row: Omit<A, "id">) => Record<string, unknown>, id: (n: number) => I) =>
      Effect.fn(name("insert"))(function*(row: Omit<A, "id">) {
        const [inserted] = yield* sql<{ id: unknown }>`INSERT INTO ${table} ${sql.insert(columns(row))} RETURNING id`
        return { ...row, id: id(int(inserted!.id)) }
      }, Effect.orDie),
    /** `update`: every column of the row, by its id (`omit`: columns `columns` gives but never rewrites). */
    update: <C extends Record<string, unknown>>(
      columns: (row: A & { readonly id: number }) => C,
      omit?: ReadonlyArray<keyof C>
    ) =>
      Effect.fn(name("update"))(function*(row: A & { readonly id: number }) {
        yield* sql`UPDATE ${table} SET ${sql.update(columns(row), omit)} WHERE id = ${row.id}`
      }, Effect.orDie),
    /**
     * A transaction-scoped advisory lock of the organization in the two-key
     * space (`key`, then the organization), apart from the event log's
     * one-key locks. Read committed: statements after it see what the
     * previous holder committed.
     */
    realmLock: (method: string, key: number) =>
      Effect.fn(name(method))(function*(realm: RealmId) {
        yield* sql`SELECT pg_advisory_xact_lock(${key}::integer, ${realm}::integer)`
      }, Effect.orDie)
  }
}
