/**
 * Paragraphs as Python-Markdown reads them: a paragraph loses only its
 * leading whitespace (trailing spaces stay, `test  ` renders `<p>test  </p>`),
 * a line break keeps the spaces around it (an indented continuation line
 * stays indented after its `<br>`), and inside a list item a nested list of
 * any kind may follow the item's text directly (`1. A\n   3. B` nests, where
 * CommonMark only lets a list starting at 1 interrupt a paragraph).
 *
 * @internal
 */
import type { MarkdownIt, StateBlock } from "markdown-it"
import type { InlineRule } from "./inlineRules.ts"

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean

const keepTrailingSpaces = (original: BlockRule): BlockRule => (state, startLine, endLine, silent) => {
  if (!original(state, startLine, endLine, silent)) return false
  const inline = state.tokens[state.tokens.length - 2]
  if (inline?.type === "inline") {
    inline.content = state.getLines(startLine, state.line, state.blkIndent, false).replace(/^[ \t\n]+/, "")
  }
  return true
}

/** Every line break is a `<br>` (Zulip's nl2br); nothing around it is trimmed. */
const lineBreakRule: InlineRule = (state, silent) => {
  if (state.src.charCodeAt(state.pos) !== 0x0a) return false
  if (!silent) state.push("softbreak", "br", 0)
  state.pos++
  return true
}

/** Inside list items, any list may end a paragraph. */
const nestedListsInterrupt = (original: BlockRule): BlockRule => (state, startLine, endLine, silent) => {
  if (!silent || state.parentType !== "paragraph" || state.listIndent < 0) {
    return original(state, startLine, endLine, silent)
  }
  state.parentType = "list"
  try {
    return original(state, startLine, endLine, silent)
  } finally {
    state.parentType = "paragraph"
  }
}

export const installParagraphs = (md: MarkdownIt): void => {
  const rule = md.block.ruler.__rules__.find((r) => r.name === "paragraph")
  if (rule === undefined) throw new Error("markdown-it has no paragraph rule")
  md.block.ruler.at("paragraph", keepTrailingSpaces(rule.fn))
  md.inline.ruler.at("newline", lineBreakRule)
  const list = md.block.ruler.__rules__.find((r) => r.name === "list")
  if (list === undefined) throw new Error("markdown-it has no list rule")
  md.block.ruler.at("list", nestedListsInterrupt(list.fn), { alt: list.alt })
}
