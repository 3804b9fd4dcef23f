/**
 * Bulk requests write in a bounded number of statements, whatever their
 * length (issue #32: 30,000 alert words were 30,000 INSERTs, 20,000 new
 * channels 20,000 creations each re-reading the organization). Each case
 * runs the same request with few and with many items and compares the SQL
 * statements it ran, counted from the spans effect's SQL client makes
 * (one per statement, with its text): the counts must be equal.
 *
 * The limits themselves (alert words per request and per user, channels and
 * principals per subscription request) are refused with their exact errors,
 * on every backend.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Principal } from "../../src/domain/Principal.ts"
import { AlertWords, MaxAlertWordsPerRequest, MaxAlertWordsPerUser } from "../../src/services/AlertWords.ts"
import { FlagBits } from "../../src/domain/Message.ts"
import { MessageStore } from "../../src/ports/MessageStore.ts"
import { MessageRepo } from "../../src/ports/Repositories.ts"
import { Channels } from "../../src/services/Channels.ts"
import { MessageFlags } from "../../src/services/MessageFlags.ts"
import { channelMessage } from "../persistence/MessagesFixtures.ts"
import { MaxPrincipalsPerRequest, MaxSubscriptionsPerRequest, Subscriptions } from "../../src/services/Subscriptions.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"
import { statementsOf } from "../support/Statements.ts"

const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

for (const backend of ["PGlite", "PostgreSQL"] as const) {
  describe(`bulk writes on ${backend}: statements do not grow with the items`, () => {
    layer(backends[backend](), { timeout: "120 seconds" })((it) => {
      it.effect("POST and DELETE /users/me/alert_words", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const alertWords = yield* AlertWords
          const few = yield* statementsOf(alertWords.add(org.member, words(2, "few")))
          const many = yield* statementsOf(alertWords.add(org.other, words(500, "many")))
          assert.strictEqual(many.result.length, 500)
          assert.strictEqual(many.statements.length, few.statements.length, many.statements.join("\n"))
          const fewGone = yield* statementsOf(alertWords.remove(org.member, words(2, "few")))
          const manyGone = yield* statementsOf(alertWords.remove(org.other, words(500, "many")))
          assert.deepStrictEqual(manyGone.result, [])
          assert.strictEqual(manyGone.statements.length, fewGone.statements.length, manyGone.statements.join("\n"))
        }))

      it.effect("POST /users/me/subscriptions creating channels for several principals", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const subscriptions = yield* Subscriptions
          const request = (n: number) => {
            const prefix = unique("bulk")
            return {
              subscriptions: Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}` })),
              principals: [org.owner.user.id, org.member.user.id, org.other.user.id]
            }
          }
          // The first request of a process warms what is read once (system groups).
          yield* subscriptions.subscribe(org.owner, request(1))
          const few = yield* statementsOf(subscriptions.subscribe(org.owner, request(2)))
          const many = yield* statementsOf(subscriptions.subscribe(org.owner, request(40)))
          assert.strictEqual(Object.values(many.result.subscribed).flat().length, 120)
          assert.strictEqual(many.statements.length, few.statements.length, many.statements.join("\n"))
          // Subscribing to existing channels: no creation.
          const existing = (n: number, prefix: string) => ({
            subscriptions: Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}` })),
            principals: [org.guest.user.id, org.admin.user.id]
          })
          const names = (r: typeof many.result) => Object.values(r.subscribed)[0]![0]!.replace(/-\d+$/, "")
          const joinFew = yield* statementsOf(subscriptions.subscribe(org.owner, existing(2, names(few.result))))
          const joinMany = yield* statementsOf(subscriptions.subscribe(org.owner, existing(40, names(many.result))))
          assert.strictEqual(Object.values(joinMany.result.subscribed).flat().length, 80)
          assert.strictEqual(joinMany.statements.length, joinFew.statements.length, joinMany.statements.join("\n"))
          // Unsubscribing them again.
          const leave = (n: number, prefix: string) => ({
            subscriptions: Array.from({ length: n }, (_, i) => `${prefix}-${i}`),
            principals: [org.guest.user.id, org.admin.user.id]
          })
          const leaveFew = yield* statementsOf(subscriptions.unsubscribe(org.owner, leave(2, names(few.result))))
          const leaveMany = yield* statementsOf(subscriptions.unsubscribe(org.owner, leave(40, names(many.result))))
          assert.strictEqual(leaveMany.result.removed.length, 80)
          assert.strictEqual(leaveMany.statements.length, leaveFew.statements.length, leaveMany.statements.join("\n"))
        }))

      it.effect("Channels.subscribe (the core's, for embedders and the demo) of several users", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const channels = yield* Channels
          const channel = () => channels.create(org.realm.id, { name: unique("sub"), creator_id: org.owner.user.id })
          const first = yield* channel()
          const second = yield* channel()
          yield* channels.subscribe(first.id, [org.owner.user.id]) // warms what is read once
          const few = yield* statementsOf(channels.subscribe(first.id, [org.admin.user.id]))
          const many = yield* statementsOf(channels.subscribe(
            second.id,
            [org.owner.user.id, org.admin.user.id, org.member.user.id, org.other.user.id, org.guest.user.id, org.guest.user.id]
          ))
          assert.deepStrictEqual(many.result, [org.owner.user.id, org.admin.user.id, org.member.user.id, org.other.user.id, org.guest.user.id])
          assert.strictEqual(many.statements.length, few.statements.length, many.statements.join("\n"))
          // Subscribed again: nothing to add.
          assert.deepStrictEqual(yield* channels.subscribe(second.id, [org.member.user.id]), [])
        }))

      it.effect("POST /mark_topic_as_read, /mark_stream_as_read and /mark_all_as_read of a backlog", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const channels = yield* Channels
          const flags = yield* MessageFlags
          const repo = yield* MessageRepo
          const store = yield* MessageStore
          const channel = yield* channels.create(org.realm.id, { name: unique("backlog") })
          yield* channels.subscribe(channel.id, [org.owner.user.id, org.member.user.id, org.other.user.id])
          /** `n` unread messages in the topic for the user. */
          const backlog = (who: Principal, n: number, topic: string) =>
            store.insertMany(Array.from({ length: n }, (_, i) => ({
              message: channelMessage(org.realm.id, org.owner.user.id, channel.id, topic, `m${i}`),
              recipients: [{ user_id: who.user.id, flags: 0 }]
            })))
          const unread = (who: Principal) => Effect.map(repo.listByFlags(who.user.id, FlagBits.read, 0), (rows) => rows.length)
          yield* flags.markChannelAsRead(org.owner, channel.id) // warms what is read once
          const rounds: ReadonlyArray<readonly [string, (who: Principal) => Effect.Effect<unknown, unknown>]> = [
            ["topic", (who) => flags.markTopicAsRead(who, channel.id, "LUNCH")],
            ["channel", (who) => flags.markChannelAsRead(who, channel.id)],
            ["all", (who) => flags.markAllAsRead(who)]
          ]
          for (const [name, mark] of rounds) {
            yield* backlog(org.member, 2, "lunch")
            yield* backlog(org.other, 2000, "Lunch")
            const few = yield* statementsOf(mark(org.member))
            const many = yield* statementsOf(mark(org.other))
            assert.strictEqual(yield* unread(org.member), 0, name)
            assert.strictEqual(yield* unread(org.other), 0, name)
            assert.strictEqual(many.statements.length, few.statements.length, `${name}:\n${many.statements.join("\n")}`)
          }
        }))
    })
  })
}

for (const backend of ["memory", "PGlite", "PostgreSQL"] as const) {
  describe(`request limits on ${backend}`, () => {
    layer(backends[backend](), { timeout: "120 seconds" })((it) => {
      const failure = <A, E extends { readonly _tag: string; readonly msg: string }, R>(self: Effect.Effect<A, E, R>) =>
        Effect.map(Effect.flip(self), (error) => ({ tag: error._tag, msg: error.msg }))

      it.effect("alert words: per request and per user", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const alertWords = yield* AlertWords
          const member: Principal = org.member
          assert.deepStrictEqual(yield* failure(alertWords.add(member, words(MaxAlertWordsPerRequest + 1, "w"))), {
            tag: "TooManyItems",
            msg: `alert_words is too long (limit: ${MaxAlertWordsPerRequest} items)`
          })
          assert.deepStrictEqual(yield* failure(alertWords.remove(member, words(MaxAlertWordsPerRequest + 1, "w"))), {
            tag: "TooManyItems",
            msg: `alert_words is too long (limit: ${MaxAlertWordsPerRequest} items)`
          })
          assert.deepStrictEqual(yield* alertWords.list(member.user.id), [])
          // At the limit: every word is kept.
          const full = words(MaxAlertWordsPerUser, "w")
          assert.strictEqual((yield* alertWords.add(member, full)).length, MaxAlertWordsPerUser)
          // Words the user has already (in any case) cost nothing; a new one is one too many.
          assert.strictEqual((yield* alertWords.add(member, ["W0", "w1"])).length, MaxAlertWordsPerUser)
          assert.deepStrictEqual(yield* failure(alertWords.add(member, ["w0", "new"])), {
            tag: "BadRequest",
            msg: `You can have at most ${MaxAlertWordsPerUser} alert words.`
          })
          assert.strictEqual((yield* alertWords.list(member.user.id)).length, MaxAlertWordsPerUser)
          assert.deepStrictEqual(yield* alertWords.remove(member, full), [])
        }))

      it.effect("subscriptions: channels and principals per request", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const subscriptions = yield* Subscriptions
          const names = Array.from({ length: MaxSubscriptionsPerRequest + 1 }, (_, i) => `c${i}`)
          assert.deepStrictEqual(
            yield* failure(subscriptions.subscribe(org.owner, { subscriptions: names.map((name) => ({ name })) })),
            { tag: "TooManyItems", msg: `subscriptions is too long (limit: ${MaxSubscriptionsPerRequest} items)` }
          )
          assert.deepStrictEqual(
            yield* failure(subscriptions.unsubscribe(org.owner, { subscriptions: names })),
            { tag: "TooManyItems", msg: `subscriptions is too long (limit: ${MaxSubscriptionsPerRequest} items)` }
          )
          const principals = Array.from({ length: MaxPrincipalsPerRequest + 1 }, (_, i) => i + 1)
          assert.deepStrictEqual(
            yield* failure(subscriptions.subscribe(org.owner, { subscriptions: [{ name: "c" }], principals })),
            { tag: "TooManyItems", msg: `principals is too long (limit: ${MaxPrincipalsPerRequest} items)` }
          )
          assert.deepStrictEqual(
            yield* failure(subscriptions.unsubscribe(org.owner, { subscriptions: ["c"], principals })),
            { tag: "TooManyItems", msg: `principals is too long (limit: ${MaxPrincipalsPerRequest} items)` }
          )
        }))
    })
  })
}
