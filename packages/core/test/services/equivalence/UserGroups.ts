/**
 * Equivalence commands about user groups through their service: create
 * (with members and subgroups), rename and describe, add and remove members
 * and subgroups (cycles refused), deactivate: mostly by the owner, else by
 * callers of every role.
 * Observed: each active user's list of groups, deactivated ones included
 * (or the refusal a guest or bot gets), and every group's recursive members.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { GroupId } from "../../../src/domain/Ids.ts"
import type { Principal } from "../../../src/domain/Principal.ts"
import { UserGroups } from "../../../src/services/UserGroups.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { outcome, Pick, Picks, Pool, remembered } from "./Runner.ts"

/** Names from a small pool (duplicates happen); a reserved prefix and a blank one are refused. */
const groupName = (kind: number) => ["team", "Team", "support", "role:admins", "  "][kind]!

const commands = [
  [3, Schema.TaggedStruct("CreateUserGroup", { by: Pick, name: Pool(5), members: Picks, subgroups: Picks })],
  /**
   * `name` 0: a new name; 1: left alone; 2 and 3 as CreateUserGroup's. `description` 1: left alone (small
   * values are drawn most, so 0 is the usual change).
   */
  [5, Schema.TaggedStruct("EditUserGroup", { by: Pick, which: Pick, name: Pool(4), description: Pool(3) })],
  /** `change` 0: add `one`; 1: remove `one`; 2: add `one`, remove `other`. */
  [4, Schema.TaggedStruct("UserGroupMembers", { by: Pick, which: Pick, change: Pool(3), one: Pick, other: Pick })],
  [3, Schema.TaggedStruct("UserGroupSubgroups", { by: Pick, which: Pick, change: Pool(3), one: Pick, other: Pick })],
  [2, Schema.TaggedStruct("DeactivateUserGroup", { by: Pick, which: Pick })]
] as const

type GroupsCommand = typeof commands[number][1]["Type"]

/** Who or what a membership command adds and removes. */
const changeOf = (
  c: { readonly change: number; readonly one: number; readonly other: number },
  at: (i: number) => number
) => ({
  add: c.change === 1 ? [] : [at(c.one)],
  delete: c.change === 0 ? [] : [at(c.change === 1 ? c.one : c.other)]
})

const tags = new Set<string>(commands.map(([, schema]) => schema.fields._tag.schema.literal))

const step = (w: World, raw: Command, n: number): Effect.Effect<Outcome, never, any> | undefined => {
  if (!tags.has(raw._tag)) return undefined
  const command = raw as unknown as GroupsCommand
  return Effect.gen(function*() {
    const groups = yield* UserGroups
    /** The groups made here; 7 is the members system group (refused edits), 5 a missing group. */
    const made = remembered(w, "groups")
    const groupAt = (i: number) =>
      i === 7 ? w.systemGroups["role:members"]! : w.pickFrom(made.map((g) => g.id as GroupId), i, (n) => n as GroupId)
    switch (command._tag) {
      case "CreateUserGroup":
        return yield* w.asAdministrator(command.by, (principal) =>
          Effect.gen(function*() {
            const result = yield* outcome(groups.create(principal, {
              name: groupName(command.name),
              description: "A group",
              members: command.members.map(w.userAt),
              subgroups: command.subgroups.map(groupAt)
            }))
            if ("ok" in result) {
              w.groupIds.push(result.ok as GroupId)
              made.push({ id: result.ok as number, owner: principal.user.id })
            }
            return result
          }))
      case "EditUserGroup":
        return yield* w.asAdministrator(command.by, (principal) =>
          outcome(groups.update(principal, groupAt(command.which), {
            ...(command.name === 1 ? {} : { name: command.name === 0 ? `renamed ${n}` : groupName(command.name) }),
            ...(command.description === 1 ? {} : { description: ["Renamed", "", "d".repeat(1025)][command.description]! })
          })))
      case "UserGroupMembers":
        return yield* w.asAdministrator(command.by, (principal) =>
          outcome(groups.updateMembers(principal, groupAt(command.which), changeOf(command, w.userAt))))
      case "UserGroupSubgroups":
        return yield* w.asAdministrator(command.by, (principal) =>
          outcome(groups.updateSubgroups(principal, groupAt(command.which), changeOf(command, groupAt))))
      case "DeactivateUserGroup":
        return yield* w.asAdministrator(command.by, (principal) => outcome(groups.deactivate(principal, groupAt(command.which))))
    }
  })
}

const observe = (w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const groups = yield* UserGroups
    const owner = viewers.find((principal) => principal.user.id === w.ownerId) ?? viewers[0]
    return {
      lists: yield* Effect.forEach(viewers, (principal) => outcome(groups.list(principal, { includeDeactivated: true }))),
      members: owner === undefined ? [] : yield* Effect.forEach(w.groupIds, (id) =>
        Effect.all({
          direct: outcome(groups.members(owner, id, { directOnly: true })),
          recursive: outcome(groups.members(owner, id, { directOnly: false }))
        }))
    }
  })

export const userGroups: Area = { name: "user groups", commands, step, observe }
