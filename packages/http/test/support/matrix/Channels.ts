/**
 * Matrix rows of the channel and subscription routes. Guests reach only the
 * channels they are subscribed to (Zulip's guests never see public channels
 * they are not in), so each route is tried on the matrix's public and private
 * channels the guest is not in.
 */
import * as Effect from "effect/Effect"
import { rowChannel } from "./Channel.ts"
import type { Call, Fixture, Row } from "./Table.ts"
import { allRoles, authenticated, eachRole, ok, refused, refusedWith } from "./Table.ts"

/** Which of the matrix's fixed channels are among `names`. */
const fixedChannels = (names: ReadonlyArray<string>, fixture: Fixture) =>
  ([["everyone", fixture.everyoneChannel], ["public", fixture.publicChannel], ["private", fixture.privateChannel]] as const)
    .filter(([, channel]) => names.includes(channel.name))
    .map(([kind]) => kind)

const requestedName = (call: Call) => JSON.parse(call.form!.subscriptions!)[0].name as string

export const channelsRows: ReadonlyArray<Row> = [
  {
    operation: "GET /streams",
    request: () => Effect.succeed({}),
    digest: (body, fixture) => ({ channels: fixedChannels(body.streams.map((s: any) => s.name), fixture) }),
    // Public channels and one's own; guests only their own (include_public is off for them).
    expect: authenticated({
      ...allRoles(ok(() => ({ channels: ["everyone", "public"] }))),
      guest: ok(() => ({ channels: ["everyone"] }))
    })
  },
  {
    operation: "GET /streams",
    scenario: "with include_all",
    request: () => Effect.succeed({ query: { include_all: "true" } }),
    digest: (body, fixture) => ({ channels: fixedChannels(body.streams.map((s: any) => s.name), fixture) }),
    // Every channel whose metadata the caller may see: administrators see private channels too.
    expect: authenticated({
      ...allRoles(ok(() => ({ channels: ["everyone", "public"] }))),
      owner: ok(() => ({ channels: ["everyone", "public", "private"] })),
      admin: ok(() => ({ channels: ["everyone", "public", "private"] })),
      guest: ok(() => ({ channels: ["everyone"] }))
    })
  },
  {
    operation: "GET /users/me/subscriptions",
    request: () => Effect.succeed({}),
    digest: (body, fixture) => ({ channels: fixedChannels(body.subscriptions.map((s: any) => s.name), fixture) }),
    expect: authenticated(allRoles(ok(() => ({ channels: ["everyone"] }))))
  },
  {
    operation: "POST /users/me/subscriptions",
    scenario: "itself to a public channel it is not in",
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "subscribe", "public"), (channel) => ({
        form: { subscriptions: JSON.stringify([{ name: channel.name }]) }
      })),
    expect: authenticated({
      ...eachRole((role) =>
        ok((fixture, _as, call) => ({
          subscribed: { [String(fixture.accounts[role].userId)]: [requestedName(call)] },
          already_subscribed: {}
        }))
      ),
      guest: refusedWith((_f, _a, call) => `Unable to access channel (${requestedName(call)}).`)
    })
  },
  {
    operation: "POST /users/me/subscriptions",
    scenario: "itself to a private channel it is not in",
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "subscribe", "private"), (channel) => ({
        form: { subscriptions: JSON.stringify([{ name: channel.name }]) }
      })),
    // Not even administrators: only subscribers and the channel's can_add_subscribers_group.
    expect: authenticated(allRoles(refusedWith((_f, _a, call) => `Unable to access channel (${requestedName(call)}).`)))
  },
  {
    operation: "DELETE /users/me/subscriptions",
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "unsubscribe", "subscribed"), (channel) => ({
        form: { subscriptions: JSON.stringify([channel.name]) },
        made: { name: channel.name }
      })),
    expect: authenticated(allRoles(ok((_f, _a, call) => ({ removed: [call.made!.name], not_removed: [] }))))
  },
  {
    operation: "POST /users/me/subscriptions/properties",
    scenario: "on a channel it is subscribed to",
    request: (fixture) =>
      Effect.succeed({
        form: {
          subscription_data: JSON.stringify([{ stream_id: fixture.everyoneChannel.id, property: "pin_to_top", value: true }])
        }
      }),
    expect: authenticated(allRoles(ok()))
  },
  {
    operation: "POST /users/me/subscriptions/properties",
    scenario: "on a public channel it is not in",
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "properties", "public"), (channel) => ({
        form: { subscription_data: JSON.stringify([{ stream_id: channel.id, property: "pin_to_top", value: true }]) },
        made: { id: channel.id }
      })),
    expect: authenticated({
      ...allRoles(refusedWith((_f, _a, call) => `Not subscribed to channel ID ${call.made!.id}`)),
      guest: refused("Invalid channel ID")
    })
  }
]
