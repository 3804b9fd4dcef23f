/**
 * HTML escaping in the flavours Zulip's server output uses. Text and
 * attributes leave well-formed entity references alone (as Python-Markdown's
 * serializer does), code is escaped wholesale, and code blocks also escape
 * quotes the way Pygments does.
 *
 * @internal
 */

/** An `&` that does not already start an entity reference. */
const bareAmpersand = /&(?!(?:#[0-9]+|#x[0-9a-f]+|[0-9a-z]+);)/gi

export const escapeText = (text: string): string =>
  text.replace(bareAmpersand, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

export const escapeAttribute = (value: string): string =>
  escapeText(value).replace(/"/g, "&quot;").replace(/\n/g, "&#10;")

/** Inline code: every `&`, `<` and `>`, nothing else. */
export const escapeCode = (code: string): string =>
  code.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** Code blocks: as Pygments writes them, quotes included. */
export const escapeCodeBlock = (code: string): string =>
  escapeCode(code).replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** Everything unsafe, as Django's `escape` does (used for TeX sources). */
export const escapeAll = (text: string): string =>
  escapeCode(text).replace(/"/g, "&quot;").replace(/'/g, "&#x27;")

/**
 * One element with its attributes sorted by name, which is the order Zulip's
 * serializer produces, so generated markup compares equal to the server's.
 */
export const element = (
  tag: string,
  attributes: ReadonlyArray<readonly [string, string]>,
  inner: string
): string => `${openTag(tag, attributes)}${inner}</${tag}>`

export const openTag = (tag: string, attributes: ReadonlyArray<readonly [string, string]>): string => {
  const sorted = [...attributes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `<${tag}${sorted.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join("")}>`
}
