/**
 * Zulip-flavoured Markdown to HTML, matching the markup Zulip's server
 * produces for messages: mentions, channel and topic links, emoji, code
 * blocks, quotes, spoilers, math (shown as source), inline previews, with
 * raw HTML always escaped and only safe link targets. Pure: everything the
 * renderer needs to resolve names is passed in.
 *
 * @since 0.1.0
 */
import { renderMarkdown } from "./internal/pipeline.ts"
import { containsWholeWord, plainText } from "./internal/plainText.ts"
import type { Rendered, RenderContext } from "./internal/shapes.ts"

export type { RenderContext, Rendered } from "./internal/shapes.ts"

/** Renders a message's Markdown, collecting its mentions and link flags. */
export const render = (content: string, context: RenderContext): Rendered =>
  renderMarkdown(content, context, { previews: true })

/**
 * Plain words of the rendered text, for alert-word matching: true when
 * `word` occurs case-insensitively as a whole word (Zulip's alert word rule:
 * bounded by start/end or a non-word character).
 */
export const containsWord = (renderedHtml: string, word: string): boolean =>
  containsWholeWord(plainText(renderedHtml), word)
