/**
 * The in-memory interpreter of a resolved narrow: a predicate over one
 * message and the viewer's flags for it.
 *
 * It must agree with `NarrowSql.ts` on every message; the property test in
 * test/narrow runs both on the same data. Text search reproduces
 * PostgreSQL's `to_tsvector('simple', topic || ' ' || content) @@
 * plainto_tsquery('simple', query)` with a subset of the default parser:
 *
 * - words are runs of letters (any script) and ASCII digits, lower-cased
 *   code point by code point (PostgreSQL's `lower` under a UTF-8 ctype);
 * - hyphenated words whose parts all contain a letter (`well-known`,
 *   `v2-beta`) give the whole compound plus each part;
 * - a digit run right after a `-` is a signed integer (`-42`, also the `-2`
 *   of `foo-2`, but not the `42` of `a-b-42`).
 *
 * Known differences, all outside plain words: PostgreSQL keeps emails
 * (`a@b.com`), hosts and file names (`x.com`, `a/b`), URLs, floats (`3.5`)
 * and versions (`1.2.3`) as single lexemes, and classifies a few non-ASCII
 * digits and marks differently; here those split at the punctuation.
 *
 * @since 0.1.0
 */
import type { Message } from "../domain/Message.ts"
import { FlagBits, MentionBits } from "../domain/Message.ts"
import type { HasOperand, IsOperand, Narrow, Term } from "./Narrow.ts"
import { ResolvedTopicPrefix } from "./Narrow.ts"

// ---------------------------------------------------------------------------
// Text search

/** PostgreSQL's `lower` on one code point: the first code point of the full lower-casing. */
const lowerChar = (ch: string): string => {
  const lower = ch.toLowerCase()
  return lower.length === ch.length ? lower : String.fromCodePoint(lower.codePointAt(0)!)
}

/** Lower-cases like PostgreSQL's `lower` (per code point, no expansion). @category text search */
export const pgLower = (text: string): string => {
  let out = ""
  for (const ch of text) out += ch.charCodeAt(0) < 128 ? ch.toLowerCase() : lowerChar(ch)
  return out
}

const wordChar = /[\p{L}0-9]/u
const letter = /\p{L}/u

/**
 * The lexemes of `text` under the `simple` configuration, in order (with
 * repeats, like `plainto_tsquery`'s operands).
 *
 * @category text search
 */
export const lexemes = (text: string): Array<string> => {
  const chars = Array.from(text)
  const out: Array<string> = []
  // A digit run right after a compound's trailing hyphen stays unsigned (`a-b-42`).
  let unsignedAt = -1
  let i = 0
  while (i < chars.length) {
    if (!wordChar.test(chars[i]!)) {
      i++
      continue
    }
    // A word: a maximal run of word characters.
    const start = i
    while (i < chars.length && wordChar.test(chars[i]!)) i++
    let word = chars.slice(start, i).join("")
    const parts = [word]
    // A hyphenated compound continues while single hyphens join word runs
    // that contain a letter.
    if (letter.test(word)) {
      let j = i
      while (j + 1 < chars.length && chars[j] === "-" && wordChar.test(chars[j + 1]!)) {
        let k = j + 1
        while (k < chars.length && wordChar.test(chars[k]!)) k++
        const part = chars.slice(j + 1, k).join("")
        if (!letter.test(part)) break
        parts.push(part)
        j = k
      }
      if (parts.length > 1) {
        word = parts.join("-")
        i = j
        unsignedAt = j + 1
      }
    }
    const signed = parts.length === 1 && start > 0 && chars[start - 1] === "-" && start !== unsignedAt &&
      /^[0-9]+$/.test(word)
    if (parts.length > 1) {
      out.push(pgLower(word))
      for (const part of parts) out.push(pgLower(part))
    } else {
      out.push(pgLower(signed ? `-${word}` : word))
    }
  }
  return out
}

/** Lexemes of a message's searchable text, computed once per (immutable) message record. */
const documentCache = new WeakMap<Message, ReadonlySet<string>>()
const documentLexemes = (message: Message): ReadonlySet<string> => {
  let set = documentCache.get(message)
  if (set === undefined) {
    set = new Set(lexemes(`${message.topic} ${message.content}`))
    documentCache.set(message, set)
  }
  return set
}

/**
 * `search_tsv @@ plainto_tsquery('simple', query)`: every lexeme of the
 * query is in the message's; a query without lexemes matches nothing.
 *
 * @category text search
 */
export const textMatches = (query: string, message: Message): boolean => {
  const wanted = lexemes(query)
  if (wanted.length === 0) return false
  const have = documentLexemes(message)
  return wanted.every((w) => have.has(w))
}

/** `ILIKE '%phrase%'` on content or topic. */
const phraseMatches = (phrase: string, message: Message): boolean => {
  const p = pgLower(phrase)
  return pgLower(message.content).includes(p) || pgLower(message.topic).includes(p)
}

// ---------------------------------------------------------------------------
// Terms

const includesAll = (haystack: ReadonlyArray<number>, needles: ReadonlyArray<number>): boolean =>
  needles.every((n) => haystack.includes(n))

const sameIds = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

/** A compiled term, before negation. */
type Test = (message: Message, flags: number) => boolean

/**
 * What the predicate needs beyond the message row: facts stored in other
 * tables (SQL reads them with a subquery).
 *
 * @category models
 */
export interface MessageFacts {
  /** Whether the message has at least one reaction. */
  readonly hasReaction: (messageId: number) => boolean
}

const never: Test = () => false

const isTest = (flag: IsOperand): Test => {
  switch (flag) {
    case "dm":
      return (m) => m.type === "private"
    case "starred":
      return (_, f) => (f & FlagBits.starred) !== 0
    case "unread":
      return (_, f) => (f & FlagBits.read) === 0
    case "mentioned":
      return (_, f) => (f & MentionBits) !== 0
    case "alerted":
      return (_, f) => (f & FlagBits.has_alert_word) !== 0
    case "resolved":
      return (m) => m.topic.startsWith(ResolvedTopicPrefix)
    case "followed":
      // No per-topic visibility policies are stored yet.
      return never
  }
}

const hasTest = (what: HasOperand, facts: MessageFacts): Test => {
  switch (what) {
    case "attachment":
      return (m) => m.has_attachment
    case "image":
      return (m) => m.has_image
    case "link":
      return (m) => m.has_link
    case "reaction":
      return (m) => facts.hasReaction(m.id)
  }
}

const compileTerm = (term: Term, facts: MessageFacts): Test => {
  switch (term._tag) {
    case "Channel":
      return (m) => m.channel_id === term.channelId
    case "ChannelSet": {
      const set = new Set<number>(term.channelIds)
      return (m) => m.channel_id !== null && set.has(m.channel_id)
    }
    case "Topic": {
      const topic = pgLower(term.topic)
      return (m) => m.channel_id !== null && pgLower(m.topic) === topic
    }
    case "Sender":
      return (m) => m.sender_id === term.userId
    case "Dm":
      return term.participants.length === 0
        ? never
        : (m) => m.type === "private" && sameIds(m.dm_user_ids, term.participants)
    case "DmIncluding":
      return (m) => m.type === "private" && includesAll(m.dm_user_ids, term.userIds)
    case "GroupDm":
      return (m) => m.type === "private" && m.dm_user_ids.length >= 3 && includesAll(m.dm_user_ids, term.userIds)
    case "Is":
      return isTest(term.flag)
    case "Has":
      return hasTest(term.what, facts)
    case "Id":
      return (m) => m.id === term.messageId
    case "Search":
      return (m) => textMatches(term.query, m) && term.phrases.every((p) => phraseMatches(p, m))
  }
}

/**
 * Compiles terms (or a narrow) into a predicate over a message and the
 * viewer's flags for it (`read | historical` for history without a row).
 *
 * @category interpreters
 */
export const compile = (
  narrow: Narrow | ReadonlyArray<Term>,
  facts: MessageFacts
): (message: Message, flags: number) => boolean => {
  const terms = "terms" in narrow ? narrow.terms : narrow
  const tests = terms.map((term): Test => {
    const test = compileTerm(term, facts)
    return "negated" in term && term.negated ? (m, f) => !test(m, f) : test
  })
  return (message, flags) => tests.every((test) => test(message, flags))
}

/**
 * Whether `message`, with the viewer's `flags`, matches every term.
 *
 * @category interpreters
 */
export const matches = (
  narrow: Narrow | ReadonlyArray<Term>,
  facts: MessageFacts,
  message: Message,
  flags: number
): boolean => compile(narrow, facts)(message, flags)
