/**
 * The difference between two renderings of a message, as GET
 * /messages/{id}/history shows it (`content_html_diff`): the new HTML with
 * inserted text in `<span class="highlight_text_inserted">` and removed
 * text in `<span class="highlight_text_deleted">`. Tags are never split:
 * the diff runs over words and whitespace, and a tag is one token (a
 * removed tag is dropped, an inserted one kept).
 *
 * @since 0.1.0
 */

const tokenize = (html: string): Array<string> => html.match(/<[^>]*>|[^<\s]+|\s+/g) ?? []

const isTag = (token: string) => token.startsWith("<")

/** Tokens compared at most (beyond, the rest is one replaced block): keeps the table bounded. */
const MaxTokens = 2000

/** @category views */
export const highlightHtmlDifferences = (before: string, after: string): string => {
  const allA = tokenize(before)
  const allB = tokenize(after)
  const a = allA.slice(0, MaxTokens)
  const b = allB.slice(0, MaxTokens)
  const restA = allA.slice(MaxTokens).join("")
  const restB = allB.slice(MaxTokens).join("")
  // Longest common subsequence, one row of lengths per token of `a`.
  const n = a.length
  const m = b.length
  const lengths = new Uint16Array((n + 1) * (m + 1))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * (m + 1) + j] = a[i] === b[j]
        ? lengths[(i + 1) * (m + 1) + j + 1]! + 1
        : Math.max(lengths[(i + 1) * (m + 1) + j]!, lengths[i * (m + 1) + j + 1]!)
    }
  }
  let out = ""
  let pending: { kind: "inserted" | "deleted"; text: string } | undefined
  const flush = () => {
    if (pending !== undefined && pending.text.length > 0) {
      out += `<span class="highlight_text_${pending.kind}">${pending.text}</span>`
    }
    pending = undefined
  }
  const emit = (kind: "inserted" | "deleted", token: string) => {
    if (isTag(token)) {
      if (kind === "inserted") {
        flush()
        out += token
      }
      return
    }
    if (pending?.kind !== kind) flush()
    pending ??= { kind, text: "" }
    pending.text += token
  }
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      flush()
      out += a[i]
      i++
      j++
    } else if (i < n && (j === m || lengths[(i + 1) * (m + 1) + j]! >= lengths[i * (m + 1) + j + 1]!)) {
      // Removed text before what replaces it.
      emit("deleted", a[i]!)
      i++
    } else {
      emit("inserted", b[j]!)
      j++
    }
  }
  if (restA !== restB) {
    if (restA.length > 0) emit("deleted", restA.replace(/<[^>]*>/g, ""))
    if (restB.length > 0) emit("inserted", restB)
  } else {
    flush()
    out += restB
  }
  flush()
  return out
}
