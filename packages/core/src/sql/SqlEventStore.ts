/**
 * The event log and queues on SQL (migration `0002_events`), with wake-ups
 * across processes through PostgreSQL LISTEN/NOTIFY.
 *
 * @since 0.1.0
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { PgClient as PgClientTag } from "@effect/sql-pg/PgClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Request from "effect/Request"
import * as RequestResolver from "effect/RequestResolver"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type * as Statement from "effect/sql/Statement"
import type { CapabilityCondition, EventPayload, LoggedEvent, NewLoggedEvent, QueueOptions, QueueRecord } from "../domain/Event.ts"
import { internOptions } from "../domain/Event.ts"
import { realmId as toRealmId, userId as toUserId } from "../domain/Ids.ts"
import type { RealmId, UserId } from "../domain/Ids.ts"
import { decodeNotice, encodeSignal, EventStore, eventsSignal, makeCallbacks } from "../ports/EventStore.ts"
import type { Signal } from "../ports/EventStore.ts"
import { Transactor } from "../ports/Transactor.ts"
import { instanceId } from "../services/internal/KeyGenerator.ts"
import { PgliteClient } from "./PgliteClient.ts"

/**
 * What the SQL message store needs of the log to write a message's events in
 * the statement that inserts the message (`SqlMessageStore.send`): the
 * event log's SQL stays here, the messages' there.
 *
 * @internal
 */
export class SqlEventLog extends Context.Service<SqlEventLog, {
  /**
   * `ctes`: CTEs (each after a comma) that log `events` in a statement
   * whose CTE `m` inserted the message, each event's `message.id` set to
   * it; on PostgreSQL they take the organization's lock and send the
   * NOTIFY. `gated`: the statement has a CTE `ok`, and nothing is locked or
   * notified when it has no row. `afterCommit`: to run once the statement
   * wrote, registering the wake-up of the events' waiters for the commit.
   */
  messageEvents(
    realmId: RealmId,
    now: number,
    events: ReadonlyArray<NewLoggedEvent>,
    gated: boolean
  ): { readonly ctes: Statement.Fragment; readonly afterCommit: Effect.Effect<void> }
}>()("teamchat/core/sql/SqlEventLog") {}

/** The NOTIFY channel shared by every process. @category constants */
export const NotifyChannel = "teamchat_events"

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
  options: internOptions(json<QueueOptions>(row.options)),
  created_at: Number(row.created_at),
  lifespan_secs: Number(row.lifespan_secs),
  last_connected: Number(row.last_connected),
  blocked_until: Number(row.blocked_until),
  acked_id: Number(row.acked_id),
  cursor_id: Number(row.cursor_id),
  heartbeat_id: row.heartbeat_id === null || row.heartbeat_id === undefined ? null : Number(row.heartbeat_id)
})

/** How this store hears NOTIFY from the others (its own, named by `origin`, it has dispatched already). */
type Listener = (
  dispatch: (signal: Signal) => void,
  origin: string
) => Effect.Effect<void, never, import("effect/Scope").Scope>

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
const pgListener = (pg: PgClient.PgClient): Listener => (dispatch, origin) =>
  Effect.gen(function*() {
    /** One session: `onListening` once PostgreSQL confirms, then notifications until the connection fails (the result). */
    const session = (onListening: Effect.Effect<void>) =>
      Effect.scoped(Effect.gen(function*() {
        const queue = yield* pg.listen(NotifyChannel)
        yield* onListening
        return yield* Effect.flip(Effect.forever(Effect.map(Queue.take(queue), (notification) => {
          const notice = decodeNotice(notification.payload)
          if (notice !== undefined && notice.origin !== origin) dispatch(notice.signal)
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
 * at once (others at their next heartbeat). Wake-ups wait for the commit
 * through the Transactor; rows are stamped by the Clock.
 *
 * @category layers
 */
export const layer: Layer.Layer<EventStore | SqlEventLog, never, SqlClient.SqlClient | Transactor> = Layer.effectContext(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tx = yield* Transactor
    const { dispatch, onSignal } = makeCallbacks()

    const pg = yield* Effect.serviceOption(PgClientTag)
    // A PGlite database belongs to one process, whose waiting polls the
    // local dispatch wakes: NOTIFY is for the other processes of a server.
    const notify: (payload: string) => Effect.Effect<void> = Option.isSome(pg)
      ? (payload) => Effect.ignore(pg.value.notify(NotifyChannel, payload))
      : () => Effect.void
    // This store's name in its notices. It wakes its own polls when its
    // writes commit, so it skips its notices when it hears them back (they
    // would wake the polls that came back meanwhile for nothing). Per store,
    // not per process: each store of a process listens for itself.
    const origin = yield* instanceId
    const listener: Listener | undefined = Option.isSome(pg) ? pgListener(pg.value) : undefined
    if (listener !== undefined) yield* listener(dispatch, origin)
    const notice = (signal: Signal) => encodeSignal(signal, origin)

    const broadcast = (signal: Signal) =>
      Effect.andThen(Effect.sync(() => dispatch(signal)), notify(notice(signal)))
    // On PostgreSQL an append's NOTIFY goes in its INSERT: NOTIFY is
    // transactional (delivered when the transaction commits, in commit
    // order, dropped when it rolls back), so other processes still hear of
    // the events only after the commit, and a send saves the round trip of
    // a NOTIFY sent after it on a connection of its own. The difference: a
    // NOTIFY queue filled up (8 GB unread by some listener) now fails the
    // commit instead of losing the notice.
    const notifiesInStatement = Option.isSome(pg)

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
    const insertRows = (realmId: RealmId, now: number, events: ReadonlyArray<NewLoggedEvent>, notice: string | undefined) => {
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
          ${notice === undefined ? sql.literal("") : sql`, notified AS (SELECT pg_notify(${NotifyChannel}, ${notice}))`}
          INSERT INTO events (realm_id, created_at, event_type, payload, user_ids, requires)
          SELECT ${realmId}, ${now}, e.v->>'t', e.v->'p', NULLIF(e.v->'u', 'null'::jsonb), NULLIF(e.v->'r', 'null'::jsonb)
          FROM ${isPglite ? sql.literal("") : sql.literal("locked,")} ${notice === undefined ? sql.literal("") : sql.literal("notified,")}
            jsonb_array_elements(${rows}::jsonb) WITH ORDINALITY AS e(v, n)
          ORDER BY e.n`
    }

    const append = (realmId: RealmId, events: ReadonlyArray<NewLoggedEvent>) =>
      events.length === 0 ? Effect.void : Effect.gen(function*() {
        const signal = eventsSignal(realmId, events)
        if (notifiesInStatement) {
          yield* insertRows(realmId, yield* Clock.currentTimeMillis, events, notice(signal))
          yield* tx.afterCommit(Effect.sync(() => dispatch(signal)))
        } else {
          yield* insertRows(realmId, yield* Clock.currentTimeMillis, events, undefined)
          yield* tx.afterCommit(broadcast(signal))
        }
      }).pipe(Effect.orDie)

    // A message's events name it in `message.id`, which the statement that
    // inserts the message fills in (`SqlMessageStore.send`).
    const withNewId = (payload: string) =>
      sql.literal(
        `CASE WHEN jsonb_typeof(${payload}->'message') = 'object' ` +
          `THEN jsonb_set(${payload}, '{message,id}', to_jsonb(m.id)) ELSE ${payload} END`
      )
    /**
     * The events' part of a send's one statement: `insertRows` as CTEs
     * reading the message's id from the statement's CTE `m` (and, `gated`,
     * reading the statement's CTE `ok`, so that nothing is locked or
     * notified when it has no row).
     */
    const messageEvents = (
      realmId: RealmId,
      now: number,
      events: ReadonlyArray<NewLoggedEvent>,
      notice: string | undefined,
      gated: boolean
    ) => {
      const ok = gated ? " FROM ok" : ""
      if (events.length === 0) return sql.literal("")
      if (isPglite && events.length <= fewRows) {
        return sql`,
          l AS (
            INSERT INTO events (realm_id, created_at, event_type, payload, user_ids, requires)
            SELECT ${realmId}, ${now}, e.t, ${withNewId("e.p")}, e.u, e.r
            FROM m, (VALUES ${
          sql.join(",", false)(events.map((event, i) =>
            sql`(${event.payload.type}, ${JSON.stringify(event.payload)}::jsonb,
                ${jsonOrNull(event.user_ids)}::jsonb, ${jsonOrNull(event.requires)}::jsonb, ${i}::int)`
          ))
        }) AS e(t, p, u, r, n)
            ORDER BY e.n
          )`
      }
      return sql`,
          ${isPglite ? sql.literal("") : sql`locked AS (SELECT pg_advisory_xact_lock(${lockKey(realmId)}::bigint)${sql.literal(ok)}),`}
          ${notice === undefined ? sql.literal("") : sql`notified AS (SELECT pg_notify(${NotifyChannel}, ${notice})${sql.literal(ok)}),`}
          l AS (
            INSERT INTO events (realm_id, created_at, event_type, payload, user_ids, requires)
            SELECT ${realmId}, ${now}, e.v->>'t', ${withNewId("(e.v->'p')")}, NULLIF(e.v->'u', 'null'::jsonb),
              NULLIF(e.v->'r', 'null'::jsonb)
            FROM ${isPglite ? sql.literal("") : sql.literal("locked,")} ${notice === undefined ? sql.literal("") : sql.literal("notified,")}
              m, jsonb_array_elements(${
        JSON.stringify(events.map((event) => ({ t: event.payload.type, p: event.payload, u: event.user_ids, r: event.requires })))
      }::jsonb) WITH ORDINALITY AS e(v, n)
            ORDER BY e.n
          )`
    }
    const eventLog = SqlEventLog.of({
      messageEvents: (realmId, now, events, gated) => {
        if (events.length === 0) return { ctes: sql.literal(""), afterCommit: Effect.void }
        const signal = eventsSignal(realmId, events)
        return {
          ctes: messageEvents(realmId, now, events, notifiesInStatement ? notice(signal) : undefined, gated),
          afterCommit: tx.afterCommit(notifiesInStatement ? Effect.sync(() => dispatch(signal)) : broadcast(signal))
        }
      }
    })

    // What every poll reads and writes (its queue, the log, its
    // acknowledgement, its blocked mark, its heartbeat), batched across the
    // polls an event (or the heartbeat timer) wakes at once and the requests
    // that arrive together: one statement each for all of them, instead of
    // one per poll (a round trip on PostgreSQL, a query in this thread on
    // PGlite). effect's `RequestResolver` collects the calls of every fiber
    // until the end of the event loop's turn (its default delay, a
    // scheduler yield), so a lone call costs next to nothing more. Inside a transaction a call runs
    // alone, on the transaction's connection: a batch runs outside it (it
    // would miss the transaction's rows, and wait for it on PGlite's one
    // connection).
    const batched = <Req, Res>(
      alone: (request: Req) => Effect.Effect<Res>,
      runMany: (requests: ReadonlyArray<Req>) => Effect.Effect<ReadonlyArray<Res>>
    ) => {
      interface Call extends Request.Request<Res> {
        readonly input: Req
      }
      const call = Request.of<Call>()
      // One result per request, in the requests' order.
      const resolver = RequestResolver.make<Call>((entries) =>
        Effect.map(runMany(entries.map((entry) => entry.request.input)), (results) => {
          entries.forEach((entry, i) => entry.completeUnsafe(Exit.succeed(results[i]!)))
        })
      )
      return (request: Req): Effect.Effect<Res> =>
        Effect.flatMap(
          Effect.serviceOption(sql.transactionService),
          (open) => Option.isSome(open) ? alone(request) : Effect.request(call({ input: request }), resolver)
        )
    }
    /** A JSON array of the given texts, for `IN (SELECT jsonb_array_elements_text(...))`: any text is safe in it. */
    const textList = (texts: ReadonlyArray<string>) => JSON.stringify(Array.from(new Set(texts)))

    const findQueue = batched(
      (id: string) =>
        sql<Row>`SELECT * FROM event_queues WHERE id = ${id}`.pipe(
          Effect.map((rows) => (rows.length === 0 ? undefined : decodeQueue(rows[0]!))),
          Effect.orDie
        ),
      (ids) =>
        sql<Row>`SELECT * FROM event_queues WHERE id IN (SELECT jsonb_array_elements_text(${textList(ids)}::jsonb))`.pipe(
          Effect.map((rows) => {
            const found = new Map(rows.map((row) => [String(row.id), row]))
            return ids.map((id) => {
              const row = found.get(id)
              return row === undefined ? undefined : decodeQueue(row)
            })
          }),
          Effect.orDie
        )
    )

    /**
     * Sets columns of queues (`values`: a column's value for a request): one
     * UPDATE for a whole batch, where a queue's last request wins, as it
     * would had it run alone after the others (alone, a batch of one).
     */
    const setColumns = <A extends { readonly id: string }>(values: Record<string, (request: A) => number | null>) => {
      const names = Object.keys(values)
      const assignments = sql.literal(names.map((name) => `${name} = v.${name}`).join(", "))
      const types = sql.literal(names.map((name) => `, ${name} bigint`).join(""))
      const update = (requests: ReadonlyArray<A>) => {
        const last = new Map(requests.map((request) => [request.id, request]))
        const row = (request: A) =>
          Object.fromEntries([["id", request.id], ...names.map((name) => [name, values[name]!(request)])])
        const rows = JSON.stringify(Array.from(last.values(), row))
        return sql`
          UPDATE event_queues AS q SET ${assignments}
          FROM jsonb_to_recordset(${rows}::jsonb) AS v(id text${types})
          WHERE q.id = v.id`.pipe(Effect.as(requests.map(() => undefined)), Effect.orDie)
      }
      return batched((request: A) => Effect.asVoid(update([request])), update)
    }

    const markBlocked = setColumns<{ readonly id: string; readonly now: number; readonly blockedUntil: number }>({
      last_connected: (request) => request.now,
      blocked_until: (request) => request.blockedUntil
    })
    const saveAck = setColumns<{ readonly id: string; readonly ack: Parameters<EventStore["Service"]["saveAck"]>[1] }>({
      acked_id: (request) => request.ack.acked_id,
      cursor_id: (request) => request.ack.cursor_id,
      heartbeat_id: (request) => request.ack.heartbeat_id
    })
    const markUnblocked = setColumns<{ readonly id: string }>({ blocked_until: () => 0 })
    const setHeartbeat = setColumns<{ readonly id: string; readonly heartbeatId: number }>({
      heartbeat_id: (request) => request.heartbeatId
    })

    /**
     * `count` fresh ids from the log's sequence for heartbeats of the
     * organization, ascending. Its lock is taken first, so an append in
     * flight there commits before the ids are handed out: they come after
     * every committed event of the organization. One statement, its own
     * transaction when alone (the lock lasts as long as it), as an append's.
     */
    const takeIds = (realmId: RealmId, count: number) =>
      sql<{ id: unknown }>`
        WITH locked AS (SELECT pg_advisory_xact_lock(${lockKey(realmId)}::bigint))
        SELECT nextval(pg_get_serial_sequence('events', 'id')) AS id FROM locked, generate_series(1, ${count}::integer)`.pipe(
        Effect.map((rows) => rows.map((row) => Number(row.id)).sort((a, b) => a - b)),
        Effect.orDie
      )
    // The heartbeats that come due together (the shared timer wakes their
    // polls at once) take their ids in one statement per organization, the
    // organizations side by side: each statement holds one lock, as an
    // append does, so none waits for a lock while holding another.
    const nextId = batched(
      (realmId: RealmId) => Effect.map(takeIds(realmId, 1), (ids) => ids[0]!),
      (realmIds) => {
        const byRealm = new Map<RealmId, Array<number>>()
        realmIds.forEach((realmId, i) => {
          const indexes = byRealm.get(realmId)
          if (indexes === undefined) byRealm.set(realmId, [i])
          else indexes.push(i)
        })
        const ids = new Array<number>(realmIds.length)
        return Effect.as(
          Effect.forEach(
            byRealm,
            ([realmId, indexes]) =>
              Effect.map(takeIds(realmId, indexes.length), (taken) => indexes.forEach((index, k) => ids[index] = taken[k]!)),
            { concurrency: "unbounded", discard: true }
          ),
          ids
        )
      }
    )

    interface ReadRequest {
      readonly realmId: RealmId
      readonly userId: UserId
      readonly after: number
      readonly upTo: number | undefined
    }
    const read = batched(
      ({ after, realmId, upTo, userId }: ReadRequest) =>
        sql<Row>`
          SELECT id, realm_id, event_type, payload, user_ids, requires FROM events
          WHERE realm_id = ${realmId} AND id > ${after}
            AND id <= ${upTo ?? Number.MAX_SAFE_INTEGER}
            AND (user_ids IS NULL OR user_ids @> ${JSON.stringify([userId])}::jsonb)
          ORDER BY id`.pipe(Effect.map((rows) => rows.map(decodeEvent)), Effect.orDie),
      // Each event once, with the requests (their index) that take it: the
      // same window and audience test as a read alone.
      (requests) => {
        const windows = JSON.stringify(requests.map((r, i) => ({
          i,
          r: r.realmId,
          u: r.userId,
          a: r.after,
          t: r.upTo ?? Number.MAX_SAFE_INTEGER
        })))
        return sql<Row>`
          SELECT e.id, e.realm_id, e.event_type, e.payload, e.user_ids, e.requires, json_agg(w.i) AS readers
          FROM jsonb_to_recordset(${windows}::jsonb) AS w(i int, r bigint, u bigint, a bigint, t bigint)
          JOIN events e ON e.realm_id = w.r AND e.id > w.a AND e.id <= w.t
            AND (e.user_ids IS NULL OR e.user_ids @> jsonb_build_array(w.u))
          GROUP BY e.id
          ORDER BY e.id`.pipe(
          Effect.map((rows) => {
            const found = requests.map((): Array<LoggedEvent> => [])
            for (const row of rows) {
              const event = decodeEvent(row)
              for (const i of json<ReadonlyArray<number>>(row.readers)) found[i]!.push(event)
            }
            return found
          }),
          Effect.orDie
        )
      }
    )

    const store = EventStore.of({
      append,
      // PGlite has one connection: transactions already run one at a time.
      lockLog: (realmId) =>
        isPglite ? Effect.void : sql`SELECT pg_advisory_xact_lock(${lockKey(realmId)}::bigint)`.pipe(Effect.asVoid, Effect.orDie),
      highWaterMark: (realmId) =>
        sql<{ id: unknown }>`SELECT COALESCE(MAX(id), 0) AS id FROM events WHERE realm_id = ${realmId}`.pipe(
          Effect.map((rows) => Number(rows[0]?.id ?? 0)),
          Effect.orDie
        ),
      read: (realmId, userId, after, upTo) => read({ realmId, userId, after, upTo }),
      nextId,
      insertQueue: (q) =>
        sql`
          INSERT INTO event_queues (id, realm_id, user_id, options, created_at, lifespan_secs, last_connected,
            blocked_until, acked_id, cursor_id, heartbeat_id)
          VALUES (${q.id}, ${q.realm_id}, ${q.user_id}, ${JSON.stringify(q.options)}::jsonb, ${q.created_at},
            ${q.lifespan_secs}, ${q.last_connected}, ${q.blocked_until}, ${q.acked_id}, ${q.cursor_id},
            ${q.heartbeat_id})`.pipe(Effect.asVoid, Effect.orDie),
      findQueue,
      saveAck: (id, ack) => saveAck({ id, ack }),
      setHeartbeat: (id, heartbeatId) => setHeartbeat({ id, heartbeatId }),
      markBlocked: (id, now, blockedUntil) => markBlocked({ id, now, blockedUntil }),
      markUnblocked: (id) => markUnblocked({ id }),
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
      pruneLog: Effect.flatMap(Clock.currentTimeMillis, (now) => sql<{ id: unknown }>`
        DELETE FROM events e
        WHERE e.created_at < ${now - 120_000} AND e.id <= COALESCE(
          (SELECT MIN(q.cursor_id) FROM event_queues q WHERE q.realm_id = e.realm_id),
          (SELECT MAX(x.id) FROM events x WHERE x.realm_id = e.realm_id)
        )
        RETURNING e.id`).pipe(Effect.map((rows) => rows.length), Effect.orDie),
      signal: broadcast,
      onSignal
    })
    return Context.make(EventStore, store).pipe(Context.add(SqlEventLog, eventLog))
  })
)
