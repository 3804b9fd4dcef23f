/**
 * Finished HTML that bypasses Markdown parsing. Fenced blocks are rendered
 * before markdown-it runs (as Zulip's fenced-block preprocessor does); each
 * leaves a placeholder line in the source that is swapped for its HTML once
 * the document is rendered. The markers are control characters stripped from
 * user input, so a message cannot forge one.
 *
 * @internal
 */

const open = "\u0002"
const close = "\u0003"

/** Control characters that only the renderer may put in a document. */
export const stripMarkers = (source: string): string => source.replace(/[\u0002\u0003]/g, "")

/** Digits spelled as letters, so no inline rule (emoji, links) sees a number. */
const spell = (n: number): string => String(n).replace(/\d/g, (d) => "abcdefghij"[Number(d)]!)

export class Placeholders {
  private readonly stored: Array<string> = []

  /** Keeps `html` and returns the one-line marker that stands for it. */
  store(html: string): string {
    this.stored.push(html)
    return `${open}zulipstash${spell(this.stored.length - 1)}${close}`
  }

  /**
   * Puts the stored HTML back. A marker alone in a paragraph loses the
   * paragraph when its HTML is a block (`<div>` or `</div>`), as Python-Markdown does for
   * raw HTML blocks; inline HTML (TeX spans) keeps it.
   */
  restore(html: string): string {
    if (this.stored.length === 0) return html
    const markers = new Map<string, string>()
    this.stored.forEach((stored, i) => markers.set(`${open}zulipstash${spell(i)}${close}`, stored))
    const marker = new RegExp(`${open}zulipstash[a-j]+${close}`, "g")
    return html
      .replace(new RegExp(`<p>(${open}zulipstash[a-j]+${close})</p>`, "g"), (whole, key: string) => {
        const stored = markers.get(key)
        return stored !== undefined && /^<\/?div[\s>]/.test(stored) ? stored : whole
      })
      .replace(marker, (key) => markers.get(key) ?? "")
  }
}
