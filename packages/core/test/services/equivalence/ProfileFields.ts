/**
 * Equivalence commands about custom profile fields: create (each simple
 * type, a select with choices, an unknown type, a duplicate or blank name,
 * more than two in the summary), reorder, update, delete, and the values
 * users set on them. The administrators' commands are mostly the owner's. Observed: the fields, and every user with their values
 * as each active user sees them.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Principal } from "../../../src/domain/Principal.ts"
import { RealmRepo } from "../../../src/ports/Repositories.ts"
import { CustomProfileFields } from "../../../src/services/CustomProfileFields.ts"
import { Users } from "../../../src/services/Users.ts"
import type { Area, Command, Outcome, World } from "./Runner.ts"
import { outcome, Pick, Picks, Pool, remembered, rememberedAt } from "./Runner.ts"

/** Short text, long text, date, URL, user, pronouns, a select, and 99 (no such type). */
const fieldTypes = [1, 2, 4, 5, 6, 8, 3, 99] as const
/** Names from a small pool (duplicates happen), the last one blank. */
const fieldName = (kind: number) => ["Phone", "Team", "Birthday", "Website", "   "][kind]!
const selectData = { "0": { text: "Tea", order: "1" }, "1": { text: "Coffee", order: "2" } }

const commands = [
  [3, Schema.TaggedStruct("CreateField", { by: Pick, type: Pool(8), name: Pool(5), summary: Schema.Boolean })],
  /** `order` 0: reversed; 1: as it is; 2: one left out (refused). */
  [2, Schema.TaggedStruct("ReorderFields", { by: Pick, order: Pool(3) })],
  /** `name` 5 or `summary` 2: left alone. */
  [3, Schema.TaggedStruct("UpdateField", { by: Pick, which: Pick, name: Pool(6), hint: Pool(3), summary: Pool(3) })],
  [2, Schema.TaggedStruct("DeleteField", { by: Pick, which: Pick })],
  /** A value per field picked, by kind: 0 text, 1 a URL, 2 a date, 3 a user, 4 cleared. */
  [4, Schema.TaggedStruct("SetProfileValues", { user: Pick, fields: Picks, value: Pool(5), target: Pick })]
] as const

type FieldsCommand = typeof commands[number][1]["Type"]

const step = (w: World, raw: Command): Effect.Effect<Outcome, never, any> | undefined => {
  if (!["CreateField", "ReorderFields", "UpdateField", "DeleteField", "SetProfileValues"].includes(raw._tag)) return undefined
  const command = raw as unknown as FieldsCommand
  return Effect.gen(function*() {
    const fields = yield* CustomProfileFields
    const fieldAt = (which: number) => rememberedAt(w, "fields", which, 0).id
    switch (command._tag) {
      case "CreateField":
        return yield* w.asAdministrator(command.by, (principal) =>
          Effect.gen(function*() {
            const type = fieldTypes[command.type]!
            const result = yield* outcome(fields.create(principal, {
              field_type: type,
              name: fieldName(command.name),
              hint: "",
              ...(type === 3 ? { field_data: selectData } : {}),
              display_in_profile_summary: command.summary
            }))
            if ("ok" in result) remembered(w, "fields").push({ id: result.ok as number, owner: principal.user.id })
            return result
          }))
      case "ReorderFields":
        return yield* w.asAdministrator(command.by, (principal) =>
          Effect.gen(function*() {
            const ids = (yield* fields.list(principal)).map((field) => field.id)
            const order = command.order === 0 ? [...ids].reverse() : command.order === 1 ? ids : ids.slice(1)
            return yield* outcome(fields.reorder(principal, order))
          }))
      case "UpdateField":
        return yield* w.asAdministrator(command.by, (principal) =>
          outcome(fields.update(principal, fieldAt(command.which), {
            ...(command.name === 5 ? {} : { name: fieldName(command.name) }),
            ...(command.hint === 0 ? {} : { hint: ["", "How to reach you", "h".repeat(81)][command.hint]! }),
            ...(command.summary === 2 ? {} : { display_in_profile_summary: command.summary === 1 })
          })))
      case "DeleteField":
        return yield* w.asAdministrator(command.by, (principal) => outcome(fields.remove(principal, fieldAt(command.which))))
      case "SetProfileValues":
        return yield* w.asCaller(command.user, (principal) =>
          outcome(fields.updateOwnData(
            principal,
            command.fields.map((which) => ({
              id: fieldAt(which),
              value: ["Hello", "https://example.com/me", "2024-01-31", [w.userAt(command.target)], null][command.value]!
            }))
          )))
    }
  })
}

const observe = (w: World, viewers: ReadonlyArray<Principal>) =>
  Effect.gen(function*() {
    const fields = yield* CustomProfileFields
    const users = yield* Users
    const realm = (yield* (yield* RealmRepo).findById(w.realmId))!
    return yield* Effect.forEach(viewers, (principal) =>
      Effect.all({
        fields: fields.list(principal),
        users: users.list(realm, principal.user, { clientGravatar: true, includeCustomProfileFields: true })
      }))
  })

export const profileFields: Area = { name: "profile fields", commands, step, observe }
