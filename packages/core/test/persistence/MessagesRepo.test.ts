/**
 * The MessageRepo contract on every backend: memory, PGlite and PostgreSQL
 * (a fresh database per block on TEST_DATABASE_URL's server).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { messageId } from "../../src/domain/Ids.ts"
import type { MessageId } from "../../src/domain/Ids.ts"
import { FlagBits } from "../../src/domain/Message.ts"
import { MessageStore } from "../../src/ports/MessageStore.ts"
import { MessageRepo, UserSettingsRepo } from "../../src/ports/Repositories.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import type { Repos } from "./MessagesFixtures.ts"
import { channelMessage, directMessage, memoryLayer, seedOrganization, sqlLayer } from "./MessagesFixtures.ts"

const { read, starred, mentioned } = FlagBits

const ids = (rows: ReadonlyArray<{ readonly id: number }>) => rows.map((r) => r.id)

const messageRepoContract = (name: string, makeLayer: () => Layer.Layer<Repos, unknown>) =>
  describe(name, () => {
    layer(makeLayer(), { timeout: "60 seconds" })("MessageRepo", (it) => {
      it.effect("insert assigns ids from 1 and round-trips every field", () =>
        Effect.gen(function*() {
          const repo = yield* MessageRepo
          const store = yield* MessageStore
          const { realm, users: [alice, bob, carol], channels: [general] } = yield* seedOrganization({
            users: 3,
            channels: [{}]
          })
          const m1 = yield* store.insert(
            channelMessage(realm.id, alice!.id, general!.id, "greetings", "hello **world**", {
              has_link: true,
              last_edit_time: 1_700_000_200,
              client: "ZulipMobile"
            }),
            [{ user_id: alice!.id, flags: read }, { user_id: bob!.id, flags: mentioned }]
          )
          const m2 = yield* store.insert(directMessage(realm.id, bob!.id, [carol!.id, alice!.id], "psst"), [
            { user_id: bob!.id, flags: read },
            { user_id: alice!.id, flags: 0 },
            { user_id: carol!.id, flags: 0 }
          ])
          assert.deepStrictEqual([m1.id, m2.id], [1, 2])
          assert.deepStrictEqual(m2.dm_user_ids, [alice!.id, bob!.id, carol!.id])
          assert.deepStrictEqual(yield* repo.findById(m1.id), m1)
          assert.deepStrictEqual(yield* repo.findById(m2.id), m2)
          assert.strictEqual(yield* repo.findById(messageId(999)), undefined)
          assert.deepStrictEqual(yield* repo.findByIds([m2.id, messageId(999), m1.id, m2.id]), [m1, m2])
          assert.deepStrictEqual(yield* repo.findByIds([]), [])
        }))

      it.effect("rows: userMessages by message id, recipients by user id, insertUserMessages keeps existing rows", () =>
        Effect.gen(function*() {
          const repo = yield* MessageRepo
          const store = yield* MessageStore
          const { realm, users: [alice, bob, carol], channels: [general] } = yield* seedOrganization({
            users: 3,
            channels: [{}]
          })
          const a = yield* store.insert(channelMessage(realm.id, carol!.id, general!.id, "t", "a"), [
            { user_id: carol!.id, flags: read },
            { user_id: alice!.id, flags: 0 }
          ])
          const b = yield* store.insert(channelMessage(realm.id, carol!.id, general!.id, "t", "b"), [
            { user_id: carol!.id, flags: read }
          ])
          assert.deepStrictEqual(yield* repo.userMessages(alice!.id, [b.id, a.id]), [
            { user_id: alice!.id, message_id: a.id, flags: 0 }
          ])
          yield* store.insertUserMessages([
            { user_id: bob!.id, message_id: b.id, flags: read | FlagBits.historical },
            { user_id: alice!.id, message_id: a.id, flags: starred },
            { user_id: alice!.id, message_id: b.id, flags: starred | read | FlagBits.historical }
          ])
          yield* store.insertUserMessages([])
          assert.deepStrictEqual(yield* repo.userMessages(alice!.id, [b.id, a.id, messageId(12345)]), [
            { user_id: alice!.id, message_id: a.id, flags: 0 },
            { user_id: alice!.id, message_id: b.id, flags: starred | read | FlagBits.historical }
          ])
          assert.deepStrictEqual(yield* repo.recipients(b.id), [
            { user_id: alice!.id, message_id: b.id, flags: starred | read | FlagBits.historical },
            { user_id: bob!.id, message_id: b.id, flags: read | FlagBits.historical },
            { user_id: carol!.id, message_id: b.id, flags: read }
          ])
          assert.deepStrictEqual(yield* repo.userMessages(bob!.id, []), [])
        }))

      it.effect("updateFlags returns only the ids whose flags changed, ascending; listByFlags filters", () =>
        Effect.gen(function*() {
          const repo = yield* MessageRepo
          const store = yield* MessageStore
          const { realm, users: [alice, bob], channels: [general] } = yield* seedOrganization({
            users: 2,
            channels: [{}]
          })
          const made: Array<MessageId> = []
          for (let i = 0; i < 4; i++) {
            const m = yield* store.insert(channelMessage(realm.id, bob!.id, general!.id, "t", `m${i}`), [
              { user_id: alice!.id, flags: i % 2 === 0 ? read : 0 },
              { user_id: bob!.id, flags: read }
            ])
            made.push(m.id)
          }
          const [m0, m1, m2, m3] = made as [MessageId, MessageId, MessageId, MessageId]
          const foreign = messageId(m3 + 1000)
          assert.deepStrictEqual(yield* store.updateFlags(alice!.id, [m3, m2, m1, m0, foreign], read, true), [m1, m3])
          assert.deepStrictEqual(yield* store.updateFlags(alice!.id, [m3, m1], read, true), [])
          assert.deepStrictEqual(yield* store.updateFlags(alice!.id, [m2, m0], read | starred, false), [m0, m2])
          assert.deepStrictEqual(yield* store.updateFlags(alice!.id, [m2, m3], starred, true), [m2, m3])
          assert.deepStrictEqual(yield* store.updateFlags(alice!.id, [], starred, true), [])
          const flagsOf = (rows: ReadonlyArray<{ readonly message: { readonly id: number }; readonly flags: number }>) =>
            rows.map((r) => [r.message.id, r.flags])
          assert.deepStrictEqual(flagsOf(yield* repo.listByFlags(alice!.id, read, 0)), [[m0, 0], [m2, starred]])
          assert.deepStrictEqual(flagsOf(yield* repo.listByFlags(alice!.id, starred, starred)), [
            [m2, starred],
            [m3, read | starred]
          ])
          assert.deepStrictEqual(flagsOf(yield* repo.listByFlags(alice!.id, read | starred, read | starred)), [
            [m3, read | starred]
          ])
          // Bits of `value` outside `mask` are ignored.
          assert.deepStrictEqual(flagsOf(yield* repo.listByFlags(bob!.id, starred, read)), [
            [m0, read],
            [m1, read],
            [m2, read],
            [m3, read]
          ])
          const listed = yield* repo.listByFlags(alice!.id, starred, starred)
          assert.deepStrictEqual(listed[0]!.message, yield* repo.findById(m2))
        }))

      it.effect("delete removes messages and every row", () =>
        Effect.gen(function*() {
          const repo = yield* MessageRepo
          const store = yield* MessageStore
          const { realm, users: [alice, bob], channels: [general] } = yield* seedOrganization({
            users: 2,
            channels: [{}]
          })
          const a = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "t", "a"), [
            { user_id: alice!.id, flags: read },
            { user_id: bob!.id, flags: 0 }
          ])
          const b = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "t", "b"), [
            { user_id: alice!.id, flags: read }
          ])
          yield* store.delete([a.id])
          yield* store.delete([])
          assert.strictEqual(yield* repo.findById(a.id), undefined)
          assert.deepStrictEqual(yield* repo.recipients(a.id), [])
          assert.deepStrictEqual(yield* repo.userMessages(bob!.id, [a.id]), [])
          assert.deepStrictEqual(ids(yield* repo.findByIds([a.id, b.id])), [b.id])
          assert.strictEqual(yield* repo.maxUserMessageId(bob!.id), -1)
          assert.strictEqual(yield* repo.maxUserMessageId(alice!.id), b.id)
        }))

      it.effect("topics, oldest in channel, max row id", () =>
        Effect.gen(function*() {
          const repo = yield* MessageRepo
          const store = yield* MessageStore
          const { realm, users: [alice, bob], channels: [general, empty, other] } = yield* seedOrganization({
            users: 2,
            channels: [{}, {}, {}]
          })
          const rows = [{ user_id: alice!.id, flags: 0 }]
          const a = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "Lunch", "1"), rows)
          const b = yield* store.insert(channelMessage(realm.id, alice!.id, other!.id, "lunch", "2"), rows)
          const c = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "LUNCH", "3"), rows)
          yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "dinner", "4"), rows)
          const e = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "lunch", "5"), [])
          assert.deepStrictEqual(yield* repo.topicMessageIds(general!.id, "lunch", 10), [e.id, c.id, a.id])
          assert.deepStrictEqual(yield* repo.topicMessageIds(general!.id, "Lunch", 2), [e.id, c.id])
          assert.deepStrictEqual(yield* repo.topicMessageIds(general!.id, "brunch", 2), [])
          assert.deepStrictEqual(yield* repo.topicMessageIds(other!.id, "LUNCH", 5), [b.id])
          assert.strictEqual(yield* repo.oldestInChannel(general!.id), a.id)
          assert.strictEqual(yield* repo.oldestInChannel(empty!.id), null)
          assert.strictEqual(yield* repo.maxUserMessageId(alice!.id), e.id - 1)
          assert.strictEqual(yield* repo.maxUserMessageId(bob!.id), -1)
        }))

      it.effect("channelTopics: each exact spelling with its newest id, over everything or one user's rows", () =>
        Effect.gen(function*() {
          const repo = yield* MessageRepo
          const store = yield* MessageStore
          const { realm, users: [alice, bob], channels: [general, empty, other] } = yield* seedOrganization({
            users: 2,
            channels: [{}, {}, {}]
          })
          const both = [{ user_id: alice!.id, flags: 0 }, { user_id: bob!.id, flags: 0 }]
          const aliceOnly = [{ user_id: alice!.id, flags: 0 }]
          const a = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "Lunch", "1"), both)
          yield* store.insert(channelMessage(realm.id, alice!.id, other!.id, "elsewhere", "2"), both)
          const c = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "LUNCH", "3"), aliceOnly)
          const d = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "", "4"), aliceOnly)
          const e = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "Lunch", "5"), both)
          const sorted = (rows: ReadonlyArray<{ readonly topic: string; readonly max_id: MessageId }>) =>
            [...rows].sort((x, y) => x.max_id - y.max_id)
          assert.deepStrictEqual(sorted(yield* repo.channelTopics(general!.id, null)), [
            { topic: "LUNCH", max_id: c.id },
            { topic: "", max_id: d.id },
            { topic: "Lunch", max_id: e.id }
          ])
          assert.deepStrictEqual(sorted(yield* repo.channelTopics(general!.id, bob!.id)), [{ topic: "Lunch", max_id: e.id }])
          assert.isTrue(a.id < e.id)
          assert.deepStrictEqual(yield* repo.channelTopics(empty!.id, null), [])
          assert.deepStrictEqual(yield* repo.channelTopics(empty!.id, alice!.id), [])
        }))

      it.effect("UserSettingsRepo.getMany: the stored overrides of the users who have some", () =>
        Effect.gen(function*() {
          const settings = yield* UserSettingsRepo
          const { users: [alice, bob, carol] } = yield* seedOrganization({ users: 3, channels: [] })
          yield* settings.set(alice!.id, { receives_typing_notifications: false })
          yield* settings.set(carol!.id, { send_stream_typing_notifications: false, presence_enabled: false })
          const found = yield* settings.getMany([alice!.id, bob!.id, carol!.id])
          assert.deepStrictEqual(
            [...found].sort(([x], [y]) => x - y),
            [
              [alice!.id, { receives_typing_notifications: false }],
              [carol!.id, { send_stream_typing_notifications: false, presence_enabled: false }]
            ]
          )
          assert.strictEqual((yield* settings.getMany([])).size, 0)
        }))

      it.effect("recentDmConversations: the user's conversations, newest first, limited", () =>
        Effect.gen(function*() {
          const repo = yield* MessageRepo
          const store = yield* MessageStore
          const { realm, users: [alice, bob, carol, dave], channels: [general] } = yield* seedOrganization({
            users: 4,
            channels: [{}]
          })
          const rowsFor = (...users: ReadonlyArray<{ readonly id: typeof alice.id }>) =>
            users.map((u) => ({ user_id: u.id, flags: 0 }))
          const d1 = yield* store.insert(directMessage(realm.id, alice!.id, [bob!.id], "1"), rowsFor(alice!, bob!))
          const self = yield* store.insert(directMessage(realm.id, alice!.id, [], "2"), rowsFor(alice!))
          const group = yield* store.insert(
            directMessage(realm.id, carol!.id, [alice!.id, dave!.id], "3"),
            rowsFor(alice!, carol!, dave!)
          )
          yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "t", "4"), rowsFor(alice!, bob!))
          const d2 = yield* store.insert(directMessage(realm.id, bob!.id, [alice!.id], "5"), rowsFor(alice!, bob!))
          yield* store.insert(directMessage(realm.id, bob!.id, [carol!.id], "6"), rowsFor(bob!, carol!))
          assert.deepStrictEqual(yield* repo.recentDmConversations(alice!.id, 10), [
            { dm_user_ids: [alice!.id, bob!.id], max_message_id: d2.id },
            { dm_user_ids: [alice!.id, carol!.id, dave!.id], max_message_id: group.id },
            { dm_user_ids: [alice!.id], max_message_id: self.id }
          ])
          assert.deepStrictEqual(yield* repo.recentDmConversations(alice!.id, 1), [
            { dm_user_ids: [alice!.id, bob!.id], max_message_id: d2.id }
          ])
          assert.deepStrictEqual(yield* repo.recentDmConversations(dave!.id, 10), [
            { dm_user_ids: [alice!.id, carol!.id, dave!.id], max_message_id: group.id }
          ])
          assert.isTrue(d1.id < d2.id)
        }))

      it.effect("a rolled-back transaction leaves no message or row", () =>
        Effect.gen(function*() {
          const repo = yield* MessageRepo
          const store = yield* MessageStore
          const tx = yield* Transactor
          const { realm, users: [alice], channels: [general] } = yield* seedOrganization({ users: 1, channels: [{}] })
          const kept = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "t", "kept"), [
            { user_id: alice!.id, flags: 0 }
          ])
          const failed = yield* tx.withTransaction(Effect.gen(function*() {
            const m = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "t", "gone"), [
              { user_id: alice!.id, flags: 0 }
            ])
            yield* store.updateFlags(alice!.id, [kept.id], starred, true)
            return yield* Effect.fail(m)
          })).pipe(Effect.flip)
          assert.strictEqual(yield* repo.findById(failed.id), undefined)
          assert.deepStrictEqual(yield* repo.userMessages(alice!.id, [kept.id, failed.id]), [
            { user_id: alice!.id, message_id: kept.id, flags: 0 }
          ])
          const next = yield* store.insert(channelMessage(realm.id, alice!.id, general!.id, "t", "next"), [])
          assert.strictEqual(next.id, failed.id + 1)
        }))
    })
  })

messageRepoContract("memory", memoryLayer)
messageRepoContract("PGlite", () => sqlLayer(TestDatabase.pgliteMigratedLayer()))
messageRepoContract("PostgreSQL", () => sqlLayer(TestDatabase.postgresLayer()))
