/**
 * CustomProfileFields: the organization's custom profile fields (GET, POST,
 * PATCH, DELETE /realm/profile_fields, reordering) and a user's own values
 * (PATCH /users/me/profile_data), with Zulip's checks and texts and the
 * `custom_profile_fields` event (the whole list) after every change.
 *
 * Zulip sources: `zerver/views/custom_profile_fields.py`,
 * `zerver/actions/custom_profile_fields.py`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import type { AuditChange } from "../domain/AuditLog.ts"
import {
  DefaultExternalAccounts,
  isDefaultExternalAccount,
  ProfileFieldLimits,
  ProfileFieldType,
  ProfileFieldTypes,
  toApiField
} from "../domain/CustomProfileField.ts"
import type { ApiProfileField, CustomProfileField } from "../domain/CustomProfileField.ts"
import { Audience } from "../domain/Event.ts"
import type { ProfileFieldId, RealmId } from "../domain/Ids.ts"
import { profileFieldId } from "../domain/Ids.ts"
import type { Principal } from "../domain/Principal.ts"
import { isAdministrator } from "../domain/Role.ts"
import {
  BadRequest,
  BotsNotAllowed,
  CustomExternalAccountUrlRequired,
  DefaultFieldNotUpdatable,
  FieldDataKeyMissing,
  FieldDataNotAllowedType,
  InvalidExternalAccountType,
  InvalidFieldType,
  OrganizationAdministratorRequired,
  ProfileFieldLabelBlank,
  ProfileFieldLabelExists,
  ProfileFieldNotFound,
  ProfileSummaryLimit,
  ProfileSummaryTypeUnsupported,
  SelectFieldDuplicateChoices,
  SelectFieldNoChoices,
  UrlPatternMissingUsername
} from "../errors/Errors.ts"
import { ProfileFieldRepo } from "../ports/ProfileFieldRepo.ts"
import { UserRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { AuditLog } from "./AuditLog.ts"
import { Events } from "./events/Events.ts"
import { isUrl, planValues, writeValues } from "./internal/profileValues.ts"
import type { ProfileDataEntry, ProfileValueError } from "./internal/profileValues.ts"

export type { ProfileDataEntry, ProfileValueError } from "./internal/profileValues.ts"

/** `field_data` as sent: a JSON object, checked here by field type. @category models */
export type FieldData = Readonly<Record<string, unknown>>

/** POST /realm/profile_fields. @category models */
export interface NewProfileField {
  readonly field_type: number
  readonly name?: string
  readonly hint?: string
  readonly field_data?: FieldData
  readonly display_in_profile_summary?: boolean
  readonly required?: boolean
  readonly editable_by_user?: boolean
}

/** PATCH /realm/profile_fields/{id}; absent fields stay. @category models */
export interface ProfileFieldChanges {
  readonly name?: string
  readonly hint?: string
  readonly field_data?: FieldData
  readonly display_in_profile_summary?: boolean
  readonly required?: boolean
  readonly editable_by_user?: boolean
}

/** @category errors */
export type ProfileFieldError =
  | OrganizationAdministratorRequired
  | BadRequest
  | ProfileFieldNotFound
  | ProfileFieldLabelBlank
  | ProfileFieldLabelExists
  | InvalidFieldType
  | ProfileSummaryLimit
  | ProfileSummaryTypeUnsupported
  | SelectFieldNoChoices
  | SelectFieldDuplicateChoices
  | FieldDataNotAllowedType
  | FieldDataKeyMissing
  | InvalidExternalAccountType
  | CustomExternalAccountUrlRequired
  | UrlPatternMissingUsername
  | DefaultFieldNotUpdatable

type DataError = Exclude<ProfileFieldError, OrganizationAdministratorRequired | ProfileFieldNotFound>

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Zulip's `check_required_string` at `field_data["key"]`. */
const requiredString = (data: Record<string, unknown>, key: string): Effect.Effect<string, DataError> => {
  const value = data[key]
  if (typeof value !== "string") return Effect.fail(new BadRequest({ msg: `field_data["${key}"] is not a string` }))
  if (value.trim() === "") return Effect.fail(new BadRequest({ msg: `field_data["${key}"] cannot be blank.` }))
  return Effect.succeed(value)
}

/** Only `allowed` keys, and every one of `required` present (Zulip's `check_dict_only`). */
const onlyKeys = (data: Record<string, unknown>, required: ReadonlyArray<string>, optional: ReadonlyArray<string>) => {
  for (const key of required) if (!Object.hasOwn(data, key)) return Effect.fail(new FieldDataKeyMissing({ key }))
  const unexpected = Object.keys(data).filter((k) => !required.includes(k) && !optional.includes(k))
  if (unexpected.length > 0) return Effect.fail(new BadRequest({ msg: `Unexpected arguments: ${unexpected.join(", ")}` }))
  return Effect.void
}

/** Zulip's `validate_select_field_data`: options `{key: {text, order}}` with distinct texts. */
const checkSelectData = Effect.fnUntraced(function*(data: FieldData) {
  if (Object.keys(data).length < 1) return yield* new SelectFieldNoChoices()
  const texts = new Set<string>()
  for (const [key, option] of Object.entries(data)) {
    if (key.trim() === "") return yield* new BadRequest({ msg: "'value' cannot be blank." })
    if (!isObject(option)) return yield* new FieldDataNotAllowedType()
    yield* onlyKeys(option, ["text", "order"], [])
    texts.add(yield* requiredString(option, "text"))
    yield* requiredString(option, "order")
  }
  if (texts.size !== Object.keys(data).length) return yield* new SelectFieldDuplicateChoices()
})

/** Zulip's `validate_external_account_field_data`. */
const checkExternalAccountData = Effect.fnUntraced(function*(data: FieldData) {
  for (const value of Object.values(data)) if (typeof value !== "string") return yield* new FieldDataNotAllowedType()
  const record = data as Record<string, unknown>
  yield* onlyKeys(record, ["subtype"], ["url_pattern"])
  const subtype = yield* requiredString(record, "subtype")
  if (Object.hasOwn(record, "url_pattern")) {
    const pattern = record.url_pattern as string
    if (pattern.split("%(username)s").length !== 2) return yield* new UrlPatternMissingUsername()
    if (!isUrl(pattern.replace("%(username)s", "username"))) {
      return yield* new BadRequest({ msg: `field_data["url_pattern"] is not a URL` })
    }
  }
  if (!isDefaultExternalAccount(subtype)) {
    if (subtype !== "custom") return yield* new InvalidExternalAccountType()
    if (!Object.hasOwn(record, "url_pattern")) return yield* new CustomExternalAccountUrlRequired()
  }
})

const isDefaultExternalField = (type: number, data: FieldData) =>
  type === ProfileFieldTypes.externalAccount && isDefaultExternalAccount(data.subtype)

/**
 * Zulip's `validate_custom_profile_field`: the field data for its type, the
 * label and hint (unless a built-in external account supplies them), the
 * type, and which types may show in the profile summary.
 */
const checkDefinition = Effect.fnUntraced(function*(
  name: string,
  hint: string,
  type: number,
  data: FieldData,
  summary: boolean
) {
  if (type === ProfileFieldTypes.select) yield* checkSelectData(data)
  else if (type === ProfileFieldTypes.externalAccount) yield* checkExternalAccountData(data)
  if (!isDefaultExternalField(type, data)) {
    if (name.trim() === "") return yield* new ProfileFieldLabelBlank()
    if (Array.from(name).length > ProfileFieldLimits.name) {
      return yield* new BadRequest({ msg: `name is too long (limit: ${ProfileFieldLimits.name} characters)` })
    }
    if (Array.from(hint).length > ProfileFieldLimits.hint) {
      return yield* new BadRequest({ msg: `hint is too long (limit: ${ProfileFieldLimits.hint} characters)` })
    }
  }
  if (!(ProfileFieldType.literals as ReadonlyArray<number>).includes(type)) return yield* new InvalidFieldType()
  if (summary && (type === ProfileFieldTypes.longText || type === ProfileFieldTypes.user)) {
    return yield* new ProfileSummaryTypeUnsupported()
  }
})

/** The stored `field_data` text: JSON for option lists and external accounts, else empty. */
const storedData = (type: number, data: FieldData): string =>
  type === ProfileFieldTypes.select || type === ProfileFieldTypes.externalAccount ? JSON.stringify(data) : ""

const parsedData = (field: CustomProfileField): FieldData =>
  field.field_data === "" ? {} : JSON.parse(field.field_data) as FieldData

/** What PATCH may change, as the audit log shows it (`field_data` parsed). */
const auditedProperties = (field: CustomProfileField) => ({
  name: field.name,
  hint: field.hint,
  field_data: parsedData(field) as Schema.JsonObject,
  required: field.required,
  editable_by_user: field.editable_by_user,
  display_in_profile_summary: field.display_in_profile_summary
})

/**
 * The field's properties that differ, before and after (teamchat's own
 * type: Zulip does not log profile fields); undefined when none do.
 */
const propertiesChanged = (before: CustomProfileField, after: CustomProfileField): AuditChange | undefined => {
  const old: Record<string, Schema.Json> = {}
  const changed: Record<string, Schema.Json> = {}
  const a = auditedProperties(before)
  const b = auditedProperties(after)
  for (const key of Object.keys(a) as Array<keyof typeof a>) {
    if (JSON.stringify(a[key]) === JSON.stringify(b[key])) continue
    old[key] = a[key]
    changed[key] = b[key]
  }
  return Object.keys(changed).length === 0 ? undefined : {
    event_type: "custom_profile_field_properties_changed",
    extra_data: { custom_profile_field_id: before.id, old_value: old, new_value: changed }
  }
}

/** @category services */
export class CustomProfileFields extends Context.Service<CustomProfileFields, {
  /** GET /realm/profile_fields: every field, by order (any user). */
  list(principal: Principal): Effect.Effect<ReadonlyArray<ApiProfileField>>
  /** POST /realm/profile_fields: the new field's id. */
  create(principal: Principal, input: NewProfileField): Effect.Effect<ProfileFieldId, ProfileFieldError>
  /** PATCH /realm/profile_fields/{id} */
  update(principal: Principal, id: number, changes: ProfileFieldChanges): Effect.Effect<void, ProfileFieldError>
  /** DELETE /realm/profile_fields/{id}: the field and every value of it. */
  remove(principal: Principal, id: number): Effect.Effect<void, ProfileFieldError>
  /** PATCH /realm/profile_fields: `order` lists the field ids in their new order. */
  reorder(principal: Principal, order: ReadonlyArray<number>): Effect.Effect<void, ProfileFieldError>
  /** PATCH /users/me/profile_data */
  updateOwnData(
    principal: Principal,
    data: ReadonlyArray<ProfileDataEntry>
  ): Effect.Effect<void, ProfileValueError | BotsNotAllowed>
}>()("teamchat/core/services/CustomProfileFields") {
  static readonly layer = Layer.effect(
    CustomProfileFields,
    Effect.gen(function*() {
      const repo = yield* ProfileFieldRepo
      const users = yield* UserRepo
      const events = yield* Events
      const tx = yield* Transactor
      const audit = yield* AuditLog

      const requireAdministrator = (principal: Principal) =>
        isAdministrator(principal.user.role) ? Effect.void : Effect.fail(new OrganizationAdministratorRequired())

      /** The whole list to everyone in the organization, as Zulip's `notify_realm_custom_profile_fields`. */
      const publishFields = Effect.fnUntraced(function*(realmId: RealmId) {
        const fields = yield* repo.listByRealm(realmId)
        yield* events.publish(realmId, { type: "custom_profile_fields", fields: fields.map(toApiField) }, Audience.realm)
      })

      const requireField = Effect.fnUntraced(function*(realmId: RealmId, id: number) {
        const field = Number.isSafeInteger(id) && id > 0 ? yield* repo.findById(profileFieldId(id)) : undefined
        if (field === undefined || field.realm_id !== realmId) return yield* new ProfileFieldNotFound({ field_id: id })
        return field
      })

      const summaryLimitReached = (fields: ReadonlyArray<CustomProfileField>, except?: ProfileFieldId) =>
        fields.filter((f) => f.display_in_profile_summary && f.id !== except).length >= ProfileFieldLimits.summaryFields

      const create = Effect.fn("CustomProfileFields.create")((principal: Principal, input: NewProfileField) =>
        tx.withTransaction(Effect.gen(function*() {
          yield* requireAdministrator(principal)
          const realmId = principal.realm.id
          yield* repo.lockFields(realmId, "definitions")
          const fields = yield* repo.listByRealm(realmId)
          const summary = input.display_in_profile_summary ?? false
          if (summary && summaryLimitReached(fields)) return yield* new ProfileSummaryLimit()
          const data = input.field_data ?? {}
          yield* checkDefinition(input.name ?? "", input.hint ?? "", input.field_type, data, summary)
          const type = input.field_type as ProfileFieldType
          // A built-in external account brings its own label and hint.
          const builtIn = isDefaultExternalField(type, data)
            ? DefaultExternalAccounts[data.subtype as keyof typeof DefaultExternalAccounts]
            : undefined
          const name = builtIn?.name ?? input.name ?? ""
          if (fields.some((f) => f.name === name)) return yield* new ProfileFieldLabelExists()
          const field = yield* repo.insert((id) => ({
            realm_id: realmId,
            name,
            hint: builtIn?.hint ?? input.hint ?? "",
            type,
            field_data: builtIn !== undefined ? JSON.stringify({ subtype: data.subtype }) : storedData(type, data),
            order: id,
            required: input.required ?? false,
            editable_by_user: input.editable_by_user ?? true,
            display_in_profile_summary: summary
          }))
          yield* audit.record(realmId, principal.user.id, [{
            event_type: "custom_profile_field_created",
            extra_data: { custom_profile_field_id: field.id, name: field.name, type: field.type }
          }])
          yield* publishFields(realmId)
          return field.id
        }))
      )

      const update = Effect.fn("CustomProfileFields.update")((principal: Principal, id: number, changes: ProfileFieldChanges) =>
        tx.withTransaction(Effect.gen(function*() {
          yield* requireAdministrator(principal)
          const realmId = principal.realm.id
          yield* repo.lockFields(realmId, "definitions")
          const field = yield* requireField(realmId, id)
          const fields = yield* repo.listByRealm(realmId)
          if (changes.display_in_profile_summary === true && summaryLimitReached(fields, field.id)) {
            return yield* new ProfileSummaryLimit()
          }
          // Built-in external accounts keep their label, hint and data; only
          // the flags may change.
          if (
            isDefaultExternalField(field.type, parsedData(field)) &&
            ((changes.name !== undefined && changes.name !== field.name) ||
              (changes.hint !== undefined && changes.hint !== field.hint) ||
              (changes.field_data !== undefined && JSON.stringify(changes.field_data) !== field.field_data))
          ) {
            return yield* new DefaultFieldNotUpdatable()
          }
          const name = changes.name ?? field.name
          const hint = changes.hint ?? field.hint
          const data = changes.field_data ?? parsedData(field)
          yield* checkDefinition(name, hint, field.type, data, changes.display_in_profile_summary ?? false)
          if (fields.some((f) => f.id !== field.id && f.name === name)) return yield* new ProfileFieldLabelExists()
          const updated: CustomProfileField = {
            ...field,
            name,
            hint,
            field_data: changes.field_data === undefined ? field.field_data : storedData(field.type, data),
            required: changes.required ?? field.required,
            editable_by_user: changes.editable_by_user ?? field.editable_by_user,
            display_in_profile_summary: changes.display_in_profile_summary ?? field.display_in_profile_summary
          }
          yield* repo.update(updated)
          const changed = propertiesChanged(field, updated)
          yield* audit.record(realmId, principal.user.id, changed === undefined ? [] : [changed])
          // Values naming an option that is gone are dropped.
          if (field.type === ProfileFieldTypes.select && changes.field_data !== undefined) {
            yield* repo.removeValuesExcept(field.id, Object.keys(data))
          }
          yield* publishFields(realmId)
        }))
      )

      const remove = Effect.fn("CustomProfileFields.remove")((principal: Principal, id: number) =>
        tx.withTransaction(Effect.gen(function*() {
          yield* requireAdministrator(principal)
          yield* repo.lockFields(principal.realm.id, "definitions")
          const field = yield* requireField(principal.realm.id, id)
          yield* repo.delete(field.id)
          yield* audit.record(principal.realm.id, principal.user.id, [{
            event_type: "custom_profile_field_deleted",
            extra_data: { custom_profile_field_id: field.id, name: field.name }
          }])
          yield* publishFields(principal.realm.id)
        }))
      )

      const reorder = Effect.fn("CustomProfileFields.reorder")((principal: Principal, order: ReadonlyArray<number>) =>
        tx.withTransaction(Effect.gen(function*() {
          yield* requireAdministrator(principal)
          yield* repo.lockFields(principal.realm.id, "definitions")
          const positions = new Map<number, number>()
          order.forEach((id, index) => positions.set(id, index))
          const fields = yield* repo.listByRealm(principal.realm.id)
          if (fields.some((f) => !positions.has(f.id))) return yield* new BadRequest({ msg: "Invalid order mapping." })
          for (const field of fields) yield* repo.update({ ...field, order: positions.get(field.id)! })
          const before = fields.map((f) => f.id)
          const after = [...fields].sort((a, b) => positions.get(a.id)! - positions.get(b.id)!).map((f) => f.id)
          if (before.some((id, i) => after[i] !== id)) {
            yield* audit.record(principal.realm.id, principal.user.id, [{
              event_type: "custom_profile_fields_reordered",
              extra_data: { old_value: before, new_value: after }
            }])
          }
          yield* publishFields(principal.realm.id)
        }))
      )

      const updateOwnData = Effect.fn("CustomProfileFields.updateOwnData")(
        (principal: Principal, data: ReadonlyArray<ProfileDataEntry>) =>
          tx.withTransaction(Effect.gen(function*() {
            if (principal.user.is_bot) return yield* new BotsNotAllowed()
            const realmId = principal.realm.id
            yield* repo.lockFields(realmId, "values")
            const changes = yield* planValues(
              yield* repo.listByRealm(realmId),
              yield* users.listByRealm(realmId),
              data,
              !isAdministrator(principal.user.role)
            )
            yield* events.publishAll(realmId, yield* writeValues(repo, principal.user, changes))
          }))
      )

      return CustomProfileFields.of({
        list: (principal) => Effect.map(repo.listByRealm(principal.realm.id), (fields) => fields.map(toApiField)),
        create,
        update,
        remove,
        reorder,
        updateOwnData
      })
    })
  )
}
