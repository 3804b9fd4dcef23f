/**
 * The Zulip REST API (/api/v1) over the teamchat core: the module contract
 * servers and tests build on.
 *
 * - `layerRoutes(options)` registers every route with an `HttpRouter`: the
 *   HttpApi endpoints, the OpenAPI document at GET /api/v1/openapi.json, a
 *   small HTML page at GET / (what this server is, how to connect), the
 *   emoji data at GET /static/generated/emoji/emoji_api.json, the join
 *   page of invitation links at /join/{key}/ (`internal/JoinPage.ts`).
 *   What no route serves is answered as Zulip's rest_dispatch answers it: a
 *   path served with other methods with a 405 (`Allow` and `allowed_methods`
 *   naming them) or, for OPTIONS, a 204 with `Allow`; any other path with
 *   Zulip's 404 JSON. HEAD is served wherever GET is (effect's router takes
 *   GET's route; the servers leave the body out).
 *   It requires the core services (`Teamchat.Services`), the store rate
 *   limits are counted in (`RateLimitStore`: `Persistence.layerRateLimits*`)
 *   and the `HttpRouter` (which `HttpRouter.serve` and
 *   `HttpRouter.toWebHandler` provide).
 *   Serve it with `HttpRouter.serve(layerRoutes(options), { disableLogger: true })`
 *   when `options.log` is on, so requests are not logged twice.
 * - `makeWebHandler(core, options)` builds a `Request => Promise<Response>`
 *   over a core layer, for mounting in any server and for tests; it counts
 *   rate limits in its own memory.
 *
 * Version reported: `zulip_feature_level` 416, `zulip_version`
 * "11.0-teamchat", `zulip_merge_base` "11.0" (Zulip 11.0's API, implemented
 * by teamchat; not a fork of the Zulip server).
 *
 * Organization of an unauthenticated request: the one whose `url` host is the
 * request's `Host` header; otherwise the only organization with users
 * ("zulipinternal" aside); otherwise 404 `NONEXISTENT_SUBDOMAIN`.
 *
 * Long polls: GET /events waits up to its heartbeat (45–55 s) inside the
 * request; nothing in these routes limits a request's duration, so servers
 * mounting them must not either (Node's `http.createServer()` defaults are
 * fine: its `requestTimeout` covers receiving the request only). A client
 * that closes its connection interrupts the request and ends the wait. The
 * wait runs in the routes' own global middleware (`middleware/RequestLog.ts`,
 * which computes the poll's deferred response): a global router middleware
 * of yours that reads responses must be registered before `layerRoutes`
 * (the first registered is the outermost).
 *
 * @since 0.1.0
 */
import { Persistence } from "@teamchat/core"
import type { RateLimitStore, Teamchat } from "@teamchat/core"
import * as Layer from "effect/Layer"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import { Api, ApiProduction } from "./api/Api.ts"
import * as Version from "./Version.ts"
import * as AlertWordsHandlers from "./handlers/AlertWords.ts"
import * as AuthHandlers from "./handlers/Auth.ts"
import * as EventsHandlers from "./handlers/Events.ts"
import * as MessagesHandlers from "./handlers/Messages.ts"
import * as ProfileFieldsHandlers from "./handlers/ProfileFields.ts"
import * as ScheduledMessagesHandlers from "./handlers/ScheduledMessages.ts"
import * as UserGroupsHandlers from "./handlers/UserGroups.ts"
import * as ServerHandlers from "./handlers/Server.ts"
import * as SettingsHandlers from "./handlers/Settings.ts"
import * as StreamsHandlers from "./handlers/Streams.ts"
import * as TypingHandlers from "./handlers/Typing.ts"
import * as SubscriptionsHandlers from "./handlers/Subscriptions.ts"
import * as UsersHandlers from "./handlers/Users.ts"
import * as UserStatusHandlers from "./handlers/UserStatus.ts"
import * as MutingHandlers from "./handlers/Muting.ts"
import * as PresenceHandlers from "./handlers/Presence.ts"
import * as DraftsHandlers from "./handlers/Drafts.ts"
import * as SavedSnippetsHandlers from "./handlers/SavedSnippets.ts"
import * as InvitationsHandlers from "./handlers/Invitations.ts"
import * as PushDevicesHandlers from "./handlers/PushDevices.ts"
import * as UploadsHandlers from "./handlers/Uploads.ts"
import * as Pipeline from "./Pipeline.ts"
import * as Config from "./internal/Config.ts"
import * as EmojiData from "./internal/EmojiData.ts"
import type { HttpOptions } from "./internal/Config.ts"
import * as JoinPage from "./internal/JoinPage.ts"
import type { RateLimiter } from "./internal/RateLimiter.ts"
import * as RouteTable from "./internal/RouteTable.ts"
import * as RootPage from "./internal/RootPage.ts"
import * as AuthenticationMiddleware from "./middleware/Authentication.ts"
import * as RateLimitMiddleware from "./middleware/RateLimit.ts"
import * as RequestLog from "./middleware/RequestLog.ts"
import * as RequestParamsMiddleware from "./middleware/RequestParams.ts"
import * as ZulipErrorsMiddleware from "./middleware/ZulipErrors.ts"

export type { HttpOptions } from "./internal/Config.ts"

/** @category constants */
export const defaultHttpOptions: HttpOptions = {
  demo: false,
  rateLimit: { requests: 200, windowSeconds: 60 },
  anonymousRateLimit: { requests: 100, windowSeconds: 60 },
  authenticationRateLimit: { requests: 5, windowSeconds: 1800 },
  maxBodyBytes: 4 * 1024 * 1024,
  version: {
    zulip_version: "11.0-teamchat",
    zulip_feature_level: 416,
    zulip_merge_base: "11.0"
  },
  log: false
}

/** teamchat's own version, shown by the CLI and the root page. @category constants */
export const version = Version.version

/** The path of the OpenAPI document. @category constants */
export const openapiPath = "/api/v1/openapi.json"

const handlers = Layer.mergeAll(
  ServerHandlers.layer,
  AuthHandlers.layer,
  AuthHandlers.layerDev,
  UsersHandlers.layer,
  UserStatusHandlers.layer,
  MutingHandlers.layer,
  PresenceHandlers.layer,
  DraftsHandlers.layer,
  SavedSnippetsHandlers.layer,
  StreamsHandlers.layer,
  EventsHandlers.layer,
  SubscriptionsHandlers.layer,
  SettingsHandlers.layer,
  AlertWordsHandlers.layer,
  ScheduledMessagesHandlers.layer,
  UserGroupsHandlers.layer,
  ProfileFieldsHandlers.layer,
  MessagesHandlers.layer,
  InvitationsHandlers.layer,
  PushDevicesHandlers.layer,
  TypingHandlers.layer,
  UploadsHandlers.layer,
  UploadsHandlers.layerFiles,
  UploadsHandlers.layerTemporaryFiles
)

const limiters = new WeakMap<HttpOptions, Layer.Layer<RateLimiter, never, RateLimitStore.RateLimitStore>>()

/**
 * The rate limiter of the routes served with `options`. One layer per
 * options object: a build that uses it besides `layerRoutes(options)` gets
 * the routes' very limiter (layers are memoized by reference), counting in
 * the same store.
 *
 * @category layers
 */
export const layerRateLimiter = (
  options: HttpOptions
): Layer.Layer<RateLimiter, never, RateLimitStore.RateLimitStore> => {
  const known = limiters.get(options)
  if (known !== undefined) return known
  const limiter = RateLimitMiddleware.limiterLayer(
    options.rateLimit === false
      ? { user: false, anonymous: false }
      : {
        user: options.rateLimit,
        anonymous: options.anonymousRateLimit ?? defaultHttpOptions.anonymousRateLimit ?? false,
        authentication: options.authenticationRateLimit ?? defaultHttpOptions.authenticationRateLimit ?? false
      }
  )
  limiters.set(options, limiter)
  return limiter
}

/**
 * Every route of the API and the OpenAPI document; Zulip's 404 and 405 for
 * what none serves.
 *
 * @category layers
 */
export const layerRoutes = (
  options: HttpOptions
): Layer.Layer<never, never, Teamchat.Services | RateLimitStore.RateLimitStore | HttpRouter.HttpRouter> => {
  const limiter = layerRateLimiter(options)
  const middleware = Layer.mergeAll(
    ZulipErrorsMiddleware.layer,
    RequestParamsMiddleware.layer(options),
    AuthenticationMiddleware.layer,
    AuthenticationMiddleware.layerOptional,
    RateLimitMiddleware.layer
  ).pipe(Layer.provideMerge(limiter))
  const api = options.demo
    ? Pipeline.layer(Api, { openapiPath })
    : Pipeline.layer(ApiProduction, { openapiPath })
  const routes = api.pipe(
    Layer.provide(handlers),
    Layer.provide(middleware),
    Layer.provide(Config.layer(options)),
    Layer.provide(HttpServer.layerServices)
  )
  const rootPage = RootPage.layer({
    version,
    zulipVersion: options.version.zulip_version,
    featureLevel: options.version.zulip_feature_level
  })
  const emojiData = HttpRouter.add("GET", EmojiData.path, EmojiData.handler)
  const joinPage = JoinPage.layer(
    options.rateLimit === false ? false : options.joinRateLimit ?? JoinPage.defaultRateLimit
  ).pipe(Layer.provide(limiter))
  // Every route registers through the recording router; what none serves is
  // answered from its table by the outermost middleware.
  return Layer.mergeAll(routes, rootPage, emojiData, joinPage, RequestLog.layer({ log: options.log === true })).pipe(
    Layer.provide(Layer.provideMerge(RouteTable.layerRecording, RouteTable.layer))
  )
}

/**
 * A web handler over `core`: the routes of `layerRoutes`, built at once
 * (requests wait for the build). `dispose` releases the core and the routes.
 *
 * Whatever else `core` provides (a `Clock`, loggers, `MinimumLogLevel`, the
 * core's `EventQueuesConfig` with other heartbeat or lifespan timings)
 * applies to request handling too. The default request logger of effect is
 * off; use `options.log`.
 *
 * @category constructors
 */
export const makeWebHandler = (
  core: Layer.Layer<Teamchat.Services, unknown>,
  options?: Partial<HttpOptions>
): { readonly handler: (request: Request) => Promise<Response>; readonly dispose: () => Promise<void> } => {
  const served: HttpOptions = { ...defaultHttpOptions, ...options }
  const app = layerRoutes(served).pipe(
    Layer.provide(Persistence.layerRateLimitsMemory),
    Layer.provideMerge(core)
  )
  return HttpRouter.toWebHandler(app, { disableLogger: true })
}
