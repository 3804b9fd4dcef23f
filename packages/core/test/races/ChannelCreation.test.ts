/**
 * Concurrent creators of one new channel name on PostgreSQL: every
 * `POST /users/me/subscriptions` succeeds, the first creates the channel and
 * the others subscribe to it, as on single-process PGlite.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { ChannelRepo, SubscriptionRepo } from "../../src/ports/Repositories.ts"
import { Subscriptions } from "../../src/services/Subscriptions.ts"
import { Users } from "../../src/services/Users.ts"
import { backends, makeOrg, openQueue, unique } from "../events/fixtures.ts"

const Creators = 40

describe("concurrent channel creation on PostgreSQL", () => {
  layer(backends.PostgreSQL(), { timeout: "60 seconds" })((it) => {
    it.effect(`${Creators} users subscribe at once to one new name`, () =>
      Effect.gen(function*() {
        const org = yield* makeOrg
        const users = yield* Users
        const subscriptions = yield* Subscriptions
        const creators = yield* Effect.forEach(
          Array.from({ length: Creators }, (_, i) => i),
          (i) =>
            Effect.map(
              users.create(org.realm.id, { email: `c${i}@${org.realm.string_id}.test`, full_name: `C${i}`, role: 400 }),
              (user) => ({ realm: org.realm, user })
            )
        )
        const observer = yield* openQueue(org.owner)
        const name = unique("race")
        // Two spellings of the name: it is matched case-insensitively.
        const results = yield* Effect.forEach(
          creators,
          (principal, i) => subscriptions.subscribe(principal, { subscriptions: [{ name: i % 2 === 0 ? name : name.toUpperCase() }] }),
          { concurrency: "unbounded" }
        )

        const channels = (yield* (yield* ChannelRepo).listByRealm(org.realm.id))
          .filter((c) => c.name.toLowerCase() === name.toLowerCase())
        assert.strictEqual(channels.length, 1)
        const channel = channels[0]!
        // Each caller is subscribed to the one channel, under its stored name.
        results.forEach((result, i) =>
          assert.deepStrictEqual(result, { subscribed: { [String(creators[i]!.user.id)]: [channel.name] }, already_subscribed: {} })
        )
        const rows = (yield* (yield* SubscriptionRepo).listByChannel(channel.id)).filter((s) => s.active)
        assert.deepStrictEqual(rows.map((s) => s.user_id).sort((a, b) => a - b), creators.map((c) => c.user.id).sort((a, b) => a - b))
        // The channel was created once: one `stream create` event.
        const created = (yield* observer.drain).filter((e) => e.type === "stream" && (e as { op?: string }).op === "create")
        assert.strictEqual(created.length, 1)
        assert.deepStrictEqual((created[0] as unknown as { streams: Array<{ stream_id: number }> }).streams.map((s) => s.stream_id), [channel.id])
      }))
  })
})
