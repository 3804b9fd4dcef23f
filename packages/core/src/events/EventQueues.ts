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
 * - A blocking poll waits on a per-poll Deferred indexed by user id (no
 *   per-queue timer beyond its heartbeat deadline). It returns as soon as a
 *   matching event commits, on this process or another one (LISTEN/NOTIFY),
 *   or with a heartbeat after 45–55 s.
 * - A newer poll on the same queue finishes the older one, which returns
 *   the queue's current contents.
 * - A queue expires `lifespan` seconds after the last poll that blocked (or
 *   its creation) unless a poll is waiting on it; a scoped background fiber
 *   deletes expired queues and the log rows every queue is past.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import { isGuest } from "../domain/Role.ts"
import {
  BadEventQueueId,
  EventNotInQueue,
  EventPruned,
  MissingLastEventId,
  MissingQueueId,
  NarrowOperandNotSupported,
  NarrowOperatorNotSupported,
  UserNotAuthorizedForQuery
} from "../errors/Errors.ts"
import type { Principal } from "../services/Users.ts"
import type { ClientEvent, IncludeSubscribers, NarrowTerm, QueueOptions, QueueRecord } from "./EventModel.ts"
import { accepts, capabilitiesFrom, heartbeat, isExpired, present } from "./EventModel.ts"
import { EventStore } from "./EventStore.ts"
import type { Signal } from "./EventStore.ts"

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
export const EventQueuesConfig = Context.Reference<EventQueuesConfig>("teamchat/core/events/EventQueuesConfig", {
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

/** @category errors */
export type RegisterQueueError = NarrowOperatorNotSupported | NarrowOperandNotSupported | UserNotAuthorizedForQuery

/** @category errors */
export type GetEventsError = BadEventQueueId | EventPruned | EventNotInQueue | MissingQueueId | MissingLastEventId | RegisterQueueError

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

type Wake = "events" | "superseded" | "deleted"

interface Waiter {
  readonly queueId: string
  /** When the poll started waiting (milliseconds). */
  readonly since: number
  readonly userId: number
  readonly realmId: number
  wake: Deferred.Deferred<Wake>
}

/** @category services */
export class EventQueues extends Context.Service<EventQueues, {
  /** Registers a queue for the caller; it starts after every event committed so far. */
  register(principal: Principal, params: RegisterQueueParams): Effect.Effect<QueueRecord, RegisterQueueError>
  /** GET /events. */
  getEvents(principal: Principal, params: GetEventsParams): Effect.Effect<GetEventsResult, GetEventsError>
  /** DELETE /events. */
  deleteQueue(principal: Principal, queueId: string): Effect.Effect<void, BadEventQueueId>
  /** One garbage-collection pass (the background fiber runs it periodically); returns the expired queue ids. */
  collectGarbage: Effect.Effect<ReadonlyArray<string>>
  /** Number of polls waiting in this process (for tests and metrics). */
  waitingPolls: Effect.Effect<number>
}>()("teamchat/core/events/EventQueues") {
  static readonly layer: Layer.Layer<EventQueues, never, EventStore> = Layer.effect(
    EventQueues,
    Effect.gen(function*() {
      const store = yield* EventStore

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
      const wake = (w: Waiter, reason: Wake) => {
        Deferred.doneUnsafe(w.wake, Effect.succeed(reason))
      }
      const onSignal = (signal: Signal) => {
        if (signal._tag === "queue") {
          const w = byQueue.get(signal.queue)
          // A supersession sent before this poll started was meant for an older one.
          if (w !== undefined && (signal.reason === "deleted" || signal.at >= w.since)) wake(w, signal.reason)
          return
        }
        if (signal.users === null) {
          for (const w of byRealm.get(signal.realm) ?? []) wake(w, "events")
          return
        }
        for (const user of signal.users) {
          for (const w of byUser.get(user) ?? []) if (w.realmId === signal.realm) wake(w, "events")
        }
      }
      yield* store.onSignal(onSignal)

      const addWaiter = (queue: QueueRecord, since: number) =>
        Effect.sync(() => {
          const w: Waiter = {
            queueId: queue.id,
            since,
            userId: queue.user_id,
            realmId: queue.realm_id,
            wake: Deferred.makeUnsafe<Wake>()
          }
          const previous = byQueue.get(queue.id)
          if (previous !== undefined) wake(previous, "superseded")
          byQueue.set(queue.id, w)
          addTo(byUser, w.userId, w)
          addTo(byRealm, w.realmId, w)
          return w
        })
      const removeWaiter = (w: Waiter) =>
        Effect.sync(() => {
          if (byQueue.get(w.queueId) === w) byQueue.delete(w.queueId)
          removeFrom(byUser, w.userId, w)
          removeFrom(byRealm, w.realmId, w)
        })

      // -----------------------------------------------------------------------
      // queues

      const register = Effect.fn("EventQueues.register")(function*(principal: Principal, params: RegisterQueueParams) {
        const config = yield* EventQueuesConfig
        const narrow = params.narrow ?? []
        yield* checkNarrow(narrow)
        const allPublic = params.all_public_streams ?? false
        if (allPublic && isGuest(principal.user.role)) return yield* new UserNotAuthorizedForQuery()
        const requested = params.queue_lifespan_secs ?? 0
        const lifespan = requested <= 0 ? config.defaultLifespanSecs : Math.min(requested, config.maxLifespanSecs)
        const options: QueueOptions = {
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
        }
        const now = yield* Clock.currentTimeMillis
        const cursor = yield* store.highWaterMark(principal.realm.id)
        const queue: QueueRecord = {
          id: randomUUID(),
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
      const contents = Effect.fnUntraced(function*(queue: QueueRecord, upTo?: number) {
        const logged = yield* store.read(queue.realm_id, queue.user_id, queue.cursor_id, upTo)
        const events = logged.filter((e) => accepts(queue.options, e)).map((e) => present(queue.options, e))
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

      const reload = (queue: QueueRecord) =>
        Effect.map(store.findQueue(queue.id), (found) => found ?? queue)

      /** Waits for events on a queue with nothing pending; returns what to send. */
      const block = Effect.fnUntraced(function*(principal: Principal, queue: QueueRecord) {
        const config = yield* EventQueuesConfig
        const delay = yield* Random.nextIntBetween(config.heartbeatMinMs, config.heartbeatMaxMs)
        const start = yield* Clock.currentTimeMillis
        const deadline = start + delay
        const waiter = yield* addWaiter(queue, start)
        let superseded = false
        return yield* Effect.gen(function*() {
          yield* store.markBlocked(queue.id, start, deadline + 5_000)
          let current = queue
          while (true) {
            const pending = yield* contents(current)
            if (pending.length > 0) return pending
            const now = yield* Clock.currentTimeMillis
            const woke = now >= deadline
              ? Option.none<Wake>()
              : yield* Effect.timeoutOption(Deferred.await(waiter.wake), deadline - now)
            if (Option.isNone(woke)) {
              const id = yield* store.nextId(current.realm_id)
              yield* store.setHeartbeat(current.id, id)
              return yield* contents({ ...(yield* reload(current)), heartbeat_id: id })
            }
            switch (woke.value) {
              case "deleted":
                superseded = true
                return yield* new BadEventQueueId({ queue_id: queue.id })
              case "superseded": {
                superseded = true
                const latest = yield* store.findQueue(queue.id)
                if (latest === undefined || latest.user_id !== principal.user.id) {
                  return yield* new BadEventQueueId({ queue_id: queue.id })
                }
                return yield* contents(latest)
              }
              case "events":
                waiter.wake = Deferred.makeUnsafe<Wake>()
                current = yield* reload(current)
            }
          }
        }).pipe(
          Effect.ensuring(Effect.andThen(
            removeWaiter(waiter),
            // A newer poll (here or elsewhere) owns the queue's blocked state now.
            Effect.suspend(() => superseded || byQueue.has(queue.id) ? Effect.void : store.markUnblocked(queue.id))
          ))
        )
      })

      const getEvents = Effect.fn("EventQueues.getEvents")(function*(principal: Principal, params: GetEventsParams) {
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
        if (local !== undefined) wake(local, "superseded")
        else if (queue.blocked_until > now) {
          yield* store.signal({ _tag: "queue", queue: queue.id, reason: "superseded", at: now })
        }
        const pending = yield* contents(queue)
        if (pending.length > 0 || dontBlock) return { events: pending } satisfies GetEventsResult
        const events = yield* block(principal, queue)
        return { events } satisfies GetEventsResult
      })

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
        deleteQueue,
        collectGarbage,
        waitingPolls: Effect.sync(() => byQueue.size)
      })
    })
  )
}
