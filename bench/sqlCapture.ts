/**
 * Benchmark-only capture of the SQL a server process sends, for the raw SQL
 * baselines (bench/messages.ts): while capturing, every statement run
 * through an effect `SqlClient` of this process is recorded with its text,
 * its parameters (the values the driver receives), the client method that
 * ran it (execute, raw, values…), the transaction it ran in and the number
 * of rows it answered. `replay` (bench/servers.ts's `raw-sql` process uses
 * it) runs such a record again through a client of the same driver.
 *
 * How: every statement of effect's sql module is an object whose prototype
 * has `withConnectionSpan(operation, run, …)`, which compiles the statement
 * and calls `run(connection, sql, params)`. Capturing replaces that method
 * on the prototype with one that records around `run`; `stop` puts the
 * original back, so outside a capture nothing is added to any statement.
 * This reaches into effect's internals on purpose (a benchmark must not
 * change the server to observe it); if effect changes them, `start` fails
 * or nothing is captured, and the benchmark stops with that error.
 *
 * Transactions: BEGIN, COMMIT and savepoints are sent by the client on the
 * connection directly, not as statements, so they are not recorded as
 * such; each statement instead records the transaction level it ran in
 * (the client's `[connection, depth]` pair in the fiber's context), from
 * which `transactionsOf` rebuilds the blocks and their nesting. Not seen:
 * what a driver sends outside its client's statements (PgClient's LISTEN
 * and `notify`); the PostgreSQL CPU each side costs, reported beside the
 * ratios, shows whether the replay does the server's database work.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Statement from "effect/sql/Statement"

/** A parameter as JSON: plain JSON values as they are, others tagged. */
export type EncodedParam =
  | null
  | boolean
  | number
  | string
  | ReadonlyArray<EncodedParam>
  | { readonly $bigint: string }
  | { readonly $date: string }
  | { readonly $bytes: string }

export interface CapturedStatement {
  /** The client method: execute, executeRaw, executeValues, executeUnprepared, … */
  readonly method: string
  readonly sql: string
  readonly params: ReadonlyArray<EncodedParam>
  /**
   * The transaction level the statement ran in, or null outside any:
   * `connection` numbers the connection, `level` the level's own pair
   * (a new one per BEGIN or SAVEPOINT), `depth` 0 for the transaction, 1+
   * for savepoints inside it.
   */
  readonly transaction: { readonly connection: number; readonly level: number; readonly depth: number } | null
  /** Rows answered, when the result says (else -1). */
  readonly rows: number
  /** Why the statement cannot be replayed (a parameter JSON cannot carry). */
  readonly error?: string
}

const encode = (value: unknown): EncodedParam => {
  if (value === null || value === undefined) return null
  switch (typeof value) {
    case "boolean":
    case "string":
      return value
    case "number":
      if (!Number.isFinite(value)) throw new Error(`sqlCapture: cannot carry the number ${value}`)
      return value
    case "bigint":
      return { $bigint: value.toString() }
  }
  if (Array.isArray(value)) return value.map(encode)
  if (value instanceof Date) return { $date: value.toISOString() }
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString("base64") }
  // A driver-specific parameter (e.g. sql-pg's typed ones) would be replayed
  // as something else: refuse rather than replay different work.
  throw new Error(`sqlCapture: cannot carry a parameter of type ${Object.prototype.toString.call(value)}: ${JSON.stringify(value)}`)
}

export const decodeParam = (value: EncodedParam): unknown => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map(decodeParam)
  if ("$bigint" in value) return BigInt(value.$bigint)
  if ("$date" in value) return new Date(value.$date)
  return new Uint8Array(Buffer.from((value as { $bytes: string }).$bytes, "base64"))
}

const rowCount = (result: unknown): number => {
  if (Array.isArray(result)) return result.length
  const rows = (result as { rows?: unknown } | null | undefined)?.rows
  return Array.isArray(rows) ? rows.length : -1
}

/** The key effect's SqlClient puts the innermost transaction's service under (effect/sql internal/sql.ts). */
const currentTransactionServiceKey = "effect/sql/CurrentTransactionService"

type Run = (connection: unknown, sql: string, params: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>
type WithConnectionSpan = (this: unknown, operation: string, run: Run, withoutTransform: boolean, span: unknown) => unknown

const statementPrototype = (): { withConnectionSpan: WithConnectionSpan } => {
  const sql = Statement.make(Effect.die("sqlCapture: never run") as never, Statement.makeCompilerSqlite(), [], undefined)
  const proto = Object.getPrototypeOf(sql`SELECT 1`) as { withConnectionSpan?: WithConnectionSpan }
  if (typeof proto.withConnectionSpan !== "function") {
    throw new Error("sqlCapture: effect's statements no longer have withConnectionSpan; update bench/sqlCapture.ts")
  }
  return proto as { withConnectionSpan: WithConnectionSpan }
}

const lookup = (context: Context.Context<never>, key: string): unknown =>
  Context.getOrUndefined(context, { key } as unknown as Context.Key<never, unknown>)

/**
 * Starts recording every statement of this process; the returned `stop`
 * ends it and answers what was recorded, in the order the statements were
 * sent. One capture at a time.
 */
export const start = (): (() => ReadonlyArray<CapturedStatement>) => {
  const proto = statementPrototype()
  const original = proto.withConnectionSpan
  const captured: Array<CapturedStatement> = []
  // Connections and transaction levels, numbered in the order first seen.
  const ids = new WeakMap<object, number>()
  let seen = 0
  const number = (o: object) => {
    let id = ids.get(o)
    if (id === undefined) ids.set(o, id = ++seen)
    return id
  }
  proto.withConnectionSpan = function(operation, run, withoutTransform, span) {
    const recording: Run = (connection, sql, params) =>
      Effect.withFiber((fiber) => {
        const service = lookup(fiber.context, currentTransactionServiceKey) as { key: string } | undefined
        const level = service === undefined ? undefined : lookup(fiber.context, service.key) as [object, number] | undefined
        const entry: { -readonly [K in keyof CapturedStatement]: CapturedStatement[K] } = {
          method: operation,
          sql,
          params: [],
          transaction: level === undefined ? null : { connection: number(level[0]), level: number(level), depth: level[1] },
          rows: -1
        }
        try {
          entry.params = params.map(encode)
        } catch (error) {
          // Told to the benchmark, which stops; the server's request goes on untouched.
          entry.error = (error as Error).message
        }
        captured.push(entry)
        return Effect.tap(run(connection, sql, params), (result) => Effect.sync(() => void (entry.rows = rowCount(result))))
      })
    return original.call(this, operation, recording, withoutTransform, span)
  }
  return () => {
    proto.withConnectionSpan = original
    return captured
  }
}

/** A captured request's statements as transaction blocks, nested as they ran. */
export type Block =
  | { readonly _tag: "Statement"; readonly statement: CapturedStatement }
  | { readonly _tag: "Transaction"; readonly depth: number; readonly body: ReadonlyArray<Block> }

/**
 * Rebuilds the transactions of a captured request: consecutive statements
 * of one transaction (same connection, a level at depth 0 that stays the
 * same) form one block, with one nested block per savepoint level.
 */
export const transactionsOf = (statements: ReadonlyArray<CapturedStatement>): ReadonlyArray<Block> => {
  const top: Array<Block> = []
  // The open blocks, outermost first; the level of an outer one is known
  // once a statement ran directly in it.
  let open: Array<{ readonly body: Array<Block>; readonly connection: number; level: number | undefined }> = []
  for (const statement of statements) {
    const t = statement.transaction
    if (t === null) {
      open = []
      top.push({ _tag: "Statement", statement })
      continue
    }
    if (open[0]?.connection !== t.connection) open = []
    // Another level at this depth: the earlier one (and what it held) ended.
    const at = open[t.depth]
    if (at !== undefined && at.level !== undefined && at.level !== t.level) open = open.slice(0, t.depth)
    open = open.slice(0, t.depth + 1)
    while (open.length <= t.depth) {
      const body: Array<Block> = []
      ;(open.length === 0 ? top : open.at(-1)!.body).push({ _tag: "Transaction", depth: open.length, body })
      open.push({ body, connection: t.connection, level: undefined })
    }
    const block = open[t.depth]!
    block.level ??= t.level
    block.body.push({ _tag: "Statement", statement })
  }
  return top
}

/** `BEGIN … COMMIT` and statements, one line each, for the log. */
export const describe = (blocks: ReadonlyArray<Block>, indent = ""): string =>
  blocks.map((block) =>
    block._tag === "Statement"
      ? `${indent}${block.statement.method} ${oneLine(block.statement.sql)} [${block.statement.params.length} parameters] → ${block.statement.rows} rows`
      : `${indent}${block.depth === 0 ? "BEGIN" : "SAVEPOINT"}\n${describe(block.body, `${indent}  `)}\n${indent}${block.depth === 0 ? "COMMIT" : "RELEASE"}`
  ).join("\n")

const oneLine = (sql: string, max = 140) => {
  const text = sql.replace(/\s+/g, " ").trim()
  return text.length > max ? `${text.slice(0, max)}…` : text
}

const rowsOf = rowCount

/**
 * The captured statements run again through `sql`: each with its own
 * method, parameters and transaction blocks (`sql.withTransaction`, nested
 * for savepoints, as the server's client ran them), each checked to answer
 * as many rows as it answered the server.
 */
export const replay = (sql: SqlClient.SqlClient, statements: ReadonlyArray<CapturedStatement>): Effect.Effect<void, Error> => {
  const refused = statements.find((s) => s.error !== undefined)
  if (refused !== undefined) return Effect.fail(new Error(`cannot replay ${oneLine(refused.sql, 80)}: ${refused.error}`))
  const statement = (s: CapturedStatement): Effect.Effect<void, Error> => {
    const st = sql.unsafe(s.sql, s.params.map(decodeParam))
    const run: Effect.Effect<unknown, unknown> | undefined = s.method === "execute"
      ? st
      : s.method === "executeRaw"
      ? st.raw
      : s.method === "executeWithoutTransform"
      ? st.withoutTransform
      : s.method === "executeValues"
      ? st.values
      : s.method === "executeValuesUnprepared"
      ? st.valuesUnprepared
      : s.method === "executeUnprepared"
      ? st.unprepared
      : undefined
    if (run === undefined) return Effect.fail(new Error(`cannot replay a statement run by ${s.method}`))
    return run.pipe(
      Effect.mapError((cause) => new Error(`${oneLine(s.sql, 80)}: ${String(cause)}`)),
      Effect.flatMap((result) => {
        const rows = rowsOf(result)
        return s.rows < 0 || rows === s.rows
          ? Effect.void
          : Effect.fail(new Error(`answered ${rows} rows where the server's answered ${s.rows}: ${oneLine(s.sql, 80)}`))
      })
    )
  }
  const block = (b: Block): Effect.Effect<void, Error> =>
    b._tag === "Statement"
      ? statement(b.statement)
      : sql.withTransaction(Effect.forEach(b.body, block, { discard: true })).pipe(
        Effect.mapError((e) => e instanceof Error ? e : new Error(String(e)))
      )
  const blocks = transactionsOf(statements)
  return Effect.forEach(blocks, block, { discard: true })
}
