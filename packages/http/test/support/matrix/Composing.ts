/**
 * Matrix rows of what a client asks while composing: POST /typing, GET
 * /users/me/{stream_id}/topics, GET /get_stream_id, POST /messages/render.
 *
 * Zulip's rules: anyone may tell a direct conversation they are typing
 * (ids are only checked to exist); channel typing needs the channel's
 * content (a guest only in channels it is subscribed to, nobody in a
 * private channel it is not in) and permission to post there. A channel's
 * topics need the same content access; its id by name only knowing the
 * channel exists (administrators know private channels too). Anyone may
 * render a message.
 */
import * as Effect from "effect/Effect"
import type { ChannelKind } from "./Channel.ts"
import { channelKinds, kindScenario, rowChannel } from "./Channel.ts"
import type { Row } from "./Table.ts"
import { allRoles, authenticated, ok, refused, refusedWith, success } from "./Table.ts"

const invalidChannel = refused("Invalid channel ID")

export const composingRows: ReadonlyArray<Row> = [
  {
    operation: "POST /typing",
    scenario: "to a direct conversation with the bystander",
    request: (fixture) => Effect.succeed({ form: { op: "start", to: JSON.stringify([fixture.bystander.userId]) } }),
    expect: authenticated(allRoles(success()))
  },
  ...channelKinds.map((kind: ChannelKind): Row => ({
    operation: "POST /typing",
    scenario: kindScenario[kind],
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "typing", kind), (channel) => ({
        form: { type: "channel", op: "start", stream_id: String(channel.id), topic: channel.topic }
      })),
    expect: authenticated({
      ...allRoles(kind === "private" ? invalidChannel : success()),
      guest: kind === "subscribed" ? success() : invalidChannel
    })
  })),
  ...channelKinds.map((kind: ChannelKind): Row => ({
    operation: "GET /users/me/{stream_id}/topics",
    scenario: kindScenario[kind],
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "topics", kind), (channel) => ({
        path: `/users/me/${channel.id}/topics`,
        made: { topics: [{ name: channel.topic, max_id: channel.messageId }] }
      })),
    expect: authenticated({
      ...allRoles(kind === "private" ? invalidChannel : ok((_f, _a, call) => ({ topics: call.made!.topics }))),
      guest: kind === "subscribed" ? ok((_f, _a, call) => ({ topics: call.made!.topics })) : invalidChannel
    })
  })),
  ...channelKinds.map((kind: ChannelKind): Row => ({
    operation: "GET /get_stream_id",
    scenario: kindScenario[kind],
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "stream id", kind), (channel) => ({
        query: { stream: channel.name.toUpperCase() },
        made: { id: channel.id, name: channel.name.toUpperCase() }
      })),
    expect: authenticated((() => {
      const found = ok((_f, _a, call) => ({ stream_id: call.made!.id }))
      const unknown = refusedWith((_f, _a, call) => `Invalid channel name '${call.made!.name}'`)
      if (kind === "subscribed") return allRoles(found)
      if (kind === "public") return { ...allRoles(found), guest: unknown }
      return { ...allRoles(unknown), owner: found, admin: found }
    })())
  })),
  {
    operation: "POST /messages/render",
    request: () => Effect.succeed({ form: { content: "**bold**" } }),
    expect: authenticated(allRoles(success({ rendered: "<p><strong>bold</strong></p>" })))
  }
]
