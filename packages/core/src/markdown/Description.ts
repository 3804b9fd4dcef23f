/**
 * Channel (and organization) descriptions as HTML, rendered like Zulip
 * renders them: the message Markdown dialect without inline image previews.
 * No names are resolved here (mentions and channel links stay text) and
 * nothing is notified. Blank descriptions render to the empty string.
 *
 * @since 0.1.0
 */
import { renderMarkdown } from "./internal/pipeline.ts"

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => escapes[c]!)

const noNames = { users: [], groups: [], channels: [] } as const

export const renderDescription = (source: string): string =>
  renderMarkdown(source, noNames, { previews: false }).html
