/**
 * Equivalence commands about user status: a user's own (text, emoji, away)
 * and an administrator's change of someone else's, with refused ones (no
 * value, an emoji code without its name, a text too long, a non-administrator).
 * Observed: every status as each active user gets it at register.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Principal } from "../../../src/domain/Principal.ts"
import { UserStatus } from "../../../src/services/UserStatus.ts"
import type { StatusChange } from "../../../src/services/UserStatus.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { outcome, Pick, Pool } from "./Runner.ts"

const Change = {
  /** 1: absent; 3: too long (small values are drawn most, so 0 is the usual change). */
  text: Pool(4),
  /** 0: absent; 1: a Unicode emoji; 2: cleared; 3: a code without its name. */
  emoji: Pool(4)
}

const commands = [
  /** `away` 0: absent. */
  [4, Schema.TaggedStruct("SetStatus", { user: Pick, away: Pool(3), ...Change })],
  [3, Schema.TaggedStruct("SetOthersStatus", { admin: Pick, target: Pick, ...Change })]
] as const

type StatusCommand = typeof commands[number][1]["Type"]

const changeOf = (c: Schema.Struct<typeof Change>["Type"]): StatusChange => ({
  ...(c.text === 1 ? {} : { status_text: ["In a meeting", undefined, "", "x".repeat(61)][c.text] }),
  ...[
    {},
    { emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" },
    { emoji_name: "" },
    { emoji_code: "1f642" }
  ][c.emoji]!
})

const step = (w: World, raw: Command): Effect.Effect<Outcome, never, any> | undefined => {
  if (raw._tag !== "SetStatus" && raw._tag !== "SetOthersStatus") return undefined
  const command = raw as unknown as StatusCommand
  return Effect.gen(function*() {
    const status = yield* UserStatus
    switch (command._tag) {
      case "SetStatus":
        return yield* w.asCaller(command.user, (principal) =>
          outcome(status.updateOwn(principal, {
            ...changeOf(command),
            ...(command.away === 0 ? {} : { away: command.away === 1 })
          })))
      case "SetOthersStatus":
        return yield* w.asAdministrator(command.admin, (principal) =>
          outcome(status.updateOther(principal, w.userAt(command.target), changeOf(command))))
    }
  })
}

const observe = (_w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const status = yield* UserStatus
    return yield* Effect.forEach(viewers, (principal) => status.registerState(principal))
  })

export const userStatus: Area = { name: "user status", commands, step, observe }
