/**
 * Shortcuts for the hottest authenticated requests, in their plain success
 * case only: GET /api/v1/users/me (the exact path, no query string), GET
 * /api/v1/messages (a query string of the endpoint's own parameters) and
 * POST /api/v1/messages (a form body of the endpoint's own parameters, no
 * query string). Each goes in front of the routes twice over: of their
 * node:http listener (`Server.ts`) and of their web handler
 * (`Http.makeWebHandler`).
 *
 * Why the routes are bypassed: every request through effect's HttpRouter
 * and HttpApi (router, request wrapping, the middleware chain, decoding,
 * the response adapter, a fiber of its own) costs the server about twice
 * the CPU time node:http itself spends on the request (profiled: about
 * 0.1 ms a request, half of it HttpApi's; for a page of 50 messages on
 * PostgreSQL more than the core's own work beside its SQL; for a send on
 * PostgreSQL, with its body read through web streams, more than the
 * core's send beside its statement). Clients poll the reads; the send is
 * the busiest write. Here the request is answered with the core's own calls
 * (`Authentication.basic`, the host check of the authentication
 * middleware, `Users.me`; for GET /messages the endpoint's own query
 * schema, `Messages.fetchRequest` of its handler and `Messages.fetchDeferred`;
 * for POST /messages its schema, `Messages.sendRequest` of its handler and
 * `Messages.sendDeferred`) and the JSON text `Envelope.respond` writes,
 * with the status and headers the routes send for it, byte for byte.
 *
 * What the routes' middleware does to such a request is done here by the
 * same code: the per-user rate limit counts the request in the routes' own
 * `RateLimiter` (`Http.layerRateLimiter`, over the same store) and the
 * answer carries its X-RateLimit-* headers (none when the store failed:
 * the limiter logged a warning and let the request through, as for the
 * routes); the request log gets the line `RequestLog.logRequest` writes for
 * the routes, its duration from the listener's call to the answer.
 *
 * Anything but the plain case falls through to the routes, untouched (a
 * send whose body was read, with that body): another method or path (a
 * trailing slash; for GET /users/me any query string), a request body on a
 * GET; on a POST a query string, another body type, a chunked body or one
 * larger than the routes take; a parameter the endpoint does not declare (the
 * answer would name it in `ignored_parameters_unsupported`), a repeated or
 * refused one (`Params.checkText`), one its schema does not decode, no or
 * unparsable credentials, any failure of the core (unknown key, deactivated
 * account or organization, another organization's host, a bad anchor or
 * narrow, an access read found stale), an answer `Envelope` cannot write, a
 * user over the rate limit. A failure is then answered by the routes, which
 * run the checks again. The rate limit is counted last, once the answer's
 * text is ready: a request that falls through before is counted by the
 * routes alone, and one over the limit was not counted (a refused request
 * does not count), so the routes' count refuses it again (or, had the
 * window moved meanwhile, counts it once). A send is the exception (see
 * `send` below): it is counted first, as by the routes, and a send that
 * falls through, having written nothing, has its count taken back. Only a
 * refusal of the core falls through after a send was tried: any other
 * failure of the send (a connection lost after COMMIT went out) may follow
 * a written message, so it is answered here as the routes answer it (a
 * 500, or a 503 when the database is unavailable), and sent once.
 *
 * @since 0.1.0
 */
import { Authentication as CoreAuthentication, Messages, Organizations, Users } from "@teamchat/core"
import type { Principal } from "@teamchat/core"
import { ZulipError } from "@teamchat/core"
import * as Cache from "effect/Cache"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as Schema from "effect/Schema"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import { IncomingMessage } from "node:http"
import type { ServerResponse } from "node:http"
import { Api } from "./api/Api.ts"
import * as MessagesHandlers from "./handlers/Messages.ts"
import type { HttpOptions } from "./internal/Config.ts"
import * as Envelope from "./internal/Envelope.ts"
import * as Failures from "./internal/Failures.ts"
import * as IgnoredParameters from "./internal/IgnoredParameters.ts"
import * as Params from "./internal/Params.ts"
import { RateLimiter, resetSeconds } from "./internal/RateLimiter.ts"
import type { Decision } from "./internal/RateLimiter.ts"
import * as RealmResolution from "./internal/Realm.ts"
import * as AuthenticationMiddleware from "./middleware/Authentication.ts"
import * as RequestLog from "./middleware/RequestLog.ts"

/** A node:http `request` listener. @category models */
export type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** A web handler. @category models */
export type WebHandler = (request: Request) => Promise<Response>

/** The shortcuts, to put in front of the routes' listener or web handler. @category models */
export interface Shortcuts {
  readonly node: (next: Handler) => Handler
  readonly web: (next: WebHandler) => WebHandler
}

/**
 * The shortcuts for the routes served with these options; `undefined` when
 * none apply (the success texts cannot be written).
 *
 * @category services
 */
export class FastPaths extends Context.Service<FastPaths, Shortcuts | undefined>()("@teamchat/http/FastPaths") {}

const mePath = "/api/v1/users/me"
const messagesPath = "/api/v1/messages"
const listEndpoint = Api.groups.messages.endpoints.list
const sendEndpoint = Api.groups.messages.endpoints.send

/** How many parsed GET /messages requests the shortcut keeps, and the longest query string it keeps one for. */
const keptRequestCount = 256
const keptSearchLength = 2048

/** `value` frozen with everything inside it (JSON data: a parsed request), so one kept copy can serve every request. */
const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

/**
 * A shortcut's answer: the body, and the rate limit decision whose headers
 * it carries; a status and headers of its own for a failure answered here
 * (`failed`).
 */
interface Answer {
  readonly body: string
  readonly decision: Decision | undefined
  readonly status?: number
  readonly headers?: Record<string, string>
}

/** The outcome of a send whose client went away meanwhile: nothing to answer, nothing to hand on. */
const dropped: unique symbol = Symbol("dropped")

/**
 * Whether a failure is the core's refusal (a Zulip error) or a stale access
 * read (`StaleAccess`, to be authenticated again), which wrote nothing.
 */
const isRefusal = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.length > 0 &&
  cause.reasons.every((reason) =>
    Cause.isFailReason(reason) &&
    (ZulipError.isZulipError(reason.error) || Predicate.isTagged(reason.error, "StaleAccess"))
  )

/** An error response of the routes' making (a JSON body of bytes), as an answer of the shortcut. */
const fromResponse = (response: HttpServerResponse.HttpServerResponse, decision: Decision | undefined): Answer => {
  const body = response.body
  const text = body._tag === "Uint8Array" ? Buffer.from(body.body).toString("utf8") : ""
  const headers: Record<string, string> = { "content-type": body._tag === "Uint8Array" ? body.contentType : "application/json" }
  for (const [name, value] of Object.entries(response.headers)) headers[name] = value
  if (decision !== undefined) {
    headers["x-ratelimit-limit"] = String(decision.limit)
    headers["x-ratelimit-remaining"] = String(decision.remaining)
    headers["x-ratelimit-reset"] = String(resetSeconds(decision))
  }
  return { body: text, decision, status: response.status, headers }
}

/** The answer's headers, as the routes send them, in their order (node adds Date and Connection alike). */
const answerHeaders = ({ body, decision, headers }: Answer): Record<string, string> => {
  const length = String(Buffer.byteLength(body))
  if (headers !== undefined) return { ...headers, "content-length": length }
  return decision === undefined
    ? { "content-type": "application/json", "content-length": length }
    : {
      "content-type": "application/json",
      "content-length": length,
      "x-ratelimit-limit": String(decision.limit),
      "x-ratelimit-remaining": String(decision.remaining),
      "x-ratelimit-reset": String(resetSeconds(decision))
    }
}

/**
 * An endpoint's parameters from its query string (`search`, without "?") or
 * form body, as the routes merge them (`RequestParams`); `undefined` for any
 * the shortcut leaves to the routes: one the endpoint does not declare, a
 * repeated one, one `Params.checkText` refuses.
 */
const formParameters = (search: string, declared: ReadonlySet<string>): Record<string, string> | undefined => {
  const parameters: Record<string, string> = Object.create(null)
  for (const [name, value] of new URLSearchParams(search)) {
    if (!declared.has(name) || name in parameters) return undefined
    if (Params.checkText(name, value, undefined) !== undefined) return undefined
    parameters[name] = value
  }
  return parameters
}

/** A form body's text, as the routes decode it (effect's `urlParamsBody`). */
const bodyDecoder = new TextDecoder("utf-8", { ignoreBOM: true })

/** POST /messages's parameters from its form body; `undefined` as for `formParameters`. */
const bodyParameters = (body: Uint8Array, declared: ReadonlySet<string>) =>
  // A leading "?" is a parameter's, not a query string's mark (as for the routes).
  formParameters(bodyDecoder.decode(body).replace(/^\?/, "%3F"), declared)

/**
 * A node:http request with `body` read in full already: the request as the
 * routes' listener would have received it, for a request whose body the
 * shortcut read and then handed on. Same socket, method, URL and headers.
 */
const replayed = (request: IncomingMessage, body: Uint8Array): IncomingMessage => {
  const copy = new IncomingMessage(request.socket)
  copy.method = request.method!
  copy.url = request.url!
  copy.httpVersion = request.httpVersion
  copy.httpVersionMajor = request.httpVersionMajor
  copy.httpVersionMinor = request.httpVersionMinor
  copy.headers = request.headers
  copy.rawHeaders = request.rawHeaders
  copy.push(body)
  copy.push(null)
  // Read from the connection in full: nothing of it left to drain.
  copy.complete = true
  return copy
}

/**
 * A web request's body, at most `max` bytes of it: the bytes, or the body
 * to hand on (what was read, then the rest, unread) past `max` or when
 * reading it failed (the rest then fails alike where the routes read it).
 */
const readWebBody = async (
  body: ReadableStream<Uint8Array>,
  max: number
): Promise<{ readonly bytes: Uint8Array } | { readonly rest: ReadableStream<Uint8Array> }> => {
  const reader = body.getReader()
  const chunks: Array<Uint8Array> = []
  const rest = () =>
    new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const chunk = chunks.shift()
        if (chunk !== undefined) return controller.enqueue(chunk)
        const next = await reader.read()
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      },
      cancel: (reason) => reader.cancel(reason)
    })
  let size = 0
  while (true) {
    const next = await reader.read().then((read) => read, () => undefined)
    if (next === undefined) return { rest: rest() }
    if (next.done) return { bytes: Buffer.concat(chunks, size) }
    chunks.push(next.value)
    size += next.value.byteLength
    if (size > max) return { rest: rest() }
  }
}

/** @category constructors */
export const make = (
  options: Pick<HttpOptions, "log" | "maxBodyBytes">
): Effect.Effect<
  Shortcuts | undefined,
  never,
  CoreAuthentication.Authentication | Users.Users | Messages.Messages | Organizations.Organizations | RateLimiter
> =>
  Effect.gen(function*() {
    const core = yield* CoreAuthentication.Authentication
    const users = yield* Users.Users
    const messages = yield* Messages.Messages
    const limiter = yield* RateLimiter
    const atHome = yield* AuthenticationMiddleware.makeHomeCheck
    const meText = Envelope.successText(Api.groups.users.endpoints.me)
    const listText = Envelope.successText(listEndpoint)
    if (meText === undefined || listText === undefined) return undefined
    const sendText = Envelope.successText(sendEndpoint)
    if (sendText === undefined) return undefined
    const declared = IgnoredParameters.declaredNames(listEndpoint)
    const decodeList = Schema.decodeUnknownEffect(listEndpoint.query as HttpApiEndpoint.Query<typeof listEndpoint>)
    const sendDeclared = IgnoredParameters.declaredNames(sendEndpoint)
    const decodeSend = Schema.decodeUnknownEffect(sendEndpoint.query as HttpApiEndpoint.Query<typeof sendEndpoint>)
    const log = options.log === true
    const maxBodyBytes = options.maxBodyBytes
    // The services of the build (logger, clock...), as the routes' fibers have them.
    const run = Effect.runForkWith(yield* Effect.context<never>())

    /** `answer`, logged as the routes would. */
    const logged = (answer: Answer, principal: Principal.Principal, method: string, path: string, start: number) =>
      log
        ? Effect.flatMap(Clock.currentTimeMillis, (end) =>
          Effect.as(
            RequestLog.logRequest({ method, url: path, status: 200, durationMs: end - start, userId: principal.user.id }),
            answer
          ))
        : Effect.succeed(answer)

    /** The answer with `body`, counted and logged as the routes would; `undefined` when over the limit. */
    const answered = (principal: Principal.Principal, body: string | undefined, path: string, start: number) => {
      if (body === undefined) return Effect.undefined
      // Counted last, when nothing can fall through any more but a refusal (which is not counted).
      const counted = limiter.limitsUsers ? limiter.countUser(principal.user.id) : Effect.undefined
      return Effect.flatMap(counted, (decision): Effect.Effect<Answer | undefined> => {
        if (decision?.limited === true) return Effect.undefined
        return logged({ body, decision }, principal, "GET", path, start)
      })
    }

    /**
     * A send's failure other than a refusal, answered as the routes answer
     * it (`Failures.recover`: a 500, or a 503 when the database is
     * unavailable), counted and logged; a client gone away gets nothing.
     */
    const failed = (
      cause: Cause.Cause<unknown>,
      decision: Decision | undefined,
      principal: Principal.Principal,
      start: number
    ): Effect.Effect<Answer | typeof dropped> =>
      Cause.hasInterruptsOnly(cause) ? Effect.succeed(dropped) : Effect.flatMap(
        Effect.orDie(Failures.recover("messages", "send")(cause)),
        (response) => {
          const answer = fromResponse(response, decision)
          return log
            ? Effect.flatMap(Clock.currentTimeMillis, (end) =>
              Effect.as(
                RequestLog.logRequest({
                  method: "POST",
                  url: messagesPath,
                  status: answer.status ?? 200,
                  durationMs: end - start,
                  userId: principal.user.id,
                  code: RequestLog.errorCode(response)
                }),
                answer
              ))
            : Effect.succeed(answer)
        }
      )

    /** The principal of `credentials`, at home on `host`, as the authentication middleware finds it. */
    const principalOf = (credentials: AuthenticationMiddleware.Credentials, host: string | undefined, deferAccessCheck: boolean) =>
      Effect.flatMap(core.basic(credentials.email, credentials.apiKey, { deferAccessCheck }), atHome(host))

    const me = (credentials: AuthenticationMiddleware.Credentials, host: string | undefined, start: number) =>
      principalOf(credentials, host, false).pipe(
        Effect.flatMap((principal) =>
          Effect.flatMap(users.me(principal), (user) =>
            answered(principal, meText(Envelope.envelope(user, [])), mePath, start)))
      )

    // As the routes: authenticated from the kept read unchecked, the search
    // checking it (`Messages.fetchDeferred`); a stale read falls through.
    const list = (
      request: Messages.FetchRequest,
      credentials: AuthenticationMiddleware.Credentials,
      host: string | undefined,
      start: number
    ) =>
      Effect.flatMap(principalOf(credentials, host, true), (principal) =>
        Effect.flatMap(messages.fetchDeferred(principal, request), (page) =>
          answered(principal, listText(Envelope.envelope(page, [])), messagesPath, start)))

    /** A GET /messages query string parsed as the routes parse it; any failure means the routes answer the request. */
    const parse = (search: string): Effect.Effect<Messages.FetchRequest, unknown> => {
      const parameters = formParameters(search, declared)
      if (parameters === undefined) return Effect.fail("undeclared, repeated or refused parameters")
      return decodeList(parameters).pipe(Effect.flatMap(MessagesHandlers.fetchRequest), Effect.map(deepFreeze))
    }

    /**
     * GET /messages requests by their query string. Parsing one is a pure
     * function of the text, and clients send the same few texts over and
     * over (a view opened at its newest messages: `anchor=newest` and the
     * view's narrow, from every user who opens it), so the newest
     * `keptRequestCount` requests that parsed are kept, frozen, and a kept
     * text skips the parameters' checks, their schema and the narrow's JSON
     * (about a tenth of a read's own work). Only what the text says is kept:
     * each request is authenticated, searched and answered afresh. A text
     * that does not parse is not kept; the routes answer it each time.
     */
    const keptRequests = yield* Cache.makeWith<string, Messages.FetchRequest, unknown>(parse, {
      capacity: keptRequestCount,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? Duration.infinity : Duration.zero)
    })
    const listRequest = (search: string) => search.length > keptSearchLength ? parse(search) : Cache.get(keptRequests, search)

    // POST /messages: a send writes, so what a send falls through with must
    // not have written anything (the routes send it afresh). It is counted
    // before the send, as the routes count before their handler, and a send
    // that fails (written nothing: the core's send is one transaction) has
    // its count taken back before the routes count it again. The success
    // text of `{id}` cannot fail to be written; the send is the last step
    // that can fail.
    const send = (
      parameters: Record<string, string>,
      credentials: AuthenticationMiddleware.Credentials,
      host: string | undefined,
      userAgent: string | undefined,
      start: number
    ) =>
      decodeSend(parameters).pipe(
        Effect.flatMap(MessagesHandlers.sendRequest),
        Effect.flatMap((request) =>
          Effect.flatMap(principalOf(credentials, host, true), (principal) => {
            const counted = limiter.limitsUsers ? limiter.countUserUndoably(principal.user.id) : Effect.undefined
            return Effect.flatMap(counted, (count): Effect.Effect<Answer | typeof dropped | undefined> => {
              if (count?.decision.limited === true) return Effect.undefined
              return Effect.matchCauseEffect(
                messages.sendDeferred(principal, request, { client: Messages.clientName(userAgent) }),
                {
                  // Only a refusal of the core is known to have written
                  // nothing: any other failure (a connection lost after
                  // COMMIT went out) may follow a committed send, which
                  // the routes must not send again; it is answered here.
                  onFailure: (cause) =>
                    isRefusal(cause)
                      ? count === undefined ? Effect.undefined : Effect.as(count.undo, undefined)
                      : failed(cause, count?.decision, principal, start),
                  onSuccess: ({ id }) =>
                    logged({ body: sendText(Envelope.envelope({ id }, []))!, decision: count?.decision }, principal, "POST", messagesPath, start)
                }
              )
            })
          })
        )
      )

    // A request's start for its log line, taken when the listener is called
    // (for a send, before its body is read), as the routes' log does.
    const clock = yield* Clock.Clock
    const startNow = () => (log ? clock.currentTimeMillisUnsafe() : 0)

    /**
     * The credentials of a POST that is the send shortcut's, as far as its
     * path (the exact one; the caller checks there is no query string),
     * body type (a form) and credentials (parsable) tell before its body is
     * read; `undefined` when it is not. The callers check the body's size.
     */
    const sendShortcut = (
      url: string,
      contentType: string | null | undefined,
      authorization: string | null | undefined
    ): AuthenticationMiddleware.Credentials | undefined => {
      if (url !== messagesPath || Params.mediaType(contentType) !== "application/x-www-form-urlencoded") return undefined
      const credentials = AuthenticationMiddleware.parseAuthorization(authorization ?? undefined)
      return credentials !== undefined && AuthenticationMiddleware.isCredentials(credentials) ? credentials : undefined
    }

    /**
     * The shortcut's work for a request (`path` and `search` as sent, the
     * search without "?", `undefined` when there is none), or `undefined`
     * when it is none of the shortcut's.
     */
    const shortcut = (
      method: string | undefined,
      path: string,
      search: string | undefined,
      hasBody: boolean,
      authorization: string | undefined,
      host: () => string | undefined
    ): Effect.Effect<Answer | undefined, unknown> | undefined => {
      if (method !== "GET" || hasBody) return undefined
      if (path === messagesPath ? search === undefined : path !== mePath || search !== undefined) return undefined
      const credentials = AuthenticationMiddleware.parseAuthorization(authorization)
      if (credentials === undefined || !AuthenticationMiddleware.isCredentials(credentials)) return undefined
      const at = host()
      const start = startNow()
      return search === undefined
        ? me(credentials, at, start)
        : Effect.flatMap(listRequest(search), (request) => list(request, credentials, at, start))
    }

    /** Runs `work` and hands its answer to `answer`, or falls through to `next`. */
    const settle = (
      work: Effect.Effect<Answer | typeof dropped | undefined, unknown>,
      onAnswer: (answer: Answer | typeof dropped) => void,
      next: () => void
    ) => {
      const done = (exit: Exit.Exit<Answer | typeof dropped | undefined, unknown>) =>
        exit._tag === "Failure" || exit.value === undefined ? next() : onAnswer(exit.value)
      const fiber = run(work)
      const exit = fiber.pollUnsafe()
      if (exit !== undefined) return done(exit)
      fiber.addObserver(done)
    }

    /** Writes an answer on node:http. */
    const writeAnswer = (response: ServerResponse) => (answer: Answer | typeof dropped) => {
      if (answer === dropped) return response.destroy()
      // Nobody to answer (the routes' adapter writes nothing then either).
      if (response.destroyed) return
      response.writeHead(answer.status ?? 200, answerHeaders(answer))
      response.end(answer.body)
    }

    /** A web handler's `Response`: the answer of `work`, or `next`'s when it falls through. */
    const webAnswer = (work: Effect.Effect<Answer | typeof dropped | undefined, unknown>, next: () => Promise<Response>) =>
      new Promise<Response>((resolve) =>
        settle(
          work,
          (answer) =>
            resolve(
              answer === dropped
                ? Response.error()
                : new Response(answer.body, { status: answer.status ?? 200, headers: answerHeaders(answer) })
            ),
          () => resolve(next())
        )
      )

    /**
     * POST /messages on node:http: a body of a declared length (not chunked,
     * no `Expect: 100-continue`, which the routes answer), read in full,
     * then sent or handed on with the body (`replayed`). A request whose
     * body never arrives in full (the client went away) is dropped with its
     * connection.
     */
    const nodeSend = (request: IncomingMessage, response: ServerResponse, next: Handler) => {
      const headers = request.headers
      const length = headers["content-length"]
      const credentials = request.httpVersionMajor !== 1 || headers["transfer-encoding"] !== undefined ||
          headers.expect !== undefined || length === undefined || !/^\d{1,9}$/.test(length) || Number(length) > maxBodyBytes
        ? undefined
        : sendShortcut(request.url ?? "", headers["content-type"], headers.authorization)
      if (credentials === undefined) return next(request, response)
      const start = startNow()
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.once("error", () => response.destroy())
      request.once("end", () => {
        const body = Buffer.concat(chunks)
        const handOn = () => next(replayed(request, body), response)
        const parameters = bodyParameters(body, sendDeclared)
        if (parameters === undefined) return handOn()
        const host = RealmResolution.hostOf(headers.host, request.url ?? "")
        settle(send(parameters, credentials, host, headers["user-agent"], start), writeAnswer(response), handOn)
      })
    }

    const node = (next: Handler): Handler => (request, response) => {
      if (request.method === "POST") return nodeSend(request, response, next)
      const headers = request.headers
      const url = request.url ?? ""
      const mark = url.indexOf("?")
      const work = request.httpVersionMajor !== 1 ? undefined : shortcut(
        request.method,
        mark === -1 ? url : url.slice(0, mark),
        mark === -1 ? undefined : url.slice(mark + 1),
        headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined,
        headers.authorization,
        () => RealmResolution.hostOf(headers.host, url)
      )
      if (work === undefined) return next(request, response)
      settle(work, writeAnswer(response), () => next(request, response))
    }

    /** POST /messages in front of a web handler: as `nodeSend`, the body read up to the routes' limit. */
    const webSend = async (request: Request, next: WebHandler): Promise<Response> => {
      const headers = request.headers
      const url = new URL(request.url)
      const length = Number(headers.get("content-length") ?? 0)
      const credentials = url.search !== "" || !(length <= maxBodyBytes)
        ? undefined
        : sendShortcut(url.pathname, headers.get("content-type"), headers.get("authorization"))
      if (credentials === undefined || request.body === null) return next(request)
      const start = startNow()
      const read = await readWebBody(request.body, maxBodyBytes)
      const handOn = () =>
        next(new Request(request.url, {
          method: "POST",
          headers,
          body: "bytes" in read ? read.bytes : read.rest,
          signal: request.signal,
          ...("bytes" in read ? {} : { duplex: "half" })
        } as RequestInit))
      if (!("bytes" in read)) return handOn()
      const parameters = bodyParameters(read.bytes, sendDeclared)
      if (parameters === undefined) return handOn()
      const host = RealmResolution.hostOf(headers.get("host") ?? undefined, request.url)
      return webAnswer(send(parameters, credentials, host, headers.get("user-agent") ?? undefined, start), handOn)
    }

    const web = (next: WebHandler): WebHandler => (request) => {
      if (request.method === "POST") return webSend(request, next)
      if (request.method !== "GET" || request.body !== null) return next(request)
      const url = new URL(request.url)
      const headers = request.headers
      const work = shortcut(
        request.method,
        url.pathname,
        // A lone "?" reads as no query string here, as it does for the routes' URL.
        url.search === "" ? undefined : url.search.slice(1),
        false,
        headers.get("authorization") ?? undefined,
        () => RealmResolution.hostOf(headers.get("host") ?? undefined, request.url)
      )
      if (work === undefined) return next(request)
      return webAnswer(work, () => next(request))
    }

    return { node, web } satisfies Shortcuts
  })

/** @category layers */
export const layer = (
  options: Pick<HttpOptions, "log" | "maxBodyBytes">
): Layer.Layer<
  FastPaths,
  never,
  CoreAuthentication.Authentication | Users.Users | Messages.Messages | Organizations.Organizations | RateLimiter
> => Layer.effect(FastPaths, make(options))
