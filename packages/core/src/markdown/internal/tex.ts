/**
 * Inline math, `$$...$$` on one line (not `$$_`, not inside a longer run of
 * dollars, not touching a word). There is no TeX engine here, so it shows as
 * Zulip shows TeX it cannot render: the escaped source, dollars included, in
 * a `tex-error` span. Nothing inside is interpreted as Markdown.
 *
 * @internal
 */
import { escapeText } from "./html.ts"
import type { InlineRule } from "./inlineRules.ts"
import { isWordChar, matchHere, pushHtml } from "./inlineRules.ts"

const texPattern = /\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)/y

export const texRule: InlineRule = (state, silent) => {
  const { src, pos } = state
  if (src.charCodeAt(pos) !== 0x24 || (pos > 0 && (src[pos - 1] === "$" || isWordChar(src[pos - 1])))) return false
  const match = matchHere(texPattern, state)
  if (match === null || isWordChar(src[pos + match[0].length])) return false
  if (!silent) pushHtml(state, `<span class="tex-error">${escapeText(match[0])}</span>`)
  state.pos += match[0].length
  return true
}
