import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { emojiTablePath, emojiTableSource } from "../../../../scripts/emoji-table.ts"
import { render } from "../../src/markdown/Markdown.ts"
import { emojiCode, emojiCodeToNames, emojiName, emojiNames } from "../../src/domain/Emoji.ts"

describe("Emoji table", () => {
  it("is what `pnpm run gen:emoji` makes from the pinned datasets", () => {
    expect(readFileSync(emojiTablePath, "utf8")).toBe(emojiTableSource())
  })

  it("gives every name to one emoji only", () => {
    const all = [...emojiCodeToNames().values()].flat()
    expect(all.length).toBe(new Set(all).size)
    expect(emojiCodeToNames().size).toBe(1826)
  })

  // Zulip's hand-picked names, CLDR's names, and names Zulip leaves out.
  it.each([
    ["+1", "1f44d"],
    ["thumbs_up", "1f44d"],
    ["octopus", "1f419"],
    ["tada", "1f389"],
    ["heart", "2764"],
    ["smile", "1f642"],
    ["big_smile", "1f604"],
    ["time", "1f557"],
    ["melting_face", "1fae0"],
    ["gyōza", "1f95f"],
    ["gyoza", "1f95f"],
    ["ココ", "1f201"],
    ["flag_united_states", "1f1fa-1f1f8"],
    ["hash", "0023-20e3"],
    ["clock1", undefined],
    ["light_skin_tone", undefined],
    ["grinning_face_with_big_eyes", undefined],
    ["zulip", undefined]
  ])(":%s: stands for %s", (name, code) => {
    expect(emojiCode(name)).toBe(code)
  })

  it("names a codepoint sequence by its canonical name, then its aliases", () => {
    expect(emojiName("1f44d")).toBe("+1")
    expect(emojiNames("1f44d")).toEqual(["+1", "thumbs_up", "like"])
    expect(emojiNames("1f95f")).toEqual(["dumpling", "empanada", "gyōza", "jiaozi", "pierogi", "potsticker", "gyoza"])
    expect(emojiName("1f550")).toBeUndefined()
    expect(emojiNames("1f3fb")).toBeUndefined()
  })

  it("renders the known names in messages", () => {
    const span = (code: string, name: string) =>
      `<span aria-label="${name.replace(/_/g, " ")}" class="emoji emoji-${code}" role="img" title="${
        name.replace(/_/g, " ")
      }">:${name}:</span>`
    expect(render(":+1: :octopus: :tada: :heart: :smile: :gyoza: :clock1:", { users: [], groups: [], channels: [] }).html)
      .toBe(
        `<p>${span("1f44d", "+1")} ${span("1f419", "octopus")} ${span("1f389", "tada")} ${span("2764", "heart")} ` +
          `${span("1f642", "smile")} ${span("1f95f", "gyoza")} :clock1:</p>`
      )
  })
})
