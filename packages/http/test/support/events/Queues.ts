/** GET and DELETE /events: ids, acknowledgement, blocking polls, heartbeats, queue errors. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Backend } from "../Harness.ts"
import { makeRequest, Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { heartbeatMs, success, error, badQueue, bare, as, register, poll, drain, start, waiting, waitingAtMost, waitingFor, channelId } from "./fixtures.ts"

export const queuesTests = (it: Vitest.MethodsNonLive<Server>, backend: Backend): void => {
  // -----------------------------------------------------------------------
  // GET /events

  it.effect("GET /events: increasing ids, acknowledgement by last_event_id, and the pruning errors", () =>
    Effect.gen(function*() {
      const server = yield* Server
      // Prospero: no other test changes his alert words.
      const prospero = yield* server.login("prospero@zulip.com")
      const queueId = yield* register(prospero, { event_types: "[\"alert_words\"]" })
      assert.deepStrictEqual((yield* drain(prospero, queueId, -1)).json, success({ events: [] }))
      const first = yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: prospero, form: { alert_words: "[\"ack-one\"]" } })
      const second = yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: prospero, form: { alert_words: "[\"ack-two\"]" } })
      assert.deepStrictEqual(first.json, success({ alert_words: ["ack-one"] }))
      assert.deepStrictEqual(second.json, success({ alert_words: ["ack-one", "ack-two"] }))
      const both = yield* drain(prospero, queueId, -1)
      assert.strictEqual(both.status, 200)
      const events = both.json.events
      assert.deepStrictEqual(bare(events), [
        { type: "alert_words", alert_words: ["ack-one"] },
        { type: "alert_words", alert_words: ["ack-one", "ack-two"] }
      ])
      assert.isTrue(events[0].id < events[1].id)
      assert.deepStrictEqual(Object.keys(both.json), ["result", "msg", "events"])
      // Delivery does not remove; acknowledging does.
      assert.deepStrictEqual((yield* drain(prospero, queueId, -1)).json.events, events)
      assert.deepStrictEqual((yield* drain(prospero, queueId, events[0].id)).json.events, [events[1]])
      assert.deepStrictEqual((yield* drain(prospero, queueId, events[1].id)).json, success({ events: [] }))
      assert.deepStrictEqual((yield* drain(prospero, queueId, events[1].id)).json, success({ events: [] }))
      const pruned = yield* drain(prospero, queueId, events[0].id)
      assert.strictEqual(pruned.status, 400)
      assert.deepStrictEqual(pruned.json, error(`An event newer than ${events[0].id} has already been pruned!`))
      const bogus = events[1].id + 1000
      const missing = yield* drain(prospero, queueId, bogus)
      assert.deepStrictEqual(missing.json, error(`Event ${bogus} was not in this queue`))
      const fresh = yield* register(prospero, { event_types: "[\"alert_words\"]" })
      assert.deepStrictEqual((yield* drain(prospero, fresh, 5)).json, error("Event 5 was not in this queue"))
    }))

  it.effect("GET /events: BAD_EVENT_QUEUE_ID for unknown queues, other users' queues and expired queues", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const hamlet = yield* as("member")
      const iago = yield* as("admin")
      const unknown = yield* drain(hamlet, "no-such-queue", -1)
      assert.strictEqual(unknown.status, 400)
      assert.deepStrictEqual(unknown.json, badQueue("no-such-queue"))
      const mine = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
      const theirs = yield* poll(iago, { queue_id: mine, last_event_id: "-1", dont_block: "true" })
      assert.deepStrictEqual(theirs.json, badQueue(mine))
      const deleteTheirs = yield* server.fetch("DELETE", "/api/v1/events", { as: iago, form: { queue_id: mine } })
      assert.deepStrictEqual(deleteTheirs.json, badQueue(mine))
      // Still alive for its owner.
      assert.strictEqual((yield* drain(hamlet, mine, -1)).status, 200)
      // A queue expires its lifespan after the last poll that waited (or its creation).
      const short = yield* register(hamlet, { event_types: "[\"alert_words\"]", queue_lifespan_secs: "1" })
      assert.strictEqual((yield* drain(hamlet, short, -1)).status, 200)
      server.clock.advance(1_000)
      const expired = yield* drain(hamlet, short, -1)
      assert.strictEqual(expired.status, 400)
      assert.deepStrictEqual(expired.json, badQueue(short))
      assert.strictEqual((yield* drain(hamlet, mine, -1)).status, 200)
    }))

  it.effect("GET /events: missing queue_id and last_event_id, and bad parameters", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
      const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
        [{}, error("Missing 'queue_id' argument")],
        [{ dont_block: "false" }, error("Missing 'queue_id' argument")],
        [{ queue_id: queueId }, error("Missing 'last_event_id' argument")],
        [{ queue_id: queueId, last_event_id: "x" }, error("last_event_id is not valid JSON")],
        [{ queue_id: queueId, last_event_id: "1.5" }, error("last_event_id is not an integer")],
        [{ queue_id: queueId, last_event_id: "-1", dont_block: "1" }, error("dont_block is not a boolean")],
        [{ dont_block: "true", narrow: "[[\"nope\",\"x\"]]" }, error("Operator nope not supported.")]
      ]
      for (const [query, expected] of cases) {
        const reply = yield* poll(hamlet, query)
        assert.strictEqual(reply.status, 400, JSON.stringify(query))
        assert.deepStrictEqual(reply.json, expected, JSON.stringify(query))
      }
    }))

  it.effect("GET /events with dont_block and no queue_id registers a queue with the request's parameters", () =>
    Effect.gen(function*() {
      const server = yield* Server
      // Zoe: no other test changes her alert words or settings.
      const zoe = yield* server.login("ZOE@zulip.com")
      const created = yield* poll(zoe, { dont_block: "true", event_types: "[\"alert_words\"]" })
      assert.strictEqual(created.status, 200)
      assert.deepStrictEqual(created.json, success({ events: [], queue_id: created.json.queue_id }))
      assert.isString(created.json.queue_id)
      const queueId = created.json.queue_id
      const changed = yield* server.fetch("PATCH", "/api/v1/settings", { as: zoe, form: { enter_sends: "true" } })
      assert.deepStrictEqual(changed.json, success())
      const words = yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: zoe, form: { alert_words: "[\"dont-block\"]" } })
      assert.deepStrictEqual(words.json, success({ alert_words: ["dont-block"] }))
      const reply = yield* drain(zoe, queueId, -1)
      // Only alert_words (not the settings change): event_types came with the request; queue_id only when the call
      // registered.
      assert.deepStrictEqual(reply.json, success({ events: [{ type: "alert_words", alert_words: ["dont-block"], id: reply.json.events[0].id }] }))
      const restored = yield* server.fetch("PATCH", "/api/v1/settings", { as: zoe, form: { enter_sends: "false" } })
      assert.deepStrictEqual(restored.json, success())
    }))

  it.effect("GET /events blocks until another user's action commits (POST /users/me/subscriptions)", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const hamlet = yield* as("member")
      const iago = yield* as("admin")
      const name = `Blocking ${backend}`
      const created = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
        as: hamlet,
        form: { subscriptions: JSON.stringify([{ name }]) }
      })
      assert.deepStrictEqual(created.json, success({ subscribed: { [hamlet.userId]: [name] }, already_subscribed: {} }))
      const streamId = yield* channelId(hamlet, name)
      const queueId = yield* register(hamlet, { event_types: "[\"subscription\"]" })
      const before = yield* waiting
      const pending = yield* start("GET", "/api/v1/events", { as: hamlet, query: { queue_id: queueId, last_event_id: "-1" } })
      yield* waitingFor(before + 1)
      const joined = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
        as: iago,
        form: { subscriptions: JSON.stringify([{ name }]) }
      })
      assert.deepStrictEqual(joined.json, success({ subscribed: { [iago.userId]: [name] }, already_subscribed: {} }))
      // The clock has not moved, so no heartbeat can have ended the poll: the action did.
      const reply = yield* Effect.promise(() => pending)
      assert.strictEqual(reply.status, 200)
      assert.deepStrictEqual(bare(reply.json.events), [
        { type: "subscription", op: "peer_add", stream_ids: [streamId], user_ids: [iago.userId] }
      ])
      assert.strictEqual(yield* waiting, before)
    }))

  it.effect("GET /events: a heartbeat after the configured interval; it is acknowledged like an event", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const hamlet = yield* as("member")
      const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
      const before = yield* waiting
      // 1 ms before the heartbeat an event is the poll's whole answer: a
      // heartbeat due by then (its timer runs as the clock moves, before the
      // event's request is in) would be in it.
      const early = yield* start("GET", "/api/v1/events", { as: hamlet, query: { queue_id: queueId, last_event_id: "-1" } })
      yield* waitingFor(before + 1)
      server.clock.advance(heartbeatMs - 1)
      const added = yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: hamlet, form: { alert_words: "[\"before-heartbeat\"]" } })
      assert.strictEqual(added.status, 200)
      const first = yield* Effect.promise(() => early)
      assert.deepStrictEqual(bare(first.json.events), [{ type: "alert_words", alert_words: added.json.alert_words }])
      yield* server.fetch("DELETE", "/api/v1/users/me/alert_words", { as: hamlet, form: { alert_words: "[\"before-heartbeat\"]" } })
      const removed = yield* drain(hamlet, queueId, first.json.events[0].id)
      assert.deepStrictEqual(bare(removed.json.events), [{ type: "alert_words", alert_words: first.json.events[0].alert_words.filter((w: string) => w !== "before-heartbeat") }])
      const after = String(removed.json.events[0].id)
      // A poll left waiting gets its heartbeat when the clock reaches it.
      const pending = yield* start("GET", "/api/v1/events", { as: hamlet, query: { queue_id: queueId, last_event_id: after } })
      yield* waitingFor(before + 1)
      server.clock.advance(heartbeatMs - 1)
      assert.strictEqual(yield* waiting, before + 1)
      server.clock.advance(1)
      const reply = yield* Effect.promise(() => pending)
      assert.strictEqual(reply.status, 200)
      assert.deepStrictEqual(reply.json, success({ events: [{ type: "heartbeat", id: reply.json.events[0].id }] }))
      assert.strictEqual(yield* waiting, before)
      const next = yield* drain(hamlet, queueId, reply.json.events[0].id)
      assert.deepStrictEqual(next.json, success({ events: [] }))
    }))

  it.effect("GET /events: a newer poll of the same queue finishes the older one", () =>
    Effect.gen(function*() {
      const server = yield* Server
      // Aaron: no other test changes his alert words.
      const aaron = yield* server.login("AARON@zulip.com")
      const queueId = yield* register(aaron, { event_types: "[\"alert_words\"]" })
      const before = yield* waiting
      const query = { queue_id: queueId, last_event_id: "-1" }
      const older = yield* start("GET", "/api/v1/events", { as: aaron, query })
      yield* waitingFor(before + 1)
      // The clock stands still: neither poll can end with a heartbeat.
      const newer = yield* start("GET", "/api/v1/events", { as: aaron, query: { ...query, not_a_parameter: "1" } })
      const first = yield* Effect.promise(() => older)
      assert.strictEqual(first.status, 200)
      assert.deepStrictEqual(first.json, success({ events: [] }))
      yield* waitingFor(before + 1)
      const words = yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: aaron, form: { alert_words: "[\"newer-poll\"]" } })
      assert.deepStrictEqual(words.json, success({ alert_words: ["newer-poll"] }))
      // Answered after waiting as at once: the envelope reports the parameter it ignored.
      const second = yield* Effect.promise(() => newer)
      assert.strictEqual(second.status, 200)
      assert.strictEqual(second.headers.get("content-type"), "application/json")
      const id = second.json.events[0].id
      assert.deepStrictEqual(second.json, success({
        events: [{ type: "alert_words", alert_words: ["newer-poll"], id }],
        ignored_parameters_unsupported: ["not_a_parameter"]
      }))
      // Byte for byte what the same poll answers at once.
      const again = yield* poll(aaron, { ...query, dont_block: "true", not_a_parameter: "1" })
      assert.strictEqual(again.text, second.text)
    }))

  it.effect("GET /events: a client that goes away frees its waiting poll", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const hamlet = yield* as("member")
      const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
      const before = yield* waiting
      const abort = new AbortController()
      const request = new Request(
        makeRequest("GET", "/api/v1/events", { as: hamlet, query: { queue_id: queueId, last_event_id: "-1" } }),
        { signal: abort.signal }
      )
      const pending = server.handler(request)
      yield* waitingFor(before + 1)
      abort.abort()
      yield* Effect.promise(() => pending.then(() => undefined, () => undefined))
      yield* waitingAtMost(before)
      assert.strictEqual(yield* waiting, before)
      // The queue lives on and answers the next poll.
      assert.deepStrictEqual((yield* drain(hamlet, queueId, -1)).json, success({ events: [] }))
    }))

  it.effect("DELETE /events: deletes the queue, ends a waiting poll; then BAD_EVENT_QUEUE_ID", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const hamlet = yield* as("member")
      const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
      const before = yield* waiting
      const pending = yield* start("GET", "/api/v1/events", {
        as: hamlet,
        query: { queue_id: queueId, last_event_id: "-1" }
      })
      yield* waitingFor(before + 1)
      // zulip-js sends DELETE parameters in the query string.
      const deleted = yield* server.fetch("DELETE", "/api/v1/events", { as: hamlet, query: { queue_id: queueId } })
      assert.strictEqual(deleted.status, 200)
      assert.deepStrictEqual(deleted.json, success())
      const ended = yield* Effect.promise(() => pending)
      assert.strictEqual(ended.status, 400)
      assert.deepStrictEqual(ended.json, badQueue(queueId))
      assert.deepStrictEqual((yield* drain(hamlet, queueId, -1)).json, badQueue(queueId))
      const again = yield* server.fetch("DELETE", "/api/v1/events", { as: hamlet, form: { queue_id: queueId } })
      assert.deepStrictEqual(again.json, badQueue(queueId))
      const missing = yield* server.fetch("DELETE", "/api/v1/events", { as: hamlet })
      assert.deepStrictEqual(missing.json, {
        result: "error",
        msg: "Missing 'queue_id' argument",
        code: "REQUEST_VARIABLE_MISSING",
        var_name: "queue_id"
      })
    }))
}
