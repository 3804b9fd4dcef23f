/**
 * An effect/sql driver for embedded PGlite (PostgreSQL compiled to WASM).
 *
 * PGlite is a single backend connection, so every statement and transaction
 * is serialised through one semaphore; rows are parsed the same way as by
 * `PgClientLayer` so domain code sees identical values on both backends.
 */
import { PGlite, types as PgliteTypes } from "@electric-sql/pglite"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Queue from "effect/Queue"
import * as Reactivity from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import {
  AuthenticationError,
  AuthorizationError,
  ConnectionError,
  ConstraintError,
  DeadlockError,
  LockTimeoutError,
  SerializationError,
  SqlError,
  type SqlErrorReason,
  SqlSyntaxError,
  StatementTimeoutError,
  UniqueViolation,
  UnknownError
} from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { autovacuumPass, defaultIntervalSeconds } from "./internal/PgliteAutovacuum.ts"
import { makePreparedQuery } from "./internal/PglitePrepared.ts"

/**
 * Settings for an embedded PGlite database.
 */
export interface PgliteClientConfig {
  /** A directory for persistent data; `undefined` or `"memory://"` keeps it in memory. */
  readonly dataDir?: string | undefined
  /**
   * A data directory tarball (`PGlite.dumpDataDir`) to start from instead of
   * a new initdb, for a database in memory; tests start fresh databases from
   * one in a fraction of initdb's time (testing/TestDatabase.ts).
   */
  readonly loadDataDir?: Blob | undefined
  readonly spanAttributes?: Record<string, unknown> | undefined
  /**
   * Seconds between the client's autovacuum passes (PGlite runs no
   * autovacuum of its own: internal/PgliteAutovacuum.ts); 0 turns them off.
   * Default 2.
   */
  readonly autovacuumIntervalSeconds?: number | undefined
}

/**
 * A `SqlClient` over PGlite, plus the raw instance and LISTEN/NOTIFY helpers.
 */
export interface PgliteClientService extends SqlClient.SqlClient {
  readonly pglite: PGlite
  readonly config: PgliteClientConfig
  /** A jsonb parameter, like `PgClient.json`. */
  readonly json: (value: unknown) => Statement.Fragment
  /**
   * Payloads sent to `channel` (matched exactly, case-sensitive). LISTEN is
   * issued when the stream starts and UNLISTEN when its last subscriber ends.
   */
  readonly listen: (channel: string) => Stream.Stream<string, SqlError>
  /** `pg_notify`; inside a transaction the payload is delivered on commit. */
  readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError>
}

export class PgliteClient extends Context.Service<PgliteClient, PgliteClientService>()(
  "teamchat/core/sql/PgliteClient"
) {
  /** Provides both `PgliteClient` and `SqlClient`; PGlite closes with the layer. */
  static layer(config: PgliteClientConfig = {}): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> {
    return Layer.effectContext(
      Effect.map(make(config), (client) =>
        Context.make(PgliteClient, client).pipe(
          Context.add(SqlClient.SqlClient, client)
        ))
    ).pipe(Layer.provide(Reactivity.layer))
  }
}

// -----------------------------------------------------------------------------
// construction
// -----------------------------------------------------------------------------

/**
 * Opens PGlite and builds the client; the instance is closed when the scope
 * closes.
 */
/**
 * PGlite's start parameters with a 16 MB buffer pool instead of PostgreSQL's
 * 128 MB: PGlite's files already live in this process's memory (MEMFS, or
 * the page cache of the data directory), so a large pool mostly holds a
 * second copy of them; the idle server's resident memory drops by about
 * the difference (bench/rss.ts).
 */
const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]

/**
 * Creates a new file-backed data directory in a child process, which runs
 * the same `PGlite.create` and closes it; this process then opens the
 * directory as on any restart. PGlite's initdb runs in a second PGlite
 * instance and copies its result over as a tarball: those transient buffers
 * (a copy of the 128 MB WASM heap, the instance's in-memory files, the
 * tarball) are freed afterwards, but the C allocator keeps most of the
 * freed memory, about 115 MB that the server would carry for its whole life
 * (bench/rss.ts: 400 MB → 285 MB at idle). The directory's content is the
 * same either way.
 */
const initDataDir = (dataDir: string): Effect.Effect<void, SqlError> =>
  Effect.callback<void, SqlError>((resume) => {
    const script = `require(${JSON.stringify(pgliteEntry)}).PGlite.create(${JSON.stringify(dataDir)}, ` +
      `{ startParams: ${JSON.stringify(startParams)} }).then((pg) => pg.close())`
    const child = execFile(process.execPath, ["-e", script], (error, _stdout, stderr) => {
      resume(
        error === null ? Effect.void : Effect.fail(
          new SqlError({
            reason: new ConnectionError({
              cause: error,
              message: `PgliteClient: could not create the data directory ${dataDir}: ${stderr.trim()}`,
              operation: "connect"
            })
          })
        )
      )
    })
    return Effect.sync(() => child.kill())
  })

/** PGlite's CommonJS entry, for the child process of `initDataDir`. */
const pgliteEntry = createRequire(import.meta.url).resolve("@electric-sql/pglite")

export const make = Effect.fnUntraced(function*(
  config: PgliteClientConfig
): Effect.fn.Return<PgliteClientService, SqlError, Scope.Scope | Reactivity.Reactivity> {
  const dataDir = config.dataDir === undefined || config.dataDir === "memory://" ? undefined : config.dataDir
  // PGlite's own test for an existing database (PG_VERSION in PGDATA).
  if (dataDir !== undefined && !existsSync(path.join(dataDir, "PG_VERSION"))) yield* initDataDir(dataDir)
  const pglite = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () =>
        PGlite.create(dataDir, {
          parsers,
          startParams,
          ...(dataDir === undefined && config.loadDataDir !== undefined ? { loadDataDir: config.loadDataDir } : {})
        }),
      catch: (cause) =>
        new SqlError({
          reason: new ConnectionError({ cause, message: "PgliteClient: could not open PGlite", operation: "connect" })
        })
    }),
    (pglite) => Effect.promise(() => pglite.closed ? Promise.resolve() : pglite.close().catch(() => undefined))
  )

  const connection = makeConnection(pglite)
  const acquirers = SqlClient.makeSqliteAcquirers({
    connection: Effect.succeed(connection),
    semaphore: Semaphore.makeUnsafe(1),
    isTransaction: () => pglite.isInTransaction()
  })

  const client = yield* SqlClient.make({
    acquirer: acquirers.acquirer,
    borrower: acquirers.borrower,
    transactionAcquirer: acquirers.transactionAcquirer,
    onCommitFailure: acquirers.onCommitFailure,
    isTransaction: acquirers.isTransaction,
    driver: "pglite",
    compiler,
    commit,
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
    spanAttributes: [
      ...(config.spanAttributes ? Object.entries(config.spanAttributes) : []),
      ["db.system.name", "postgresql"],
      ["db.namespace", dataDir ?? "memory://"]
    ]
  })

  // Statements inside a transaction must reuse its connection; taking the
  // semaphore again there would deadlock.
  const withConnection = <A>(f: (conn: Connection) => Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> =>
    Effect.flatMap(
      Effect.serviceOption(client.transactionService),
      Option.match({
        onNone: () => acquirers.borrower(f),
        onSome: ([conn]) => f(conn)
      })
    )

  const listen = makeListen(pglite, withConnection)
  yield* Effect.addFinalizer(() => Effect.sync(listen.close))

  const interval = config.autovacuumIntervalSeconds ?? defaultIntervalSeconds
  if (interval > 0) {
    // Housekeeping on the wall clock, whatever clock the application runs
    // on (tests move theirs by days). A failed pass (the database closing
    // under it, say) is tried again at the next.
    yield* Effect.forkScoped(
      Effect.forever(Effect.andThen(Effect.sleep(`${interval} seconds`), Effect.ignore(autovacuumPass(client)))).pipe(
        Effect.provideService(Clock.Clock, Clock.Clock.defaultValue())
      )
    )
  }

  const notify = (channel: string, payload: string): Effect.Effect<void, SqlError> => {
    const invalid = validateChannel(channel, "notify")
    return invalid !== undefined
      ? Effect.fail(invalid)
      : Effect.asVoid(client`SELECT pg_notify(${channel}, ${payload})`.raw)
  }

  return Object.assign(client, {
    pglite,
    config,
    json: (value: unknown) => Statement.fragment([PgJson(value, undefined, undefined)]),
    listen: listen.stream,
    notify
  })
})

// -----------------------------------------------------------------------------
// connection
// -----------------------------------------------------------------------------

type Rows = ReadonlyArray<any>
type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

interface PgliteResults {
  readonly rows: Array<any>
  readonly command?: string | undefined
}

const makeConnection = (pglite: PGlite): Connection => {
  const prepared = makePreparedQuery(pglite)
  // Statements with parameters (nearly all the application's) run as named
  // prepared statements (internal/PglitePrepared.ts); those without (BEGIN,
  // COMMIT, …) through the simple protocol: one exchange instead of the
  // extended protocol's six.
  const query = (
    sql: string,
    params: ReadonlyArray<unknown>,
    rowMode: "object" | "array"
  ): Effect.Effect<PgliteResults, SqlError> =>
    params.length > 0
      ? fromPromise(() => prepared(sql, driverParams(params), paramTypes(params), rowMode), "execute")
      : fromPromise(() => pglite.exec(sql, { rowMode }), "execute").pipe(
        // Like a single statement, the result of the last one.
        Effect.map((results): PgliteResults => results[results.length - 1] ?? { rows: [] })
      )

  const rows = (sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) =>
    Effect.map(
      query(sql, params, "object"),
      (result): Rows => transformRows ? transformRows(result.rows) : result.rows
    )

  const values = (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(query(sql, params, "array"), (result): ReadonlyArray<ReadonlyArray<unknown>> => result.rows)

  return {
    execute: rows,
    executeRaw: (sql, params) => query(sql, params, "object"),
    executeValues: values,
    executeValuesUnprepared: values,
    // Without parameters `query` already uses the simple protocol, which also
    // takes several statements in one string (the rows of the last answer).
    executeUnprepared: rows,
    // PGlite has no cursors; the rows are already in memory.
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(Effect.map(rows(sql, params, transformRows), Stream.fromIterable))
  }
}

/**
 * PGlite settles its promises from microtasks only, so a fiber issuing
 * statements back to back would never let the scheduler's macrotask run:
 * other fibers (and Node I/O) would starve until it stopped. Yielding after
 * each call hands the turn over.
 */
const fromPromise = <A>(evaluate: () => Promise<A>, operation: string): Effect.Effect<A, SqlError> =>
  Effect.tryPromise({ try: evaluate, catch: (cause) => toSqlError(cause, operation) }).pipe(
    Effect.tap(() => Effect.yieldNow)
  )

/** PGlite answers COMMIT of an aborted transaction with `ROLLBACK` instead of failing. */
const commit = (conn: Connection): Effect.Effect<void, SqlError> =>
  Effect.flatMap(
    conn.executeRaw("COMMIT", []) as Effect.Effect<PgliteResults, SqlError>,
    (result) =>
      result.command === "ROLLBACK"
        ? Effect.fail(
          new SqlError({
            reason: new UnknownError({
              cause: new Error("COMMIT rolled back an aborted transaction"),
              message: "PgliteClient: COMMIT rolled back an aborted transaction",
              operation: "commit"
            })
          })
        )
        : Effect.void
  )

// -----------------------------------------------------------------------------
// parameters
// -----------------------------------------------------------------------------

/** A parameter that must be bound as jsonb, whatever PostgreSQL would infer. */
class JsonParam {
  readonly text: string
  constructor(value: unknown) {
    this.text = JSON.stringify(value, (_, v) => typeof v === "bigint" ? v.toString() : v)
  }
}

const driverParams = (params: ReadonlyArray<unknown>): Array<unknown> =>
  params.map((param) => param instanceof JsonParam ? param.text : param)

/** jsonb for json parameters; OID 0 leaves the others for PostgreSQL to infer. */
const paramTypes = (params: ReadonlyArray<unknown>): ReadonlyArray<number> =>
  params.map((param) => param instanceof JsonParam ? PgliteTypes.JSONB : 0)

// -----------------------------------------------------------------------------
// compiler
// -----------------------------------------------------------------------------

/** Same kind as `@effect/sql-pg`'s json fragment, so either compiler accepts it. */
interface PgJson extends Statement.Custom<"PgJson", unknown> {}
const PgJson = Statement.custom<PgJson>("PgJson")

const escape = Statement.defaultEscape("\"")

const compiler = Statement.makeCompiler<PgJson>({
  dialect: "pg",
  placeholder: (index) => `$${index}`,
  onIdentifier: escape,
  onRecordUpdate: (placeholders, valueAlias, valueColumns, values, returning) => [
    `(values ${placeholders}) AS ${valueAlias}${valueColumns}${returning ? ` RETURNING ${returning[0]}` : ""}`,
    returning ? values.flat().concat(returning[1]) : values.flat()
  ],
  onCustom: (type, placeholder) => {
    switch (type.kind) {
      case "PgJson":
        return [placeholder(undefined), [new JsonParam(type.paramA)]]
    }
  }
})

// -----------------------------------------------------------------------------
// type parsing (kept identical to PgClientLayer)
// -----------------------------------------------------------------------------

const PG_EPOCH_MS = 946684800000

const TIMESTAMP_TEXT =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?( BC)?$/

/**
 * Parses PostgreSQL's ISO text for `timestamp` (as UTC wall clock) and
 * `timestamptz`, truncating microseconds toward the PostgreSQL epoch the way
 * `@effect/sql-pg`'s binary codec does. `infinity` and unparsable text become
 * an invalid `Date`, as there.
 */
export const parseTimestamp = (text: string): Date => {
  const match = TIMESTAMP_TEXT.exec(text)
  if (match === null) return new Date(Number.NaN)
  const [, y, mo, d, h, mi, s, fraction, sign, oh, om, os, bc] = match
  const year = bc === undefined ? Number(y) : 1 - Number(y)
  const base = new Date(0)
  base.setUTCFullYear(year, Number(mo) - 1, Number(d))
  base.setUTCHours(Number(h), Number(mi), Number(s), 0)
  const offsetSeconds = sign === undefined
    ? 0
    : (sign === "-" ? -1 : 1) * (Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0))
  const wholeMs = base.getTime() - offsetSeconds * 1000 - PG_EPOCH_MS
  const micros = fraction === undefined ? 0 : Number(fraction.padEnd(6, "0"))
  const ms = wholeMs >= 0 ? wholeMs + Math.floor(micros / 1000) : wholeMs + Math.ceil(micros / 1000)
  return new Date(ms + PG_EPOCH_MS)
}

/**
 * - int8 → `number` (ids stay below 2^53; larger values lose precision).
 * - date → the `YYYY-MM-DD` text, as `@effect/sql-pg` returns it.
 * - timestamp / timestamptz → `Date`, see `parseTimestamp`.
 * Array types reuse these element parsers.
 */
const parsers = {
  [PgliteTypes.INT8]: (value: string) => Number(value),
  [PgliteTypes.DATE]: (value: string) => value,
  [PgliteTypes.TIMESTAMP]: parseTimestamp,
  [PgliteTypes.TIMESTAMPTZ]: parseTimestamp
}

// -----------------------------------------------------------------------------
// LISTEN / NOTIFY
// -----------------------------------------------------------------------------

const channelEncoder = new TextEncoder()

const validateChannel = (channel: string, operation: string): SqlError | undefined => {
  const length = channelEncoder.encode(channel).byteLength
  if (length > 0 && length <= 63) return undefined
  const message = "PgliteClient: channel names must be 1 to 63 UTF-8 bytes"
  return new SqlError({ reason: new UnknownError({ cause: new Error(message), message, operation }) })
}

/**
 * `pglite.listen` folds unquoted channel names to lower case and its unlisten
 * misses quoted ones, so LISTEN/UNLISTEN are issued here with a quoted name
 * and one notification hook fans payloads out by exact channel.
 */
const makeListen = (
  pglite: PGlite,
  withConnection: <A>(f: (conn: Connection) => Effect.Effect<A, SqlError>) => Effect.Effect<A, SqlError>
) => {
  const subscribers = new Map<string, Set<(payload: string) => void>>()
  // Serialises the first-LISTEN / last-UNLISTEN bookkeeping per client.
  const lock = Semaphore.makeUnsafe(1)
  const run = (sql: string) => withConnection((conn) => conn.executeUnprepared(sql, [], undefined))

  const removeHook = pglite.onNotification((channel, payload) => {
    subscribers.get(channel)?.forEach((subscriber) => subscriber(payload))
  })

  const subscribe = (channel: string, subscriber: (payload: string) => void) =>
    lock.withPermit(Effect.suspend(() => {
      const existing = subscribers.get(channel)
      if (existing !== undefined) {
        existing.add(subscriber)
        return Effect.void
      }
      return Effect.map(run(`LISTEN ${escape(channel)}`), () => {
        subscribers.set(channel, new Set([subscriber]))
      })
    }))

  const unsubscribe = (channel: string, subscriber: (payload: string) => void) =>
    lock.withPermit(Effect.suspend(() => {
      const existing = subscribers.get(channel)
      if (existing === undefined || !existing.delete(subscriber) || existing.size > 0) {
        return Effect.void
      }
      subscribers.delete(channel)
      return pglite.closed ? Effect.void : Effect.ignore(run(`UNLISTEN ${escape(channel)}`))
    }))

  const stream = (channel: string): Stream.Stream<string, SqlError> => {
    const invalid = validateChannel(channel, "listen")
    if (invalid !== undefined) return Stream.fail(invalid)
    return Stream.callback<string, SqlError>((queue) => {
      const subscriber = (payload: string) => {
        Queue.offerUnsafe(queue, payload)
      }
      return Effect.acquireRelease(subscribe(channel, subscriber), () => unsubscribe(channel, subscriber))
    })
  }

  return { stream, close: removeHook }
}

// -----------------------------------------------------------------------------
// errors
// -----------------------------------------------------------------------------

const stringProperty = (u: unknown, key: string): string | undefined =>
  Predicate.hasProperty(u, key) && typeof u[key] === "string" ? u[key] : undefined

/** Maps a PGlite failure to a `SqlError` reason by its SQLSTATE. */
export const classifyError = (cause: unknown, operation: string): SqlErrorReason => {
  const message = stringProperty(cause, "message") ?? "PGlite query failed"
  const props = { cause, message, operation }
  const code = stringProperty(cause, "code")
  if (code === undefined) {
    return Predicate.hasProperty(cause, "message") && /closed/i.test(message)
      ? new ConnectionError(props)
      : new UnknownError(props)
  }
  if (code === "23505") {
    const constraint = stringProperty(cause, "constraint")?.trim()
    return new UniqueViolation({ ...props, constraint: constraint ? constraint : "unknown" })
  }
  if (code === "42501") return new AuthorizationError(props)
  if (code === "40P01") return new DeadlockError(props)
  if (code === "40001") return new SerializationError(props)
  if (code === "55P03") return new LockTimeoutError(props)
  if (code === "57014") return new StatementTimeoutError(props)
  switch (code.slice(0, 2)) {
    case "23":
      return new ConstraintError(props)
    case "42":
      return new SqlSyntaxError(props)
    case "08":
      return new ConnectionError(props)
    case "28":
      return new AuthenticationError(props)
  }
  return new UnknownError(props)
}

const toSqlError = (cause: unknown, operation: string): SqlError =>
  new SqlError({ reason: classifyError(cause, operation) })
