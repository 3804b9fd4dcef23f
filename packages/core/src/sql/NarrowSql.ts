/**
 * The SQL interpreter of a resolved narrow: one WHERE condition over the
 * `messages` row aliased `m` and an expression for the viewer's flags
 * (`um.flags` over the viewer's rows, or `COALESCE(um.flags, read |
 * historical)` when channel history without rows is included).
 *
 * Every value is a statement parameter. Every condition is TRUE or FALSE,
 * never NULL (direct messages have a NULL `channel_id` and `dm_key` only on
 * one side), so `NOT (…)` negates exactly like the in-memory predicate.
 *
 * @since 0.1.0
 */
import type * as Statement from "effect/sql/Statement"
import { FlagBits, MentionBits } from "../domain/Message.ts"
import { inIds } from "./SqlArrays.ts"
import type { HasOperand, IsOperand, Narrow, Term } from "../narrow/Narrow.ts"
import { ResolvedTopicPrefix } from "../narrow/Narrow.ts"

type Sql = Statement.Constructor
type Fragment = Statement.Fragment

/** `LIKE` pattern for a substring, escaping `\`, `%` and `_` (the default escape is `\`). */
const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, "\\$&")}%`

const isCondition = (sql: Sql, flag: IsOperand, flags: Fragment): Fragment => {
  switch (flag) {
    case "dm":
      return sql`m.type = 'private'`
    case "starred":
      return sql`(${flags} & ${FlagBits.starred}::integer) <> 0`
    case "unread":
      return sql`(${flags} & ${FlagBits.read}::integer) = 0`
    case "mentioned":
      return sql`(${flags} & ${MentionBits}::integer) <> 0`
    case "alerted":
      return sql`(${flags} & ${FlagBits.has_alert_word}::integer) <> 0`
    case "resolved":
      return sql`starts_with(m.topic, ${ResolvedTopicPrefix}::text)`
    case "followed":
      // No per-topic visibility policies are stored yet.
      return sql.literal("FALSE")
  }
}

const hasCondition = (sql: Sql, what: HasOperand): Fragment => {
  switch (what) {
    case "attachment":
      return sql`m.has_attachment`
    case "image":
      return sql`m.has_image`
    case "link":
      return sql`m.has_link`
    case "reaction":
      return sql`EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)`
  }
}

/** One term's condition, before negation. @category interpreters */
export const termCondition = (sql: Sql, term: Term, flags: Fragment): Fragment => {
  switch (term._tag) {
    case "Channel":
      return sql`(m.channel_id IS NOT NULL AND m.channel_id = ${term.channelId})`
    case "ChannelSet":
      return term.channelIds.length === 0
        ? sql.literal("FALSE")
        : sql`(m.channel_id IS NOT NULL AND ${inIds(sql, "m.channel_id", term.channelIds)})`
    case "Topic":
      return sql`(m.channel_id IS NOT NULL AND lower(m.topic) = lower(${term.topic}::text))`
    case "Sender":
      return sql`m.sender_id = ${term.userId}`
    case "Dm":
      return term.participants.length === 0
        ? sql.literal("FALSE")
        : sql`(m.dm_key IS NOT NULL AND m.dm_key = ${term.participants.join(",")}::text)`
    case "DmIncluding":
      return sql`(m.dm_key IS NOT NULL AND m.dm_user_ids @> ${JSON.stringify(term.userIds)}::jsonb)`
    case "GroupDm":
      return sql`(m.dm_key IS NOT NULL AND jsonb_array_length(m.dm_user_ids) >= 3 AND m.dm_user_ids @> ${
        JSON.stringify(term.userIds)
      }::jsonb)`
    case "Is":
      return isCondition(sql, term.flag, flags)
    case "Has":
      return hasCondition(sql, term.what)
    case "Id":
      return sql`m.id = ${term.messageId}`
    case "Search": {
      const text = sql`m.search_tsv @@ plainto_tsquery('simple'::regconfig, ${term.query}::text)`
      const phrases = term.phrases.map((phrase) => {
        const pattern = containsPattern(phrase)
        return sql`(m.content ILIKE ${pattern}::text OR m.topic ILIKE ${pattern}::text)`
      })
      return sql.and([text, ...phrases])
    }
  }
}

/**
 * The condition of every term (TRUE for none), for `WHERE … AND ${…}`.
 *
 * @category interpreters
 */
export const narrowCondition = (sql: Sql, narrow: Narrow | ReadonlyArray<Term>, flags: Fragment): Fragment => {
  const terms = "terms" in narrow ? narrow.terms : narrow
  if (terms.length === 0) return sql.literal("TRUE")
  return sql.and(terms.map((term) => {
    const condition = termCondition(sql, term, flags)
    return "negated" in term && term.negated ? sql`NOT (${condition})` : condition
  }))
}
