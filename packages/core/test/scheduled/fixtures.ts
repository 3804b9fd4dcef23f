/**
 * Shared setup of the scheduled-message tests: an organization with a
 * channel everybody is subscribed to, helpers to read what was delivered,
 * and waiting in real time while the test clock stands still.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as TestClock from "effect/testing/TestClock"
import type { Channel } from "../../src/domain/Channel.ts"
import type { UserId } from "../../src/domain/Ids.ts"
import type { Message } from "../../src/domain/Message.ts"
import type { ScheduledMessageId } from "../../src/domain/ScheduledMessage.ts"
import { MessageRepo } from "../../src/ports/Repositories.ts"
import { ScheduledMessageRepo } from "../../src/ports/ScheduledMessageRepo.ts"
import { Channels } from "../../src/services/Channels.ts"
import { makeOrg, unique } from "../events/fixtures.ts"
import type { Org } from "../events/fixtures.ts"

export { backends, core, makeOrg, openQueue, unique, withoutIds } from "../events/fixtures.ts"
export type { Org } from "../events/fixtures.ts"

export interface Scene extends Org {
  readonly channel: Channel
}

/** An organization (owner, admin, member, other, guest) and a public channel they all belong to. */
export const makeScene = Effect.gen(function*() {
  const org = yield* makeOrg
  const channels = yield* Channels
  const channel = yield* channels.create(org.realm.id, { name: unique("plans"), creator_id: org.owner.user.id })
  yield* channels.subscribe(channel.id, [org.owner, org.admin, org.member, org.other, org.guest].map((p) => p.user.id))
  return { ...org, channel } satisfies Scene
})

/** Seconds since the epoch, from the Clock (the test clock in `it.effect`). */
export const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

/** Every message a user has a row for, oldest first. */
export const messagesOf = (user: UserId) =>
  Effect.gen(function*() {
    const rows = yield* (yield* MessageRepo).listByFlags(user, 0, 0)
    return rows.map((r) => r.message) as ReadonlyArray<Message>
  })

/** The stored row. */
export const row = (id: ScheduledMessageId) =>
  Effect.gen(function*() {
    const found = yield* (yield* ScheduledMessageRepo).findById(id)
    if (found === undefined) return yield* Effect.die(new Error(`scheduled message ${id} missing`))
    return found
  })

/** Waits in real time (the test clock does not move) until `check` holds; fails after `timeoutMs`. */
export const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, timeoutMs = 10_000) =>
  Effect.gen(function*() {
    const start = Date.now()
    while (!(yield* check)) {
      if (Date.now() - start > timeoutMs) return yield* Effect.die(new Error("condition not reached in time"))
      yield* TestClock.withLive(Effect.sleep("5 millis"))
    }
  })

/** Real time passing, for "nothing happens meanwhile" checks. */
export const realSleep = (ms: number) => TestClock.withLive(Effect.sleep(ms))

/**
 * The current clock (the test clock in `it.effect`) with every sleep's
 * duration offered to `sleeps` as it starts: a test provides `clock` to one
 * fiber and learns what that fiber waits for, instead of guessing with real
 * pauses.
 */
export const sleepProbe = Effect.gen(function*() {
  const clock = yield* Clock.Clock
  const sleeps = yield* Queue.unbounded<number>()
  const probed: Clock.Clock = {
    currentTimeMillisUnsafe: () => clock.currentTimeMillisUnsafe(),
    currentTimeMillis: clock.currentTimeMillis,
    currentTimeNanosUnsafe: () => clock.currentTimeNanosUnsafe(),
    currentTimeNanos: clock.currentTimeNanos,
    monotonicTimeNanosUnsafe: () => clock.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: clock.monotonicTimeNanos,
    sleep: (duration) => Effect.andThen(Queue.offer(sleeps, Duration.toMillis(duration)), clock.sleep(duration))
  }
  /** The next sleep's milliseconds; dies when none starts within `ceilingMs` of real time (a hang guard). */
  const nextSleep = (ceilingMs = 30_000) =>
    TestClock.withLive(Effect.timeoutOrElse(Queue.take(sleeps), {
      duration: ceilingMs,
      orElse: () => Effect.die(new Error(`no sleep started within ${ceilingMs} ms`))
    }))
  return { clock: probed, nextSleep }
})
