/**
 * Everyday actions on sent messages whose results must not depend on the
 * backend: reductions of what the model-based equivalence suite
 * (`Equivalence.test.ts`, `equivalence/MessageActions.ts`) found.
 */
import { assert } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import type { Persistence } from "../../../src/Persistence.ts"
import { MutingRepo } from "../../../src/ports/MutingRepo.ts"
import { Channels } from "../../../src/services/Channels.ts"
import { Muting } from "../../../src/services/Muting.ts"
import type * as Teamchat from "../../../src/Teamchat.ts"
import { makeOrg, principal, T0, unique, withTestClock } from "./fixtures.ts"

export const messageActionsTests = (it: Vitest.MethodsNonLive<Teamchat.Services | Persistence>): void => {
  // Found by the equivalence suite: memory ordered topics by UTF-16 code
  // units, so a topic with an emoji (a surrogate pair) came before one with
  // a character from U+E000–U+FFFF (fullwidth forms), while SQL orders by
  // code point.
  it.effect("MutingRepo.listTopics: by channel, then lower-cased topic in code point order", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const org = yield* makeOrg()
      const channels = yield* Channels
      const first = yield* channels.create(org.realm.id, { name: unique("c"), creator_id: org.owner.id })
      const second = yield* channels.create(org.realm.id, { name: unique("c"), creator_id: org.owner.id })
      yield* channels.subscribe(first.id, [org.owner.id])
      yield* channels.subscribe(second.id, [org.owner.id])
      const owner = yield* principal(org.owner)
      const muting = yield* Muting
      for (const [channel, topic] of [
        [second, "later"],
        [first, "🎉 launch"],
        [first, "Ｑ＆Ａ"],
        [first, "zebra"],
        [first, "Ärger"],
        [first, "Apple"],
        [first, "ﬁnance"]
      ] as const) {
        yield* muting.updateUserTopic(owner, { stream_id: channel.id, topic, visibility_policy: 1 })
      }
      const listed = yield* (yield* MutingRepo).listTopics(org.owner.id)
      assert.deepStrictEqual(
        listed.map((row) => [row.channel_id, row.topic_name]),
        [
          [first.id, "Apple"],
          [first.id, "zebra"],
          [first.id, "Ärger"],
          [first.id, "ﬁnance"],
          [first.id, "Ｑ＆Ａ"],
          [first.id, "🎉 launch"],
          [second.id, "later"]
        ]
      )
    }).pipe(withTestClock))
}
