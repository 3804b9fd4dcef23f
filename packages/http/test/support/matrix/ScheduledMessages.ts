/**
 * Matrix rows of the scheduled-message routes. Scheduling is validated as a
 * send is; a scheduled message is its sender's alone (anyone else's id is
 * Zulip's 404 "Scheduled message does not exist"). Bots may schedule.
 */
import * as Effect from "effect/Effect"
import type { ChannelKind } from "./Channel.ts"
import { channelKinds, kindScenario, rowChannel } from "./Channel.ts"
import type { Account, Expected, Fixture, Row } from "./Table.ts"
import { allRoles, authenticated, ok, refusedWith, success } from "./Table.ts"

/** A scheduled message by `as`, an hour from now, on the channel every principal is in. */
const schedule = (fixture: Fixture, as: Account) =>
  Effect.map(
    fixture.call(as, "POST", "/scheduled_messages", {
      form: {
        type: "stream",
        to: String(fixture.everyoneChannel.id),
        topic: "later",
        content: "scheduled",
        scheduled_delivery_timestamp: String(fixture.nowSeconds() + dueIn)
      }
    }),
    (body) => body.scheduled_message_id as number
  )

/**
 * Far enough that no row's clock advance (edit limits move it by 601–621 s
 * per role, hours over the matrix) makes a scheduled message due: delivery
 * running during a refused row would be counted as that row's write.
 */
const dueIn = 30 * 24 * 3600

const notFound: Expected = {
  status: 404,
  body: { result: "error", msg: "Scheduled message does not exist", code: "BAD_REQUEST" }
}

const notAuthorizedToSend = refusedWith((_f, _a, call) => `Not authorized to send to channel '${call.made!.name}'`)

const sends = (kind: ChannelKind, role: string) => kind === "subscribed" || (kind === "public" && role !== "guest")

export const scheduledMessagesRows: ReadonlyArray<Row> = [
  {
    operation: "GET /scheduled_messages",
    request: (fixture, as) => Effect.map(schedule(fixture, as), (id) => ({ made: { id } })),
    digest: (body, _fixture, call) => ({
      listed: body.scheduled_messages.some((m: { scheduled_message_id: number }) => m.scheduled_message_id === call.made!.id)
    }),
    expect: authenticated(allRoles(ok(() => ({ listed: true }))))
  },
  ...channelKinds.map((kind): Row => ({
    operation: "POST /scheduled_messages",
    scenario: kindScenario[kind],
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "schedule", kind), (channel) => ({
        form: {
          type: "stream",
          to: String(channel.id),
          topic: "later",
          content: "scheduled",
          scheduled_delivery_timestamp: String(fixture.nowSeconds() + dueIn)
        },
        made: { name: channel.name }
      })),
    digest: (body) => ({ id: typeof body.scheduled_message_id }),
    expect: authenticated({
      owner: sends(kind, "owner") ? ok(() => ({ id: "number" })) : notAuthorizedToSend,
      admin: sends(kind, "admin") ? ok(() => ({ id: "number" })) : notAuthorizedToSend,
      moderator: sends(kind, "moderator") ? ok(() => ({ id: "number" })) : notAuthorizedToSend,
      member: sends(kind, "member") ? ok(() => ({ id: "number" })) : notAuthorizedToSend,
      guest: sends(kind, "guest") ? ok(() => ({ id: "number" })) : notAuthorizedToSend,
      bot: sends(kind, "bot") ? ok(() => ({ id: "number" })) : notAuthorizedToSend
    })
  })),
  {
    operation: "PATCH /scheduled_messages/{scheduled_message_id}",
    scenario: "its own",
    request: (fixture, as) =>
      Effect.map(schedule(fixture, as), (id) => ({ path: `/scheduled_messages/${id}`, form: { content: "edited" } })),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "PATCH /scheduled_messages/{scheduled_message_id}",
    scenario: "the member's",
    request: (fixture) =>
      Effect.map(schedule(fixture, "member"), (id) => ({ path: `/scheduled_messages/${id}`, form: { content: "edited" } })),
    expect: authenticated({ ...allRoles(notFound), member: success() })
  },
  {
    operation: "DELETE /scheduled_messages/{scheduled_message_id}",
    scenario: "its own",
    request: (fixture, as) => Effect.map(schedule(fixture, as), (id) => ({ path: `/scheduled_messages/${id}` })),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "DELETE /scheduled_messages/{scheduled_message_id}",
    scenario: "the member's",
    request: (fixture) => Effect.map(schedule(fixture, "member"), (id) => ({ path: `/scheduled_messages/${id}` })),
    expect: authenticated({ ...allRoles(notFound), member: success() })
  }
]
