/**
 * A topic move racing its users' POST /user_topics on PostgreSQL: the
 * move carries the policies it read to the new topic, so a policy changed
 * at once must be ordered before the move (and carried) or after it (and
 * left on the old topic name), never lost between the two. Every request
 * succeeds; each user's final policies are those of one of the two orders.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import type { Principal } from "../../src/domain/Principal.ts"
import { VisibilityPolicy } from "../../src/domain/Muting.ts"
import * as Persistence from "../../src/Persistence.ts"
import { MutingRepo } from "../../src/ports/MutingRepo.ts"
import { Channels } from "../../src/services/Channels.ts"
import { MessageEdits } from "../../src/services/MessageEdits.ts"
import { Messages } from "../../src/services/Messages.ts"
import { Muting } from "../../src/services/Muting.ts"
import { Users } from "../../src/services/Users.ts"
import * as PgClientLayer from "../../src/sql/PgClientLayer.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { core, makeOrg, unique } from "../events/fixtures.ts"

const UserCount = 12
const Rounds = 8

describe("topic moves and topic policies at once on PostgreSQL", () => {
  it.live(`${Rounds} moves, each racing ${UserCount} policy changes of its topic: no policy lost`, () =>
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
      const outcomes = yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* Layer.build(core(Persistence.layerPostgres(database.url, { maxConnections: 8 })))
        return yield* Effect.provide(
          Effect.gen(function*() {
            const org = yield* makeOrg
            const users = yield* Users
            const channels = yield* Channels
            const messages = yield* Messages
            const edits = yield* MessageEdits
            const muting = yield* Muting
            const repo = yield* MutingRepo
            const people: Array<Principal> = yield* Effect.forEach(
              Array.from({ length: UserCount }, (_, i) => i),
              (i) =>
                Effect.map(
                  users.create(org.realm.id, { email: `p${i}@${org.realm.string_id}.test`, full_name: `P${i}`, role: 400 }),
                  (user) => ({ realm: org.realm, user })
                )
            )
            const channel = yield* channels.create(org.realm.id, { name: unique("moves") })
            yield* channels.subscribe(channel.id, people.map((p) => p.user.id))
            const results: Array<{ readonly exits: ReadonlyArray<Exit.Exit<unknown, unknown>>; readonly policies: ReadonlyArray<readonly [string, number][]> }> = []
            for (let round = 0; round < Rounds; round++) {
              const from = `old ${round}`
              const to = `new ${round}`
              const sent = yield* messages.send(people[0]!, { type: "channel", to: channel.id, topic: from, content: "x" })
              // Everyone muted the topic; now they follow it while it moves.
              for (const p of people) {
                yield* muting.updateUserTopic(p, { stream_id: channel.id, topic: from, visibility_policy: VisibilityPolicy.muted })
              }
              const follows = people.map((p) =>
                muting.updateUserTopic(p, { stream_id: channel.id, topic: from, visibility_policy: VisibilityPolicy.followed })
              )
              // The move among the policy changes: some start before it, some after.
              const half = (round * 5) % (UserCount + 1)
              const writes: Array<Effect.Effect<unknown, unknown>> = [
                ...follows.slice(0, half),
                // change_one moves the whole topic too (its only message).
                edits.edit(people[0]!, sent.message.id, { topic: to, propagate_mode: round % 2 === 0 ? "change_all" : "change_one" }),
                ...follows.slice(half)
              ]
              const exits = yield* Effect.forEach(writes, Effect.exit, { concurrency: "unbounded" })
              const policies = yield* Effect.forEach(people, (p) =>
                Effect.map(repo.listTopics(p.user.id), (rows) =>
                  rows.filter((r) => r.channel_id === channel.id && (r.topic_name === from || r.topic_name === to))
                    .map((r) => [r.topic_name, r.visibility_policy] as [string, number])
                    .sort(([a], [b]) => a.localeCompare(b))
                ))
              results.push({ exits, policies: policies.map((list) => list.map(([topic, policy]) => [topic.slice(0, 3), policy] as [string, number])) })
            }
            return results
          }),
          server
        )
      }))

      // Backends report their counts as they exit: wait until the server's have.
      yield* Effect.repeat(otherBackends, { schedule: Schedule.spaced("20 millis"), until: (n) => n === 0 }).pipe(
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die("the server's connections did not close") })
      )
      const deadlocked = (yield* deadlocks) - before
      for (const { exits, policies } of outcomes) {
        const failures = exits.filter(Exit.isFailure)
        assert.strictEqual(failures.length, 0, failures.slice(0, 3).map(String).join("\n"))
        for (const list of policies) {
          // Followed before the move: carried to the new topic. After it: on the old name, the muted one carried.
          const first = JSON.stringify([["new", VisibilityPolicy.followed]])
          const second = JSON.stringify([["new", VisibilityPolicy.muted], ["old", VisibilityPolicy.followed]])
          assert.include([first, second], JSON.stringify(list))
        }
      }
      // The policy write waits for the move before touching a row (the move's order: the log, then rows).
      assert.strictEqual(deadlocked, 0)
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 120_000)
})
