/**
 * The outermost layer around every route: one structured log line per
 * request (when enabled), the answer to a request no route serves (Zulip's
 * 404, or its 405 or OPTIONS' 204 for a path served with other methods),
 * the last-resort conversion of a defect into Zulip's 500 JSON, and the
 * Zulip's 400 for an HTTP/1.1 request without Host, the
 * computation of deferred responses
 * (`internal/DeferredResponse.ts`: a GET /events that waits), so that the
 * line has the status sent and the whole duration.
 *
 * The line is logged at Info level with the annotations `method`, `path`
 * (without the query string), `status`, `duration_ms`, `user_id` (the
 * authenticated user, or null) and, for an error response, `code` (Zulip's
 * error code, e.g. `BAD_REQUEST`); the Authorization header, API keys and
 * passwords never appear in it.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as MutableRef from "effect/MutableRef"
import * as Option from "effect/Option"
import type { unhandled } from "effect/Types"
import * as DeferredResponse from "../internal/DeferredResponse.ts"
import { allowedMethods, InternalServerError, methodNotAllowed, notFound, toResponse } from "../internal/Errors.ts"
import * as Failures from "../internal/Failures.ts"
import { RouteTable } from "../internal/RouteTable.ts"

/**
 * The user a request authenticated as, for its log line. The logging
 * middleware provides a fresh cell per request and the authentication
 * middleware fills it; without request logging there is no cell and nothing
 * is recorded.
 *
 * @category references
 */
export const LoggedUser = Context.Reference<MutableRef.MutableRef<number | null> | undefined>(
  "@teamchat/http/middleware/RequestLog/LoggedUser",
  { defaultValue: () => undefined }
)

/** Records the authenticated user of the request whose `LoggedUser` cell this is. */
export const recordUser = (cell: MutableRef.MutableRef<number | null> | undefined, userId: number): void => {
  if (cell !== undefined) MutableRef.set(cell, userId)
}

const isRouteNotFound = (error: unknown): boolean =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"

const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/** What a request's log line says. @category models */
export interface Line {
  readonly method: string
  /** The request's URL, as sent (the query string is left out of the line). */
  readonly url: string
  readonly status: number
  readonly durationMs: number
  readonly userId: number | null
  /** Zulip's error code, for an error response that has one. */
  readonly code?: string | undefined
}

/**
 * Writes a request's log line, in the one format of the routes' log.
 */
export const logRequest = (line: Line): Effect.Effect<void> =>
  Effect.logInfo("request").pipe(
    Effect.annotateLogs({
      method: line.method,
      path: pathOf(line.url),
      status: line.status,
      duration_ms: line.durationMs,
      user_id: line.userId,
      ...(line.code === undefined ? {} : { code: line.code })
    })
  )

/** Bodies of error responses are small; anything larger is not one of ours. */
const maxErrorBody = 64 * 1024

/** The Zulip error code of an error response (its JSON body's `code`), when it has one. */
export const errorCode = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  const body = response.body
  if (response.status < 400 || body._tag !== "Uint8Array" || body.body.byteLength > maxErrorBody) return undefined
  if (!body.contentType.startsWith("application/json")) return undefined
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body.body))
    const code = typeof parsed === "object" && parsed !== null ? (parsed as { code?: unknown }).code : undefined
    return typeof code === "string" ? code : undefined
  } catch {
    return undefined
  }
}

/**
 * What the router serves no route for (it has no catch-all, so that HEAD
 * finds GET's route): a path served with other methods, from `table`, is a
 * 405, or for OPTIONS a 204; any other path, one it cannot even decode too,
 * a 404.
 */
const noRoute = (table: RouteTable["Service"], request: HttpServerRequest.HttpServerRequest) => {
  const methods = table.methodsOf(request.url)
  if (methods.length === 0) return toResponse(notFound())
  return request.method === "OPTIONS" ? allowedMethods(methods) : methodNotAllowed(methods)
}

/**
 * An HTTP/1.1 request without Host (which HTTP/1.1 requires; the node
 * server lets it through, `Server.ts`) is Zulip's JSON 400, the connection
 * closed after it, its body unread. HTTP/1.0 needs none, nor a request not
 * read from a connection (a web handler's, whose URL names its host).
 */
const withoutHost = (request: HttpServerRequest.HttpServerRequest): HttpServerResponse.HttpServerResponse | undefined => {
  if (request.headers.host !== undefined) return undefined
  const source = request.source as { readonly httpVersionMajor?: unknown; readonly httpVersionMinor?: unknown }
  if (source.httpVersionMajor !== 1 || source.httpVersionMinor !== 1) return undefined
  return HttpServerResponse.jsonUnsafe(
    { result: "error", msg: "The request has no Host header.", code: "BAD_REQUEST" },
    { status: 400, headers: { connection: "close" } }
  )
}

/** `httpEffect`, unless the request has no Host (`withoutHost`), with its placeholders answered. */
const served = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R> =>
  Effect.withFiber((fiber) => {
    const refused = withoutHost(Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest))
    return refused === undefined ? DeferredResponse.resolving(httpEffect) : Effect.succeed(refused)
  })

/**
 * `httpEffect`, unless the request's path is a static one not served with its
 * method: that is answered as `noRoute` answers it, before the router could
 * take a parametric route of the method (PATCH /users/me is no PATCH
 * /users/{user_id_or_email}).
 */
const routed = <E, R>(
  table: RouteTable["Service"],
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) =>
      table.shadowingMethods(request.method, request.url) === undefined ? httpEffect : Effect.succeed(noRoute(table, request))
  )

const recover = (table: RouteTable["Service"]) =>
(cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest> => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
  if (Cause.findErrorOption(cause).pipe(Option.exists(isRouteNotFound))) {
    return Effect.map(HttpServerRequest.HttpServerRequest, (request) => noRoute(table, request))
  }
  return Failures.unavailable(cause) ?? Effect.as(
    Effect.logError("Unhandled error while serving a request", cause),
    toResponse(new InternalServerError())
  )
}

const logged = (
  table: RouteTable["Service"],
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown>
): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const start = yield* Clock.currentTimeMillis
    const user = MutableRef.make<number | null>(null)
    const response: HttpServerResponse.HttpServerResponse = yield* Effect.catchCause(
      Effect.provideService(served(routed(table, httpEffect)), LoggedUser, user),
      recover(table)
    )
    const end = yield* Clock.currentTimeMillis
    yield* logRequest({
      method: request.method,
      url: request.url,
      status: response.status,
      durationMs: end - start,
      userId: MutableRef.get(user),
      code: errorCode(response)
    })
    return response
  })

/**
 * The global router middleware: answers what no route serves (404, 405,
 * OPTIONS' 204, from the routes' `RouteTable`), catches defects anywhere
 * below it (logged, answered with a Zulip 500) and logs one line per request
 * when `log` is on.
 *
 * @category layers
 */
export const layer = (options: { readonly log: boolean }): Layer.Layer<never, never, HttpRouter.HttpRouter | RouteTable> =>
  HttpRouter.middleware(
    Effect.map(RouteTable, (table) =>
      options.log
        ? (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>) =>
          logged(table, httpEffect) as Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>
        : (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>) =>
          Effect.catchCause(served(routed(table, httpEffect)), recover(table)) as Effect.Effect<
            HttpServerResponse.HttpServerResponse,
            unhandled
          >),
    { global: true }
  )
