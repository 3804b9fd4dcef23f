/**
 * Transactor in memory: one writer at a time over the MemoryDatabase,
 * its journal for rollbacks, after-commit callbacks run once the outermost
 * transaction succeeds.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import { runBeforeCommit, Transactor } from "../ports/Transactor.ts"
import { MemoryDatabase } from "./MemoryDatabase.ts"

interface MemoryTransaction {
  readonly callbacks: Array<Effect.Effect<void>>
  readonly beforeCommit: Array<Effect.Effect<void>>
}

const CurrentMemoryTransaction = Context.Reference<MemoryTransaction | undefined>(
  "teamchat/core/memory/MemoryTransactor/CurrentMemoryTransaction",
  { defaultValue: () => undefined }
)

/**
 * In-memory transactions: one writer at a time; the writes of a transaction
 * (or of a savepoint) that fails are undone (`MemoryDatabase.rollback`).
 */
export const layer: Layer.Layer<Transactor, never, MemoryDatabase> = Layer.effect(
  Transactor,
  Effect.gen(function*() {
    const db = yield* MemoryDatabase
    const lock = yield* Semaphore.make(1)
    const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.withFiber((fiber) => {
        const current = fiber.getRef(CurrentMemoryTransaction)
        if (current !== undefined) {
          // Nested: behave like a savepoint.
          return Effect.suspend(() => {
            const mark = db.begin()
            const callbacks = current.callbacks.length
            const beforeCommit = current.beforeCommit.length
            return effect.pipe(
              Effect.onExit((exit) =>
                Effect.sync(() => {
                  if (exit._tag === "Failure") {
                    db.rollback(mark)
                    current.callbacks.length = callbacks
                    current.beforeCommit.length = beforeCommit
                  } else {
                    db.commit()
                  }
                })
              )
            )
          })
        }
        const tx: MemoryTransaction = { callbacks: [], beforeCommit: [] }
        return lock.withPermits(1)(
          Effect.suspend(() => {
            const mark = db.begin()
            return effect.pipe(
              Effect.tap(() => runBeforeCommit(tx.beforeCommit)),
              Effect.provideService(CurrentMemoryTransaction, tx),
              Effect.onExit((exit) => Effect.sync(() => (exit._tag === "Failure" ? db.rollback(mark) : db.commit())))
            )
          })
        ).pipe(
          Effect.tap(() => Effect.forEach(tx.callbacks, (callback) => Effect.ignoreCause(callback), { discard: true }))
        )
      })
    return Transactor.of({
      withTransaction,
      // Deferred as on SQL, so that both backends write in the same order.
      beforeCommit: (effect) =>
        Effect.withFiber((fiber) => {
          const current = fiber.getRef(CurrentMemoryTransaction)
          if (current === undefined) return effect
          current.beforeCommit.push(effect)
          return Effect.void
        }),
      afterCommit: <R>(effect: Effect.Effect<void, never, R>) =>
        Effect.withFiber<void, never, R>((fiber) => {
          const current = fiber.getRef(CurrentMemoryTransaction)
          if (current === undefined) return effect
          current.callbacks.push(
            effect.pipe(
              // The callback runs after the transaction, not inside it (nor
              // does a fiber it forks): this must sit inside the captured
              // context, which holds the transaction.
              Effect.provideService(CurrentMemoryTransaction, undefined),
              Effect.provideContext(fiber.context as Context.Context<R>)
            )
          )
          return Effect.void
        })
    })
  })
)
