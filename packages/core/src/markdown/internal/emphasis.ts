/**
 * Zulip's emphasis, layered on markdown-it's: only `*` marks emphasis (`_foo_`
 * and `__foo__` stay text), a pair never spans a line break, `***x***` is
 * `<strong><em>x</em></strong>`, and `~~x~~` strikes through any text on one
 * line (spaces inside included). Link text is verbatim on the server, so no
 * emphasis is read there.
 *
 * @internal
 */
import type { Delimiter, MarkdownIt } from "markdown-it"
import type { InlineRule, StateInline } from "./inlineRules.ts"
import { matchHere, tokenizeRange } from "./inlineRules.ts"

const strongEmPattern = /\*\*\*(?!\s)([^*^\n]+)(?<!\s)\*\*\*/y
const strikePattern = /~~([^~\n]+?)~~(?!~)/y

export const strongEmRule: InlineRule = (state, silent) => {
  if (state.src.charCodeAt(state.pos) !== 0x2a || state.linkLevel > 0) return false
  const match = matchHere(strongEmPattern, state)
  if (match === null) return false
  const end = state.pos + match[0].length
  if (!silent) {
    state.push("strong_open", "strong", 1).markup = "**"
    state.push("em_open", "em", 1).markup = "*"
    tokenizeRange(state, state.pos + 3, end - 3)
    state.push("em_close", "em", -1).markup = "*"
    state.push("strong_close", "strong", -1).markup = "**"
  }
  state.pos = end
  return true
}

export const strikethroughRule: InlineRule = (state, silent) => {
  const { src, pos } = state
  if (src.charCodeAt(pos) !== 0x7e || src[pos - 1] === "~" || state.linkLevel > 0) return false
  const match = matchHere(strikePattern, state)
  if (match === null) return false
  const end = pos + match[0].length
  if (!silent) {
    state.push("s_open", "del", 1).markup = "~~"
    tokenizeRange(state, pos + 2, end - 2)
    state.push("s_close", "del", -1).markup = "~~"
  }
  state.pos = end
  return true
}

/** Wraps markdown-it's emphasis tokenizer: asterisks only, never in link text. */
export const asteriskOnly = (original: InlineRule): InlineRule => (state, silent) =>
  state.src.charCodeAt(state.pos) === 0x2a && state.linkLevel === 0 ? original(state, silent) : false

/**
 * Runs after delimiters are paired: a pair with a line break between its
 * ends is undone, leaving both runs as literal asterisks.
 */
export const singleLineEmphasis = (state: StateInline): void => {
  const unpair = (delimiters: Array<Delimiter>): void => {
    for (const opener of delimiters) {
      if (opener.marker !== 0x2a || opener.end < 0) continue
      const closer = delimiters[opener.end]!
      for (let i = opener.token + 1; i < closer.token; i++) {
        const type = state.tokens[i]!.type
        if (type === "softbreak" || type === "hardbreak") {
          opener.end = -1
          break
        }
      }
    }
  }
  unpair(state.delimiters)
  for (const meta of state.tokens_meta) if (meta?.delimiters !== undefined) unpair(meta.delimiters)
}

export const installEmphasis = (md: MarkdownIt): void => {
  const rule = md.inline.ruler.__rules__.find((r) => r.name === "emphasis")
  if (rule === undefined) throw new Error("markdown-it has no emphasis rule")
  md.inline.ruler.at("emphasis", asteriskOnly(rule.fn))
  md.inline.ruler.before("emphasis", "zulip_strong_em", strongEmRule)
  md.inline.ruler.at("strikethrough", strikethroughRule)
  md.inline.ruler2.after("balance_pairs", "zulip_single_line_emphasis", singleLineEmphasis)
}
