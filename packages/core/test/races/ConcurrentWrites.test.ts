/**
 * Many concurrent writes in one organization on PostgreSQL (events are
 * appended mid-transaction under the organization's event-log lock, and
 * channel names under another): sends, direct messages, flags,
 * subscriptions to existing and new channels, subscription properties,
 * settings, alert words, channel creation and renaming, all at once. Every request
 * succeeds and PostgreSQL counts no deadlock in the database.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import type { MessageId } from "../../src/domain/Ids.ts"
import * as Persistence from "../../src/Persistence.ts"
import { AlertWords } from "../../src/services/AlertWords.ts"
import { Channels } from "../../src/services/Channels.ts"
import { MessageFlags } from "../../src/services/MessageFlags.ts"
import { Messages } from "../../src/services/Messages.ts"
import { Subscriptions } from "../../src/services/Subscriptions.ts"
import { Users } from "../../src/services/Users.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import { UserSettings } from "../../src/services/UserSettings.ts"
import * as PgClientLayer from "../../src/sql/PgClientLayer.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { core, makeOrg, unique } from "../events/fixtures.ts"

const UserCount = 10
const Rounds = 3

describe("concurrent writes in one organization on PostgreSQL", () => {
  it.live(`${UserCount} users × ${Rounds} rounds of every kind of write: all succeed, no deadlock`, () =>
    Effect.gen(function*() {
      const database = yield* TestDatabase.TestDatabase
      // An administrator's connection, apart from the server's pool.
      const admin = yield* PgClientLayer.make(database.url, { maxConnections: 1 })
      const deadlocks = admin<{ n: unknown }>`
        SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()`.pipe(
        Effect.map((rows) => Number(rows[0]!.n)),
        Effect.orDie
      )
      const otherBackends = admin<{ n: unknown }>`
        SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`.pipe(
        Effect.map((rows) => Number(rows[0]!.n)),
        Effect.orDie
      )
      const before = yield* deadlocks

      const exits = yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* Layer.build(core(Persistence.layerPostgres(database.url, { maxConnections: 8 })))
        return yield* Effect.provide(
          Effect.gen(function*() {
            const org = yield* makeOrg
            const users = yield* Users
            const channels = yield* Channels
            const messages = yield* Messages
            const flags = yield* MessageFlags
            const subscriptions = yield* Subscriptions
            const settings = yield* UserSettings
            const alertWords = yield* AlertWords
            const people: Array<Principal> = yield* Effect.forEach(
              Array.from({ length: UserCount }, (_, i) => i),
              (i) =>
                Effect.map(
                  users.create(org.realm.id, { email: `w${i}@${org.realm.string_id}.test`, full_name: `W${i}`, role: 400 }),
                  (user) => ({ realm: org.realm, user })
                )
            )
            const general = yield* channels.create(org.realm.id, { name: unique("general") })
            yield* channels.subscribe(general.id, people.map((p) => p.user.id))
            // Messages every user received, for the flag updates.
            const seeded: Array<MessageId> = []
            for (const p of people.slice(0, 3)) {
              const sent = yield* messages.send(p, { type: "channel", to: general.id, topic: "seed", content: "seed" })
              seeded.push(sent.message.id)
            }
            const shared = Array.from({ length: Rounds }, () => unique("shared"))

            const writes = people.flatMap((p, i) =>
              Array.from({ length: Rounds }, (_, round) => {
                const peer = people[(i + 1) % UserCount]!
                return [
                  messages.send(p, { type: "channel", to: general.id, topic: `t${round}`, content: `hello ${round}` }),
                  messages.send(p, { type: "direct", to: [peer.user.id], content: `dm ${round}` }),
                  flags.update(p, { messages: seeded, op: round % 2 === 0 ? "add" : "remove", flag: "read" }),
                  flags.update(p, { messages: seeded, op: "add", flag: "starred" }),
                  // The same new names from every user: concurrent creators.
                  subscriptions.subscribe(p, { subscriptions: [{ name: shared[round]! }] }),
                  subscriptions.subscribe(p, { subscriptions: [{ name: general.name }, { name: unique("own") }] }),
                  subscriptions.updateProperties(p, [{ stream_id: general.id, property: "pin_to_top", value: round % 2 === 0 }]),
                  settings.update(p, { full_name: `W${i} r${round}`, enter_sends: round % 2 === 0 }),
                  alertWords.add(p, [`word${round}`]),
                  Effect.flatMap(
                    channels.create(org.realm.id, { name: unique("made"), creator_id: p.user.id }),
                    (made) => channels.update(p, made.id, { name: unique("renamed") })
                  )
                ] as ReadonlyArray<Effect.Effect<unknown, unknown, never>>
              }).flat()
            )
            return yield* Effect.forEach(writes, Effect.exit, { concurrency: "unbounded" })
          }),
          server
        )
      }))

      const failures = exits.filter(Exit.isFailure)
      assert.strictEqual(failures.length, 0, failures.slice(0, 3).map(String).join("\n"))
      assert.strictEqual(exits.length, UserCount * Rounds * 10)
      // Backends report their counts as they exit: wait until the server's have.
      yield* Effect.repeat(otherBackends, { schedule: Schedule.spaced("20 millis"), until: (n) => n === 0 }).pipe(
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die("the server's connections did not close") })
      )
      assert.strictEqual(yield* deadlocks, before)
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 120_000)
})
