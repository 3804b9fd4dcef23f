/**
 * Responses computed after the handler returns: a handler answers with
 * `make(effect)`, a placeholder that travels out through HttpApi and its
 * middleware like any response, and the router's outermost middleware
 * (`middleware/RequestLog.ts`, with `resolving`) runs `effect` for the
 * response to send.
 *
 * A blocking GET /events answers this way: while it waits, its request
 * fiber keeps only the router's frames and the wait itself, not HttpApi's
 * frames, the middleware's, the handler's and their contexts (a waiting
 * poll's fiber and wait kept about 7 KB, now 2.4 KB: heap snapshots of
 * bench/events.ts). `effect` must not need the handler's context (it runs
 * in the request's) and must answer failures itself, as `ZulipErrors` does.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"

/** The placeholder's body: what computes the response. */
class Pending {
  readonly response: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
  constructor(response: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>) {
    this.response = response
  }
}

/** A placeholder answered with what `response` computes (by `resolving`). */
export const make = (
  response: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
): HttpServerResponse.HttpServerResponse => HttpServerResponse.raw(new Pending(response))

/**
 * `httpEffect` (the router's handler, under its outermost middleware) with
 * its placeholders answered: a placeholder's response is computed, any
 * other response is sent as it is.
 *
 * The computation is interruptible, as the route's handler was (the router
 * restores the request's uninterruptible state when the handler returns):
 * a client that goes away ends it. It runs in the context the request had
 * before the router: the router adds the route's services to the fiber's
 * context without restoring it (the request does, on exit), and a wait
 * need not keep them, nor what HttpApi's merge flattened into them.
 */
export const resolving = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R> =>
  Effect.withFiber((fiber) => {
    const context = fiber.context
    return Effect.flatMap(httpEffect, (response) => {
      const body = response.body
      if (body._tag !== "Raw" || !(body.body instanceof Pending)) return Effect.succeed(response)
      // Set, not provided: providing would keep the router's context to
      // restore it, which is what the wait must not keep (memory).
      fiber.setContext(context)
      return Effect.interruptible(body.body.response)
    })
  })
