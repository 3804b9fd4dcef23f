/**
 * Inline code as Zulip reads it: a run of backticks closed by a run of the
 * same length on the same line, content kept exactly (no trimming of the
 * spaces inside, unlike CommonMark). A shorter opening run is tried when the
 * full one finds no partner.
 *
 * @internal
 */
import type { InlineRule } from "./inlineRules.ts"

const backtick = 0x60

export const codeSpanRule: InlineRule = (state, silent) => {
  const { src, pos } = state
  if (src.charCodeAt(pos) !== backtick || src[pos - 1] === "\\") return false
  let runEnd = pos
  while (src.charCodeAt(runEnd) === backtick) runEnd++
  const lineEnd = Math.min(state.posMax, (src.indexOf("\n", runEnd) + 1 || src.length + 1) - 1)

  // Maximal backtick runs after this one on the line, by length.
  const runsByLength = new Map<number, Array<number>>()
  for (let i = runEnd; i < lineEnd;) {
    if (src.charCodeAt(i) !== backtick) {
      i++
      continue
    }
    const start = i
    while (i < lineEnd && src.charCodeAt(i) === backtick) i++
    const starts = runsByLength.get(i - start) ?? []
    starts.push(start)
    runsByLength.set(i - start, starts)
  }
  if (runsByLength.size === 0) {
    if (!silent) state.pending += src.slice(pos, runEnd)
    state.pos = runEnd
    return true
  }
  for (let length = runEnd - pos; length >= 1; length--) {
    const close = runsByLength.get(length)?.find((start) => start >= pos + length + 1)
    if (close === undefined) continue
    if (!silent) {
      const token = state.push("code_inline", "code", 0)
      token.markup = "`".repeat(length)
      token.content = src.slice(pos + length, close)
    }
    state.pos = close + length
    return true
  }
  return false
}
