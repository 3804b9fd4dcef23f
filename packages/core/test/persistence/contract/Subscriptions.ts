/** SubscriptionRepo. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ChannelId, UserId } from "../../../src/domain/Ids.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { ChannelRepo, RealmRepo, SubscriptionRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import type { Vitest } from "@effect/vitest"
import { newRealm, newUser, newChannel, properties, subscription, seed } from "./fixtures.ts"

export const subscriptionsTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  // --- subscriptions --------------------------------------------------

  it.effect("SubscriptionRepo: upsert inserts then replaces the whole row", () =>
    Effect.gen(function*() {
      const { realm, alice, bob } = yield* seed
      const channels = yield* ChannelRepo
      const subs = yield* SubscriptionRepo
      const channel = yield* channels.insert(newChannel(realm.id))

      assert.strictEqual(yield* subs.find(alice.id, channel.id), undefined)
      const first = subscription(alice.id, channel.id)
      yield* subs.upsert(first)
      assert.deepStrictEqual(yield* subs.find(alice.id, channel.id), first)
      assert.strictEqual(yield* subs.find(bob.id, channel.id), undefined)

      const replaced = subscription(alice.id, channel.id, {
        active: false,
        properties: properties({
          color: "#e79ab5",
          pin_to_top: true,
          is_muted: true,
          desktop_notifications: true,
          email_notifications: false,
          push_notifications: true,
          audible_notifications: false,
          wildcard_mentions_notify: true
        })
      })
      yield* subs.upsert(replaced)
      assert.deepStrictEqual(yield* subs.find(alice.id, channel.id), replaced)
      assert.deepStrictEqual(yield* subs.listByChannel(channel.id), [replaced])

      const reset = subscription(alice.id, channel.id, { properties: properties({ color: "#000000" }) })
      yield* subs.upsert(reset)
      assert.deepStrictEqual(yield* subs.find(alice.id, channel.id), reset)
    }))

  it.effect("SubscriptionRepo: lists are ordered by channel id then user id, per user, channel and organization", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const users = yield* UserRepo
      const channels = yield* ChannelRepo
      const subs = yield* SubscriptionRepo
      const r1 = yield* realms.insert(newRealm())
      const r2 = yield* realms.insert(newRealm())
      const [u1, u2, u3] = [
        yield* users.insert(newUser(r1.id)),
        yield* users.insert(newUser(r1.id)),
        yield* users.insert(newUser(r1.id))
      ]
      const stranger = yield* users.insert(newUser(r2.id))
      const [c1, c2, c3] = [
        yield* channels.insert(newChannel(r1.id)),
        yield* channels.insert(newChannel(r1.id)),
        yield* channels.insert(newChannel(r1.id))
      ]
      const elsewhere = yield* channels.insert(newChannel(r2.id))

      // Inserted out of order on purpose.
      const rows = [
        subscription(u3.id, c2.id),
        subscription(u1.id, c3.id, { active: false }),
        subscription(u2.id, c1.id),
        subscription(u1.id, c1.id),
        subscription(u3.id, c1.id, { properties: properties({ is_muted: true }) }),
        subscription(u1.id, c2.id),
        subscription(stranger.id, elsewhere.id)
      ]
      for (const row of rows) yield* subs.upsert(row)
      const find = (u: UserId, c: ChannelId) => rows.find((r) => r.user_id === u && r.channel_id === c)!

      assert.deepStrictEqual(yield* subs.listByUser(u1.id), [find(u1.id, c1.id), find(u1.id, c2.id), find(u1.id, c3.id)])
      assert.deepStrictEqual(yield* subs.listByUser(u3.id), [find(u3.id, c1.id), find(u3.id, c2.id)])
      assert.deepStrictEqual(yield* subs.listByChannel(c1.id), [
        find(u1.id, c1.id),
        find(u2.id, c1.id),
        find(u3.id, c1.id)
      ])
      assert.deepStrictEqual(yield* subs.listByChannel(c2.id), [find(u1.id, c2.id), find(u3.id, c2.id)])
      assert.deepStrictEqual(yield* subs.listByRealm(r1.id), [
        find(u1.id, c1.id),
        find(u2.id, c1.id),
        find(u3.id, c1.id),
        find(u1.id, c2.id),
        find(u3.id, c2.id),
        find(u1.id, c3.id)
      ])
      assert.deepStrictEqual(yield* subs.listByRealm(r2.id), [find(stranger.id, elsewhere.id)])

      // Replacing a row keeps its place in every ordering.
      const muted = subscription(u2.id, c1.id, { properties: properties({ is_muted: true }) })
      yield* subs.upsert(muted)
      assert.deepStrictEqual(yield* subs.listByChannel(c1.id), [find(u1.id, c1.id), muted, find(u3.id, c1.id)])
      assert.deepStrictEqual(yield* subs.listByUser(u2.id), [muted])
    }))
}
