/**
 * Lookups over Zulip's emoji names: name (canonical or alias) to codepoint
 * sequence, and sequence back to the canonical name, which is what a typed
 * Unicode emoji is shown as. The same table answers status-emoji checks and
 * the served emoji data (`code_to_names`).
 *
 * @internal
 */
import { emojiRows } from "./emojiTable.ts"

interface EmojiNames {
  readonly codeByName: ReadonlyMap<string, string>
  /** Canonical name first, then the aliases; in table order. */
  readonly namesByCode: ReadonlyMap<string, ReadonlyArray<string>>
}

let names: EmojiNames | undefined

const load = (): EmojiNames => {
  if (names !== undefined) return names
  const codeByName = new Map<string, string>()
  const namesByCode = new Map<string, ReadonlyArray<string>>()
  for (const row of emojiRows.split("\n")) {
    const [code, ...all] = row.split(" ")
    if (code === undefined || code === "" || all.length === 0) continue
    namesByCode.set(code, all)
    for (const name of all) codeByName.set(name, code)
  }
  names = { codeByName, namesByCode }
  return names
}

/** The codepoint sequence a name (canonical or alias) stands for. */
export const emojiCode = (name: string): string | undefined => load().codeByName.get(name)

/** The canonical name of a codepoint sequence. */
export const emojiName = (code: string): string | undefined => load().namesByCode.get(code)?.[0]

/** Every name of a codepoint sequence, the canonical one first. */
export const emojiNames = (code: string): ReadonlyArray<string> | undefined => load().namesByCode.get(code)

/** The whole table: codepoint sequence to its names, canonical first. */
export const emojiCodeToNames = (): ReadonlyMap<string, ReadonlyArray<string>> => load().namesByCode
