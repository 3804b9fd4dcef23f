/**
 * A node:http shortcut for the hottest authenticated read, GET
 * /api/v1/users/me, in its plain success case only.
 *
 * Why the routes are bypassed: every request through effect's HttpRouter
 * and HttpApi (router, request wrapping, the middleware chain, decoding,
 * the response adapter, a fiber of its own) costs the server about twice
 * the CPU time node:http itself spends on the request, and clients poll
 * this endpoint. Here the request is answered with the core's own calls
 * (`Authentication.basic`, the host check of the authentication middleware,
 * `Users.me`) and the JSON text `Envelope.respond` writes, with the status
 * and headers the routes send for it, byte for byte.
 *
 * What the routes' middleware does to such a request is done here by the
 * same code: the per-user rate limit counts the request in the routes' own
 * `RateLimiter` (`Http.layerRateLimiter`, over the same store) and the
 * answer carries its X-RateLimit-* headers (none when the store failed:
 * the limiter logged a warning and let the request through, as for the
 * routes); the request log gets the line `RequestLog.logRequest` writes for
 * the routes, its duration from the listener's call to the answer.
 *
 * Anything but the plain case falls through to the routes, untouched:
 * another method or path (a query string, a trailing slash), a request
 * body, no or unparsable credentials, any failure of the core (unknown
 * key, deactivated account or organization, another organization's host),
 * an answer `Envelope` cannot write, a user over the rate limit. A failure
 * is then answered by the routes, which run the checks again. The rate
 * limit is counted last, once the answer's text is ready: a request that falls
 * through before is counted by the routes alone, and one over the limit
 * was not counted (a refused request does not count), so the routes' count
 * refuses it again (or, had the window moved meanwhile, counts it once).
 *
 * @since 0.1.0
 */
import { Authentication as CoreAuthentication, Organizations, Users } from "@teamchat/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Api } from "./api/Api.ts"
import type { HttpOptions } from "./internal/Config.ts"
import * as Envelope from "./internal/Envelope.ts"
import { RateLimiter, resetSeconds } from "./internal/RateLimiter.ts"
import type { Decision } from "./internal/RateLimiter.ts"
import * as RealmResolution from "./internal/Realm.ts"
import * as AuthenticationMiddleware from "./middleware/Authentication.ts"
import * as RequestLog from "./middleware/RequestLog.ts"

/** A node:http `request` listener. @category models */
export type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** Puts the shortcuts in front of `next`, the listener of the routes. @category models */
export type Wrap = (next: Handler) => Handler

/**
 * The shortcuts for the routes served with these options; `undefined` when
 * none apply (the success text of GET /users/me cannot be written).
 *
 * @category services
 */
export class FastPaths extends Context.Service<FastPaths, Wrap | undefined>()("@teamchat/http/FastPaths") {}

const mePath = "/api/v1/users/me"

/** A shortcut's answer: the body, and the rate limit decision whose headers it carries. */
interface Answer {
  readonly body: string
  readonly decision: Decision | undefined
}

/** @category constructors */
export const make = (
  options: Pick<HttpOptions, "log">
): Effect.Effect<
  Wrap | undefined,
  never,
  CoreAuthentication.Authentication | Users.Users | Organizations.Organizations | RateLimiter
> =>
  Effect.gen(function*() {
    const core = yield* CoreAuthentication.Authentication
    const users = yield* Users.Users
    const limiter = yield* RateLimiter
    const atHome = yield* AuthenticationMiddleware.makeHomeCheck
    const text = Envelope.successText(Api.groups.users.endpoints.me)
    if (text === undefined) return undefined
    const log = options.log === true
    // The services of the build (logger, clock...), as the routes' fibers have them.
    const run = Effect.runForkWith(yield* Effect.context<never>())

    /** The answer, `undefined` (or a failure) to fall through. */
    const me = (credentials: AuthenticationMiddleware.Credentials, host: string | undefined, start: number) =>
      core.basic(credentials.email, credentials.apiKey).pipe(
        Effect.flatMap(atHome(host)),
        Effect.flatMap((principal) =>
          Effect.flatMap(users.me(principal), (user): Effect.Effect<Answer | undefined> => {
            const body = text(Envelope.envelope(user, []))
            if (body === undefined) return Effect.undefined
            // Counted last, when nothing can fall through any more but a refusal (which is not counted).
            const counted = limiter.limitsUsers ? limiter.countUser(principal.user.id) : Effect.undefined
            return Effect.flatMap(counted, (decision) => {
              if (decision?.limited === true) return Effect.undefined
              const answer: Answer = { body, decision }
              if (!log) return Effect.succeed(answer)
              return Effect.flatMap(Clock.currentTimeMillis, (end) =>
                Effect.as(
                  RequestLog.logRequest({
                    method: "GET",
                    url: mePath,
                    status: 200,
                    durationMs: end - start,
                    userId: principal.user.id
                  }),
                  answer
                ))
            })
          })
        )
      )
    const started = log ? Clock.currentTimeMillis : Effect.succeed(0)
    const answer = (credentials: AuthenticationMiddleware.Credentials, host: string | undefined) =>
      Effect.flatMap(started, (start) => me(credentials, host, start))

    return (next: Handler): Handler => {
      const finish = (
        exit: Exit.Exit<Answer | undefined, unknown>,
        request: IncomingMessage,
        response: ServerResponse
      ) => {
        if (exit._tag === "Failure" || exit.value === undefined) return next(request, response)
        // Nobody to answer (the routes' adapter writes nothing then either).
        if (response.destroyed) return
        const { body, decision } = exit.value
        const length = String(Buffer.byteLength(body))
        // The routes' headers, in their order; node adds Date and Connection alike.
        response.writeHead(
          200,
          decision === undefined
            ? { "content-type": "application/json", "content-length": length }
            : {
              "content-type": "application/json",
              "content-length": length,
              "x-ratelimit-limit": String(decision.limit),
              "x-ratelimit-remaining": String(decision.remaining),
              "x-ratelimit-reset": String(resetSeconds(decision))
            }
        )
        response.end(body)
      }
      return (request, response) => {
        const headers = request.headers
        if (
          request.method !== "GET" || request.url !== mePath || request.httpVersionMajor !== 1 ||
          headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined
        ) {
          return next(request, response)
        }
        const credentials = AuthenticationMiddleware.parseAuthorization(headers.authorization)
        if (credentials === undefined || !AuthenticationMiddleware.isCredentials(credentials)) {
          return next(request, response)
        }
        const fiber = run(answer(credentials, RealmResolution.hostOf(headers.host, mePath)))
        const exit = fiber.pollUnsafe()
        if (exit !== undefined) return finish(exit, request, response)
        fiber.addObserver((exit) => finish(exit, request, response))
      }
    }
  })

/** @category layers */
export const layer = (
  options: Pick<HttpOptions, "log">
): Layer.Layer<
  FastPaths,
  never,
  CoreAuthentication.Authentication | Users.Users | Organizations.Organizations | RateLimiter
> => Layer.effect(FastPaths, make(options))
