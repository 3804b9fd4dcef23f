/**
 * markdown-it's plain-text rule, stopping also at whitespace and at
 * `' " ( , /`. Zulip's links, mentions and channel links may start right
 * after those characters, in the middle of what markdown-it would otherwise
 * swallow as one run of text, so the rules for them must get a look there.
 *
 * @internal
 */
import type { InlineRule } from "./inlineRules.ts"

/** markdown-it's own stops, then the extra ones. */
const stops: ReadonlySet<number> = new Set(
  [..."\n!#$%&*+-:<=>@[\\]^_`{}~", ..." \t'\"(,/"].map((c) => c.charCodeAt(0))
)

export const textRule: InlineRule = (state, silent) => {
  let pos = state.pos
  while (pos < state.posMax && !stops.has(state.src.charCodeAt(pos))) pos++
  if (pos === state.pos) return false
  if (!silent) state.pending += state.src.slice(state.pos, pos)
  state.pos = pos
  return true
}
