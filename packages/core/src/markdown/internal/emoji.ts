/**
 * Emoji, as Zulip marks them up: `:name:` with one of Zulip's names, and
 * emoji typed as Unicode, both become
 * `<span aria-label="name" class="emoji emoji-1f642" role="img" title="name">:name:</span>`.
 * `:zulip:` is Zulip's own image. Unknown names stay text (and are consumed,
 * so `:nope:smile:` shows no emoji, as on the server). Link text is left
 * alone, as the server keeps it verbatim.
 *
 * @internal
 */
import { element } from "./html.ts"
import { emojiCode, emojiName } from "../../domain/Emoji.ts"
import type { InlineRule, StateCore, Token } from "./inlineRules.ts"
import { htmlToken, matchHere, pushHtml } from "./inlineRules.ts"

const namePattern = /:([\p{L}\p{N}_+-]+):/uy

const emojiSpan = (code: string, name: string): string => {
  const title = name.replace(/_/g, " ")
  return element(
    "span",
    [["aria-label", title], ["class", `emoji emoji-${code}`], ["role", "img"], ["title", title]],
    `:${name}:`
  )
}

const zulipEmoji =
  `<img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip">`

export const emojiNameRule: InlineRule = (state, silent) => {
  if (state.src.charCodeAt(state.pos) !== 0x3a || state.linkLevel > 0) return false
  const match = matchHere(namePattern, state)
  if (match === null) return false
  const name = match[1]!
  const code = emojiCode(name)
  if (!silent) {
    if (name === "zulip") pushHtml(state, zulipEmoji)
    else if (code !== undefined) pushHtml(state, emojiSpan(code, name))
    else state.pending += match[0]
  }
  state.pos += match[0].length
  return true
}

/** One emoji as Unicode writes it: flags, keycaps, modifiers, tags, ZWJ sequences. */
const possibleEmoji =
  /\p{RI}\p{RI}|\p{Emoji}(?:\p{Emoji_Modifier}|\uFE0F\u20E3?|[\u{E0020}-\u{E007E}]+\u{E007F})?(?:\u200D(?:\p{RI}\p{RI}|\p{Emoji}(?:\p{Emoji_Modifier}|\uFE0F\u20E3?|[\u{E0020}-\u{E007E}]+\u{E007F})?))*/gu

/** Characters that are text unless asked to be emoji (digits, `#`, `©`, arrows). */
const textPresentation = /^\P{Emoji_Presentation}\u20E3?$/u

const codeOf = (emoji: string): string =>
  [...emoji.replace(/\uFE0F/g, "")].map((c) => c.codePointAt(0)!.toString(16).padStart(4, "0")).join("-")

const splitText = (token: Token, makeToken: () => Token): Array<Token> | undefined => {
  const text = token.content
  const out: Array<Token> = []
  let last = 0
  for (const match of text.matchAll(possibleEmoji)) {
    const emoji = match[0]
    if (textPresentation.test(emoji)) continue
    const code = codeOf(emoji)
    const name = emojiName(code)
    if (name === undefined) continue
    if (match.index > last) out.push(textToken(makeToken, text.slice(last, match.index)))
    const html = makeToken()
    html.type = htmlToken
    html.content = emojiSpan(code, name)
    out.push(html)
    last = match.index + emoji.length
  }
  if (out.length === 0) return undefined
  if (last < text.length) out.push(textToken(makeToken, text.slice(last)))
  return out
}

const textToken = (makeToken: () => Token, content: string): Token => {
  const token = makeToken()
  token.type = "text"
  token.content = content
  return token
}

/** Core rule: Unicode emoji in text outside links and code. */
export const unicodeEmojiRule = (state: StateCore): void => {
  const makeToken = () => new state.Token("text", "", 0)
  for (const block of state.tokens) {
    if (block.type !== "inline" || block.children === null) continue
    const children: Array<Token> = []
    let linkDepth = 0
    for (const child of block.children) {
      if (child.type === "link_open") linkDepth++
      if (child.type === "link_close") linkDepth--
      const split = child.type === "text" && linkDepth === 0 ? splitText(child, makeToken) : undefined
      if (split === undefined) children.push(child)
      else children.push(...split.map((t) => Object.assign(t, { level: child.level })))
    }
    block.children = children
  }
}
