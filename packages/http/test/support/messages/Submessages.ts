/** Widget messages (/poll, /todo) and POST /submessage: message objects, checks, `submessage` events. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Server } from "../Harness.ts"
import type { Credentials } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { channelId, messageId } from "@teamchat/core/domain/Ids"
import { MessageStore } from "@teamchat/core/ports/MessageStore"
import { ChannelRepo } from "@teamchat/core/ports/Repositories"
import {
  as,
  badRequest,
  bare,
  channels,
  deleteTopic,
  expectReply,
  invalidMessages,
  listedAlone,
  ownChannel,
  person,
  read,
  register,
  send,
  sent,
  success,
  withoutFlags
} from "./fixtures.ts"

export const submessage = (who: Credentials, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/submessage", { as: who, form }))

const vote = (key: string, value: number) => JSON.stringify({ type: "vote", key, vote: value })

/** The message's `submessages` as GET /messages/{id} shows them to `who`. */
const submessagesOf = (who: Credentials, id: number) =>
  Effect.map(read(who, id), (message) => message.submessages as ReadonlyArray<Record<string, unknown>>)

export const submessageTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("/poll: the widget submessage is in the message event, GET /messages/{id} and GET /messages; other messages have none", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const queue = yield* register(iago, { event_types: JSON.stringify(["message"]), apply_markdown: "true" })
      const poll = yield* sent(hamlet, {
        type: "stream",
        to: "Verona",
        topic: "widget poll",
        content: "/poll Where shall we meet?\nThe café\n- The library\n\n* Online: video"
      })
      const plain = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "widget poll", content: "/polls close at noon" })
      const shown = yield* submessagesOf(iago, poll)
      assert.strictEqual(shown.length, 1)
      assert.deepStrictEqual(shown, [{
        id: shown[0]!.id,
        message_id: poll,
        sender_id: hamlet.userId,
        msg_type: "widget",
        content: "{\"widget_type\": \"poll\", \"extra_data\": {\"question\": \"Where shall we meet?\", " +
          "\"options\": [\"The caf\\u00e9\", \"The library\", \"Online: video\"]}}"
      }])
      assert.isTrue(Number.isInteger(shown[0]!.id) && (shown[0]!.id as number) > 0)
      assert.deepStrictEqual(yield* submessagesOf(iago, plain), [])
      assert.deepStrictEqual((yield* listedAlone(iago, poll)).submessages, shown)
      const events = bare(yield* queue.drain).filter((e) => e.type === "message")
      assert.deepStrictEqual(events.map((e) => (e.message as Record<string, unknown>).id), [poll, plain])
      assert.deepStrictEqual(events[0]!.message, withoutFlags(yield* read(iago, poll)))
      assert.deepStrictEqual((events[1]!.message as Record<string, unknown>).submessages, [])
    }))

  it.effect("/todo in a direct message: tasks split at the first ': '; the sender and recipients see it", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const cordelia = yield* person("cordelia@zulip.com")
      const todo = yield* sent(hamlet, {
        type: "direct",
        to: JSON.stringify([cordelia.userId]),
        content: "/todo Trip\nBook: train: 9:00\n- Pack"
      })
      const expected = "{\"widget_type\": \"todo\", \"extra_data\": {\"task_list_title\": \"Trip\", \"tasks\": " +
        "[{\"task\": \"Book\", \"desc\": \"train: 9:00\"}, {\"task\": \"Pack\", \"desc\": \"\"}]}}"
      for (const who of [hamlet, cordelia]) {
        const [widget] = yield* submessagesOf(who, todo)
        assert.deepStrictEqual(widget, { id: widget!.id, message_id: todo, sender_id: hamlet.userId, msg_type: "widget", content: expected })
      }
    }))

  it.effect("widget_content: a zform becomes the first submessage (over /poll), as Zulip stores it; its data is unchecked", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const queue = yield* register(iago, { event_types: JSON.stringify(["message"]) })
      const widget = {
        widget_type: "zform",
        extra_data: {
          type: "choices",
          heading: "Café?",
          choices: [{ type: "multiple_choice", short_name: "A", long_name: "Yes", reply: "yes" }],
          weight: 1.5,
          big: 1e20,
          whole: 10.0,
          tiny: 0.00001
        }
      }
      // `whole` is written 10.0 and `big` 1e20: floats to Python.
      const text = JSON.stringify(widget).replace("\"whole\":10", "\"whole\":10.0").replace("100000000000000000000", "1e20")
      const id = yield* sent(hamlet, {
        type: "stream",
        to: "Verona",
        topic: "widget zform",
        content: "/poll Not this one\nA",
        widget_content: text
      })
      const shown = yield* submessagesOf(iago, id)
      assert.deepStrictEqual(shown, [{
        id: shown[0]!.id,
        message_id: id,
        sender_id: hamlet.userId,
        msg_type: "widget",
        content: "{\"widget_type\": \"zform\", \"extra_data\": {\"type\": \"choices\", \"heading\": \"Caf\\u00e9?\", " +
          "\"choices\": [{\"type\": \"multiple_choice\", \"short_name\": \"A\", \"long_name\": \"Yes\", \"reply\": \"yes\"}], " +
          "\"weight\": 1.5, \"big\": 1e+20, \"whole\": 10.0, \"tiny\": 1e-05}}"
      }])
      const events = bare(yield* queue.drain).filter((e) => e.type === "message")
      assert.deepStrictEqual(events.map((e) => (e.message as Record<string, unknown>).submessages), [shown])
      assert.strictEqual((yield* read(iago, id)).content, "<p>/poll Not this one<br>\nA</p>")
      // Not a poll: any data goes.
      expectReply(yield* submessage(iago, { message_id: String(id), msg_type: "widget", content: "{\"type\": \"anything\"}" }), 200, success())

      // In a direct message too, with an empty list of choices.
      const cordelia = yield* person("cordelia@zulip.com")
      const dm = yield* sent(hamlet, {
        type: "direct",
        to: JSON.stringify([cordelia.userId]),
        content: "pick one",
        widget_content: JSON.stringify({ extra_data: { choices: [], heading: "", type: "choices" }, widget_type: "zform" })
      })
      assert.deepStrictEqual((yield* submessagesOf(cordelia, dm)).map((m) => m.content), [
        "{\"widget_type\": \"zform\", \"extra_data\": {\"choices\": [], \"heading\": \"\", \"type\": \"choices\"}}"
      ])
    }))

  it.effect("widget_content refusals: Zulip's texts, checked after the rest of the message, nothing sent", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const queue = yield* register(hamlet, { event_types: JSON.stringify(["message", "submessage"]) })
      const form = (widget: unknown) => ({
        type: "stream",
        to: "Verona",
        topic: "widget refusals",
        content: "hello",
        widget_content: typeof widget === "string" ? widget : JSON.stringify(widget)
      })
      const zform = (extra: object) => ({ widget_type: "zform", extra_data: extra })
      const choices = (list: unknown) => zform({ type: "choices", heading: "h", choices: list })
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        ["{{{{{{", "Widgets: API programmer sent invalid JSON content"],
        ["", "Widgets: API programmer sent invalid JSON content"],
        ["\"\\ud800\"", "Widgets: API programmer sent invalid JSON content"],
        [5, "Widgets: widget_content is not a dict"],
        [[], "Widgets: widget_content is not a dict"],
        [{ color: "red", foo: "bar", x: 2 }, "Widgets: widget_type is not in widget_content"],
        [{ widget_type: "whatever" }, "Widgets: extra_data is not in widget_content"],
        [{ widget_type: "zform", extra_data: 4 }, "Widgets: extra_data is not a dict"],
        [{ widget_type: "bogus", extra_data: {} }, "Widgets: unknown widget type: bogus"],
        // Only zforms: a poll is made by /poll, not by widget_content.
        [{ widget_type: "poll", extra_data: { question: "q", options: [] } }, "Widgets: unknown widget type: poll"],
        [zform({}), "Widgets: zform is missing type field"],
        [zform({ type: "bogus" }), "Widgets: unknown zform type: bogus"],
        [zform({ type: "choices" }), "Widgets: heading key is missing from extra_data"],
        [zform({ type: "choices", heading: 1 }), "Widgets: extra_data[\"heading\"] is not a string"],
        [zform({ type: "choices", heading: "h" }), "Widgets: choices key is missing from extra_data"],
        [choices(99), "Widgets: extra_data[\"choices\"] is not a list"],
        [choices([99]), "Widgets: extra_data[\"choices\"][0] is not a dict"],
        [choices([{ long_name: "foo", reply: "bar" }]), "Widgets: short_name key is missing from extra_data[\"choices\"][0]"],
        [
          choices([{ short_name: "a", long_name: "b", reply: "c" }, { short_name: "a", long_name: 2, reply: "c" }]),
          "Widgets: extra_data[\"choices\"][1][\"long_name\"] is not a string"
        ],
        [choices([{ short_name: "a", long_name: "b" }]), "Widgets: reply key is missing from extra_data[\"choices\"][0]"]
      ]
      for (const [widget, msg] of cases) {
        const reply = yield* send(hamlet, form(widget))
        assert.deepStrictEqual([reply.status, reply.json], [400, badRequest(msg)], JSON.stringify(widget))
      }
      // The message's own checks come first.
      expectReply(
        yield* send(hamlet, { ...form("{{{{"), to: "No such channel" }),
        400,
        { result: "error", msg: "Channel 'No such channel' does not exist", code: "STREAM_DOES_NOT_EXIST", stream: "No such channel" }
      )
      expectReply(yield* send(hamlet, { ...form("{{{{"), content: "" }), 400, badRequest("Message must not be empty"))
      assert.deepStrictEqual(yield* queue.drain, [])
    }))

  it.effect("POST /submessage: stored as sent, in id order on the message, a submessage event to everyone who received it", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const cordelia = yield* person("cordelia@zulip.com")
      const othello = yield* person("othello@zulip.com")
      const types = JSON.stringify(["submessage"])
      const queues = { hamlet: yield* register(hamlet, { event_types: types }), cordelia: yield* register(cordelia, { event_types: types }), othello: yield* register(othello, { event_types: types }) }
      const poll = yield* sent(hamlet, { type: "direct", to: JSON.stringify([cordelia.userId]), content: "/poll Tea or coffee?\nTea\nCoffee" })
      const [widget] = yield* submessagesOf(hamlet, poll)
      // Content is stored verbatim: spacing and key order as the client sent them.
      const content = `{"type": "vote",  "key": "canned,1", "vote": 1}`
      expectReply(yield* submessage(cordelia, { message_id: String(poll), msg_type: "widget", content }), 200, success())
      const option = JSON.stringify({ type: "new_option", option: "Water", idx: 1 })
      expectReply(yield* submessage(hamlet, { message_id: String(poll), msg_type: "widget", content: option }), 200, success())
      const shown = yield* submessagesOf(cordelia, poll)
      assert.deepStrictEqual(shown.map((s) => s.id), [...shown.map((s) => s.id as number)].sort((a, b) => a - b))
      assert.deepStrictEqual(shown, [
        widget,
        { id: shown[1]!.id, message_id: poll, sender_id: cordelia.userId, msg_type: "widget", content },
        { id: shown[2]!.id, message_id: poll, sender_id: hamlet.userId, msg_type: "widget", content: option }
      ])
      const expected = [
        { type: "submessage", msg_type: "widget", message_id: poll, submessage_id: shown[1]!.id, sender_id: cordelia.userId, content },
        { type: "submessage", msg_type: "widget", message_id: poll, submessage_id: shown[2]!.id, sender_id: hamlet.userId, content: option }
      ]
      assert.deepStrictEqual(bare(yield* queues.hamlet.drain), expected)
      assert.deepStrictEqual(bare(yield* queues.cordelia.drain), expected)
      // Not a participant: no access, no event.
      expectReply(yield* submessage(othello, { message_id: String(poll), msg_type: "widget", content: vote("canned,1", 1) }), 400, invalidMessages)
      assert.deepStrictEqual(bare(yield* queues.othello.drain), [])
      assert.deepStrictEqual(yield* submessagesOf(hamlet, poll), shown)
    }))

  it.effect("POST /submessage on a public channel: subscribers hear of it, a reader who is not subscribed may add one but gets no event", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const polonius = yield* as("guest")
      const { channel, members: [alice, bob] } = yield* ownChannel(
        { ...iago, userId: iago.userId },
        [["widget-alice@zulip.com", "Widget Alice"], ["widget-bob@zulip.com", "Widget Bob"]],
        { name: "widget public" }
      )
      const types = JSON.stringify(["submessage"])
      const queues = [yield* register(alice.as, { event_types: types }), yield* register(bob.as, { event_types: types }), yield* register(iago, { event_types: types })]
      const outsider = yield* register(hamlet, { event_types: types })
      const poll = yield* sent(alice.as, { type: "stream", to: String(channel), topic: "vote", content: "/poll Yes?\nYes\nNo" })
      const data = vote("canned,0", 1)
      expectReply(yield* submessage(hamlet, { message_id: String(poll), msg_type: "widget", content: data }), 200, success())
      const [, added] = yield* submessagesOf(alice.as, poll)
      const event = { type: "submessage", msg_type: "widget", message_id: poll, submessage_id: added!.id, sender_id: hamlet.userId, content: data }
      for (const queue of queues) assert.deepStrictEqual(bare(yield* queue.drain), [event])
      assert.deepStrictEqual(bare(yield* outsider.drain), [])
      // A guest has no access to a public channel it is not subscribed to.
      expectReply(yield* submessage(polonius, { message_id: String(poll), msg_type: "widget", content: data }), 400, invalidMessages)
      void bob
    }))

  it.effect("POST /submessage refusals: Zulip's texts, nothing stored, no event", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const cordelia = yield* person("cordelia@zulip.com")
      const queue = yield* register(hamlet, { event_types: JSON.stringify(["submessage"]) })
      const poll = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "widget refusals", content: "/poll Q\nA" })
      const todo = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "widget refusals", content: "/todo List" })
      const plain = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "widget refusals", content: "no widget" })
      const before = { poll: yield* submessagesOf(hamlet, poll), todo: yield* submessagesOf(hamlet, todo), plain: yield* submessagesOf(hamlet, plain) }
      const cases: ReadonlyArray<readonly [Credentials, number | string, string, string]> = [
        [cordelia, plain, vote("k", 1), "You cannot attach a submessage to this message."],
        [cordelia, poll, "{not json", "Invalid json for submessage"],
        [cordelia, poll, "", "Invalid json for submessage"],
        [cordelia, poll, `{"type": "vote", "key": "\\ud800", "vote": 1}`, "Invalid json for submessage"],
        [cordelia, poll, JSON.stringify({ type: "question", question: "Mine?" }), "You can't edit a question unless you are the author."],
        [cordelia, poll, JSON.stringify({ type: "vote", key: "k", vote: 3 }), "Invalid poll data[\"vote\"]"],
        [cordelia, poll, `{"type": "vote", "key": "k", "vote": 1.0}`, "poll data[\"vote\"] is not an integer"],
        [cordelia, poll, JSON.stringify({ type: "vote", key: "k" }), "vote key is missing from poll data"],
        [cordelia, poll, JSON.stringify({ type: "vote", key: "k", vote: 1, extra: true }), "Unexpected arguments: extra"],
        [cordelia, poll, JSON.stringify({ type: "new_option", option: "B", idx: 1001 }), "poll data[\"idx\"] is too large"],
        [cordelia, poll, JSON.stringify({ type: "close" }), "Unknown type for poll data: close"],
        [cordelia, poll, JSON.stringify(["vote"]), "poll data is not a dict"],
        [cordelia, todo, JSON.stringify({ type: "new_task_list_title", title: "Mine" }), "You can't edit the task list title unless you are the author."],
        [cordelia, todo, JSON.stringify({ type: "new_task", key: 1, task: "T", desc: "", completed: "no" }), "todo data[\"completed\"] is not a boolean"],
        [cordelia, todo, JSON.stringify({ type: "strike" }), "key key is missing from todo data"],
        [cordelia, todo, JSON.stringify({ type: "vote" }), "Unknown type for todo data: vote"],
        [cordelia, 999_999_999, vote("k", 1), "Invalid message(s)"],
        [cordelia, 0, vote("k", 1), "Invalid message(s)"],
        [cordelia, -5, vote("k", 1), "Invalid message(s)"]
      ]
      for (const [who, id, content, msg] of cases) {
        expectReply(yield* submessage(who, { message_id: String(id), msg_type: "widget", content }), 400, badRequest(msg))
      }
      assert.deepStrictEqual(
        { poll: yield* submessagesOf(hamlet, poll), todo: yield* submessagesOf(hamlet, todo), plain: yield* submessagesOf(hamlet, plain) },
        before
      )
      assert.deepStrictEqual(bare(yield* queue.drain).filter((e) => e.type === "submessage"), [])
    }))

  it.effect("POST /submessage: the sender may attach any submessage to a plain message, and then others may too, any msg_type, data unchecked", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const cordelia = yield* person("cordelia@zulip.com")
      const plain = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "widget plain", content: "plain" })
      expectReply(yield* submessage(hamlet, { message_id: String(plain), msg_type: "custom", content: "[1, 2]" }), 200, success())
      expectReply(yield* submessage(cordelia, { message_id: String(plain), msg_type: "widget", content: "\"anything\"" }), 200, success())
      const shown = yield* submessagesOf(cordelia, plain)
      assert.deepStrictEqual(shown.map(({ id: _id, ...rest }) => rest), [
        { message_id: plain, sender_id: hamlet.userId, msg_type: "custom", content: "[1, 2]" },
        { message_id: plain, sender_id: cordelia.userId, msg_type: "widget", content: "\"anything\"" }
      ])
    }))

  it.effect("POST /submessage on a message of an archived channel: Invalid message(s)", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const { channel, members: [alice] } = yield* ownChannel(
        { ...iago, userId: iago.userId },
        [["widget-archived-a@zulip.com", "Archived A"], ["widget-archived-b@zulip.com", "Archived B"]],
        { name: "widget archived" }
      )
      const poll = yield* sent(alice.as, { type: "stream", to: String(channel), topic: "t", content: "/poll Q" })
      const server = yield* Server
      yield* server.core(Effect.gen(function*() {
        const repo = yield* ChannelRepo
        const stored = (yield* repo.findById(channelId(channel)))!
        yield* repo.update({ ...stored, is_archived: true })
      }))
      expectReply(yield* submessage(alice.as, { message_id: String(poll), msg_type: "widget", content: vote("k", 1) }), 400, invalidMessages)
    }))

  it.effect("delete_topic removes the messages' submessages", () =>
    Effect.gen(function*() {
      const iago = yield* as("admin")
      const hamlet = yield* as("member")
      const poll = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "widget doomed", content: "/poll Q\nA" })
      expectReply(yield* submessage(iago, { message_id: String(poll), msg_type: "widget", content: vote("k", 1) }), 200, success())
      const server = yield* Server
      const stored = () => server.core(Effect.flatMap(MessageStore, (store) => store.submessages([messageId(poll)])))
      assert.strictEqual((yield* stored()).length, 2)
      const { Verona: verona } = yield* channels
      expectReply(yield* deleteTopic(iago, verona!.id, "widget doomed"), 200, success({ complete: true }))
      assert.deepStrictEqual(yield* stored(), [])
      expectReply(yield* submessage(iago, { message_id: String(poll), msg_type: "widget", content: vote("k", 1) }), 400, invalidMessages)
    }))
}
