/**
 * Message search on SQL: the narrow compiled to a condition (NarrowSql) over
 * `messages` and `user_messages` (the `0004_messages` schema), with the port's
 * shared range arithmetic.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type * as Statement from "effect/sql/Statement"
import { FlagBits } from "../domain/Message.ts"
import {
  byId,
  HistoricalFlags,
  LARGER_THAN_MAX_MESSAGE_ID,
  MessageSearch,
  planRange,
  postProcess,
  resolveAnchor
} from "../ports/MessageSearch.ts"
import type { MessageRow, RangeOptions, SearchQuery } from "../ports/MessageSearch.ts"
import { narrowCondition } from "./NarrowSql.ts"
import { inIds } from "./SqlArrays.ts"
import { decodeMessage, messageSelectList } from "./SqlMessageRepo.ts"

const make = (sql: SqlClient.SqlClient): MessageSearch["Service"] => {
  const columns = sql.literal(messageSelectList("m"))

  /** FROM, the candidate condition and the flags expression of a query. */
  const source = (query: SearchQuery, rowsOnly: boolean) => {
    if (rowsOnly || query.historyChannelIds === null) {
      return {
        from: sql`user_messages um JOIN messages m ON m.id = um.message_id`,
        where: sql`um.user_id = ${query.viewerId} AND m.realm_id = ${query.realmId}`,
        flags: sql`um.flags`
      }
    }
    return {
      from: sql`messages m LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${query.viewerId}`,
      where: sql`m.realm_id = ${query.realmId} AND (um.user_id IS NOT NULL OR ${
        inIds(sql, "m.channel_id", query.historyChannelIds)
      })`,
      flags: sql`COALESCE(um.flags, ${HistoricalFlags}::integer)`
    }
  }

  type Row = Readonly<Record<string, unknown>>
  const decodeRow = (row: Row): MessageRow => ({ message: decodeMessage(row), flags: Number(row.um_flags) })

  /** The version a range's statements reported, while `reportAccessVersion` asks for it. */
  interface Report {
    version: number | null | undefined
  }

  const select = (
    query: SearchQuery,
    extra: Statement.Fragment,
    order: "ASC" | "DESC",
    limit: number | null,
    rowsOnly = false,
    report?: Report
  ) => {
    const { from, flags, where } = source(query, rowsOnly)
    const condition = narrowCondition(sql, query.narrow, flags)
    const orderBy = sql.literal(order === "ASC" ? "ORDER BY m.id ASC" : "ORDER BY m.id DESC")
    const limitClause = limit === null ? sql.literal("") : sql`LIMIT ${limit}`
    // The access version at this statement's own snapshot, an uncorrelated
    // subquery PostgreSQL runs once (see `AccessCache.deferrable`); the id
    // is an integer, written into the text so the parameters stay the same.
    const reporting = report !== undefined && report.version === undefined
    const version = reporting
      ? sql.literal(`, (SELECT version FROM access_versions WHERE realm_id = ${Math.trunc(Number(query.realmId))}) AS access_version`)
      : sql.literal("")
    return sql<Row>`
      SELECT ${columns}, ${flags} AS um_flags${version}
      FROM ${from}
      WHERE ${where} AND ${condition} AND ${extra}
      ${orderBy} ${limitClause}`.pipe(
      Effect.map((rows) => {
        if (reporting && rows.length > 0) {
          const seen = rows[0]!.access_version
          report.version = seen === null || seen === undefined ? null : Number(seen)
        }
        return rows.map(decodeRow)
      }),
      Effect.orDie
    )
  }

  const firstUnread = Effect.fnUntraced(function*(query: SearchQuery, report: Report | undefined) {
    const excluded = query.narrow.firstUnreadExcludedChannelIds
    const notExcluded = excluded.length === 0
      ? sql.literal("TRUE")
      : sql`(m.channel_id IS NULL OR NOT ${inIds(sql, "m.channel_id", excluded)})`
    const unread = sql`(um.flags & ${FlagBits.read}::integer) = 0 AND ${notExcluded}`
    const rows = yield* select(query, unread, "ASC", 1, true, report)
    return rows.length === 0 ? LARGER_THAN_MAX_MESSAGE_ID : rows[0]!.message.id
  })

  return {
    // Every read's one call, inside the span of `Messages.fetch` (or of
    // `MessageFlags`): untraced, as a span's stack capture costs more than
    // the call's own work.
    fetchRange: Effect.fnUntraced(function*(query: SearchQuery, options: RangeOptions) {
      const report: Report | undefined = query.reportAccessVersion === true ? { version: undefined } : undefined
      const anchor = options.anchor._tag === "first_unread"
        ? yield* firstUnread(query, report)
        : resolveAnchor(options.anchor, () => LARGER_THAN_MAX_MESSAGE_ID)
      const plan = planRange(anchor, options.numBefore, options.numAfter, options.includeAnchor)
      const fetched: Array<MessageRow> = []
      if (plan.before !== null) {
        const bound = plan.before.upTo === null ? sql.literal("TRUE") : sql`m.id <= ${plan.before.upTo}`
        fetched.push(...(yield* select(query, bound, "DESC", plan.before.limit, false, report)))
      }
      if (plan.after !== null) {
        const bound = plan.after.from === null ? sql.literal("TRUE") : sql`m.id >= ${plan.after.from}`
        fetched.push(...(yield* select(query, bound, "ASC", plan.after.limit, false, report)))
      }
      if (plan.exact !== null) fetched.push(...(yield* select(query, sql`m.id = ${plan.exact}`, "ASC", null, false, report)))
      const range = postProcess(fetched.sort(byId), anchor, options.numBefore, options.numAfter)
      return report?.version === undefined ? range : { ...range, accessVersion: report.version }
    }),
    fetchIds: Effect.fn("MessageSearch.fetchIds")(function*(query: SearchQuery, ids: ReadonlyArray<number>) {
      const safe = ids.filter((id) => Number.isSafeInteger(id))
      if (safe.length === 0) return []
      return yield* select(query, inIds(sql, "m.id", safe), "ASC", null)
    })
  }
}

/** Over SqlClient (PostgreSQL or PGlite) with the `0004_messages` schema. */
export const layer: Layer.Layer<MessageSearch, never, SqlClient.SqlClient> = Layer.effect(
  MessageSearch,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return MessageSearch.of(make(sql))
  })
)
