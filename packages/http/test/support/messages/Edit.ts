/** PATCH /messages/{message_id} (content edits) and GET /messages/{message_id}/history. */
import { assert } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import type { Vitest } from "@effect/vitest"
import type { RealmSettings } from "@teamchat/core/domain/Realm"
import { RealmRepo } from "@teamchat/core/ports/Repositories"
import type { Credentials } from "../Harness.ts"
import { realmUrl, Server } from "../Harness.ts"
import {
  as,
  badRequest,
  bare,
  expectReply,
  getMessage,
  invalidMessages,
  listedAlone,
  notificationBotId,
  ownChannel,
  read,
  register,
  sent,
  success,
  topicMessages
} from "./fixtures.ts"

const editMessage = (who: Credentials, id: number | string, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("PATCH", `/api/v1/messages/${id}`, { as: who, form }))

const history = (who: Credentials, id: number | string, query?: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("GET", `/api/v1/messages/${id}/history`, { as: who, query }))

const edited = success({ detached_uploads: [] })

const nowSeconds = Effect.map(Server, (server) => Math.floor(server.clock.now() / 1000))

/** Runs `body` with some organization settings changed, restoring them after (the server is shared). */
const withSettings = <A, E, R>(changes: Partial<RealmSettings>, body: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const server = yield* Server
    const set = (f: (settings: RealmSettings) => RealmSettings) =>
      server.core(Effect.gen(function*() {
        const realms = yield* RealmRepo
        const realm = (yield* realms.findByStringId("zulip"))!
        const before = realm.settings
        yield* realms.update({ ...realm, settings: f(before) })
        return before
      }))
    const before = yield* set((s) => ({ ...s, ...changes }))
    return yield* body.pipe(Effect.ensuring(Effect.orDie(set(() => before))))
  })

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

let channels = 0
/** A channel of the test's own with two new members (the first sends), `iago` subscribed too. */
const fresh = (label: string) =>
  Effect.gen(function*() {
    const iago = { ...(yield* as("admin")) }
    const n = ++channels
    const made = yield* ownChannel(iago, [
      [`edit-${label}-${n}-a@zulip.com`, `Editor ${label} ${n}`],
      [`edit-${label}-${n}-b@zulip.com`, `Reader ${label} ${n}`]
    ], { name: `edits ${label} ${n}` })
    return { iago, channel: made.channel, name: `edits ${label} ${n}`, sender: made.members[0], reader: made.members[1] }
  })

export const editTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("PATCH /messages/{id}: the sender edits the content; the message, its raw content, last_edit_timestamp and edit_history follow", () =>
    Effect.gen(function*() {
      const { channel, sender, reader } = yield* fresh("content")
      const id = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "t", content: "hello" })
      const sentAt = yield* nowSeconds
      const server = yield* Server
      server.clock.advance(30_000)
      expectReply(yield* editMessage(sender.as, id, { content: "hello **world**" }), 200, edited)
      const editedAt = sentAt + 30
      const view = yield* read(reader.as, id)
      assert.strictEqual(view.content, "<p>hello <strong>world</strong></p>")
      assert.strictEqual(view.last_edit_timestamp, editedAt)
      assert.deepStrictEqual(view.edit_history, [
        { user_id: sender.id, timestamp: editedAt, prev_content: "hello", prev_rendered_content: "<p>hello</p>" }
      ])
      assert.isFalse("last_moved_timestamp" in view)
      const raw = yield* getMessage(reader.as, id)
      assert.strictEqual(raw.json.raw_content, "hello **world**")
      // GET /messages shows the same fields.
      const listed = yield* listedAlone(reader.as, id)
      assert.deepStrictEqual(listed, view)

      // A second edit goes first in edit_history.
      server.clock.advance(10_000)
      expectReply(yield* editMessage(sender.as, id, { content: "bye" }), 200, edited)
      const again = yield* read(reader.as, id)
      assert.strictEqual(again.last_edit_timestamp, editedAt + 10)
      assert.deepStrictEqual(again.edit_history, [
        {
          user_id: sender.id,
          timestamp: editedAt + 10,
          prev_content: "hello **world**",
          prev_rendered_content: "<p>hello <strong>world</strong></p>"
        },
        { user_id: sender.id, timestamp: editedAt, prev_content: "hello", prev_rendered_content: "<p>hello</p>" }
      ])

      // Content empty after trimming is stored as "(deleted)".
      expectReply(yield* editMessage(sender.as, id, { content: "  \n " }), 200, edited)
      assert.strictEqual((yield* getMessage(reader.as, id)).json.raw_content, "(deleted)")
      assert.strictEqual((yield* read(reader.as, id)).content, "<p>(deleted)</p>")
    }))

  it.effect("PATCH /messages/{id}: update_message to everyone with the message, with each one's flags; a DM edit names no channel", () =>
    Effect.gen(function*() {
      const { iago, channel, name, sender, reader } = yield* fresh("events")
      const types = JSON.stringify(["update_message"])
      const senderQueue = yield* register(sender.as, { event_types: types })
      const readerQueue = yield* register(reader.as, { event_types: types })
      const adminQueue = yield* register(iago, { event_types: types })
      const id = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "t", content: "plain" })
      const server = yield* Server
      server.clock.advance(5_000)
      const at = yield* nowSeconds
      expectReply(yield* editMessage(sender.as, id, { content: `now for @**${"Reader events " + String(channels)}**` }), 200, edited)
      const after = yield* read(sender.as, id)
      const common = {
        type: "update_message",
        user_id: sender.id,
        edit_timestamp: at,
        message_id: id,
        message_ids: [id],
        rendering_only: false,
        orig_content: "plain",
        orig_rendered_content: "<p>plain</p>",
        content: `now for @**Reader events ${channels}**`,
        rendered_content: after.content,
        is_me_message: false,
        stream_id: channel,
        stream_name: name
      }
      assert.include(after.content as string, "user-mention")
      assert.deepStrictEqual(bare(yield* senderQueue.drain), [{ ...common, flags: (yield* read(sender.as, id)).flags }])
      // The reader is mentioned now: the row and the event say so.
      const readerFlags = (yield* read(reader.as, id)).flags
      assert.deepStrictEqual(readerFlags, ["mentioned"])
      assert.deepStrictEqual(bare(yield* readerQueue.drain), [{ ...common, flags: readerFlags }])
      assert.deepStrictEqual(bare(yield* adminQueue.drain), [{ ...common, flags: (yield* read(iago, id)).flags }])
      // The mention removed: the flag goes.
      expectReply(yield* editMessage(sender.as, id, { content: "plain again" }), 200, edited)
      assert.deepStrictEqual((yield* read(reader.as, id)).flags, [])
      const [removed] = bare(yield* readerQueue.drain)
      assert.deepStrictEqual(removed!.flags, [])
      assert.deepStrictEqual(bare(yield* adminQueue.drain).map((e) => e.content), ["plain again"])

      // A direct message: no stream_id or stream_name; only its participants hear of it.
      const dm = yield* sent(sender.as, { type: "direct", to: JSON.stringify([reader.id]), content: "psst" })
      yield* senderQueue.drain
      expectReply(yield* editMessage(sender.as, dm, { content: "/me whispers" }), 200, edited)
      const dmView = yield* read(reader.as, dm)
      const dmEvent = {
        type: "update_message",
        user_id: sender.id,
        edit_timestamp: at,
        message_id: dm,
        message_ids: [dm],
        rendering_only: false,
        orig_content: "psst",
        orig_rendered_content: "<p>psst</p>",
        content: "/me whispers",
        rendered_content: dmView.content,
        is_me_message: true
      }
      assert.isTrue(dmView.is_me_message as boolean)
      assert.deepStrictEqual(bare(yield* readerQueue.drain), [{ ...dmEvent, flags: dmView.flags }])
      assert.deepStrictEqual(bare(yield* senderQueue.drain), [{ ...dmEvent, flags: (yield* read(sender.as, dm)).flags }])
      assert.deepStrictEqual(bare(yield* adminQueue.drain), [])
    }))

  it.effect("PATCH /messages/{id}: only the sender, within the limit plus 20 s, while the organization allows editing", () =>
    Effect.gen(function*() {
      const { iago, channel, sender, reader } = yield* fresh("rules")
      const server = yield* Server
      const owner = yield* as("owner")
      const id = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "t", content: "mine" })
      const notYours = badRequest("You don't have permission to edit this message")
      // Administrators and owners included: content is the sender's.
      for (const who of [reader.as, iago, owner]) expectReply(yield* editMessage(who, id, { content: "theirs" }), 400, notYours)
      // 600 s and the 20 s grace: still editable at 620 s, not at 621 s.
      server.clock.advance(620_000)
      expectReply(yield* editMessage(sender.as, id, { content: "at 620" }), 200, edited)
      server.clock.advance(1_000)
      expectReply(
        yield* editMessage(sender.as, id, { content: "at 621" }),
        400,
        badRequest("The time limit for editing this message has passed")
      )
      // No limit: editable forever.
      yield* withSettings(
        { message_content_edit_limit_seconds: null },
        Effect.gen(function*() {
          expectReply(yield* editMessage(sender.as, id, { content: "later" }), 200, edited)
        })
      )
      // Editing off: refused before anything else about content.
      const fresh2 = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "t", content: "new" })
      yield* withSettings(
        { allow_message_editing: false },
        Effect.gen(function*() {
          for (const who of [sender.as, reader.as]) {
            expectReply(
              yield* editMessage(who, fresh2, { content: "x" }),
              400,
              badRequest("Your organization has turned off message editing")
            )
          }
        })
      )
      assert.strictEqual((yield* getMessage(sender.as, id)).json.raw_content, "later")
      assert.strictEqual((yield* getMessage(sender.as, fresh2)).json.raw_content, "new")
    }))

  it.effect("PATCH /messages/{id}: Zulip's errors for inaccessible messages, nothing to change, propagate_mode and prev_content_sha256", () =>
    Effect.gen(function*() {
      const { channel, sender } = yield* fresh("errors")
      const hamlet = yield* as("member")
      const id = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "t", content: "original" })
      // A direct message hamlet is not in; a message that does not exist.
      const { sender: insider } = yield* fresh("errors-other")
      const hidden = yield* sent(insider.as, { type: "direct", to: JSON.stringify([insider.id]), content: "note to self" })
      for (const target of [hidden, 999_999_999]) {
        expectReply(yield* editMessage(hamlet, target, { content: "x" }), 400, invalidMessages)
      }
      expectReply(yield* editMessage(sender.as, id, {}), 400, badRequest("Nothing to change"))
      expectReply(yield* editMessage(sender.as, id, { propagate_mode: "change_sometimes", content: "x" }), 400, badRequest("Invalid propagate_mode"))
      for (const mode of ["change_later", "change_all"]) {
        expectReply(
          yield* editMessage(sender.as, id, { propagate_mode: mode, content: "x" }),
          400,
          badRequest("Invalid propagate_mode without topic edit")
        )
      }
      expectReply(
        yield* editMessage(sender.as, id, { content: "x", prev_content_sha256: sha256("not the content") }),
        400,
        {
          result: "error",
          msg: "'prev_content_sha256' value does not match the expected value.",
          code: "EXPECTATION_MISMATCH"
        }
      )
      assert.strictEqual((yield* getMessage(sender.as, id)).json.raw_content, "original")
      expectReply(yield* editMessage(sender.as, id, { content: "checked", prev_content_sha256: sha256("original") }), 200, edited)
      assert.strictEqual((yield* getMessage(sender.as, id)).json.raw_content, "checked")
      // The hash of the old content no longer matches.
      expectReply(
        yield* editMessage(sender.as, id, { content: "again", prev_content_sha256: sha256("original") }),
        400,
        {
          result: "error",
          msg: "'prev_content_sha256' value does not match the expected value.",
          code: "EXPECTATION_MISMATCH"
        }
      )
      // A path id that is not a message id.
      expectReply(yield* editMessage(sender.as, "0", { content: "x" }), 400, invalidMessages)
    }))

  it.effect("GET /messages/{id}/history: the original and each edit oldest first, with diffs; the organization's policy", () =>
    Effect.gen(function*() {
      const { channel, sender, reader } = yield* fresh("history")
      const hamlet = yield* as("member")
      const server = yield* Server
      const id = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "story", content: "hello" })
      const sentAt = yield* nowSeconds
      const original = { topic: "story", content: "hello", rendered_content: "<p>hello</p>", timestamp: sentAt, user_id: sender.id }
      expectReply(yield* history(reader.as, id), 200, success({ message_history: [original] }))
      server.clock.advance(10_000)
      expectReply(yield* editMessage(sender.as, id, { content: "hello world" }), 200, edited)
      server.clock.advance(10_000)
      expectReply(yield* editMessage(sender.as, id, { content: "goodbye world" }), 200, edited)
      const full = [
        original,
        {
          topic: "story",
          content: "hello world",
          rendered_content: "<p>hello world</p>",
          timestamp: sentAt + 10,
          user_id: sender.id,
          prev_content: "hello",
          prev_rendered_content: "<p>hello</p>",
          content_html_diff: "<p>hello<span class=\"highlight_text_inserted\"> world</span></p>"
        },
        {
          topic: "story",
          content: "goodbye world",
          rendered_content: "<p>goodbye world</p>",
          timestamp: sentAt + 20,
          user_id: sender.id,
          prev_content: "hello world",
          prev_rendered_content: "<p>hello world</p>",
          content_html_diff:
            "<p><span class=\"highlight_text_deleted\">hello</span><span class=\"highlight_text_inserted\">goodbye</span> world</p>"
        }
      ]
      expectReply(yield* history(reader.as, id), 200, success({ message_history: full }))
      // Anyone who can read the message can read its history (hamlet reads the public channel's history).
      expectReply(yield* history(hamlet, id), 200, success({ message_history: full }))
      expectReply(yield* history(reader.as, 999_999_999), 400, invalidMessages)

      // "moves": content edits are not shown, in the history or on the message.
      yield* withSettings(
        { message_edit_history_visibility_policy: "moves" },
        Effect.gen(function*() {
          expectReply(yield* history(reader.as, id), 200, success({ message_history: [original] }))
          const view = yield* read(reader.as, id)
          assert.isFalse("edit_history" in view)
          assert.strictEqual(view.last_edit_timestamp, sentAt + 20)
        })
      )
      // "none": the endpoint is refused and messages carry no edit_history.
      yield* withSettings(
        { message_edit_history_visibility_policy: "none" },
        Effect.gen(function*() {
          expectReply(
            yield* history(reader.as, id),
            400,
            badRequest("Message edit history is disabled in this organization")
          )
          assert.isFalse("edit_history" in (yield* read(reader.as, id)))
          // Checked before access.
          expectReply(
            yield* history(reader.as, 999_999_999),
            400,
            badRequest("Message edit history is disabled in this organization")
          )
        })
      )
      assert.strictEqual((yield* read(reader.as, id)).edit_history !== undefined, true)
    }))

  // -----------------------------------------------------------------------
  // topic moves within a channel

  it.effect("PATCH /messages/{id} topic with change_all: the topic moves, update_message, edit_history, last_moved_timestamp, Notification Bot's notice", () =>
    Effect.gen(function*() {
      const { channel, name, sender, reader } = yield* fresh("moves")
      const server = yield* Server
      const queue = yield* register(reader.as, { event_types: JSON.stringify(["update_message"]) })
      const ids: Array<number> = []
      for (const content of ["one", "two", "three"]) {
        ids.push(yield* sent(sender.as, { type: "stream", to: String(channel), topic: "old", content }))
      }
      const sentAt = yield* nowSeconds
      server.clock.advance(60_000)
      const at = sentAt + 60
      expectReply(
        yield* editMessage(reader.as, ids[1]!, { topic: "new", propagate_mode: "change_all" }),
        200,
        edited
      )
      const bot = yield* notificationBotId(reader.as)
      const mover = `@_**Reader moves ${channels}|${reader.id}**`
      const moved = yield* topicMessages(reader.as, channel, "new")
      assert.deepStrictEqual(moved.slice(0, 3), [[ids[0], sender.id, "one"], [ids[1], sender.id, "two"], [ids[2], sender.id, "three"]])
      assert.deepStrictEqual(moved.slice(3).map(([, who, text]) => [who, text]), [
        [bot, `This topic was moved here from #**${name}>old** by ${mover}.`]
      ])
      assert.deepStrictEqual(yield* topicMessages(reader.as, channel, "old"), [])
      const view = yield* read(reader.as, ids[0]!)
      assert.strictEqual(view.subject, "new")
      assert.strictEqual(view.last_moved_timestamp, at)
      assert.isFalse("last_edit_timestamp" in view)
      assert.deepStrictEqual(view.edit_history, [{ user_id: reader.id, timestamp: at, prev_topic: "old", topic: "new" }])
      assert.deepStrictEqual(bare(yield* queue.drain), [{
        type: "update_message",
        user_id: reader.id,
        edit_timestamp: at,
        message_id: ids[1],
        message_ids: ids,
        rendering_only: false,
        flags: (yield* read(reader.as, ids[1]!)).flags,
        stream_id: channel,
        stream_name: name,
        propagate_mode: "change_all",
        orig_subject: "old",
        subject: "new",
        topic_links: []
      }])
      // The history names the topic of each state.
      expectReply(yield* history(reader.as, ids[1]!), 200, success({
        message_history: [
          { topic: "old", content: "two", rendered_content: "<p>two</p>", timestamp: sentAt, user_id: sender.id },
          {
            topic: "new",
            content: "two",
            rendered_content: "<p>two</p>",
            timestamp: at,
            user_id: reader.id,
            prev_topic: "old"
          }
        ]
      }))
    }))

  it.effect("PATCH /messages/{id} topic: change_one and change_later move what they say; notices count them, in the old topic on request", () =>
    Effect.gen(function*() {
      const { channel, name, sender } = yield* fresh("partial")
      const mover = `@_**Editor partial ${channels}|${sender.id}**`
      const ids: Array<number> = []
      for (const content of ["a", "b", "c"]) ids.push(yield* sent(sender.as, { type: "stream", to: String(channel), topic: "here", content }))
      const bot = yield* notificationBotId(sender.as)
      const texts = (rows: ReadonlyArray<readonly [number, number, string]>) => rows.filter(([, who]) => who === bot).map(([, , t]) => t)
      expectReply(
        yield* editMessage(sender.as, ids[1]!, {
          topic: "later",
          propagate_mode: "change_later",
          send_notification_to_old_thread: "true"
        }),
        200,
        edited
      )
      const later = yield* topicMessages(sender.as, channel, "later")
      assert.deepStrictEqual(later.filter(([, who]) => who !== bot).map(([id]) => id), [ids[1], ids[2]])
      assert.deepStrictEqual(texts(later), [`2 messages were moved here from #**${name}>here** by ${mover}.`])
      const here = yield* topicMessages(sender.as, channel, "here")
      assert.deepStrictEqual(here.filter(([, who]) => who !== bot).map(([id]) => id), [ids[0]])
      assert.deepStrictEqual(texts(here), [`2 messages were moved from this topic to #**${name}>later** by ${mover}.`])

      expectReply(
        yield* editMessage(sender.as, ids[0]!, { subject: "single", send_notification_to_new_thread: "false" }),
        200,
        edited
      )
      assert.deepStrictEqual(yield* topicMessages(sender.as, channel, "single"), [[ids[0], sender.id, "a"]])
      // change_one into a topic that has messages: a link to the message.
      expectReply(yield* editMessage(sender.as, ids[0]!, { topic: "later" }), 200, edited)
      const slug = `${channel}-edits-partial-${channels}`
      assert.deepStrictEqual(texts(yield* topicMessages(sender.as, channel, "later")), [
        `2 messages were moved here from #**${name}>here** by ${mover}.`,
        `[A message](${realmUrl}/#narrow/channel/${slug}/topic/later/near/${ids[0]}) was moved here from #**${name}>single** by ${mover}.`
      ])
      // The same topic again changes nothing.
      expectReply(yield* editMessage(sender.as, ids[0]!, { topic: " later " }), 400, badRequest("Nothing to change"))
    }))

  it.effect("PATCH /messages/{id} topic: resolving and unresolving post their notices and are not moves; Zulip's refusals", () =>
    Effect.gen(function*() {
      const { channel, sender, reader } = yield* fresh("resolve")
      const ids = [
        yield* sent(sender.as, { type: "stream", to: String(channel), topic: "bug", content: "broken" }),
        yield* sent(sender.as, { type: "stream", to: String(channel), topic: "bug", content: "still" })
      ]
      const mover = `@_**Reader resolve ${channels}|${reader.id}**`
      expectReply(yield* editMessage(reader.as, ids[0]!, { topic: "\u2714 bug", propagate_mode: "change_all" }), 200, edited)
      // The bot exists once it has posted (the first notice may be this one).
      const bot = yield* notificationBotId(reader.as)
      const resolved = yield* topicMessages(reader.as, channel, "\u2714 bug")
      assert.deepStrictEqual(resolved.map(([id, who, text]) => who === bot ? [who, text] : [id]), [
        [ids[0]],
        [ids[1]],
        [bot, `${mover} has marked this topic as resolved.`]
      ])
      const view = yield* read(reader.as, ids[0]!)
      assert.isFalse("last_moved_timestamp" in view)
      assert.strictEqual((view.edit_history as Array<any>)[0].topic, "\u2714 bug")
      // Past the undo grace period (60 s), unresolving posts its own notice.
      const server = yield* Server
      server.clock.advance(61_000)
      expectReply(yield* editMessage(reader.as, ids[0]!, { topic: "bug", propagate_mode: "change_all" }), 200, edited)
      const reopened = yield* topicMessages(reader.as, channel, "bug")
      assert.deepStrictEqual(reopened.filter(([, who]) => who === bot).map(([, , t]) => t), [
        `${mover} has marked this topic as resolved.`,
        `${mover} has marked this topic as unresolved.`
      ])
      for (const topic of ["\u2714", "\u2714 general chat"]) {
        expectReply(yield* editMessage(reader.as, ids[0]!, { topic }), 400, badRequest("General chat cannot be marked as resolved"))
      }
      const dm = yield* sent(sender.as, { type: "direct", to: JSON.stringify([reader.id]), content: "dm" })
      expectReply(yield* editMessage(sender.as, dm, { topic: "x" }), 400, badRequest("Direct messages cannot have topics."))
      expectReply(yield* editMessage(sender.as, ids[0]!, { topic: "bad\u0001" }), 400, badRequest("Invalid character in topic, at position 4!"))
    }))

  it.effect("PATCH /messages/{id} topic: undoing a resolve (or an unresolve) within 60 s deletes the notice, with delete_message, instead of posting one", () =>
    Effect.gen(function*() {
      const { iago, channel, sender, reader } = yield* fresh("undo")
      const server = yield* Server
      const types = JSON.stringify(["message", "update_message", "delete_message"])
      const capabilities = JSON.stringify({ bulk_message_deletion: true })
      const readerQueue = yield* register(reader.as, { event_types: types, client_capabilities: capabilities })
      const legacyQueue = yield* register(iago, { event_types: JSON.stringify(["delete_message"]) })
      const id = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "oops", content: "hi" })
      const mover = `@_**Reader undo ${channels}|${reader.id}**`
      const notices = (topic: string) =>
        Effect.map(topicMessages(reader.as, channel, topic), (rows) => rows.filter(([, who]) => who === bot))
      const resolve = (topic: string) => editMessage(reader.as, id, { topic, propagate_mode: "change_all" })

      expectReply(yield* resolve("\u2714 oops"), 200, edited)
      const bot = yield* notificationBotId(reader.as)
      const notice = (yield* notices("\u2714 oops"))[0]![0]
      yield* readerQueue.drain
      yield* legacyQueue.drain
      // 60 s later (the limit itself): unresolving deletes the notice and posts none.
      server.clock.advance(60_000)
      expectReply(yield* resolve("oops"), 200, edited)
      assert.deepStrictEqual(yield* topicMessages(reader.as, channel, "oops"), [[id, sender.id, "hi"]])
      assert.deepStrictEqual(yield* topicMessages(reader.as, channel, "\u2714 oops"), [])
      // The topic moves (the notice with it), then the notice goes; no new message.
      assert.deepStrictEqual(bare(yield* readerQueue.drain).map((e) => [e.type, e.message_ids]), [
        ["update_message", [id, notice]],
        ["delete_message", [notice]]
      ])
      assert.deepStrictEqual(bare(yield* legacyQueue.drain), [
        { type: "delete_message", message_id: notice, message_type: "stream", stream_id: channel, topic: "oops" }
      ])

      // The other way round: an unresolve notice undone by resolving again.
      server.clock.advance(120_000)
      expectReply(yield* resolve("\u2714 oops"), 200, edited)
      server.clock.advance(120_000)
      expectReply(yield* resolve("oops"), 200, edited)
      assert.deepStrictEqual((yield* notices("oops")).map(([, , text]) => text), [
        `${mover} has marked this topic as resolved.`,
        `${mover} has marked this topic as unresolved.`
      ])
      server.clock.advance(30_000)
      expectReply(yield* resolve("\u2714 oops"), 200, edited)
      assert.deepStrictEqual((yield* notices("\u2714 oops")).map(([, , text]) => text), [
        `${mover} has marked this topic as resolved.`
      ])

      // 61 s is too late: the undo posts its notice.
      server.clock.advance(61_000)
      expectReply(yield* resolve("oops"), 200, edited)
      assert.deepStrictEqual((yield* notices("oops")).map(([, , text]) => text), [
        `${mover} has marked this topic as resolved.`,
        `${mover} has marked this topic as unresolved.`
      ])

      // Only a notice that is the topic's last message: a reply in between keeps it.
      server.clock.advance(120_000)
      expectReply(yield* resolve("\u2714 oops"), 200, edited)
      yield* sent(sender.as, { type: "stream", to: String(channel), topic: "\u2714 oops", content: "thanks" })
      expectReply(yield* resolve("oops"), 200, edited)
      assert.deepStrictEqual((yield* notices("oops")).map(([, , text]) => text), [
        `${mover} has marked this topic as resolved.`,
        `${mover} has marked this topic as unresolved.`,
        `${mover} has marked this topic as resolved.`,
        `${mover} has marked this topic as unresolved.`
      ])
      // Someone else's message with a notice's words is no notice: the undo posts one.
      server.clock.advance(120_000)
      expectReply(yield* resolve("\u2714 oops"), 200, edited)
      const spoof = yield* sent(sender.as, {
        type: "stream",
        to: String(channel),
        topic: "\u2714 oops",
        content: `${mover} has marked this topic as resolved.`
      })
      expectReply(yield* resolve("oops"), 200, edited)
      const after = yield* topicMessages(reader.as, channel, "oops")
      assert.deepStrictEqual(after.filter(([, who]) => who === bot).length, 6)
      assert.deepStrictEqual(after.at(-2), [spoof, sender.id, `${mover} has marked this topic as resolved.`])
    }))

  it.effect("PATCH /messages/{id} topic: a week plus 20 s for members, none for moderators; change_all answers MOVE_MESSAGES_TIME_LIMIT_EXCEEDED", () =>
    Effect.gen(function*() {
      const { iago, channel, sender, reader } = yield* fresh("limits")
      const server = yield* Server
      const shiva = yield* as("moderator")
      const old = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "aging", content: "old" })
      server.clock.advance(604_821_000)
      const recent = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "aging", content: "new" })
      expectReply(
        yield* editMessage(reader.as, old, { topic: "renamed" }),
        400,
        badRequest("The time limit for editing this message's topic has passed.")
      )
      expectReply(yield* editMessage(reader.as, recent, { topic: "renamed", propagate_mode: "change_all" }), 400, {
        result: "error",
        msg: "You only have permission to move the 1/2 most recent messages in this topic.",
        code: "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
        first_message_id_allowed_to_move: recent,
        total_messages_in_topic: 2,
        total_messages_allowed_to_move: 1
      })
      expectReply(yield* editMessage(reader.as, recent, { topic: "renamed" }), 200, edited)
      // Moderators and administrators have no limit.
      void iago
      expectReply(yield* editMessage(shiva, old, { topic: "renamed" }), 200, edited)
      assert.strictEqual((yield* read(reader.as, old)).subject, "renamed")
    }))

  it.effect("PATCH /messages/{id} topic to the empty topic: queues without empty_topic_name see \"general chat\"", () =>
    Effect.gen(function*() {
      const { channel, sender, reader } = yield* fresh("empty")
      const types = JSON.stringify(["update_message"])
      const modern = yield* register(reader.as, {
        event_types: types,
        client_capabilities: JSON.stringify({ empty_topic_name: true })
      })
      const legacy = yield* register(reader.as, { event_types: types })
      const id = yield* sent(sender.as, { type: "stream", to: String(channel), topic: "named", content: "x" })
      expectReply(yield* editMessage(sender.as, id, { topic: "general chat", send_notification_to_new_thread: "false" }), 200, edited)
      const pick = (events: ReadonlyArray<Record<string, unknown>>) => events.map((e) => [e.orig_subject, e.subject])
      assert.deepStrictEqual(pick(yield* modern.drain), [["named", ""]])
      assert.deepStrictEqual(pick(yield* legacy.drain), [["named", "general chat"]])
      assert.strictEqual((yield* read(reader.as, id, { allow_empty_topic_name: "true" })).subject, "")
    }))
}
