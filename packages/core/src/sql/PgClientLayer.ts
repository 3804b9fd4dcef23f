/**
 * `@effect/sql-pg` clients configured to parse rows exactly like
 * `PgliteClient`, so domain code sees identical values on both backends.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as PgTypes from "@effect/sql-pg/PgTypes"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/**
 * Pool settings other than the URL and the type registry, which this module
 * owns.
 */
export type PgClientOptions = Omit<PgClient.PgPoolConfig, "url" | "types">

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
export const config = (url: string, options: PgClientOptions = {}): PgClient.PgPoolConfig => ({
  ...options,
  url: Redacted.make(url),
  types: makeTypes()
})

const makeClient = (
  url: string,
  options: PgClientOptions
): Effect.Effect<PgClient.PgClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.map(PgClient.make(config(url, options)), withDriverName)

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

/**
 * `@effect/sql-pg` 4.0.5 predates the `driver` option that effect 4.0.6 made
 * required, so its clients report `undefined`; fill in its documented name.
 */
const withDriverName = (client: PgClient.PgClient): PgClient.PgClient =>
  (client.driver as string | undefined) === undefined ? Object.assign(client, { driver: "pg" }) : client
