/**
 * Matrix rows of the message routes, each on a fresh channel the caller is
 * subscribed to, a public one it is not in and a private one it is not in.
 *
 * Zulip's rules: members, moderators, administrators, owners and (member)
 * bots read public channels' history without subscribing; nobody reads a
 * private channel's messages without a subscription, administrators
 * included; guests reach only channels they are subscribed to. A narrow to a
 * channel the caller cannot read is not an error: it matches nothing.
 *
 * DELETE /messages/{message_id} with the organization's defaults:
 * administrators and owners delete any message they can read, whenever it
 * was sent; everyone else their own and their bots' messages, for ten
 * minutes (`message_content_delete_limit_seconds`).
 */
import * as Effect from "effect/Effect"
import type { ChannelKind } from "./Channel.ts"
import { channelKinds, kindScenario, rowChannel } from "./Channel.ts"
import type { Account, BodyOf, Expected, Fixture, Row } from "./Table.ts"
import { administratorRequired, allRoles, authenticated, eachRole, ok, refused, refusedWith, success } from "./Table.ts"

/** Whether a role reads the messages of a channel of this kind. */
const reads = (kind: ChannelKind, role: string) =>
  kind === "subscribed" || (kind === "public" && role !== "guest")

const byRole = (kind: ChannelKind, yes: Expected, no: Expected) =>
  authenticated({
    owner: reads(kind, "owner") ? yes : no,
    admin: reads(kind, "admin") ? yes : no,
    moderator: reads(kind, "moderator") ? yes : no,
    member: reads(kind, "member") ? yes : no,
    guest: reads(kind, "guest") ? yes : no,
    bot: reads(kind, "bot") ? yes : no
  })

const channelNarrow = (id: number) => JSON.stringify([{ operator: "channel", operand: id }])

const invalidMessages = refused("Invalid message(s)")

const invalidChannel = refused("Invalid channel ID")

const notAuthorizedToSend = refusedWith((_f, _a, call) => `Not authorized to send to channel '${call.made!.name}'`)

const cannotDelete = refused("You don't have permission to delete this message")

/** A message of its own per case: `by` sends it to the channel every principal is in. */
const deletable = (fixture: Fixture, by: Account | "bystander", channel: { readonly id: number }) =>
  Effect.map(
    fixture.call(by, "POST", "/messages", {
      form: { type: "stream", to: String(channel.id), topic: fixture.unique("doomed"), content: "to be deleted" }
    }),
    (body): { path: string } => ({ path: `/messages/${body.id}` })
  )

/** The shared channel, with the bystander subscribed too (so it can write there). */
const deletionChannel = (fixture: Fixture) =>
  fixture.once("delete: channel", fixture.channel(["bystander", "owner", "admin", "moderator", "member", "guest", "bot"]))

const sendingRoles = ["owner", "admin", "moderator", "member", "guest", "bot"] as const

const perKind = (make: (kind: ChannelKind) => Row): ReadonlyArray<Row> => channelKinds.map(make)

const edited = success({ detached_uploads: [] })

const notYourMessage = refused("You don't have permission to edit this message")

/** A message `as` sends now on the channel every principal is in; its id. */
const ownMessage = (fixture: Fixture, as: Account) =>
  Effect.map(
    fixture.call(as, "POST", "/messages", {
      form: { type: "stream", to: String(fixture.everyoneChannel.id), topic: fixture.unique("edit"), content: "mine" }
    }),
    (body) => body.id as number
  )

export const messagesRows: ReadonlyArray<Row> = [
  ...perKind((kind) => ({
    operation: "POST /messages",
    scenario: kindScenario[kind],
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "send", kind), (channel) => ({
        form: { type: "stream", to: String(channel.id), topic: "sent", content: "hello" },
        made: { name: channel.name }
      })),
    digest: (body) => ({ id: typeof body.id }),
    expect: byRole(kind, ok(() => ({ id: "number" })), notAuthorizedToSend)
  })),
  {
    operation: "POST /messages",
    scenario: "with a zform widget_content, to a channel every principal is in",
    request: (fixture) =>
      Effect.succeed({
        form: {
          type: "stream",
          to: String(fixture.everyoneChannel.id),
          topic: fixture.unique("widget"),
          content: "pick",
          widget_content: JSON.stringify({
            widget_type: "zform",
            extra_data: { type: "choices", heading: "Pick", choices: [{ short_name: "a", long_name: "A", reply: "a" }] }
          })
        }
      }),
    digest: (body) => ({ id: typeof body.id }),
    expect: authenticated(allRoles(ok(() => ({ id: "number" }))))
  },
  ...perKind((kind) => ({
    operation: "GET /messages",
    scenario: `narrowed ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "list", kind), (channel) => ({
        query: { anchor: "newest", num_before: "10", num_after: "0", narrow: channelNarrow(channel.id) },
        made: { message: channel.messageId }
      })),
    digest: (body) => ({ ids: body.messages.map((m: { id: number }) => m.id) }),
    expect: byRole(
      kind,
      ok((_f, _a, call) => ({ ids: [call.made!.message], found_newest: true })),
      ok(() => ({ ids: [], found_newest: true }))
    )
  })),
  ...perKind((kind) => ({
    operation: "GET /messages/{message_id}",
    scenario: `of a message ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "get", kind), (channel) => ({
        path: `/messages/${channel.messageId}`,
        made: { message: channel.messageId }
      })),
    digest: (body) => ({ id: body.message?.id }),
    expect: byRole(kind, ok((_f, _a, call) => ({ id: call.made!.message })), invalidMessages)
  })),
  ...perKind((kind) => ({
    operation: "POST /messages/flags",
    scenario: `starring a message ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "flags", kind), (channel) => ({
        form: { messages: JSON.stringify([channel.messageId]), op: "add", flag: "starred" },
        made: { message: channel.messageId }
      })),
    expect: byRole(kind, ok((_f, _a, call) => ({ messages: [call.made!.message] })), invalidMessages)
  })),
  ...perKind((kind) => ({
    operation: "POST /messages/flags/narrow",
    scenario: `starring ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "flags narrow", kind), (channel) => ({
        form: {
          anchor: "oldest",
          num_before: "0",
          num_after: "10",
          narrow: channelNarrow(channel.id),
          op: "add",
          flag: "starred"
        },
        made: { message: channel.messageId }
      })),
    expect: byRole(
      kind,
      ok((_f, _a, call) => ({
        processed_count: 1,
        updated_count: 1,
        first_processed_id: call.made!.message,
        last_processed_id: call.made!.message
      })),
      ok(() => ({ processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null }))
    )
  })),
  ...perKind((kind) => ({
    operation: "POST /messages/{message_id}/reactions",
    scenario: `to a message ${kindScenario[kind]}`,
    // Each principal adds its own reaction to the row's message.
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "react", kind), (channel) => ({
        path: `/messages/${channel.messageId}/reactions`,
        form: { emoji_name: "octopus" }
      })),
    expect: byRole(kind, success(), invalidMessages)
  })),
  ...perKind((kind) => ({
    operation: "DELETE /messages/{message_id}/reactions",
    scenario: `from a message ${kindScenario[kind]}`,
    // The principal's own reaction, added first where it may react (the
    // answer is not checked: a repeated build finds it there already).
    request: (fixture, as, principal) =>
      Effect.gen(function*() {
        const channel = yield* rowChannel(fixture, "unreact", kind)
        const path = `/messages/${channel.messageId}/reactions`
        if (principal === as) {
          yield* fixture.server.fetch("POST", `/api/v1${path}`, { as: fixture.accounts[as], form: { emoji_name: "octopus" } })
        }
        return { path, form: { emoji_name: "octopus" } }
      }),
    expect: byRole(kind, success(), invalidMessages)
  })),
  // Content is its sender's alone, administrators included (Zulip's validate_user_can_edit_message).
  {
    operation: "PATCH /messages/{message_id}",
    scenario: "its own message, just sent",
    request: (fixture, as) => Effect.map(ownMessage(fixture, as), (id) => ({ path: `/messages/${id}`, form: { content: "edited" } })),
    expect: authenticated(allRoles(edited))
  },
  {
    operation: "PATCH /messages/{message_id}",
    scenario: "its own message, 621 s after sending (limit 600 s + 20 s)",
    request: (fixture, as) =>
      Effect.map(ownMessage(fixture, as), (id) => {
        fixture.server.clock.advance(621_000)
        return { path: `/messages/${id}`, form: { content: "too late" } }
      }),
    expect: authenticated(allRoles(refused("The time limit for editing this message has passed")))
  },
  {
    operation: "PATCH /messages/{message_id}",
    scenario: "another's message on a channel it is subscribed to",
    request: (fixture) =>
      Effect.map(
        fixture.once("edit: another's", fixture.channel(["bystander", "owner", "admin", "moderator", "member", "guest", "bot"])),
        (channel) => ({ path: `/messages/${channel.messageId}`, form: { content: "not mine" } })
      ),
    expect: authenticated(allRoles(notYourMessage))
  },
  ...(["public", "private"] as const).map((kind): Row => ({
    operation: "PATCH /messages/{message_id}",
    scenario: `another's message ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "edit", kind), (channel) => ({
        path: `/messages/${channel.messageId}`,
        form: { content: "not mine" }
      })),
    expect: authenticated(eachRole((role) => reads(kind, role) ? notYourMessage : invalidMessages))
  })),
  // Edit typing: whoever may edit the content now (the sender, within the limit, without an edit's grace period).
  {
    operation: "POST /messages/{message_id}/typing",
    scenario: "its own message, just sent",
    request: (fixture, as) => Effect.map(ownMessage(fixture, as), (id) => ({ path: `/messages/${id}/typing`, form: { op: "start" } })),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "POST /messages/{message_id}/typing",
    scenario: "its own message, 601 s after sending (limit 600 s, no grace period)",
    request: (fixture, as) =>
      Effect.map(ownMessage(fixture, as), (id) => {
        fixture.server.clock.advance(601_000)
        return { path: `/messages/${id}/typing`, form: { op: "start" } }
      }),
    expect: authenticated(allRoles(refused("The time limit for editing this message has passed")))
  },
  {
    operation: "POST /messages/{message_id}/typing",
    scenario: "another's message on a channel it is subscribed to",
    request: (fixture) =>
      Effect.map(
        fixture.once("edit: another's", fixture.channel(["bystander", "owner", "admin", "moderator", "member", "guest", "bot"])),
        (channel) => ({ path: `/messages/${channel.messageId}/typing`, form: { op: "stop" } })
      ),
    expect: authenticated(allRoles(notYourMessage))
  },
  ...(["public", "private"] as const).map((kind): Row => ({
    operation: "POST /messages/{message_id}/typing",
    scenario: `another's message ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "edit typing", kind), (channel) => ({
        path: `/messages/${channel.messageId}/typing`,
        form: { op: "start" }
      })),
    expect: authenticated(eachRole((role) => reads(kind, role) ? notYourMessage : invalidMessages))
  })),
  // Topics are the organization's to rename (can_move_messages_between_topics_group: everyone, guests included).
  ...perKind((kind) => ({
    operation: "PATCH /messages/{message_id}",
    scenario: `moving another's message to a new topic ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.gen(function*() {
        const channel = yield* rowChannel(fixture, "move", kind)
        const sent = yield* fixture.call("bystander", "POST", "/messages", {
          form: { type: "stream", to: String(channel.id), topic: fixture.unique("before"), content: "moves" }
        })
        return { path: `/messages/${sent.id}`, form: { topic: fixture.unique("after") } }
      }),
    expect: byRole(kind, edited, invalidMessages)
  })),
  // Moves to another channel: the organization's can_move_messages_between_channels_group (role:members, so not
  // guests), from a channel to another both of which every principal is in.
  {
    operation: "PATCH /messages/{message_id}",
    scenario: "moving another's message to another channel it is subscribed to",
    request: (fixture) =>
      Effect.gen(function*() {
        const everyone = ["bystander", "owner", "admin", "moderator", "member", "guest", "bot"] as const
        const from = yield* fixture.once("move channel: from", fixture.channel(everyone))
        const to = yield* fixture.once("move channel: to", fixture.channel(everyone))
        const sent = yield* fixture.call("bystander", "POST", "/messages", {
          form: { type: "stream", to: String(from.id), topic: fixture.unique("leaving"), content: "moves" }
        })
        return { path: `/messages/${sent.id}`, form: { stream_id: String(to.id) } }
      }),
    expect: authenticated(eachRole((role) => role === "guest" ? refused("You don't have permission to move this message") : edited))
  },
  // The destination must be readable: a private channel the caller is not in is "Invalid channel ID" (administrators
  // included), a public one is refused only to guests, who cannot read it.
  ...(["public", "private"] as const).map((kind): Row => ({
    operation: "PATCH /messages/{message_id}",
    scenario: `moving another's message to a channel ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.gen(function*() {
        const destination = yield* rowChannel(fixture, "move to", kind)
        const everyone = ["bystander", "owner", "admin", "moderator", "member", "guest", "bot"] as const
        const from = yield* fixture.once("move channel: from", fixture.channel(everyone))
        const sent = yield* fixture.call("bystander", "POST", "/messages", {
          form: { type: "stream", to: String(from.id), topic: fixture.unique("leaving"), content: "moves" }
        })
        return { path: `/messages/${sent.id}`, form: { stream_id: String(destination.id) } }
      }),
    expect: authenticated(eachRole((role) => reads(kind, role) ? edited : invalidChannel))
  })),
  ...perKind((kind) => ({
    operation: "GET /messages/{message_id}/history",
    scenario: `of a message ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "history", kind), (channel) => ({
        path: `/messages/${channel.messageId}/history`,
        made: { message: channel.messageId }
      })),
    digest: (body) => ({ states: body.message_history.length }),
    expect: byRole(kind, ok(() => ({ states: 1 })), invalidMessages)
  })),
  ...perKind((kind) => ({
    operation: "POST /streams/{stream_id}/delete_topic",
    scenario: kindScenario[kind],
    // A topic of its own per case: the ones that succeed delete it.
    request: (fixture) =>
      Effect.gen(function*() {
        const channel = yield* rowChannel(fixture, "delete topic", kind)
        const topic = fixture.unique("doomed")
        yield* fixture.call(kind === "subscribed" ? "owner" : "bystander", "POST", "/messages", {
          form: { type: "stream", to: String(channel.id), topic, content: "to be deleted" }
        })
        return { path: `/streams/${channel.id}/delete_topic`, form: { topic_name: topic } }
      }),
    // require_realm_admin first; then an administrator needs content access to the channel.
    expect: authenticated({
      ...allRoles(administratorRequired),
      owner: kind === "private" ? refused("Invalid channel ID") : ok(() => ({ complete: true })),
      admin: kind === "private" ? refused("Invalid channel ID") : ok(() => ({ complete: true }))
    })
  })),
  // Every account may mark its own messages read; it changes only its own rows.
  {
    operation: "POST /mark_all_as_read",
    request: () => Effect.succeed({}),
    expect: authenticated(allRoles(success({ complete: true })))
  },
  // Zulip's access_stream_by_id: content access, so not a private channel one is not in (administrators
  // included), nor, for a guest, a public one it is not in.
  ...perKind((kind) => ({
    operation: "POST /mark_stream_as_read",
    scenario: kindScenario[kind],
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "mark channel read", kind), (channel) => ({ form: { stream_id: String(channel.id) } })),
    expect: byRole(kind, success(), invalidChannel)
  })),
  // Channel access first; then the topic must hold a message the caller received.
  ...perKind((kind) => ({
    operation: "POST /mark_topic_as_read",
    scenario: kindScenario[kind],
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "mark topic read", kind), (channel) => ({
        form: { stream_id: String(channel.id), topic_name: channel.topic },
        made: { topic: channel.topic }
      })),
    expect: byRole(
      kind,
      kind === "subscribed" ? success() : refusedWith((_f, _a, call) => `No such topic '${call.made!.topic}'`),
      invalidChannel
    )
  })),
  // Only messages the principal received count: a channel's message for its subscribers, never another channel's history.
  ...perKind((kind) => ({
    operation: "GET /messages/matches_narrow",
    scenario: `a message ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.gen(function*() {
        const channel = yield* rowChannel(fixture, "matches narrow", kind)
        const { message } = yield* fixture.call("bystander", "GET", `/messages/${channel.messageId}`, {})
        return {
          query: { msg_ids: JSON.stringify([channel.messageId]), narrow: "[]" },
          made: { id: channel.messageId, content: message.content, topic: channel.topic }
        }
      }),
    expect: byRole(
      kind,
      {
        status: 200,
        body: ((_fixture, _as, call) => ({
          result: "success",
          msg: "",
          messages: kind === "subscribed"
            ? { [call.made!.id]: { match_content: call.made!.content, match_subject: call.made!.topic } }
            : {}
        })) satisfies BodyOf
      },
      success({ messages: {} })
    )
  })),
  // Message access as GET /messages/{id}; nobody but its sender (never listed) has read the row's message.
  ...perKind((kind) => ({
    operation: "GET /messages/{message_id}/read_receipts",
    scenario: `of a message ${kindScenario[kind]}`,
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "read receipts", kind), (channel) => ({
        path: `/messages/${channel.messageId}/read_receipts`
      })),
    expect: byRole(kind, success({ user_ids: [] }), invalidMessages)
  })),
  ...perKind((kind) => ({
    operation: "POST /submessage",
    scenario: `a vote on a poll ${kindScenario[kind]}`,
    // A poll of its own per case, by the owner (subscribed) or the bystander: every reader may vote.
    request: (fixture) =>
      Effect.gen(function*() {
        const channel = yield* rowChannel(fixture, "submessage", kind)
        const poll = yield* fixture.call(kind === "subscribed" ? "owner" : "bystander", "POST", "/messages", {
          form: { type: "stream", to: String(channel.id), topic: fixture.unique("poll"), content: "/poll Q\nA" }
        })
        return {
          form: {
            message_id: String(poll.id),
            msg_type: "widget",
            content: JSON.stringify({ type: "vote", key: "canned,0", vote: 1 })
          }
        }
      }),
    expect: byRole(kind, ok(() => ({})), invalidMessages)
  })),
  {
    operation: "DELETE /messages/{message_id}",
    scenario: "of its own message, just sent",
    request: (fixture, as) => Effect.flatMap(deletionChannel(fixture), (channel) => deletable(fixture, as, channel)),
    expect: authenticated(allRoles(success()))
  },
  {
    operation: "DELETE /messages/{message_id}",
    scenario: "of someone else's message",
    request: (fixture) => Effect.flatMap(deletionChannel(fixture), (channel) => deletable(fixture, "bystander", channel)),
    expect: authenticated({ ...allRoles(cannotDelete), owner: success(), admin: success() })
  },
  {
    operation: "DELETE /messages/{message_id}",
    scenario: "of a message sent by the member's bot",
    request: (fixture) => Effect.flatMap(deletionChannel(fixture), (channel) => deletable(fixture, "bot", channel)),
    // The bot's own; its owner's through the bot; anyone else's only as an administrator.
    expect: authenticated({ ...allRoles(cannotDelete), owner: success(), admin: success(), member: success(), bot: success() })
  },
  {
    operation: "DELETE /messages/{message_id}",
    scenario: "of its own message, sent more than ten minutes ago",
    // Every role's message is sent at once, then the clock moves past the
    // limit once (it is shared by every row).
    request: (fixture, as) =>
      Effect.map(
        fixture.once(
          "delete: old messages",
          Effect.gen(function*() {
            const channel = yield* deletionChannel(fixture)
            const paths: Partial<Record<Account, { path: string }>> = {}
            for (const role of sendingRoles) paths[role] = yield* deletable(fixture, role, channel)
            fixture.server.clock.advance(601_000)
            return paths
          })
        ),
        (paths) => paths[as]!
      ),
    expect: authenticated({
      ...allRoles(refused("The time limit for deleting this message has passed")),
      owner: success(),
      admin: success()
    })
  },
  {
    operation: "DELETE /messages/{message_id}",
    scenario: "of a message on a private channel it is not in",
    request: (fixture) =>
      Effect.map(rowChannel(fixture, "delete", "private"), (channel) => ({ path: `/messages/${channel.messageId}` })),
    // Administrators too: a private channel's messages need a subscription.
    expect: authenticated(allRoles(invalidMessages))
  }
]
