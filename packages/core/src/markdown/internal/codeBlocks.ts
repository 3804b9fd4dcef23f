/**
 * The markup of a code block, fenced or indented, as Zulip's CodeHilite
 * setup writes it (without syntax-highlighting spans): leading and trailing
 * blank lines dropped, content escaped, one final newline.
 *
 * @internal
 */
import { codeLanguageName } from "./codeLanguages.ts"
import { escapeAttribute, escapeCodeBlock } from "./html.ts"

export const codeBlockHtml = (code: string, lang: string | undefined): string => {
  const body = escapeCodeBlock(code.replace(/^\n+|\n+$/g, ""))
  const language = lang === undefined || lang === ""
    ? ""
    : ` data-code-language="${escapeAttribute(codeLanguageName(lang))}"`
  return `<div class="codehilite"${language}><pre><span></span><code>${body}\n</code></pre></div>`
}
