/**
 * The Reactions service on every backend, for what the wire cannot reach
 * yet: a message in an archived channel is refused as Zulip refuses changes
 * to it ("Invalid message(s)"), reading and reacting alike, and nothing is
 * written; unarchived, the same reaction goes through.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { MessageRepo, ChannelRepo } from "../../src/ports/Repositories.ts"
import { Channels } from "../../src/services/Channels.ts"
import { Messages } from "../../src/services/Messages.ts"
import { Reactions } from "../../src/services/Reactions.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"

for (const backend of ["memory", "PGlite", "PostgreSQL"] as const) {
  describe(`Reactions on ${backend}`, () => {
    layer(backends[backend](), { timeout: "120 seconds" })((it) => {
      it.effect("a message in an archived channel: no reaction added or removed", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const channels = yield* Channels
          const channelRepo = yield* ChannelRepo
          const repo = yield* MessageRepo
          const reactions = yield* Reactions
          const channel = yield* channels.create(org.realm.id, { name: unique("archived") })
          yield* channels.subscribe(channel.id, [org.owner.user.id, org.member.user.id])
          const { id } = yield* (yield* Messages).send(org.owner, { type: "stream", to: channel.id, topic: "t", content: "hi" })
          yield* reactions.add(org.member, id, { emoji_name: "octopus" })
          const stored = (yield* channelRepo.findById(channel.id))!
          yield* channelRepo.update({ ...stored, is_archived: true })

          const refused = { _tag: "InvalidMessages", msg: "Invalid message(s)" }
          const tagOf = (error: { readonly _tag: string; readonly msg: string }) => ({ _tag: error._tag, msg: error.msg })
          assert.deepStrictEqual(tagOf(yield* Effect.flip(reactions.add(org.owner, id, { emoji_name: "tada" }))), refused)
          assert.deepStrictEqual(tagOf(yield* Effect.flip(reactions.remove(org.member, id, { emoji_name: "octopus" }))), refused)
          assert.deepStrictEqual((yield* repo.reactions([id])).map((r) => [r.user_id, r.emoji_name]), [[org.member.user.id, "octopus"]])

          yield* channelRepo.update({ ...stored, is_archived: false })
          yield* reactions.add(org.owner, id, { emoji_name: "tada" })
          yield* reactions.remove(org.member, id, { emoji_name: "octopus" })
          assert.deepStrictEqual((yield* repo.reactions([id])).map((r) => [r.user_id, r.emoji_name]), [[org.owner.user.id, "tada"]])
        }).pipe(Effect.orDie))
    })
  })
}
