/**
 * The one request pipeline: every endpoint of the API is served by a
 * handler compiled once, when the routes are built, from its HttpApi
 * definition and its group's handler. Per request it runs only what the
 * endpoint needs, in this order (the order HttpApi applies the middleware
 * the API declares): Zulip's error answers around everything
 * (`ZulipErrors`), the merged parameters (`RequestParams`), the
 * authentication or the address rate limit the endpoint's group declares
 * (each knowing its endpoint), the path and query decoded by the
 * endpoint's schemas (decoders made once), for an endpoint whose payload
 * is a multipart stream (`HttpApiSchema.asMultipartStream`, POST
 * /user_uploads) the body's parts as a stream (empty for a body of any
 * other type: HttpApi would answer it with a bare 415, Zulip finds no
 * parts in it), the handler, and its value
 * encoded by the endpoint's success schema (`Envelope.encoder`, made once).
 * The router, its global middleware (`middleware/RequestLog.ts`: the log
 * line, 404/405, deferred responses) and the server adapter are effect's,
 * the same for every route.
 *
 * What it saves over `HttpApiBuilder.layer`, which builds the same steps
 * generically: a generator and a context read per step, the security
 * middleware's per-request wrapping (its credential decoding: ours parse
 * the header themselves), the error reporting and the failure encoding
 * (`ZulipErrors` answers every failure first).
 *
 * The handlers are the groups' own (`HttpApiBuilder.group`), read from the
 * group services as `HttpApiBuilder.layer` reads them; the OpenAPI document
 * is effect's (`OpenApi.fromApi`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as HttpApi from "effect/http-api/HttpApi"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiError from "effect/http-api/HttpApiError"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import * as Stream from "effect/Stream"
import * as Envelope from "./internal/Envelope.ts"
import * as Params from "./internal/Params.ts"
import * as RequestLog from "./middleware/RequestLog.ts"

type AnyEffect = Effect.Effect<any, any, any>

/**
 * What an `HttpApiBuilder.group` layer provides under its group's key (its
 * handlers and HttpApi's routes for them, one per handler, in order), as
 * `HttpApiBuilder.layer` reads it. effect keeps the type internal; its
 * version is pinned, and a moved shape fails every build of the routes.
 */
interface HandlerRuntime {
  readonly endpoint: HttpApiEndpoint.Top
  readonly handler: (request: unknown) => AnyEffect
  readonly uninterruptible: boolean
}
interface GroupService {
  readonly routes: ReadonlyArray<HttpRouter.Route<any, any>>
  readonly handlers: ReadonlyMap<string, HandlerRuntime>
}

/** The success response of a handler's value, by the endpoint's success schema. */
const successEncoder = (endpoint: HttpApiEndpoint.Top) => {
  try {
    return Envelope.encoder(endpoint)
  } catch {
    // Not one plain JSON schema: encoded by the first one, as JSON.
    const schema = Array.from(endpoint.success as Iterable<Schema.Top>)[0]
    if (schema === undefined) return (_value: object) => Effect.succeed(HttpServerResponse.empty({ status: 204 }))
    const encode = Schema.encodeUnknownEffect(schema as Schema.Codec<unknown, unknown>)
    return (value: object) =>
      Effect.map(
        HttpApiError.HttpApiSchemaError.wrap("Body", encode(value)),
        (encoded) => HttpServerResponse.jsonUnsafe(encoded)
      )
  }
}

/** Whether the endpoint's payload is a multipart stream (`asMultipartStream`). */
const isMultipartStream = (endpoint: HttpApiEndpoint.Top): boolean => {
  for (const [, { encoding }] of endpoint.payload as HttpApiEndpoint.PayloadMap) {
    if (encoding._tag === "Multipart" && encoding.mode === "stream") return true
  }
  return false
}

/** The body's parts when it is multipart; no parts otherwise. */
const multipartPayload = (request: HttpServerRequest.HttpServerRequest) =>
  Params.mediaType(request.headers["content-type"]) === "multipart/form-data" ? request.multipartStream : Stream.empty

/** The endpoint's handler with its parameters decoded and its value encoded. */
const handlerEffect = (
  group: HttpApiGroup.Top,
  runtime: HandlerRuntime
): AnyEffect => {
  const endpoint = runtime.endpoint
  const decodeParams = endpoint.params === undefined
    ? undefined
    : Schema.decodeUnknownEffect(endpoint.params as Schema.Codec<unknown, unknown>)
  const decodeQuery = endpoint.query === undefined
    ? undefined
    : Schema.decodeUnknownEffect(Schema.toCodecArrayFromSingle(endpoint.query as Schema.Codec<unknown, unknown>))
  const encode = successEncoder(endpoint)
  const multipart = isMultipartStream(endpoint)
  const handler = runtime.handler
  const answer = (value: unknown): AnyEffect =>
    HttpServerResponse.isHttpServerResponse(value) ? Effect.succeed(value) : encode(value as object)
  const run = (input: Record<string, unknown>) => Effect.flatMap(handler(input), answer)
  return Effect.contextWith((context: Context.Context<never>) => {
    const request = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
    const input: Record<string, unknown> = { request, endpoint, group }
    if (multipart) input.payload = multipartPayload(request)
    const withQuery = () =>
      decodeQuery === undefined ? run(input) : Effect.flatMap(
        HttpApiError.HttpApiSchemaError.wrap(
          "Query",
          decodeQuery(Context.getUnsafe(context, HttpServerRequest.ParsedSearchParams))
        ),
        (query) => {
          input.query = query
          return run(input)
        }
      )
    if (decodeParams === undefined) return withQuery()
    const params = Context.getUnsafe(context, HttpRouter.RouteContext).params
    return Effect.flatMap(HttpApiError.HttpApiSchemaError.wrap("Params", decodeParams(params)), (decoded) => {
      input.params = decoded
      return withQuery()
    })
  })
}

/**
 * The endpoint's middleware around `effect`, innermost first (as HttpApi
 * applies it). A security middleware (`Authentication`,
 * `OptionalAuthentication`) has one scheme and reads its credentials
 * itself: applied directly, without HttpApi's credential decoding.
 */
const withMiddleware = (
  group: HttpApiGroup.Top,
  endpoint: HttpApiEndpoint.Top,
  context: Context.Context<never>,
  effect: AnyEffect
): AnyEffect => {
  const options = { group, endpoint }
  for (const key of endpoint.middlewares) {
    const service = Context.getUnsafe(context, key as HttpApiMiddleware.AnyService) as any
    if (HttpApiMiddleware.isSecurity(key as HttpApiMiddleware.AnyService)) {
      const schemes = Object.keys((key as HttpApiMiddleware.AnyServiceSecurity).security)
      if (schemes.length !== 1) throw new Error(`Pipeline: ${endpoint.identifier}: one security scheme expected`)
      effect = service[schemes[0]!](effect, { ...options, credential: undefined })
    } else {
      effect = service(effect, options)
    }
  }
  return effect
}

/**
 * The services a request adds to the fiber's context on its way to a route
 * (effect's server adapter, its router, `middleware/RequestLog.ts`): the
 * request, its parameters and route, its scope and state (pre-response
 * handlers), the server span, the log line's user.
 */
const requestServiceKeys: ReadonlyArray<string> = [
  HttpServerRequest.HttpServerRequest.key,
  HttpServerRequest.ParsedSearchParams.key,
  HttpRouter.RouteContext.key,
  Scope.Scope.key,
  Tracer.ParentSpanKey,
  RequestLog.LoggedUser.key,
  // effect's `HttpEffect` keeps it internal (its pre-response handlers).
  "effect/http/HttpEffect/CurrentRequestState"
]

/**
 * Runs a route's effect in the routes' context (the services the build
 * read: core, middleware, handlers) with the request's own services on top
 * (`requestServiceKeys`, those the routes' context does not hold). As
 * `Effect.provideContext`, where the routes' services win, but without its
 * merge, which copies both contexts (86 and 57 services in the standalone
 * server) on every request: the request's few services are added as
 * overlays of the routes' context, made once, and read from the fiber's
 * context one by one (no copy of it either).
 */
const routesContext = (context: Context.Context<never>) => {
  const services = context.mapUnsafe
  // Overlays up to the request's services; lookups fall through to the map.
  const base = Context.makeUnsafe<never>(new Map(services), { maxDepth: 16 })
  const keys = requestServiceKeys.filter((key) => !services.has(key))
  const forRequest = (current: Context.Context<never>): Context.Context<never> => {
    let next = base
    for (const key of keys) {
      const service = Context.getOrUndefined(current, { key } as Context.Key<never, unknown>)
      if (service !== undefined) next = Context.addUnsafe(next, key, service)
    }
    return next
  }
  return (effect: AnyEffect): AnyEffect => Effect.updateContext(effect, forRequest as any)
}

/**
 * Registers every endpoint of `api`, compiled, with the router, and the
 * OpenAPI document at `openapiPath`. Requires the groups' handlers
 * (`HttpApiBuilder.group`) and the middleware the API declares.
 *
 * @category layers
 */
export const layer = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  options: { readonly openapiPath: `/${string}` }
): Layer.Layer<never, never, HttpRouter.HttpRouter | HttpApiGroup.ToService<Id, Groups>> =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const context = yield* Effect.context<never>()
    const withRoutesContext = routesContext(context)
    const routes: Array<HttpRouter.Route<any, any>> = []
    for (const group of Object.values(api.groups) as ReadonlyArray<HttpApiGroup.Top>) {
      const service = context.mapUnsafe.get(group.key) as GroupService | undefined
      if (service === undefined) return yield* Effect.die(new Error(`Pipeline: no handlers for group ${group.identifier}`))
      // The group's routes are HttpApi's, one per handler, in order: their paths are the router's.
      const runtimes = Array.from(service.handlers.values())
      runtimes.forEach((runtime, i) => {
        const path = service.routes[i]!.path
        const compiled = withRoutesContext(withMiddleware(group, runtime.endpoint, context, handlerEffect(group, runtime)))
        routes.push(HttpRouter.route(runtime.endpoint.method, path, compiled, { uninterruptible: runtime.uninterruptible }))
      })
    }
    yield* router.addAll(routes)
    const document = HttpServerResponse.jsonUnsafe(OpenApi.fromApi(api))
    yield* router.add("GET", options.openapiPath, Effect.succeed(document))
  })) as any
