/**
 * Equivalence commands about saved snippets: create, edit (title, content
 * or both) and delete, with refused ones (a blank title, someone else's
 * snippet). Observed: each active user's snippets.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Principal } from "../../../src/domain/Principal.ts"
import { SavedSnippets } from "../../../src/services/SavedSnippets.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { outcome, Pick, Pool, remembered, rememberedAt } from "./Runner.ts"

/** Mostly valid; a blank one is refused. */
const title = (kind: number) => ["Greeting", "Sign-off", "   ", "Ünïcode title"][kind]!
const content = (kind: number) => ["Hello there!", "**Regards**", "   ", "See `docs`"][kind]!

const commands = [
  [3, Schema.TaggedStruct("CreateSnippet", { user: Pick, title: Pool(4), content: Pool(4) })],
  /** `title` or `content` 4: left alone. */
  [4, Schema.TaggedStruct("EditSnippet", { which: Pick, byOther: Pool(4), title: Pool(5), content: Pool(5) })],
  [3, Schema.TaggedStruct("DeleteSnippet", { which: Pick, byOther: Pool(4) })]
] as const

type SnippetsCommand = typeof commands[number][1]["Type"]

const step = (w: World, raw: Command): Effect.Effect<Outcome, never, any> | undefined => {
  if (!["CreateSnippet", "EditSnippet", "DeleteSnippet"].includes(raw._tag)) return undefined
  const command = raw as unknown as SnippetsCommand
  return Effect.gen(function*() {
    const snippets = yield* SavedSnippets
    switch (command._tag) {
      case "CreateSnippet":
        return yield* w.asCaller(command.user, (principal) =>
          Effect.gen(function*() {
            const result = yield* outcome(snippets.create(principal, { title: title(command.title), content: content(command.content) }))
            if ("ok" in result) remembered(w, "snippets").push({ id: result.ok as number, owner: principal.user.id })
            return result
          }))
      case "EditSnippet": {
        const target = rememberedAt(w, "snippets", command.which, command.byOther)
        const principal = yield* w.callerById(target.by)
        if (principal === undefined) return { skipped: "no such active user" }
        return yield* outcome(snippets.edit(principal, target.id, {
          ...(command.title === 4 ? {} : { title: title(command.title) }),
          ...(command.content === 4 ? {} : { content: content(command.content) })
        }))
      }
      case "DeleteSnippet": {
        const target = rememberedAt(w, "snippets", command.which, command.byOther)
        const principal = yield* w.callerById(target.by)
        if (principal === undefined) return { skipped: "no such active user" }
        return yield* outcome(snippets.remove(principal, target.id))
      }
    }
  })
}

const observe = (_w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const snippets = yield* SavedSnippets
    return yield* Effect.forEach(viewers, (principal) => snippets.list(principal))
  })

export const savedSnippets: Area = { name: "saved snippets", commands, step, observe }
