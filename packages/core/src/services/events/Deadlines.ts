/**
 * Deadlines for many waiting polls served by one sleeping fiber per clock,
 * instead of a timer fiber (and a race) per poll.
 *
 * Each clock has a binary min-heap of entries ordered by their deadline on
 * the clock's monotonic time. At most one fiber sleeps (with the clock's
 * `sleep`, so a `TestClock` drives it) until the earliest deadline, then
 * fires every entry that is due. Adding an entry that is due earlier than the
 * fiber wakes replaces the fiber; removing one is O(log n) and leaves the
 * fiber sleeping (it wakes at the old time, finds nothing due and sleeps on),
 * unless no entry is left: then the fiber is interrupted.
 *
 * @since 0.1.0
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"

/** Something with a deadline; `fire` runs (synchronously, on the timer fiber) when it is due. */
export interface Entry {
  /** Monotonic milliseconds; set by `schedule`. */
  deadline: number
  /** The position in its heap, -1 when not scheduled. */
  index: number
  /** The heap the entry is in (undefined when not scheduled). */
  wheel: Wheel | undefined
  fire(): void
}

/** The entries of one clock and the fiber sleeping for them. */
interface Wheel {
  readonly clock: Clock.Clock
  readonly context: Context.Context<never>
  readonly heap: Array<Entry>
  /** The fiber sleeping until `at`, if any. */
  fiber: Fiber.Fiber<void> | undefined
  /** When the fiber wakes (Infinity: no fiber). */
  at: number
  /** True while due entries are being fired (no fiber restarts then). */
  firing: boolean
}

/** Milliseconds on the clock's monotonic time. */
const nowOf = (clock: Clock.Clock): number => Number(clock.monotonicTimeNanosUnsafe()) / 1_000_000

const swap = (heap: Array<Entry>, i: number, j: number) => {
  const a = heap[i]!
  const b = heap[j]!
  heap[i] = b
  b.index = i
  heap[j] = a
  a.index = j
}

const siftUp = (heap: Array<Entry>, i: number) => {
  while (i > 0) {
    const parent = (i - 1) >> 1
    if (heap[parent]!.deadline <= heap[i]!.deadline) return
    swap(heap, i, parent)
    i = parent
  }
}

const siftDown = (heap: Array<Entry>, i: number) => {
  const n = heap.length
  while (true) {
    const left = 2 * i + 1
    if (left >= n) return
    const right = left + 1
    const child = right < n && heap[right]!.deadline < heap[left]!.deadline ? right : left
    if (heap[i]!.deadline <= heap[child]!.deadline) return
    swap(heap, i, child)
    i = child
  }
}

const removeAt = (heap: Array<Entry>, i: number): Entry => {
  const entry = heap[i]!
  const last = heap.pop()!
  if (last !== entry) {
    heap[i] = last
    last.index = i
    siftDown(heap, i)
    siftUp(heap, last.index)
  }
  entry.index = -1
  entry.wheel = undefined
  return entry
}

/** The deadlines of one scope (a layer): `schedule`, `cancel`, and `close` when the scope ends. */
export interface Deadlines {
  /** Fires `entry` `delayMillis` after now on `clock` (once); it must not be scheduled already. */
  schedule(entry: Entry, clock: Clock.Clock, delayMillis: number): void
  /** Unschedules `entry` (no-op when it is not scheduled, e.g. after it fired). */
  cancel(entry: Entry): void
  /** Number of scheduled entries (for tests). */
  readonly size: () => number
}

/**
 * Deadlines whose fibers run with the current context (with each entry's
 * clock) and are interrupted when the current scope closes.
 */
export const make: Effect.Effect<Deadlines, never, import("effect/Scope").Scope> = Effect.gen(function*() {
  const context = yield* Effect.context<never>()
  const wheels = new Map<Clock.Clock, Wheel>()
  let closed = false

  const wheelOf = (clock: Clock.Clock): Wheel => {
    let wheel = wheels.get(clock)
    if (wheel === undefined) {
      wheel = {
        clock,
        context: Context.add(context, Clock.Clock, clock),
        heap: [],
        fiber: undefined,
        at: Infinity,
        firing: false
      }
      wheels.set(clock, wheel)
    }
    return wheel
  }

  /** Fires what is due, then sleeps until the next deadline (or ends: no entries left). */
  const run = (wheel: Wheel): Effect.Effect<void> =>
    Effect.suspend(() => {
      const heap = wheel.heap
      const now = nowOf(wheel.clock)
      wheel.firing = true
      try {
        while (heap.length > 0 && heap[0]!.deadline <= now) {
          const entry = removeAt(heap, 0)
          try {
            entry.fire()
          } catch {
            // One entry must not stop the others.
          }
        }
      } finally {
        wheel.firing = false
      }
      if (heap.length === 0) {
        wheel.fiber = undefined
        wheel.at = Infinity
        if (wheels.get(wheel.clock) === wheel) wheels.delete(wheel.clock)
        return Effect.void
      }
      wheel.at = heap[0]!.deadline
      return Effect.flatMap(wheel.clock.sleep(Duration.millis(wheel.at - now)), () => run(wheel))
    })

  const stop = (wheel: Wheel) => {
    const fiber = wheel.fiber
    wheel.fiber = undefined
    wheel.at = Infinity
    if (wheels.get(wheel.clock) === wheel) wheels.delete(wheel.clock)
    if (fiber !== undefined) fiber.interruptUnsafe()
  }

  const start = (wheel: Wheel) => {
    const previous = wheel.fiber
    wheel.at = wheel.heap[0]!.deadline
    wheel.fiber = Effect.runForkWith(wheel.context)(run(wheel))
    if (previous !== undefined) previous.interruptUnsafe()
  }

  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      closed = true
      for (const wheel of wheels.values()) {
        for (const entry of wheel.heap) {
          entry.index = -1
          entry.wheel = undefined
        }
        wheel.heap.length = 0
        wheel.fiber?.interruptUnsafe()
        wheel.fiber = undefined
      }
      wheels.clear()
    })
  )

  return {
    schedule: (entry, clock, delayMillis) => {
      if (closed) return
      const wheel = wheelOf(clock)
      entry.deadline = nowOf(clock) + delayMillis
      entry.wheel = wheel
      entry.index = wheel.heap.length
      wheel.heap.push(entry)
      siftUp(wheel.heap, entry.index)
      // While firing, the running fiber computes its next wake-up itself.
      if (!wheel.firing && entry.deadline < wheel.at) start(wheel)
    },
    cancel: (entry) => {
      const wheel = entry.wheel
      if (wheel === undefined || entry.index < 0) return
      removeAt(wheel.heap, entry.index)
      // Nothing left to wait for: stop sleeping (while firing, `run` sees to it).
      if (wheel.heap.length === 0 && !wheel.firing) stop(wheel)
    },
    size: () => {
      let n = 0
      for (const wheel of wheels.values()) n += wheel.heap.length
      return n
    }
  } satisfies Deadlines
})
