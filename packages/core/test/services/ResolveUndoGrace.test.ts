/**
 * The resolve notice's undo grace period is the service's setting
 * (`MessageEditsConfig`, Zulip's RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS,
 * 60 s by default): with 5 s, an undo after 5 s deletes the notice, after
 * 6 s it posts its own. Time comes from the Clock (the test clock here).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"
import { MessageRepo } from "../../src/ports/Repositories.ts"
import { Channels } from "../../src/services/Channels.ts"
import { MessageEdits, MessageEditsConfig, ResolveTopicUndoGracePeriodSeconds } from "../../src/services/MessageEdits.ts"
import { Messages } from "../../src/services/Messages.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"

describe("MessageEdits: the resolve undo grace period", () => {
  layer(backends.memory(), { timeout: "60 seconds" })((it) => {
    it.effect("60 s by default; configurable", () =>
      Effect.gen(function*() {
        assert.strictEqual(ResolveTopicUndoGracePeriodSeconds, 60)
        assert.strictEqual(MessageEditsConfig.defaultValue().resolveTopicUndoGracePeriodSeconds, 60)
        const org = yield* makeOrg
        const channels = yield* Channels
        const edits = yield* MessageEdits
        const repo = yield* MessageRepo
        const channel = yield* channels.create(org.realm.id, { name: unique("grace") })
        yield* channels.subscribe(channel.id, [org.owner.user.id, org.member.user.id])
        const { id } = yield* (yield* Messages).send(org.owner, { type: "stream", to: channel.id, topic: "t", content: "hi" })
        const topicSize = (topic: string) => Effect.map(repo.topicMessageIds(channel.id, topic, 100), (ids) => ids.length)
        const toggle = (topic: string) =>
          edits.edit(org.member, id, { topic, propagate_mode: "change_all" }).pipe(
            Effect.provideService(MessageEditsConfig, { resolveTopicUndoGracePeriodSeconds: 5 })
          )
        yield* toggle("\u2714 t")
        assert.strictEqual(yield* topicSize("\u2714 t"), 2)
        yield* TestClock.adjust("5 seconds")
        yield* toggle("t")
        assert.strictEqual(yield* topicSize("t"), 1)
        yield* toggle("\u2714 t")
        yield* TestClock.adjust("6 seconds")
        yield* toggle("t")
        assert.strictEqual(yield* topicSize("t"), 3)
      }).pipe(Effect.orDie))
  })
})
