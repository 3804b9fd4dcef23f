/** POST /messages and GET /messages/{id}. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials } from "../Harness.ts"
import { accounts, Server } from "../Harness.ts"
import { channelId, userId } from "@teamchat/core/domain/Ids"
import { SubscriptionRepo, UserRepo } from "@teamchat/core/ports/Repositories"
import type { Vitest } from "@effect/vitest"
import { success, badRequest, invalidMessages, bare, withoutFlags, mobileUserAgent, person, as, channels, tick, send, sent, getMessage, read, list, expectReply, register, channelMessage, directMessage, recipientOf, narrowOf, listedAlone, ownChannel, privateChannel, unsubscribe } from "./fixtures.ts"

export const sendTests = (it: Vitest.MethodsNonLive<Server>): void => {
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

  it.effect("POST /messages: the organization as it is at the send, after writes made outside the API (channel left, deactivation); a refused send writes nothing", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const iago = yield* as("admin")
      const made = yield* ownChannel(iago, [["fresh-writer@zulip.com", "Fresh Writer"], ["fresh-quitter@zulip.com", "Fresh Quitter"]], {
        name: "fresh sends",
        invite_only: true
      })
      const [writer, quitter] = [made.members[0].as, made.members[1].as]
      const form = (content: string) => ({ type: "stream", to: String(made.channel), topic: "fresh", content })
      // Both send once, so the server keeps its read of the organization.
      const first = yield* sent(writer, form("first"))
      const second = yield* sent(quitter, form("second"))
      const topic = () =>
        Effect.map(
          list(iago, {
            anchor: "newest",
            num_before: "10",
            num_after: "0",
            narrow: narrowOf([{ operator: "channel", operand: made.channel }, { operator: "topic", operand: "fresh" }])
          }),
          (reply) => reply.json.messages.map((m: { id: number; content: string }) => [m.id, m.content])
        )
      assert.deepStrictEqual(yield* topic(), [[first, "<p>first</p>"], [second, "<p>second</p>"]])

      // Written through the repositories, as another process would: nothing
      // but the organization's access version tells the server.
      yield* server.core(Effect.gen(function*() {
        const subscriptions = yield* SubscriptionRepo
        const row = (yield* subscriptions.find(userId(made.members[1].id), channelId(made.channel)))!
        yield* subscriptions.upsert({ ...row, active: false })
      }))
      expectReply(yield* send(quitter, form("after leaving")), 400, badRequest("Not authorized to send to channel 'fresh sends'"))
      yield* server.core(Effect.gen(function*() {
        const repo = yield* UserRepo
        yield* repo.update({ ...(yield* repo.findById(userId(made.members[0].id)))!, is_active: false })
      }))
      expectReply(yield* send(writer, form("after deactivation")), 401, { result: "error", msg: "Account is deactivated", code: "USER_DEACTIVATED" })
      // Neither refused send left a message behind.
      assert.deepStrictEqual(yield* topic(), [[first, "<p>first</p>"], [second, "<p>second</p>"]])
    }))

  it.effect("GET /messages/{id} after leaving a private channel: a received message stays readable only with content access (section 1)", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const othello = yield* person("othello@zulip.com")
      const cases = [["get protected", false], ["get shared", true]] as const
      for (const [name, historyPublic] of cases) {
        yield* privateChannel(name, [hamlet, othello], historyPublic)
        const id = yield* sent(hamlet, { type: "stream", to: name, topic: "t", content: "kept" })
        assert.deepStrictEqual((yield* read(othello, id)).flags, [])
        // Othello keeps the row but loses content access: Zulip refuses the message.
        yield* unsubscribe(othello, [name])
        expectReply(yield* getMessage(othello, id), 400, invalidMessages)
        // Back in the channel, the row grants it again (protected history needs both).
        yield* privateChannel(name, [hamlet, othello], historyPublic)
        assert.deepStrictEqual((yield* read(othello, id)).flags, [])
        yield* unsubscribe(othello, [name])
        yield* unsubscribe(hamlet, [name])
      }
    }))
}
