/**
 * Custom profile fields: the organization's field definitions (eight types,
 * `field_data` for option lists and external accounts) and users' values,
 * with the record shape clients read (Zulip's `CustomProfileField.as_dict`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ProfileFieldId, RealmId, UserId } from "./Ids.ts"

/** The field types, by the integer clients send and read. @category constants */
export const ProfileFieldTypes = {
  shortText: 1,
  longText: 2,
  select: 3,
  date: 4,
  url: 5,
  user: 6,
  externalAccount: 7,
  pronouns: 8
} as const

/** @category models */
export const ProfileFieldType = Schema.Literals([1, 2, 3, 4, 5, 6, 7, 8])
/** @category models */
export type ProfileFieldType = typeof ProfileFieldType.Type

/** Register's `custom_profile_field_types`. @category constants */
export const CustomProfileFieldTypes = {
  SHORT_TEXT: { id: 1, name: "Text (short)" },
  LONG_TEXT: { id: 2, name: "Text (long)" },
  SELECT: { id: 3, name: "List of options" },
  DATE: { id: 4, name: "Date picker" },
  URL: { id: 5, name: "Link" },
  USER: { id: 6, name: "Users" },
  EXTERNAL_ACCOUNT: { id: 7, name: "External account" },
  PRONOUNS: { id: 8, name: "Pronouns" }
} as const

/**
 * The built-in external accounts (register's
 * `realm_default_external_accounts`): a field of one of these subtypes takes
 * its name and hint from here.
 *
 * @category constants
 */
export const DefaultExternalAccounts = {
  github: { name: "GitHub", text: "GitHub", hint: "Enter your GitHub username", url_pattern: "https://github.com/%(username)s" },
  twitter: {
    name: "Twitter",
    text: "Twitter",
    hint: "Enter your Twitter username",
    url_pattern: "https://twitter.com/%(username)s"
  }
} as const

/** Whether `subtype` names a built-in external account. @category predicates */
export const isDefaultExternalAccount = (subtype: unknown): subtype is keyof typeof DefaultExternalAccounts =>
  typeof subtype === "string" && Object.hasOwn(DefaultExternalAccounts, subtype)

/** Field-level limits, Zulip's. @category constants */
export const ProfileFieldLimits = {
  name: 40,
  hint: 80,
  /** Fields with `display_in_profile_summary` per organization. */
  summaryFields: 2,
  shortValue: 50,
  longValue: 500
} as const

/** @category models */
export const CustomProfileField = Schema.Struct({
  id: ProfileFieldId,
  realm_id: RealmId,
  name: Schema.String,
  hint: Schema.String,
  type: ProfileFieldType,
  /** JSON text for option lists and external accounts, `""` otherwise. */
  field_data: Schema.String,
  order: Schema.Int,
  required: Schema.Boolean,
  editable_by_user: Schema.Boolean,
  display_in_profile_summary: Schema.Boolean
})
/** @category models */
export type CustomProfileField = typeof CustomProfileField.Type

/** A user's value of one field. @category models */
export const ProfileFieldValue = Schema.Struct({
  field_id: ProfileFieldId,
  user_id: UserId,
  /** Text, an option key, a date, a URL, or (person pickers) a JSON list of user ids. */
  value: Schema.String,
  /** HTML for the Markdown types, null for the others. */
  rendered_value: Schema.NullOr(Schema.String)
})
/** @category models */
export type ProfileFieldValue = typeof ProfileFieldValue.Type

/** Whether values of this type are Markdown (and carry `rendered_value`). @category predicates */
export const isRenderable = (type: ProfileFieldType): boolean =>
  type === ProfileFieldTypes.shortText || type === ProfileFieldTypes.longText

/** The field as GET /realm/profile_fields and register show it. @category models */
export interface ApiProfileField {
  readonly id: number
  readonly name: string
  readonly type: number
  readonly hint: string
  readonly field_data: string
  readonly order: number
  readonly required: boolean
  readonly editable_by_user: boolean
  /** Present (true) only when set, as Zulip sends it. */
  readonly display_in_profile_summary?: true
}

/** @category views */
export const toApiField = (field: CustomProfileField): ApiProfileField => {
  const out: ApiProfileField = {
    id: field.id,
    name: field.name,
    type: field.type,
    hint: field.hint,
    field_data: field.field_data,
    order: field.order,
    required: field.required,
    editable_by_user: field.editable_by_user
  }
  return field.display_in_profile_summary ? { ...out, display_in_profile_summary: true } : out
}

/** A user's `profile_data`: values by field id (as a string key). @category models */
export type ProfileData = Record<string, { readonly value: string; readonly rendered_value?: string }>

/** The `profile_data` of one user from their values. @category views */
export const toProfileData = (values: ReadonlyArray<ProfileFieldValue>): ProfileData => {
  const out: ProfileData = {}
  for (const v of values) {
    out[String(v.field_id)] = v.rendered_value === null ? { value: v.value } : { value: v.value, rendered_value: v.rendered_value }
  }
  return out
}
