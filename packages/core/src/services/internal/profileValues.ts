/**
 * Users' custom profile field values, shared by the administrator's PATCH
 * /users/{id} (Users) and the user's own PATCH /users/me/profile_data
 * (CustomProfileFields): Zulip's checks of each value by field type, then
 * the writes and their `realm_user` events, inside the caller's transaction.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { isRenderable, ProfileFieldLimits, ProfileFieldTypes, toProfileData } from "../../domain/CustomProfileField.ts"
import type { CustomProfileField, ProfileData, ProfileFieldValue } from "../../domain/CustomProfileField.ts"
import { Audience } from "../../domain/Event.ts"
import type { EventPayload } from "../../domain/Event.ts"
import type { PersonUpdate } from "../../domain/events/UserEvents.ts"
import type { RealmId, UserId } from "../../domain/Ids.ts"
import type { User } from "../../domain/User.ts"
import {
  BadRequest,
  InvalidProfileChoice,
  InvalidUserIdColon,
  ProfileFieldNotFound,
  ProfileUserDeactivated,
  ProfileUserIsBot
} from "../../errors/Errors.ts"
import { renderDescription } from "../../markdown/Description.ts"
import type { ProfileFieldRepo } from "../../ports/ProfileFieldRepo.ts"

/** An event and its audience (what `Events.publishAll` takes). */
interface ValueEvent {
  readonly event: EventPayload
  readonly audience: Audience
}

/** One element of `profile_data` / `data`: null or empty clears the value. @category models */
export interface ProfileDataEntry {
  readonly id: number
  readonly value: string | ReadonlyArray<number> | null
}

/** @category errors */
export type ProfileValueError =
  | ProfileFieldNotFound
  | BadRequest
  | InvalidProfileChoice
  | InvalidUserIdColon
  | ProfileUserDeactivated
  | ProfileUserIsBot

/** A checked change: the new stored text, or null to clear. */
export interface ValueChange {
  readonly field: CustomProfileField
  readonly value: string | null
}

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/

const isDate = (text: string): boolean => {
  const m = datePattern.exec(text)
  if (m === null) return false
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return date.getUTCFullYear() === Number(m[1]) && date.getUTCMonth() === Number(m[2]) - 1 &&
    date.getUTCDate() === Number(m[3])
}

/** Django's URLValidator, roughly: a web or FTP scheme and a host. */
export const isUrl = (text: string): boolean => {
  if (!URL.canParse(text)) return false
  const url = new URL(text)
  return ["http:", "https:", "ftp:", "ftps:"].includes(url.protocol) && url.hostname !== ""
}

const tooLong = (name: string, limit: number) => new BadRequest({ msg: `${name} is too long (limit: ${limit} characters)` })

/** Zulip's `validate_user_custom_profile_field`: the stored text of a non-empty value. */
const checkValue = (
  field: CustomProfileField,
  value: string | ReadonlyArray<number>,
  users: ReadonlyMap<number, User>
): Effect.Effect<string, ProfileValueError> => {
  const name = field.name
  if (field.type === ProfileFieldTypes.user) {
    if (typeof value === "string") return Effect.fail(new BadRequest({ msg: "User IDs is not a list" }))
    for (const id of value) {
      const user = users.get(id)
      if (user === undefined) return Effect.fail(new InvalidUserIdColon({ user_id: id }))
      if (!user.is_active) return Effect.fail(new ProfileUserDeactivated({ user_id: id }))
      if (user.is_bot) return Effect.fail(new ProfileUserIsBot({ user_id: id }))
    }
    return Effect.succeed(JSON.stringify(value))
  }
  if (typeof value !== "string") return Effect.fail(new BadRequest({ msg: `${name} is not a string` }))
  switch (field.type) {
    case ProfileFieldTypes.longText:
      return Array.from(value).length > ProfileFieldLimits.longValue
        ? Effect.fail(tooLong(name, ProfileFieldLimits.longValue))
        : Effect.succeed(value)
    case ProfileFieldTypes.date:
      return isDate(value) ? Effect.succeed(value) : Effect.fail(new BadRequest({ msg: `${name} is not a date` }))
    case ProfileFieldTypes.url:
      return isUrl(value) ? Effect.succeed(value) : Effect.fail(new BadRequest({ msg: `${name} is not a URL` }))
    case ProfileFieldTypes.select: {
      const choices = field.field_data === "" ? {} : JSON.parse(field.field_data) as Record<string, unknown>
      return Object.hasOwn(choices, value)
        ? Effect.succeed(value)
        : Effect.fail(new InvalidProfileChoice({ value, field_name: name }))
    }
    default:
      // Short text, external accounts and pronouns.
      return Array.from(value).length > ProfileFieldLimits.shortValue
        ? Effect.fail(tooLong(name, ProfileFieldLimits.shortValue))
        : Effect.succeed(value)
  }
}

const isEmpty = (value: ProfileDataEntry["value"]) =>
  value === null || (typeof value === "string" ? value === "" : value.length === 0)

/**
 * Checks `entries` against the organization's fields and users: every field
 * must exist ("Field id N not found."), be editable by its user when
 * `editableOnly` (Zulip's refusal for non-administrators), and every
 * non-empty value fit its type. Nothing is written.
 */
export const planValues = Effect.fnUntraced(function*(
  fields: ReadonlyArray<CustomProfileField>,
  users: ReadonlyArray<User>,
  entries: ReadonlyArray<ProfileDataEntry>,
  editableOnly: boolean
) {
  const byId = new Map(fields.map((f) => [f.id as number, f]))
  const planned: Array<{ readonly field: CustomProfileField; readonly entry: ProfileDataEntry }> = []
  for (const entry of entries) {
    const field = byId.get(entry.id)
    if (field === undefined) return yield* new ProfileFieldNotFound({ field_id: entry.id })
    if (editableOnly && !field.editable_by_user) {
      return yield* new BadRequest({ msg: "You are not allowed to change this field. Contact an administrator to update it." })
    }
    planned.push({ field, entry })
  }
  const usersById = new Map(users.map((u) => [u.id as number, u]))
  const changes: Array<ValueChange> = []
  for (const { entry, field } of planned) {
    changes.push({ field, value: isEmpty(entry.value) ? null : yield* checkValue(field, entry.value!, usersById) })
  }
  return changes
})

/**
 * Writes checked changes of `user`'s values and returns their events: one
 * `realm_user` update per value that changed (`value` null when cleared,
 * `rendered_value` for Markdown types), to everyone who can access the user.
 */
export const writeValues = Effect.fnUntraced(function*(
  repo: ProfileFieldRepo["Service"],
  user: User,
  changes: ReadonlyArray<ValueChange>
) {
  const current = new Map((yield* repo.valuesByUser(user.id)).map((v) => [v.field_id as number, v]))
  const publications: Array<ValueEvent> = []
  const person = (
    custom_profile_field: Extract<PersonUpdate, { readonly custom_profile_field: unknown }>["custom_profile_field"]
  ): ValueEvent => ({
    event: { type: "realm_user", op: "update", person: { user_id: user.id, custom_profile_field } },
    audience: Audience.canAccessUser(user.id)
  })
  for (const { field, value } of changes) {
    const existing = current.get(field.id)
    if (value === null) {
      if (existing === undefined) continue
      yield* repo.removeValue(field.id, user.id)
      current.delete(field.id)
      publications.push(person({ id: field.id, value: null }))
      continue
    }
    if (existing?.value === value) continue
    const rendered = isRenderable(field.type) ? renderDescription(value) : null
    const stored: ProfileFieldValue = { field_id: field.id, user_id: user.id, value, rendered_value: rendered }
    yield* repo.setValue(stored)
    current.set(field.id, stored)
    publications.push(person(rendered === null ? { id: field.id, value } : { id: field.id, value, rendered_value: rendered }))
  }
  return publications
})

/** Every user's `profile_data` in the organization (users without values are absent). */
export const profileDataByUser = Effect.fnUntraced(function*(repo: ProfileFieldRepo["Service"], realmId: RealmId) {
  const grouped = new Map<UserId, Array<ProfileFieldValue>>()
  for (const v of yield* repo.valuesByRealm(realmId)) {
    const list = grouped.get(v.user_id)
    if (list === undefined) grouped.set(v.user_id, [v])
    else list.push(v)
  }
  const out = new Map<UserId, ProfileData>()
  for (const [user, values] of grouped) out.set(user, toProfileData(values))
  return out
})
