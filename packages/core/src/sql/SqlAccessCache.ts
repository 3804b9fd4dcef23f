/**
 * AccessCache on SQL: the organization's access version read from
 * `access_versions` (see `ports/AccessCache.ts` for the design), kept
 * outside transactions until the database's `teamchat_access` notice for
 * the organization or this process's own committed change to it; read on
 * every request while the process does not hear the notices.
 *
 * @since 0.1.0
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { PgClient as PgClientTag } from "@effect/sql-pg/PgClient"
import * as PgConnection from "@effect/sql-pg/PgConnection"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type { AccessRead } from "../domain/AccessState.ts"
import { RealmId } from "../domain/Ids.ts"
import { LruMap } from "../domain/LruMap.ts"
import { AccessCache, keptOrganizations } from "../ports/AccessCache.ts"
import { PgliteClient } from "./PgliteClient.ts"

/** The notice channel of migrations `0008_access_change_notices` and `0018_access_change_notices_everywhere`. */
const noticeChannel = "teamchat_access"

/** Waits between attempts to listen again: 100 ms doubling up to 5 s, jittered, as the event store's. */
const relistenSchedule = Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("5 seconds")]).pipe(
  Schedule.jittered
)

/** What this process learns of access changes, for `AccessNotices`. */
type Happening =
  | { readonly _tag: "Notice"; readonly realmId: RealmId | undefined; readonly at: number }
  | { readonly _tag: "LocalChange"; readonly realmId: RealmId | undefined; readonly at: number }
  | { readonly _tag: "Listening" }
  | { readonly _tag: "Lost" }

/**
 * How this process hears of access changes, observed: for tests and
 * diagnostics (the two-process test measures a notice's delivery with it).
 * Times are `performance.now()` milliseconds: real time, whatever Clock the
 * domain runs on.
 *
 * @category services
 */
export class AccessNotices extends Context.Service<AccessNotices, {
  /** Whether kept versions answer now (notices are heard); otherwise every request reads the version. */
  readonly listening: Effect.Effect<boolean>
  /** Completes once notices are heard (at once when they are). */
  readonly whenListening: Effect.Effect<void>
  /** Registers now; the inner effect completes when the LISTEN connection is next lost. */
  readonly nextLoss: Effect.Effect<Effect.Effect<void>>
  /** Registers now; the inner effect answers when the next notice for the organization arrives. */
  readonly nextNotice: (realmId: RealmId) => Effect.Effect<Effect.Effect<number>>
  /** Registers now; the inner effect answers when this process next commits a change to the organization. */
  readonly nextLocalChange: (realmId: RealmId) => Effect.Effect<Effect.Effect<number>>
}>()("teamchat/core/sql/AccessNotices") {}

/** A notice's organization; undefined for an unreadable payload (everything is forgotten then). */
const realmOfPayload = (payload: string): RealmId | undefined =>
  Option.getOrUndefined(RealmId.makeOption(Number(payload)))

/**
 * The cache keeping the reads of the `organizations` most recently used
 * organizations (and as many known versions), with its notices.
 *
 * @category layers
 */
export const layerWith = (options: {
  readonly organizations: number
}): Layer.Layer<AccessCache | AccessNotices, never, SqlClient.SqlClient> =>
  Layer.effectContext(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The simple protocol skips the extended one's parse/describe/bind
    // steps (on PGlite 0.34 → 0.22 ms). The id is an integer, written into the text.
    const read = (realmId: RealmId) =>
      sql.unsafe<{ version: unknown }>(
        `SELECT version FROM access_versions WHERE realm_id = ${Math.trunc(Number(realmId))}`
      ).unprepared.pipe(
        Effect.map((rows) => (rows.length === 0 ? null : Number(rows[0]!.version))),
        Effect.orDie
      )
    const entries = new LruMap<RealmId, AccessRead>(options.organizations)

    // Versions read outside transactions while listening, each standing
    // until a notice or a local change for its organization. Every such
    // event moves `generation`: a read begun before it (its result may
    // predate the change) is not kept.
    const known = new LruMap<RealmId, number>(options.organizations)
    let generation = 0
    let listening = false
    const observers = new Set<(happening: Happening) => void>()
    const tell = (happening: Happening) => {
      for (const observer of observers) observer(happening)
    }
    const forget = (realmId: RealmId | undefined) => {
      generation++
      if (realmId === undefined) known.clear()
      else known.delete(realmId)
    }
    const noticed = (payload: string) => {
      const realmId = realmOfPayload(payload)
      forget(realmId)
      if (observers.size > 0) tell({ _tag: "Notice", realmId, at: performance.now() })
    }
    const setListening = (now: boolean) => {
      // Either way nothing kept survives: notices may have been missed.
      forget(undefined)
      listening = now
      tell(now ? { _tag: "Listening" } : { _tag: "Lost" })
    }

    const pg = yield* Effect.serviceOption(PgClientTag)
    const pglite = yield* Effect.serviceOption(PgliteClient)
    if (Option.isSome(pg)) {
      yield* listenOnPostgres(pg.value, noticed, setListening)
    } else if (Option.isSome(pglite)) {
      // One process owns the database: its notices come in process, and
      // the connection is never lost.
      const stop = pglite.value.pglite.onNotification((channel, payload) => {
        if (channel === noticeChannel) noticed(payload)
      })
      yield* Effect.addFinalizer(() => Effect.sync(stop))
      yield* sql.unsafe(`LISTEN ${noticeChannel}`).unprepared.pipe(Effect.orDie)
      setListening(true)
    }
    // Another SqlClient: no notices, the version is read on every request.

    const version = (realmId: RealmId): Effect.Effect<number | null> =>
      Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) => {
        if (Option.isSome(transaction) || !listening) return read(realmId)
        const current = known.get(realmId)
        if (current !== undefined) return Effect.succeed(current)
        const before = generation
        return Effect.map(read(realmId), (value) => {
          if (value !== null && listening && generation === before) known.set(realmId, value)
          return value
        })
      })

    const verify = (realmId: RealmId): Effect.Effect<number | null> =>
      Effect.map(read(realmId), (value) => {
        if (known.has(realmId) && known.get(realmId) !== value) forget(realmId)
        return value
      })

    const changed = (realmId: RealmId | undefined): Effect.Effect<void> =>
      sql.afterCommit(Effect.sync(() => {
        forget(realmId)
        if (observers.size > 0) tell({ _tag: "LocalChange", realmId, at: performance.now() })
      }))

    /** Registers an observer now; the inner effect waits for the first happening `pick` answers for. */
    const next = <A>(pick: (happening: Happening) => A | undefined): Effect.Effect<Effect.Effect<A>> =>
      Effect.map(Deferred.make<A>(), (deferred) => {
        const observer = (happening: Happening) => {
          const picked = pick(happening)
          if (picked === undefined) return
          observers.delete(observer)
          Deferred.doneUnsafe(deferred, Effect.succeed(picked))
        }
        observers.add(observer)
        return Effect.ensuring(Deferred.await(deferred), Effect.sync(() => observers.delete(observer)))
      })
    const about = (tag: "Notice" | "LocalChange", realmId: RealmId) => (happening: Happening) =>
      happening._tag === tag && (happening.realmId === undefined || happening.realmId === realmId)
        ? happening.at
        : undefined

    const notices = AccessNotices.of({
      listening: Effect.sync(() => listening),
      whenListening: Effect.suspend(() =>
        listening ? Effect.void : Effect.flatten(next((h) => (h._tag === "Listening" ? true : undefined)))
      ),
      nextLoss: Effect.map(next((h) => (h._tag === "Lost" ? true : undefined)), Effect.asVoid),
      nextNotice: (realmId) => next(about("Notice", realmId)),
      nextLocalChange: (realmId) => next(about("LocalChange", realmId))
    })
    // Where reading the version is a round trip (PostgreSQL), requests that
    // can check it in their own first statement defer it (see the port).
    const cache = AccessCache.of({ version, verify, entries, deferrable: Option.isSome(pg), changed })
    return Context.make(AccessCache, cache).pipe(Context.add(AccessNotices, notices))
  }))

/** @category layers */
export const layer: Layer.Layer<AccessCache | AccessNotices, never, SqlClient.SqlClient> = layerWith({
  organizations: keptOrganizations
})

/** The `application_name` of the connections that listen for access notices. */
export const listenerApplicationName = "teamchat access notices"

/**
 * LISTEN on a connection of its own (outside the pool, so requests keep
 * every pooled connection), forked in the layer's scope; when that
 * connection is lost (PostgreSQL restarted, a network blip, the backend
 * terminated) listens again on a new one. `setListening(true)` once
 * PostgreSQL confirms each LISTEN, `false` at each loss.
 */
const listenOnPostgres = (
  pg: PgClient.PgClient,
  noticed: (payload: string) => void,
  setListening: (listening: boolean) => void
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.asVoid(Effect.forkScoped(Effect.gen(function*() {
    /** One session: notices until the connection fails (the result). */
    const session = Effect.scoped(Effect.gen(function*() {
      const connection = yield* PgConnection.make({ ...pg.config, applicationName: listenerApplicationName })
      const queue = yield* connection.listen(noticeChannel)
      yield* Effect.sync(() => setListening(true))
      return yield* Effect.flip(Effect.forever(Effect.map(Queue.take(queue), (notice) => noticed(notice.payload))))
    }))
    while (true) {
      const lost = yield* Effect.retry(session, relistenSchedule)
      setListening(false)
      // Once per loss: the attempts that follow fail quietly until one listens.
      yield* Effect.logWarning(
        "Access LISTEN connection lost; every request reads its organization's access version until it listens again",
        lost
      )
    }
  })))
