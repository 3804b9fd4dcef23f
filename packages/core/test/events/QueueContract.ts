/**
 * The event-queue contract, run on every backend (memory, PGlite,
 * PostgreSQL): Zulip's id, acknowledgement, error, blocking, heartbeat,
 * supersession, expiry and filtering rules, and after-commit publication.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import type { RealmId, UserId } from "../../src/domain/Ids.ts"
import { EventQueues, EventQueuesConfig } from "../../src/services/events/EventQueues.ts"
import { Audience } from "../../src/domain/Event.ts"
import { Events } from "../../src/services/events/Events.ts"
import type { Publication } from "../../src/services/events/Events.ts"
import { EventStore } from "../../src/ports/EventStore.ts"
import type { Signal } from "../../src/ports/EventStore.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import type * as Teamchat from "../../src/Teamchat.ts"
import type * as Persistence from "../../src/Persistence.ts"
import { alertWordsOf, makeOrg, openQueue } from "./fixtures.ts"

const fast = { heartbeatMinMs: 50_000, heartbeatMaxMs: 50_000, gcIntervalMs: 60_000, defaultLifespanSecs: 600, maxLifespanSecs: 604_800 }
const withConfig = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, EventQueuesConfig, fast)

const ping = (realmId: RealmId, userIds: ReadonlyArray<UserId>, n: number) =>
  Effect.flatMap(Events, (events) =>
    events.publish(realmId, { type: "alert_words", alert_words: [`w${n}`] }, Audience.users(userIds)))

/** One turn of the event loop: forked fibers and the database make progress; neither clock moves. */
const turn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** Waits until `count` polls of this process are waiting (each registered, its heartbeat scheduled). */
const waitingFor = (count: number) =>
  Effect.gen(function*() {
    const queues = yield* EventQueues
    while ((yield* queues.waitingPolls) < count) yield* turn
  })

/** The signals about `realm` this process dispatches while `f` runs (dispatch is synchronous, at commit). */
const signalsOf = <A, E, R>(realm: RealmId, f: (heard: ReadonlyArray<Signal>) => Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.gen(function*() {
    const heard: Array<Signal> = []
    yield* (yield* EventStore).onSignal((signal) => {
      if (signal._tag === "events" && signal.realm === realm) heard.push(signal)
    })
    return yield* f(heard)
  }))

export const queueContract = <E>(
  name: string,
  make: () => Layer.Layer<Teamchat.Services | Persistence.Persistence, E>
) =>
  describe(`event queues on ${name}`, () => {
    layer(make(), { timeout: "120 seconds" })((it) => {
      it.effect("ids increase; last_event_id prunes; -1 is valid at first", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const q = yield* openQueue(org.member)
          assert.deepStrictEqual((yield* q.get({ last_event_id: -1, dont_block: true })).events, [])
          yield* ping(org.realm.id, [org.member.user.id], 1)
          yield* ping(org.realm.id, [org.member.user.id, org.other.user.id], 2)
          yield* ping(org.realm.id, [org.other.user.id], 3)
          const { events } = yield* q.get({ last_event_id: -1, dont_block: true })
          assert.deepStrictEqual(events.map(alertWordsOf), [["w1"], ["w2"]])
          assert.isTrue(events[0]!.id < events[1]!.id)
          // Delivery does not remove: the same request returns the same events.
          assert.deepStrictEqual((yield* q.get({ last_event_id: -1, dont_block: true })).events, events)
          // Acknowledging the first leaves the second.
          assert.deepStrictEqual((yield* q.get({ last_event_id: events[0]!.id, dont_block: true })).events, [events[1]!])
          assert.deepStrictEqual((yield* q.get({ last_event_id: events[1]!.id, dont_block: true })).events, [])
          // Re-acknowledging the newest id is fine.
          assert.deepStrictEqual((yield* q.get({ last_event_id: events[1]!.id, dont_block: true })).events, [])
        })))

      it.effect("an older id is already pruned; an unknown id was not in the queue", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const q = yield* openQueue(org.member)
          yield* ping(org.realm.id, [org.member.user.id], 1)
          yield* ping(org.realm.id, [org.member.user.id], 2)
          const { events } = yield* q.get({ last_event_id: -1, dont_block: true })
          yield* q.get({ last_event_id: events[1]!.id, dont_block: true })
          const pruned = yield* Effect.flip(q.get({ last_event_id: events[0]!.id, dont_block: true }))
          assert.deepStrictEqual(pruned.wire, {
            result: "error",
            msg: `An event newer than ${events[0]!.id} has already been pruned!`,
            code: "BAD_REQUEST"
          })
          const bogus = events[1]!.id + 1000
          const missing = yield* Effect.flip(q.get({ last_event_id: bogus, dont_block: true }))
          assert.deepStrictEqual(missing.wire, { result: "error", msg: `Event ${bogus} was not in this queue`, code: "BAD_REQUEST" })
          // Fresh queue: 5 was never in it.
          const fresh = yield* openQueue(org.member)
          const five = yield* Effect.flip(fresh.get({ last_event_id: 5, dont_block: true }))
          assert.strictEqual(five.msg, "Event 5 was not in this queue")
        })))

      it.effect("BAD_EVENT_QUEUE_ID for unknown, deleted and other users' queues; missing arguments", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const queues = yield* EventQueues
          const unknown = yield* Effect.flip(queues.getEvents(org.member, { queue_id: "nope", last_event_id: -1 }))
          assert.deepStrictEqual(unknown.wire, {
            result: "error",
            msg: "Bad event queue ID: nope",
            code: "BAD_EVENT_QUEUE_ID",
            queue_id: "nope"
          })
          const q = yield* openQueue(org.member)
          const stolen = yield* Effect.flip(queues.getEvents(org.other, { queue_id: q.queue.id, last_event_id: -1 }))
          assert.strictEqual(stolen._tag, "BadEventQueueId")
          assert.strictEqual((yield* Effect.flip(queues.deleteQueue(org.other, q.queue.id)))._tag, "BadEventQueueId")
          yield* queues.deleteQueue(org.member, q.queue.id)
          assert.strictEqual((yield* Effect.flip(q.get({ last_event_id: -1, dont_block: true })))._tag, "BadEventQueueId")
          assert.strictEqual((yield* Effect.flip(queues.deleteQueue(org.member, q.queue.id)))._tag, "BadEventQueueId")
          const noQueue = yield* Effect.flip(queues.getEvents(org.member, { last_event_id: -1 }))
          assert.deepStrictEqual(noQueue.wire, { result: "error", msg: "Missing 'queue_id' argument", code: "BAD_REQUEST" })
          const noLast = yield* Effect.flip(queues.getEvents(org.member, { queue_id: "x" }))
          assert.deepStrictEqual(noLast.wire, { result: "error", msg: "Missing 'last_event_id' argument", code: "BAD_REQUEST" })
          // Without queue_id but with dont_block, a queue is registered.
          const registered = yield* queues.getEvents(org.member, { dont_block: true })
          assert.deepStrictEqual(registered.events, [])
          assert.isString(registered.queue_id)
        })))

      it.effect("register validates the narrow and all_public_streams", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const queues = yield* EventQueues
          const op = yield* Effect.flip(queues.register(org.member, { narrow: [["search", "x"]] }))
          assert.strictEqual(op.msg, "Operator search not supported.")
          const followed = yield* Effect.flip(queues.register(org.member, { narrow: [["is", "followed"]] }))
          assert.strictEqual(followed.msg, "Operand followed not supported.")
          yield* queues.register(org.member, { narrow: [["stream", "Denmark"], ["topic", "x"], ["is", "dm"]] })
          const guest = yield* Effect.flip(queues.register(org.guest, { all_public_streams: true }))
          assert.strictEqual(guest.msg, "User not authorized for this query")
        }))

      it.effect("a blocking poll returns as soon as a matching event commits", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const q = yield* openQueue(org.member)
          const before = yield* (yield* EventQueues).waitingPolls
          const poll = yield* Effect.forkChild(q.get({ last_event_id: -1 }))
          yield* waitingFor(before + 1)
          assert.isUndefined(poll.pollUnsafe())
          // An event for someone else does not finish it: the poll answers
          // the next event, its own, and only that (had the other event
          // finished it, the answer would hold that event or nothing).
          yield* ping(org.realm.id, [org.other.user.id], 0)
          yield* ping(org.realm.id, [org.member.user.id], 1)
          const { events } = yield* Fiber.join(poll)
          assert.deepStrictEqual(events.map(alertWordsOf), [["w1"]])
        })))

      it.effect("poll answers at once, or gives the blocked poll's wait, which waits only once it runs", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const queues = yield* EventQueues
          const q = yield* openQueue(org.member)
          const params = { queue_id: q.queue.id, last_event_id: -1 }
          const now = yield* queues.poll(org.member, { ...params, dont_block: true })
          assert.isFalse(Effect.isEffect(now))
          assert.deepStrictEqual(now, { events: [] })
          const before = yield* queues.waitingPolls
          const blocked = yield* queues.poll(org.member, params)
          if (!Effect.isEffect(blocked)) return assert.fail("the poll should block")
          // Not waiting until its wait runs: an event meanwhile is in its answer.
          assert.strictEqual(yield* queues.waitingPolls, before)
          yield* ping(org.realm.id, [org.member.user.id], 1)
          const early = yield* blocked
          assert.deepStrictEqual(early.events.map(alertWordsOf), [["w1"]])
          assert.strictEqual(yield* queues.waitingPolls, before)
          // With events pending, poll answers them at once.
          const pending = yield* queues.poll(org.member, params)
          assert.deepStrictEqual(pending, early)
          // A wait that runs waits like getEvents, and ends with it.
          const acked = { queue_id: q.queue.id, last_event_id: early.events[0]!.id }
          const later = yield* queues.poll(org.member, acked)
          if (!Effect.isEffect(later)) return assert.fail("the poll should block")
          const waiting = yield* Effect.forkChild(later)
          yield* waitingFor(before + 1)
          assert.strictEqual(yield* queues.waitingPolls, before + 1)
          yield* ping(org.realm.id, [org.member.user.id], 2)
          const { events } = yield* Fiber.join(waiting)
          assert.deepStrictEqual(events.map(alertWordsOf), [["w2"]])
          assert.strictEqual(yield* queues.waitingPolls, before)
        })))

      it.effect("queues registered alike share one options object, as registered and as read back", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const queues = yield* EventQueues
          const store = yield* EventStore
          const params = { event_types: ["alert_words", "realm_user"], client_capabilities: { notification_settings_null: true } }
          const a = yield* queues.register(org.member, params)
          const b = yield* queues.register(org.other, { ...params, event_types: ["alert_words", "realm_user"] })
          const c = yield* queues.register(org.member, { ...params, event_types: ["realm_user"] })
          assert.strictEqual(a.options, b.options)
          assert.notStrictEqual(a.options, c.options)
          assert.deepStrictEqual(a.options.event_types, ["alert_words", "realm_user"])
          assert.isTrue(Object.isFrozen(a.options))
          const [x, y, z] = [yield* store.findQueue(a.id), yield* store.findQueue(b.id), yield* store.findQueue(c.id)]
          assert.strictEqual(x!.options, y!.options)
          assert.notStrictEqual(x!.options, z!.options)
          assert.deepStrictEqual(x!.options, a.options)
        })))

      it.effect("a blocked poll gets a heartbeat after the configured delay", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const q = yield* openQueue(org.member)
          const queues = yield* EventQueues
          const before = yield* queues.waitingPolls
          // At 49 s no heartbeat yet: an event then is the poll's whole answer
          // (a heartbeat due by then would be in it).
          const early = yield* Effect.forkChild(q.get({ last_event_id: -1 }))
          yield* waitingFor(before + 1)
          yield* TestClock.adjust(49_000)
          // The heartbeat timer's fiber runs what came due.
          yield* turn
          yield* ping(org.realm.id, [org.member.user.id], 0)
          const first = (yield* Fiber.join(early)).events
          assert.deepStrictEqual(first.map((e) => e.type), ["alert_words"])
          // A poll left waiting gets its heartbeat 50 s after it started.
          const poll = yield* Effect.forkChild(q.get({ last_event_id: first[0]!.id }))
          yield* waitingFor(before + 1)
          yield* TestClock.adjust(49_000)
          assert.isUndefined(poll.pollUnsafe())
          yield* TestClock.adjust(1_000)
          const { events } = yield* Fiber.join(poll)
          assert.strictEqual(events.length, 1)
          assert.deepStrictEqual(Object.keys(events[0]!).sort(), ["id", "type"])
          assert.strictEqual(events[0]!.type, "heartbeat")
          const hb = events[0]!.id
          // The heartbeat is acknowledged like any event; later ids are larger.
          yield* ping(org.realm.id, [org.member.user.id], 1)
          const next = yield* q.get({ last_event_id: hb, dont_block: true })
          assert.strictEqual(next.events.length, 1)
          assert.isTrue(next.events[0]!.id > hb)
        })))

      it.effect("a newer poll on the same queue finishes the older one", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const q = yield* openQueue(org.member)
          const before = yield* (yield* EventQueues).waitingPolls
          const first = yield* Effect.forkChild(q.get({ last_event_id: -1 }))
          yield* waitingFor(before + 1)
          assert.isUndefined(first.pollUnsafe())
          const second = yield* Effect.forkChild(q.get({ last_event_id: -1 }))
          const old = yield* Fiber.join(first)
          assert.deepStrictEqual(old.events, [])
          yield* ping(org.realm.id, [org.member.user.id], 7)
          const fresh = yield* Fiber.join(second)
          assert.deepStrictEqual(fresh.events.map(alertWordsOf), [["w7"]])
        })))

      it.effect("idle queues expire after their lifespan; only blocking polls refresh it", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const queues = yield* EventQueues
          const q = yield* openQueue(org.member, { queue_lifespan_secs: 100 })
          yield* TestClock.adjust(90_000)
          // A non-blocking poll does not refresh.
          yield* q.get({ last_event_id: -1, dont_block: true })
          yield* TestClock.adjust(10_000)
          const expired = yield* Effect.flip(q.get({ last_event_id: -1, dont_block: true }))
          assert.strictEqual(expired._tag, "BadEventQueueId")

          const r = yield* openQueue(org.member, { queue_lifespan_secs: 100 })
          yield* TestClock.adjust(90_000)
          const waitingBefore = yield* queues.waitingPolls
          const poll = yield* Effect.forkChild(r.get({ last_event_id: -1 }))
          yield* waitingFor(waitingBefore + 1)
          // Waiting queues never expire; the poll ends with a heartbeat at +50 s.
          yield* TestClock.adjust(50_000)
          const { events } = yield* Fiber.join(poll)
          assert.strictEqual(events[0]!.type, "heartbeat")
          // Blocking refreshed last_connected (at +90 s): alive until +190 s.
          yield* TestClock.adjust(40_000)
          assert.strictEqual((yield* r.get({ last_event_id: events[0]!.id, dont_block: true })).events.length, 0)
          yield* TestClock.adjust(20_000)
          assert.strictEqual((yield* Effect.flip(r.get({ last_event_id: events[0]!.id, dont_block: true })))._tag, "BadEventQueueId")

          // 0 means the default 600 s; garbage collection deletes expired queues.
          const s = yield* openQueue(org.member, { queue_lifespan_secs: 0 })
          assert.strictEqual(s.queue.lifespan_secs, 600)
          yield* TestClock.adjust(600_000)
          const collected = yield* queues.collectGarbage
          assert.include(collected, s.queue.id)
          const capped = yield* openQueue(org.member, { queue_lifespan_secs: 10 ** 9 })
          assert.strictEqual(capped.queue.lifespan_secs, 604_800)
        })))

      it.effect("event_types filter; legacy settings events only without user_settings_object", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const events = yield* Events
          const onlyAlerts = yield* openQueue(org.member, { event_types: ["alert_words", "no_such_type"] })
          const modern = yield* openQueue(org.member, { client_capabilities: { user_settings_object: true } })
          const legacy = yield* openQueue(org.member, {})
          yield* events.publishAll(org.realm.id, [
            { event: { type: "user_settings", op: "update", property: "enter_sends", value: true }, audience: Audience.users([org.member.user.id]) },
            {
              event: { type: "update_display_settings", user: org.member.user.email, setting_name: "enter_sends", setting: true },
              audience: Audience.users([org.member.user.id])
            },
            { event: { type: "alert_words", alert_words: [] }, audience: Audience.users([org.member.user.id]) }
          ])
          assert.deepStrictEqual((yield* onlyAlerts.drain).map((e) => e.type), ["alert_words"])
          assert.deepStrictEqual((yield* modern.drain).map((e) => e.type), ["user_settings", "alert_words"])
          assert.deepStrictEqual((yield* legacy.drain).map((e) => e.type), ["user_settings", "update_display_settings", "alert_words"])
        })))

      it.effect("publication happens after commit; rolled-back work publishes nothing", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const tx = yield* Transactor
          const q = yield* openQueue(org.member)
          const before = yield* (yield* EventQueues).waitingPolls
          const poll = yield* Effect.forkChild(q.get({ last_event_id: -1 }))
          yield* waitingFor(before + 1)
          // Waiters are woken by this process's signals, dispatched as the
          // publishing transaction commits: none for rolled-back work, none
          // before the commit.
          return yield* signalsOf(org.realm.id, (heard) =>
            Effect.gen(function*() {
              // Rolled back: nothing is published and the poll keeps waiting.
              yield* Effect.flip(tx.withTransaction(Effect.andThen(ping(org.realm.id, [org.member.user.id], 1), Effect.fail("boom"))))
              assert.deepStrictEqual(heard, [])
              assert.isUndefined(poll.pollUnsafe())
              // Committed: the poll wakes only once the transaction commits.
              const published = yield* Deferred.make<void>()
              const proceed = yield* Deferred.make<void>()
              const writer = yield* Effect.forkChild(tx.withTransaction(Effect.gen(function*() {
                yield* ping(org.realm.id, [org.member.user.id], 2)
                yield* Deferred.succeed(published, undefined)
                yield* Deferred.await(proceed)
              })))
              yield* Deferred.await(published)
              assert.deepStrictEqual(heard, [])
              assert.isUndefined(poll.pollUnsafe())
              yield* Deferred.succeed(proceed, undefined)
              yield* Fiber.join(writer)
              assert.deepStrictEqual(heard, [{ _tag: "events", realm: org.realm.id, users: [org.member.user.id] }])
              // The rolled-back event is not in the answer either.
              const { events } = yield* Fiber.join(poll)
              assert.deepStrictEqual(events.map(alertWordsOf), [["w2"]])
            })
          )
        })))

      it.effect("one batch of thousands of events keeps its order and each event's audience", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const events = yield* Events
          const member = yield* openQueue(org.member)
          const other = yield* openQueue(org.other)
          // More rows than one statement writes on PGlite (1,000), with all
          // three kinds of audience interleaved.
          const count = 2_500
          const audienceOf = (n: number) =>
            n % 3 === 0
              ? Audience.realm
              : Audience.users([n % 3 === 1 ? org.member.user.id : org.other.user.id])
          const publications: Array<Publication> = Array.from({ length: count }, (_, n) => ({
            event: { type: "alert_words", alert_words: [`w${n}`] },
            audience: audienceOf(n)
          }))
          yield* (yield* Transactor).withTransaction(events.publishAll(org.realm.id, publications))
          const expected = (skip: number) =>
            Array.from({ length: count }, (_, n) => n).filter((n) => n % 3 !== skip).map((n) => [`w${n}`])
          for (const [queue, skip] of [[member, 2], [other, 1]] as const) {
            const got = yield* queue.drain
            assert.deepStrictEqual(got.map(alertWordsOf), expected(skip))
            for (let i = 1; i < got.length; i++) assert.isTrue(got[i - 1]!.id < got[i]!.id)
          }
        })))

      it.effect("an event for many users is delivered to each of their queues", () =>
        withConfig(Effect.gen(function*() {
          const org = yield* makeOrg
          const events = yield* Events
          const a = yield* openQueue(org.member)
          const b = yield* openQueue(org.other)
          const c = yield* openQueue(org.guest)
          yield* events.publish(org.realm.id, { type: "invites_changed" }, Audience.realm)
          const [ea, eb, ec] = [yield* a.drain, yield* b.drain, yield* c.drain]
          assert.strictEqual(ea.length, 1)
          assert.deepStrictEqual(ea, eb)
          assert.deepStrictEqual(ea, ec)
        })))
    })
  })
