/**
 * Equivalence commands about drafts: create, edit and delete, to channels
 * and to people, with refused ones (a negative time, someone else's draft,
 * a missing channel). Observed: each active user's drafts.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Principal } from "../../../src/domain/Principal.ts"
import { Drafts } from "../../../src/services/Drafts.ts"
import type { DraftInput } from "../../../src/services/Drafts.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { outcome, Pick, Picks, Pool, remembered, rememberedAt } from "./Runner.ts"

const Draft = {
  /** 0: to a channel; 1: to people; 2: no recipient yet. */
  kind: Pool(3),
  channel: Pick,
  recipients: Picks,
  topic: Pool(3),
  content: Pool(3),
  /** 0: now; 1: a moment in the past; 2: before 1970 (refused). */
  time: Pool(3)
}

const commands = [
  [4, Schema.TaggedStruct("CreateDraft", { user: Pick, ...Draft })],
  /** `byOther` 3: someone other than its writer (not found). */
  [4, Schema.TaggedStruct("EditDraft", { which: Pick, byOther: Pool(4), ...Draft })],
  [3, Schema.TaggedStruct("DeleteDraft", { which: Pick, byOther: Pool(4) })]
] as const

type DraftsCommand = typeof commands[number][1]["Type"]

const draftOf = (w: World, d: Schema.Struct<typeof Draft>["Type"]): DraftInput => ({
  type: (["stream", "private", ""] as const)[d.kind]!,
  to: d.kind === 0 ? [w.channelAt(d.channel)] : d.kind === 1 ? d.recipients.map(w.userAt) : [],
  topic: ["", "plans", "t".repeat(70)][d.topic]!,
  content: ["draft", "**more** to say", "@**Owner** soon"][d.content]!,
  timestamp: [undefined, 1_600_000_000.5, -5][d.time]
})

const step = (w: World, raw: Command): Effect.Effect<Outcome, never, any> | undefined => {
  if (!["CreateDraft", "EditDraft", "DeleteDraft"].includes(raw._tag)) return undefined
  const command = raw as unknown as DraftsCommand
  return Effect.gen(function*() {
    const drafts = yield* Drafts
    switch (command._tag) {
      case "CreateDraft":
        return yield* w.asCaller(command.user, (principal) =>
          Effect.gen(function*() {
            const result = yield* outcome(drafts.create(principal, [draftOf(w, command)]))
            if ("ok" in result) {
              for (const id of result.ok as ReadonlyArray<number>) remembered(w, "drafts").push({ id, owner: principal.user.id })
            }
            return result
          }))
      case "EditDraft": {
        const target = rememberedAt(w, "drafts", command.which, command.byOther)
        const principal = yield* w.callerById(target.by)
        if (principal === undefined) return { skipped: "no such active user" }
        return yield* outcome(drafts.edit(principal, target.id, draftOf(w, command)))
      }
      case "DeleteDraft": {
        const target = rememberedAt(w, "drafts", command.which, command.byOther)
        const principal = yield* w.callerById(target.by)
        if (principal === undefined) return { skipped: "no such active user" }
        return yield* outcome(drafts.remove(principal, target.id))
      }
    }
  })
}

const observe = (_w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const drafts = yield* Drafts
    return yield* Effect.forEach(viewers, (principal) => outcome(drafts.list(principal)))
  })

export const drafts: Area = { name: "drafts", commands, step, observe }
