/**
 * Blockquotes, with Zulip's two departures from CommonMark: quoted mentions
 * are silent (quoting a message must not notify its mentions again), and a
 * quote made only of empty `>` lines is plain text, so a lone `>` shows as
 * `>`.
 *
 * @internal
 */
import type { MarkdownIt, StateBlock } from "markdown-it"
import type { StateCore } from "./inlineRules.ts"
import { renderState } from "./renderState.ts"

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean

/** Declines a blockquote whose `>` lines are all empty up to a blank line or the end. */
const notEmptyQuote = (original: BlockRule): BlockRule => (state, startLine, endLine, silent) => {
  for (let line = startLine; line < endLine && !state.isEmpty(line); line++) {
    const text = state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]!)
    if (!/^>\s*$/.test(text)) return original(state, startLine, endLine, silent)
  }
  return false
}

/** Core `inline` replacement: parses each inline block knowing whether it is quoted. */
const inlineKnowingQuotes = (state: StateCore): void => {
  const render = renderState(state.env)
  let depth = 0
  for (const token of state.tokens) {
    if (token.type === "blockquote_open") depth++
    else if (token.type === "blockquote_close") depth--
    else if (token.type === "inline") {
      render.inQuote = depth > 0
      state.md.inline.parse(token.content, state.md, state.env, token.children ?? (token.children = []))
    }
  }
  render.inQuote = false
}

export const installQuotes = (md: MarkdownIt): void => {
  const rule = md.block.ruler.__rules__.find((r) => r.name === "blockquote")
  if (rule === undefined) throw new Error("markdown-it has no blockquote rule")
  md.block.ruler.at("blockquote", notEmptyQuote(rule.fn), { alt: rule.alt })
  md.core.ruler.at("inline", inlineKnowingQuotes)
}
