/**
 * The unit of work. Services wrap each state transition in
 * `withTransaction` and register event publication with `afterCommit`, so
 * nothing is published for work that rolled back. The SQL and in-memory
 * implementations live in `sql/SqlTransactor.ts` and `memory/MemoryTransactor.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** @category services */
export class Transactor extends Context.Service<Transactor, {
  /** Runs `effect` atomically; a failure or defect rolls every write back. */
  withTransaction<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** Runs `effect` once the outermost transaction commits (now, outside one). */
  afterCommit<R>(effect: Effect.Effect<void, never, R>): Effect.Effect<void, never, R>
}>()("teamchat/core/ports/Transactor") {}
