/**
 * Equivalence commands about invitation links: create (each role, with
 * channels, expiring or not), revoke, and join through them (a new account,
 * or a refusal: a revoked or used-up link, an address in use), with time
 * passing on the script's clock. Observed: each active user's list of
 * invitations (or the refusal a guest gets).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { UserId } from "../../../src/domain/Ids.ts"
import type { Principal } from "../../../src/domain/Principal.ts"
import { RealmRepo } from "../../../src/ports/Repositories.ts"
import { Invitations } from "../../../src/services/Invitations.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { outcome, Pick, Picks, Pool, remembered, rememberedAt, RoleCode } from "./Runner.ts"

const commands = [
  /** `expires` 0: the default; 1: never; 2: an hour; 3: a negative time (refused). */
  [3, Schema.TaggedStruct("Invite", { user: Pick, as: RoleCode, expires: Pool(4), channels: Picks })],
  [2, Schema.TaggedStruct("RevokeInvite", { which: Pick, byOther: Pool(4) })],
  /** `email` from a small pool, so the same address joins twice. */
  [3, Schema.TaggedStruct("JoinByInvite", { which: Pick, email: Pool(3), name: Pool(2) })]
] as const

type InvitationsCommand = typeof commands[number][1]["Type"]

const keyOf = (link: string) => link.split("/").filter((part) => part !== "").at(-1)!

const step = (w: World, raw: Command): Effect.Effect<Outcome, never, any> | undefined => {
  if (!["Invite", "RevokeInvite", "JoinByInvite"].includes(raw._tag)) return undefined
  const command = raw as unknown as InvitationsCommand
  return Effect.gen(function*() {
    const invitations = yield* Invitations
    switch (command._tag) {
      case "Invite":
        return yield* w.asCaller(command.user, (principal) =>
          Effect.gen(function*() {
            const result = yield* outcome(invitations.create(principal, {
              invite_as: command.as,
              ...(command.expires === 0 ? {} : { invite_expires_in_minutes: [null, null, 60, -5][command.expires] }),
              stream_ids: command.channels.map(w.channelAt)
            }))
            if ("ok" in result) {
              const made = result.ok as { readonly id: number; readonly invite_link: string }
              remembered(w, "invitations").push({ id: made.id, owner: principal.user.id, key: keyOf(made.invite_link) })
            }
            return result
          }))
      case "RevokeInvite": {
        const target = rememberedAt(w, "invitations", command.which, command.byOther)
        const principal = yield* w.callerById(target.by)
        if (principal === undefined) return { skipped: "no such active user" }
        return yield* outcome(invitations.revoke(principal, target.id))
      }
      case "JoinByInvite": {
        const target = rememberedAt(w, "invitations", command.which, 0)
        const realm = (yield* (yield* RealmRepo).findById(w.realmId))!
        const result = yield* outcome(invitations.join(realm, target.key, {
          full_name: ["Newcomer", "   "][command.name]!,
          email: `joiner${command.email}@equiv.test`,
          password: "a long enough passphrase 42"
        }))
        if ("ok" in result) w.userIds.push((result.ok as { readonly id: UserId }).id)
        return result
      }
    }
  })
}

const observe = (_w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const invitations = yield* Invitations
    return yield* Effect.forEach(viewers, (principal) => outcome(invitations.list(principal)))
  })

export const invitations: Area = { name: "invitations", commands, step, observe }
