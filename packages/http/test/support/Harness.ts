/**
 * Wire-level test harness: the demo organization on a chosen core backend,
 * served through `makeWebHandler`, with a controllable clock, and a client
 * that sends real requests (query strings, urlencoded and multipart bodies,
 * HTTP Basic credentials) and returns status, headers and parsed JSON.
 */
import * as DemoData from "@teamchat/core/demo/DemoData"
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import { EventQueuesConfig } from "@teamchat/core/services/events/EventQueues"
import type * as Persistence from "@teamchat/core/Persistence"
import type { FileStorage } from "@teamchat/core/ports/FileStorage"
import * as Teamchat from "@teamchat/core/Teamchat"
import { checkClient } from "@teamchat/core/domain/events/EventPayload"
import * as CheckedEvents from "@teamchat/core/testing/CheckedEvents"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { makeWebHandler } from "../../src/Http.ts"
import type { HttpOptions } from "../../src/Http.ts"

/** The demo organization's URL; requests go to this host. */
export const realmUrl = "http://localhost:9991"

/** 2026-01-01T00:00:00Z: the clock's start, so `date_joined` is fixed. */
export const epoch = Date.UTC(2026, 0, 1)
export const epochIso = "2026-01-01T00:00:00.000000+00:00"

/**
 * A wall clock that moves only when told. Sleeping is real, unless the clock
 * is made with `timers: "manual"`: then monotonic time moves with `advance`
 * too, and a sleep ends only when `advance` reaches its deadline (heartbeats,
 * lifespans and the garbage collector wait for the test, not for the machine).
 */
export interface ManualClock {
  readonly clock: Clock.Clock
  readonly advance: (millis: number) => void
  readonly now: () => number
}

export interface ManualClockOptions {
  readonly timers?: "real" | "manual"
}

export const makeManualClock = (start: number = epoch, options: ManualClockOptions = {}): ManualClock => {
  let now = start
  const base = Clock.Clock.defaultValue()
  if (options.timers !== "manual") {
    const clock: Clock.Clock = {
      currentTimeMillisUnsafe: () => now,
      currentTimeMillis: Effect.sync(() => now),
      currentTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
      currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
      monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
      monotonicTimeNanos: base.monotonicTimeNanos,
      sleep: (duration) => base.sleep(duration)
    }
    return { clock, advance: (millis) => void (now += millis), now: () => now }
  }
  const sleepers = new Set<{ readonly at: number; readonly wake: () => void }>()
  const nanos = () => BigInt(now) * 1_000_000n
  // Monotonic time counts from the start, so that its nanoseconds stay exact as a Number: deadlines computed from it
  // fall on the very millisecond that `advance` reaches.
  const elapsed = () => now - start
  const monotonic = () => BigInt(elapsed()) * 1_000_000n
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: () => now,
    currentTimeMillis: Effect.sync(() => now),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: monotonic,
    monotonicTimeNanos: Effect.sync(monotonic),
    sleep: (duration) =>
      Effect.callback<void>((resume) => {
        const sleeper = { at: elapsed() + Duration.toMillis(duration), wake: () => resume(Effect.void) }
        if (sleeper.at <= elapsed()) return sleeper.wake()
        sleepers.add(sleeper)
        return Effect.sync(() => void sleepers.delete(sleeper))
      })
  }
  const advance = (millis: number) => {
    now += millis
    for (const sleeper of sleepers) {
      if (sleeper.at <= elapsed()) {
        sleepers.delete(sleeper)
        sleeper.wake()
      }
    }
  }
  return { clock, advance, now: () => now }
}

export type Backend = "memory" | "PGlite" | "PostgreSQL"

/** Everything a test may reach in the core: the services and the repositories. */
export type Core = Teamchat.Services | Persistence.Persistence

/**
 * The core services on a backend, without data; every event they publish is
 * checked against its schema. Uploaded files go to `storage` (default: memory).
 */
export const coreLayer = (backend: Backend, storage?: Layer.Layer<FileStorage>): Layer.Layer<Core, unknown> => {
  switch (backend) {
    case "memory":
      return CheckedEvents.layerMemory(undefined, storage)
    case "PGlite":
      return CheckedEvents.layerSql(undefined, storage).pipe(Layer.provide(TestDatabase.pgliteMigratedLayer()))
    case "PostgreSQL":
      return CheckedEvents.layerSql(undefined, storage).pipe(Layer.provide(TestDatabase.postgresLayer()))
  }
}

/** The core with the demo organization seeded at `realmUrl`, on `clock`. */
export const demoLayer = (
  backend: Backend,
  clock: ManualClock,
  storage?: Layer.Layer<FileStorage>
): Layer.Layer<Core, unknown> =>
  Layer.effectDiscard(DemoOrganization.seed(realmUrl)).pipe(
    Layer.provideMerge(coreLayer(backend, storage)),
    Layer.provideMerge(Layer.succeed(Clock.Clock, clock.clock))
  )

/**
 * `core` with these event-queue timings, for the core's own build (the
 * garbage collector) and for request handling (heartbeats, lifespans).
 */
export const withEventQueuesConfig = (
  core: Layer.Layer<Core, unknown>,
  config: Partial<EventQueuesConfig>
): Layer.Layer<Core, unknown> =>
  core.pipe(Layer.provideMerge(Layer.succeed(EventQueuesConfig, { ...EventQueuesConfig.defaultValue(), ...config })))

export interface Credentials {
  readonly email: string
  readonly apiKey: string
}

export const basic = (email: string, apiKey: string): string =>
  `Basic ${Buffer.from(`${email}:${apiKey}`).toString("base64")}`

export interface RequestOptions {
  /** Query-string parameters. */
  readonly query?: Record<string, string> | undefined
  /** An application/x-www-form-urlencoded body. */
  readonly form?: Record<string, string> | undefined
  /** A multipart/form-data body (what zulip-js sends). */
  readonly multipart?: Record<string, string> | undefined
  /** HTTP Basic credentials. */
  readonly as?: Credentials | undefined
  readonly headers?: Record<string, string> | undefined
  /** The request URL's origin (its host is the `Host`); default `realmUrl`. */
  readonly origin?: string | undefined
  readonly body?: NonNullable<RequestInit["body"]> | undefined
}

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The parsed body; every response must be JSON. */
  readonly json: any
}

/** The demo accounts the suites act as, one per role. */
export const accounts = {
  owner: "desdemona@zulip.com",
  admin: "iago@zulip.com",
  moderator: "shiva@zulip.com",
  member: "hamlet@zulip.com",
  guest: "polonius@zulip.com",
  bot: "default-bot@zulip.com"
} as const

export type Role = keyof typeof accounts

/** The server under test. */
export class Server extends Context.Service<Server, {
  readonly fetch: (method: string, path: string, options?: RequestOptions) => Effect.Effect<Reply>
  /** Sends a request built by the test. */
  readonly fetchRaw: (request: Request) => Effect.Effect<Reply>
  /** The web handler itself. */
  readonly handler: (request: Request) => Promise<Response>
  /** An account's credentials (fetched once through POST /dev_fetch_api_key). */
  readonly login: (email: string) => Effect.Effect<Credentials & { readonly userId: number }>
  /** Runs an effect against the same core instance the server uses. */
  readonly core: <A, E>(effect: Effect.Effect<A, E, Core>) => Effect.Effect<A, E>
  readonly clock: ManualClock
}>()("@teamchat/http/test/Server") {}

export const makeRequest = (method: string, path: string, options: RequestOptions = {}): Request => {
  const url = new URL(path, options.origin ?? realmUrl)
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.append(key, value)
  const headers = new Headers(options.headers)
  if (options.as !== undefined) headers.set("authorization", basic(options.as.email, options.as.apiKey))
  let body: NonNullable<RequestInit["body"]> | undefined = options.body
  if (options.form !== undefined) body = new URLSearchParams(options.form)
  if (options.multipart !== undefined) {
    const data = new FormData()
    for (const [key, value] of Object.entries(options.multipart)) data.append(key, value)
    body = data
  }
  return new Request(url, { method, headers, ...(body === undefined ? {} : { body }) })
}

export const toReply = (response: Response): Effect.Effect<Reply> =>
  Effect.promise(async () => {
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new Error(`not JSON (status ${response.status}): ${text.slice(0, 200)}`)
    }
    return { status: response.status, headers: response.headers, text, json }
  })

/**
 * Every event a GET /events answers, checked against its schema as the wire
 * carries it (the core checks each event as it is published; this checks
 * what each queue's client receives): a wrong or extra field is a defect.
 */
const checkEvents = (request: Request, reply: Reply): Effect.Effect<Reply> =>
  request.method !== "GET" || new URL(request.url).pathname !== "/api/v1/events" || reply.status !== 200
    ? Effect.succeed(reply)
    : Effect.sync(() => {
      for (const event of reply.json.events as ReadonlyArray<unknown>) checkClient(event)
      return reply
    })

/**
 * The `Server` of a web handler whose core is `context`: requests through
 * `handler`, logins through POST /dev_fetch_api_key (each account once).
 * The events of every GET /events are checked against their schema.
 */
export const serverOf = (
  handler: (request: Request) => Promise<Response>,
  context: Context.Context<Core>,
  clock: ManualClock
): Server["Service"] => {
  const fetchRaw = (request: Request) =>
    Effect.promise(() => handler(request)).pipe(Effect.flatMap(toReply), Effect.flatMap((reply) => checkEvents(request, reply)))
  const fetch = (method: string, path: string, requestOptions?: RequestOptions) =>
    fetchRaw(makeRequest(method, path, requestOptions))
  const keys = new Map<string, Credentials & { readonly userId: number }>()
  const login = (email: string) =>
    Effect.suspend(() => {
      const known = keys.get(email)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.flatMap(fetch("POST", "/api/v1/dev_fetch_api_key", { form: { username: email } }), (reply) => {
        if (reply.status !== 200) return Effect.die(new Error(`login ${email}: ${reply.text}`))
        const credentials = { email, apiKey: reply.json.api_key as string, userId: reply.json.user_id as number }
        keys.set(email, credentials)
        return Effect.succeed(credentials)
      })
    })
  return Server.of({
    fetch,
    fetchRaw,
    handler,
    login,
    core: (effect) => Effect.provideContext(effect, context),
    clock
  })
}

/**
 * The server over `core` (built once for the layer, shared by its tests).
 * Rate limiting is off unless `options` turns it on; the clock's timers are
 * real unless `clockOptions` says otherwise.
 */
export const layerServer = (
  core: (clock: ManualClock) => Layer.Layer<Core, unknown>,
  options: Partial<HttpOptions> = {},
  clockOptions: ManualClockOptions = {}
): Layer.Layer<Server, unknown> =>
  Layer.effect(
    Server,
    Effect.gen(function*() {
      const clock = makeManualClock(epoch, clockOptions)
      const context = yield* Layer.build(core(clock))
      const { dispose, handler } = makeWebHandler(
        Layer.succeedContext(context),
        { demo: true, rateLimit: false, ...options }
      )
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      return serverOf(handler, context, clock)
    })
  )

/** The demo's password, for POST /fetch_api_key. */
export const demoPassword = DemoData.password
