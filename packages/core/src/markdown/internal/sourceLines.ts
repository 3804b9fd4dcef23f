/**
 * Line-level clean-ups Zulip applies before any parsing: newlines and tabs
 * normalized, blank-looking lines emptied, and a blank line put between a
 * line of text and a list hanging off it (so `Text:\n* item` is a list even
 * where CommonMark would not start one, e.g. `Text:\n3. item`). Also the
 * list indentation Zulip reads, restated for markdown-it.
 *
 * @internal
 */
import { isFenceLine } from "./fencedBlocks.ts"

/** Python's `str.expandtabs(4)`: tabs advance to the next multiple of four. */
const expandTabs = (line: string): string => {
  if (!line.includes("\t")) return line
  let out = ""
  for (const ch of line) out += ch === "\t" ? " ".repeat(4 - (out.length % 4)) : ch
  return out
}

export const normalizeLines = (lines: ReadonlyArray<string>): Array<string> =>
  lines.map((line) => {
    const expanded = expandTabs(line)
    return /^ +$/.test(expanded) ? "" : expanded
  })

const listItem = /^[ ]*([*+-]|\d\.)[ ]+/

interface OpenFence {
  readonly fence: string
  readonly isCode: boolean
}

export const separateHangingLists = (lines: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  const open: Array<OpenFence> = []
  let inCode = false
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    out.push(line)
    if (i === lines.length - 1) break
    const fence = isFenceLine(line)
    if (fence !== null) {
      const lang = fence[2]
      const closes = lang === undefined && open.length > 0 && open[open.length - 1]!.fence === fence[1]
      if (closes) open.pop()
      else open.push({ fence: fence[1]!, isCode: lang !== "quote" && lang !== "quoted" })
      inCode = open.some((f) => f.isCode)
    }
    const here = listItem.exec(line)
    const next = listItem.exec(lines[i + 1]!)
    const hangs = next !== null &&
      (here === null || (here[1]!.length === 1) !== (next[1]!.length === 1))
    if (!inCode && line !== "" && hangs) out.push("")
  }
  return out
}

const listLine = /^( *)(\d+[.)]|[*+-])( +)(?=\S)/
const ruleLine = /^ {0,3}([-*_])(?: *\1){2,} *$/

interface OpenItem {
  /** Indentation as written. */
  readonly indent: number
  /** Where the item's content starts once rewritten. */
  readonly content: number
  readonly bullet: string
}

/**
 * Zulip nests list items by two-space indentation and treats `*`, `-`, `+`
 * as one kind of bullet; CommonMark nests by the parent's content column
 * (three for `1. `) and starts a new list when the bullet changes. Item lines
 * are re-indented to their parent's content column and given their first
 * sibling's bullet, so markdown-it builds the lists Zulip builds.
 */
export const alignListItems = (lines: ReadonlyArray<string>): Array<string> => {
  const open: Array<OpenItem> = []
  let previousBlank = true
  return lines.map((line) => {
    const item = ruleLine.test(line) ? null : listLine.exec(line)
    if (item === null) {
      const blank = line.trim() === ""
      if (!blank && previousBlank && !line.startsWith(" ")) open.length = 0
      previousBlank = blank
      return line
    }
    const [whole, spaces, marker, gap] = item as unknown as [string, string, string, string]
    const indent = spaces.length
    // Four columns past where it could nest is an indented code block.
    if (indent - (open[open.length - 1]?.content ?? 0) >= 4 && indent >= 4) {
      previousBlank = false
      return line
    }
    previousBlank = false
    let sibling: OpenItem | undefined
    while (open.length > 0 && open[open.length - 1]!.indent >= indent) sibling = open.pop()
    const parent = open[open.length - 1]
    const column = parent === undefined ? indent : Math.max(indent, parent.content)
    const isBullet = /^[*+-]$/.test(marker)
    const bullet = isBullet && sibling !== undefined && /^[*+-]$/.test(sibling.bullet) ? sibling.bullet : marker
    open.push({ indent, content: column + bullet.length + gap.length, bullet })
    return `${" ".repeat(column)}${bullet}${gap}${line.slice(whole.length)}`
  })
}
