/**
 * Output details where Zulip's markup differs from markdown-it's defaults:
 * text escaping that keeps entity references, verbatim inline code, code
 * blocks in CodeHilite's wrapper, a nested list directly after its item's
 * text (`<li>text<ul>`), table alignment as `text-align: left;`, and finished
 * HTML tokens written as they are.
 *
 * @internal
 */
import type { MarkdownIt, RendererRule } from "markdown-it"
import { codeBlockHtml } from "./codeBlocks.ts"
import { escapeAttribute, escapeCode, escapeText } from "./html.ts"
import { htmlToken } from "./inlineRules.ts"

export const installRenderRules = (md: MarkdownIt): void => {
  const rules = md.renderer.rules
  rules.text = (tokens, idx) => escapeText(tokens[idx]!.content)
  rules.code_inline = (tokens, idx) => `<code>${escapeCode(tokens[idx]!.content)}</code>`
  rules.code_block = (tokens, idx) => `${codeBlockHtml(tokens[idx]!.content, undefined)}\n`
  rules[htmlToken] = (tokens, idx) => tokens[idx]!.content
  rules.html_block = (tokens, idx) => tokens[idx]!.content

  const listOpen: RendererRule = (tokens, idx, options, _env, self) => {
    const html = self.renderToken(tokens, idx, options)
    return tokens[idx - 1]?.hidden === true ? html.replace(/^\n/, "") : html
  }
  rules.bullet_list_open = listOpen
  rules.ordered_list_open = listOpen

  const cellOpen: RendererRule = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!
    const style = token.attrGet("style")
    if (typeof style === "string") token.attrSet("style", style.replace(/^text-align:(\w+)$/, "text-align: $1;"))
    return self.renderToken(tokens, idx, options)
  }
  rules.th_open = cellOpen
  rules.td_open = cellOpen

  md.renderer.renderAttrs = (token) =>
    (token.attrs ?? []).map(([name, value]) => ` ${escapeAttribute(name)}="${escapeAttribute(String(value))}"`).join("")
}
