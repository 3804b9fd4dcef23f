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
 * Storage failures are defects, like the repositories'.
 *
 * @since 0.1.0
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { PgClient as PgClientTag } from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { realmId as toRealmId, userId as toUserId } from "../domain/Ids.ts"
import type { RealmId, UserId } from "../domain/Ids.ts"
import { Transactor } from "../persistence/Transactor.ts"
import { PgliteClient } from "../sql/PgliteClient.ts"
import type { CapabilityCondition, EventPayload, LoggedEvent, NewLoggedEvent, QueueOptions, QueueRecord } from "./EventModel.ts"
import { addressedTo } from "./EventModel.ts"

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

/** The NOTIFY channel shared by every process. @category constants */
export const NotifyChannel = "teamchat_events"

/** @category services */
export class EventStore extends Context.Service<EventStore, {
  /**
   * Appends events to the log as part of the current transaction (one is
   * opened when there is none); waiters are signalled after it commits.
   */
  append(realmId: RealmId, events: ReadonlyArray<NewLoggedEvent>): Effect.Effect<void>
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
}>()("teamchat/core/events/EventStore") {}

// -----------------------------------------------------------------------------
// signals

const makeCallbacks = () => {
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

/** The NOTIFY payload (PostgreSQL caps it at 8000 bytes, so long user lists become "anyone"). @category encoding */
export const encodeSignal = (signal: Signal): string => {
  if (signal._tag === "queue") return JSON.stringify({ q: signal.queue, why: signal.reason, at: signal.at })
  if (signal._tag === "resync") return JSON.stringify({ resync: true })
  const text = JSON.stringify({ r: signal.realm, u: signal.users })
  return text.length <= 7000 ? text : JSON.stringify({ r: signal.realm, u: null })
}

/** @category encoding */
export const decodeSignal = (payload: string): Signal | undefined => {
  try {
    const raw = JSON.parse(payload) as Record<string, unknown>
    if (typeof raw.q === "string") {
      return {
        _tag: "queue",
        queue: raw.q,
        reason: raw.why === "deleted" ? "deleted" : "superseded",
        at: typeof raw.at === "number" ? raw.at : 0
      }
    }
    if (raw.resync === true) return { _tag: "resync" }
    if (typeof raw.r === "number") {
      return { _tag: "events", realm: raw.r, users: Array.isArray(raw.u) ? (raw.u as Array<number>) : null }
    }
  } catch {
    // Not ours.
  }
  return undefined
}

const eventsSignal = (realmId: RealmId, events: ReadonlyArray<NewLoggedEvent>): Signal => {
  if (events.some((e) => e.user_ids === null)) return { _tag: "events", realm: realmId, users: null }
  const users = new Set<number>()
  for (const event of events) for (const id of event.user_ids ?? []) users.add(id)
  return { _tag: "events", realm: realmId, users: Array.from(users) }
}

// -----------------------------------------------------------------------------
// memory

/**
 * The log and queues in process memory. Appends happen when the memory
 * transaction commits, so rolled-back work never reaches the log.
 *
 * @category layers
 */
export const layerMemory: Layer.Layer<EventStore, never, Transactor> = Layer.effect(
  EventStore,
  Effect.gen(function*() {
    const tx = yield* Transactor
    const log: Array<LoggedEvent> = []
    const queues = new Map<string, QueueRecord>()
    let sequence = 0
    const { dispatch, onSignal } = makeCallbacks()
    const update = (id: string, f: (q: QueueRecord) => QueueRecord) => {
      const queue = queues.get(id)
      if (queue !== undefined) queues.set(id, f(queue))
    }
    return EventStore.of({
      append: (realmId, events) =>
        events.length === 0 ? Effect.void : tx.afterCommit(Effect.sync(() => {
          for (const event of events) {
            log.push({
              id: ++sequence,
              realm_id: realmId,
              type: event.payload.type,
              payload: event.payload,
              user_ids: event.user_ids,
              requires: event.requires
            })
          }
          dispatch(eventsSignal(realmId, events))
        })),
      highWaterMark: (realmId) =>
        Effect.sync(() => {
          for (let i = log.length - 1; i >= 0; i--) if (log[i]!.realm_id === realmId) return log[i]!.id
          return 0
        }),
      read: (realmId, userId, after, upTo) =>
        Effect.sync(() =>
          log.filter((e) =>
            e.realm_id === realmId && e.id > after && (upTo === undefined || e.id <= upTo) && addressedTo(e, userId)
          )
        ),
      nextId: () => Effect.sync(() => ++sequence),
      insertQueue: (queue) => Effect.sync(() => void queues.set(queue.id, queue)),
      findQueue: (id) => Effect.sync(() => queues.get(id)),
      saveAck: (id, ack) => Effect.sync(() => update(id, (q) => ({ ...q, ...ack }))),
      setHeartbeat: (id, heartbeatId) => Effect.sync(() => update(id, (q) => ({ ...q, heartbeat_id: heartbeatId }))),
      markBlocked: (id, now, blockedUntil) =>
        Effect.sync(() => update(id, (q) => ({ ...q, last_connected: now, blocked_until: blockedUntil }))),
      markUnblocked: (id) => Effect.sync(() => update(id, (q) => ({ ...q, blocked_until: 0 }))),
      deleteQueue: (id) => Effect.sync(() => queues.delete(id)),
      deleteExpired: (now) =>
        Effect.sync(() => {
          const expired: Array<string> = []
          for (const queue of queues.values()) {
            if (queue.blocked_until <= now && now - queue.last_connected >= queue.lifespan_secs * 1000) {
              expired.push(queue.id)
            }
          }
          for (const id of expired) queues.delete(id)
          return expired
        }),
      pruneLog: Effect.sync(() => {
        const floor = new Map<number, number>()
        for (const queue of queues.values()) {
          floor.set(queue.realm_id, Math.min(floor.get(queue.realm_id) ?? Infinity, queue.cursor_id))
        }
        const before = log.length
        const kept = log.filter((e) => e.id > (floor.get(e.realm_id) ?? Infinity))
        log.length = 0
        log.push(...kept)
        return before - kept.length
      }),
      signal: (signal) => Effect.sync(() => dispatch(signal)),
      onSignal
    })
  })
)

// -----------------------------------------------------------------------------
// SQL

type Row = Readonly<Record<string, unknown>>

const json = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A
const jsonOrNull = <A>(value: unknown): A | null => (value === null || value === undefined ? null : json<A>(value))

/** Advisory-lock key space of the event log: one lock per organization. */
const lockKey = (realmId: RealmId): number => 0x7e4e_0000_0000 + realmId

const decodeEvent = (row: Row): LoggedEvent => {
  const payload = json<EventPayload>(row.payload)
  const userIds = jsonOrNull<Array<number>>(row.user_ids)
  return {
    id: Number(row.id),
    realm_id: toRealmId(Number(row.realm_id)),
    type: String(row.event_type),
    payload,
    user_ids: userIds === null ? null : userIds.map(toUserId),
    requires: jsonOrNull<CapabilityCondition>(row.requires)
  }
}

const decodeQueue = (row: Row): QueueRecord => ({
  id: String(row.id),
  realm_id: toRealmId(Number(row.realm_id)),
  user_id: toUserId(Number(row.user_id)),
  options: json<QueueOptions>(row.options),
  created_at: Number(row.created_at),
  lifespan_secs: Number(row.lifespan_secs),
  last_connected: Number(row.last_connected),
  blocked_until: Number(row.blocked_until),
  acked_id: Number(row.acked_id),
  cursor_id: Number(row.cursor_id),
  heartbeat_id: row.heartbeat_id === null || row.heartbeat_id === undefined ? null : Number(row.heartbeat_id)
})

/** How this process hears NOTIFY from the others. */
type Listener = (dispatch: (signal: Signal) => void) => Effect.Effect<void, never, import("effect/Scope").Scope>

/** Waits between attempts to listen again: 100 ms doubling up to 5 s, jittered, for as long as it takes. */
const relistenSchedule = Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("5 seconds")]).pipe(
  Schedule.jittered
)

/**
 * LISTEN on a connection of the pool; when that connection is lost
 * (PostgreSQL restarted, a network blip, the backend terminated) listens
 * again on a new one. Notifications sent meanwhile are gone, so once it
 * listens again every waiting poll of this process re-reads the log.
 */
const pgListener = (pg: PgClient.PgClient): Listener => (dispatch) =>
  Effect.gen(function*() {
    /** One session: `onListening` once PostgreSQL confirms, then notifications until the connection fails (the result). */
    const session = (onListening: Effect.Effect<void>) =>
      Effect.scoped(Effect.gen(function*() {
        const queue = yield* pg.listen(NotifyChannel)
        yield* onListening
        return yield* Effect.flip(Effect.forever(Effect.map(Queue.take(queue), (notification) => {
          const signal = decodeSignal(notification.payload)
          if (signal !== undefined) dispatch(signal)
        })))
      }))
    const restored = Effect.andThen(
      Effect.logInfo("LISTEN connection restored; waiting polls re-read the event log"),
      Effect.sync(() => dispatch({ _tag: "resync" }))
    )
    const first = yield* Deferred.make<void, SqlError>()
    yield* Effect.forkScoped(Effect.gen(function*() {
      let lost = yield* session(Effect.asVoid(Deferred.succeed(first, undefined)))
      while (true) {
        // Once per loss: the attempts that follow fail quietly until one listens.
        yield* Effect.logWarning(
          "LISTEN connection lost; listening again (until then, other processes' events wake polls here only at their heartbeat)",
          lost
        )
        lost = yield* Effect.retry(session(restored), relistenSchedule)
      }
    }).pipe(Effect.tapError((error) => Deferred.fail(first, error))))
    // The layer is ready once this process listens; a database it cannot listen on is a defect, as before.
    yield* Effect.orDie(Deferred.await(first))
  })


/**
 * The log and queues in the SQL tables of migration `0002_events`. Uses
 * LISTEN/NOTIFY when the context has a `PgClient` (sql-pg) or a
 * `PgliteClient`; with another SqlClient only this process's waiters wake
 * at once (others at their next heartbeat).
 *
 * @category layers
 */
export const layerSql: Layer.Layer<EventStore, never, SqlClient.SqlClient> = Layer.effect(
  EventStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { dispatch, onSignal } = makeCallbacks()

    const pg = yield* Effect.serviceOption(PgClientTag)
    // A PGlite database belongs to one process, whose waiting polls the
    // local dispatch wakes: NOTIFY is for the other processes of a server.
    const notify: (payload: string) => Effect.Effect<void> = Option.isSome(pg)
      ? (payload) => Effect.ignore(pg.value.notify(NotifyChannel, payload))
      : () => Effect.void
    const listener: Listener | undefined = Option.isSome(pg) ? pgListener(pg.value) : undefined
    if (listener !== undefined) yield* listener(dispatch)

    const broadcast = (signal: Signal) =>
      Effect.andThen(Effect.sync(() => dispatch(signal)), notify(encodeSignal(signal)))

    // One statement: on PostgreSQL the organization's lock first, then the
    // rows, whose ids follow the order given. Inside the caller's transaction
    // the lock is held until it commits; alone, the statement is its own
    // transaction. PGlite runs one transaction at a time, so its ids already
    // follow commit order and it takes no lock. There a few rows go as plain
    // VALUES, cheaper than unpacking a JSON array (a send's one event: 0.8 →
    // 0.5 ms); many rows go as the array, as PGlite's cost grows with the
    // number of parameters.
    const isPglite = Option.isSome(yield* Effect.serviceOption(PgliteClient))
    const fewRows = 8
    const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value))
    const insertRows = (realmId: RealmId, now: number, events: ReadonlyArray<NewLoggedEvent>) => {
      if (isPglite && events.length <= fewRows) {
        return sql`
          INSERT INTO events (realm_id, created_at, event_type, payload, user_ids, requires)
          VALUES ${
          sql.join(",", false)(events.map((event) =>
            sql`(${realmId}, ${now}, ${event.payload.type}, ${JSON.stringify(event.payload)}::jsonb,
              ${jsonOrNull(event.user_ids)}::jsonb, ${jsonOrNull(event.requires)}::jsonb)`
          ))
        }`
      }
      const rows = JSON.stringify(events.map((event) => ({
        t: event.payload.type,
        p: event.payload,
        u: event.user_ids,
        r: event.requires
      })))
      return sql`
          ${isPglite ? sql.literal("") : sql`WITH locked AS (SELECT pg_advisory_xact_lock(${lockKey(realmId)}::bigint))`}
          INSERT INTO events (realm_id, created_at, event_type, payload, user_ids, requires)
          SELECT ${realmId}, ${now}, e.v->>'t', e.v->'p', NULLIF(e.v->'u', 'null'::jsonb), NULLIF(e.v->'r', 'null'::jsonb)
          FROM ${isPglite ? sql.literal("") : sql.literal("locked,")} jsonb_array_elements(${rows}::jsonb) WITH ORDINALITY AS e(v, n)
          ORDER BY e.n`
    }

    const append = (realmId: RealmId, events: ReadonlyArray<NewLoggedEvent>) =>
      events.length === 0 ? Effect.void : Effect.gen(function*() {
        yield* insertRows(realmId, Date.now(), events)
        yield* sql.afterCommit(broadcast(eventsSignal(realmId, events)))
      }).pipe(Effect.orDie)

    return EventStore.of({
      append,
      highWaterMark: (realmId) =>
        sql<{ id: unknown }>`SELECT COALESCE(MAX(id), 0) AS id FROM events WHERE realm_id = ${realmId}`.pipe(
          Effect.map((rows) => Number(rows[0]?.id ?? 0)),
          Effect.orDie
        ),
      read: (realmId, userId, after, upTo) =>
        sql<Row>`
          SELECT id, realm_id, event_type, payload, user_ids, requires FROM events
          WHERE realm_id = ${realmId} AND id > ${after}
            AND id <= ${upTo ?? Number.MAX_SAFE_INTEGER}
            AND (user_ids IS NULL OR user_ids @> ${JSON.stringify([userId])}::jsonb)
          ORDER BY id`.pipe(Effect.map((rows) => rows.map(decodeEvent)), Effect.orDie),
      nextId: (realmId) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(${lockKey(realmId)}::bigint)`
          const [row] = yield* sql<{ id: unknown }>`SELECT nextval(pg_get_serial_sequence('events', 'id')) AS id`
          return Number(row!.id)
        })).pipe(Effect.orDie),
      insertQueue: (q) =>
        sql`
          INSERT INTO event_queues (id, realm_id, user_id, options, created_at, lifespan_secs, last_connected,
            blocked_until, acked_id, cursor_id, heartbeat_id)
          VALUES (${q.id}, ${q.realm_id}, ${q.user_id}, ${JSON.stringify(q.options)}::jsonb, ${q.created_at},
            ${q.lifespan_secs}, ${q.last_connected}, ${q.blocked_until}, ${q.acked_id}, ${q.cursor_id},
            ${q.heartbeat_id})`.pipe(Effect.asVoid, Effect.orDie),
      findQueue: (id) =>
        sql<Row>`SELECT * FROM event_queues WHERE id = ${id}`.pipe(
          Effect.map((rows) => (rows.length === 0 ? undefined : decodeQueue(rows[0]!))),
          Effect.orDie
        ),
      saveAck: (id, ack) =>
        sql`
          UPDATE event_queues SET acked_id = ${ack.acked_id}, cursor_id = ${ack.cursor_id},
            heartbeat_id = ${ack.heartbeat_id}
          WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      setHeartbeat: (id, heartbeatId) =>
        sql`UPDATE event_queues SET heartbeat_id = ${heartbeatId} WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      markBlocked: (id, now, blockedUntil) =>
        sql`UPDATE event_queues SET last_connected = ${now}, blocked_until = ${blockedUntil} WHERE id = ${id}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      markUnblocked: (id) =>
        sql`UPDATE event_queues SET blocked_until = 0 WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      deleteQueue: (id) =>
        sql<{ id: unknown }>`DELETE FROM event_queues WHERE id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      deleteExpired: (now) =>
        sql<{ id: unknown }>`
          DELETE FROM event_queues
          WHERE blocked_until <= ${now} AND ${now} - last_connected >= lifespan_secs * 1000
          RETURNING id`.pipe(Effect.map((rows) => rows.map((r) => String(r.id))), Effect.orDie),
      // The grace period keeps events a queue being registered right now may
      // still need (its row is not visible yet).
      pruneLog: Effect.suspend(() => sql<{ id: unknown }>`
        DELETE FROM events e
        WHERE e.created_at < ${Date.now() - 120_000} AND e.id <= COALESCE(
          (SELECT MIN(q.cursor_id) FROM event_queues q WHERE q.realm_id = e.realm_id),
          (SELECT MAX(x.id) FROM events x WHERE x.realm_id = e.realm_id)
        )
        RETURNING e.id`).pipe(Effect.map((rows) => rows.length), Effect.orDie),
      signal: broadcast,
      onSignal
    })
  })
)
