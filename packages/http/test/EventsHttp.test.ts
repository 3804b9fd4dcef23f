/**
 * Long polls in the HTTP stack, on the memory backend:
 *
 * - over real sockets (node:http under NodeHttpServer, built the way
 *   Server.ts builds it): a poll waits, gets its heartbeat (when the test
 *   moves the clock), and a client that closes its connection interrupts
 *   the waiting fiber and frees the waiter;
 * - rate limiting: a GET /events counts once however long it waits, and a
 *   polling client stays far from Zulip's 200 requests per minute;
 * - the OpenAPI document describes the events with their schemas.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, layer } from "@effect/vitest"
import { EventPayload } from "@teamchat/core"
import { EventQueues } from "@teamchat/core/services/events/EventQueues"
import * as Persistence from "@teamchat/core/Persistence"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as http from "node:http"
import { defaultHttpOptions, layerRoutes } from "../src/Http.ts"
import type { Core, Credentials, ManualClock } from "./support/Harness.ts"
import {
  accounts,
  basic,
  demoLayer,
  layerServer,
  makeManualClock,
  realmUrl,
  Server,
  withEventQueuesConfig
} from "./support/Harness.ts"

const sleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const heartbeatMs = 1_500

/** The routes on a real loopback port over the memory core, as Server.ts serves them. */
class Live extends Context.Service<Live, {
  readonly url: string
  /** The core's clock: its timers (heartbeats) move only when a test advances it. */
  readonly clock: ManualClock
  readonly core: <A, E>(effect: Effect.Effect<A, E, Core>) => Effect.Effect<A, E>
}>()("@teamchat/http/test/EventsHttp/Live") {}

const layerLive = Layer.effect(
  Live,
  Effect.gen(function*() {
    const clock = makeManualClock(Date.now(), { timers: "manual" })
    const core = yield* Layer.build(
      withEventQueuesConfig(demoLayer("memory", clock), { heartbeatMinMs: heartbeatMs, heartbeatMaxMs: heartbeatMs })
    )
    const served = yield* Layer.build(
      HttpRouter.serve(
        layerRoutes({ ...defaultHttpOptions, demo: true, rateLimit: false }).pipe(
          Layer.provide(Persistence.layerRateLimitsMemory)
        ),
        {
          disableLogger: true,
          disableListenLog: true
        }
      ).pipe(
        Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port: 0, host: "127.0.0.1" })),
        Layer.provide(Layer.succeedContext(core))
      )
    )
    const url = HttpServer.formatAddress(Context.get(served, HttpServer.HttpServer).address)
    return Live.of({ url, clock, core: (effect) => Effect.provideContext(effect, core) })
  })
)

interface Answer {
  readonly status: number
  readonly json: any
}

/** A request over a socket of its own; `abort` destroys the socket. */
const send = (base: string, method: string, path: string, options: {
  readonly as?: Credentials
  readonly form?: Record<string, string>
  readonly query?: Record<string, string>
}) => {
  const url = new URL(path, base)
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value)
  const body = options.form === undefined ? undefined : new URLSearchParams(options.form).toString()
  let request: http.ClientRequest | undefined
  const answer = new Promise<Answer>((resolve, reject) => {
    request = http.request(url, {
      method,
      agent: false,
      headers: {
        host: new URL(realmUrl).host,
        ...(options.as === undefined ? {} : { authorization: basic(options.as.email, options.as.apiKey) }),
        ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" })
      }
    }, (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (text += chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }))
      response.on("error", reject)
    })
    request.on("error", reject)
    request.end(body)
  })
  return { answer, abort: () => request!.destroy() }
}

const call = (base: string, method: string, path: string, options: Parameters<typeof send>[3] = {}) =>
  Effect.promise(() => send(base, method, path, options).answer)

describe("long polls over real sockets", () => {
  layer(layerLive, { timeout: "60 seconds" })((it) => {
    const login = (base: string, email: string) =>
      Effect.map(call(base, "POST", "/api/v1/dev_fetch_api_key", { form: { username: email } }), (a) => ({
        email,
        apiKey: a.json.api_key as string,
        userId: a.json.user_id as number
      }))

    it.effect("a waiting poll gets its event, or its heartbeat; a closed connection frees the waiter", () =>
      Effect.gen(function*() {
        const live = yield* Live
        const waiting = live.core(Effect.flatMap(EventQueues, (q) => q.waitingPolls))
        const waitingFor = (n: number) =>
          Effect.gen(function*() {
            // A ceiling against hangs only.
            for (let i = 0; i < 6_000; i++) {
              if ((yield* waiting) === n) return
              yield* sleep(5)
            }
            assert.fail(`waiting polls never became ${n} (now ${yield* waiting})`)
          })
        const hamlet = yield* login(live.url, accounts.member)
        const registered = yield* call(live.url, "POST", "/api/v1/register", {
          as: hamlet,
          form: { event_types: "[\"alert_words\"]" }
        })
        assert.strictEqual(registered.status, 200)
        const queueId = registered.json.queue_id as string
        const query = { queue_id: queueId, last_event_id: "-1" }

        // An event wakes the poll.
        const first = send(live.url, "GET", "/api/v1/events", { as: hamlet, query })
        yield* waitingFor(1)
        const added = yield* call(live.url, "POST", "/api/v1/users/me/alert_words", {
          as: hamlet,
          form: { alert_words: "[\"socket\"]" }
        })
        assert.deepStrictEqual(added.json, { result: "success", msg: "", alert_words: ["socket"] })
        const woken = yield* Effect.promise(() => first.answer)
        assert.deepStrictEqual(woken.json, {
          result: "success",
          msg: "",
          events: [{ type: "alert_words", alert_words: ["socket"], id: woken.json.events[0].id }]
        })
        const last = String(woken.json.events[0].id)

        // Closing the connection interrupts the request fiber: the waiter goes away at once.
        const abandoned = send(live.url, "GET", "/api/v1/events", { as: hamlet, query: { queue_id: queueId, last_event_id: last } })
        abandoned.answer.catch(() => undefined)
        yield* waitingFor(1)
        abandoned.abort()
        yield* waitingFor(0)

        // The connection stays open until the heartbeat: 1 ms before it, an
        // event is the poll's whole answer (a heartbeat due by then, its
        // timer run as the clock moved, would be in it)...
        const early = send(live.url, "GET", "/api/v1/events", { as: hamlet, query: { queue_id: queueId, last_event_id: last } })
        yield* waitingFor(1)
        live.clock.advance(heartbeatMs - 1)
        const more = yield* call(live.url, "POST", "/api/v1/users/me/alert_words", { as: hamlet, form: { alert_words: "[\"early\"]" } })
        assert.deepStrictEqual(more.json, { result: "success", msg: "", alert_words: ["early", "socket"] })
        const notYet = yield* Effect.promise(() => early.answer)
        assert.deepStrictEqual(notYet.json, {
          result: "success",
          msg: "",
          events: [{ type: "alert_words", alert_words: ["early", "socket"], id: notYet.json.events[0].id }]
        })
        // ...and the heartbeat comes when the clock reaches it.
        const beating = send(live.url, "GET", "/api/v1/events", {
          as: hamlet,
          query: { queue_id: queueId, last_event_id: String(notYet.json.events[0].id) }
        })
        yield* waitingFor(1)
        live.clock.advance(heartbeatMs)
        const beat = yield* Effect.promise(() => beating.answer)
        assert.strictEqual(beat.status, 200)
        assert.deepStrictEqual(beat.json, {
          result: "success",
          msg: "",
          events: [{ type: "heartbeat", id: beat.json.events[0].id }]
        })
        assert.strictEqual(yield* waiting, 0)
      }))
  })
})

describe("rate limits and polling", () => {
  layer(
    layerServer(
      (clock) => withEventQueuesConfig(demoLayer("memory", clock), { heartbeatMinMs: 200, heartbeatMaxMs: 200 }),
      { rateLimit: defaultHttpOptions.rateLimit }
    )
  )((it) => {
    it.effect("a poll counts once, however long it waits; a polling client never reaches 429", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        server.clock.advance(60_000)
        const registered = yield* server.fetch("POST", "/api/v1/register", {
          as: hamlet,
          form: { event_types: "[\"alert_words\"]" }
        })
        assert.strictEqual(registered.headers.get("x-ratelimit-remaining"), "199")
        const queueId = registered.json.queue_id as string
        let last = -1
        // A blocking poll that ends with its heartbeat is one request.
        const beat = yield* server.fetch("GET", "/api/v1/events", {
          as: hamlet,
          query: { queue_id: queueId, last_event_id: String(last) }
        })
        assert.strictEqual(beat.json.events[0].type, "heartbeat")
        assert.strictEqual(beat.headers.get("x-ratelimit-remaining"), "198")
        last = beat.json.events[0].id
        // zulip-js polls, then sleeps a second: five minutes of that stays far below the limit.
        let lowest = 198
        for (let i = 0; i < 300; i++) {
          server.clock.advance(1_000)
          const reply = yield* server.fetch("GET", "/api/v1/events", {
            as: hamlet,
            query: { queue_id: queueId, last_event_id: String(last), dont_block: "true" }
          })
          assert.strictEqual(reply.status, 200)
          lowest = Math.min(lowest, Number(reply.headers.get("x-ratelimit-remaining")))
        }
        assert.isAtLeast(lowest, 200 - 61)
        // A busy minute: 150 polls answered at once (events pending) still pass.
        server.clock.advance(60_000)
        for (let i = 0; i < 150; i++) {
          const reply = yield* server.fetch("GET", "/api/v1/events", {
            as: hamlet,
            query: { queue_id: queueId, last_event_id: String(last), dont_block: "true" }
          })
          assert.strictEqual(reply.status, 200)
        }
      }))
  })
})

describe("the OpenAPI document describes the events", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("GET /events' events are the Event union, one component per kind; register's event_types names the types", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const document = (yield* server.fetch("GET", "/api/v1/openapi.json")).json
        const schemas = document.components.schemas
        const response = document.paths["/api/v1/events"].get.responses["200"].content["application/json"].schema
        assert.deepStrictEqual(response.properties.events, { type: "array", items: { $ref: "#/components/schemas/Event" } })
        const kinds = (schemas.Event.anyOf as Array<{ $ref: string }>).map((member) => member.$ref.split("/").pop()!)
        assert.includeMembers(kinds, ["MessageEvent", "UpdateMessageEvent", "DeleteMessagesEvent", "ReactionAddEvent", "HeartbeatEvent"])
        const types = new Set<string>()
        for (const kind of kinds) {
          // Each kind: its `type`, its `id`, no other field than those it names.
          const schema = schemas[kind]
          assert.strictEqual(schema.additionalProperties, false, kind)
          assert.includeMembers(schema.required, ["type", "id"], kind)
          types.add(schema.properties.type.enum[0])
        }
        assert.deepStrictEqual([...types].sort(), [...EventPayload.EventTypes])
        const eventTypes = (document.paths["/api/v1/register"].post.parameters as Array<{ name: string; schema: { description: string } }>)
          .find((parameter) => parameter.name === "event_types")!
        for (const type of types) assert.include(eventTypes.schema.description, `\`${type}\``)
      }))
  })
})
