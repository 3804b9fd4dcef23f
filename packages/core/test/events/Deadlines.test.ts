/**
 * The shared heartbeat timer of waiting polls: entries fire in deadline
 * order on the clock they were scheduled with, an earlier entry added later
 * is not delayed by a later one, and cancelled entries never fire.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"
import * as Deadlines from "../../src/services/events/Deadlines.ts"

const entry = (name: string, fired: Array<string>): Deadlines.Entry => ({
  deadline: 0,
  index: -1,
  wheel: undefined,
  fire: () => void fired.push(name)
})

const settle = Effect.gen(function*() {
  for (let i = 0; i < 10; i++) yield* Effect.yieldNow
})

describe("Deadlines", () => {
  it.effect("fires due entries in deadline order; cancelled ones never", () =>
    Effect.gen(function*() {
      const deadlines = yield* Deadlines.make
      const clock = yield* Clock.Clock
      const fired: Array<string> = []
      const a = entry("a", fired)
      const b = entry("b", fired)
      const c = entry("c", fired)
      const d = entry("d", fired)
      deadlines.schedule(a, clock, 300)
      deadlines.schedule(b, clock, 100)
      deadlines.schedule(c, clock, 200)
      deadlines.schedule(d, clock, 250)
      assert.strictEqual(deadlines.size(), 4)
      yield* settle
      yield* TestClock.adjust(99)
      assert.deepStrictEqual(fired, [])
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(fired, ["b"])
      deadlines.cancel(d)
      deadlines.cancel(d)
      yield* TestClock.adjust(200)
      assert.deepStrictEqual(fired, ["b", "c", "a"])
      assert.strictEqual(deadlines.size(), 0)
      // Firing removed them: cancelling now changes nothing.
      deadlines.cancel(a)
      assert.strictEqual(d.index, -1)
    }))

  it.effect("an earlier deadline added later fires on time; the wheel restarts after going empty", () =>
    Effect.gen(function*() {
      const deadlines = yield* Deadlines.make
      const clock = yield* Clock.Clock
      const fired: Array<string> = []
      deadlines.schedule(entry("late", fired), clock, 50_000)
      yield* settle
      yield* TestClock.adjust(1_000)
      deadlines.schedule(entry("early", fired), clock, 10_000)
      yield* settle
      yield* TestClock.adjust(10_000)
      assert.deepStrictEqual(fired, ["early"])
      yield* TestClock.adjust(39_000)
      assert.deepStrictEqual(fired, ["early", "late"])
      const again = entry("again", fired)
      deadlines.schedule(again, clock, 5)
      deadlines.cancel(again)
      deadlines.schedule(entry("last", fired), clock, 5)
      yield* settle
      yield* TestClock.adjust(5)
      assert.deepStrictEqual(fired, ["early", "late", "last"])
    }))
})
