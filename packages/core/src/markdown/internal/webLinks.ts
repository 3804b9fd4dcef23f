/**
 * Bare URLs, email addresses and domain names become links, with Zulip's
 * boundaries: a link starts the text or follows whitespace or one of
 * `' " ( , : <`, and ends before optional closing punctuation followed by
 * whitespace or the end. `http(s)://` links take any host; without a scheme
 * the name must end in a known top-level domain. Paths may hold balanced
 * parentheses, six levels deep.
 *
 * markdown-it's own linkify (linkify-it) draws these lines differently
 * (`readme.md`, `a@b.com/foo`), so this rule replaces it.
 *
 * @internal
 */
import type { InlineRule } from "./inlineRules.ts"
import { sanitizeUrl } from "./sanitizeUrl.ts"
import { topLevelDomains } from "./tlds.ts"

const w = "\\p{L}\\p{N}_"

const pathChunk = (() => {
  const inner = '[^\\s()"]*'
  const group = '[^\\s()"]*?(?:\\(%s\\)[^\\s()"]*?)*'
  let chunk = group
  for (let i = 0; i < 6; i++) chunk = chunk.replace("%s", group)
  return chunk.replace("%s", inner)
})()

const webLinkPattern = new RegExp(
  "(" +
    `(?:(?:https?://[${w}.:@-]+?|(?:[${w}-]+\\.)+(?:${topLevelDomains.join("|")}))(?:/${pathChunk})?)` +
    `|(?:[${w}.-]+@[${w}.-]+\\.[${w}]+)` +
    "|(?:bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34})" +
    ")" +
    "(?=[!:;?),.'\">]*(?:$|\\s))",
  "uy"
)

/** Characters a link may follow. */
const before = /[\s'"(,:<]/

export const webLinkRule: InlineRule = (state, silent) => {
  const { src, pos } = state
  if (state.linkLevel > 0 || (pos > 0 && !before.test(src[pos - 1]!))) return false
  if (!/[\p{L}\p{N}_.-]/u.test(src[pos]!)) return false
  webLinkPattern.lastIndex = pos
  const match = webLinkPattern.exec(src)
  if (match === null || pos + match[1]!.length > state.posMax) return false
  const url = match[1]!
  const href = sanitizeUrl(url)
  if (!silent) {
    if (href === undefined) {
      state.pending += url
    } else {
      const open = state.push("link_open", "a", 1)
      open.attrs = [["href", href]]
      open.markup = "linkify"
      open.info = "auto"
      state.push("text", "", 0).content = url
      const close = state.push("link_close", "a", -1)
      close.markup = "linkify"
      close.info = "auto"
    }
  }
  state.pos += url.length
  return true
}
