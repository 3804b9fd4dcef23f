/**
 * Message search in memory: the narrow's in-memory interpreter over the
 * MemoryDatabase tables, with the port's shared range arithmetic.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FlagBits } from "../domain/Message.ts"
import { compile } from "../narrow/NarrowPredicate.ts"
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
import { MemoryDatabase } from "./MemoryDatabase.ts"

const make = (db: MemoryDatabase["Service"]): MessageSearch["Service"] => {
  /** Every candidate of the query (rows, plus history when allowed) that matches, ascending. */
  const matching = (query: SearchQuery, rowsOnly: boolean): Array<MessageRow> => {
    const rows = db.tables.userMessages.get(query.viewerId)
    const history = rowsOnly || query.historyChannelIds === null ? null : new Set<number>(query.historyChannelIds)
    const test = compile(query.narrow)
    const out: Array<MessageRow> = []
    for (const message of db.tables.messages.values()) {
      if (message.realm_id !== query.realmId) continue
      let flags = rows?.get(message.id)
      if (flags === undefined) {
        if (history === null || message.channel_id === null || !history.has(message.channel_id)) continue
        flags = HistoricalFlags
      }
      if (test(message, flags)) out.push({ message, flags })
    }
    return out.sort(byId)
  }

  const firstUnread = (query: SearchQuery): number => {
    const excluded = new Set<number>(query.narrow.firstUnreadExcludedChannelIds)
    const found = matching(query, true).find((row) =>
      (row.flags & FlagBits.read) === 0 &&
      (row.message.channel_id === null || !excluded.has(row.message.channel_id))
    )
    return found === undefined ? LARGER_THAN_MAX_MESSAGE_ID : found.message.id
  }

  return {
    // Untraced, as the SQL one: inside the span of `Messages.fetch` (or of `MessageFlags`).
    fetchRange: Effect.fnUntraced(function*(query: SearchQuery, options: RangeOptions) {
      const anchor = resolveAnchor(options.anchor, () => firstUnread(query))
      const plan = planRange(anchor, options.numBefore, options.numAfter, options.includeAnchor)
      const rows = matching(query, false)
      const fetched: Array<MessageRow> = []
      if (plan.before !== null) {
        const { upTo, limit } = plan.before
        const side = upTo === null ? rows : rows.filter((r) => r.message.id <= upTo)
        fetched.push(...side.slice(Math.max(0, side.length - limit)))
      }
      if (plan.after !== null) {
        const { from, limit } = plan.after
        const side = from === null ? rows : rows.filter((r) => r.message.id >= from)
        fetched.push(...side.slice(0, limit))
      }
      if (plan.exact !== null) fetched.push(...rows.filter((r) => r.message.id === plan.exact))
      return postProcess(fetched.sort(byId), anchor, options.numBefore, options.numAfter)
    }),
    fetchIds: Effect.fn("MessageSearch.fetchIds")(function*(query: SearchQuery, ids: ReadonlyArray<number>) {
      const wanted = new Set(ids)
      return matching(query, false).filter((r) => wanted.has(r.message.id))
    })
  }
}

/** Over the MemoryDatabase tables. */
export const layer: Layer.Layer<MessageSearch, never, MemoryDatabase> = Layer.effect(
  MessageSearch,
  Effect.gen(function*() {
    const db = yield* MemoryDatabase
    return MessageSearch.of(make(db))
  })
)
