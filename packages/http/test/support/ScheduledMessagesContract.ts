/**
 * Scheduled messages over the wire, written once and run on every core
 * backend: GET/POST /scheduled_messages, PATCH/DELETE
 * /scheduled_messages/{id}, their exact bodies and errors, the
 * `scheduled_messages` events (to the sender only), and delivery (the
 * worker's `runDue`, driven by the harness's manual clock): delivered, and
 * failed → edited with a new time → delivered.
 *
 * The harness clock is shared by the tests of a run, so messages that are
 * not meant to be delivered are scheduled a day ahead, and each test starts
 * by cancelling the caller's leftovers.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Errors from "@teamchat/core/errors/Errors"
import { ChannelRepo } from "@teamchat/core/ports/Repositories"
import { NotificationBotName } from "@teamchat/core/services/NotificationBot"
import { ScheduledDelivery } from "@teamchat/core/services/ScheduledDelivery"
import * as Effect from "effect/Effect"
import { NotFoundRoute } from "../../src/internal/Errors.ts"
import { listen } from "./EventListener.ts"
import type { Backend, Credentials } from "./Harness.ts"
import { accounts, demoLayer, layerServer, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const notFound = { result: "error", msg: "Scheduled message does not exist", code: "BAD_REQUEST" }

const day = 86_400

export const scheduledMessagesContract = (backend: Backend) =>
  describe(`scheduled messages over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      const as = (role: keyof typeof accounts) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const othello = Effect.flatMap(Server, (server) => server.login("othello@zulip.com"))
      const now = Effect.map(Server, (server) => Math.floor(server.clock.now() / 1000))

      const post = (who: Credentials, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/scheduled_messages", { as: who, form }))
      const patch = (who: Credentials, id: number | string, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("PATCH", `/api/v1/scheduled_messages/${id}`, { as: who, form }))
      const remove = (who: Credentials, id: number | string) =>
        Effect.flatMap(Server, (server) => server.fetch("DELETE", `/api/v1/scheduled_messages/${id}`, { as: who }))
      const list = (who: Credentials) =>
        Effect.flatMap(Server, (server) => server.fetch("GET", "/api/v1/scheduled_messages", { as: who }))

      /** POSTs and returns the new id (the request must succeed). */
      const schedule = (who: Credentials, form: Record<string, string>) =>
        Effect.map(post(who, form), (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          assert.deepStrictEqual(Object.keys(reply.json).sort(), ["msg", "result", "scheduled_message_id"])
          return reply.json.scheduled_message_id as number
        })

      /** Cancels everything the caller has scheduled. */
      const clear = (who: Credentials) =>
        Effect.gen(function*() {
          for (const m of (yield* list(who)).json.scheduled_messages) yield* remove(who, m.scheduled_message_id)
        })

      const register = (who: Credentials, eventTypes: ReadonlyArray<string> = ["scheduled_messages"]) => listen(who, eventTypes)

      const channelId = (who: Credentials, name: string) =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("GET", "/api/v1/streams", { as: who, query: { include_all: "true" } })
          const channel = reply.json.streams.find((s: { name: string }) => s.name === name)
          assert.isDefined(channel, name)
          return channel.stream_id as number
        })

      /** Advances the harness clock and runs the worker's pass once. */
      const deliverAfter = (seconds: number) =>
        Effect.flatMap(Server, (server) => {
          server.clock.advance(seconds * 1000)
          return server.core(Effect.flatMap(ScheduledDelivery, (d) => d.runDue))
        })

      const expectError = (reply: { status: number; json: unknown; text: string }, status: number, body: object) => {
        assert.strictEqual(reply.status, status, reply.text)
        assert.deepStrictEqual(reply.json, body)
      }

      it.effect("POST a channel message: its id, GET lists it, and an add event to the sender only", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          yield* clear(hamlet)
          const verona = yield* channelId(hamlet, "Verona")
          const hamletEvents = yield* register(hamlet)
          const iagoEvents = yield* register(iago)
          const at = (yield* now) + day
          const id = yield* schedule(hamlet, {
            type: "channel",
            to: String(verona),
            topic: "lunch",
            content: "Hello **world**",
            scheduled_delivery_timestamp: String(at)
          })
          const item = {
            scheduled_message_id: id,
            to: verona,
            type: "stream",
            content: "Hello **world**",
            rendered_content: "<p>Hello <strong>world</strong></p>",
            topic: "lunch",
            scheduled_delivery_timestamp: at,
            failed: false
          }
          const listed = yield* list(hamlet)
          assert.strictEqual(listed.status, 200)
          assert.deepStrictEqual(listed.json, success({ scheduled_messages: [item] }))
          assert.deepStrictEqual(yield* hamletEvents, [{ type: "scheduled_messages", op: "add", scheduled_messages: [item] }])
          assert.deepStrictEqual(yield* iagoEvents, [])
          assert.deepStrictEqual((yield* list(iago)).json.scheduled_messages, [])
        }))

      it.effect("POST: type aliases, direct-message recipients, the empty topic's names, multipart bodies", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const other = yield* othello
          yield* clear(hamlet)
          const verona = yield* channelId(hamlet, "Verona")
          const at = (yield* now) + day
          const base = { content: "x", scheduled_delivery_timestamp: String(at) }
          const stream = yield* schedule(hamlet, { ...base, type: "stream", to: String(verona), topic: "(no topic)" })
          const general = yield* schedule(hamlet, { ...base, type: "channel", to: `[${verona}]`, topic: "general chat" })
          const direct = yield* schedule(hamlet, { ...base, type: "direct", to: JSON.stringify([other.userId]) })
          const legacy = yield* schedule(hamlet, {
            ...base,
            type: "private",
            to: JSON.stringify([other.userId, hamlet.userId, other.userId])
          })
          const self = yield* schedule(hamlet, { ...base, type: "direct", to: String(hamlet.userId) })
          const group = yield* schedule(hamlet, { ...base, type: "direct", to: JSON.stringify([other.userId, iago.userId]) })
          const multipart = yield* server.fetch("POST", "/api/v1/scheduled_messages", {
            as: hamlet,
            multipart: { ...base, type: "direct", to: JSON.stringify([iago.userId]) }
          })
          assert.strictEqual(multipart.status, 200, multipart.text)
          const items = (yield* list(hamlet)).json.scheduled_messages as Array<Record<string, unknown>>
          const byId = new Map(items.map((m) => [m.scheduled_message_id, m]))
          assert.deepStrictEqual([byId.get(stream)!.type, byId.get(stream)!.to, byId.get(stream)!.topic], ["stream", verona, ""])
          assert.deepStrictEqual([byId.get(general)!.type, byId.get(general)!.topic], ["stream", ""])
          const dm = (id: number) => {
            const m = byId.get(id)!
            assert.isFalse("topic" in m)
            return [m.type, m.to]
          }
          assert.deepStrictEqual(dm(direct), ["private", [other.userId]])
          assert.deepStrictEqual(dm(legacy), ["private", [other.userId]])
          assert.deepStrictEqual(dm(self), ["private", [hamlet.userId]])
          assert.deepStrictEqual(dm(group), ["private", [other.userId, iago.userId].sort((a, b) => a - b)])
          assert.deepStrictEqual(dm(multipart.json.scheduled_message_id), ["private", [iago.userId]])
        }))

      it.effect("POST errors: past times, emails, unknown channels and users, parameters", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const other = yield* othello
          const verona = yield* channelId(hamlet, "Verona")
          const t = yield* now
          const channel = { type: "channel", to: String(verona), topic: "t", content: "x" }
          const direct = { type: "direct", to: JSON.stringify([other.userId]), content: "x" }
          const future = String(t + day)
          const notFuture = { result: "error", msg: "Scheduled delivery time must be in the future.", code: "BAD_REQUEST" }
          expectError(yield* post(hamlet, { ...channel, scheduled_delivery_timestamp: String(t) }), 400, notFuture)
          expectError(yield* post(hamlet, { ...direct, scheduled_delivery_timestamp: String(t - 60) }), 400, notFuture)
          expectError(
            yield* post(hamlet, { ...direct, to: JSON.stringify(["othello@zulip.com"]), scheduled_delivery_timestamp: future }),
            400,
            { result: "error", msg: "Recipient list may only contain user IDs", code: "BAD_REQUEST" }
          )
          expectError(
            yield* post(hamlet, { ...direct, to: JSON.stringify([other.userId, "iago@zulip.com"]), scheduled_delivery_timestamp: future }),
            400,
            new Errors.RecipientListUserIdsOnly().wire
          )
          // A channel is named by its id only.
          expectError(
            yield* post(hamlet, { ...channel, to: JSON.stringify(["Verona"]), scheduled_delivery_timestamp: future }),
            400,
            new Errors.InvalidParameter({ var_name: "to" }).wire
          )
          expectError(
            yield* post(hamlet, { ...channel, to: "99999", scheduled_delivery_timestamp: future }),
            400,
            { result: "error", msg: "Channel with ID '99999' does not exist", code: "STREAM_DOES_NOT_EXIST", stream_id: 99999 }
          )
          expectError(
            yield* post(hamlet, { ...direct, to: "[99999]", scheduled_delivery_timestamp: future }),
            400,
            { result: "error", msg: "Invalid user ID 99999", code: "BAD_REQUEST" }
          )
          expectError(
            yield* post(hamlet, { type: "channel", to: String(verona), topic: "t", scheduled_delivery_timestamp: future }),
            400,
            new Errors.RequestVariableMissing({ var_name: "content" }).wire
          )
          expectError(
            yield* post(hamlet, { ...channel }),
            400,
            new Errors.RequestVariableMissing({ var_name: "scheduled_delivery_timestamp" }).wire
          )
          expectError(
            yield* post(hamlet, { ...channel, type: "bogus", scheduled_delivery_timestamp: future }),
            400,
            new Errors.InvalidParameter({ var_name: "type" }).wire
          )
          expectError(
            yield* post(hamlet, { ...channel, scheduled_delivery_timestamp: "1.5" }),
            400,
            new Errors.NotAnInteger({ var_name: "scheduled_delivery_timestamp" }).wire
          )
          expectError(
            yield* post(hamlet, { ...channel, read_by_sender: "yes", scheduled_delivery_timestamp: future }),
            400,
            new Errors.NotValidJson({ var_name: "read_by_sender" }).wire
          )
          const anonymous = yield* Effect.flatMap(Server, (server) =>
            server.fetch("POST", "/api/v1/scheduled_messages", { form: { ...channel, scheduled_delivery_timestamp: future } }))
          assert.strictEqual(anonymous.status, 401)
        }))

      it.effect("GET: undelivered messages by delivery time, then id", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const other = yield* othello
          yield* clear(hamlet)
          const t = (yield* now) + day
          const form = (at: number, content: string) => ({
            type: "direct",
            to: JSON.stringify([other.userId]),
            content,
            scheduled_delivery_timestamp: String(at)
          })
          const late = yield* schedule(hamlet, form(t + 300, "late"))
          const first = yield* schedule(hamlet, form(t + 100, "first"))
          const second = yield* schedule(hamlet, form(t + 100, "second"))
          const listed = (yield* list(hamlet)).json.scheduled_messages as Array<{ scheduled_message_id: number }>
          assert.deepStrictEqual(listed.map((m) => m.scheduled_message_id), [first, second, late])
          assert.deepStrictEqual((yield* list(other)).json, success({ scheduled_messages: [] }))
          // POST /register's `scheduled_messages` is the same list.
          const server = yield* Server
          const registered = yield* server.fetch("POST", "/api/v1/register", {
            as: hamlet,
            form: { fetch_event_types: JSON.stringify(["scheduled_messages"]) }
          })
          assert.strictEqual(registered.status, 200, registered.text)
          assert.deepStrictEqual(registered.json.scheduled_messages, listed)
          const othersRegister = yield* server.fetch("POST", "/api/v1/register", {
            as: other,
            form: { fetch_event_types: JSON.stringify(["scheduled_messages"]) }
          })
          assert.deepStrictEqual(othersRegister.json.scheduled_messages, [])
        }))

      it.effect("PATCH: the request's errors, in Zulip's order, and 404 for unknown or others' messages", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const other = yield* othello
          const verona = yield* channelId(hamlet, "Verona")
          const t = yield* now
          const id = yield* schedule(hamlet, {
            type: "direct",
            to: JSON.stringify([other.userId]),
            content: "x",
            scheduled_delivery_timestamp: String(t + day)
          })
          const err = (msg: string) => ({ result: "error", msg, code: "BAD_REQUEST" })
          expectError(yield* patch(hamlet, id, {}), 400, err("Nothing to change"))
          expectError(
            yield* patch(hamlet, id, { type: "channel" }),
            400,
            err("Recipient required when updating type of scheduled message.")
          )
          expectError(
            yield* patch(hamlet, id, { type: "stream", to: String(verona) }),
            400,
            err("Topic required when updating scheduled message type to stream.")
          )
          expectError(
            yield* patch(hamlet, id, { scheduled_delivery_timestamp: String(t) }),
            400,
            err("Scheduled delivery time must be in the future.")
          )
          expectError(yield* patch(hamlet, 99999999, { content: "y" }), 404, notFound)
          expectError(yield* patch(iago, id, { content: "y" }), 404, notFound)
          expectError(yield* remove(iago, id), 404, notFound)
          expectError(yield* patch(hamlet, "abc", { content: "y" }), 404, new NotFoundRoute().wire)
          // Request errors come before the lookup.
          expectError(yield* patch(iago, 99999999, {}), 400, err("Nothing to change"))
          // Re-validation of a new recipient.
          expectError(
            yield* patch(hamlet, id, { to: "[99999]" }),
            400,
            { result: "error", msg: "Invalid user ID 99999", code: "BAD_REQUEST" }
          )
          expectError(
            yield* patch(hamlet, id, { to: JSON.stringify(["othello@zulip.com"]) }),
            400,
            new Errors.RecipientListUserIdsOnly().wire
          )
          expectError(
            yield* patch(hamlet, id, { type: "channel", to: "99999", topic: "t" }),
            400,
            { result: "error", msg: "Channel with ID '99999' does not exist", code: "STREAM_DOES_NOT_EXIST", stream_id: 99999 }
          )
          // Nothing above changed it.
          const item = ((yield* list(hamlet)).json.scheduled_messages as Array<Record<string, unknown>>)
            .find((m) => m.scheduled_message_id === id)
          assert.deepStrictEqual(item, {
            scheduled_message_id: id,
            to: [other.userId],
            type: "private",
            content: "x",
            rendered_content: "<p>x</p>",
            scheduled_delivery_timestamp: t + day,
            failed: false
          })
        }))

      it.effect("PATCH: content, time, topic and recipient changes, each with an update event", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const other = yield* othello
          yield* clear(hamlet)
          const verona = yield* channelId(hamlet, "Verona")
          const denmark = yield* channelId(hamlet, "Denmark")
          const t = (yield* now) + day
          const id = yield* schedule(hamlet, {
            type: "direct",
            to: JSON.stringify([other.userId]),
            content: "draft",
            scheduled_delivery_timestamp: String(t)
          })
          const events = yield* register(hamlet)
          const current = Effect.map(list(hamlet), (r) => r.json.scheduled_messages[0] as Record<string, unknown>)
          const expectUpdate = Effect.gen(function*() {
            const item = yield* current
            assert.deepStrictEqual(yield* events, [{ type: "scheduled_messages", op: "update", scheduled_message: item }])
            return item
          })
          assert.deepStrictEqual((yield* patch(hamlet, id, { content: "*final*" })).json, success())
          assert.deepStrictEqual(
            [(yield* expectUpdate).content, (yield* current).rendered_content],
            ["*final*", "<p><em>final</em></p>"]
          )
          assert.deepStrictEqual((yield* patch(hamlet, id, { scheduled_delivery_timestamp: String(t + 60) })).json, success())
          assert.strictEqual((yield* expectUpdate).scheduled_delivery_timestamp, t + 60)
          // A topic on a direct message is ignored.
          assert.deepStrictEqual((yield* patch(hamlet, id, { topic: "ignored" })).json, success())
          assert.isFalse("topic" in (yield* expectUpdate))
          // To a channel: type, recipient and topic.
          assert.deepStrictEqual(
            (yield* patch(hamlet, id, { type: "channel", to: String(verona), topic: "moved" })).json,
            success()
          )
          const moved = yield* expectUpdate
          assert.deepStrictEqual([moved.type, moved.to, moved.topic, moved.content], ["stream", verona, "moved", "*final*"])
          // Same type, another channel; then only the topic.
          yield* patch(hamlet, id, { to: String(denmark) })
          assert.deepStrictEqual([(yield* expectUpdate).to, (yield* current).topic], [denmark, "moved"])
          yield* patch(hamlet, id, { topic: "(no topic)" })
          assert.strictEqual((yield* expectUpdate).topic, "")
          // Back to a direct message.
          yield* patch(hamlet, id, { type: "direct", to: JSON.stringify([other.userId]) })
          const back = yield* expectUpdate
          assert.deepStrictEqual([back.type, back.to, "topic" in back], ["private", [other.userId], false])
        }))

      it.effect("DELETE: success, a remove event, then 404", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const other = yield* othello
          const id = yield* schedule(hamlet, {
            type: "direct",
            to: JSON.stringify([other.userId]),
            content: "cancel me",
            scheduled_delivery_timestamp: String((yield* now) + day)
          })
          const events = yield* register(hamlet)
          const otherEvents = yield* register(other)
          const deleted = yield* remove(hamlet, id)
          assert.strictEqual(deleted.status, 200)
          assert.deepStrictEqual(deleted.json, success())
          assert.deepStrictEqual(yield* events, [{ type: "scheduled_messages", op: "remove", scheduled_message_id: id }])
          assert.deepStrictEqual(yield* otherEvents, [])
          expectError(yield* remove(hamlet, id), 404, notFound)
          expectError(yield* patch(hamlet, id, { content: "y" }), 404, notFound)
          assert.isFalse(
            ((yield* list(hamlet)).json.scheduled_messages as Array<{ scheduled_message_id: number }>)
              .some((m) => m.scheduled_message_id === id)
          )
        }))

      it.effect("delivery: sent at its time as a new message, a remove event; then 'already sent'", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const other = yield* othello
          const at = (yield* now) + 5
          const id = yield* schedule(hamlet, {
            type: "direct",
            to: JSON.stringify([other.userId]),
            content: "on time",
            scheduled_delivery_timestamp: String(at)
          })
          const events = yield* register(hamlet, ["scheduled_messages", "message"])
          const otherEvents = yield* register(other, ["message"])
          assert.deepStrictEqual((yield* deliverAfter(4)).filter((o) => o.id === id), [])
          const outcomes = yield* deliverAfter(1)
          const delivered = outcomes.find((o) => o.id === id)
          assert.strictEqual(delivered?._tag, "Delivered")
          const messageId = delivered?._tag === "Delivered" ? delivered.messageId : -1
          assert.notStrictEqual(messageId, id)
          const received = yield* otherEvents
          assert.lengthOf(received, 1)
          const message = received[0]!.message as Record<string, unknown>
          assert.deepStrictEqual(
            [message.id, message.content, message.timestamp, message.sender_id, message.type],
            [messageId, "on time", at, hamlet.userId, "private"]
          )
          const mine = yield* events
          assert.deepStrictEqual(mine.filter((e) => e.type === "scheduled_messages"), [
            { type: "scheduled_messages", op: "remove", scheduled_message_id: id }
          ])
          assert.lengthOf(mine.filter((e) => e.type === "message"), 1)
          assert.isFalse(
            ((yield* list(hamlet)).json.scheduled_messages as Array<{ scheduled_message_id: number }>)
              .some((m) => m.scheduled_message_id === id)
          )
          expectError(
            yield* patch(hamlet, id, { content: "edit" }),
            400,
            { result: "error", msg: "Scheduled message was already sent", code: "BAD_REQUEST" }
          )
        }))

      it.effect("failure: failed with the send's error and a notice; editable only with a new time; then delivered", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          yield* clear(hamlet)
          const name = `Scheduled ${backend}`
          const subscribed = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: hamlet,
            form: { subscriptions: JSON.stringify([{ name }]) }
          })
          assert.strictEqual(subscribed.status, 200, subscribed.text)
          const stream = yield* channelId(hamlet, name)
          const at = (yield* now) + 5
          const id = yield* schedule(hamlet, {
            type: "channel",
            to: String(stream),
            topic: "t",
            content: "into the archive",
            scheduled_delivery_timestamp: String(at)
          })
          const events = yield* register(hamlet, ["scheduled_messages", "message"])
          const setArchived = (is_archived: boolean) =>
            server.core(Effect.gen(function*() {
              const channels = yield* ChannelRepo
              const channel = yield* channels.findById(stream as never)
              yield* channels.update({ ...channel!, is_archived })
            }))
          yield* setArchived(true)
          const outcome = (yield* deliverAfter(5)).find((o) => o.id === id)
          const reason = `Not authorized to send to channel '${name}'`
          assert.deepStrictEqual<unknown>(outcome, { _tag: "Failed", id, reason })
          const [failed] = (yield* list(hamlet)).json.scheduled_messages
          assert.deepStrictEqual(failed, {
            scheduled_message_id: id,
            to: stream,
            type: "stream",
            content: "into the archive",
            rendered_content: "<p>into the archive</p>",
            topic: "t",
            scheduled_delivery_timestamp: at,
            failed: true
          })
          const seen = yield* events
          assert.deepStrictEqual(seen.filter((e) => e.type === "scheduled_messages"), [
            { type: "scheduled_messages", op: "update", scheduled_message: failed }
          ])
          const notices = seen.filter((e) => e.type === "message").map((e) => e.message as Record<string, unknown>)
          assert.lengthOf(notices, 1)
          assert.strictEqual(notices[0]!.sender_full_name, NotificationBotName)
          assert.strictEqual(notices[0]!.type, "private")
          // Raw Markdown (these queues did not ask for apply_markdown), with Zulip's global time syntax.
          const when = new Date(at * 1000).toISOString().slice(0, 19)
          assert.strictEqual(
            notices[0]!.content,
            `The message you scheduled for <time:${when}+00:00> was not sent because of the following error:\n\n` +
              `> ${reason}\n\n[View scheduled messages](#scheduled)`
          )
          // Failed: only a new time brings it back.
          expectError(
            yield* patch(hamlet, id, { content: "again" }),
            400,
            { result: "error", msg: "Scheduled delivery time must be in the future.", code: "BAD_REQUEST" }
          )
          yield* setArchived(false)
          const retry = (yield* now) + 5
          assert.deepStrictEqual((yield* patch(hamlet, id, { scheduled_delivery_timestamp: String(retry) })).json, success())
          const [pending] = (yield* list(hamlet)).json.scheduled_messages
          assert.deepStrictEqual([pending.failed, pending.scheduled_delivery_timestamp], [false, retry])
          assert.deepStrictEqual(yield* events, [{ type: "scheduled_messages", op: "update", scheduled_message: pending }])
          const again = (yield* deliverAfter(5)).find((o) => o.id === id)
          assert.strictEqual(again?._tag, "Delivered")
          assert.deepStrictEqual((yield* list(hamlet)).json.scheduled_messages, [])
        }))
    })
  })
