/**
 * Errors of request parameters: missing, ambiguous, of the wrong type or out of range.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

/**
 * A required parameter is absent.
 *
 * @category parameters
 * @since 0.1.0
 */
export class RequestVariableMissing extends ZulipError.make<RequestVariableMissing>()("RequestVariableMissing", {
  code: "REQUEST_VARIABLE_MISSING",
  fields: { var_name: Schema.String },
  message: ({ var_name }) => `Missing '${var_name}' argument`
}) {}

/**
 * The same parameter was sent under two aliases (e.g. `topic` and `subject`).
 *
 * @category parameters
 * @since 0.1.0
 */
export class RequestConfusingVar extends ZulipError.make<RequestConfusingVar>()("RequestConfusingVar", {
  code: "REQUEST_CONFUSING_VAR",
  fields: { var_name1: Schema.String, var_name2: Schema.String },
  message: ({ var_name1, var_name2 }) => `Can't decide between '${var_name1}' and '${var_name2}' arguments`
}) {}

/**
 * Parameters that exclude each other were sent together (e.g. `stream_id`
 * and `stream`); `parameters` names them, comma-separated.
 *
 * @category parameters
 * @since 0.1.0
 */
export class IncompatibleParameters extends ZulipError.make<IncompatibleParameters>()("IncompatibleParameters", {
  code: "BAD_REQUEST",
  fields: { parameters: Schema.String },
  message: ({ parameters }) => `Unsupported parameter combination: ${parameters}`
}) {}

/**
 * A legacy converter rejected a parameter's raw text.
 *
 * @category parameters
 * @since 0.1.0
 */
export class RequestVariableInvalid extends ZulipError.make<RequestVariableInvalid>()("RequestVariableInvalid", {
  code: "REQUEST_VARIABLE_INVALID",
  fields: { var_name: Schema.String, bad_value: Schema.String },
  message: ({ bad_value, var_name }) => `Bad value for '${var_name}': ${bad_value}`
}) {}

/**
 * The request body as a whole is not valid JSON.
 *
 * @category parameters
 * @since 0.1.0
 */
export class InvalidJson extends ZulipError.make<InvalidJson>()("InvalidJson", {
  code: "INVALID_JSON",
  message: "Malformed JSON"
}) {}

// The type errors below name the parameter by its location: `content`, or
// nested JSON-style as `drafts[0]["content"]`. The location is part of the
// message only; Zulip sends no data field for them.

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotAnInteger extends ZulipError.make<NotAnInteger>()("NotAnInteger", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not an integer`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotABoolean extends ZulipError.make<NotABoolean>()("NotABoolean", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a boolean`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotAString extends ZulipError.make<NotAString>()("NotAString", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a string`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotAList extends ZulipError.make<NotAList>()("NotAList", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a list`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotADict extends ZulipError.make<NotADict>()("NotADict", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a dict`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class NotAFloat extends ZulipError.make<NotAFloat>()("NotAFloat", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a float`
}) {}

/**
 * Also used for date-type custom profile field values (`<field name> is not a date`).
 *
 * @category parameters
 * @since 0.1.0
 */
export class NotADate extends ZulipError.make<NotADate>()("NotADate", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a date`
}) {}

/**
 * Used for URL-type custom profile field values and `field_data["url_pattern"]`.
 *
 * @category parameters
 * @since 0.1.0
 */
export class NotAUrl extends ZulipError.make<NotAUrl>()("NotAUrl", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not a URL`
}) {}

/**
 * A JSON-typed form field that does not parse (typed endpoints).
 *
 * @category parameters
 * @since 0.1.0
 */
export class NotValidJson extends ZulipError.make<NotValidJson>()("NotValidJson", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is not valid JSON`
}) {}

/**
 * The legacy form of {@link NotValidJson}, still used by `/realm/profile_fields`.
 *
 * @category parameters
 * @since 0.1.0
 */
export class ArgumentNotValidJson extends ZulipError.make<ArgumentNotValidJson>()("ArgumentNotValidJson", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `Argument "${var_name}" is not valid JSON.`
}) {}

/**
 * A number below its minimum.
 *
 * @category parameters
 * @since 0.1.0
 */
export class TooSmall extends ZulipError.make<TooSmall>()("TooSmall", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is too small`
}) {}

/**
 * A number above its maximum.
 *
 * @category parameters
 * @since 0.1.0
 */
export class TooLarge extends ZulipError.make<TooLarge>()("TooLarge", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is too large`
}) {}

/**
 * A string over its length limit (also `<field name> is too long (limit: 50 characters)`).
 *
 * @category parameters
 * @since 0.1.0
 */
export class TooLong extends ZulipError.make<TooLong>()("TooLong", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String, max_length: Schema.Int },
  message: ({ max_length, var_name }) => `${var_name} is too long (limit: ${max_length} characters)`
}) {}

/**
 * A list parameter with more items than the server takes in one request
 * (Zulip's "too long" wording, counting items instead of characters).
 *
 * @category parameters
 * @since 0.1.0
 */
export class TooManyItems extends ZulipError.make<TooManyItems>()("TooManyItems", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String, max_items: Schema.Int },
  message: ({ max_items, var_name }) => `${var_name} is too long (limit: ${max_items} items)`
}) {}

/**
 * @category parameters
 * @since 0.1.0
 */
export class TooShort extends ZulipError.make<TooShort>()("TooShort", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} is too short.`
}) {}

/**
 * A string that is empty after stripping (typed endpoints; no final period).
 *
 * @category parameters
 * @since 0.1.0
 */
export class CannotBeBlank extends ZulipError.make<CannotBeBlank>()("CannotBeBlank", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} cannot be blank`
}) {}

/**
 * The legacy validators' blank-string text, with a final period, e.g.
 * `field_data["order"] cannot be blank.` or `'value' cannot be blank.`
 *
 * @category parameters
 * @since 0.1.0
 */
export class RequiredStringBlank extends ZulipError.make<RequiredStringBlank>()("RequiredStringBlank", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} cannot be blank.`
}) {}

/**
 * A value outside an enumeration, e.g. `Invalid invite_as` or `Invalid token_kind`.
 *
 * @category parameters
 * @since 0.1.0
 */
export class InvalidParameter extends ZulipError.make<InvalidParameter>()("InvalidParameter", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `Invalid ${var_name}`
}) {}

/**
 * An object carries a key its schema does not allow.
 *
 * @category parameters
 * @since 0.1.0
 */
export class UnexpectedArgument extends ZulipError.make<UnexpectedArgument>()("UnexpectedArgument", {
  code: "BAD_REQUEST",
  params: { argument: Schema.String, var_name: Schema.String },
  message: ({ argument, var_name }) => `Argument "${argument}" at ${var_name} is unexpected`
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const ParameterErrors = [
  RequestVariableMissing,
  RequestConfusingVar,
  IncompatibleParameters,
  RequestVariableInvalid,
  InvalidJson,
  NotAnInteger,
  NotABoolean,
  NotAString,
  NotAList,
  NotADict,
  NotAFloat,
  NotADate,
  NotAUrl,
  NotValidJson,
  ArgumentNotValidJson,
  TooSmall,
  TooLarge,
  TooLong,
  TooManyItems,
  TooShort,
  CannotBeBlank,
  RequiredStringBlank,
  InvalidParameter,
  UnexpectedArgument
] as const
