/**
 * The words of rendered HTML, for alert words: tags dropped, the entities
 * this renderer writes decoded, and a word found only whole (bounded by the
 * ends or by a character that is not a letter, digit or underscore),
 * case-insensitively.
 *
 * @internal
 */

const named: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: "\u00a0" }

const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return named[name.toLowerCase()] ?? whole
  })

export const plainText = (html: string): string => decodeEntities(html.replace(/<[^>]*>/g, ""))

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

export const containsWholeWord = (text: string, word: string): boolean => {
  if (word.trim() === "") return false
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(word)}(?![\\p{L}\\p{N}_])`, "iu").test(text)
}
