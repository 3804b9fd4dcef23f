/**
 * Zulip's fenced blocks, handled on raw lines before block parsing, as the
 * server does: a fence is ``` or ~~~ (three or more) at the very start of a
 * line and closes only on an identical fence line; an unclosed fence runs to
 * the end of the message. `quote` and `spoiler` contents stay Markdown (and
 * may hold further fences); code and `math` become finished HTML behind a
 * placeholder line.
 *
 * Quotes become `> ` lines, so they parse as ordinary blockquotes (and their
 * mentions are silenced like any quoted mention).
 *
 * @internal
 */
import { codeBlockHtml } from "./codeBlocks.ts"
import { escapeAll } from "./html.ts"
import type { Placeholders } from "./placeholders.ts"

/** Fence, then optionally a language (`python`, `.py`, `{quote}`) and a header. */
const fencePattern = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+,\-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?$/

export const isFenceLine = (line: string): RegExpExecArray | null => fencePattern.exec(line)

interface Handler {
  handleLine(line: string): void
  done(): void
}

type Kind = "code" | "quote" | "spoiler" | "math"

export const processFencedBlocks = (lines: ReadonlyArray<string>, placeholders: Placeholders): Array<string> => {
  const output: Array<string> = []
  const handlers: Array<Handler> = []

  const openFence = (into: Array<string>, line: string): void => {
    const match = fencePattern.exec(line)
    if (match === null) {
      into.push(line)
      return
    }
    const lang = match[2]?.toLowerCase()
    const kind: Kind = lang === "quote" || lang === "quoted"
      ? "quote"
      : lang === "math"
      ? "math"
      : lang === "spoiler"
      ? "spoiler"
      : "code"
    handlers.push(block(into, match[1]!, kind, lang, match[3]))
  }

  const block = (
    into: Array<string>,
    fence: string,
    kind: Kind,
    lang: string | undefined,
    header: string | undefined
  ): Handler => {
    const lines: Array<string> = []
    const nests = kind === "quote" || kind === "spoiler"
    return {
      handleLine: (line) => {
        if (line.trimEnd() === fence) handlers[handlers.length - 1]!.done()
        else if (nests) openFence(lines, line)
        else lines.push(line.trimEnd())
      },
      done: () => {
        handlers.pop()
        if (lines.length === 0) return
        const text = lines.join("\n")
        const formatted = kind === "code"
          ? placeholders.store(codeBlockHtml(text, lang))
          : kind === "math"
          ? placeholders.store(texBlocks(text))
          : kind === "quote"
          ? text.split("\n").map((line) => `> ${line}`).join("\n")
          : spoiler(header, text, placeholders)
        into.push("", ...formatted.split("\n"), "")
      }
    }
  }

  handlers.push({ handleLine: (line) => openFence(output, line), done: () => handlers.pop() })
  for (const line of lines) handlers[handlers.length - 1]!.handleLine(line)
  while (handlers.length > 0) handlers[handlers.length - 1]!.done()
  return output
}

/**
 * Display math. Without a TeX engine every paragraph is shown as Zulip shows
 * TeX it cannot render: escaped source in a `tex-error` span.
 */
const texBlocks = (text: string): string =>
  text.split("\n\n").map((paragraph) => `<span class="tex-error">${escapeAll(paragraph)}</span>`).join("\n\n")

const spoiler = (header: string | undefined, text: string, placeholders: Placeholders): string =>
  [
    placeholders.store(`<div class="spoiler-block"><div class="spoiler-header">`),
    ...(header === undefined ? [] : [header]),
    placeholders.store(`</div><div class="spoiler-content" aria-hidden="true">`),
    text,
    placeholders.store(`</div></div>`)
  ].join("\n\n")
