/**
 * What every area of the messages contract shares: Zulip's bodies, the
 * demo's people and channels, the requests (send, read, list, flags,
 * delete_topic, register and drain) and the message shapes to compare with.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials, Reply } from "../Harness.ts"
import { accounts, Server } from "../Harness.ts"
import { userId } from "@teamchat/core/domain/Ids"
import type { UserId } from "@teamchat/core/domain/Ids"
import { RealmRepo } from "@teamchat/core/ports/Repositories"
import { Channels } from "@teamchat/core/services/Channels"
import { Users } from "@teamchat/core/services/Users"

export const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
export const badRequest = (msg: string, extra: object = {}) => ({ result: "error", msg, code: "BAD_REQUEST", ...extra })
export const badNarrow = (desc: string) => ({
  result: "error",
  msg: `Invalid narrow operator: ${desc}`,
  code: "BAD_NARROW",
  desc
})
export const invalidMessages = badRequest("Invalid message(s)")
export const notAdministrator = { result: "error", msg: "Must be an organization administrator", code: "UNAUTHORIZED_PRINCIPAL" }

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the `anchor` answered for `newest`. */
export const newestAnchor = 10_000_000_000_000_000

/** Events without their ids, for exact comparisons. */
export const bare = (events: ReadonlyArray<Record<string, unknown>>) => events.map(({ id: _id, ...rest }) => rest)

/** A message as GET /messages/{id} shows it, without the per-user `flags`. */
export const withoutFlags = ({ flags: _flags, ...rest }: Record<string, unknown>) => rest

export const mobileUserAgent = { "user-agent": "ZulipMobile/27.1 (Android)" }

/** Someone as message fields show them (from GET /users/me). */
export interface Person extends Credentials {
  readonly userId: number
  /** The API email (what `sender_email` and `display_recipient` carry). */
  readonly apiEmail: string
  readonly fullName: string
  readonly avatarUrl: string
}

export interface Channel {
  readonly id: number
  readonly name: string
}

export const person = (email: string) =>
  Effect.gen(function*() {
    const server = yield* Server
    const credentials = yield* server.login(email)
    const me = yield* server.fetch("GET", "/api/v1/users/me", { as: credentials })
    assert.strictEqual(me.status, 200, me.text)
    return {
      ...credentials,
      apiEmail: me.json.email as string,
      fullName: me.json.full_name as string,
      avatarUrl: me.json.avatar_url as string
    } satisfies Person
  })
export const as = (role: keyof typeof accounts) => person(accounts[role])

/** Every channel by name, with its id (GET /streams?include_all=true as an administrator). */
export const channels = Effect.gen(function*() {
  const server = yield* Server
  const iago = yield* server.login(accounts.admin)
  const reply = yield* server.fetch("GET", "/api/v1/streams", { as: iago, query: { include_all: "true" } })
  assert.strictEqual(reply.status, 200, reply.text)
  const out: Record<string, Channel & { readonly first_message_id: number | null }> = {}
  for (const s of reply.json.streams) out[s.name] = { id: s.stream_id, name: s.name, first_message_id: s.first_message_id }
  return out
})

/** Moves the shared clock on and returns the new time in seconds. */
export const tick = Effect.map(Server, (server) => {
  server.clock.advance(60_000)
  return Math.floor(server.clock.now() / 1000)
})

export const send = (who: Credentials, form: Record<string, string>, headers?: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/messages", { as: who, form, headers }))

/** POST /messages that must succeed: exactly `{"result":"success","msg":"","id":N}`. */
export const sent = (who: Credentials, form: Record<string, string>, headers?: Record<string, string>) =>
  Effect.map(send(who, form, headers), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    assert.deepStrictEqual(Object.keys(reply.json), ["result", "msg", "id"])
    assert.deepStrictEqual(reply.json, success({ id: reply.json.id }))
    assert.isTrue(Number.isInteger(reply.json.id) && reply.json.id > 0, reply.text)
    return reply.json.id as number
  })

export const getMessage = (who: Credentials, id: number | string, query?: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("GET", `/api/v1/messages/${id}`, { as: who, query }))

/** GET /messages/{id} that must succeed; returns `message`. */
export const read = (who: Credentials, id: number, query?: Record<string, string>) =>
  Effect.map(getMessage(who, id, query), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    return reply.json.message as Record<string, unknown>
  })

export const list = (who: Credentials, query: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("GET", "/api/v1/messages", { as: who, query }))

export const flags = (who: Credentials, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/messages/flags", { as: who, form }))

export const flagsNarrow = (who: Credentials, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/messages/flags/narrow", { as: who, form }))

export const deleteTopic = (who: Credentials, channelId: number, topic: string) =>
  Effect.flatMap(
    Server,
    (server) => server.fetch("POST", `/api/v1/streams/${channelId}/delete_topic`, { as: who, form: { topic_name: topic } })
  )

export const expectReply = (reply: Reply, status: number, body: object) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.deepStrictEqual(reply.json, body)
}

/** Registers a queue; returns its id and a drain of the events that arrived since the last drain. */
export const register = (who: Credentials, form: Record<string, string>) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("POST", "/api/v1/register", { as: who, form })
    assert.strictEqual(reply.status, 200, reply.text)
    const queueId = reply.json.queue_id as string
    let last = -1
    const drain = Effect.gen(function*() {
      const polled = yield* server.fetch("GET", "/api/v1/events", {
        as: who,
        query: { queue_id: queueId, last_event_id: String(last), dont_block: "true" }
      })
      assert.strictEqual(polled.status, 200, polled.text)
      const events = polled.json.events as Array<Record<string, unknown> & { id: number }>
      if (events.length > 0) last = events[events.length - 1]!.id
      return events
    })
    return { queueId, drain, reply }
  })

/** Marks every message of the user read and unstarred, so register state starts empty. */
export const resetFlags = (who: Credentials) =>
  Effect.gen(function*() {
    for (const [op, flag] of [["add", "read"], ["remove", "starred"]] as const) {
      const reply = yield* flagsNarrow(who, { anchor: "oldest", num_before: "0", num_after: "5000", narrow: "[]", op, flag })
      assert.strictEqual(reply.status, 200, reply.text)
      assert.isTrue(reply.json.found_newest, "more than 5000 messages")
    }
  })

/** The fields every channel message has, as Zulip sends them (`flags` added by the caller). */
export const channelMessage = (m: {
  readonly id: number
  readonly sender: Person
  readonly channel: Channel
  readonly subject: string
  readonly content: string
  readonly client: string
  readonly timestamp: number
  readonly recipient_id: unknown
}) => ({
  id: m.id,
  sender_id: m.sender.userId,
  sender_email: m.sender.apiEmail,
  sender_full_name: m.sender.fullName,
  sender_realm_str: "zulip",
  avatar_url: m.sender.avatarUrl,
  client: m.client,
  content: m.content,
  content_type: "text/html",
  display_recipient: m.channel.name,
  is_me_message: false,
  reactions: [],
  recipient_id: m.recipient_id,
  subject: m.subject,
  topic_links: [],
  submessages: [],
  timestamp: m.timestamp,
  type: "stream",
  stream_id: m.channel.id
})

export const directMessage = (m: {
  readonly id: number
  readonly sender: Person
  readonly participants: ReadonlyArray<Person>
  readonly content: string
  readonly client: string
  readonly timestamp: number
  readonly recipient_id: unknown
}) => ({
  id: m.id,
  sender_id: m.sender.userId,
  sender_email: m.sender.apiEmail,
  sender_full_name: m.sender.fullName,
  sender_realm_str: "zulip",
  avatar_url: m.sender.avatarUrl,
  client: m.client,
  content: m.content,
  content_type: "text/html",
  display_recipient: [...m.participants]
    .sort((a, b) => a.userId - b.userId)
    .map((p) => ({ id: p.userId, email: p.apiEmail, full_name: p.fullName, is_mirror_dummy: false })),
  is_me_message: false,
  reactions: [],
  recipient_id: m.recipient_id,
  subject: "",
  topic_links: [],
  submessages: [],
  timestamp: m.timestamp,
  type: "private"
})

/** A message's `recipient_id`: an integer that clients only compare. */
export const recipientOf = (message: Record<string, unknown>) => {
  assert.isTrue(Number.isInteger(message.recipient_id), `recipient_id ${String(message.recipient_id)}`)
  return message.recipient_id as number
}

export const narrowOf = (terms: ReadonlyArray<unknown>) => JSON.stringify(terms)

/** The one message GET /messages answers around its own id (no narrow), as `who` sees it. */
export const listedAlone = (who: Credentials, id: number, query: Record<string, string> = {}) =>
  Effect.map(list(who, { anchor: String(id), num_before: "0", num_after: "0", ...query }), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    assert.strictEqual(reply.json.messages.length, 1, reply.text)
    return reply.json.messages[0] as Record<string, unknown>
  })

/** POST /users/me/subscriptions that must succeed (a new name creates the channel). */
export const subscribe = (who: Credentials, names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
      as: who,
      form: { subscriptions: JSON.stringify(names.map((name) => ({ name }))) }
    })
    assert.strictEqual(reply.status, 200, reply.text)
  })

/** Creates a private channel for `members` (the first creates it) with the given history setting. */
export const privateChannel = (name: string, members: ReadonlyArray<Person>, historyPublic: boolean) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
      as: members[0]!,
      form: {
        subscriptions: JSON.stringify([{ name }]),
        principals: JSON.stringify(members.map((m) => m.userId)),
        invite_only: "true",
        history_public_to_subscribers: String(historyPublic)
      }
    })
    assert.strictEqual(reply.status, 200, reply.text)
  })

export const unsubscribe = (who: Credentials, names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
      as: who,
      form: { subscriptions: JSON.stringify(names) }
    })
    assert.strictEqual(reply.status, 200, reply.text)
  })

/** Mutes or unmutes a channel for `who` (POST /users/me/subscriptions/properties). */
export const setMuted = (who: Credentials, channelId: number, muted: boolean) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("POST", "/api/v1/users/me/subscriptions/properties", {
      as: who,
      form: { subscription_data: JSON.stringify([{ stream_id: channelId, property: "is_muted", value: muted }]) }
    })
    expectReply(reply, 200, success())
  })

/**
 * Two members and a channel of a test's own, made through the core (the
 * server is shared with the other tests), the members and `iago`
 * subscribed: the channel's id, and each member's id and credentials.
 */
export const ownChannel = (
  iago: Credentials & { readonly userId: number },
  members: readonly [readonly [email: string, fullName: string], readonly [email: string, fullName: string]],
  channel: { readonly name: string; readonly invite_only?: boolean; readonly history_public_to_subscribers?: boolean }
) =>
  Effect.gen(function*() {
    const server = yield* Server
    const made = yield* server.core(Effect.gen(function*() {
      const realm = (yield* (yield* RealmRepo).findByStringId("zulip"))!
      const users = yield* Users
      const ids: Array<UserId> = []
      for (const [email, full_name] of members) ids.push((yield* users.create(realm.id, { email, full_name, role: 400 })).id)
      const channels = yield* Channels
      const created = yield* channels.create(realm.id, channel)
      yield* channels.subscribe(created.id, [...ids, userId(iago.userId)])
      return { channel: created.id, ids }
    }))
    const [first, second] = [yield* server.login(members[0][0]), yield* server.login(members[1][0])]
    return { channel: made.channel, members: [{ id: made.ids[0]!, as: first }, { id: made.ids[1]!, as: second }] as const }
  })

/** The topic's messages as `who` sees them: [id, sender_id, raw content]. */
export const topicMessages = (who: Credentials, channel: number, topic: string) =>
  Effect.map(
    list(who, {
      anchor: "oldest",
      num_before: "0",
      num_after: "100",
      apply_markdown: "false",
      narrow: narrowOf([{ operator: "channel", operand: channel }, { operator: "topic", operand: topic }])
    }),
    (reply) => {
      assert.strictEqual(reply.status, 200, reply.text)
      return (reply.json.messages as Array<{ id: number; sender_id: number; content: string }>)
        .map((m) => [m.id, m.sender_id, m.content] as const)
    }
  )

/** The Notification Bot's user id, as `who` looks it up. */
export const notificationBotId = (who: Credentials) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("GET", "/api/v1/users/notification-bot@zulip.com", { as: who })
    assert.strictEqual(reply.status, 200, reply.text)
    return reply.json.user.user_id as number
  })
