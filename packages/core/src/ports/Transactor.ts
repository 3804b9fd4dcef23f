/**
 * The unit of work. Services wrap each state transition in
 * `withTransaction` and register event publication with `afterCommit`, so
 * nothing is published for work that rolled back. The SQL and in-memory
 * implementations live in `sql/SqlTransactor.ts` and `memory/MemoryTransactor.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** @category services */
export class Transactor extends Context.Service<Transactor, {
  /** Runs `effect` atomically; a failure or defect rolls every write back. */
  withTransaction<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /**
   * Runs `effect` at the end of the outermost transaction, inside it, after
   * the transaction's own work and before the commit (now, outside one), in
   * the order registered, with the outermost transaction's services;
   * dropped with a savepoint that rolls back. For
   * writes that take a lock every transaction shares (the event log's):
   * taken last, it is held only for the commit and never waited for while
   * holding another lock, so it is in no deadlock.
   */
  beforeCommit(effect: Effect.Effect<void>): Effect.Effect<void>
  /** Runs `effect` once the outermost transaction commits (now, outside one). */
  afterCommit<R>(effect: Effect.Effect<void, never, R>): Effect.Effect<void, never, R>
}>()("teamchat/core/ports/Transactor") {}

/**
 * Runs before-commit actions in the order registered, those they register
 * in turn too; for the implementations.
 */
export const runBeforeCommit = (actions: Array<Effect.Effect<void>>): Effect.Effect<void> =>
  Effect.suspend(() => {
    const next = actions.shift()
    return next === undefined ? Effect.void : Effect.andThen(next, runBeforeCommit(actions))
  })
