/**
 * The unit of work. Services wrap each state transition in
 * `withTransaction` and register event publication with `afterCommit`, so
 * nothing is published for work that rolled back.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import { MemoryDatabase } from "./MemoryDatabase.ts"

/** @category services */
export class Transactor extends Context.Service<Transactor, {
  /** Runs `effect` atomically; a failure or defect rolls every write back. */
  withTransaction<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** Runs `effect` once the outermost transaction commits (now, outside one). */
  afterCommit<R>(effect: Effect.Effect<void, never, R>): Effect.Effect<void, never, R>
}>()("teamchat/core/persistence/Transactor") {
  /** SQL transactions; savepoints for nested calls. Database failures are defects. */
  static readonly layerSql = Layer.effect(
    Transactor,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return Transactor.of({
        withTransaction: (effect) =>
          sql.withTransaction(effect).pipe(
            Effect.catchTag("SqlError", (error) => Effect.die(error))
          ) as typeof effect,
        afterCommit: (effect) => sql.afterCommit(effect)
      })
    })
  )

  /**
   * In-memory transactions: one writer at a time; the state is snapshotted at
   * the start of the outermost transaction and restored if it fails.
   */
  static readonly layerMemory = Layer.effect(
    Transactor,
    Effect.gen(function*() {
      const db = yield* MemoryDatabase
      const lock = yield* Semaphore.make(1)
      const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        Effect.withFiber((fiber) => {
          const current = fiber.getRef(CurrentMemoryTransaction)
          if (current !== undefined) {
            // Nested: behave like a savepoint.
            const snapshot = db.snapshot()
            const mark = current.callbacks.length
            return effect.pipe(
              Effect.onExit((exit) =>
                Effect.sync(() => {
                  if (exit._tag === "Failure") {
                    db.restore(snapshot)
                    current.callbacks.length = mark
                  }
                })
              )
            )
          }
          const tx: MemoryTransaction = { callbacks: [] }
          return lock.withPermits(1)(
            Effect.suspend(() => {
              const snapshot = db.snapshot()
              return effect.pipe(
                Effect.provideService(CurrentMemoryTransaction, tx),
                Effect.onExit((exit) => Effect.sync(() => exit._tag === "Failure" && db.restore(snapshot)))
              )
            })
          ).pipe(
            Effect.tap(() => Effect.forEach(tx.callbacks, (callback) => Effect.ignoreCause(callback), { discard: true }))
          )
        })
      return Transactor.of({
        withTransaction,
        afterCommit: <R>(effect: Effect.Effect<void, never, R>) =>
          Effect.withFiber<void, never, R>((fiber) => {
            const current = fiber.getRef(CurrentMemoryTransaction)
            if (current === undefined) return effect
            current.callbacks.push(
              Effect.provideContext(effect, fiber.context as Context.Context<R>).pipe(
                // The callback runs after the transaction, not inside it.
                Effect.provideService(CurrentMemoryTransaction, undefined)
              )
            )
            return Effect.void
          })
      })
    })
  )
}

interface MemoryTransaction {
  readonly callbacks: Array<Effect.Effect<void>>
}

const CurrentMemoryTransaction = Context.Reference<MemoryTransaction | undefined>(
  "teamchat/core/persistence/Transactor/CurrentMemoryTransaction",
  { defaultValue: () => undefined }
)
