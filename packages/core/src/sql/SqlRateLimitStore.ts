/**
 * Rate-limit windows in the database, shared by every server process on it:
 * one row per key holding the accepted request times (Unix ms) still in its
 * window. A hit is one statement: the insert-or-update locks the key's row,
 * drops the times that left the window and appends the new one when there is
 * room, so concurrent hits of one key from any process are counted in turn.
 * Rows whose window has emptied are deleted now and then.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { RateLimitStore, RateLimitStoreUnavailable } from "../ports/RateLimitStore.ts"
import type { Hit } from "../ports/RateLimitStore.ts"

/** Emptied rows are deleted every this many hits of a process. */
const sweepEvery = 5_000

const times = (text: unknown): Array<number> => String(text ?? "") === "" ? [] : String(text).split(",").map(Number)

/** @category layers */
export const layer: Layer.Layer<RateLimitStore, never, SqlClient.SqlClient> = Layer.effect(
  RateLimitStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    let hits = 0
    const unavailable = (cause: unknown) => new RateLimitStoreUnavailable({ store: "database", cause })

    const sweep = (now: number) =>
      sql`DELETE FROM rate_limit_windows WHERE expires_at <= ${now}`.pipe(Effect.ignore)

    return RateLimitStore.of({
      hit: Effect.fn("RateLimitStore.hit")(function*(key: string, requests: number, windowMs: number, now: number) {
        if (++hits % sweepEvery === 0) yield* sweep(now)
        const cutoff = now - windowMs
        const live = sql`ARRAY(SELECT t FROM unnest(w.times) AS t WHERE t > ${cutoff} ORDER BY t)`
        const rows = yield* sql<{ times: unknown; accepted: unknown }>`
          INSERT INTO rate_limit_windows AS w (key, times, expires_at, accepted)
          VALUES (${key}, ARRAY[${now}::bigint], ${now + windowMs}, TRUE)
          ON CONFLICT (key) DO UPDATE SET
            accepted = cardinality(${live}) < ${requests},
            times = CASE WHEN cardinality(${live}) < ${requests} THEN ${live} || ${now}::bigint ELSE ${live} END,
            expires_at = CASE WHEN cardinality(${live}) < ${requests} THEN ${now + windowMs}::bigint ELSE w.expires_at END
          RETURNING array_to_string(w.times, ',') AS times, w.accepted`.pipe(Effect.mapError(unavailable))
        const row = rows[0]
        if (row === undefined) return yield* unavailable("no row returned")
        const window = times(row.times)
        const accepted = row.accepted === true || row.accepted === "t"
        return accepted
          ? { accepted, count: window.length, oldest: 0, token: String(now) } satisfies Hit
          : { accepted, count: window.length, oldest: window[Math.max(0, window.length - requests)]!, token: "" } satisfies Hit
      }),
      uncount: Effect.fn("RateLimitStore.uncount")(function*(key: string, token: string) {
        const time = Number(token)
        if (!Number.isSafeInteger(time)) return
        // The latest occurrence of the time goes; the others stay.
        yield* sql`
          UPDATE rate_limit_windows AS w SET times = ARRAY(
            SELECT u.t FROM unnest(w.times) WITH ORDINALITY AS u(t, i)
            WHERE u.i <> (SELECT max(v.i) FROM unnest(w.times) WITH ORDINALITY AS v(t, i) WHERE v.t = ${time})
            ORDER BY u.i)
          WHERE w.key = ${key} AND ${time}::bigint = ANY(w.times)`.pipe(Effect.mapError(unavailable))
      }),
      clear: Effect.fn("RateLimitStore.clear")(function*(key: string) {
        yield* sql`DELETE FROM rate_limit_windows WHERE key = ${key}`.pipe(Effect.mapError(unavailable))
      })
    })
  })
)
