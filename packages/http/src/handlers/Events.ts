/**
 * POST /register, GET /events and DELETE /events.
 *
 * The register response reports this server's version (`HttpOptions.version`),
 * the start time of the routes as `server_generation`, and the caller's
 * organization URL as the base of absolute URLs (`server_emoji_data_url`).
 *
 * A GET /events that blocks answers with a deferred response
 * (`internal/DeferredResponse.ts`): HttpApi, the middleware and this
 * handler return, and the router's outermost middleware runs the core's
 * wait, so a waiting poll keeps none of their frames or contexts. When the
 * client goes away the request fiber is interrupted and the wait ends with
 * it.
 *
 * @since 0.1.0
 */
import { EventQueues, Register } from "@teamchat/core"
import type { Principal } from "@teamchat/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import { Api } from "../api/Api.ts"
import { MobileIdleQueueTimeoutSecs } from "../api/Events.ts"
import type { QueueParams } from "../api/Events.ts"
import { HttpConfig } from "../internal/Config.ts"
import * as DeferredResponse from "../internal/DeferredResponse.ts"
import * as Envelope from "../internal/Envelope.ts"
import * as Failures from "../internal/Failures.ts"
import { IgnoredParameters } from "../internal/IgnoredParameters.ts"
import { Authentication, CurrentPrincipal, RequestParams, ZulipErrors } from "../api/Middleware.ts"

/** What `Register.register` always answers, beside the requested state. */
type RegisterBody = Record<string, unknown> & {
  readonly queue_id: string
  readonly last_event_id: number
  readonly zulip_version: string
  readonly zulip_feature_level: number
  readonly zulip_merge_base: string
}

type QueueQuery = { readonly [K in keyof typeof QueueParams]?: (typeof QueueParams)[K]["Type"] }

/** `idle_queue_timeout` (Zulip 12's name, `mobile` allowed) wins over `queue_lifespan_secs`. */
const lifespanOf = (query: QueueQuery, alias?: number): number | undefined =>
  query.idle_queue_timeout === "mobile"
    ? MobileIdleQueueTimeoutSecs
    : query.idle_queue_timeout ?? query.queue_lifespan_secs ?? alias

const queueParams = (query: QueueQuery, alias?: number): EventQueues.RegisterQueueParams => ({
  event_types: query.event_types,
  narrow: query.narrow,
  all_public_streams: query.all_public_streams,
  client_capabilities: query.client_capabilities,
  apply_markdown: query.apply_markdown,
  client_gravatar: query.client_gravatar,
  include_subscribers: query.include_subscribers,
  slim_presence: query.slim_presence,
  queue_lifespan_secs: lifespanOf(query, alias)
})

type Answer = (result: EventQueues.GetEventsResult) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>

/**
 * How an endpoint's deferred responses are answered: its encoder (and the
 * answer of a request that ignored no parameter, the common case) and
 * `ZulipErrors`' failure rule.
 */
interface Answering {
  readonly encode: ReturnType<typeof Envelope.encoder>
  readonly plain: Answer
  readonly recover: ReturnType<typeof Failures.recover>
}

/** Built once per endpoint, shared by its blocked polls. */
const answering = new WeakMap<HttpApiEndpoint.Top, Answering>()

const answeringOf = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top): Answering => {
  let known = answering.get(endpoint)
  if (known === undefined) {
    const encode = Envelope.encoder(endpoint)
    known = {
      encode,
      plain: (result) => encode(Envelope.envelope(result, [])),
      recover: Failures.recover(group.identifier, endpoint.identifier)
    }
    answering.set(endpoint, known)
  }
  return known
}

/**
 * The deferred response of a blocked poll: the envelope of what its wait
 * returns (with the request's ignored parameters) encoded as HttpApi
 * would, or its failure's response as `ZulipErrors` gives it. While the
 * poll waits it keeps the wait and, if it ignored parameters, their names.
 */
const later = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top, wait: EventQueues.BlockedPoll) =>
  IgnoredParameters.useSync((ignored) => {
    const { encode, plain, recover } = answeringOf(endpoint, group)
    const answer: Answer = ignored.length === 0 ? plain : (result) => encode(Envelope.envelope(result, ignored))
    return DeferredResponse.make(Effect.catchCause(Effect.flatMap(wait, answer), recover))
  })

const group = HttpApiBuilder.group(
  Api,
  "events",
  Effect.fn(function*(handlers) {
    const register = yield* Register.Register
    const queues = yield* EventQueues.EventQueues
    const config = yield* HttpConfig
    const generation = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    // The answer runs to hundreds of kilobytes, plain JSON data: written as
    // it is when it certainly encodes to itself, not walked by the encoder.
    const respondRegister = Envelope.respond(Api.groups.events.endpoints.register)
    const serverOf = (principal: Principal.Principal): Register.ServerInfo => ({
      ...config.version,
      base_url: principal.realm.url,
      server_generation: generation
    })
    return handlers.handleAll({
      register: ({ query: { fetch_event_types, presence_history_limit_days, ...query } }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          register.register(
            principal,
            { ...queueParams(query), fetch_event_types, presence_history_limit_days },
            serverOf(principal)
          )).pipe(Effect.flatMap((state) => respondRegister(state as RegisterBody))),
      // A poll that blocks answers with a deferred response: its wait runs
      // once HttpApi's frames and contexts are unwound (DeferredResponse).
      get: ({ endpoint, group, query }) => {
        const params: EventQueues.GetEventsParams = query.queue_id === undefined
          ? {
            dont_block: query.dont_block,
            // GET /events defaults client_gravatar to false, unlike POST /register.
            register: { ...queueParams(query, query.lifespan_secs), client_gravatar: query.client_gravatar ?? false }
          }
          : { queue_id: query.queue_id, last_event_id: query.last_event_id, dont_block: query.dont_block }
        return Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.flatMap(queues.poll(principal, params), (polled): Effect.Effect<
            Envelope.Envelope<EventQueues.GetEventsResult> | HttpServerResponse.HttpServerResponse,
            never,
            IgnoredParameters
          > => Effect.isEffect(polled) ? later(endpoint, group, polled) : Envelope.succeed(polled)))
      },
      delete: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => queues.deleteQueue(principal, query.queue_id)).pipe(
          Effect.as({}),
          Envelope.wrap
        )
    })
  })
)

/**
 * The group, built in a context of only what its routes use. HttpApi merges
 * the context a group was built in into every request's context (a copy
 * of both): for GET /events, where thousands of polls wait at once, that
 * copy is kept small. The type checks that nothing the routes need is left
 * out; `Clock` and `EventQueuesConfig` are kept when provided.
 *
 * @category handlers
 */
export const layer = Layer.effectContext(
  Effect.updateContext(
    Layer.build(group),
    (context: Context.Context<Layer.Services<typeof group> | Scope.Scope>) =>
      Context.pick(
        Scope.Scope,
        Register.Register,
        EventQueues.EventQueues,
        HttpConfig,
        RequestParams,
        ZulipErrors,
        Authentication,
        Clock.Clock,
        EventQueues.EventQueuesConfig
      )(context)
  )
)
