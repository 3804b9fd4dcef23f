/**
 * Messages over the wire, written once and run on every core backend:
 * POST /messages, GET /messages, GET /messages/{id}, POST /messages/flags,
 * POST /messages/flags/narrow, POST /streams/{stream_id}/delete_topic, the
 * message-dependent parts of POST /register and GET /users/me, and the
 * `message`, `update_message_flags`, `delete_message` and `stream` events.
 *
 * Bodies are compared whole with Zulip's. One server per backend is shared
 * by the tests, so every test uses its own topics (or its own channel) and
 * reads through narrows; the harness clock is shared too, so each test moves
 * it forward and computes its timestamps from it.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Backend, Credentials, Reply } from "./Harness.ts"
import { accounts, demoLayer, layerServer, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const badRequest = (msg: string, extra: object = {}) => ({ result: "error", msg, code: "BAD_REQUEST", ...extra })
const badNarrow = (desc: string) => ({
  result: "error",
  msg: `Invalid narrow operator: ${desc}`,
  code: "BAD_NARROW",
  desc
})
const invalidMessages = badRequest("Invalid message(s)")
const notAdministrator = { result: "error", msg: "Must be an organization administrator", code: "UNAUTHORIZED_PRINCIPAL" }

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the `anchor` answered for `newest`. */
const newestAnchor = 10_000_000_000_000_000

/** Events without their ids, for exact comparisons. */
const bare = (events: ReadonlyArray<Record<string, unknown>>) => events.map(({ id: _id, ...rest }) => rest)

/** A message as GET /messages/{id} shows it, without the per-user `flags`. */
const withoutFlags = ({ flags: _flags, ...rest }: Record<string, unknown>) => rest

const mobileUserAgent = { "user-agent": "ZulipMobile/27.1 (Android)" }

/** Someone as message fields show them (from GET /users/me). */
interface Person extends Credentials {
  readonly userId: number
  /** The API email (what `sender_email` and `display_recipient` carry). */
  readonly apiEmail: string
  readonly fullName: string
  readonly avatarUrl: string
}

interface Channel {
  readonly id: number
  readonly name: string
}

export const messagesContract = (backend: Backend) =>
  describe(`messages over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "180 seconds" })((it) => {
      const person = (email: string) =>
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
      const as = (role: keyof typeof accounts) => person(accounts[role])

      /** Every channel by name, with its id (GET /streams?include_all=true as an administrator). */
      const channels = Effect.gen(function*() {
        const server = yield* Server
        const iago = yield* server.login(accounts.admin)
        const reply = yield* server.fetch("GET", "/api/v1/streams", { as: iago, query: { include_all: "true" } })
        assert.strictEqual(reply.status, 200, reply.text)
        const out: Record<string, Channel & { readonly first_message_id: number | null }> = {}
        for (const s of reply.json.streams) out[s.name] = { id: s.stream_id, name: s.name, first_message_id: s.first_message_id }
        return out
      })

      /** Moves the shared clock on and returns the new time in seconds. */
      const tick = Effect.map(Server, (server) => {
        server.clock.advance(60_000)
        return Math.floor(server.clock.now() / 1000)
      })

      const send = (who: Credentials, form: Record<string, string>, headers?: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/messages", { as: who, form, headers }))

      /** POST /messages that must succeed: exactly `{"result":"success","msg":"","id":N}`. */
      const sent = (who: Credentials, form: Record<string, string>, headers?: Record<string, string>) =>
        Effect.map(send(who, form, headers), (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          assert.deepStrictEqual(Object.keys(reply.json), ["result", "msg", "id"])
          assert.deepStrictEqual(reply.json, success({ id: reply.json.id }))
          assert.isTrue(Number.isInteger(reply.json.id) && reply.json.id > 0, reply.text)
          return reply.json.id as number
        })

      const getMessage = (who: Credentials, id: number | string, query?: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("GET", `/api/v1/messages/${id}`, { as: who, query }))

      /** GET /messages/{id} that must succeed; returns `message`. */
      const read = (who: Credentials, id: number, query?: Record<string, string>) =>
        Effect.map(getMessage(who, id, query), (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json.message as Record<string, unknown>
        })

      const list = (who: Credentials, query: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("GET", "/api/v1/messages", { as: who, query }))

      const flags = (who: Credentials, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/messages/flags", { as: who, form }))

      const flagsNarrow = (who: Credentials, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/messages/flags/narrow", { as: who, form }))

      const deleteTopic = (who: Credentials, channelId: number, topic: string) =>
        Effect.flatMap(
          Server,
          (server) => server.fetch("POST", `/api/v1/streams/${channelId}/delete_topic`, { as: who, form: { topic_name: topic } })
        )

      const expectReply = (reply: Reply, status: number, body: object) => {
        assert.strictEqual(reply.status, status, reply.text)
        assert.deepStrictEqual(reply.json, body)
      }

      /** Registers a queue; returns its id and a drain of the events that arrived since the last drain. */
      const register = (who: Credentials, form: Record<string, string>) =>
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
      const resetFlags = (who: Credentials) =>
        Effect.gen(function*() {
          for (const [op, flag] of [["add", "read"], ["remove", "starred"]] as const) {
            const reply = yield* flagsNarrow(who, { anchor: "oldest", num_before: "0", num_after: "5000", narrow: "[]", op, flag })
            assert.strictEqual(reply.status, 200, reply.text)
            assert.isTrue(reply.json.found_newest, "more than 5000 messages")
          }
        })

      /** The fields every channel message has, as Zulip sends them (`flags` added by the caller). */
      const channelMessage = (m: {
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

      const directMessage = (m: {
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
      const recipientOf = (message: Record<string, unknown>) => {
        assert.isTrue(Number.isInteger(message.recipient_id), `recipient_id ${String(message.recipient_id)}`)
        return message.recipient_id as number
      }

      const narrowOf = (terms: ReadonlyArray<unknown>) => JSON.stringify(terms)

      /** The one message GET /messages answers around its own id (no narrow), as `who` sees it. */
      const listedAlone = (who: Credentials, id: number, query: Record<string, string> = {}) =>
        Effect.map(list(who, { anchor: String(id), num_before: "0", num_after: "0", ...query }), (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          assert.strictEqual(reply.json.messages.length, 1, reply.text)
          return reply.json.messages[0] as Record<string, unknown>
        })

      /** POST /users/me/subscriptions that must succeed (a new name creates the channel). */
      const subscribe = (who: Credentials, names: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: who,
            form: { subscriptions: JSON.stringify(names.map((name) => ({ name }))) }
          })
          assert.strictEqual(reply.status, 200, reply.text)
        })

      const unsubscribe = (who: Credentials, names: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
            as: who,
            form: { subscriptions: JSON.stringify(names) }
          })
          assert.strictEqual(reply.status, 200, reply.text)
        })

      /** Mutes or unmutes a channel for `who` (POST /users/me/subscriptions/properties). */
      const setMuted = (who: Credentials, channelId: number, muted: boolean) =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("POST", "/api/v1/users/me/subscriptions/properties", {
            as: who,
            form: { subscription_data: JSON.stringify([{ stream_id: channelId, property: "is_muted", value: muted }]) }
          })
          expectReply(reply, 200, success())
        })

      // -----------------------------------------------------------------------
      // The demo organization

      it.effect("the demo's channel subscriptions follow populate_db's rule", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const expected: Record<string, ReadonlyArray<string>> = {
            "desdemona@zulip.com": ["Denmark", "Scotland", "Verona"],
            "iago@zulip.com": ["Denmark", "Scotland", "Venice", "Verona"],
            "shiva@zulip.com": ["Denmark", "Rome", "Scotland", "Venice", "Verona", "core team", "sandbox"],
            "hamlet@zulip.com": ["Denmark", "Scotland", "Verona"],
            "polonius@zulip.com": ["Denmark", "Rome", "Scotland", "Venice", "Verona"],
            "default-bot@zulip.com": [],
            "cordelia@zulip.com": ["Denmark", "Verona"],
            "othello@zulip.com": ["Denmark", "Rome", "Scotland", "Venice", "Verona"],
            "prospero@zulip.com": ["Denmark", "Rome", "Scotland", "Venice", "Verona", "core team"],
            "ZOE@zulip.com": ["Verona"]
          }
          for (const [email, names] of Object.entries(expected)) {
            const who = yield* server.login(email)
            const reply = yield* server.fetch("GET", "/api/v1/users/me/subscriptions", { as: who })
            assert.strictEqual(reply.status, 200, reply.text)
            assert.deepStrictEqual(reply.json.subscriptions.map((s: { name: string }) => s.name).sort(), names, email)
          }
        }))

      // -----------------------------------------------------------------------
      // POST /messages and GET /messages/{id}

      it.effect("POST /messages to a channel by id, by name and as a one-element list; GET /messages/{id} reads each back", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const { Denmark: denmark } = yield* channels
          const timestamp = yield* tick

          const byId = yield* sent(hamlet, {
            type: "stream",
            to: String(denmark.id),
            topic: "send by id",
            content: "hello"
          }, mobileUserAgent)
          const byName = yield* sent(hamlet, { type: "channel", to: "Denmark", topic: "send by name", content: "hello" })
          const byList = yield* sent(hamlet, {
            type: "channel",
            to: JSON.stringify([denmark.id]),
            topic: "send by list",
            content: "**bold** hello"
          })

          const first = yield* getMessage(hamlet, byId)
          assert.strictEqual(first.status, 200, first.text)
          const recipientId = recipientOf(first.json.message)
          const common = { sender: hamlet, channel: denmark, timestamp, recipient_id: recipientId }
          // The mobile app is a full client: its message starts read for its sender.
          assert.deepStrictEqual(first.json, success({
            message: {
              ...channelMessage({ ...common, id: byId, subject: "send by id", content: "<p>hello</p>", client: "ZulipMobile" }),
              flags: ["read"]
            },
            raw_content: "hello"
          }))
          // Without a User-Agent the client is "API", whose messages stay unread for the sender.
          expectReply(
            yield* getMessage(hamlet, byName),
            200,
            success({
              message: {
                ...channelMessage({ ...common, id: byName, subject: "send by name", content: "<p>hello</p>", client: "API" }),
                flags: []
              },
              raw_content: "hello"
            })
          )
          const listed = {
            ...channelMessage({
              ...common,
              id: byList,
              subject: "send by list",
              content: "<p><strong>bold</strong> hello</p>",
              client: "API"
            }),
            flags: []
          }
          expectReply(yield* getMessage(hamlet, byList), 200, success({ message: listed, raw_content: "**bold** hello" }))
          // Another subscriber reads the same message with their own (unread) flags.
          expectReply(yield* getMessage(iago, byList), 200, success({ message: listed, raw_content: "**bold** hello" }))
          // apply_markdown=false gives the source.
          expectReply(
            yield* getMessage(iago, byList, { apply_markdown: "false" }),
            200,
            success({
              message: { ...listed, content: "**bold** hello", content_type: "text/x-markdown" },
              raw_content: "**bold** hello"
            })
          )
        }))

      it.effect("POST /messages: direct messages by ids and by emails, group and self; display_recipient lists everyone by id", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const othello = yield* person("othello@zulip.com")
          const cordelia = yield* person("cordelia@zulip.com")
          const timestamp = yield* tick
          // The empty `subject` of direct messages is read with allow_empty_topic_name=true here (see the report).
          const query = { allow_empty_topic_name: "true" }

          const byIds = yield* sent(hamlet, { type: "direct", to: JSON.stringify([iago.userId]), content: "dm by id" })
          const byEmails = yield* sent(hamlet, { type: "private", to: JSON.stringify([iago.apiEmail]), content: "dm by email" })
          const group = yield* sent(hamlet, {
            type: "direct",
            to: JSON.stringify([othello.userId, iago.userId]),
            content: "group dm"
          }, mobileUserAgent)
          const self = yield* sent(hamlet, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "note to self" })

          const one = yield* read(hamlet, byIds, query)
          const pair = recipientOf(one)
          const expectedByIds = directMessage({
            id: byIds,
            sender: hamlet,
            participants: [hamlet, iago],
            content: "<p>dm by id</p>",
            client: "API",
            timestamp,
            recipient_id: pair
          })
          assert.deepStrictEqual(one, { ...expectedByIds, flags: [] })
          assert.deepStrictEqual(yield* read(iago, byIds, query), { ...expectedByIds, flags: [] })
          // The same conversation, whichever way it was addressed.
          expectReply(
            yield* getMessage(iago, byEmails, query),
            200,
            success({
              message: {
                ...directMessage({
                  id: byEmails,
                  sender: hamlet,
                  participants: [iago, hamlet],
                  content: "<p>dm by email</p>",
                  client: "API",
                  timestamp,
                  recipient_id: pair
                }),
                flags: []
              },
              raw_content: "dm by email"
            })
          )

          const groupMessage = yield* read(othello, group, query)
          const groupRecipient = recipientOf(groupMessage)
          assert.notStrictEqual(groupRecipient, pair)
          const expectedGroup = directMessage({
            id: group,
            sender: hamlet,
            participants: [othello, hamlet, iago],
            content: "<p>group dm</p>",
            client: "ZulipMobile",
            timestamp,
            recipient_id: groupRecipient
          })
          assert.deepStrictEqual(groupMessage, { ...expectedGroup, flags: [] })
          assert.deepStrictEqual(yield* read(hamlet, group, query), { ...expectedGroup, flags: ["read"] })

          const selfMessage = yield* read(hamlet, self, query)
          const selfRecipient = recipientOf(selfMessage)
          assert.notStrictEqual(selfRecipient, pair)
          assert.notStrictEqual(selfRecipient, groupRecipient)
          assert.deepStrictEqual(selfMessage, {
            ...directMessage({
              id: self,
              sender: hamlet,
              participants: [hamlet],
              content: "<p>note to self</p>",
              client: "API",
              timestamp,
              recipient_id: selfRecipient
            }),
            flags: []
          })

          // Nobody outside a conversation reads it.
          for (const id of [byIds, byEmails, group, self]) expectReply(yield* getMessage(cordelia, id), 400, invalidMessages)
          expectReply(yield* getMessage(othello, byIds), 400, invalidMessages)
        }))

      it.effect("POST /messages: Zulip's errors, exactly", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const polonius = yield* as("guest")
          const cases: ReadonlyArray<readonly [Credentials, Record<string, string>, object]> = [
            [hamlet, { type: "stream", to: "999", topic: "errors", content: "x" }, {
              result: "error",
              msg: "Channel with ID '999' does not exist",
              code: "STREAM_DOES_NOT_EXIST",
              stream_id: 999
            }],
            [hamlet, { type: "channel", to: "Nowhere", topic: "errors", content: "x" }, {
              result: "error",
              msg: "Channel 'Nowhere' does not exist",
              code: "STREAM_DOES_NOT_EXIST",
              stream: "Nowhere"
            }],
            [hamlet, { type: "stream", to: "Verona", content: "x" }, badRequest("Missing topic")],
            // The topic is checked before the channel is looked up.
            [hamlet, { type: "stream", to: "Nowhere", content: "x" }, badRequest("Missing topic")],
            [hamlet, { type: "channel", to: "Nowhere", content: "x" }, badRequest("Missing topic")],
            [hamlet, { type: "stream", to: "Verona", topic: "errors", content: "" }, badRequest("Message must not be empty")],
            [hamlet, { type: "stream", to: "Verona", topic: "errors", content: "  \n " }, badRequest("Message must not be empty")],
            [hamlet, { type: "direct", to: "[9999]", content: "x" }, badRequest("Invalid user ID 9999")],
            [hamlet, { type: "bogus", to: "Verona", topic: "errors", content: "x" }, badRequest("Invalid type")],
            [hamlet, { type: "stream", to: "Verona", topic: "errors", subject: "errors", content: "x" }, {
              result: "error",
              msg: "Can't decide between 'topic' and 'subject' arguments",
              code: "REQUEST_CONFUSING_VAR",
              var_name1: "topic",
              var_name2: "subject"
            }],
            [hamlet, { type: "stream", topic: "errors", content: "x" }, {
              result: "error",
              msg: "Missing 'to' argument",
              code: "REQUEST_VARIABLE_MISSING",
              var_name: "to"
            }],
            [hamlet, { type: "stream", to: "Verona", topic: "errors" }, {
              result: "error",
              msg: "Missing 'content' argument",
              code: "REQUEST_VARIABLE_MISSING",
              var_name: "content"
            }],
            // A private channel one is not subscribed to, even as an administrator.
            [iago, { type: "stream", to: "core team", topic: "errors", content: "x" }, badRequest("Not authorized to send to channel 'core team'")],
            // A guest may post only where subscribed, public channels included.
            [polonius, { type: "stream", to: "sandbox", topic: "errors", content: "x" }, badRequest("Not authorized to send to channel 'sandbox'")]
          ]
          for (const [who, form, body] of cases) expectReply(yield* send(who, form), 400, body)
          // None of them was stored: the narrow of their topic is empty.
          const after = yield* list(iago, {
            anchor: "newest",
            num_before: "10",
            num_after: "0",
            narrow: narrowOf([["channels", "public"], ["topic", "errors"]])
          })
          assert.deepStrictEqual(after.json.messages, [])
        }))

      it.effect("POST /messages to Verona as every role succeeds; a guest may post where subscribed; the bot needs no subscription", () =>
        Effect.gen(function*() {
          const { Verona: verona } = yield* channels
          const iago = yield* as("admin")
          const timestamp = yield* tick
          const ids: Array<number> = []
          for (const role of Object.keys(accounts) as Array<keyof typeof accounts>) {
            const who = yield* as(role)
            const id = yield* sent(who, { type: "stream", to: "Verona", topic: "every role", content: `from the ${role}` })
            ids.push(id)
            const message = yield* read(iago, id)
            assert.deepStrictEqual(withoutFlags(message), channelMessage({
              id,
              sender: who,
              channel: verona,
              subject: "every role",
              content: `<p>from the ${role}</p>`,
              client: "API",
              timestamp,
              recipient_id: recipientOf(message)
            }), role)
          }
          // Everyone's message is in the topic, in order.
          const topic = yield* list(iago, {
            anchor: "oldest",
            num_before: "0",
            num_after: "100",
            narrow: narrowOf([["channel", "Verona"], ["topic", "every role"]])
          })
          assert.deepStrictEqual(topic.json.messages.map((m: { id: number }) => m.id), ids)
          // The moderator may post to the private channel they are in.
          const shiva = yield* as("moderator")
          yield* sent(shiva, { type: "stream", to: "core team", topic: "every role", content: "inside" })
        }))

      it.effect("POST /messages: the empty topic's names are stored as \"\"; GET shows \"general chat\" unless allow_empty_topic_name", () =>
        Effect.gen(function*() {
          const shiva = yield* as("moderator")
          const { sandbox } = yield* channels
          const timestamp = yield* tick
          const ids: Array<number> = []
          for (const topic of ["(no topic)", "general chat", "", "  "]) {
            ids.push(yield* sent(shiva, { type: "stream", to: "sandbox", topic, content: `empty topic ${ids.length + 1}` }))
          }
          for (const [i, id] of ids.entries()) {
            const message = yield* read(shiva, id)
            const expected = channelMessage({
              id,
              sender: shiva,
              channel: sandbox,
              subject: "general chat",
              content: `<p>empty topic ${i + 1}</p>`,
              client: "API",
              timestamp,
              recipient_id: recipientOf(message)
            })
            assert.deepStrictEqual(message, { ...expected, flags: [] })
            assert.deepStrictEqual(yield* read(shiva, id, { allow_empty_topic_name: "true" }), { ...expected, subject: "", flags: [] })
          }
          // One topic: every name of it narrows to all four.
          for (const topic of ["", "general chat"]) {
            const reply = yield* list(shiva, {
              anchor: "oldest",
              num_before: "0",
              num_after: "100",
              narrow: narrowOf([["channel", "sandbox"], ["topic", topic]]),
              allow_empty_topic_name: "true"
            })
            assert.strictEqual(reply.status, 200, reply.text)
            assert.deepStrictEqual(reply.json.messages.map((m: { id: number }) => m.id), ids, topic)
            assert.deepStrictEqual(reply.json.messages.map((m: { subject: string }) => m.subject), ["", "", "", ""])
          }
        }))

      it.effect("direct messages have subject \"\" in GET /messages, GET /messages/{id} and message events; the empty topic reads \"general chat\" there", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const { Denmark: denmark } = yield* channels
          const events = JSON.stringify(["message"])
          const legacy = yield* register(hamlet, { event_types: events, apply_markdown: "true", client_gravatar: "false" })
          const modern = yield* register(hamlet, {
            event_types: events,
            apply_markdown: "true",
            client_gravatar: "false",
            client_capabilities: JSON.stringify({ empty_topic_name: true })
          })
          const timestamp = yield* tick
          const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "no subject here" })
          const general = yield* sent(iago, { type: "stream", to: "Denmark", topic: "", content: "said in general chat" })

          const dmView = directMessage({
            id: dm,
            sender: iago,
            participants: [iago, hamlet],
            content: "<p>no subject here</p>",
            client: "API",
            timestamp,
            recipient_id: recipientOf(yield* read(hamlet, dm))
          })
          const generalView = channelMessage({
            id: general,
            sender: iago,
            channel: denmark,
            subject: "general chat",
            content: "<p>said in general chat</p>",
            client: "API",
            timestamp,
            recipient_id: recipientOf(yield* read(hamlet, general))
          })
          // GET /messages/{id} without allow_empty_topic_name.
          expectReply(yield* getMessage(hamlet, dm), 200, success({ message: { ...dmView, flags: [] }, raw_content: "no subject here" }))
          expectReply(
            yield* getMessage(hamlet, general),
            200,
            success({ message: { ...generalView, flags: [] }, raw_content: "said in general chat" })
          )
          // GET /messages, without and with allow_empty_topic_name.
          assert.deepStrictEqual(yield* listedAlone(hamlet, dm), { ...dmView, flags: [] })
          assert.deepStrictEqual(yield* listedAlone(hamlet, general), { ...generalView, flags: [] })
          assert.deepStrictEqual(yield* listedAlone(hamlet, dm, { allow_empty_topic_name: "true" }), { ...dmView, flags: [] })
          assert.deepStrictEqual(
            yield* listedAlone(hamlet, general, { allow_empty_topic_name: "true" }),
            { ...generalView, subject: "", flags: [] }
          )
          // message events: without the empty_topic_name capability only the channel message is renamed.
          assert.deepStrictEqual(bare(yield* legacy.drain), [
            { type: "message", message: dmView, flags: [] },
            { type: "message", message: generalView, flags: [] }
          ])
          assert.deepStrictEqual(bare(yield* modern.drain), [
            { type: "message", message: dmView, flags: [] },
            { type: "message", message: { ...generalView, subject: "" }, flags: [] }
          ])
        }))

      it.effect("POST /messages: a note to self from the mobile app starts read for its sender", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const queue = yield* register(hamlet, {
            event_types: JSON.stringify(["message"]),
            apply_markdown: "true",
            client_gravatar: "false"
          })
          const timestamp = yield* tick
          const note = yield* sent(hamlet, {
            type: "direct",
            to: JSON.stringify([hamlet.userId]),
            content: "note from my phone"
          }, mobileUserAgent)
          const message = yield* read(hamlet, note)
          const expected = directMessage({
            id: note,
            sender: hamlet,
            participants: [hamlet],
            content: "<p>note from my phone</p>",
            client: "ZulipMobile",
            timestamp,
            recipient_id: recipientOf(message)
          })
          assert.deepStrictEqual(message, { ...expected, flags: ["read"] })
          assert.deepStrictEqual(yield* listedAlone(hamlet, note), { ...expected, flags: ["read"] })
          assert.deepStrictEqual(bare(yield* queue.drain), [{ type: "message", message: expected, flags: ["read"] }])
        }))

      it.effect("POST /messages: a direct message to a real address hidden from the sender is an invalid email; the API email works", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          // The demo shows real addresses to administrators only: hamlet sees iago's API email.
          const users = yield* server.fetch("GET", "/api/v1/users", { as: hamlet })
          assert.strictEqual(users.status, 200, users.text)
          const listed = (users.json.members as Array<{ user_id: number; email: string }>).find((u) => u.user_id === iago.userId)
          assert.isDefined(listed)
          const apiEmail = listed!.email
          assert.match(apiEmail, /^user[0-9]+@zulipdev\.com$/)
          assert.strictEqual(apiEmail, iago.apiEmail)

          for (const to of [JSON.stringify(["iago@zulip.com"]), "iago@zulip.com"]) {
            expectReply(
              yield* send(hamlet, { type: "direct", to, content: "to a hidden address" }),
              400,
              badRequest("Invalid email 'iago@zulip.com'")
            )
          }
          const dm = yield* sent(hamlet, { type: "direct", to: JSON.stringify([apiEmail]), content: "to the API address" })
          const message = yield* read(iago, dm, { allow_empty_topic_name: "true" })
          assert.deepStrictEqual(
            (message.display_recipient as Array<{ id: number }>).map((p) => p.id),
            [hamlet.userId, iago.userId].sort((a, b) => a - b)
          )
          assert.strictEqual(message.content, "<p>to the API address</p>")
        }))

      it.effect("mentions: @**King Hamlet** flags hamlet's copy \"mentioned\", nobody else's; a silent mention flags nothing", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const cordelia = yield* person("cordelia@zulip.com")
          const mention = yield* sent(iago, { type: "stream", to: "Denmark", topic: "mentions", content: "hi @**King Hamlet**" })
          const silent = yield* sent(iago, { type: "stream", to: "Denmark", topic: "mentions", content: "hi @_**King Hamlet**" })
          const page = yield* list(hamlet, {
            anchor: "oldest",
            num_before: "0",
            num_after: "10",
            narrow: narrowOf([["channel", "Denmark"], ["topic", "mentions"]])
          })
          assert.strictEqual(page.status, 200, page.text)
          assert.deepStrictEqual(
            page.json.messages.map((m: Record<string, unknown>) => [m.id, m.content, m.flags]),
            [
              [mention, `<p>hi <span class="user-mention" data-user-id="${hamlet.userId}">@King Hamlet</span></p>`, ["mentioned"]],
              [silent, `<p>hi <span class="user-mention silent" data-user-id="${hamlet.userId}">King Hamlet</span></p>`, []]
            ]
          )
          for (const other of [iago, cordelia]) {
            assert.deepStrictEqual((yield* read(other, mention)).flags, [], other.email)
            assert.deepStrictEqual((yield* read(other, silent)).flags, [], other.email)
          }
          // is:mentioned finds the mention only.
          const mentioned = yield* list(hamlet, {
            anchor: "newest",
            num_before: "5",
            num_after: "0",
            narrow: narrowOf([["is", "mentioned"], ["topic", "mentions"]])
          })
          assert.deepStrictEqual(mentioned.json.messages.map((m: { id: number }) => m.id), [mention])
        }))

      // -----------------------------------------------------------------------
      // GET /messages

      it.effect("GET /messages: anchors newest, oldest, an id, first_unread; include_anchor=false; found_* flags", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const ids: Array<number> = []
          for (let i = 1; i <= 5; i++) {
            ids.push(yield* sent(iago, { type: "stream", to: "Scotland", topic: "anchors", content: `message ${i}` }))
          }
          const narrow = narrowOf([["channel", "Scotland"], ["topic", "anchors"]])
          const views: Array<Record<string, unknown>> = []
          for (const id of ids) views.push(yield* read(hamlet, id))
          const page = (
            anchor: number,
            found: { anchor: boolean; oldest: boolean; newest: boolean },
            picked: ReadonlyArray<number>
          ) =>
            success({
              anchor,
              found_anchor: found.anchor,
              found_oldest: found.oldest,
              found_newest: found.newest,
              history_limited: false,
              messages: picked.map((i) => views[i])
            })
          const get = (query: Record<string, string>) => list(hamlet, { narrow, ...query })

          expectReply(
            yield* get({ anchor: "newest", num_before: "3", num_after: "0" }),
            200,
            page(newestAnchor, { anchor: false, oldest: false, newest: true }, [2, 3, 4])
          )
          expectReply(
            yield* get({ anchor: "newest", num_before: "100", num_after: "0" }),
            200,
            page(newestAnchor, { anchor: false, oldest: true, newest: true }, [0, 1, 2, 3, 4])
          )
          expectReply(
            yield* get({ anchor: "oldest", num_before: "0", num_after: "2" }),
            200,
            page(0, { anchor: false, oldest: true, newest: false }, [0, 1])
          )
          expectReply(
            yield* get({ anchor: String(ids[2]), num_before: "1", num_after: "1" }),
            200,
            page(ids[2]!, { anchor: true, oldest: false, newest: false }, [1, 2, 3])
          )
          expectReply(
            yield* get({ anchor: String(ids[2]), num_before: "5", num_after: "5" }),
            200,
            page(ids[2]!, { anchor: true, oldest: true, newest: true }, [0, 1, 2, 3, 4])
          )
          expectReply(
            yield* get({ anchor: String(ids[2]), include_anchor: "false", num_before: "2", num_after: "0" }),
            200,
            page(ids[2]!, { anchor: false, oldest: false, newest: false }, [0, 1])
          )
          expectReply(
            yield* get({ anchor: String(ids[2]), include_anchor: "false", num_before: "0", num_after: "5" }),
            200,
            page(ids[2]!, { anchor: false, oldest: false, newest: true }, [3, 4])
          )
          expectReply(
            yield* get({ anchor: String(ids[2]), include_anchor: "false", num_before: "1", num_after: "1" }),
            400,
            badRequest("The anchor can only be excluded at an end of the range")
          )

          // first_unread: hamlet reads the first two.
          expectReply(
            yield* flags(hamlet, { messages: JSON.stringify([ids[0], ids[1]]), op: "add", flag: "read" }),
            200,
            success({ messages: [ids[0], ids[1]] })
          )
          const read2 = (i: number) => ({ ...views[i], flags: ["read"] })
          const afterRead = (picked: ReadonlyArray<number>) => picked.map((i) => (i < 2 ? read2(i) : views[i]))
          const firstUnread = success({
            anchor: ids[2],
            found_anchor: true,
            found_oldest: false,
            found_newest: true,
            history_limited: false,
            messages: afterRead([1, 2, 3, 4])
          })
          expectReply(yield* get({ anchor: "first_unread", num_before: "1", num_after: "10" }), 200, firstUnread)
          // The legacy spelling, without anchor.
          expectReply(yield* get({ use_first_unread_anchor: "true", num_before: "1", num_after: "10" }), 200, firstUnread)
          // Nothing unread: first_unread is after everything.
          expectReply(
            yield* flags(hamlet, { messages: JSON.stringify(ids.slice(2)), op: "add", flag: "read" }),
            200,
            success({ messages: ids.slice(2) })
          )
          expectReply(
            yield* get({ anchor: "first_unread", num_before: "2", num_after: "2" }),
            200,
            success({
              anchor: newestAnchor,
              found_anchor: false,
              found_oldest: false,
              found_newest: true,
              history_limited: false,
              messages: [3, 4].map(read2)
            })
          )
          // An anchor outside the narrow (just before its first message): nothing before it.
          expectReply(
            yield* get({ anchor: String(ids[0]! - 1), num_before: "1", num_after: "1" }),
            200,
            success({
              anchor: ids[0]! - 1,
              found_anchor: false,
              found_oldest: true,
              found_newest: false,
              history_limited: false,
              messages: [read2(0)]
            })
          )
        }))

      it.effect("GET /messages: anchor=0 with use_first_unread_anchor=true (zulip-terminal) anchors at the first unread", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const ids: Array<number> = []
          for (let i = 1; i <= 3; i++) {
            ids.push(yield* sent(iago, { type: "stream", to: "Scotland", topic: "terminal anchor", content: `terminal ${i}` }))
          }
          const narrow = narrowOf([["channel", "Scotland"], ["topic", "terminal anchor"]])
          const views: Array<Record<string, unknown>> = []
          for (const id of ids) views.push(yield* read(hamlet, id))
          expectReply(
            yield* flags(hamlet, { messages: JSON.stringify([ids[0]]), op: "add", flag: "read" }),
            200,
            success({ messages: [ids[0]] })
          )
          const all = [{ ...views[0], flags: ["read"] }, views[1], views[2]]
          expectReply(
            yield* list(hamlet, { narrow, anchor: "0", use_first_unread_anchor: "true", num_before: "5", num_after: "10" }),
            200,
            success({
              anchor: ids[1],
              found_anchor: true,
              found_oldest: true,
              found_newest: true,
              history_limited: false,
              messages: all
            })
          )
          // anchor=0 alone is the id 0.
          expectReply(
            yield* list(hamlet, { narrow, anchor: "0", num_before: "5", num_after: "10" }),
            200,
            success({
              anchor: 0,
              found_anchor: false,
              found_oldest: true,
              found_newest: true,
              history_limited: false,
              messages: all
            })
          )
        }))

      it.effect("GET /messages: anchor and range errors", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          expectReply(yield* list(hamlet, { num_before: "1", num_after: "0" }), 400, {
            result: "error",
            msg: "Missing 'anchor' argument",
            code: "REQUEST_VARIABLE_MISSING",
            var_name: "anchor"
          })
          expectReply(yield* list(hamlet, { anchor: "latest", num_before: "1", num_after: "0" }), 400, badRequest("Invalid anchor"))
          expectReply(
            yield* list(hamlet, { anchor: "newest", num_before: "5000", num_after: "1" }),
            400,
            badRequest("Too many messages requested (maximum 5000).")
          )
          expectReply(yield* list(hamlet, { anchor: "newest", num_after: "0" }), 400, {
            result: "error",
            msg: "Missing 'num_before' argument",
            code: "REQUEST_VARIABLE_MISSING",
            var_name: "num_before"
          })
        }))

      it.effect("GET /messages: narrows as legacy pairs and as objects (channel+topic, dm, sender, is:starred, search)", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const othello = yield* person("othello@zulip.com")
          const a = yield* sent(iago, { type: "stream", to: "Denmark", topic: "narrows", content: "alpha" })
          const b = yield* sent(hamlet, { type: "stream", to: "Denmark", topic: "narrows", content: "the zebracorn gallops" })
          const c = yield* sent(iago, { type: "stream", to: "Denmark", topic: "narrows other", content: "gamma" })
          const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "narrow dm zebracorn" })
          const otherDm = yield* sent(othello, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "narrow dm othello" })
          const ids = (reply: Reply) => {
            assert.strictEqual(reply.status, 200, reply.text)
            return reply.json.messages.map((m: { id: number }) => m.id).filter((id: number) => id >= a)
          }
          const find = (terms: ReadonlyArray<unknown>) =>
            Effect.map(list(hamlet, { anchor: "newest", num_before: "100", num_after: "0", narrow: narrowOf(terms) }), ids)
          const obj = (operator: string, operand: unknown, negated?: boolean) =>
            negated === undefined ? { operator, operand } : { operator, operand, negated }

          // channel + topic
          assert.deepStrictEqual(yield* find([["stream", "Denmark"], ["topic", "narrows"]]), [a, b])
          assert.deepStrictEqual(yield* find([obj("channel", "denmark"), obj("topic", "NARROWS")]), [a, b])
          const { Denmark: denmark } = yield* channels
          assert.deepStrictEqual(yield* find([obj("channel", denmark.id), obj("topic", "narrows", true)]).pipe(
            Effect.map((found) => found.filter((id: number) => id === c || id === a || id === b))
          ), [c])
          // The page itself, exactly, for one narrow.
          const page = yield* list(hamlet, {
            anchor: "newest",
            num_before: "10",
            num_after: "0",
            narrow: narrowOf([obj("channel", "Denmark"), obj("topic", "narrows other")])
          })
          expectReply(page, 200, success({
            anchor: newestAnchor,
            found_anchor: false,
            found_oldest: true,
            found_newest: true,
            history_limited: false,
            messages: [yield* read(hamlet, c)]
          }))
          // dm: by API email (pairs) and by id list (objects)
          assert.deepStrictEqual(yield* find([["dm", iago.apiEmail]]), [dm])
          assert.deepStrictEqual(yield* find([obj("dm", [iago.userId])]), [dm])
          assert.deepStrictEqual(yield* find([["pm-with", othello.apiEmail]]), [otherDm])
          assert.deepStrictEqual(yield* find([["is", "dm"]]).pipe(Effect.map((found) => found.filter((id: number) => id >= dm))), [dm, otherDm])
          // sender: by API email and by id
          assert.deepStrictEqual(yield* find([["sender", iago.apiEmail], ["channel", "Denmark"]]).pipe(
            Effect.map((found) => found.filter((id: number) => id <= c))
          ), [a, c])
          assert.deepStrictEqual(yield* find([obj("sender", othello.userId)]).pipe(
            Effect.map((found) => found.filter((id: number) => id >= a))
          ), [otherDm])
          // is:starred
          expectReply(
            yield* flags(hamlet, { messages: JSON.stringify([b, dm]), op: "add", flag: "starred" }),
            200,
            success({ messages: [b, dm] })
          )
          assert.deepStrictEqual(yield* find([["is", "starred"]]), [b, dm])
          assert.deepStrictEqual(yield* find([obj("is", "starred"), obj("channel", "Denmark")]), [b])
          // search: words, combined with other terms
          assert.deepStrictEqual(yield* find([["search", "zebracorn"]]), [b, dm])
          assert.deepStrictEqual(yield* find([obj("channel", "Denmark"), obj("search", "zebracorn")]), [b])
          assert.deepStrictEqual(yield* find([["search", "zebracorn"], ["is", "dm"]]), [dm])
          expectReply(
            yield* flags(hamlet, { messages: JSON.stringify([b, dm]), op: "remove", flag: "starred" }),
            200,
            success({ messages: [b, dm] })
          )
          assert.deepStrictEqual(yield* find([["is", "starred"]]), [])
        }))

      it.effect("GET /messages: search narrows add match_content and match_subject (matches highlighted, never inside tags); other narrows neither", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const topic = "Quokka <b> & co"
          const linked = yield* sent(iago, {
            type: "stream",
            to: "Denmark",
            topic,
            content: "A Quokka met a [quokka](https://quokka.example.com) & its *QUOKKA* friend"
          })
          const inTopic = yield* sent(iago, { type: "stream", to: "Denmark", topic, content: "nothing to see" })
          yield* sent(iago, { type: "stream", to: "Denmark", topic: "match elsewhere", content: "no marsupial" })
          const views = [yield* read(hamlet, linked), yield* read(hamlet, inTopic)]
          assert.strictEqual(
            views[0]!.content,
            "<p>A Quokka met a <a href=\"https://quokka.example.com\">quokka</a> &amp; its <em>QUOKKA</em> friend</p>"
          )
          const highlight = (word: string) => `<span class="highlight">${word}</span>`
          const matchSubject = `${highlight("Quokka")} &lt;b&gt; &amp; co`
          const found = [
            {
              ...views[0],
              match_content: `<p>A ${highlight("Quokka")} met a <a href="https://quokka.example.com">${highlight("quokka")}</a>` +
                ` &amp; its <em>${highlight("QUOKKA")}</em> friend</p>`,
              match_subject: matchSubject
            },
            { ...views[1], match_content: "<p>nothing to see</p>", match_subject: matchSubject }
          ]
          for (
            const narrow of [
              narrowOf([["channel", "Denmark"], ["search", "quokka"]]),
              narrowOf([{ operator: "search", operand: "QUOKKA" }, { operator: "channel", operand: "Denmark" }])
            ]
          ) {
            expectReply(
              yield* list(hamlet, { anchor: "newest", num_before: "10", num_after: "0", narrow }),
              200,
              success({
                anchor: newestAnchor,
                found_anchor: false,
                found_oldest: true,
                found_newest: true,
                history_limited: false,
                messages: found
              })
            )
          }
          // Without a search term: neither key.
          const plain = yield* list(hamlet, {
            anchor: "newest",
            num_before: "10",
            num_after: "0",
            narrow: narrowOf([["channel", "Denmark"], ["topic", topic]])
          })
          assert.strictEqual(plain.status, 200, plain.text)
          assert.deepStrictEqual(plain.json.messages, views)
          for (const m of plain.json.messages) {
            assert.isFalse("match_content" in m)
            assert.isFalse("match_subject" in m)
          }
        }))

      it.effect("GET /messages: BAD_NARROW and malformed narrows, exactly", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const cases: ReadonlyArray<readonly [string, object]> = [
            [narrowOf([["bogus", "x"]]), badNarrow("unknown operator bogus")],
            [narrowOf([{ operator: "bogus", operand: "x" }]), badNarrow("unknown operator bogus")],
            [narrowOf([["channel", "Nowhere"]]), badNarrow("unknown channel Nowhere")],
            [narrowOf([{ operator: "channel", operand: 999 }]), badNarrow("unknown channel 999")],
            [narrowOf([["is", "bogus"]]), badNarrow("unknown 'is' operand bogus")],
            [narrowOf([["has", "bogus"]]), badNarrow("unknown 'has' operand bogus")],
            [narrowOf([["in", "bogus"]]), badNarrow("unknown 'in' operand bogus")],
            [narrowOf([["sender", "nobody@zulip.com"]]), badNarrow("unknown user nobody@zulip.com")],
            [narrowOf([["dm", "nobody@zulip.com"]]), badNarrow("unknown user in nobody@zulip.com")],
            [narrowOf([["channel", "Verona"], ["dm", "user4@zulipdev.com"]]), badNarrow("No message can be both a channel message and direct message")],
            ["{\"operator\":\"is\"}", badRequest("narrow is not a list")],
            ["channel:Verona", badRequest("narrow is not valid JSON")]
          ]
          for (const [narrow, body] of cases) {
            expectReply(yield* list(hamlet, { anchor: "newest", num_before: "1", num_after: "0", narrow }), 400, body)
          }
        }))

      it.effect("GET /messages: public history through a channel narrow (read, historical); a guest sees only his channels", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const iago = yield* as("admin")
          const shiva = yield* as("moderator")
          const polonius = yield* as("guest")
          const cordelia = yield* person("cordelia@zulip.com")
          const before = yield* sent(iago, { type: "stream", to: "Venice", topic: "history", content: "before cordelia" })
          const narrow = narrowOf([["channel", "Venice"], ["topic", "history"]])
          const get = (who: Credentials) => list(who, { anchor: "newest", num_before: "10", num_after: "0", narrow })
          const original = yield* read(iago, before)

          // Not subscribed: the channel narrow includes the public history.
          const historical = { ...original, flags: ["read", "historical"] }
          expectReply(yield* get(cordelia), 200, success({
            anchor: newestAnchor,
            found_anchor: false,
            found_oldest: true,
            found_newest: true,
            history_limited: false,
            messages: [historical]
          }))
          assert.deepStrictEqual(yield* read(cordelia, before), historical)
          // Without a channel term history is not included.
          const all = yield* list(cordelia, { anchor: "newest", num_before: "20", num_after: "0", narrow: narrowOf([["topic", "history"]]) })
          assert.deepStrictEqual(all.json.messages, [])

          // Subscribed later: the earlier message stays historical, the next one is hers.
          const subscribe = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: cordelia,
            form: { subscriptions: JSON.stringify([{ name: "Venice" }]) }
          })
          assert.strictEqual(subscribe.status, 200, subscribe.text)
          const after = yield* sent(iago, { type: "stream", to: "Venice", topic: "history", content: "after cordelia" })
          const page = yield* get(cordelia)
          assert.strictEqual(page.status, 200, page.text)
          assert.deepStrictEqual(page.json.messages, [historical, { ...(yield* read(iago, after)), flags: [] }])
          const unsubscribe = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
            as: cordelia,
            form: { subscriptions: JSON.stringify(["Venice"]) }
          })
          assert.strictEqual(unsubscribe.status, 200, unsubscribe.text)

          // A guest sees channels he is in only: not sandbox, whose history is public to members.
          const sandboxMessage = yield* sent(shiva, { type: "stream", to: "sandbox", topic: "history", content: "members only" })
          const guestPage = yield* list(polonius, {
            anchor: "newest",
            num_before: "10",
            num_after: "0",
            narrow: narrowOf([["channel", "sandbox"]])
          })
          assert.strictEqual(guestPage.status, 200, guestPage.text)
          assert.deepStrictEqual(guestPage.json.messages, [])
          expectReply(yield* getMessage(polonius, sandboxMessage), 400, invalidMessages)
          // ... but in Venice, where he is subscribed, he got both messages.
          assert.deepStrictEqual((yield* get(polonius)).json.messages.map((m: { id: number }) => m.id), [before, after])
          // A private channel without public history: not even an administrator reads it unsubscribed.
          const secret = yield* sent(shiva, { type: "stream", to: "core team", topic: "history", content: "secret" })
          expectReply(yield* getMessage(iago, secret), 400, invalidMessages)
          const core = yield* list(iago, {
            anchor: "newest",
            num_before: "10",
            num_after: "0",
            narrow: narrowOf([["channel", "core team"]])
          })
          assert.deepStrictEqual(core.json.messages, [])
        }))

      // -----------------------------------------------------------------------
      // POST /messages/flags

      it.effect("POST /messages/flags: star, unstar, read, unread; the answer lists the ids as sent; update_message_flags events", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const { Denmark: denmark } = yield* channels
          const a = yield* sent(iago, { type: "stream", to: "Denmark", topic: "flags", content: "first" })
          const b = yield* sent(iago, { type: "stream", to: "Denmark", topic: "flags", content: "second" })
          const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "flag me" })
          const queue = yield* register(hamlet, { event_types: JSON.stringify(["update_message_flags"]) })
          const other = yield* register(iago, { event_types: JSON.stringify(["update_message_flags"]) })
          const flagsOf = (id: number) => Effect.map(read(hamlet, id), (m) => m.flags)

          expectReply(
            yield* flags(hamlet, { messages: JSON.stringify([b, a, a]), op: "add", flag: "starred" }),
            200,
            success({ messages: [b, a, a] })
          )
          assert.deepStrictEqual(yield* flagsOf(a), ["starred"])
          assert.deepStrictEqual(yield* flagsOf(b), ["starred"])
          const starred = bare(yield* queue.drain)
          assert.strictEqual(starred.length, 1)
          assert.deepStrictEqual({ ...starred[0], messages: [...(starred[0]!.messages as Array<number>)].sort((x, y) => x - y) }, {
            type: "update_message_flags",
            op: "add",
            operation: "add",
            flag: "starred",
            messages: [a, b],
            all: false
          })
          // Starring again changes nothing: the same answer, no event.
          expectReply(yield* flags(hamlet, { messages: JSON.stringify([a]), op: "add", flag: "starred" }), 200, success({ messages: [a] }))
          assert.deepStrictEqual(yield* queue.drain, [])

          expectReply(yield* flags(hamlet, { messages: JSON.stringify([a]), op: "remove", flag: "starred" }), 200, success({ messages: [a] }))
          assert.deepStrictEqual(yield* flagsOf(a), [])
          assert.deepStrictEqual(bare(yield* queue.drain), [{
            type: "update_message_flags",
            op: "remove",
            operation: "remove",
            flag: "starred",
            messages: [a],
            all: false
          }])

          expectReply(yield* flags(hamlet, { messages: JSON.stringify([a, dm]), op: "add", flag: "read" }), 200, success({ messages: [a, dm] }))
          assert.deepStrictEqual(yield* flagsOf(a), ["read"])
          assert.deepStrictEqual(yield* flagsOf(dm), ["read"])
          const readEvents = bare(yield* queue.drain)
          assert.strictEqual(readEvents.length, 1)
          assert.deepStrictEqual({ ...readEvents[0], messages: [...(readEvents[0]!.messages as Array<number>)].sort((x, y) => x - y) }, {
            type: "update_message_flags",
            op: "add",
            operation: "add",
            flag: "read",
            messages: [a, dm],
            all: false
          })

          // Marking unread says what each message was, so clients can restore their counts.
          expectReply(yield* flags(hamlet, { messages: JSON.stringify([a]), op: "remove", flag: "read" }), 200, success({ messages: [a] }))
          assert.deepStrictEqual(bare(yield* queue.drain), [{
            type: "update_message_flags",
            op: "remove",
            operation: "remove",
            flag: "read",
            messages: [a],
            all: false,
            message_details: { [String(a)]: { type: "stream", stream_id: denmark.id, topic: "flags", unmuted_stream_msg: true } }
          }])
          expectReply(yield* flags(hamlet, { messages: JSON.stringify([dm]), op: "remove", flag: "read" }), 200, success({ messages: [dm] }))
          assert.deepStrictEqual(bare(yield* queue.drain), [{
            type: "update_message_flags",
            op: "remove",
            operation: "remove",
            flag: "read",
            messages: [dm],
            all: false,
            message_details: { [String(dm)]: { type: "private", user_ids: [iago.userId] } }
          }])
          assert.deepStrictEqual(yield* flagsOf(a), [])
          assert.deepStrictEqual(yield* flagsOf(dm), [])
          // collapsed is editable too.
          expectReply(yield* flags(hamlet, { messages: JSON.stringify([b]), op: "add", flag: "collapsed" }), 200, success({ messages: [b] }))
          assert.deepStrictEqual(yield* flagsOf(b), ["starred", "collapsed"])
          assert.strictEqual((yield* queue.drain).length, 1)
          // Another user's queue heard nothing, and their flags did not change.
          assert.deepStrictEqual(yield* other.drain, [])
          assert.deepStrictEqual((yield* read(iago, b)).flags, [])
        }))

      it.effect("POST /messages/flags: marking unread a direct message that mentioned the user says \"mentioned\": true", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const dm = yield* sent(iago, {
            type: "direct",
            to: JSON.stringify([hamlet.userId]),
            content: "@**King Hamlet** did you see this?"
          })
          assert.deepStrictEqual((yield* read(hamlet, dm)).flags, ["mentioned"])
          expectReply(yield* flags(hamlet, { messages: JSON.stringify([dm]), op: "add", flag: "read" }), 200, success({ messages: [dm] }))
          const queue = yield* register(hamlet, { event_types: JSON.stringify(["update_message_flags"]) })
          expectReply(yield* flags(hamlet, { messages: JSON.stringify([dm]), op: "remove", flag: "read" }), 200, success({ messages: [dm] }))
          assert.deepStrictEqual(bare(yield* queue.drain), [{
            type: "update_message_flags",
            op: "remove",
            operation: "remove",
            flag: "read",
            messages: [dm],
            all: false,
            message_details: { [String(dm)]: { type: "private", user_ids: [iago.userId], mentioned: true } }
          }])
          assert.deepStrictEqual((yield* read(hamlet, dm)).flags, ["mentioned"])
        }))

      it.effect("POST /messages/flags: unmuted_stream_msg is false for a channel the user muted, true otherwise", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const { Denmark: denmark, Scotland: scotland } = yield* channels
          yield* setMuted(hamlet, scotland.id, true)
          const muted = yield* sent(iago, { type: "stream", to: "Scotland", topic: "muted details", content: "quiet" })
          const unmuted = yield* sent(iago, { type: "stream", to: "Denmark", topic: "muted details", content: "loud" })
          const both = [muted, unmuted]
          expectReply(yield* flags(hamlet, { messages: JSON.stringify(both), op: "add", flag: "read" }), 200, success({ messages: both }))
          const queue = yield* register(hamlet, { event_types: JSON.stringify(["update_message_flags"]) })
          expectReply(yield* flags(hamlet, { messages: JSON.stringify(both), op: "remove", flag: "read" }), 200, success({ messages: both }))
          const events = bare(yield* queue.drain)
          assert.strictEqual(events.length, 1)
          assert.deepStrictEqual({ ...events[0], messages: [...(events[0]!.messages as Array<number>)].sort((x, y) => x - y) }, {
            type: "update_message_flags",
            op: "remove",
            operation: "remove",
            flag: "read",
            messages: both,
            all: false,
            message_details: {
              [String(muted)]: { type: "stream", stream_id: scotland.id, topic: "muted details", unmuted_stream_msg: false },
              [String(unmuted)]: { type: "stream", stream_id: denmark.id, topic: "muted details", unmuted_stream_msg: true }
            }
          })
          yield* setMuted(hamlet, scotland.id, false)
        }))

      it.effect("POST /messages/flags: errors, exactly (flag, operation, unknown and inaccessible messages)", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const othello = yield* person("othello@zulip.com")
          const mine = yield* sent(iago, { type: "stream", to: "Denmark", topic: "flag errors", content: "x" })
          const theirs = yield* sent(iago, { type: "direct", to: JSON.stringify([othello.userId]), content: "between us" })
          const secret = yield* sent(yield* as("moderator"), { type: "stream", to: "core team", topic: "flag errors", content: "secret" })
          const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
            [{ messages: JSON.stringify([mine]), op: "add", flag: "bogus" }, badRequest("Invalid flag: 'bogus'")],
            [{ messages: JSON.stringify([mine]), op: "add", flag: "mentioned" }, badRequest("Flag not editable: 'mentioned'")],
            [{ messages: JSON.stringify([mine]), op: "add", flag: "historical" }, badRequest("Flag not editable: 'historical'")],
            [{ messages: JSON.stringify([mine]), op: "add", flag: "is_private" }, badRequest("Invalid flag: 'is_private'")],
            [{ messages: JSON.stringify([mine]), op: "toggle", flag: "starred" }, badRequest("Invalid message flag operation: 'toggle'")],
            [{ messages: JSON.stringify([999_999_999]), op: "add", flag: "starred" }, invalidMessages],
            [{ messages: JSON.stringify([mine, 999_999_999]), op: "add", flag: "starred" }, invalidMessages],
            [{ messages: JSON.stringify([theirs]), op: "add", flag: "starred" }, invalidMessages],
            [{ messages: JSON.stringify([theirs]), op: "add", flag: "read" }, invalidMessages],
            [{ messages: JSON.stringify([secret]), op: "add", flag: "starred" }, invalidMessages]
          ]
          for (const [form, body] of cases) expectReply(yield* flags(hamlet, form), 400, body)
          // Nothing changed on the way.
          assert.deepStrictEqual((yield* read(hamlet, mine)).flags, [])
          assert.deepStrictEqual((yield* read(othello, theirs)).flags, [])
        }))

      it.effect("POST /messages/flags: 40,000 and 80,000 ids reach the database as one list (Zulip's 400, never a 500)", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const mine = yield* sent(iago, { type: "stream", to: "Denmark", topic: "many ids", content: "x" })
          for (const count of [40_000, 80_000]) {
            const ids = [mine, ...Array.from({ length: count - 1 }, (_, i) => 1_000_000_000 + i)]
            expectReply(yield* flags(hamlet, { messages: JSON.stringify(ids), op: "add", flag: "starred" }), 400, invalidMessages)
          }
          assert.deepStrictEqual((yield* read(hamlet, mine)).flags, [])
        }))

      it.effect("POST /messages/flags on public history not received: the row is created (read, historical)", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const venice = yield* sent(iago, { type: "stream", to: "Venice", topic: "flag history", content: "public" })
          expectReply(yield* flags(hamlet, { messages: JSON.stringify([venice]), op: "add", flag: "starred" }), 200, success({ messages: [venice] }))
          assert.deepStrictEqual((yield* read(hamlet, venice)).flags, ["read", "starred", "historical"])
          const starred = yield* list(hamlet, {
            anchor: "newest",
            num_before: "10",
            num_after: "0",
            narrow: narrowOf([["is", "starred"], ["topic", "flag history"]])
          })
          assert.deepStrictEqual(starred.json.messages.map((m: { id: number; flags: Array<string> }) => [m.id, m.flags]), [
            [venice, ["read", "starred", "historical"]]
          ])
          expectReply(yield* flags(hamlet, { messages: JSON.stringify([venice]), op: "remove", flag: "starred" }), 200, success({ messages: [venice] }))
        }))

      // -----------------------------------------------------------------------
      // POST /messages/flags/narrow

      it.effect("POST /messages/flags/narrow: counts, processed ids and found_* exactly; ignored channels for read/remove only", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const { Venice: venice } = yield* channels
          const ids: Array<number> = []
          for (let i = 1; i <= 3; i++) {
            ids.push(yield* sent(iago, { type: "stream", to: "Denmark", topic: "by narrow", content: `n${i}` }))
          }
          const narrow = narrowOf([["channel", "Denmark"], ["topic", "by narrow"]])
          const queue = yield* register(hamlet, { event_types: JSON.stringify(["update_message_flags"]) })

          expectReply(
            yield* flagsNarrow(hamlet, { anchor: "oldest", num_before: "0", num_after: "2", narrow, op: "add", flag: "read" }),
            200,
            success({
              processed_count: 2,
              updated_count: 2,
              first_processed_id: ids[0],
              last_processed_id: ids[1],
              found_oldest: true,
              found_newest: false
            })
          )
          assert.deepStrictEqual(bare(yield* queue.drain), [{
            type: "update_message_flags",
            op: "add",
            operation: "add",
            flag: "read",
            messages: [ids[0], ids[1]],
            all: false
          }])
          // All three: one more is read now.
          expectReply(
            yield* flagsNarrow(hamlet, { anchor: "newest", num_before: "10", num_after: "0", narrow, op: "add", flag: "read" }),
            200,
            success({
              processed_count: 3,
              updated_count: 1,
              first_processed_id: ids[0],
              last_processed_id: ids[2],
              found_oldest: true,
              found_newest: true
            })
          )
          // Around an id, anchor excluded at an end.
          expectReply(
            yield* flagsNarrow(hamlet, {
              anchor: String(ids[1]),
              include_anchor: "false",
              num_before: "0",
              num_after: "5",
              narrow,
              op: "add",
              flag: "starred"
            }),
            200,
            success({
              processed_count: 1,
              updated_count: 1,
              first_processed_id: ids[2],
              last_processed_id: ids[2],
              found_oldest: false,
              found_newest: true
            })
          )
          // read/remove lists the channels it skipped (none here).
          expectReply(
            yield* flagsNarrow(hamlet, { anchor: "oldest", num_before: "0", num_after: "10", narrow, op: "remove", flag: "read" }),
            200,
            success({
              processed_count: 3,
              updated_count: 3,
              first_processed_id: ids[0],
              last_processed_id: ids[2],
              found_oldest: true,
              found_newest: true,
              ignored_because_not_subscribed_channels: []
            })
          )
          // An empty range.
          expectReply(
            yield* flagsNarrow(hamlet, {
              anchor: String(ids[2]),
              include_anchor: "false",
              num_before: "0",
              num_after: "10",
              narrow,
              op: "add",
              flag: "read"
            }),
            200,
            success({
              processed_count: 0,
              updated_count: 0,
              first_processed_id: null,
              last_processed_id: null,
              found_oldest: false,
              found_newest: true
            })
          )
          yield* queue.drain

          // Public history of a channel hamlet is not in: marking unread ignores the channel.
          const history = yield* sent(iago, { type: "stream", to: "Venice", topic: "by narrow", content: "venice" })
          const veniceNarrow = narrowOf([["channel", "Venice"], ["topic", "by narrow"]])
          expectReply(
            yield* flagsNarrow(hamlet, { anchor: "newest", num_before: "10", num_after: "0", narrow: veniceNarrow, op: "remove", flag: "read" }),
            200,
            success({
              processed_count: 1,
              updated_count: 0,
              first_processed_id: history,
              last_processed_id: history,
              found_oldest: true,
              found_newest: true,
              ignored_because_not_subscribed_channels: [venice.id]
            })
          )
          expectReply(
            yield* flagsNarrow(hamlet, { anchor: "newest", num_before: "10", num_after: "0", narrow: veniceNarrow, op: "add", flag: "starred" }),
            200,
            success({
              processed_count: 1,
              updated_count: 1,
              first_processed_id: history,
              last_processed_id: history,
              found_oldest: true,
              found_newest: true
            })
          )
          assert.deepStrictEqual((yield* read(hamlet, history)).flags, ["read", "starred", "historical"])
          yield* flags(hamlet, { messages: JSON.stringify([history]), op: "remove", flag: "starred" })
        }))

      it.effect("POST /messages/flags/narrow: errors, exactly", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const base = { anchor: "newest", num_before: "1", num_after: "0", narrow: "[]" }
          const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
            [
              { ...base, anchor: "5", include_anchor: "false", num_after: "1", op: "add", flag: "read" },
              badRequest("The anchor can only be excluded at an end of the range")
            ],
            [{ ...base, op: "add", flag: "bogus" }, badRequest("Invalid flag: 'bogus'")],
            [{ ...base, op: "add", flag: "mentioned" }, badRequest("Flag not editable: 'mentioned'")],
            [{ ...base, op: "toggle", flag: "read" }, badRequest("Invalid message flag operation: 'toggle'")],
            [{ ...base, anchor: "latest", op: "add", flag: "read" }, badRequest("Invalid anchor")],
            [{ ...base, narrow: narrowOf([["bogus", "x"]]), op: "add", flag: "read" }, badNarrow("unknown operator bogus")]
          ]
          for (const [form, body] of cases) expectReply(yield* flagsNarrow(hamlet, form), 400, body)
        }))

      // -----------------------------------------------------------------------
      // POST /register and GET /users/me

      it.effect("POST /register: unread_msgs, starred_messages, recent_private_conversations, max_message_id; GET /users/me", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const zoe = yield* person("ZOE@zulip.com")
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const { Verona: verona } = yield* channels
          yield* resetFlags(zoe)
          const fetchTypes = JSON.stringify(["message", "update_message_flags", "starred_messages", "recent_private_conversations"])
          const state = (who: Credentials) =>
            Effect.map(
              server.fetch("POST", "/api/v1/register", { as: who, form: { fetch_event_types: fetchTypes, event_types: "[\"heartbeat\"]" } }),
              (reply) => {
                assert.strictEqual(reply.status, 200, reply.text)
                const { queue_id: _queue, ...rest } = reply.json
                return rest
              }
            )
          const base = {
            result: "success",
            msg: "",
            last_event_id: -1,
            zulip_version: "11.0-teamchat",
            zulip_feature_level: 416,
            zulip_merge_base: "11.0"
          }
          const before = yield* state(zoe)
          assert.deepStrictEqual(before.unread_msgs, {
            count: 0,
            pms: [],
            streams: [],
            huddles: [],
            mentions: [],
            old_unreads_missing: false
          })
          assert.deepStrictEqual(before.starred_messages, [])

          const direct = yield* sent(hamlet, { type: "direct", to: JSON.stringify([zoe.userId]), content: "hi zoe" })
          const mention = yield* sent(iago, { type: "stream", to: "Verona", topic: "register state", content: "@**Zoe** look" })
          const plain = yield* sent(iago, { type: "stream", to: "Verona", topic: "register state", content: "and this" })
          const group = yield* sent(hamlet, {
            type: "direct",
            to: JSON.stringify([zoe.userId, iago.userId]),
            content: "all of us"
          })
          const replied = yield* sent(zoe, { type: "direct", to: JSON.stringify([hamlet.userId]), content: "hi hamlet" })
          expectReply(yield* flags(zoe, { messages: JSON.stringify([plain]), op: "add", flag: "starred" }), 200, success({ messages: [plain] }))

          const groupIds = [zoe.userId, hamlet.userId, iago.userId].sort((a, b) => a - b)
          assert.deepStrictEqual(yield* state(zoe), {
            ...base,
            max_message_id: replied,
            unread_msgs: {
              count: 5,
              pms: [{ other_user_id: hamlet.userId, sender_id: hamlet.userId, unread_message_ids: [direct, replied] }],
              streams: [{ stream_id: verona.id, topic: "register state", unread_message_ids: [mention, plain] }],
              huddles: [{ user_ids_string: groupIds.join(","), unread_message_ids: [group] }],
              mentions: [mention],
              old_unreads_missing: false
            },
            starred_messages: [plain],
            recent_private_conversations: [
              { max_message_id: replied, user_ids: [hamlet.userId] },
              { max_message_id: group, user_ids: groupIds.filter((id) => id !== zoe.userId) }
            ]
          })
          const me = yield* server.fetch("GET", "/api/v1/users/me", { as: zoe })
          assert.strictEqual(me.json.max_message_id, replied)

          // Reading everything empties unread_msgs; starring is separate.
          yield* resetFlags(zoe)
          const after = yield* state(zoe)
          assert.deepStrictEqual(after.unread_msgs, before.unread_msgs)
          assert.deepStrictEqual(after.starred_messages, [])
          assert.strictEqual(after.max_message_id, replied)
        }))

      it.effect("POST /register: unread_msgs names the empty topic \"general chat\" unless the client has empty_topic_name", () =>
        Effect.gen(function*() {
          const zoe = yield* person("ZOE@zulip.com")
          const iago = yield* as("admin")
          const { Verona: verona } = yield* channels
          yield* resetFlags(zoe)
          const id = yield* sent(iago, { type: "stream", to: "Verona", topic: "", content: "unread in general chat" })
          const unreads = (capabilities?: object) =>
            Effect.map(
              register(zoe, {
                fetch_event_types: JSON.stringify(["message", "update_message_flags"]),
                event_types: JSON.stringify(["heartbeat"]),
                ...(capabilities === undefined ? {} : { client_capabilities: JSON.stringify(capabilities) })
              }),
              ({ reply }) => reply.json.unread_msgs
            )
          const expected = (topic: string) => ({
            count: 1,
            pms: [],
            streams: [{ stream_id: verona.id, topic, unread_message_ids: [id] }],
            huddles: [],
            mentions: [],
            old_unreads_missing: false
          })
          assert.deepStrictEqual(yield* unreads(), expected("general chat"))
          assert.deepStrictEqual(yield* unreads({ empty_topic_name: false }), expected("general chat"))
          assert.deepStrictEqual(yield* unreads({ empty_topic_name: true }), expected(""))
          yield* resetFlags(zoe)
        }))

      // -----------------------------------------------------------------------
      // message events

      it.effect("message events: per-queue views (apply_markdown, local_message_id, narrow) and flags beside the message", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const cordelia = yield* person("cordelia@zulip.com")
          const events = JSON.stringify(["message"])
          const html = yield* register(hamlet, { event_types: events, apply_markdown: "true", client_gravatar: "false" })
          const markdown = yield* register(hamlet, { event_types: events, apply_markdown: "false", client_gravatar: "false" })
          const denmarkOnly = yield* register(cordelia, {
            event_types: events,
            apply_markdown: "true",
            client_gravatar: "false",
            narrow: narrowOf([["stream", "Denmark"]])
          })
          // client_gravatar: the avatar stays, the senders' emails not being public.
          const gravatar = yield* register(hamlet, { event_types: events, apply_markdown: "true", client_gravatar: "true" })
          const sender = yield* register(iago, { event_types: events, apply_markdown: "true", client_gravatar: "false" })
          const senderOther = yield* register(iago, { event_types: events, apply_markdown: "true", client_gravatar: "false" })

          const denmark = yield* sent(iago, {
            type: "stream",
            to: "Denmark",
            topic: "events",
            content: "hi @**King Hamlet**",
            queue_id: sender.queueId,
            local_id: "1234.01"
          }, mobileUserAgent)
          const verona = yield* sent(iago, { type: "stream", to: "Verona", topic: "events", content: "*verona*" })

          const denmarkView = withoutFlags(yield* read(iago, denmark))
          const veronaView = withoutFlags(yield* read(iago, verona))
          const raw = (view: Record<string, unknown>, content: string) => ({ ...view, content, content_type: "text/x-markdown" })

          assert.deepStrictEqual(bare(yield* html.drain), [
            { type: "message", message: denmarkView, flags: ["mentioned"] },
            { type: "message", message: veronaView, flags: [] }
          ])
          assert.deepStrictEqual(bare(yield* gravatar.drain), [
            { type: "message", message: denmarkView, flags: ["mentioned"] },
            { type: "message", message: veronaView, flags: [] }
          ])
          assert.deepStrictEqual(bare(yield* markdown.drain), [
            { type: "message", message: raw(denmarkView, "hi @**King Hamlet**"), flags: ["mentioned"] },
            { type: "message", message: raw(veronaView, "*verona*"), flags: [] }
          ])
          // The narrowed queue gets Denmark only.
          assert.deepStrictEqual(bare(yield* denmarkOnly.drain), [{ type: "message", message: denmarkView, flags: [] }])
          // The sending queue gets local_message_id (and the mobile app's message is read for its sender).
          assert.deepStrictEqual(bare(yield* sender.drain), [
            { type: "message", message: denmarkView, flags: ["read"], local_message_id: "1234.01" },
            { type: "message", message: veronaView, flags: [] }
          ])
          assert.deepStrictEqual(bare(yield* senderOther.drain), [
            { type: "message", message: denmarkView, flags: ["read"] },
            { type: "message", message: veronaView, flags: [] }
          ])
          // A direct message: only its participants' queues hear it; the wire keys are Zulip's.
          const plain = yield* register(cordelia, {
            event_types: events,
            apply_markdown: "true",
            client_gravatar: "false",
            client_capabilities: JSON.stringify({ empty_topic_name: true })
          })
          const dm = yield* sent(iago, { type: "direct", to: JSON.stringify([cordelia.userId]), content: "psst" })
          const dmEvents = yield* plain.drain
          assert.strictEqual(dmEvents.length, 1)
          assert.deepStrictEqual(Object.keys(dmEvents[0]!).sort(), ["flags", "id", "message", "type"])
          assert.isTrue(Number.isInteger(dmEvents[0]!.id))
          assert.deepStrictEqual(bare(dmEvents), [{
            type: "message",
            message: withoutFlags(yield* read(cordelia, dm, { allow_empty_topic_name: "true" })),
            flags: []
          }])
          assert.deepStrictEqual(yield* html.drain, [])
          // The narrowed queue heard no direct messages.
          assert.deepStrictEqual(yield* denmarkOnly.drain, [])
        }))

      // -----------------------------------------------------------------------
      // POST /streams/{stream_id}/delete_topic

      it.effect("delete_topic: administrators only (owner, admin); every other role gets UNAUTHORIZED_PRINCIPAL", () =>
        Effect.gen(function*() {
          const shiva = yield* as("moderator")
          const { Venice: venice } = yield* channels
          const kept = yield* sent(shiva, { type: "stream", to: "Venice", topic: "not yours", content: "stays" })
          for (const role of ["moderator", "member", "guest", "bot"] as const) {
            expectReply(yield* deleteTopic(yield* as(role), venice.id, "not yours"), 400, notAdministrator)
          }
          assert.deepStrictEqual((yield* read(shiva, kept)).id, kept)
          for (const role of ["owner", "admin"] as const) {
            const who = yield* as(role)
            const doomed = yield* sent(shiva, { type: "stream", to: "Venice", topic: `deleted by ${role}`, content: "bye" })
            expectReply(yield* deleteTopic(who, venice.id, `deleted by ${role}`), 200, success({ complete: true }))
            expectReply(yield* getMessage(shiva, doomed), 400, invalidMessages)
            expectReply(yield* getMessage(who, doomed), 400, invalidMessages)
          }
          // Deleting a topic without messages is complete at once.
          expectReply(yield* deleteTopic(yield* as("admin"), venice.id, "never used"), 200, success({ complete: true }))
          assert.deepStrictEqual((yield* read(shiva, kept)).id, kept)
        }))

      it.effect("delete_topic: messages gone, delete_message events (bulk and per message), first_message_id updated", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const shiva = yield* as("moderator")
          const polonius = yield* as("guest")
          const othello = yield* person("othello@zulip.com")
          const types = JSON.stringify(["delete_message", "stream"])
          const bulk = yield* register(othello, {
            event_types: types,
            client_capabilities: JSON.stringify({ bulk_message_deletion: true })
          })
          const legacy = yield* register(polonius, { event_types: types })
          // Rome is used by this test only: its first message is in the doomed topic.
          const rome = (yield* channels).Rome!
          assert.strictEqual(rome.first_message_id, null)
          const first = yield* sent(shiva, { type: "stream", to: "Rome", topic: "doomed", content: "one" })
          const second = yield* sent(shiva, { type: "stream", to: "Rome", topic: "doomed", content: "two" })
          const kept = yield* sent(shiva, { type: "stream", to: "Rome", topic: "kept", content: "three" })
          assert.strictEqual((yield* channels).Rome!.first_message_id, first)
          // (Whatever the sends published is not under test here.)
          yield* bulk.drain
          yield* legacy.drain
          const firstMessageEvent = (value: number | null) => ({
            type: "stream",
            op: "update",
            property: "first_message_id",
            value,
            stream_id: rome.id,
            name: "Rome"
          })
          /** Zulip queues the channel update before the deletion; the order is not compared here (see the report). */
          const key = (event: object) => JSON.stringify(event, Object.keys(event).sort())
          const same = (actual: ReadonlyArray<Record<string, unknown>>, expected: ReadonlyArray<object>) =>
            assert.deepStrictEqual(
              [...bare(actual)].sort((a, b) => key(a).localeCompare(key(b))),
              [...expected].sort((a, b) => key(a).localeCompare(key(b)))
            )

          expectReply(yield* deleteTopic(iago, rome.id, "doomed"), 200, success({ complete: true }))
          for (const id of [first, second]) {
            expectReply(yield* getMessage(shiva, id), 400, invalidMessages)
            expectReply(yield* getMessage(iago, id), 400, invalidMessages)
          }
          assert.strictEqual((yield* read(shiva, kept)).id, kept)
          const topic = yield* list(shiva, {
            anchor: "newest",
            num_before: "10",
            num_after: "0",
            narrow: narrowOf([["channel", "Rome"]])
          })
          assert.deepStrictEqual(topic.json.messages.map((m: { id: number }) => m.id), [kept])

          const deleted = { message_type: "stream", stream_id: rome.id, topic: "doomed" }
          same(yield* bulk.drain, [
            { type: "delete_message", message_ids: [first, second], ...deleted },
            firstMessageEvent(kept)
          ])
          // Without bulk_message_deletion: one event per message, in id order.
          const perMessage = bare(yield* legacy.drain)
          assert.deepStrictEqual(perMessage.filter((e) => e.type === "delete_message"), [
            { type: "delete_message", message_id: first, ...deleted },
            { type: "delete_message", message_id: second, ...deleted }
          ])
          assert.deepStrictEqual(perMessage.filter((e) => e.type !== "delete_message"), [firstMessageEvent(kept)])
          assert.strictEqual((yield* channels).Rome!.first_message_id, kept)

          // Deleting a later topic leaves first_message_id alone: no stream event.
          const later = yield* sent(shiva, { type: "stream", to: "Rome", topic: "later", content: "four" })
          expectReply(yield* deleteTopic(iago, rome.id, "later"), 200, success({ complete: true }))
          assert.deepStrictEqual(bare(yield* bulk.drain), [
            { type: "delete_message", message_ids: [later], message_type: "stream", stream_id: rome.id, topic: "later" }
          ])
          // The last message gone: first_message_id is null again.
          expectReply(yield* deleteTopic(iago, rome.id, "kept"), 200, success({ complete: true }))
          same(yield* bulk.drain, [
            { type: "delete_message", message_ids: [kept], message_type: "stream", stream_id: rome.id, topic: "kept" },
            firstMessageEvent(null)
          ])
          assert.strictEqual((yield* channels).Rome!.first_message_id, null)
        }))

      it.effect("delete_topic: the acting administrator and subscribers without a copy get delete_message, after the first_message_id update", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const cordelia = yield* person("cordelia@zulip.com")
          const name = "delete audience"
          // A new public channel: hamlet creates it; iago is not subscribed.
          yield* subscribe(hamlet, [name])
          const channel = (yield* channels)[name]!
          assert.strictEqual(channel.first_message_id, null)
          const first = yield* sent(hamlet, { type: "stream", to: name, topic: "doomed", content: "one" })
          const second = yield* sent(hamlet, { type: "stream", to: name, topic: "doomed", content: "two" })
          const kept = yield* sent(hamlet, { type: "stream", to: name, topic: "kept", content: "three" })
          // cordelia subscribes afterwards: an active subscriber with no copy.
          yield* subscribe(cordelia, [name])
          expectReply(yield* getMessage(iago, first), 200, success({
            message: { ...(yield* read(hamlet, first)), flags: ["read", "historical"] },
            raw_content: "one"
          }))
          const types = JSON.stringify(["delete_message", "stream"])
          const bulk = { client_capabilities: JSON.stringify({ bulk_message_deletion: true }) }
          const acting = yield* register(iago, { event_types: types, ...bulk })
          const actingLegacy = yield* register(iago, { event_types: types })
          const late = yield* register(cordelia, { event_types: types, ...bulk })
          const sender = yield* register(hamlet, { event_types: types, ...bulk })

          expectReply(yield* deleteTopic(iago, channel.id, "doomed"), 200, success({ complete: true }))
          const firstMessageUpdate = {
            type: "stream",
            op: "update",
            property: "first_message_id",
            value: kept,
            stream_id: channel.id,
            name
          }
          const deleted = { message_type: "stream", stream_id: channel.id, topic: "doomed" }
          const expected = [firstMessageUpdate, { type: "delete_message", message_ids: [first, second], ...deleted }]
          // One poll each, compared in order: the channel update comes first.
          assert.deepStrictEqual(bare(yield* acting.drain), expected)
          assert.deepStrictEqual(bare(yield* late.drain), expected)
          assert.deepStrictEqual(bare(yield* sender.drain), expected)
          assert.deepStrictEqual(bare(yield* actingLegacy.drain), [
            firstMessageUpdate,
            { type: "delete_message", message_id: first, ...deleted },
            { type: "delete_message", message_id: second, ...deleted }
          ])
          assert.strictEqual((yield* channels)[name]!.first_message_id, kept)
          yield* unsubscribe(cordelia, [name])
          yield* unsubscribe(hamlet, [name])
        }))

      it.effect("a channel's very first message publishes no stream event (first_message_id is set silently)", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const othello = yield* person("othello@zulip.com")
          const name = "quiet first message"
          yield* subscribe(hamlet, [name])
          yield* subscribe(othello, [name])
          assert.strictEqual((yield* channels)[name]!.first_message_id, null)
          const types = JSON.stringify(["stream"])
          const sender = yield* register(hamlet, { event_types: types })
          const subscriber = yield* register(othello, { event_types: types })
          const first = yield* sent(hamlet, { type: "stream", to: name, topic: "hello", content: "first!" })
          assert.strictEqual((yield* channels)[name]!.first_message_id, first)
          assert.deepStrictEqual(yield* sender.drain, [])
          assert.deepStrictEqual(yield* subscriber.drain, [])
          yield* sent(othello, { type: "stream", to: name, topic: "hello", content: "second" })
          assert.strictEqual((yield* channels)[name]!.first_message_id, first)
          assert.deepStrictEqual(yield* sender.drain, [])
          assert.deepStrictEqual(yield* subscriber.drain, [])
          // The same queues do hear a real change of first_message_id.
          const channelId = (yield* channels)[name]!.id
          expectReply(yield* deleteTopic(yield* as("admin"), channelId, "hello"), 200, success({ complete: true }))
          const cleared = { type: "stream", op: "update", property: "first_message_id", value: null, stream_id: channelId, name }
          assert.deepStrictEqual(bare(yield* sender.drain), [cleared])
          assert.deepStrictEqual(bare(yield* subscriber.drain), [cleared])
          yield* unsubscribe(othello, [name])
          yield* unsubscribe(hamlet, [name])
        }))
    })
  })
