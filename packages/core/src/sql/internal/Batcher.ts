/**
 * Calls made in one turn of the event loop, run as one batch: when an event
 * wakes a thousand long polls, each woken poll reads its queue, reads the log
 * and clears its blocked mark, one after the other, in fibers that all resume
 * in the same turn. Batched, those are three statements for all of them
 * instead of three thousand, each a round trip (PostgreSQL) or a query run in
 * this thread (PGlite).
 *
 * The same goes for requests that arrive together: a thousand clients polling
 * again at once after that event.
 *
 * A call joins the pending batch and suspends; the batch runs at the end of
 * the current turn of the event loop (`setImmediate`), in a fiber of its own,
 * so it also takes the calls of every request read from the network in that
 * turn (each request is its own callback, a microtask would flush after
 * each); a lone call waits for the end of its turn, which costs it next to
 * nothing beside its statement. Calls inside a transaction must not be
 * batched (the batch runs outside it): callers check.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"

/** Runs a batch: one result per request, in the requests' order. */
export type RunBatch<Req, Res> = (requests: ReadonlyArray<Req>) => Effect.Effect<ReadonlyArray<Res>>

/** Makes the batched call; `run` starts the batch's fiber (in the layer's services). */
export const make = <Req, Res>(
  runBatch: RunBatch<Req, Res>,
  run: (effect: Effect.Effect<ReadonlyArray<Res>>) => Fiber.Fiber<ReadonlyArray<Res>>
): (request: Req) => Effect.Effect<Res> => {
  let pending: Array<{ readonly request: Req; readonly resume: (effect: Effect.Effect<Res>) => void }> = []
  const flush = () => {
    const batch = pending
    pending = []
    run(runBatch(batch.map((call) => call.request))).addObserver((exit) => {
      if (exit._tag === "Success") {
        for (let i = 0; i < batch.length; i++) batch[i]!.resume(Effect.succeed(exit.value[i]!))
      } else {
        // Every call of a failed batch fails alike (the statements die on failure, as unbatched).
        for (const call of batch) call.resume(Effect.failCause(exit.cause))
      }
    })
  }
  return (request) =>
    Effect.callback<Res>((resume) => {
      pending.push({ request, resume })
      if (pending.length === 1) setImmediate(flush)
    })
}
