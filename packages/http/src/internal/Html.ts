/**
 * Escaping text for HTML pages (element content and quoted attribute values).
 *
 * @internal
 */

const entities: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/** `text` with `& < > " '` replaced by their entities. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => entities[c]!)
