/**
 * An event queue registered for a test. `openQueue` registers one for `who`
 * (only these event types, plus any other register fields) and returns the
 * register reply's state with a poll: each run gives the events that arrived
 * since the last, without their ids. `listen` is the poll alone.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials } from "./Harness.ts"
import { Server } from "./Harness.ts"

export type Event = Record<string, unknown>

export const openQueue = (who: Credentials, eventTypes: ReadonlyArray<string>, form: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("POST", "/api/v1/register", {
      as: who,
      form: { ...form, event_types: JSON.stringify(eventTypes) }
    })
    assert.strictEqual(reply.status, 200, reply.text)
    let last = -1
    const queueId = reply.json.queue_id as string
    const poll = Effect.gen(function*() {
      const got = yield* server.fetch("GET", "/api/v1/events", {
        as: who,
        query: { queue_id: queueId, last_event_id: String(last), dont_block: "true" }
      })
      assert.strictEqual(got.status, 200, got.text)
      const events = got.json.events as Array<Event & { id: number }>
      if (events.length > 0) last = events[events.length - 1]!.id
      return events.map(({ id: _id, ...rest }): Event => rest)
    })
    return { state: reply.json as Record<string, any>, poll }
  })

export const listen = (who: Credentials, eventTypes: ReadonlyArray<string>, form: Record<string, string> = {}) =>
  Effect.map(openQueue(who, eventTypes, form), (queue) => queue.poll)

/** Asserts a reply's status and exact JSON body. */
export const expectReply = (reply: { status: number; json: unknown; text: string }, status: number, body: object) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.deepStrictEqual(reply.json, body)
}
