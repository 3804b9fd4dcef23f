/**
 * Small shared pieces of Zulip's inline syntax rules: the markdown-it rule
 * signature, the boundary a mention or channel link must follow, and how a
 * rule emits finished HTML.
 *
 * @internal
 */
import type { StateCore, StateInline, Token } from "markdown-it"

export type { StateCore, StateInline, Token }
export type InlineRule = (state: StateInline, silent: boolean) => boolean

/** Type of the inline tokens whose `content` is finished HTML. */
export const htmlToken = "zulip_html"

export const pushHtml = (state: StateInline, html: string): void => {
  state.push(htmlToken, "", 0).content = html
}

/** Python's `\w`, which Zulip's patterns use (Unicode letters and digits). */
export const isWordChar = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch)

/**
 * Mentions and channel links start a message, follow whitespace or one of
 * `' " ( { [ / <` — never the middle of a word or an email address.
 */
export const atMentionBoundary = (src: string, pos: number): boolean =>
  pos === 0 || /[\s'"({[/<]/.test(src[pos - 1]!)

/** Runs a sticky pattern at the current position, within the rule's range. */
export const matchHere = (pattern: RegExp, state: StateInline): RegExpExecArray | null => {
  pattern.lastIndex = state.pos
  const match = pattern.exec(state.src)
  return match !== null && match.index + match[0].length <= state.posMax ? match : null
}

/** Parses `src[from, to)` as inline Markdown between the tokens already pushed. */
export const tokenizeRange = (state: StateInline, from: number, to: number): void => {
  const max = state.posMax
  state.pos = from
  state.posMax = to
  state.md.inline.tokenize(state)
  state.posMax = max
}
