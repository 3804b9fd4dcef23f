/**
 * POST and DELETE /messages/{message_id}/reactions: exact bodies, the
 * reactions on message objects (GET /messages, GET /messages/{id}), the
 * `reaction` events and who gets them, and every refusal Zulip gives.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials } from "../Harness.ts"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import type { Person } from "./fixtures.ts"
import {
  as,
  badRequest,
  bare,
  expectReply,
  invalidMessages,
  listedAlone,
  person,
  privateChannel,
  read,
  register,
  sent,
  subscribe,
  success,
  unsubscribe
} from "./fixtures.ts"

export const react = (who: Credentials, id: number | string, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("POST", `/api/v1/messages/${id}/reactions`, { as: who, form }))

export const unreact = (who: Credentials, id: number | string, form: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("DELETE", `/api/v1/messages/${id}/reactions`, { as: who, form }))

const reactionExists = { result: "error", msg: "Reaction already exists.", code: "REACTION_ALREADY_EXISTS" }
const reactionMissing = { result: "error", msg: "Reaction doesn't exist.", code: "REACTION_DOES_NOT_EXIST" }

/** A reaction as message objects carry it. */
const onMessage = (who: Person, emoji_name: string, emoji_code: string, reaction_type = "unicode_emoji") => ({
  emoji_name,
  emoji_code,
  reaction_type,
  user_id: who.userId
})

/** A `reaction` event as Zulip sends it, without its id. */
const reactionEvent = (
  op: "add" | "remove",
  who: Person,
  message_id: number,
  emoji_name: string,
  emoji_code: string,
  reaction_type = "unicode_emoji"
) => ({
  type: "reaction",
  op,
  user_id: who.userId,
  user: { user_id: who.userId, email: who.apiEmail, full_name: who.fullName },
  message_id,
  emoji_name,
  emoji_code,
  reaction_type
})

const reactionQueue = (who: Credentials) => register(who, { event_types: JSON.stringify(["reaction"]) })

export const reactionsTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("reactions: add and remove by name; message objects and reaction events follow", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const othello = yield* person("othello@zulip.com")
      const name = "reactions basic"
      yield* subscribe(hamlet, [name])
      yield* subscribe(othello, [name])
      const id = yield* sent(hamlet, { type: "stream", to: name, topic: "t", content: "react to me" })
      const hamletQueue = yield* reactionQueue(hamlet)
      const othelloQueue = yield* reactionQueue(othello)

      expectReply(yield* react(othello, id, { emoji_name: "octopus" }), 200, success())
      const octopus = onMessage(othello, "octopus", "1f419")
      assert.deepStrictEqual((yield* read(hamlet, id)).reactions, [octopus])
      assert.deepStrictEqual((yield* listedAlone(hamlet, id)).reactions, [octopus])
      const added = reactionEvent("add", othello, id, "octopus", "1f419")
      assert.deepStrictEqual(bare(yield* hamletQueue.drain), [added])
      assert.deepStrictEqual(bare(yield* othelloQueue.drain), [added])

      // The name's other spellings and the zulip emoji; reactions keep the order they were added.
      expectReply(yield* react(hamlet, id, { emoji_name: "tada" }), 200, success())
      expectReply(yield* react(hamlet, id, { emoji_name: "zulip" }), 200, success())
      assert.deepStrictEqual((yield* read(othello, id)).reactions, [
        octopus,
        onMessage(hamlet, "tada", "1f389"),
        onMessage(hamlet, "zulip", "zulip", "zulip_extra_emoji")
      ])
      const hamletAdds = [
        reactionEvent("add", hamlet, id, "tada", "1f389"),
        reactionEvent("add", hamlet, id, "zulip", "zulip", "zulip_extra_emoji")
      ]
      assert.deepStrictEqual(bare(yield* othelloQueue.drain), hamletAdds)
      assert.deepStrictEqual(bare(yield* hamletQueue.drain), hamletAdds)

      expectReply(yield* unreact(othello, id, { emoji_name: "octopus" }), 200, success())
      expectReply(yield* unreact(hamlet, id, { emoji_code: "zulip", reaction_type: "zulip_extra_emoji" }), 200, success())
      assert.deepStrictEqual((yield* read(hamlet, id)).reactions, [onMessage(hamlet, "tada", "1f389")])
      const removed = [
        reactionEvent("remove", othello, id, "octopus", "1f419"),
        reactionEvent("remove", hamlet, id, "zulip", "zulip", "zulip_extra_emoji")
      ]
      assert.deepStrictEqual(bare(yield* hamletQueue.drain), removed)
      assert.deepStrictEqual(bare(yield* othelloQueue.drain), removed)
      yield* unsubscribe(othello, [name])
      yield* unsubscribe(hamlet, [name])
    }))

  it.effect("reactions: by code and type, by all three; a vote takes the first reaction's name", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const iago = yield* as("admin")
      const shiva = yield* as("moderator")
      const id = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "reaction votes", content: "vote" })
      const queue = yield* reactionQueue(hamlet)
      expectReply(yield* react(iago, id, { emoji_name: "thumbs_up", emoji_code: "1f44d", reaction_type: "unicode_emoji" }), 200, success())
      // "+1" names the same emoji: the vote is stored and announced as "thumbs_up".
      expectReply(yield* react(hamlet, id, { emoji_name: "+1", emoji_code: "1f44d" }), 200, success())
      // A vote is not checked against its own name.
      expectReply(yield* react(shiva, id, { emoji_name: "anything", emoji_code: "1f44d", reaction_type: "unicode_emoji" }), 200, success())
      assert.deepStrictEqual((yield* read(hamlet, id)).reactions, [
        onMessage(iago, "thumbs_up", "1f44d"),
        onMessage(hamlet, "thumbs_up", "1f44d"),
        onMessage(shiva, "thumbs_up", "1f44d")
      ])
      assert.deepStrictEqual(bare(yield* queue.drain), [
        reactionEvent("add", iago, id, "thumbs_up", "1f44d"),
        reactionEvent("add", hamlet, id, "thumbs_up", "1f44d"),
        reactionEvent("add", shiva, id, "thumbs_up", "1f44d")
      ])
      // Removal by name looks the code up: "+1" removes hamlet's "thumbs_up"; the event names it as stored.
      expectReply(yield* unreact(hamlet, id, { emoji_name: "+1" }), 200, success())
      assert.deepStrictEqual(bare(yield* queue.drain), [reactionEvent("remove", hamlet, id, "thumbs_up", "1f44d")])
      // By code alone (type unicode_emoji by default).
      expectReply(yield* unreact(iago, id, { emoji_code: "1f44d" }), 200, success())
      expectReply(yield* unreact(shiva, id, { emoji_name: "like", emoji_code: "1f44d", reaction_type: "unicode_emoji" }), 200, success())
      assert.deepStrictEqual((yield* read(hamlet, id)).reactions, [])
    }))

  it.effect("reactions: Zulip's refusals, with nothing written and no event", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const id = yield* sent(hamlet, { type: "stream", to: "Verona", topic: "reaction errors", content: "errors" })
      const queue = yield* reactionQueue(hamlet)
      const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
        [{}, { result: "error", msg: "Missing 'emoji_name' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "emoji_name" }],
        [{ emoji_name: "no_such_emoji" }, badRequest("Emoji 'no_such_emoji' does not exist")],
        [{ emoji_name: "no_such_emoji", reaction_type: "unicode_emoji" }, badRequest("Emoji 'no_such_emoji' does not exist")],
        [{ emoji_name: "car", emoji_code: "1f419", reaction_type: "unicode_emoji" }, badRequest("Invalid emoji name.")],
        [{ emoji_name: "octopus", emoji_code: "ffffff", reaction_type: "unicode_emoji" }, badRequest("Invalid emoji code.")],
        [{ emoji_name: "octopus", emoji_code: "1f419", reaction_type: "sticker" }, badRequest("Invalid emoji type.")],
        [{ emoji_name: "octopus", reaction_type: "realm_emoji" }, badRequest("Invalid custom emoji.")],
        [{ emoji_name: "party_parrot", emoji_code: "1", reaction_type: "realm_emoji" }, badRequest("Invalid custom emoji.")],
        [{ emoji_name: "car", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" }, badRequest("Invalid emoji name.")],
        [{ emoji_name: "zulip", emoji_code: "zulipp", reaction_type: "zulip_extra_emoji" }, badRequest("Invalid emoji code.")],
        // The name decides the code: "octopus" with the zulip namespace is no zulip emoji.
        [{ emoji_name: "octopus", reaction_type: "zulip_extra_emoji" }, badRequest("Invalid emoji code.")]
      ]
      for (const [form, body] of cases) expectReply(yield* react(hamlet, id, form), 400, body)

      expectReply(yield* react(hamlet, id, { emoji_name: "octopus" }), 200, success())
      expectReply(yield* react(hamlet, id, { emoji_name: "octopus" }), 400, reactionExists)
      expectReply(yield* react(hamlet, id, { emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" }), 400, reactionExists)

      const removals: ReadonlyArray<readonly [Record<string, string>, object]> = [
        [{}, badRequest("At least one of the following arguments must be present: emoji_name, emoji_code")],
        [{ reaction_type: "unicode_emoji" }, badRequest("At least one of the following arguments must be present: emoji_name, emoji_code")],
        [{ emoji_name: "no_such_emoji" }, badRequest("Emoji 'no_such_emoji' does not exist")],
        [{ emoji_name: "tada" }, reactionMissing],
        [{ emoji_code: "1f419", reaction_type: "zulip_extra_emoji" }, reactionMissing],
        [{ emoji_code: "1f419", reaction_type: "sticker" }, reactionMissing],
        // Removal checks no emoji: an unknown code is just a reaction that does not exist.
        [{ emoji_code: "ffffff" }, reactionMissing]
      ]
      for (const [form, body] of removals) expectReply(yield* unreact(hamlet, id, form), 400, body)

      for (const missing of [0, 99_999_999, 9_007_199_254_740_991]) {
        expectReply(yield* react(hamlet, missing, { emoji_name: "octopus" }), 400, invalidMessages)
        expectReply(yield* unreact(hamlet, missing, { emoji_name: "octopus" }), 400, invalidMessages)
      }
      // An unknown message is refused before the emoji is looked at.
      expectReply(yield* react(hamlet, 99_999_999, { emoji_name: "no_such_emoji" }), 400, invalidMessages)
      expectReply(yield* unreact(hamlet, 99_999_999, {}), 400, invalidMessages)

      assert.deepStrictEqual((yield* read(hamlet, id)).reactions, [onMessage(hamlet, "octopus", "1f419")])
      assert.deepStrictEqual(bare(yield* queue.drain), [reactionEvent("add", hamlet, id, "octopus", "1f419")])
      expectReply(yield* unreact(hamlet, id, { emoji_name: "octopus" }), 200, success())
      expectReply(yield* unreact(hamlet, id, { emoji_name: "octopus" }), 400, reactionMissing)
    }))

  it.effect("reactions: who may react (section 1) and who hears of it", () =>
    Effect.gen(function*() {
      const hamlet = yield* as("member")
      const iago = yield* as("admin")
      const polonius = yield* as("guest")
      const othello = yield* person("othello@zulip.com")
      const cordelia = yield* person("cordelia@zulip.com")
      const publicName = "reactions audience"
      yield* subscribe(hamlet, [publicName])
      const publicId = yield* sent(hamlet, { type: "stream", to: publicName, topic: "t", content: "public" })
      const hamletQueue = yield* reactionQueue(hamlet)
      const othelloQueue = yield* reactionQueue(othello)
      const poloniusQueue = yield* reactionQueue(polonius)

      // A guest not subscribed to a public channel cannot reach its messages.
      expectReply(yield* react(polonius, publicId, { emoji_name: "octopus" }), 400, invalidMessages)
      // A member not subscribed reacts through the channel's history: a historical row, and the events from then on.
      expectReply(yield* react(othello, publicId, { emoji_name: "octopus" }), 200, success())
      assert.deepStrictEqual((yield* read(othello, publicId)).flags, ["read", "historical"])
      const othelloAdd = reactionEvent("add", othello, publicId, "octopus", "1f419")
      assert.deepStrictEqual(bare(yield* hamletQueue.drain), [othelloAdd])
      assert.deepStrictEqual(bare(yield* othelloQueue.drain), [othelloAdd])
      expectReply(yield* react(hamlet, publicId, { emoji_name: "tada" }), 200, success())
      const hamletAdd = reactionEvent("add", hamlet, publicId, "tada", "1f389")
      assert.deepStrictEqual(bare(yield* othelloQueue.drain), [hamletAdd])
      assert.deepStrictEqual(bare(yield* hamletQueue.drain), [hamletAdd])
      assert.deepStrictEqual(bare(yield* poloniusQueue.drain), [])

      // A direct message: its participants only.
      const dm = yield* sent(hamlet, { type: "private", to: JSON.stringify([cordelia.userId]), content: "dm" })
      const cordeliaQueue = yield* reactionQueue(cordelia)
      expectReply(yield* react(iago, dm, { emoji_name: "octopus" }), 400, invalidMessages)
      expectReply(yield* unreact(iago, dm, { emoji_name: "octopus" }), 400, invalidMessages)
      expectReply(yield* react(cordelia, dm, { emoji_name: "octopus" }), 200, success())
      const dmAdd = reactionEvent("add", cordelia, dm, "octopus", "1f419")
      assert.deepStrictEqual(bare(yield* cordeliaQueue.drain), [dmAdd])
      assert.deepStrictEqual(bare(yield* hamletQueue.drain), [dmAdd])
      assert.deepStrictEqual(bare(yield* othelloQueue.drain), [])

      // A private channel with protected history: only those who received the message.
      const protectedName = "reactions protected"
      yield* privateChannel(protectedName, [hamlet], false)
      const before = yield* sent(hamlet, { type: "stream", to: protectedName, topic: "t", content: "before" })
      yield* privateChannel(protectedName, [hamlet, othello], false)
      const after = yield* sent(hamlet, { type: "stream", to: protectedName, topic: "t", content: "after" })
      expectReply(yield* react(othello, before, { emoji_name: "octopus" }), 400, invalidMessages)
      expectReply(yield* react(iago, after, { emoji_name: "octopus" }), 400, invalidMessages)
      expectReply(yield* react(othello, after, { emoji_name: "octopus" }), 200, success())
      const protectedAdd = reactionEvent("add", othello, after, "octopus", "1f419")
      assert.deepStrictEqual(bare(yield* othelloQueue.drain), [protectedAdd])
      assert.deepStrictEqual(bare(yield* hamletQueue.drain), [protectedAdd])
      expectReply(yield* react(hamlet, before, { emoji_name: "octopus" }), 200, success())
      // Othello, subscribed but without a copy of the earlier message, hears nothing of it.
      assert.deepStrictEqual(bare(yield* othelloQueue.drain), [])
      assert.deepStrictEqual(bare(yield* hamletQueue.drain), [reactionEvent("add", hamlet, before, "octopus", "1f419")])

      // A private channel with shared history: every subscriber, whether or not they received it.
      const sharedName = "reactions shared"
      yield* privateChannel(sharedName, [hamlet], true)
      const early = yield* sent(hamlet, { type: "stream", to: sharedName, topic: "t", content: "early" })
      expectReply(yield* react(othello, early, { emoji_name: "octopus" }), 400, invalidMessages)
      yield* privateChannel(sharedName, [hamlet, othello], true)
      expectReply(yield* react(othello, early, { emoji_name: "octopus" }), 200, success())
      const sharedAdd = reactionEvent("add", othello, early, "octopus", "1f419")
      assert.deepStrictEqual(bare(yield* othelloQueue.drain), [sharedAdd])
      assert.deepStrictEqual(bare(yield* hamletQueue.drain), [sharedAdd])
      assert.deepStrictEqual(bare(yield* poloniusQueue.drain), [])

      for (const name of [publicName, protectedName, sharedName]) {
        yield* unsubscribe(othello, [name])
        yield* unsubscribe(hamlet, [name])
      }
    }))
}
