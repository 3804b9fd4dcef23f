/**
 * Channel descriptions as HTML. A placeholder until the Markdown renderer
 * lands: text is escaped and wrapped in a paragraph, so nothing unsafe passes.
 *
 * @internal
 */
const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => escapes[c]!)

export const renderDescription = (source: string): string =>
  source.trim().length === 0 ? "" : `<p>${escapeHtml(source.trim())}</p>`
