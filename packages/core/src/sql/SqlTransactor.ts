/**
 * Transactor on SQL: the client's transactions, savepoints for nested calls,
 * its after-commit buffer, and a before-commit buffer of its own.
 *
 * A transaction that PostgreSQL aborts as a deadlock victim or for a
 * serialization failure is run again from the start, as a whole (the
 * callbacks of the rolled-back attempt are dropped with it), a few times
 * with a growing, jittered pause: the conflict is the database's
 * scheduling, not the request's fault, so no caller sees it. A transaction
 * whose connection is lost before it asks to commit is run again once, on
 * another connection: nothing of it can have been committed. (Lost during
 * the commit, it may have been: that is not retried.) Nested calls are
 * savepoints of the outer transaction and are never retried alone.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as SqlClient from "effect/sql/SqlClient"
import { isSqlError } from "effect/sql/SqlError"
import type { SqlError } from "effect/sql/SqlError"
import { runBeforeCommit, Transactor } from "../ports/Transactor.ts"
import { isAcquireTimeout } from "./PgClientLayer.ts"

/** Attempts of one transaction in all, the first included. */
export const maxAttempts = 6

/** The conflicts a new attempt resolves: the reasons PostgreSQL reports for 40P01 and 40001. */
const conflictReasons: ReadonlySet<string> = new Set(["DeadlockError", "SerializationError"])

/** The SQL errors of `cause`: repositories' defects and the client's failures. */
const sqlErrors = (cause: Cause.Cause<unknown>): ReadonlyArray<SqlError> =>
  cause.reasons.flatMap((reason) => {
    const error = Cause.isDieReason(reason) ? reason.defect : Cause.isFailReason(reason) ? reason.error : undefined
    return isSqlError(error) ? [error] : []
  })

/** Whether `cause` is a transaction conflict: a repository's defect or the commit's failure. */
export const isConflict = (cause: Cause.Cause<unknown>): boolean =>
  sqlErrors(cause).some((error) => conflictReasons.has(error.reason._tag))

/**
 * The server's word that it ends the session: the administrator's
 * termination, a crash or a shutdown (57P01-57P03), which may arrive before
 * the socket closes.
 */
const sessionEnded: ReadonlySet<unknown> = new Set(["57P01", "57P02", "57P03"])

/**
 * Whether `cause` is a lost or refused connection. A checkout that found no
 * free connection in time is not one: another attempt would only wait again.
 */
export const isConnectionLoss = (cause: Cause.Cause<unknown>): boolean =>
  sqlErrors(cause).some((error) =>
    (error.reason._tag === "ConnectionError" && !isAcquireTimeout(error)) ||
    sessionEnded.has((error.reason.cause as { readonly code?: unknown } | undefined)?.code)
  )

/**
 * The pause before attempt `attempt + 1`: up to 5 ms, 10 ms, 20 ms … with
 * jitter, so the transactions that collided do not collide again in step.
 * Real time whatever Clock the domain runs on (a test's clock may stand
 * still): it spaces out database work, it is no domain time.
 */
const pause = (attempt: number) =>
  Effect.flatMap(Random.nextIntBetween(1, 5 * 2 ** attempt), (millis) =>
    Effect.callback<void>((resume) => {
      const timer = setTimeout(() => resume(Effect.void), millis)
      return Effect.sync(() => clearTimeout(timer))
    }))

/** The before-commit actions of the transaction the fiber is in. */
const CurrentBeforeCommit = Context.Reference<Array<Effect.Effect<void>> | undefined>(
  "teamchat/core/sql/SqlTransactor/CurrentBeforeCommit",
  { defaultValue: () => undefined }
)

/** SQL transactions; savepoints for nested calls. Database failures are defects. */
export const layer: Layer.Layer<Transactor, never, SqlClient.SqlClient> = Layer.effect(
  Transactor,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const toDefect = <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>) =>
      Effect.catchTag(effect, "SqlError", (error) => Effect.die(error)) as Effect.Effect<A, E, R>

    /**
     * One attempt of an outermost transaction, then the next on a conflict,
     * or once on a connection lost before the commit was asked for.
     */
    const attempt = <A, E, R>(effect: Effect.Effect<A, E, R>, n: number, reconnected = false): Effect.Effect<A, E, R> =>
      Effect.suspend(() => {
        const actions: Array<Effect.Effect<void>> = []
        let committing = false
        const body = Effect.provideService(effect, CurrentBeforeCommit, actions).pipe(
          Effect.tap(() => runBeforeCommit(actions)),
          Effect.tap(() => Effect.sync(() => void (committing = true)))
        )
        return sql.withTransaction(body).pipe(
          Effect.catchCause((cause) => {
            if (n < maxAttempts && isConflict(cause)) return Effect.andThen(pause(n), attempt(effect, n + 1, reconnected))
            if (!reconnected && !committing && isConnectionLoss(cause)) return attempt(effect, n + 1, true)
            return Effect.failCause(cause)
          }),
          toDefect
        )
      }) as Effect.Effect<A, E, R>

    /** A savepoint: its before-commit actions are dropped if it rolls back. */
    const savepoint = <A, E, R>(effect: Effect.Effect<A, E, R>, actions: Array<Effect.Effect<void>> | undefined) =>
      Effect.suspend(() => {
        const mark = actions?.length ?? 0
        return toDefect(sql.withTransaction(effect)).pipe(
          Effect.onError(() => Effect.sync(() => void actions?.splice(mark)))
        )
      })

    /**
     * Where `fiber` stands: outside a transaction (`null`), or in one, with
     * its before-commit actions (`undefined` for one begun without this
     * Transactor). The client's transaction decides, not the reference, which
     * an after-commit callback keeps (it runs with the context it was
     * registered in, the transaction left out).
     */
    const transactionOf = (fiber: Fiber.Fiber<unknown, unknown>) =>
      Option.isNone(Context.getOption(fiber.context, sql.transactionService)) ? null : fiber.getRef(CurrentBeforeCommit)

    return Transactor.of({
      withTransaction: (effect) =>
        Effect.withFiber((fiber) => {
          const actions = transactionOf(fiber)
          return actions === null ? attempt(effect, 1) : savepoint(effect, actions)
        }),
      // Not in the registering fiber's context: that may hold a savepoint
      // which has ended by the time the action runs.
      beforeCommit: (effect) =>
        Effect.withFiber((fiber) => {
          const actions = transactionOf(fiber)
          if (actions === null || actions === undefined) return effect
          actions.push(effect)
          return Effect.void
        }),
      afterCommit: (effect) => sql.afterCommit(effect)
    })
  })
)
