/**
 * Durable storage of the event log and the event queues, plus the wake-up
 * signals that tell waiting polls something changed.
 *
 * Storage design:
 *
 * - `events`: one row per distinct payload with its audience (`user_ids`,
 *   null for the whole organization) and an optional capability condition.
 *   An event for a thousand users is one row; queues never hold copies.
 * - `event_queues`: one row per queue; a queue is a cursor into the log plus
 *   Zulip's acknowledgement state (see `QueueRecord`).
 * - Ids come from the log's identity sequence, so they increase across every
 *   queue ("increasing, not necessarily consecutive"). Appends to one
 *   organization are serialised by a transaction-scoped advisory lock held
 *   until commit, so within an organization ids are visible in commit order
 *   and a reader that moved its cursor past id N can never later see a
 *   smaller id appear.
 * - Signals: after commit the appender wakes local waiters directly and sends
 *   `NOTIFY teamchat_events` so other processes on the same database wake
 *   within milliseconds (PostgreSQL LISTEN/NOTIFY; a PGlite database has
 *   one process, so the local wake-up is all). In memory the signal is an
 *   in-process callback.
 *
 * Storage failures are defects, like the repositories'. The implementations
 * are `memory/MemoryEventStore.ts` and `sql/SqlEventStore.ts`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { NewLoggedEvent, LoggedEvent, QueueRecord } from "../domain/Event.ts"
import type { MessageId, RealmId, UserId } from "../domain/Ids.ts"

/**
 * A wake-up: new events for some users of an organization (`users` null:
 * possibly any of them), or a change to one queue (`queue`: a newer poll
 * arrived, or the queue was deleted).
 *
 * @category models
 */
export type Signal =
  | { readonly _tag: "events"; readonly realm: number; readonly users: ReadonlyArray<number> | null }
  | {
    readonly _tag: "queue"
    readonly queue: string
    readonly reason: "superseded" | "deleted"
    /** When the signalling request arrived (milliseconds). */
    readonly at: number
  }
  /** Signals may have been missed (this process listens again after losing its connection): every waiting poll re-reads the log. */
  | { readonly _tag: "resync" }

/** @category services */
export class EventStore extends Context.Service<EventStore, {
  /**
   * Appends events to the log as part of the current transaction (one is
   * opened when there is none); waiters are signalled after it commits.
   */
  append(realmId: RealmId, events: ReadonlyArray<NewLoggedEvent>): Effect.Effect<void>
  /**
   * Takes the organization's event-log lock now, until the current
   * transaction ends (what `append` takes as a transaction's last write).
   * A write that must not interleave with single-statement sends (a topic
   * moved whole while messages arrive) takes it right after its row locks:
   * a send then commits before it, and is seen, or after it.
   */
  lockLog(realmId: RealmId): Effect.Effect<void>
  /** The newest event id of the organization visible now (0 when none). */
  highWaterMark(realmId: RealmId): Effect.Effect<number>
  /**
   * Events of the organization addressed to the user with `after < id`
   * (and `id <= upTo` when given), by id.
   */
  read(realmId: RealmId, userId: UserId, after: number, upTo?: number): Effect.Effect<ReadonlyArray<LoggedEvent>>
  /** A fresh id from the log's sequence, ordered after every committed event of the organization. */
  nextId(realmId: RealmId): Effect.Effect<number>
  insertQueue(queue: QueueRecord): Effect.Effect<void>
  findQueue(id: string): Effect.Effect<QueueRecord | undefined>
  /** Records an acknowledgement. */
  saveAck(id: string, ack: { readonly acked_id: number; readonly cursor_id: number; readonly heartbeat_id: number | null }): Effect.Effect<void>
  setHeartbeat(id: string, heartbeatId: number): Effect.Effect<void>
  /** A poll starts waiting: refreshes `last_connected`. */
  markBlocked(id: string, now: number, blockedUntil: number): Effect.Effect<void>
  markUnblocked(id: string): Effect.Effect<void>
  deleteQueue(id: string): Effect.Effect<boolean>
  /** Deletes the queues expired at `now`; returns their ids. */
  deleteExpired(now: number): Effect.Effect<ReadonlyArray<string>>
  /** Deletes log events every queue of their organization is past; returns how many. */
  pruneLog: Effect.Effect<number>
  /** Sends a signal to every process (this one included). */
  signal(signal: Signal): Effect.Effect<void>
  /** Registers a callback for signals until the scope closes. */
  onSignal(callback: (signal: Signal) => void): Effect.Effect<void, never, import("effect/Scope").Scope>
}>()("teamchat/core/ports/EventStore") {}

// -----------------------------------------------------------------------------
// signals

/** The in-process subscribers of signals, shared by every implementation. @internal */
export const makeCallbacks = () => {
  const callbacks = new Set<(signal: Signal) => void>()
  const dispatch = (signal: Signal) => {
    for (const callback of callbacks) {
      try {
        callback(signal)
      } catch {
        // A broken subscriber must not stop the others.
      }
    }
  }
  const onSignal = (callback: (signal: Signal) => void) =>
    Effect.acquireRelease(
      Effect.sync(() => void callbacks.add(callback)),
      () => Effect.sync(() => void callbacks.delete(callback))
    )
  return { dispatch, onSignal }
}

/**
 * The NOTIFY payload (PostgreSQL caps it at 8000 bytes, so long user lists
 * become "anyone"), naming the store that sent it (`origin`), which has
 * woken its own polls already and skips it when it hears it back.
 *
 * @category encoding
 */
export const encodeSignal = (signal: Signal, origin?: string): string => {
  const from = origin === undefined ? {} : { o: origin }
  if (signal._tag === "queue") return JSON.stringify({ q: signal.queue, why: signal.reason, at: signal.at, ...from })
  if (signal._tag === "resync") return JSON.stringify({ resync: true, ...from })
  const text = JSON.stringify({ r: signal.realm, u: signal.users, ...from })
  return text.length <= 7000 ? text : JSON.stringify({ r: signal.realm, u: null, ...from })
}

/** A NOTIFY payload's signal and the store that sent it (`undefined` when it does not say). @category encoding */
export const decodeNotice = (payload: string): { readonly signal: Signal; readonly origin: string | undefined } | undefined => {
  let raw: Record<string, unknown>
  try {
    raw = JSON.parse(payload) as Record<string, unknown>
  } catch {
    // Not ours.
    return undefined
  }
  if (typeof raw !== "object" || raw === null) return undefined
  const origin = typeof raw.o === "string" ? raw.o : undefined
  if (typeof raw.q === "string") {
    return {
      signal: {
        _tag: "queue",
        queue: raw.q,
        reason: raw.why === "deleted" ? "deleted" : "superseded",
        at: typeof raw.at === "number" ? raw.at : 0
      },
      origin
    }
  }
  if (raw.resync === true) return { signal: { _tag: "resync" }, origin }
  if (typeof raw.r === "number") {
    return {
      signal: { _tag: "events", realm: raw.r, users: Array.isArray(raw.u) ? (raw.u as Array<number>) : null },
      origin
    }
  }
  return undefined
}

/** @category encoding */
export const decodeSignal = (payload: string): Signal | undefined => decodeNotice(payload)?.signal

/**
 * The event with `id` as its payload's `message.id` (a `message` event),
 * as `MessageStore.send` stores it.
 *
 * @internal
 */
export const withMessageId = (event: NewLoggedEvent, id: MessageId): NewLoggedEvent => {
  const payload = event.payload
  if (payload.type !== "message") return event
  return { ...event, payload: { ...payload, message: { ...payload.message, id } } }
}

/** The wake-up for appended events. @internal */
export const eventsSignal = (realmId: RealmId, events: ReadonlyArray<NewLoggedEvent>): Signal => {
  if (events.some((e) => e.user_ids === null)) return { _tag: "events", realm: realmId, users: null }
  const users = new Set<number>()
  for (const event of events) for (const id of event.user_ids ?? []) users.add(id)
  return { _tag: "events", realm: realmId, users: Array.from(users) }
}
