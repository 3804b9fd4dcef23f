/**
 * The delivery worker under the test clock, on memory, PGlite and PostgreSQL: sent at
 * its second and not before, woken when a message is scheduled, the
 * failure paths (with their events and the Notification Bot's message),
 * the state transitions, and exactly-once across a delivery that dies or is
 * interrupted mid-transaction (the next worker sends it once).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import { ChannelRepo, RealmRepo } from "../../src/ports/Repositories.ts"
import { Messages } from "../../src/services/Messages.ts"
import { NotificationBot, NotificationBotEmail, NotificationBotName } from "../../src/services/NotificationBot.ts"
import { failureNotice, globalTime, ScheduledDelivery, ScheduledDeliveryConfig } from "../../src/services/ScheduledDelivery.ts"
import { ScheduledMessages } from "../../src/services/ScheduledMessages.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import { Users } from "../../src/services/Users.ts"
import { backends, eventually, makeScene, messagesOf, nowSeconds, openQueue, realSleep, row, sleepProbe } from "./fixtures.ts"
import type { Scene } from "./fixtures.ts"

/**
 * Each test starts from the test clock's current time. (Jumping the clock by
 * years would make it replay every periodic sleep of the core's background
 * fibers.) Rows other tests left behind may become due; assertions look
 * at this test's rows only.
 */
const startClock = Effect.void

const scheduleToChannel = (scene: Scene, at: number, content: string, who: Principal = scene.member) =>
  Effect.flatMap(ScheduledMessages, (s) =>
    s.create(who, {
      type: "channel",
      to: scene.channel.id,
      topic: "plans",
      content,
      scheduled_delivery_timestamp: at
    }, { client: "website" }))

const scheduleDirect = (scene: Scene, at: number, content: string) =>
  Effect.flatMap(ScheduledMessages, (s) =>
    s.create(scene.member, {
      type: "direct",
      to: [scene.other.user.id],
      content,
      scheduled_delivery_timestamp: at
    }, { client: "website" }))

const forkWorker = (config?: Partial<ScheduledDeliveryConfig>) =>
  Effect.gen(function*() {
    const delivery = yield* ScheduledDelivery
    const run = config === undefined
      ? delivery.run
      : Effect.provideService(delivery.run, ScheduledDeliveryConfig, { ...ScheduledDeliveryConfig.defaultValue(), ...config })
    return yield* Effect.forkChild(run)
  })

const withContent = (content: string) => <A extends { readonly content: string }>(messages: ReadonlyArray<A>) =>
  messages.filter((m) => m.content === content)

const scheduledEvents = (events: ReadonlyArray<Record<string, unknown>>) =>
  events.filter((e) => e.type === "scheduled_messages").map(({ id: _id, ...rest }) => rest)

const suite = (name: keyof typeof backends) =>
  layer(backends[name](), { timeout: "120 seconds" })(`scheduled delivery on ${name}`, (it) => {
    it.effect("a message goes out at its second, not before, through Messages.send", () =>
      Effect.gen(function*() {
        yield* startClock
        const scene = yield* makeScene
        const queue = yield* openQueue(scene.member)
        const at = (yield* nowSeconds) + 60
        const id = yield* scheduleToChannel(scene, at, "at noon")
        yield* queue.drain
        const worker = yield* forkWorker()
        yield* TestClock.adjust(59_999)
        yield* realSleep(150)
        assert.isFalse((yield* row(id)).delivered)
        assert.deepStrictEqual(withContent("at noon")(yield* messagesOf(scene.other.user.id)), [])
        yield* TestClock.adjust(1)
        yield* eventually(Effect.map(row(id), (r) => r.delivered))
        const delivered = yield* row(id)
        const [message] = withContent("at noon")(yield* messagesOf(scene.other.user.id))
        assert.strictEqual(delivered.delivered_message_id, message!.id)
        assert.strictEqual(message!.date_sent, at)
        assert.strictEqual(message!.sender_id, scene.member.user.id)
        assert.strictEqual(message!.channel_id, scene.channel.id)
        assert.strictEqual(message!.topic, "plans")
        assert.strictEqual(message!.client, "website")
        assert.deepStrictEqual(yield* (yield* ScheduledMessages).list(scene.member), [])
        const events = yield* queue.drain
        assert.deepStrictEqual(scheduledEvents(events), [{ type: "scheduled_messages", op: "remove", scheduled_message_id: id }])
        assert.isTrue(events.some((e) => e.type === "message" && (e.message as { id: number }).id === message!.id))
        yield* Fiber.interrupt(worker)
      }))

    it.effect("a sleeping worker is woken when this process schedules a message", () =>
      Effect.gen(function*() {
        const scene = yield* makeScene
        const probe = yield* sleepProbe
        const delivery = yield* ScheduledDelivery
        const worker = yield* Effect.forkChild(delivery.run.pipe(
          Effect.provideService(ScheduledDeliveryConfig, { ...ScheduledDeliveryConfig.defaultValue(), maxWaitMillis: 60_000 }),
          Effect.provideService(Clock.Clock, probe.clock)
        ))
        // Nothing due (a database of its own): it sleeps its longest, and the
        // test clock stands still, so only the wake-up can end that sleep.
        assert.strictEqual(yield* probe.nextSleep(), 60_000)
        const id = yield* scheduleDirect(scene, (yield* nowSeconds) + 2, "soon")
        // Woken: it looked again and now sleeps until the new row's second.
        assert.strictEqual(yield* probe.nextSleep(), 2_000)
        assert.isFalse((yield* row(id)).delivered)
        yield* TestClock.adjust(2_000)
        // Delivered, and back to its longest sleep.
        assert.strictEqual(yield* probe.nextSleep(), 60_000)
        assert.isTrue((yield* row(id)).delivered)
        assert.lengthOf(withContent("soon")(yield* messagesOf(scene.other.user.id)), 1)
        yield* Fiber.interrupt(worker)
      }).pipe(Effect.provide(backends[name]())))

    it.effect("sender deactivated: failed with 'Account is deactivated', an update event, no notice", () =>
      Effect.gen(function*() {
        yield* startClock
        const scene = yield* makeScene
        const at = (yield* nowSeconds) + 10
        const id = yield* scheduleDirect(scene, at, "never")
        const queue = yield* openQueue(scene.member)
        yield* (yield* Users).deactivate(scene.member.user.id)
        yield* TestClock.adjust(10_000)
        const outcomes = yield* (yield* ScheduledDelivery).runDue
        assert.deepStrictEqual(outcomes.filter((o) => o.id === id), [{ _tag: "Failed", id, reason: "Account is deactivated" }])
        const failed = yield* row(id)
        assert.isTrue(failed.failed)
        assert.isFalse(failed.delivered)
        assert.strictEqual(failed.failure_message, "Account is deactivated")
        assert.deepStrictEqual(withContent("never")(yield* messagesOf(scene.other.user.id)), [])
        const bots = (yield* messagesOf(scene.member.user.id)).filter((m) => m.content.includes("was not sent"))
        assert.deepStrictEqual(bots, [])
        const events = scheduledEvents(yield* queue.drain)
        assert.deepStrictEqual(events, [{
          type: "scheduled_messages",
          op: "update",
          scheduled_message: {
            scheduled_message_id: id,
            to: [scene.other.user.id],
            type: "private",
            content: "never",
            rendered_content: failed.rendered_content,
            scheduled_delivery_timestamp: at,
            failed: true
          }
        }])
      }))

    it.effect("channel archived: failed with the send's error, and the Notification Bot tells the sender", () =>
      Effect.gen(function*() {
        yield* startClock
        const scene = yield* makeScene
        const at = (yield* nowSeconds) + 30
        const id = yield* scheduleToChannel(scene, at, "to the archive")
        const channels = yield* ChannelRepo
        yield* channels.update({ ...scene.channel, is_archived: true })
        // What a hand-sent message gets now.
        const expected = yield* Effect.flip((yield* Messages).validate(scene.member, {
          type: "stream",
          to: scene.channel.id,
          topic: "plans",
          content: "to the archive"
        }))
        const queue = yield* openQueue(scene.member)
        yield* TestClock.adjust(30_000)
        yield* (yield* ScheduledDelivery).runDue
        const failed = yield* row(id)
        assert.isTrue(failed.failed)
        assert.strictEqual(failed.failure_message, expected.msg)
        const bot = yield* (yield* NotificationBot).bot(scene.realm.id)
        assert.strictEqual(bot.full_name, NotificationBotName)
        assert.strictEqual(bot.delivery_email, NotificationBotEmail)
        assert.isTrue(bot.is_bot)
        const notices = (yield* messagesOf(scene.member.user.id)).filter((m) => m.sender_id === bot.id)
        assert.lengthOf(notices, 1)
        assert.strictEqual(notices[0]!.type, "private")
        assert.deepStrictEqual(notices[0]!.dm_user_ids, [scene.member.user.id, bot.id].sort((a, b) => a - b))
        assert.strictEqual(
          notices[0]!.content,
          `The message you scheduled for ${globalTime(at)} was not sent because of the following error:\n\n` +
            `> ${expected.msg}\n\n[View scheduled messages](#scheduled)`
        )
        const events = yield* queue.drain
        assert.deepStrictEqual(scheduledEvents(events).map((e) => [e.op, (e.scheduled_message as { failed: boolean }).failed]), [
          ["update", true]
        ])
        assert.isTrue(events.some((e) => e.type === "message" && (e.message as { sender_id: number }).sender_id === bot.id))
      }))

    it.effect("realm deactivated: failed with 'This organization has been deactivated'", () =>
      Effect.gen(function*() {
        yield* startClock
        const scene = yield* makeScene
        const id = yield* scheduleDirect(scene, (yield* nowSeconds) + 5, "closed")
        const realms = yield* RealmRepo
        yield* realms.update({ ...scene.realm, deactivated: true })
        yield* TestClock.adjust(5_000)
        yield* (yield* ScheduledDelivery).runDue
        const failed = yield* row(id)
        assert.isTrue(failed.failed)
        assert.strictEqual(failed.failure_message, "This organization has been deactivated")
        assert.deepStrictEqual(withContent("closed")(yield* messagesOf(scene.other.user.id)), [])
      }))

    it.effect("after downtime: up to 10 minutes late goes out (at its time); later fails and is reported", () =>
      Effect.gen(function*() {
        yield* startClock
        const scene = yield* makeScene
        const nowMs = yield* Clock.currentTimeMillis
        const now = Math.floor(nowMs / 1000)
        const stale = yield* scheduleDirect(scene, now + 1, "stale")
        const recent = yield* scheduleDirect(scene, now + 3, "recent")
        // "Restart" 10 minutes and 1 second after the first was due: the
        // second is then 9 minutes 59 seconds late.
        yield* TestClock.adjust((now + 1) * 1000 + 601_000 - nowMs)
        yield* (yield* ScheduledDelivery).runDue
        const a = yield* row(stale)
        assert.isTrue(a.failed)
        assert.strictEqual(a.failure_message, "Message could not be sent at the scheduled time.")
        const b = yield* row(recent)
        assert.isTrue(b.delivered)
        const [sent] = withContent("recent")(yield* messagesOf(scene.other.user.id))
        assert.strictEqual(sent!.date_sent, now + 3)
        const notices = (yield* messagesOf(scene.member.user.id)).filter((m) => m.content.includes("was not sent"))
        assert.deepStrictEqual(notices.map((m) => m.content), [
          failureNotice(now + 1, "Message could not be sent at the scheduled time.")
        ])
      }))

    it.effect("transitions: pending → edited stays pending → sent; failed → edited with a new time → pending", () =>
      Effect.gen(function*() {
        yield* startClock
        const scene = yield* makeScene
        const scheduled = yield* ScheduledMessages
        const delivery = yield* ScheduledDelivery
        const now = yield* nowSeconds
        // pending, edited: still pending.
        const a = yield* scheduleDirect(scene, now + 10, "draft")
        yield* scheduled.update(scene.member, a, { content: "final" })
        assert.deepStrictEqual(
          [(yield* row(a)).content, (yield* row(a)).failed, (yield* row(a)).delivered],
          ["final", false, false]
        )
        // pending, at its time: sent; the message has its own id.
        yield* TestClock.adjust(10_000)
        yield* delivery.runDue
        const sentRow = yield* row(a)
        assert.isTrue(sentRow.delivered)
        const [message] = withContent("final")(yield* messagesOf(scene.other.user.id))
        assert.strictEqual(sentRow.delivered_message_id, message!.id)
        // sent: no more edits.
        const edit = yield* Effect.flip(scheduled.update(scene.member, a, { content: "too late" }))
        assert.strictEqual(edit.msg, "Scheduled message was already sent")
        // failed (the recipient left): edits need a new time.
        const b = yield* scheduleDirect(scene, (yield* nowSeconds) + 10, "for other")
        yield* (yield* Users).deactivate(scene.other.user.id)
        yield* TestClock.adjust(10_000)
        yield* delivery.runDue
        assert.isTrue((yield* row(b)).failed)
        const noTime = yield* Effect.flip(scheduled.update(scene.member, b, { content: "again" }))
        assert.strictEqual(noTime.msg, "Scheduled delivery time must be in the future.")
        assert.isTrue((yield* row(b)).failed)
        yield* (yield* Users).reactivate(scene.other.user.id)
        yield* scheduled.update(scene.member, b, { scheduled_delivery_timestamp: (yield* nowSeconds) + 5 })
        const again = yield* row(b)
        assert.deepStrictEqual([again.failed, again.failure_message, again.delivered], [false, null, false])
        yield* TestClock.adjust(5_000)
        yield* delivery.runDue
        assert.isTrue((yield* row(b)).delivered)
        assert.lengthOf(withContent("for other")(yield* messagesOf(scene.other.user.id)), 1)
      }))

    it.effect("read_by_sender: default read from an interactive client, unread to oneself or from the API", () =>
      Effect.gen(function*() {
        yield* startClock
        const scene = yield* makeScene
        const scheduled = yield* ScheduledMessages
        const at = (yield* nowSeconds) + 10
        const create = (to: number, client: string, read_by_sender?: boolean) =>
          Effect.flatMap(
            scheduled.create(scene.member, {
              type: "direct",
              to: [to],
              content: `${to} ${client} ${read_by_sender}`,
              scheduled_delivery_timestamp: at,
              read_by_sender
            }, { client }),
            row
          )
        const self = scene.member.user.id
        const other = scene.other.user.id
        assert.isTrue((yield* create(other, "website")).read_by_sender)
        assert.isFalse((yield* create(self, "website")).read_by_sender)
        assert.isTrue((yield* create(self, "website", true)).read_by_sender)
        assert.isFalse((yield* create(other, "website", false)).read_by_sender)
        assert.isFalse((yield* create(other, "python-requests")).read_by_sender)
      }))

    it.effect("a delivery that dies mid-transaction leaves the row pending and no message; the next worker sends it once", () =>
      Effect.gen(function*() {
        yield* startClock
        const scene = yield* makeScene
        const id = yield* scheduleToChannel(scene, (yield* nowSeconds) + 1, "crash test")
        const queue = yield* openQueue(scene.member)
        yield* queue.drain
        yield* TestClock.adjust(1_000)
        // A worker whose send writes the message, then the process "crashes".
        const crashing = Layer.effect(
          Messages,
          Effect.gen(function*() {
            const real = yield* Messages
            return Messages.of({
              ...real,
              sendMany: (items) => Effect.andThen(real.sendMany(items), Effect.die(new Error("crash after send")))
            })
          })
        )
        const context = yield* Layer.build(Layer.fresh(ScheduledDelivery.layer).pipe(Layer.provide(crashing)))
        const crashed = yield* Effect.exit(Effect.provide(
          Effect.flatMap(ScheduledDelivery, (d) => d.deliverOne([])),
          context
        ))
        assert.isTrue(Exit.hasDies(crashed))
        const pending = yield* row(id)
        assert.deepStrictEqual([pending.delivered, pending.failed, pending.delivered_message_id], [false, false, null])
        assert.deepStrictEqual(withContent("crash test")(yield* messagesOf(scene.other.user.id)), [])
        assert.deepStrictEqual(yield* queue.drain, [])
        // The restarted worker.
        const outcomes = yield* (yield* ScheduledDelivery).runDue
        assert.deepStrictEqual(outcomes.filter((o) => o.id === id).map((o) => o._tag), ["Delivered"])
        assert.lengthOf(withContent("crash test")(yield* messagesOf(scene.other.user.id)), 1)
        assert.deepStrictEqual((yield* (yield* ScheduledDelivery).runDue).filter((o) => o.id === id), [])
        assert.lengthOf(withContent("crash test")(yield* messagesOf(scene.other.user.id)), 1)
        const events = yield* queue.drain
        assert.deepStrictEqual(scheduledEvents(events), [{ type: "scheduled_messages", op: "remove", scheduled_message_id: id }])
        assert.lengthOf(events.filter((e) => e.type === "message"), 1)
      }))

    it.effect("a batch that dies is retried row by row: the poisoned row is set aside, the others go out once", () =>
      Effect.gen(function*() {
        const scene = yield* makeScene
        const now = yield* nowSeconds
        const ids = [
          yield* scheduleDirect(scene, now + 1, "batch a"),
          yield* scheduleDirect(scene, now + 1, "poison"),
          yield* scheduleDirect(scene, now + 1, "batch c")
        ]
        yield* TestClock.adjust(1_000)
        const poisoned = Layer.effect(
          Messages,
          Effect.gen(function*() {
            const real = yield* Messages
            return Messages.of({
              ...real,
              sendMany: (items) =>
                items.some((item) => item.request.content === "poison")
                  ? Effect.die(new Error("bug"))
                  : real.sendMany(items)
            })
          })
        )
        const context = yield* Layer.build(Layer.fresh(ScheduledDelivery.layer).pipe(Layer.provide(poisoned)))
        const outcomes = yield* Effect.provide(Effect.flatMap(ScheduledDelivery, (d) => d.runDue), context).pipe(
          Effect.provideService(ScheduledDeliveryConfig, { ...ScheduledDeliveryConfig.defaultValue(), batchSize: 10 })
        )
        const mine = outcomes.filter((o) => ids.includes(o.id))
        assert.deepStrictEqual(mine.map((o) => [o.id, o._tag]), [[ids[0], "Delivered"], [ids[2], "Delivered"]])
        const poison = yield* row(ids[1]!)
        assert.deepStrictEqual([poison.delivered, poison.failed], [false, false])
        const received = (yield* messagesOf(scene.other.user.id)).map((m) => m.content)
        assert.deepStrictEqual(received.filter((c) => c.startsWith("batch ") || c === "poison").sort(), ["batch a", "batch c"])
        // Set aside: the next pass leaves it alone until the retry time.
        const again = yield* Effect.provide(Effect.flatMap(ScheduledDelivery, (d) => d.runDue), context)
        assert.deepStrictEqual(again.filter((o) => ids.includes(o.id)), [])
        // A fixed worker (the real send) sends it, once.
        const fixed = yield* (yield* ScheduledDelivery).runDue
        assert.deepStrictEqual(fixed.filter((o) => ids.includes(o.id)).map((o) => [o.id, o._tag]), [[ids[1], "Delivered"]])
      }))

    it.effect("a worker interrupted mid-delivery (shutdown) rolls back; events only after the commit", () =>
      Effect.gen(function*() {
        yield* startClock
        const scene = yield* makeScene
        const first = yield* scheduleDirect(scene, (yield* nowSeconds) + 1, "interrupted")
        const queue = yield* openQueue(scene.member)
        yield* queue.drain
        yield* TestClock.adjust(1_000)
        const sent = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const pausing = Layer.effect(
          Messages,
          Effect.gen(function*() {
            const real = yield* Messages
            return Messages.of({
              ...real,
              sendMany: (items) =>
                real.sendMany(items).pipe(
                  Effect.tap(() => Deferred.succeed(sent, undefined)),
                  Effect.tap(() => Deferred.await(release))
                )
            })
          })
        )
        const context = yield* Layer.build(Layer.fresh(ScheduledDelivery.layer).pipe(Layer.provide(pausing)))
        const deliverPaused = Effect.provide(Effect.flatMap(ScheduledDelivery, (d) => d.deliverOne([])), context)
        // 1. Interrupted after the send, before the commit.
        const fiber = yield* Effect.forkChild(deliverPaused)
        yield* Deferred.await(sent)
        yield* Fiber.interrupt(fiber)
        assert.isFalse((yield* row(first)).delivered)
        assert.deepStrictEqual(withContent("interrupted")(yield* messagesOf(scene.other.user.id)), [])
        assert.deepStrictEqual(yield* queue.drain, [])
        // 2. Paused after the send: nothing visible until the commit.
        const sent2 = yield* Deferred.make<void>()
        const context2 = yield* Layer.build(Layer.fresh(ScheduledDelivery.layer).pipe(Layer.provide(Layer.effect(
          Messages,
          Effect.gen(function*() {
            const real = yield* Messages
            return Messages.of({
              ...real,
              sendMany: (items) =>
                real.sendMany(items).pipe(
                  Effect.tap(() => Deferred.succeed(sent2, undefined)),
                  Effect.tap(() => Deferred.await(release))
                )
            })
          })
        ))))
        const paused = yield* Effect.forkChild(
          Effect.provide(Effect.flatMap(ScheduledDelivery, (d) => d.deliverOne([])), context2)
        )
        yield* Deferred.await(sent2)
        assert.isUndefined(paused.pollUnsafe())
        if (name === "PostgreSQL") {
          // Another connection reads meanwhile: nothing is visible yet. (In
          // memory and on PGlite, one connection: readers wait for the commit.)
          assert.deepStrictEqual(yield* queue.drain, [])
          assert.deepStrictEqual(withContent("interrupted")(yield* messagesOf(scene.other.user.id)), [])
        }
        yield* Deferred.succeed(release, undefined)
        const outcome = yield* Fiber.join(paused)
        assert.strictEqual(outcome?._tag, "Delivered")
        assert.lengthOf(withContent("interrupted")(yield* messagesOf(scene.other.user.id)), 1)
        const events = yield* queue.drain
        assert.deepStrictEqual(scheduledEvents(events), [{ type: "scheduled_messages", op: "remove", scheduled_message_id: first }])
        assert.lengthOf(events.filter((e) => e.type === "message"), 1)
      }))
  })

suite("memory")
suite("PGlite")
describe("PostgreSQL", () => {
  suite("PostgreSQL")
})


