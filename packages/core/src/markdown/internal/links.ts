/**
 * `[text](url)` links the way Zulip treats them: the target goes through the
 * URL sanitizer (a rejected target leaves the whole thing as text), hrefs are
 * written as given rather than re-encoded, and a link with blank text shows
 * its href. `![alt](url)` is not image syntax on Zulip: it reads as `!`
 * followed by a link, which then gets an image preview if it points at one.
 *
 * @internal
 */
import type { MarkdownIt } from "markdown-it"
import type { StateCore, Token } from "./inlineRules.ts"
import { sanitizeUrl } from "./sanitizeUrl.ts"

export const installLinks = (md: MarkdownIt): void => {
  md.normalizeLink = (url) => sanitizeUrl(url.trim()) ?? url
  md.validateLink = (url) => sanitizeUrl(url.trim()) !== undefined
  md.normalizeLinkText = (url) => url
  md.core.ruler.after("inline", "zulip_blank_link_text", blankLinkText)
}

/** Core rule: a link whose text is only whitespace shows its href instead. */
const blankLinkText = (state: StateCore): void => {
  for (const block of state.tokens) {
    if (block.type !== "inline" || block.children === null) continue
    const children = block.children
    for (let i = 0; i < children.length; i++) {
      const open = children[i]!
      if (open.type !== "link_open") continue
      let close = i + 1
      while (close < children.length && children[close]!.type !== "link_close") close++
      const inner = children.slice(i + 1, close)
      if (inner.every((t: Token) => t.type === "text" && t.content.trim() === "")) {
        const text = new state.Token("text", "", 0)
        text.content = String(open.attrGet("href") ?? "")
        text.level = open.level + 1
        children.splice(i + 1, close - i - 1, text)
      }
    }
  }
}
