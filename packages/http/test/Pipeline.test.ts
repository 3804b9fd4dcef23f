/**
 * The one request pipeline (src/Pipeline.ts) on what the shortcuts of the
 * former FastPaths.ts answered beside it: the busiest endpoints, GET
 * /users/me, GET /messages and POST /messages, now served by the routes
 * alone, on a web handler (`Http.makeWebHandler`):
 *
 * - a send that fails after its commit is answered with a 500 and never
 *   sent again;
 * - with rate limiting on, every send counts once, whether sent, refused by
 *   the core, sent with a parameter the endpoint ignores or over the limit,
 *   and reads count in the same window;
 * - the same query string asked again, after a send and by another user,
 *   is answered afresh.
 */
import { assert, describe, it } from "@effect/vitest"
import { Messages } from "@teamchat/core/services/Messages"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Http from "../src/Http.ts"
import * as Server from "../src/Server.ts"

const externalUrl = "http://chat.example"

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

/** A web handler over a seeded memory core (`core` may change its services), disposed with the scope. */
const webHandler = (
  options: Partial<Http.HttpOptions>,
  change: (context: Context.Context<Teamchat.Services>) => Context.Context<Teamchat.Services> = (context) => context
) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(Teamchat.layerMemory(Teamchat.layerSecretsTest))
    yield* Effect.provideContext(Server.seedDemo(externalUrl, () => {}), context)
    const made = Http.makeWebHandler(Layer.succeedContext(change(context)), { demo: true, ...options })
    yield* Effect.addFinalizer(() => Effect.promise(() => made.dispose()))
    const call = (path: string, init: RequestInit = {}) =>
      Effect.promise(async () => {
        const response = await made.handler(new Request(`${externalUrl}${path}`, init))
        return {
          status: response.status,
          remaining: response.headers.get("x-ratelimit-remaining"),
          body: await response.json() as Record<string, unknown>
        }
      })
    const key = (username: string) =>
      Effect.map(
        call("/api/v1/dev_fetch_api_key", { method: "POST", body: new URLSearchParams({ username }) }),
        (login) => basic(username, String(login.body.api_key))
      )
    return { call, key }
  })

const topicNarrow = (topic: string) =>
  `/api/v1/messages?anchor=newest&num_before=10&num_after=0&narrow=${
    encodeURIComponent(JSON.stringify([{ operator: "channel", operand: "Verona" }, { operator: "topic", operand: topic }]))
  }`

describe("a send that fails after its commit", () => {
  // A lost connection after COMMIT went out (the message is written, the
  // answer never came back) surfaces as a failure of the send, not as a
  // refusal: the request must not be sent again by anything else.
  it.live("is sent once and answered with a 500", () =>
    Effect.scoped(Effect.gen(function*() {
      const { call, key } = yield* webHandler({ rateLimit: false }, (context) => {
        const messages = Context.get(context, Messages)
        const afterCommit = <A, E, R>(send: Effect.Effect<A, E, R>) =>
          Effect.andThen(send, Effect.die(new Error("Connection terminated unexpectedly")))
        return Context.add(context, Messages, Messages.of({
          ...messages,
          send: (...args) => afterCommit(messages.send(...args)),
          sendDeferred: (...args) => afterCommit(messages.sendDeferred(...args))
        }))
      })
      const iago = yield* key("iago@zulip.com")
      const sent = yield* call("/api/v1/messages", {
        method: "POST",
        headers: { authorization: iago },
        body: new URLSearchParams({ type: "stream", to: "Verona", topic: "once only", content: "sent once" })
      })
      assert.deepStrictEqual(sent.body, { result: "error", msg: "Internal server error", code: "BAD_REQUEST" })
      assert.strictEqual(sent.status, 500)
      const read = yield* call(topicNarrow("once only"), { headers: { authorization: iago } })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual((read.body.messages as Array<{ content: string }>).map((m) => m.content), ["<p>sent once</p>"])
    })), 60_000)
})

describe("rate limiting on the busiest endpoints", () => {
  it.live("a send counts once, whether sent, refused, with an ignored parameter or over the limit; reads in the same window", () =>
    Effect.scoped(Effect.gen(function*() {
      const { call, key } = yield* webHandler({ rateLimit: { requests: 8, windowSeconds: 60 } })
      const iago = yield* key("iago@zulip.com")
      const send = (content: string, to = "Verona", extra: Record<string, string> = {}) =>
        call("/api/v1/messages", {
          method: "POST",
          headers: { authorization: iago },
          body: new URLSearchParams({ type: "stream", to, topic: "limits", content, ...extra })
        })
      const answers = [
        yield* send("one"),
        yield* send("refused", "No such channel"),
        yield* call("/api/v1/users/me", { headers: { authorization: iago } }),
        yield* send("named", "Verona", { unknown: "1" }),
        yield* call(topicNarrow("limits"), { headers: { authorization: iago } }),
        yield* send("two"),
        yield* call("/api/v1/users/me", { headers: { authorization: iago } }),
        yield* send("three"),
        yield* send("over"),
        yield* call("/api/v1/users/me", { headers: { authorization: iago } })
      ]
      assert.deepStrictEqual(
        answers.map(({ remaining, status }) => [status, remaining]),
        [[200, "7"], [400, "6"], [200, "5"], [200, "4"], [200, "3"], [200, "2"], [200, "1"], [200, "0"], [429, "0"], [429, "0"]]
      )
      assert.deepStrictEqual(answers[3]!.body.ignored_parameters_unsupported, ["unknown"])
      assert.strictEqual(answers[8]!.body.code, "RATE_LIMIT_HIT")
      // What was written: the accepted sends, once each (read by another user, whose own limit has room).
      const hamlet = yield* key("hamlet@zulip.com")
      const page = yield* call(topicNarrow("limits"), { headers: { authorization: hamlet } })
      assert.deepStrictEqual(
        (page.body.messages as Array<{ content: string }>).map((m) => m.content),
        ["<p>one</p>", "<p>named</p>", "<p>two</p>", "<p>three</p>"]
      )
    })), 60_000)

  it.live("GET /messages asked again with the same query string, by another user: answered afresh, for that user", () =>
    Effect.scoped(Effect.gen(function*() {
      const { call, key } = yield* webHandler({ rateLimit: false })
      const iago = yield* key("iago@zulip.com")
      const hamlet = yield* key("hamlet@zulip.com")
      const path = topicNarrow("afresh")
      const before = yield* call(path, { headers: { authorization: iago } })
      assert.deepStrictEqual(before.body.messages, [])
      yield* call("/api/v1/messages", {
        method: "POST",
        headers: { authorization: hamlet },
        body: new URLSearchParams({ type: "stream", to: "Verona", topic: "afresh", content: "new" })
      })
      const iagoAfter = yield* call(path, { headers: { authorization: iago } })
      const hamletAfter = yield* call(path, { headers: { authorization: hamlet } })
      const flags = (page: typeof iagoAfter) =>
        (page.body.messages as Array<{ content: string; flags: ReadonlyArray<string> }>).map((m) => [m.content, m.flags.includes("read")])
      // Unread for Iago, who was not its sender; the same message for both.
      assert.deepStrictEqual(flags(iagoAfter), [["<p>new</p>", false]])
      assert.deepStrictEqual(flags(hamletAfter).map(([content]) => content), ["<p>new</p>"])
    })), 60_000)
})
