/** ChannelRepo. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Channel } from "../../../src/domain/Channel.ts"
import { channelId, folderId, groupId, messageId } from "../../../src/domain/Ids.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { ChannelRepo, RealmRepo } from "../../../src/ports/Repositories.ts"
import type { Vitest } from "@effect/vitest"
import { unique, anonymous, newRealm, channelSettings, newChannel, seed } from "./fixtures.ts"

export const channelsTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  // --- channels -------------------------------------------------------

  it.effect("ChannelRepo: insert, find and update round-trip every field", () =>
    Effect.gen(function*() {
      const { realm, alice } = yield* seed
      const channels = yield* ChannelRepo
      const plain = yield* channels.insert(newChannel(realm.id))
      assert.deepStrictEqual(yield* channels.findById(plain.id), plain)

      const row = newChannel(realm.id, {
        name: unique("Général ✓"),
        description: "",
        rendered_description: "",
        date_created: 1_712_345_678,
        creator_id: alice.id,
        invite_only: true,
        is_web_public: true,
        is_archived: true,
        history_public_to_subscribers: false,
        message_retention_days: -1,
        topics_policy: "empty_topic_only",
        first_message_id: messageId(42),
        folder_id: folderId(3),
        is_recently_active: false,
        is_default: true,
        settings: channelSettings(7)
      })
      const full = yield* channels.insert(row)
      assert.deepStrictEqual(full, { ...row, id: full.id })
      assert.deepStrictEqual(yield* channels.findById(full.id), full)

      const updated: Channel = {
        ...full,
        name: unique("renamed"),
        description: "**new**",
        rendered_description: "<p><strong>new</strong></p>",
        creator_id: null,
        invite_only: false,
        is_web_public: false,
        is_archived: false,
        history_public_to_subscribers: true,
        message_retention_days: null,
        topics_policy: "allow_empty_topic",
        first_message_id: null,
        folder_id: null,
        is_recently_active: true,
        is_default: false,
        settings: {
          ...full.settings,
          can_send_message_group: groupId(5),
          can_subscribe_group: anonymous([alice.id], [])
        }
      }
      yield* channels.update(updated)
      assert.deepStrictEqual(yield* channels.findById(full.id), updated)
      assert.deepStrictEqual(yield* channels.findById(plain.id), plain)

      yield* channels.update({ ...updated, id: channelId(full.id + 1000), name: unique("ghost") })
      assert.strictEqual(yield* channels.findById(channelId(full.id + 1000)), undefined)
    }))

  it.effect("ChannelRepo: findByName is case-insensitive and scoped to the organization", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const channels = yield* ChannelRepo
      const r1 = yield* realms.insert(newRealm())
      const r2 = yield* realms.insert(newRealm())
      const a = yield* channels.insert(newChannel(r1.id, { name: "Engineering" }))
      const b = yield* channels.insert(newChannel(r2.id, { name: "engineering" }))
      assert.deepStrictEqual(yield* channels.findByName(r1.id, "engineering"), a)
      assert.deepStrictEqual(yield* channels.findByName(r1.id, "ENGINEERING"), a)
      assert.deepStrictEqual(yield* channels.findByName(r2.id, "Engineering"), b)
      assert.strictEqual(yield* channels.findByName(r1.id, "Engineering "), undefined)
      assert.strictEqual(yield* channels.findByName(r1.id, "Engineer_ng"), undefined)
      assert.strictEqual(yield* channels.findByName(r1.id, "design"), undefined)
    }))

  it.effect("ChannelRepo: findByName folds non-ASCII case", () =>
    Effect.gen(function*() {
      const { realm } = yield* seed
      const channels = yield* ChannelRepo
      const channel = yield* channels.insert(newChannel(realm.id, { name: "Überraschung Ñandú" }))
      assert.deepStrictEqual(yield* channels.findByName(realm.id, "überraschung ñandú"), channel)
      assert.deepStrictEqual(yield* channels.findByName(realm.id, "ÜBERRASCHUNG ÑANDÚ"), channel)
    }))

  it.effect("ChannelRepo: listByRealm keeps organizations apart and orders by id", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const channels = yield* ChannelRepo
      const r1 = yield* realms.insert(newRealm())
      const r2 = yield* realms.insert(newRealm())
      const a = yield* channels.insert(newChannel(r1.id, { name: "zeta" }))
      const b = yield* channels.insert(newChannel(r2.id))
      const c = yield* channels.insert(newChannel(r1.id, { name: "alpha", is_default: true }))
      const d = yield* channels.insert(newChannel(r1.id, { name: "Mid", is_archived: true }))
      assert.deepStrictEqual(yield* channels.listByRealm(r1.id), [a, c, d])
      assert.deepStrictEqual(yield* channels.listByRealm(r2.id), [b])
      assert.deepStrictEqual(
        (yield* channels.listByRealm(r1.id)).filter((ch) => ch.is_default).map((ch) => ch.id),
        [c.id]
      )
    }))
}
