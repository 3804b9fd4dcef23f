/**
 * Equivalence commands about push devices: registrations (a bot's and
 * malformed keys refused), which the test bouncer of the runner accepts
 * for an even push account and refuses for an odd one; a step waits until
 * the bouncer's answer is settled, so both backends are observed at the same
 * point. Observed: each active user's devices, as register shows them.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Principal } from "../../../src/domain/Principal.ts"
import { PushDevices } from "../../../src/services/PushDevices.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { outcome, Pick, Pool } from "./Runner.ts"

const commands = [
  /** `key` 2: not base64 (refused); `accepted`: an even push account, which the test bouncer accepts. */
  [3, Schema.TaggedStruct("RegisterDevice", {
    user: Pick,
    account: Pool(2),
    accepted: Schema.Boolean,
    key: Pool(3),
    apns: Schema.Boolean
  })]
] as const

type PushCommand = typeof commands[number][1]["Type"]

const step = (w: World, raw: Command): Effect.Effect<Outcome, never, any> | undefined => {
  if (raw._tag !== "RegisterDevice") return undefined
  const command = raw as unknown as PushCommand
  return Effect.gen(function*() {
    const devices = yield* PushDevices
    return yield* w.asCaller(command.user, (principal) =>
      Effect.gen(function*() {
        const result = yield* outcome(devices.register(principal, {
          token_kind: command.apns ? "apns" : "fcm",
          push_account_id: 2 * command.account + (command.accepted ? 2 : 1),
          push_public_key: ["cHVibGljIGtleQ==", "a2V5IHR3bw==", "not base64!"][command.key]!,
          bouncer_public_key: "Ym91bmNlcg==",
          encrypted_push_registration: "c2VjcmV0IHJlZ2lzdHJhdGlvbg=="
        }))
        // The bouncer's answer is settled by a fiber of its own: waited for, a bounded number of turns.
        for (let turn = 0; turn < 10_000; turn++) {
          const state = yield* devices.registerState(principal)
          if (!Object.values(state).some((device) => device.status === "pending")) break
          yield* Effect.yieldNow
        }
        return result
      }))
  })
}

const observe = (_w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const devices = yield* PushDevices
    return yield* Effect.forEach(viewers, (principal) => devices.registerState(principal))
  })

/** A registration the bouncer accepts (even account) or refuses (odd one). */
const reached = (command: Command) =>
  (command as unknown as PushCommand).accepted ? "DeviceRegistered" : "DeviceRefusedByBouncer"

export const pushDevices: Area = { name: "push devices", commands, step, observe, reached }
