/**
 * Zulip's emoji names, from the one generated table (`internal/emojiTable.ts`,
 * `pnpm run gen:emoji`): name (canonical or alias) to codepoint sequence, and
 * sequence back to its names. The Markdown renderer, the status-emoji checks
 * and the served emoji data (`emoji_api.json`'s `code_to_names`) all read it.
 *
 * @since 0.1.0
 */
import { emojiRows } from "./internal/emojiTable.ts"

/** The emoji namespaces of Zulip (`reaction_type`). @category models */
export type ReactionType = "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji"

/** The one extra emoji Zulip ships beside Unicode: its own logo. @category constants */
export const ZulipExtraEmoji = "zulip"

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

/** The codepoint sequence a name (canonical or alias) stands for. @category lookups */
export const emojiCode = (name: string): string | undefined => load().codeByName.get(name)

/** The canonical name of a codepoint sequence. @category lookups */
export const emojiName = (code: string): string | undefined => load().namesByCode.get(code)?.[0]

/** Every name of a codepoint sequence, the canonical one first. @category lookups */
export const emojiNames = (code: string): ReadonlyArray<string> | undefined => load().namesByCode.get(code)

/** The whole table: codepoint sequence to its names, canonical first. @category lookups */
export const emojiCodeToNames = (): ReadonlyMap<string, ReadonlyArray<string>> => load().namesByCode

/** Where servers publish `emoji_api.json`, as Zulip does (relative to the server's base URL). @category constants */
export const apiPath = "/static/generated/emoji/emoji_api.json"

/** `server_emoji_data_url`: the absolute URL of `emoji_api.json` on the server at `baseUrl`. @category constructors */
export const apiUrl = (baseUrl: string): string => `${baseUrl.replace(/\/$/, "")}${apiPath}`

let apiDocument: string | undefined

/**
 * Zulip's `emoji_api.json` (what `server_emoji_data_url` serves): one
 * property, `code_to_names`, every Unicode emoji's code to its names with the
 * canonical one first. Built once, as JSON text.
 *
 * @category lookups
 */
export const emojiApiJson = (): string => {
  if (apiDocument === undefined) {
    apiDocument = JSON.stringify({ code_to_names: Object.fromEntries(load().namesByCode) })
  }
  return apiDocument
}
