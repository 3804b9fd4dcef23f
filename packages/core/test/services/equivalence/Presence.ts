/**
 * Equivalence commands about presence: pings of each status, with and
 * without new user input, at moments apart on the script's clock. Observed:
 * each active user's presence snapshot, modern and legacy.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import type { Principal } from "../../../src/domain/Principal.ts"
import { Presence } from "../../../src/services/Presence.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { outcome, Pick, Pool } from "./Runner.ts"

const commands = [
  /** `status` 2 is no status; `minutes` passes on the clock first. */
  [4, Schema.TaggedStruct("Ping", {
    user: Pick,
    status: Pool(3),
    newInput: Schema.Boolean,
    pingOnly: Schema.Boolean,
    slim: Schema.Boolean,
    minutes: Pool(3)
  })]
] as const

type PresenceCommand = typeof commands[number][1]["Type"]

const step = (w: World, raw: Command): Effect.Effect<Outcome, never, any> | undefined => {
  if (raw._tag !== "Ping") return undefined
  const command = raw as unknown as PresenceCommand
  return Effect.gen(function*() {
    const presence = yield* Presence
    yield* TestClock.adjust(`${[0, 1, 20][command.minutes]!} minutes`)
    return yield* w.asCaller(command.user, (principal) =>
      outcome(presence.ping(principal, {
        status: ["active", "idle", "away-ish"][command.status]!,
        ping_only: command.pingOnly,
        new_user_input: command.newInput,
        slim_presence: command.slim
      })))
  })
}

const observe = (_w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const presence = yield* Presence
    return yield* Effect.forEach(viewers, (principal) =>
      Effect.all({
        modern: presence.snapshot(principal, { slim: true }),
        legacy: presence.snapshot(principal, { slim: false })
      }))
  })

export const presence: Area = { name: "presence", commands, step, observe }
