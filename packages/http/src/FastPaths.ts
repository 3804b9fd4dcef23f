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
 * Anything but the plain case falls through to the routes, untouched:
 * another method or path (a query string, a trailing slash), a request
 * body, no or unparsable credentials, any failure of the core (unknown
 * key, deactivated account or organization, another organization's host),
 * an answer `Envelope` cannot write. The shortcut is off when rate
 * limiting or request logging is on: the routes count and log requests.
 * A failure is then answered by the routes, which run the checks again.
 *
 * @since 0.1.0
 */
import { Authentication as CoreAuthentication, Organizations, Users } from "@teamchat/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Api } from "./api/Api.ts"
import type { HttpOptions } from "./internal/Config.ts"
import * as Envelope from "./internal/Envelope.ts"
import * as RealmResolution from "./internal/Realm.ts"
import * as AuthenticationMiddleware from "./middleware/Authentication.ts"

/** A node:http `request` listener. @category models */
export type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** Puts the shortcuts in front of `next`, the listener of the routes. @category models */
export type Wrap = (next: Handler) => Handler

/**
 * The shortcuts for the routes served with these options; `undefined` when
 * none apply (rate limiting or request logging on).
 *
 * @category services
 */
export class FastPaths extends Context.Service<FastPaths, Wrap | undefined>()("@teamchat/http/FastPaths") {}

const mePath = "/api/v1/users/me"

/** @category constructors */
export const make = (
  options: Pick<HttpOptions, "rateLimit" | "log">
): Effect.Effect<Wrap | undefined, never, CoreAuthentication.Authentication | Users.Users | Organizations.Organizations> =>
  Effect.gen(function*() {
    if (options.rateLimit !== false || options.log === true) return undefined
    const core = yield* CoreAuthentication.Authentication
    const users = yield* Users.Users
    const atHome = yield* AuthenticationMiddleware.makeHomeCheck
    const text = Envelope.successText(Api.groups.users.endpoints.me)
    if (text === undefined) return undefined
    // The services of the build (logger, clock...), as the routes' fibers have them.
    const run = Effect.runForkWith(yield* Effect.context<never>())

    /** The answer's JSON text, `undefined` (or a failure) to fall through. */
    const me = (credentials: AuthenticationMiddleware.Credentials, host: string | undefined) =>
      core.basic(credentials.email, credentials.apiKey).pipe(
        Effect.flatMap(atHome(host)),
        Effect.flatMap(users.me),
        Effect.map((user) => text(Envelope.envelope(user, [])))
      )

    return (next: Handler): Handler => {
      const finish = (
        exit: Exit.Exit<string | undefined, unknown>,
        request: IncomingMessage,
        response: ServerResponse
      ) => {
        if (exit._tag === "Failure" || exit.value === undefined) return next(request, response)
        // Nobody to answer (the routes' adapter writes nothing then either).
        if (response.destroyed) return
        const body = exit.value
        // The routes' headers, in their order; node adds Date and Connection alike.
        response.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) })
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
        const fiber = run(me(credentials, RealmResolution.hostOf(headers.host, mePath)))
        const exit = fiber.pollUnsafe()
        if (exit !== undefined) return finish(exit, request, response)
        fiber.addObserver((exit) => finish(exit, request, response))
      }
    }
  })

/** @category layers */
export const layer = (
  options: Pick<HttpOptions, "rateLimit" | "log">
): Layer.Layer<FastPaths, never, CoreAuthentication.Authentication | Users.Users | Organizations.Organizations> =>
  Layer.effect(FastPaths, make(options))
