/**
 * Lookups over Zulip's emoji names: name (canonical or alias) to codepoint
 * sequence, and sequence back to the canonical name, which is what a typed
 * Unicode emoji is shown as.
 *
 * @internal
 */
import { emojiRows } from "./emojiTable.ts"

interface EmojiNames {
  readonly codeByName: ReadonlyMap<string, string>
  readonly nameByCode: ReadonlyMap<string, string>
}

let names: EmojiNames | undefined

const load = (): EmojiNames => {
  if (names !== undefined) return names
  const codeByName = new Map<string, string>()
  const nameByCode = new Map<string, string>()
  for (const row of emojiRows.split("\n")) {
    const [code, canonical, ...aliases] = row.split(" ")
    if (code === undefined || code === "" || canonical === undefined) continue
    nameByCode.set(code, canonical)
    codeByName.set(canonical, code)
    for (const alias of aliases) codeByName.set(alias, code)
  }
  names = { codeByName, nameByCode }
  return names
}

export const emojiCode = (name: string): string | undefined => load().codeByName.get(name)

export const emojiName = (code: string): string | undefined => load().nameByCode.get(code)
