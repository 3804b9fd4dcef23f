/** Matrix rows of the event-queue routes: a queue is its owner's alone. */
import * as Effect from "effect/Effect"
import type { Account, Fixture, Row } from "./Table.ts"
import { allRoles, authenticated, ok, refusedWith, success } from "./Table.ts"

const register = (fixture: Fixture, as: Account) =>
  Effect.map(fixture.call(as, "POST", "/register", {}), (body) => body.queue_id as string)

/** Zulip's answer for a queue that is not the caller's (access_client_descriptor). */
const badQueue = refusedWith(
  (_f, _a, call) => `Bad event queue ID: ${call.made!.queue}`,
  "BAD_EVENT_QUEUE_ID",
  (call) => ({ queue_id: call.made!.queue })
)

export const eventsRows: ReadonlyArray<Row> = [
  {
    operation: "POST /register",
    request: () => Effect.succeed({}),
    digest: (body) => ({ queue: typeof body.queue_id, last_event_id: body.last_event_id }),
    expect: authenticated(allRoles(ok(() => ({ queue: "string", last_event_id: -1 }))))
  },
  {
    operation: "GET /events",
    scenario: "its own queue",
    request: (fixture, as) =>
      Effect.map(register(fixture, as), (queue) => ({
        query: { queue_id: queue, last_event_id: "-1", dont_block: "true" }
      })),
    expect: authenticated(allRoles(success({ events: [] })))
  },
  {
    operation: "GET /events",
    scenario: "the member's queue",
    request: (fixture) =>
      Effect.map(register(fixture, "member"), (queue) => ({
        query: { queue_id: queue, last_event_id: "-1", dont_block: "true" },
        made: { queue }
      })),
    expect: authenticated({ ...allRoles(badQueue), member: success({ events: [] }) })
  },
  {
    operation: "DELETE /events",
    scenario: "its own queue",
    request: (fixture, as) => Effect.map(register(fixture, as), (queue) => ({ form: { queue_id: queue } })),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "DELETE /events",
    scenario: "the member's queue",
    request: (fixture) =>
      Effect.map(register(fixture, "member"), (queue) => ({ form: { queue_id: queue }, made: { queue } })),
    expect: authenticated({ ...allRoles(badQueue), member: success() })
  }
]
