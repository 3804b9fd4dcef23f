/**
 * PostgreSQL's autovacuum for PGlite, which runs none: PGlite is a single
 * backend, without the autovacuum launcher. Without it, every update leaves
 * a dead row behind for good (a presence ping writes one row per user per
 * minute: a 1,000-user organization leaves 1.4 million a day) and the
 * planner's statistics stay those of the empty tables the migrations made,
 * so it takes sequential scans of ever-growing tables for index lookups.
 *
 * Each pass picks the tables PostgreSQL's autovacuum would, with its default
 * thresholds (a vacuum past 50 dead rows plus 20 % of the live ones, an
 * analyze past 50 changed rows plus 10 %), and vacuums or analyzes them one
 * statement at a time, so other statements wait for one table at most.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"

/** PostgreSQL's defaults (autovacuum_vacuum_threshold, _scale_factor; autovacuum_analyze_…). */
const thresholds = { vacuum: 50, vacuumScale: 0.2, analyze: 50, analyzeScale: 0.1 } as const

/**
 * Seconds between passes: PostgreSQL's autovacuum_naptime is 60, but its workers
 * run beside the other backends, and here a pass holds the one connection;
 * frequent passes keep each one short (a pass that finds nothing is one query).
 */
export const defaultIntervalSeconds = 2

interface Candidate {
  readonly table: string
  readonly vacuum: boolean
}

/** One pass: the tables that need it vacuumed (and analyzed) or analyzed; returns what it did. */
export const autovacuumPass = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    // The thresholds are written into the text: as parameters, PostgreSQL
    // would type the scale factors as n_live_tup's bigint.
    const vacuum = `n_dead_tup > ${thresholds.vacuum} + ${thresholds.vacuumScale} * n_live_tup`
    const analyze = `n_mod_since_analyze > ${thresholds.analyze} + ${thresholds.analyzeScale} * n_live_tup`
    const candidates = yield* sql.unsafe<Candidate>(
      `SELECT quote_ident(schemaname) || '.' || quote_ident(relname) AS table, ${vacuum} AS vacuum
      FROM pg_stat_user_tables WHERE ${vacuum} OR ${analyze} ORDER BY relname`
    )
    for (const candidate of candidates) {
      yield* sql.unsafe(candidate.vacuum ? `VACUUM (ANALYZE) ${candidate.table}` : `ANALYZE ${candidate.table}`)
    }
    return candidates
  })
