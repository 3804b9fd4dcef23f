/**
 * Topic policies and muted users: a policy set, changed (keeping the row's
 * first spelling), left alone when unchanged and cleared, topics matched
 * case-insensitively (non-ASCII too, as SQL's `lower`), each user's rows
 * only; a mute and an unmute that report whether they changed anything; a
 * user's unread messages from one sender; everyone's mutes in one read;
 * and nothing left by a rollback.
 */
import { assert } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { UserId } from "../../../src/domain/Ids.ts"
import { FlagBits } from "../../../src/domain/Message.ts"
import type { UserTopic, VisibilityPolicy } from "../../../src/domain/Muting.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { MessageStore } from "../../../src/ports/MessageStore.ts"
import { MutingRepo } from "../../../src/ports/MutingRepo.ts"
import { ChannelRepo } from "../../../src/ports/Repositories.ts"
import { Transactor } from "../../../src/ports/Transactor.ts"
import { channelMessage, directMessage } from "../MessagesFixtures.ts"
import { Boom, newChannel, seed } from "./fixtures.ts"

export const mutingTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  it.effect("topic policies: set, changed in place, unchanged, cleared; case-insensitive; per user", () =>
    Effect.gen(function*() {
      const repo = yield* MutingRepo
      const { realm, alice, bob } = yield* seed
      const channels = yield* ChannelRepo
      const first = yield* channels.insert(newChannel(realm.id))
      const second = yield* channels.insert(newChannel(realm.id))
      const row = (channel_id: typeof first.id, topic_name: string, visibility_policy: VisibilityPolicy, last_updated: number): UserTopic => ({
        user_id: alice.id,
        channel_id,
        topic_name,
        visibility_policy,
        last_updated
      })
      assert.isTrue(yield* repo.setTopicPolicy(row(second.id, "Zebra", 1, 10)))
      assert.isTrue(yield* repo.setTopicPolicy(row(first.id, "Édith", 2, 11)))
      assert.isTrue(yield* repo.setTopicPolicy(row(first.id, "apple", 3, 12)))
      assert.isTrue(yield* repo.setTopicPolicy({ ...row(first.id, "apple", 1, 13), user_id: bob.id }))
      // Unchanged: nothing written, the time kept.
      assert.isFalse(yield* repo.setTopicPolicy(row(second.id, "ZEBRA", 1, 20)))
      // Changed through another spelling: the first spelling stays.
      assert.isTrue(yield* repo.setTopicPolicy(row(first.id, "éDITH", 3, 21)))
      assert.deepStrictEqual(yield* repo.listTopics(alice.id), [
        row(first.id, "apple", 3, 12),
        row(first.id, "Édith", 3, 21),
        row(second.id, "Zebra", 1, 10)
      ])
      assert.deepStrictEqual(yield* repo.listTopics(bob.id), [{ ...row(first.id, "apple", 1, 13), user_id: bob.id }])
      // The same topic name in another channel is another topic.
      assert.isFalse(yield* repo.clearTopicPolicy(alice.id, second.id, "apple"))
      assert.isTrue(yield* repo.clearTopicPolicy(alice.id, first.id, "APPLE"))
      assert.isFalse(yield* repo.clearTopicPolicy(alice.id, first.id, "apple"))
      assert.deepStrictEqual((yield* repo.listTopics(alice.id)).map((t) => t.topic_name), ["Édith", "Zebra"])
      assert.lengthOf(yield* repo.listTopics(bob.id), 1)
    }))

  it.effect("muted users: a mute once, an unmute once, listed by muted user id", () =>
    Effect.gen(function*() {
      const repo = yield* MutingRepo
      const { alice, bob } = yield* seed
      const { alice: carol } = yield* seed
      assert.isTrue(yield* repo.mute({ user_id: alice.id, muted_user_id: carol.id, date_muted: 5 }))
      assert.isTrue(yield* repo.mute({ user_id: alice.id, muted_user_id: bob.id, date_muted: 6 }))
      assert.isFalse(yield* repo.mute({ user_id: alice.id, muted_user_id: bob.id, date_muted: 7 }))
      assert.isTrue(yield* repo.mute({ user_id: bob.id, muted_user_id: alice.id, date_muted: 8 }))
      const sorted = [
        { user_id: alice.id, muted_user_id: bob.id, date_muted: 6 },
        { user_id: alice.id, muted_user_id: carol.id, date_muted: 5 }
      ].sort((a, b) => a.muted_user_id - b.muted_user_id)
      assert.deepStrictEqual(yield* repo.listMuted(alice.id), sorted)
      assert.isTrue(yield* repo.unmute(alice.id, bob.id))
      assert.isFalse(yield* repo.unmute(alice.id, bob.id))
      assert.deepStrictEqual(yield* repo.listMuted(alice.id), [{ user_id: alice.id, muted_user_id: carol.id, date_muted: 5 }])
      assert.deepStrictEqual(yield* repo.listMuted(bob.id), [{ user_id: bob.id, muted_user_id: alice.id, date_muted: 8 }])
      // Everyone's mutes at once; users who muted nobody are absent.
      assert.deepStrictEqual(
        yield* repo.listMutesByUsers([alice.id, bob.id, carol.id]),
        new Map([[alice.id, new Set([carol.id])], [bob.id, new Set([alice.id])]])
      )
      assert.deepStrictEqual(yield* repo.listMutesByUsers([carol.id]), new Map())
      assert.deepStrictEqual(yield* repo.listMutesByUsers([]), new Map())
    }))

  it.effect("unreadFrom: the user's unread messages by that sender, ascending", () =>
    Effect.gen(function*() {
      const repo = yield* MutingRepo
      const store = yield* MessageStore
      const { realm, alice, bob } = yield* seed
      const channel = yield* (yield* ChannelRepo).insert(newChannel(realm.id))
      const rows = (flags: number) => [{ user_id: alice.id, flags }, { user_id: bob.id, flags: FlagBits.read }]
      const unread1 = yield* store.insert(channelMessage(realm.id, bob.id, channel.id, "t", "one"), rows(0))
      yield* store.insert(channelMessage(realm.id, bob.id, channel.id, "t", "read"), rows(FlagBits.read))
      yield* store.insert(channelMessage(realm.id, alice.id, channel.id, "t", "own"), rows(0))
      const unread2 = yield* store.insert(directMessage(realm.id, bob.id, [alice.id], "dm"), rows(FlagBits.starred))
      // Bob's message to someone else: no row of Alice's.
      yield* store.insert(channelMessage(realm.id, bob.id, channel.id, "t", "not hers"), [{ user_id: bob.id, flags: 0 }])
      assert.deepStrictEqual(yield* repo.unreadFrom(alice.id, bob.id), [unread1.id, unread2.id])
      assert.deepStrictEqual(yield* repo.unreadFrom(bob.id, alice.id), [])
      assert.deepStrictEqual(yield* repo.unreadFrom(alice.id, 999_999 as UserId), [])
    }))

  it.effect("a rolled-back transaction leaves no policy or mute behind, and puts back what it removed", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const repo = yield* MutingRepo
      const { realm, alice, bob } = yield* seed
      const channel = yield* (yield* ChannelRepo).insert(newChannel(realm.id))
      const kept: UserTopic = { user_id: alice.id, channel_id: channel.id, topic_name: "kept", visibility_policy: 1, last_updated: 1 }
      yield* repo.setTopicPolicy(kept)
      yield* repo.mute({ user_id: alice.id, muted_user_id: bob.id, date_muted: 1 })
      const exit = yield* Effect.exit(tx.withTransaction(Effect.gen(function*() {
        yield* repo.setTopicPolicy({ ...kept, topic_name: "lost" })
        yield* repo.setTopicPolicy({ ...kept, visibility_policy: 3 })
        yield* repo.clearTopicPolicy(alice.id, channel.id, "kept")
        yield* repo.unmute(alice.id, bob.id)
        yield* repo.mute({ user_id: bob.id, muted_user_id: alice.id, date_muted: 2 })
        return yield* new Boom()
      })))
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(yield* repo.listTopics(alice.id), [kept])
      assert.deepStrictEqual(yield* repo.listMuted(alice.id), [{ user_id: alice.id, muted_user_id: bob.id, date_muted: 1 }])
      assert.deepStrictEqual(yield* repo.listMuted(bob.id), [])
    }))
}
