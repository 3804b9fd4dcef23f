/**
 * Makes `packages/core/src/domain/internal/emojiTable.ts`, Zulip's names for
 * Unicode emoji, from dataset packages pinned exactly in the root package.json:
 *
 * - `emoji-datasource` (iamcal's emoji-data, the list Zulip builds its emoji
 *   from): which emoji exist, as codepoint sequences;
 * - `cldr-annotations-full` and `cldr-annotations-derived-full` (Unicode CLDR,
 *   English): each emoji's spoken name becomes its canonical name, its keywords
 *   its aliases;
 * - `emoji-zulip-names.ts`: the names Zulip picked by hand, which win.
 *
 * The rules are the ones Zulip's server applies to the same data; they are
 * written down at each step below.
 *
 *   pnpm run gen:emoji            writes the table
 *   pnpm run gen:emoji --check    fails if the committed table is not what it would write
 */
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { zulipNameRows } from "./emoji-zulip-names.ts"

export const emojiTablePath = fileURLToPath(
  new URL("../packages/core/src/domain/internal/emojiTable.ts", import.meta.url)
)

/** One emoji as the table lists it: codepoints, canonical name, aliases. */
export interface EmojiEntry {
  readonly code: string
  readonly canonical: string
  readonly aliases: Array<string>
}

const require = createRequire(import.meta.url)

const readJson = (specifier: string): unknown => JSON.parse(readFileSync(require.resolve(specifier), "utf8"))

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isStrings = (value: unknown): value is Array<string> =>
  Array.isArray(value) && value.every((item) => typeof item === "string")

const datasetError = (what: string): Error =>
  new Error(`${what}: the dataset's shape is not the one this script reads; check the pinned version`)

const packageVersion = (name: string): string => {
  const manifest = readJson(`${name}/package.json`)
  if (!isRecord(manifest) || typeof manifest["version"] !== "string") throw datasetError(`${name}/package.json`)
  return manifest["version"]
}

/** The `unified` codepoint sequence of every emoji, in the dataset's order. */
const datasetEmoji = (): Array<string> => {
  const rows = readJson("emoji-datasource/emoji.json")
  if (!Array.isArray(rows)) throw datasetError("emoji-datasource/emoji.json")
  return rows.map((row) => {
    if (!isRecord(row) || typeof row["unified"] !== "string") throw datasetError("emoji-datasource/emoji.json")
    return row["unified"]
  })
}

interface Annotation {
  readonly spoken: string
  readonly keywords: ReadonlyArray<string>
}

const annotationsIn = (specifier: string, root: string): Map<string, Annotation> => {
  const file = readJson(specifier)
  const section = isRecord(file) ? file[root] : undefined
  const annotations = isRecord(section) ? section["annotations"] : undefined
  if (!isRecord(annotations)) throw datasetError(specifier)
  const out = new Map<string, Annotation>()
  for (const [emoji, entry] of Object.entries(annotations)) {
    if (!isRecord(entry)) throw datasetError(specifier)
    const spoken = entry["tts"]
    // Some derived entries (currency signs) come without keywords.
    const keywords = entry["default"] ?? []
    if (!isStrings(spoken) || spoken.length !== 1 || !isStrings(keywords)) throw datasetError(`${specifier} ${emoji}`)
    out.set(emoji, { spoken: spoken[0]!, keywords })
  }
  return out
}

/** CLDR's English annotations; the derived file (sequences, flags, skin tones) adds to and overrides the base. */
const cldrAnnotations = (): Map<string, Annotation> =>
  new Map([
    ...annotationsIn("cldr-annotations-full/annotations/en/annotations.json", "annotations"),
    ...annotationsIn("cldr-annotations-derived-full/annotationsDerived/en/annotations.json", "annotationsDerived")
  ])

const zulipNames = (): Map<string, { readonly canonical: string; readonly aliases: ReadonlyArray<string> }> => {
  const out = new Map<string, { canonical: string; aliases: ReadonlyArray<string> }>()
  for (const row of zulipNameRows.split("\n")) {
    const [code, canonical, ...aliases] = row.split(" ")
    if (code === undefined || code === "") continue
    if (canonical === undefined || out.has(code)) throw new Error(`emoji-zulip-names.ts: bad row "${row}"`)
    out.set(code, { canonical, aliases })
  }
  return out
}

/** The emoji itself, without variation selectors: how Zulip keys and writes every emoji. */
const unqualified = (unified: string): string =>
  String.fromCodePoint(...unified.split("-").map((hex) => parseInt(hex, 16))).replaceAll("\uFE0F", "")

const codeOf = (emoji: string): string =>
  [...emoji].map((char) => char.codePointAt(0)!.toString(16).padStart(4, "0")).join("-")

/**
 * Zulip leaves out every clock face but 1f557 (its `:time:`), and the five
 * skin-tone modifiers, which are not emoji on their own.
 */
const leftOut: ReadonlySet<string> = new Set([
  ...Array.from({ length: 0x1f567 - 0x1f550 + 1 }, (_, i) => (0x1f550 + i).toString(16)).filter((c) => c !== "1f557"),
  "1f3fb",
  "1f3fc",
  "1f3fd",
  "1f3fe",
  "1f3ff"
])

/** A CLDR phrase as an emoji name: words joined by `_`, punctuation dropped, `&` spelled out, lower case. */
const nameOf = (phrase: string): string => {
  let name = phrase.trim()
  for (const [from, to] of [[" ", "_"], ["-", "_"], ["–", "_"], ["&", "and"]] as const) name = name.replaceAll(from, to)
  return name.replace(/[“”:.,()‘’']/g, "").replace(/_{2,}/g, "_").toLowerCase()
}

const isAscii = (name: string): boolean => /^[\x00-\x7f]*$/.test(name)

/** `gyōza` → `gyoza`: Latin letters without their accents. */
const withoutAccents = (name: string): string => name.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC")

const removeOne = (names: Array<string>, name: string): void => {
  const at = names.indexOf(name)
  if (at === -1) throw new Error(`emoji names: expected alias "${name}" to be present`)
  names.splice(at, 1)
}

/** Zulip's names for every emoji in the dataset, in the dataset's order. */
export const emojiEntries = (): Array<EmojiEntry> => {
  const cldr = cldrAnnotations()
  const chosen = zulipNames()
  const entries = new Map<string, EmojiEntry>()
  const canonicalNames = new Set<string>()

  // Names: Zulip's own where it has them, else CLDR's spoken name and keywords.
  // A canonical name belongs to one emoji only.
  for (const unified of datasetEmoji()) {
    const emoji = unqualified(unified)
    const code = codeOf(emoji)
    if (leftOut.has(code)) continue
    const own = chosen.get(code)
    const annotation = cldr.get(emoji)
    if (own === undefined && annotation === undefined) {
      console.warn(`emoji ${code} has neither a Zulip name nor a CLDR annotation; left out`)
      continue
    }
    const entry: EmojiEntry = own !== undefined
      ? { code, canonical: own.canonical, aliases: [...own.aliases] }
      : { code, canonical: nameOf(annotation!.spoken), aliases: annotation!.keywords.map(nameOf) }
    const key = nameOf(entry.canonical)
    if (canonicalNames.has(key)) {
      throw new Error(`emoji ${code}: canonical name "${key}" is taken; give it a name in emoji-zulip-names.ts`)
    }
    canonicalNames.add(key)
    entries.set(code, entry)
  }

  // An alias may not be another emoji's canonical name.
  const emojiByAlias = new Map<string, Array<string>>()
  for (const entry of entries.values()) {
    for (const alias of [...entry.aliases]) {
      if (canonicalNames.has(alias)) removeOne(entry.aliases, alias)
      else emojiByAlias.set(alias, [...(emojiByAlias.get(alias) ?? []), entry.code])
    }
  }

  // An alias names one emoji: a keyword CLDR gives several emoji is dropped
  // from all of them, except where Zulip chose it by hand.
  for (const [alias, codes] of emojiByAlias) {
    if (codes.length < 2) continue
    for (const code of codes) if (!chosen.has(code)) removeOne(entries.get(code)!.aliases, alias)
  }

  // A name spelled with accents also answers to its plain-ASCII spelling,
  // which then belongs to this emoji alone. Names in other scripts (`ココ`)
  // stay as they are; such an emoji must have an ASCII alias.
  for (const entry of entries.values()) {
    for (const name of [entry.canonical, ...entry.aliases]) {
      if (isAscii(name)) continue
      const plain = withoutAccents(name)
      if (!isAscii(plain)) {
        if (!entry.aliases.some(isAscii)) throw new Error(`emoji ${entry.code}: "${name}" needs an ASCII alias`)
        continue
      }
      for (const code of emojiByAlias.get(plain) ?? []) removeOne(entries.get(code)!.aliases, plain)
      entry.aliases.push(plain)
    }
  }

  return [...entries.values()]
}

const codepoints = (code: string): Array<number> => code.split("-").map((hex) => parseInt(hex, 16))

/** Shorter sequences first, then by codepoint. */
const byCodepoints = (a: EmojiEntry, b: EmojiEntry): number => {
  const x = codepoints(a.code)
  const y = codepoints(b.code)
  if (x.length !== y.length) return x.length - y.length
  const at = x.findIndex((value, i) => value !== y[i])
  return at === -1 ? 0 : x[at]! - y[at]!
}

/** The text of `emojiTable.ts`. */
export const emojiTableSource = (): string => {
  const rows = emojiEntries()
    .sort(byCodepoints)
    .map((entry) => [entry.code, entry.canonical, ...entry.aliases].join(" "))
  return `/**
 * Generated by \`pnpm run gen:emoji\` (scripts/emoji-table.ts); do not edit.
 *
 * Zulip's names for Unicode emoji, from emoji-datasource ${packageVersion("emoji-datasource")}, CLDR ${
    packageVersion("cldr-annotations-full")
  }
 * annotations and the names Zulip chose itself (scripts/emoji-zulip-names.ts).
 * One row per emoji: the codepoint sequence as Zulip writes it in
 * \`emoji-<code>\` classes (variation selectors dropped), then the canonical
 * name, then its aliases.
 *
 * Kept as one string so the table costs a single literal; \`domain/Emoji.ts\`
 * parses it once on first use.
 *
 * @internal
 */
export const emojiRows = \`
${rows.join("\n")}
\`
`
}

const main = (args: ReadonlyArray<string>): void => {
  const source = emojiTableSource()
  if (args.includes("--check")) {
    if (readFileSync(emojiTablePath, "utf8") !== source) {
      console.error(`${emojiTablePath} is not what scripts/emoji-table.ts makes; run pnpm run gen:emoji`)
      process.exitCode = 1
    }
    return
  }
  writeFileSync(emojiTablePath, source)
  console.log(`wrote ${emojiTablePath}`)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2))
}
