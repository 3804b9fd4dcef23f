/**
 * `@effect/sql-pg` clients configured to parse rows exactly like
 * `PgliteClient`, so domain code sees identical values on both backends,
 * and with a bounded wait for a pooled connection.
 *
 * `@effect/sql-pg` 4.0.5's pool has no limit on how long a checkout waits
 * when every connection is in use, and `PgClient.make` builds its pool where
 * nothing outside can reach its checkouts (docs/upstream.md). So the client
 * is assembled here from the same public parts `PgClient.make` uses
 * (`PgPool.make`, effect's `SqlClient.make`, `PgClient.makeCompiler`), with
 * each checkout bounded by `acquireTimeout`: past it, the statement or
 * transaction fails with a `ConnectionError` of operation `acquire`, which
 * `Persistence.isUnavailable` reports as "try again later" and the
 * transactor does not retry (nothing was sent).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as PgConnection from "@effect/sql-pg/PgConnection"
import * as PgPool from "@effect/sql-pg/PgPool"
import * as PgTypes from "@effect/sql-pg/PgTypes"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import { ConnectionError, SqlError, UnknownError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"

/**
 * Pool settings other than the URL and the type registry, which this module
 * owns, and how long a checkout may wait for a connection when all are in
 * use (`defaultAcquireTimeout` when omitted).
 */
export type PgClientOptions = Omit<PgClient.PgPoolConfig, "url" | "types"> & {
  readonly acquireTimeout?: Duration.Input | undefined
}

/**
 * How long a statement or transaction waits for a pooled connection by
 * default: long enough for a burst to drain, short enough that a client
 * gets a 503 with `Retry-After` before its own timeout.
 */
export const defaultAcquireTimeout: Duration.Duration = Duration.seconds(10)

/** Whether `error` is a checkout that found no free connection within the client's `acquireTimeout`. */
export const isAcquireTimeout = (error: SqlError): boolean =>
  error.reason._tag === "ConnectionError" && error.reason.operation === "acquire"

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

const toInt64 = (value: unknown): Result.Result<bigint, PgTypes.CodecError> => {
  const big = typeof value === "bigint"
    ? value
    : typeof value === "number" && Number.isSafeInteger(value)
    ? BigInt(value)
    : undefined
  return big !== undefined && big >= INT64_MIN && big <= INT64_MAX
    ? Result.succeed(big)
    : Result.fail(new PgTypes.CodecError({ message: `Expected an int8 as a bigint or safe integer, got ${String(value)}` }))
}

const TWO_32 = 2 ** 32

const int8Error = (size: number) => new PgTypes.CodecError({ message: `int8 needs 8 bytes, got ${size}` })

/**
 * int8 as a JS `number`, matching PgliteClient; values beyond 2^53 lose
 * precision. Read as two 32-bit halves straight out of the row's bytes, with
 * no view or bigint of its own: ids are most of the values a query returns
 * (about 100 ns each through a view, a DataView and a bigint; about 10 ns this way).
 * `hi * 2^32` is exact and the sum is rounded once, as `Number(bigint)`
 * rounds, so both give the same number for every int8.
 */
const readInt8 = (bytes: Uint8Array, offset: number, size: number): Result.Result<number, PgTypes.CodecError> => {
  if (size !== 8) return Result.fail(int8Error(size))
  const hi = (bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!
  const lo = ((bytes[offset + 4]! << 24) | (bytes[offset + 5]! << 16) | (bytes[offset + 6]! << 8) | bytes[offset + 7]!) >>> 0
  return Result.succeed(hi * TWO_32 + lo)
}

const int8AsNumber: PgTypes.Codec<number | bigint> = {
  encode: (value) =>
    Result.map(toInt64(value), (big) => {
      const bytes = new Uint8Array(8)
      new DataView(bytes.buffer).setBigInt64(0, big)
      return bytes
    }),
  decode: (bytes) => readInt8(bytes, 0, bytes.byteLength),
  read: readInt8,
  write: (sink, value) => Result.map(toInt64(value), (big) => sink.bigInt64(big))
}

/**
 * A codec registry for one client: the built-ins (date as `YYYY-MM-DD` text,
 * timestamp/timestamptz as `Date`, numeric as text) with int8 and int8[] as
 * `number`.
 */
export const makeTypes = (): PgTypes.Registry => {
  const registry = PgTypes.makeRegistry()
  registry.register(PgTypes.OID.int8, int8AsNumber, { arrayOid: PgTypes.OID.int8Array })
  return registry
}

/** The pool configuration for `url` with our type parsing. */
export const config = (url: string, options: Omit<PgClientOptions, "acquireTimeout"> = {}): PgClient.PgPoolConfig => ({
  ...options,
  url: Redacted.make(url),
  types: makeTypes()
})

/**
 * Bounds the checkouts of a pool of `max` connections: while fewer than
 * `max` are checked out through it a checkout goes straight to the pool (a
 * connection is idle or may be opened), so the common case pays for a
 * counter only; when all are out, the wait is raced against a real-time
 * timer (not the domain's Clock, which a test may hold still).
 */
const boundCheckouts = (max: number, timeout: Duration.Duration) => {
  let checkedOut = 0
  const millis = Duration.toMillis(timeout)
  const timedOut = new SqlError({
    reason: new ConnectionError({
      cause: new Error(`no database connection became free within ${Duration.format(timeout)}`),
      message: `PgClient: all ${max} connections in use for ${Duration.format(timeout)}`,
      operation: "acquire"
    })
  })
  const timer = Effect.callback<never, SqlError>((resume) => {
    const handle = setTimeout(() => resume(Effect.fail(timedOut)), millis)
    return Effect.sync(() => clearTimeout(handle))
  })
  const count = Effect.acquireRelease(
    Effect.sync(() => void checkedOut++),
    () => Effect.sync(() => void checkedOut--)
  )
  return <A>(checkout: Effect.Effect<A, SqlError, Scope.Scope>): Effect.Effect<A, SqlError, Scope.Scope> =>
    Effect.suspend(() => Effect.tap(checkedOut < max ? checkout : Effect.raceFirst(checkout, timer), () => count))
}

/** A pool connection as effect's SQL client drives it. */
class Connection implements SqlConnection.Connection {
  readonly connection: PgConnection.PgConnection
  constructor(connection: PgConnection.PgConnection) {
    this.connection = connection
  }
  private run(sql: string, params: ReadonlyArray<unknown>, prepare = true) {
    return Effect.map(this.connection.query(sql, params, prepare), (result) => result.rows)
  }
  execute(sql: string, params: ReadonlyArray<unknown>, transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined) {
    return transformRows ? Effect.map(this.run(sql, params), transformRows) : this.run(sql, params)
  }
  executeRaw(sql: string, params: ReadonlyArray<unknown>) {
    return this.connection.query(sql, params)
  }
  executeWithoutTransform(sql: string, params: ReadonlyArray<unknown>) {
    return this.run(sql, params)
  }
  executeValues(sql: string, params: ReadonlyArray<unknown>) {
    return this.connection.queryValues(sql, params)
  }
  executeValuesUnprepared(sql: string, params: ReadonlyArray<unknown>) {
    return this.connection.queryValues(sql, params, false)
  }
  executeUnprepared(sql: string, params: ReadonlyArray<unknown>, transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined) {
    const rows = this.run(sql, params, false)
    return transformRows ? Effect.map(rows, transformRows) : rows
  }
  executeStream(sql: string, params: ReadonlyArray<unknown>, transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined) {
    const rows = this.connection.stream(sql, params)
    return transformRows
      ? Stream.mapArray(rows, (chunk) => transformRows(chunk) as typeof chunk)
      : rows
  }
}

/** PostgreSQL answers `COMMIT` with `ROLLBACK` when the transaction had already failed. */
const commit = (connection: SqlConnection.Connection) =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    (result as PgConnection.Result).command === "ROLLBACK"
      ? Effect.fail(
        new SqlError({
          reason: new UnknownError({
            cause: new Error("COMMIT rolled back an aborted transaction"),
            message: "PgClient: COMMIT rolled back an aborted transaction",
            operation: "commit"
          })
        })
      )
      : Effect.void)

/** A jsonb parameter: the custom fragment `PgClient.makeCompiler` compiles. */
const PgJson = Statement.custom<Statement.Custom<"PgJson", unknown>>("PgJson")

const makeClient = Effect.fnUntraced(function*(url: string, options: PgClientOptions) {
  const { acquireTimeout, ...poolOptions } = options
  const poolConfig = config(url, poolOptions)
  const pool = yield* PgPool.make(poolConfig)
  const bound = boundCheckouts(
    poolConfig.maxConnections ?? 10,
    Duration.fromInputUnsafe(acquireTimeout ?? defaultAcquireTimeout)
  )
  const acquirer = Effect.map(bound(pool.get), (connection) => new Connection(connection))
  const client = yield* SqlClient.make({
    acquirer,
    transactionAcquirer: Effect.map(bound(pool.reserve), (connection) => new Connection(connection)),
    // As PgClient: PostgreSQL prepares transaction control like any statement.
    prepareTransactionControls: true,
    commit,
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
    compiler: PgClient.makeCompiler(poolConfig.transformQueryNames, poolConfig.transformJson),
    spanAttributes: [
      ...(poolConfig.spanAttributes ? Object.entries(poolConfig.spanAttributes) : []),
      ["db.system.name", "postgresql"],
      ["db.namespace", poolConfig.database ?? poolConfig.username ?? "postgres"],
      ["server.address", poolConfig.host ?? "localhost"],
      ["server.port", poolConfig.port ?? 5432]
    ],
    driver: "pg"
  })
  const pg: PgClient.PgClient = Object.assign(client, {
    [PgClient.TypeId]: PgClient.TypeId,
    config: poolConfig,
    json: (value: unknown) => Statement.fragment([PgJson(value, undefined, undefined)]),
    listen: (channel: string) => Effect.flatMap(bound(pool.reserve), (connection) => connection.listen(channel)),
    notify: (channel: string, payload: string) =>
      Effect.asVoid(Effect.scoped(Effect.flatMap(acquirer, (connection) =>
        connection.executeRaw("SELECT pg_notify($1, $2)", [channel, payload]))))
  })
  return pg
})

/**
 * A scoped pool client for `url` with a private `Reactivity`; for short-lived
 * connections such as administrative ones.
 */
export const make = (
  url: string,
  options: PgClientOptions = {}
): Effect.Effect<PgClient.PgClient, SqlError, Scope.Scope> =>
  makeClient(url, options).pipe(Effect.provide(Reactivity.layer))

/** Provides `PgClient` and `SqlClient` for a `postgres://` URL. */
export const layer = (
  url: string,
  options: PgClientOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> =>
  Layer.effectContext(
    Effect.map(makeClient(url, options), (client) =>
      Context.make(PgClient.PgClient, client).pipe(
        Context.add(SqlClient.SqlClient, client)
      ))
  ).pipe(
    // The shared layer value, so an application's own Reactivity.layer is memoised with it.
    Layer.provide(Reactivity.layer)
  )
