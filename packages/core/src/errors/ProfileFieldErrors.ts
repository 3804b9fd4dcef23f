/**
 * Errors of custom profile field definitions (/realm/profile_fields).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileFieldLabelBlank extends ZulipError.make<ProfileFieldLabelBlank>()("ProfileFieldLabelBlank", {
  code: "BAD_REQUEST",
  message: "Label cannot be blank."
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class InvalidFieldType extends ZulipError.make<InvalidFieldType>()("InvalidFieldType", {
  code: "BAD_REQUEST",
  message: "Invalid field type."
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileFieldLabelExists extends ZulipError.make<ProfileFieldLabelExists>()("ProfileFieldLabelExists", {
  code: "BAD_REQUEST",
  message: "A field with that label already exists."
}) {}

/**
 * `display_in_profile_summary` on a long-text or user field.
 *
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileSummaryTypeUnsupported
  extends ZulipError.make<ProfileSummaryTypeUnsupported>()("ProfileSummaryTypeUnsupported", {
    code: "BAD_REQUEST",
    message: "Field type not supported for display in profile summary."
  })
{}

/**
 * A third field with `display_in_profile_summary`.
 *
 * @category custom profile fields
 * @since 0.1.0
 */
export class ProfileSummaryLimit extends ZulipError.make<ProfileSummaryLimit>()("ProfileSummaryLimit", {
  code: "BAD_REQUEST",
  message: "Only 2 custom profile fields can be displayed in the profile summary."
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class SelectFieldNoChoices extends ZulipError.make<SelectFieldNoChoices>()("SelectFieldNoChoices", {
  code: "BAD_REQUEST",
  message: "Field must have at least one choice."
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class SelectFieldDuplicateChoices
  extends ZulipError.make<SelectFieldDuplicateChoices>()("SelectFieldDuplicateChoices", {
    code: "BAD_REQUEST",
    message: "Field must not have duplicate choices."
  })
{}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class FieldDataNotAllowedType extends ZulipError.make<FieldDataNotAllowedType>()("FieldDataNotAllowedType", {
  code: "BAD_REQUEST",
  message: "field_data contains a value that is not an allowed_type"
}) {}

/**
 * A required `field_data` key (`order`, `text`, `subtype`) is absent.
 *
 * @category custom profile fields
 * @since 0.1.0
 */
export class FieldDataKeyMissing extends ZulipError.make<FieldDataKeyMissing>()("FieldDataKeyMissing", {
  code: "BAD_REQUEST",
  params: { key: Schema.String },
  message: ({ key }) => `${key} key is missing from field_data`
}) {}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class InvalidExternalAccountType
  extends ZulipError.make<InvalidExternalAccountType>()("InvalidExternalAccountType", {
    code: "BAD_REQUEST",
    message: "Invalid external account type"
  })
{}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class CustomExternalAccountUrlRequired
  extends ZulipError.make<CustomExternalAccountUrlRequired>()("CustomExternalAccountUrlRequired", {
    code: "BAD_REQUEST",
    message: "Custom external account must define URL pattern"
  })
{}

/**
 * @category custom profile fields
 * @since 0.1.0
 */
export class UrlPatternMissingUsername extends ZulipError.make<UrlPatternMissingUsername>()("UrlPatternMissingUsername", {
  code: "BAD_REQUEST",
  message: "URL pattern must contain '%(username)s'."
}) {}

/**
 * Editing a built-in external-account field beyond its summary flag.
 *
 * @category custom profile fields
 * @since 0.1.0
 */
export class DefaultFieldNotUpdatable extends ZulipError.make<DefaultFieldNotUpdatable>()("DefaultFieldNotUpdatable", {
  code: "BAD_REQUEST",
  message: "Default custom field cannot be updated."
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const ProfileFieldErrors = [
  ProfileFieldLabelBlank,
  InvalidFieldType,
  ProfileFieldLabelExists,
  ProfileSummaryTypeUnsupported,
  ProfileSummaryLimit,
  SelectFieldNoChoices,
  SelectFieldDuplicateChoices,
  FieldDataNotAllowedType,
  FieldDataKeyMissing,
  InvalidExternalAccountType,
  CustomExternalAccountUrlRequired,
  UrlPatternMissingUsername,
  DefaultFieldNotUpdatable
] as const
