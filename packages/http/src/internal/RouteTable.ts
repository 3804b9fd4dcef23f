/**
 * The methods each path of the routes is served with, recorded as the
 * routes register themselves, for the requests effect's router finds no
 * route for (`middleware/RequestLog.ts` answers them): a path some route
 * serves with other methods is Zulip's 405 (or, for OPTIONS, its 204), with
 * those methods in `Allow`; any other path is its 404.
 *
 * A static path shadows the parametric paths it also matches, as Zulip's
 * urls.py lists `users/me` before `users/<user_id_or_email>` and Django takes
 * the first pattern that matches: PATCH /users/me is a 405 naming the methods
 * of /users/me, not an update of a user "me". `shadowingMethods` says when a
 * request is such a case, for the middleware to answer it before the router.
 *
 * The router keeps its table to itself, so `layerRecording` puts a router
 * in front of it that notes every route on the way in, into a table matched
 * as the router matches (same router config): what `Allow` names is what
 * the router would serve, path parameters included.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FindMyWay from "effect/http/FindMyWay"
import * as HttpRouter from "effect/http/HttpRouter"

/** The routes' paths and their methods. */
export class RouteTable extends Context.Service<RouteTable, {
  /** Notes a route as the router registers it. */
  readonly record: (method: string, path: HttpRouter.PathInput) => void
  /**
   * The methods a request URL's path is served with, in the order Zulip's
   * urls.py lists them, HEAD last where GET is (the router answers HEAD with
   * GET's route, as Zulip's rest_dispatch does); none for an unknown path.
   */
  readonly methodsOf: (url: string) => ReadonlyArray<string>
  /**
   * The methods of the static path `url` names when it is not served with
   * `method` (HEAD goes with GET): the request must not fall through to a
   * parametric route of that method. Undefined otherwise.
   */
  readonly shadowingMethods: (method: string, url: string) => ReadonlyArray<string> | undefined
}>()("@teamchat/http/internal/RouteTable") {}

/** Zulip's urls.py names a path's methods in this order; others come after, HEAD last. */
const methodOrder = ["GET", "POST", "PUT", "PATCH", "DELETE"]
const rank = (method: string): number => {
  const index = methodOrder.indexOf(method)
  return index === -1 ? methodOrder.length : index
}

/** An empty table, matched with the router's own config. */
export const layer: Layer.Layer<RouteTable> = Layer.effect(RouteTable)(
  Effect.gen(function*() {
    const config = yield* HttpRouter.RouterConfig
    const paths = FindMyWay.make<true>(config)
    // The paths without parameters or wildcards, apart.
    const statics = FindMyWay.make<true>(config)
    // In first-registered order, so methods of equal rank keep theirs.
    const methods = new Set<string>()
    const methodsIn = (table: FindMyWay.Router<true>, url: string): ReadonlyArray<string> => {
      const served = [...methods].filter((method) => method !== "HEAD" && table.find(method, url) !== undefined)
      served.sort((a, b) => rank(a) - rank(b))
      return served.includes("GET") || table.find("HEAD", url) !== undefined ? [...served, "HEAD"] : served
    }
    return RouteTable.of({
      record: (method, path) => {
        // A route for every method leaves no method unserved on its path.
        if (method === "*") return
        methods.add(method)
        paths.on(method, path, true)
        // As the router registers a wildcard route: with and without its "/*".
        if (path.endsWith("/*")) paths.on(method, path.slice(0, -2) as HttpRouter.PathInput, true)
        if (!path.includes(":") && !path.includes("*")) statics.on(method, path, true)
      },
      methodsOf: (url) => {
        const own = methodsIn(statics, url)
        return own.length > 0 ? own : methodsIn(paths, url)
      },
      shadowingMethods: (method, url) => {
        // The common case, one lookup: a static route serves the request.
        if (statics.find(method === "HEAD" ? "GET" : method, url) !== undefined) return undefined
        const own = methodsIn(statics, url)
        return own.length > 0 && !own.includes(method) ? own : undefined
      }
    })
  })
)

const recording = (
  router: HttpRouter.HttpRouter,
  table: RouteTable["Service"],
  prefix: string | undefined
): HttpRouter.HttpRouter => {
  const full = (path: HttpRouter.PathInput) =>
    (prefix === undefined ? path : HttpRouter.prefixPath(path, prefix)) as HttpRouter.PathInput
  return HttpRouter.HttpRouter.of({
    ...router,
    prefixed: (inner) =>
      recording(router.prefixed(inner), table, prefix === undefined ? inner : HttpRouter.prefixPath(inner, prefix)),
    add: (method, path, handler, options) => {
      table.record(method, full(path))
      return router.add(method, path, handler, options)
    },
    addAll: (routes) => {
      for (const route of routes) table.record(route.method, full(route.path))
      return router.addAll(routes)
    }
  })
}

/** The router, noting in the table every route registered through it. */
export const layerRecording: Layer.Layer<HttpRouter.HttpRouter, never, HttpRouter.HttpRouter | RouteTable> = Layer.effect(
  HttpRouter.HttpRouter
)(
  Effect.gen(function*() {
    return recording(yield* HttpRouter.HttpRouter, yield* RouteTable, undefined)
  })
)
