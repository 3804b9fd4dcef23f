/**
 * An event queue registered for a test: `listen` registers one for `who`
 * (only these event types) and returns an effect that drains it, each call
 * giving the events that arrived since the last, without their ids.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials } from "./Harness.ts"
import { Server } from "./Harness.ts"

export const listen = (who: Credentials, eventTypes: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("POST", "/api/v1/register", {
      as: who,
      form: { event_types: JSON.stringify(eventTypes) }
    })
    assert.strictEqual(reply.status, 200, reply.text)
    let last = -1
    const queueId = reply.json.queue_id as string
    return Effect.gen(function*() {
      const events = (yield* server.fetch("GET", "/api/v1/events", {
        as: who,
        query: { queue_id: queueId, last_event_id: String(last), dont_block: "true" }
      })).json.events as Array<Record<string, unknown> & { id: number }>
      if (events.length > 0) last = events[events.length - 1]!.id
      return events.map(({ id: _id, ...rest }) => rest)
    })
  })

/** Asserts a reply's status and exact JSON body. */
export const expectReply = (reply: { status: number; json: unknown; text: string }, status: number, body: object) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.deepStrictEqual(reply.json, body)
}
