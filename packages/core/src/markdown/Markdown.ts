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

export interface RenderContext {
  /** Mentionable users of the organization (active and deactivated). */
  readonly users: ReadonlyArray<{ readonly id: number; readonly full_name: string; readonly is_active: boolean }>
  /**
   * User groups that can be mentioned by name (non-system groups). A
   * deactivated group's mention renders silently and notifies no one.
   */
  readonly groups: ReadonlyArray<{ readonly id: number; readonly name: string; readonly deactivated: boolean }>
  /** Channels the sender can see, for #**channel** and #**channel>topic** links. */
  readonly channels: ReadonlyArray<{ readonly id: number; readonly name: string }>
}

export interface Rendered {
  readonly html: string
  /** Users mentioned non-silently (@**Name**), sets their `mentioned` flag. */
  readonly mentionedUserIds: ReadonlySet<number>
  /** Groups mentioned non-silently (@*group*). */
  readonly mentionedGroupIds: ReadonlySet<number>
  /** @**all**, @**everyone**, @**channel**, @**stream** (non-silent). */
  readonly channelWildcard: boolean
  /** @**topic** (non-silent). */
  readonly topicWildcard: boolean
  readonly hasLink: boolean
  readonly hasImage: boolean
  readonly hasAttachment: boolean
}

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
