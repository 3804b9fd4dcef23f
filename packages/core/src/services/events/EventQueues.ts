/**
 * Event queues with Zulip's semantics (POST /register's queue, GET and
 * DELETE /events).
 *
 * - Ids are the log's global ids: increasing, not consecutive within a
 *   queue (the API promises only "increasing"). A heartbeat takes a fresh id
 *   from the same sequence.
 * - `last_event_id` acknowledges: an id older than the newest acknowledged
 *   one is "already pruned"; events up to it are dropped, and unless it was
 *   an event of this queue (or -1 at first) "Event N was not in this queue".
 * - A blocking poll waits on a `Waiter` indexed by queue, user and
 *   organization: no fiber, timer or span of its own (its heartbeat is an
 *   entry of `Deadlines`, one sleeping fiber per clock for all polls). It
 *   returns as soon as a matching event commits, on this process or another
 *   one (LISTEN/NOTIFY), or with a heartbeat after 45–55 s. The
 *   `EventQueues.getEvents` span covers the request's work, not the wait.
 * - A newer poll on the same queue finishes the older one, which returns
 *   the queue's current contents.
 * - A queue expires `lifespan` seconds after the last poll that blocked (or
 *   its creation) unless a poll is waiting on it; a scoped background fiber
 *   deletes expired queues and the log rows every queue is past.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import { isGuest } from "../../domain/Role.ts"
import {
  BadEventQueueId,
  EventNotInQueue,
  EventPruned,
  MissingLastEventId,
  MissingQueueId,
  NarrowOperandNotSupported,
  NarrowOperatorNotSupported,
  UserNotAuthorizedForQuery
} from "../../errors/Errors.ts"
import type { Principal } from "../../domain/Principal.ts"
import type { ClientEvent, IncludeSubscribers, NarrowTerm, QueueOptions, QueueRecord } from "../../domain/Event.ts"
import { accepts, capabilitiesFrom, heartbeat, internOptions, isExpired, present } from "../../domain/Event.ts"
import { EventStore } from "../../ports/EventStore.ts"
import { KeyGenerator } from "../internal/KeyGenerator.ts"
import type { Signal } from "../../ports/EventStore.ts"
import * as Deadlines from "./Deadlines.ts"

/** Timings; tests shorten them. @category configuration */
export interface EventQueuesConfig {
  /** A blocked poll gets a heartbeat after a random delay in [min, max] milliseconds. */
  readonly heartbeatMinMs: number
  readonly heartbeatMaxMs: number
  /** How often expired queues are collected. */
  readonly gcIntervalMs: number
  /** `queue_lifespan_secs` 0 or absent. */
  readonly defaultLifespanSecs: number
  readonly maxLifespanSecs: number
}

/** @category configuration */
export const EventQueuesConfig = Context.Reference<EventQueuesConfig>("teamchat/core/services/events/EventQueuesConfig", {
  defaultValue: () => ({
    heartbeatMinMs: 45_000,
    heartbeatMaxMs: 55_000,
    gcIntervalMs: 60_000,
    defaultLifespanSecs: 600,
    maxLifespanSecs: 7 * 24 * 60 * 60
  })
})

/** The queue parameters of POST /register (and of GET /events without a queue), decoded. @category models */
export interface RegisterQueueParams {
  /** null or absent: every type. Unknown names are accepted and never match. */
  readonly event_types?: ReadonlyArray<string> | null | undefined
  readonly narrow?: ReadonlyArray<NarrowTerm> | undefined
  readonly all_public_streams?: boolean | undefined
  readonly client_capabilities?: Readonly<Record<string, unknown>> | undefined
  readonly apply_markdown?: boolean | undefined
  readonly client_gravatar?: boolean | undefined
  readonly include_subscribers?: boolean | IncludeSubscribers | undefined
  readonly slim_presence?: boolean | undefined
  /** 0 or absent: the default (600 s); capped at 7 days. */
  readonly queue_lifespan_secs?: number | undefined
}

/** GET /events parameters, decoded. @category models */
export interface GetEventsParams {
  readonly queue_id?: string | undefined
  readonly last_event_id?: number | undefined
  readonly dont_block?: boolean | undefined
  /** Used only when `queue_id` is absent and `dont_block` is true: a queue is registered with these. */
  readonly register?: RegisterQueueParams | undefined
}

/** GET /events response body (without result/msg). `queue_id` only when the call registered the queue. @category models */
export interface GetEventsResult {
  readonly events: ReadonlyArray<ClientEvent>
  readonly queue_id?: string
}

/**
 * The wait of a blocked poll (`EventQueues.poll`): run once, it answers as
 * `getEvents` would; interrupted, it ends the poll. Until it runs the poll
 * is not waiting (nothing is indexed or scheduled).
 *
 * @category models
 */
export type BlockedPoll = Effect.Effect<GetEventsResult, BadEventQueueId>

/** @category errors */
export type RegisterQueueError = NarrowOperatorNotSupported | NarrowOperandNotSupported | UserNotAuthorizedForQuery

/** @category errors */
export type GetEventsError = BadEventQueueId | EventPruned | EventNotInQueue | MissingQueueId | MissingLastEventId | RegisterQueueError

/** The narrow of the queues registered without one (shared). */
const noNarrow: ReadonlyArray<NarrowTerm> = Object.freeze([])

const narrowOperators = new Set(["channel", "stream", "topic", "sender", "is"])
const narrowIsOperands = new Set(["dm", "private", "starred", "unread", "mentioned", "alerted", "resolved"])

/** Zulip's `check_narrow_for_events`. @category validation */
export const checkNarrow = (
  narrow: ReadonlyArray<NarrowTerm>
): Effect.Effect<void, NarrowOperatorNotSupported | NarrowOperandNotSupported> => {
  for (const [operator, operand] of narrow) {
    if (!narrowOperators.has(operator)) return Effect.fail(new NarrowOperatorNotSupported({ operator }))
    if (operator === "is" && !narrowIsOperands.has(operand)) {
      return Effect.fail(new NarrowOperandNotSupported({ operand }))
    }
  }
  return Effect.void
}

const includeSubscribers = (value: RegisterQueueParams["include_subscribers"]): IncludeSubscribers =>
  value === true ? "true" : value === false || value === undefined ? "false" : value

/** Why a waiting poll woke up (bits, so that none is lost while it is not suspended). */
const Woke = {
  /** The poll has not started waiting yet (`onWake` starts it). */
  start: 1,
  events: 2,
  heartbeat: 4,
  superseded: 8,
  deleted: 16
} as const

/** `Waiter.state` bits. */
const State = {
  /** Indexed (so its removal, and maybe `markUnblocked`, is due). */
  added: 1,
  /** Ended by a newer poll or by deletion: the queue's blocked state is not this poll's any more. */
  superseded: 2
} as const

/** What a waiting poll needs of its queue (not the whole record: the store keeps that). */
type WaitingQueue = Pick<QueueRecord, "id" | "realm_id" | "user_id" | "cursor_id" | "heartbeat_id" | "options">

/** What a `Waiter` runs, shared by every waiter of one `EventQueues`. */
interface WaiterHost {
  /** Handles the `woke` bits: starts the wait, answers, or waits again. */
  onWake(w: Waiter): Effect.Effect<GetEventsResult, BadEventQueueId>
  /** Unindexes the waiter (however the poll ends). */
  release(w: Waiter): Effect.Effect<void>
}

/**
 * A waiting poll, and everything it keeps while it waits: no fiber, timer
 * or span of its own, and no closure over the request. It is indexed by
 * queue, user and organization, and is an entry of `Deadlines` (its
 * heartbeat). Signals set bits in `woke` and resume the poll's fiber if it
 * is suspended in `wait`; the poll runs `Effect.onExit(wait, release)`.
 */
class Waiter implements Deadlines.Entry {
  deadline = 0
  index = -1
  wheel: Deadlines.Entry["wheel"] = undefined
  /** `Woke` bits not yet handled. */
  woke: number = Woke.start
  /** `State` bits. */
  state = 0
  /** Resumes the poll while it is suspended in `wait`. */
  resume: ((effect: Effect.Effect<GetEventsResult, BadEventQueueId>) => void) | undefined = undefined
  /** The queue as last read. */
  queue: WaitingQueue
  /** When the poll started waiting (wall-clock milliseconds). */
  readonly since: number
  /** The heartbeat's clock and delay (milliseconds). */
  readonly clock: Clock.Clock
  readonly delay: number
  readonly host: WaiterHost
  /** Suspends until a bit is set in `woke` (at once if one is), then continues with `host.onWake`. */
  readonly wait: Effect.Effect<GetEventsResult, BadEventQueueId>
  readonly release: () => Effect.Effect<void>
  constructor(host: WaiterHost, queue: WaitingQueue, since: number, clock: Clock.Clock, delay: number) {
    this.host = host
    this.queue = queue
    this.since = since
    this.clock = clock
    this.delay = delay
    this.wait = Effect.callback((resume) => {
      if (this.woke !== 0) resume(this.next())
      else this.resume = resume
    })
    this.release = () => this.host.release(this)
  }
  next(): Effect.Effect<GetEventsResult, BadEventQueueId> {
    return Effect.suspend(() => this.host.onWake(this))
  }
  wake(bit: number): void {
    this.woke |= bit
    const resume = this.resume
    if (resume !== undefined) {
      this.resume = undefined
      resume(this.next())
    }
  }
  fire(): void {
    this.wake(Woke.heartbeat)
  }
}

/** @category services */
export class EventQueues extends Context.Service<EventQueues, {
  /** Registers a queue for the caller; it starts after every event committed so far. */
  register(principal: Principal, params: RegisterQueueParams): Effect.Effect<QueueRecord, RegisterQueueError>
  /** GET /events. */
  getEvents(principal: Principal, params: GetEventsParams): Effect.Effect<GetEventsResult, GetEventsError>
  /**
   * GET /events in two steps: the answer when it is ready at once (events
   * pending, or `dont_block`), otherwise the poll's `BlockedPoll`, for a
   * caller that waits elsewhere than where it asked (the HTTP adapter
   * first unwinds the request's own frames). `getEvents` is this, then the
   * wait.
   */
  poll(principal: Principal, params: GetEventsParams): Effect.Effect<GetEventsResult | BlockedPoll, GetEventsError>
  /** DELETE /events. */
  deleteQueue(principal: Principal, queueId: string): Effect.Effect<void, BadEventQueueId>
  /** One garbage-collection pass (the background fiber runs it periodically); returns the expired queue ids. */
  collectGarbage: Effect.Effect<ReadonlyArray<string>>
  /** Number of polls waiting in this process (for tests and metrics). */
  waitingPolls: Effect.Effect<number>
  /**
   * Answers every poll waiting in this process with its heartbeat now: the
   * process is stopping, and its clients poll again (another process, or
   * this one once it is back) with their queues kept.
   */
  heartbeatAll: Effect.Effect<void>
}>()("teamchat/core/services/events/EventQueues") {
  static readonly layer: Layer.Layer<EventQueues, never, EventStore | KeyGenerator> = Layer.effect(
    EventQueues,
    Effect.gen(function*() {
      const store = yield* EventStore
      const ids = yield* KeyGenerator

      // -----------------------------------------------------------------------
      // waiting polls of this process

      const byUser = new Map<number, Set<Waiter>>()
      const byRealm = new Map<number, Set<Waiter>>()
      const byQueue = new Map<string, Waiter>()
      const addTo = <K>(map: Map<K, Set<Waiter>>, key: K, w: Waiter) => {
        let set = map.get(key)
        if (set === undefined) map.set(key, set = new Set())
        set.add(w)
      }
      const removeFrom = <K>(map: Map<K, Set<Waiter>>, key: K, w: Waiter) => {
        const set = map.get(key)
        if (set === undefined) return
        set.delete(w)
        if (set.size === 0) map.delete(key)
      }
      const onSignal = (signal: Signal) => {
        if (signal._tag === "queue") {
          const w = byQueue.get(signal.queue)
          // A supersession sent before this poll started was meant for an older one.
          if (w !== undefined && (signal.reason === "deleted" || signal.at >= w.since)) w.wake(Woke[signal.reason])
          return
        }
        if (signal._tag === "resync") {
          for (const w of byQueue.values()) w.wake(Woke.events)
          return
        }
        if (signal.users === null) {
          const waiting = byRealm.get(signal.realm)
          if (waiting !== undefined) for (const w of waiting) w.wake(Woke.events)
          return
        }
        for (const user of signal.users) {
          const waiting = byUser.get(user)
          if (waiting !== undefined) for (const w of waiting) if (w.queue.realm_id === signal.realm) w.wake(Woke.events)
        }
      }
      yield* store.onSignal(onSignal)

      // One sleeping fiber per clock for every poll's heartbeat.
      const deadlines = yield* Deadlines.make

      const addWaiter = (w: Waiter) => {
        const queue = w.queue
        const previous = byQueue.get(queue.id)
        if (previous !== undefined) previous.wake(Woke.superseded)
        byQueue.set(queue.id, w)
        addTo(byUser, queue.user_id, w)
        addTo(byRealm, queue.realm_id, w)
        w.state |= State.added
      }
      const removeWaiter = (w: Waiter) => {
        deadlines.cancel(w)
        w.resume = undefined
        if ((w.state & State.added) === 0) return
        w.state &= ~State.added
        const queue = w.queue
        if (byQueue.get(queue.id) === w) byQueue.delete(queue.id)
        removeFrom(byUser, queue.user_id, w)
        removeFrom(byRealm, queue.realm_id, w)
      }

      // -----------------------------------------------------------------------
      // queues

      const register = Effect.fn("EventQueues.register")(function*(principal: Principal, params: RegisterQueueParams) {
        const config = yield* EventQueuesConfig
        const narrow = params.narrow ?? noNarrow
        yield* checkNarrow(narrow)
        const allPublic = params.all_public_streams ?? false
        if (allPublic && isGuest(principal.user.role)) return yield* new UserNotAuthorizedForQuery()
        const requested = params.queue_lifespan_secs ?? 0
        const lifespan = requested <= 0 ? config.defaultLifespanSecs : Math.min(requested, config.maxLifespanSecs)
        const options: QueueOptions = internOptions({
          event_types: params.event_types === undefined || params.event_types === null
            ? null
            : Array.from(new Set(params.event_types)),
          narrow,
          all_public_streams: allPublic,
          client_capabilities: capabilitiesFrom(params.client_capabilities),
          apply_markdown: params.apply_markdown ?? false,
          client_gravatar: params.client_gravatar ?? true,
          include_subscribers: includeSubscribers(params.include_subscribers),
          slim_presence: params.slim_presence ?? false
        })
        const now = yield* Clock.currentTimeMillis
        const cursor = yield* store.highWaterMark(principal.realm.id)
        const queue: QueueRecord = {
          id: yield* ids.uuid,
          realm_id: principal.realm.id,
          user_id: principal.user.id,
          options,
          created_at: now,
          lifespan_secs: lifespan,
          last_connected: now,
          blocked_until: 0,
          acked_id: -1,
          cursor_id: cursor,
          heartbeat_id: null
        }
        yield* store.insertQueue(queue)
        return queue
      })

      /** The caller's live queue, or BAD_EVENT_QUEUE_ID (an expired queue is deleted on the spot). */
      const access = Effect.fnUntraced(function*(principal: Principal, queueId: string) {
        const queue = yield* store.findQueue(queueId)
        if (queue === undefined || queue.user_id !== principal.user.id) {
          return yield* new BadEventQueueId({ queue_id: queueId })
        }
        const now = yield* Clock.currentTimeMillis
        if (isExpired(queue, now)) {
          yield* store.deleteQueue(queueId)
          return yield* new BadEventQueueId({ queue_id: queueId })
        }
        return queue
      })

      /** Events of the queue after its cursor, in id order, the pending heartbeat included. */
      const contents = Effect.fnUntraced(function*(queue: WaitingQueue, upTo?: number) {
        const logged = yield* store.read(queue.realm_id, queue.user_id, queue.cursor_id, upTo)
        const events = logged.filter((e) => accepts(queue.options, e)).map((e) => present(queue.options, e, queue.id))
        const hb = queue.heartbeat_id
        if (hb !== null && hb > queue.cursor_id && (upTo === undefined || hb <= upTo)) {
          events.push(heartbeat(hb))
          events.sort((a, b) => a.id - b.id)
        }
        return events
      })

      /** Zulip's `EventQueue.prune` plus its two checks. */
      const acknowledge = Effect.fnUntraced(function*(queue: QueueRecord, lastEventId: number) {
        if (lastEventId < queue.acked_id) return yield* new EventPruned({ last_event_id: lastEventId })
        if (lastEventId === queue.acked_id) return queue
        const dropped = yield* contents(queue, lastEventId)
        const acked = dropped.length > 0 ? dropped[dropped.length - 1]!.id : queue.acked_id
        const next: QueueRecord = {
          ...queue,
          acked_id: acked,
          cursor_id: Math.max(queue.cursor_id, lastEventId),
          heartbeat_id: queue.heartbeat_id !== null && queue.heartbeat_id <= lastEventId ? null : queue.heartbeat_id
        }
        if (next.acked_id !== queue.acked_id || next.cursor_id !== queue.cursor_id || next.heartbeat_id !== queue.heartbeat_id) {
          yield* store.saveAck(queue.id, next)
        }
        if (acked !== lastEventId) return yield* new EventNotInQueue({ last_event_id: lastEventId })
        return next
      })

      const reload = (queue: WaitingQueue): Effect.Effect<WaitingQueue> =>
        Effect.map(store.findQueue(queue.id), (found) => found ?? queue)

      /** Returns what is pending, or waits for a wake-up. */
      const waitLoop = (w: Waiter): Effect.Effect<GetEventsResult, BadEventQueueId> =>
        Effect.flatMap(contents(w.queue), (events) => events.length > 0 ? Effect.succeed({ events }) : w.wait)

      const host: WaiterHost = {
        onWake: (w) => {
          const woke = w.woke
          const queueId = w.queue.id
          if ((woke & Woke.start) !== 0) {
            w.woke = woke & ~Woke.start
            addWaiter(w)
            deadlines.schedule(w, w.clock, w.delay)
            return Effect.andThen(store.markBlocked(queueId, w.since, w.since + w.delay + 5_000), waitLoop(w))
          }
          if ((woke & Woke.deleted) !== 0) {
            w.state |= State.superseded
            return Effect.fail(new BadEventQueueId({ queue_id: queueId }))
          }
          if ((woke & Woke.superseded) !== 0) {
            w.state |= State.superseded
            return Effect.flatMap(store.findQueue(queueId), (latest) =>
              latest === undefined || latest.user_id !== w.queue.user_id
                ? Effect.fail(new BadEventQueueId({ queue_id: queueId }))
                : Effect.map(contents(latest), (events) => ({ events })))
          }
          if ((woke & Woke.events) !== 0) {
            // New events, maybe none this queue takes: look, and wait again if so.
            w.woke = woke & ~Woke.events
            return Effect.flatMap(reload(w.queue), (latest) => {
              w.queue = latest
              return waitLoop(w)
            })
          }
          // The heartbeat: a fresh id from the log's sequence.
          const current = w.queue
          return Effect.flatMap(store.nextId(current.realm_id), (id) =>
            Effect.andThen(
              store.setHeartbeat(current.id, id),
              Effect.flatMap(reload(current), (latest) =>
                Effect.map(contents({ ...latest, heartbeat_id: id }), (events) => ({ events })))
            ))
        },
        release: (w) => {
          const state = w.state
          removeWaiter(w)
          // A newer poll (here or elsewhere) owns the queue's blocked state now.
          return (state & State.added) === 0 || (state & State.superseded) !== 0 || byQueue.has(w.queue.id)
            ? Effect.void
            : store.markUnblocked(w.queue.id)
        }
      }

      /**
       * Waits for events on a queue with nothing pending; returns what to
       * send. While it waits, the poll's fiber holds one `Waiter` and one
       * finalizer: signals and the shared heartbeat timer resume it.
       */
      const block = Effect.fnUntraced(function*(queue: QueueRecord) {
        const config = yield* EventQueuesConfig
        const delay = yield* Random.nextIntBetween(config.heartbeatMinMs, config.heartbeatMaxMs)
        const clock = yield* Clock.Clock
        const waiting: WaitingQueue = {
          id: queue.id,
          realm_id: queue.realm_id,
          user_id: queue.user_id,
          cursor_id: queue.cursor_id,
          heartbeat_id: queue.heartbeat_id,
          options: queue.options
        }
        const w = new Waiter(host, waiting, clock.currentTimeMillisUnsafe(), clock, delay)
        return Effect.onExit(w.wait, w.release)
      })

      /**
       * Everything but the wait, in a span of its own: the wait (up to a
       * minute, with thousands of polls at once) keeps no span, stack or
       * generator alive.
       */
      const prepare = Effect.fn("EventQueues.getEvents")(function*(principal: Principal, params: GetEventsParams) {
        const dontBlock = params.dont_block ?? false
        if (params.queue_id === undefined) {
          if (!dontBlock) return yield* new MissingQueueId()
          const queue = yield* register(principal, params.register ?? {})
          const events = yield* contents(queue)
          return { events, queue_id: queue.id } satisfies GetEventsResult
        }
        if (params.last_event_id === undefined) return yield* new MissingLastEventId()
        let queue = yield* access(principal, params.queue_id)
        queue = yield* acknowledge(queue, params.last_event_id)
        // A newer request finishes an older poll still waiting on this queue,
        // here or in another process.
        const now = yield* Clock.currentTimeMillis
        const local = byQueue.get(queue.id)
        if (local !== undefined) local.wake(Woke.superseded)
        else if (queue.blocked_until > now) {
          yield* store.signal({ _tag: "queue", queue: queue.id, reason: "superseded", at: now })
        }
        const pending = yield* contents(queue)
        if (pending.length > 0 || dontBlock) return { events: pending } satisfies GetEventsResult
        return queue
      })

      const getEvents = (principal: Principal, params: GetEventsParams): Effect.Effect<GetEventsResult, GetEventsError> =>
        Effect.flatMap(prepare(principal, params), afterPrepare)
      const afterPrepare = (prepared: GetEventsResult | QueueRecord): Effect.Effect<GetEventsResult, BadEventQueueId> =>
        "events" in prepared ? Effect.succeed(prepared) : Effect.flatten(block(prepared))
      const poll = (
        principal: Principal,
        params: GetEventsParams
      ): Effect.Effect<GetEventsResult | BlockedPoll, GetEventsError> => Effect.flatMap(prepare(principal, params), blocked)
      const blocked = (prepared: GetEventsResult | QueueRecord): Effect.Effect<GetEventsResult | BlockedPoll> =>
        "events" in prepared ? Effect.succeed(prepared) : block(prepared)

      const deleteQueue = Effect.fn("EventQueues.deleteQueue")(function*(principal: Principal, queueId: string) {
        yield* access(principal, queueId)
        yield* store.deleteQueue(queueId)
        yield* store.signal({ _tag: "queue", queue: queueId, reason: "deleted", at: yield* Clock.currentTimeMillis })
      })

      const collectGarbage = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const expired = yield* store.deleteExpired(now)
        yield* store.pruneLog
        return expired
      }).pipe(Effect.withSpan("EventQueues.collectGarbage"))

      const config = yield* EventQueuesConfig
      yield* Effect.forkScoped(
        Effect.forever(Effect.andThen(Effect.sleep(config.gcIntervalMs), Effect.ignoreCause(collectGarbage)))
      )

      return EventQueues.of({
        register,
        getEvents,
        poll,
        deleteQueue,
        collectGarbage,
        waitingPolls: Effect.sync(() => byQueue.size),
        heartbeatAll: Effect.sync(() => {
          for (const w of [...byQueue.values()]) w.fire()
        })
      })
    })
  )
}
