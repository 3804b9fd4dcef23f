/**
 * Zulip request parameters: codecs from the raw text of a form field or query
 * parameter, and the mapping of a decoding failure to Zulip's error.
 *
 * Zulip sends every value as text; values that are not strings are JSON text
 * (`true`, `[1,2]`, `null`). Each codec fails with an issue tagged with the
 * Zulip error it stands for, so `toZulipError` can name the parameter the
 * way Zulip does ("client_gravatar is not a boolean", "user_ids[0] is not an
 * integer", "Missing 'username' argument").
 *
 * What no parameter may hold is refused here, once for every endpoint: NUL
 * bytes (PostgreSQL text cannot store them) in raw values (`checkText`, run
 * by `RequestParams`) and in the strings of JSON values (`parseJson`, the
 * one JSON reader of parameters), lone surrogates, and integers outside
 * ±(2^53 − 1) (`integerProblem`, behind every integer and id codec).
 *
 * @internal
 */
import { Errors, ZulipError } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { NotFoundRoute, NullCharacters } from "./Errors.ts"

/** The Zulip errors a parameter codec can report, by kind. */
const kinds = {
  NotValidJson: Errors.NotValidJson,
  NotABoolean: Errors.NotABoolean,
  NotAnInteger: Errors.NotAnInteger,
  TooLarge: Errors.TooLarge,
  TooSmall: Errors.TooSmall,
  NullCharacters,
  NotAList: Errors.NotAList,
  NotAString: Errors.NotAString,
  NotADict: Errors.NotADict,
  InvalidParameter: Errors.InvalidParameter,
  CannotBeBlank: Errors.CannotBeBlank
} as const

/** @internal */
export type Kind = keyof typeof kinds | "TooManyItems"

/**
 * The most items any JSON list parameter may hold (its nested lists too);
 * endpoints with a limit of their own (alert words, subscriptions) refuse
 * fewer in the core. Beyond it: "x is too long (limit: 10000 items)".
 */
export const MaxListItems = 10_000

const kindKey = "~@teamchat/http/ParamErrorKind"
const maxItemsKey = "~@teamchat/http/ParamMaxItems"

const issue = (kind: Kind, input: unknown, options?: SchemaAST.ParseOptions) =>
  new SchemaIssue.InvalidValue({ message: kind, [kindKey]: kind }, input, options)

const tooManyItems = (max: number, input: unknown, options?: SchemaAST.ParseOptions) =>
  new SchemaIssue.InvalidValue({ message: "TooManyItems", [kindKey]: "TooManyItems", [maxItemsKey]: max }, input, options)

// ---------------------------------------------------------------------------
// Characters no parameter may hold
// ---------------------------------------------------------------------------

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** A Content-Type header's media type, lower case, without its parameters ("" when none). */
export const mediaType = (contentType: string | null | undefined): string =>
  (contentType ?? "").split(";")[0]!.trim().toLowerCase()

/**
 * What is wrong with the characters of a text, if anything: PostgreSQL text
 * cannot hold NUL, and a lone surrogate has no UTF-8 encoding.
 */
export const badCharacters = (text: string): "nul" | "surrogate" | undefined =>
  text.includes("\u0000") ? "nul" : loneSurrogate.test(text) ? "surrogate" : undefined

const nullMessageKey = "~@teamchat/http/ParamNullMessage"

/**
 * A plain string parameter whose NUL bytes Zulip refuses with a message of
 * its own (`content`: "Message must not contain null bytes"); every other
 * parameter gets {@link NullCharacters}. Read by `RequestParams`.
 */
export const stringWithNullMessage = (msg: string, description?: string) =>
  Schema.String.annotate({ [nullMessageKey]: msg, ...(description === undefined ? {} : { description }) })

/** The message a parameter's schema gives for NUL bytes, if its own. */
export const nullMessageOf = (ast: SchemaAST.AST): string | undefined => {
  const msg = ast.annotations?.[nullMessageKey]
  return typeof msg === "string" ? msg : undefined
}

/**
 * The error for a raw parameter value (query string or form field) with
 * characters no parameter may hold, if it has any.
 */
export const checkText = (
  name: string,
  text: string,
  nullMessage: string | undefined
): ZulipError.ZulipError | undefined => {
  switch (badCharacters(text)) {
    case undefined:
      return undefined
    case "nul":
      return nullMessage === undefined ? new NullCharacters({ var_name: name }) : new Errors.BadRequest({ msg: nullMessage })
    case "surrogate":
      return new Errors.InvalidParameter({ var_name: name })
  }
}

// ---------------------------------------------------------------------------
// JSON text
// ---------------------------------------------------------------------------

/** A parameter's JSON text, parsed: its value, or why it was refused. */
export type Parsed =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly kind: "NotValidJson" | "NullCharacters" }

/**
 * The strings of a parsed JSON value (keys too) are checked like raw text:
 * an escaped lone surrogate (`"\ud800"`) is not valid JSON, as Zulip's
 * parser says, and an escaped NUL (`"\u0000"`) is refused like a raw one.
 * The walk keeps its own stack: JSON.parse accepts nesting deeper than the
 * call stack.
 */
const badStrings = (value: unknown): "NotValidJson" | "NullCharacters" | undefined => {
  let found: "NotValidJson" | "NullCharacters" | undefined
  const note = (text: string) => {
    const bad = badCharacters(text)
    if (bad === "surrogate") found = "NotValidJson"
    else if (bad === "nul" && found === undefined) found = "NullCharacters"
  }
  const pending: Array<unknown> = [value]
  while (pending.length > 0 && found !== "NotValidJson") {
    const next = pending.pop()
    if (typeof next === "string") note(next)
    else if (Array.isArray(next)) for (const element of next) pending.push(element)
    else if (typeof next === "object" && next !== null) {
      for (const [key, element] of Object.entries(next)) {
        note(key)
        pending.push(element)
      }
    }
  }
  return found
}

/**
 * Parses a parameter's JSON text; every codec and handler reads JSON
 * parameters through it. `nul: "allow"` keeps escaped NUL bytes in strings
 * for a parameter whose strings the core checks with messages of its own
 * (a draft's topic and content); lone surrogates are refused all the same.
 */
export const parseJson = (text: string, options?: { readonly nul: "allow" }): Parsed => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, kind: "NotValidJson" }
  }
  const bad = badStrings(value)
  if (bad === "NullCharacters" && options?.nul === "allow") return { ok: true, value }
  return bad === undefined ? { ok: true, value } : { ok: false, kind: bad }
}

/** The Zulip error for JSON text of a parameter that {@link parseJson} refused. */
export const jsonError = (name: string, kind: "NotValidJson" | "NullCharacters"): Errors.NotValidJson | NullCharacters =>
  kind === "NotValidJson" ? new Errors.NotValidJson({ var_name: name }) : new NullCharacters({ var_name: name })

/** The first whole number of a JSON value beyond ±(2^53 − 1), if any. */
const unsafeInteger = (value: unknown): "TooLarge" | "TooSmall" | undefined => {
  const pending: Array<unknown> = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === "number") {
      if (Number.isInteger(next) && !Number.isSafeInteger(next)) return next > 0 ? "TooLarge" : "TooSmall"
    } else if (Array.isArray(next)) for (const element of next) pending.push(element)
    else if (typeof next === "object" && next !== null) for (const element of Object.values(next)) pending.push(element)
  }
  return undefined
}

/**
 * {@link parseJson} as an effect, for a JSON parameter the core reads
 * (`narrow`), failing with the Zulip error named after the parameter. Whole
 * numbers in it must be integers the server can hold (see
 * {@link integerProblem}), since the core would read them rounded.
 */
export const parseJsonParameter = (
  name: string,
  text: string
): Effect.Effect<unknown, Errors.NotValidJson | NullCharacters | Errors.TooLarge | Errors.TooSmall> => {
  const parsed = parseJson(text)
  if (!parsed.ok) return Effect.fail(jsonError(name, parsed.kind))
  switch (unsafeInteger(parsed.value)) {
    case undefined:
      return Effect.succeed(parsed.value)
    case "TooLarge":
      return Effect.fail(new Errors.TooLarge({ var_name: name }))
    case "TooSmall":
      return Effect.fail(new Errors.TooSmall({ var_name: name }))
  }
}

// ---------------------------------------------------------------------------
// Integers and ids
// ---------------------------------------------------------------------------

/**
 * Why a JSON number is not an integer this server can hold, if it is not:
 * a fraction or an exponent form that is not whole is "not an integer"; a
 * whole number outside ±(2^53 − 1) is "too large" / "too small". Ids are
 * issued from 1 upward, so no id lies outside that range, and a value there
 * cannot be read back exactly to be echoed in an error.
 */
export const integerProblem = (value: unknown): "NotAnInteger" | "TooLarge" | "TooSmall" | undefined => {
  if (typeof value !== "number" || !Number.isInteger(value)) return "NotAnInteger"
  if (value > Number.MAX_SAFE_INTEGER) return "TooLarge"
  if (value < Number.MIN_SAFE_INTEGER) return "TooSmall"
  return undefined
}

const errorKey = "~@teamchat/http/ParamError"

/** An issue that stands for a given Zulip error, whatever the parameter. */
const errorIssue = (error: ZulipError.ZulipError, input: unknown, options: SchemaAST.ParseOptions) =>
  new SchemaIssue.InvalidValue({ message: error.msg, [errorKey]: error }, input, options)

/**
 * A path segment read as an id: digits, as Django's `<int:…>` path
 * converter reads them (anything else is no id, and no route), and within
 * the ids this server issues (digits beyond them name nothing: Zulip looks
 * such ids up and finds nothing).
 */
export const readPathId = (text: string): number | "NotDigits" | "NoSuchId" => {
  if (!/^[0-9]+$/.test(text)) return "NotDigits"
  const id = Number(text)
  return Number.isSafeInteger(id) ? id : "NoSuchId"
}

/**
 * A path id parameter (`/messages/{message_id}`), read by
 * {@link readPathId}: a segment that is not digits is no route (404 "Not
 * Found"); an id beyond any issued is the endpoint's own `notFound` error.
 */
export const PathId = (notFound: () => ZulipError.ZulipError, description: string) =>
  Schema.String.annotate({ description }).pipe(
    Schema.decodeTo(
      Schema.Int,
      SchemaTransformation.transformEffect<number, string>({
        decode: (text, options) => {
          const id = readPathId(text)
          if (typeof id === "number") return Effect.succeed(id)
          return Effect.fail(errorIssue(id === "NotDigits" ? new NotFoundRoute() : notFound(), text, options))
        },
        encode: (id) => Effect.succeed(String(id))
      })
    )
  )

const decodeBoolean = SchemaTransformation.transformEffect<boolean, string>({
  decode: (text, options) => {
    const parsed = parseJson(text)
    if (!parsed.ok) return Effect.fail(issue(parsed.kind, text, options))
    return typeof parsed.value === "boolean"
      ? Effect.succeed(parsed.value)
      : Effect.fail(issue("NotABoolean", text, options))
  },
  encode: (value) => Effect.succeed(JSON.stringify(value))
})

const jsonBoolean = (description: string) =>
  Schema.String.annotate({ description }).pipe(Schema.decodeTo(Schema.Boolean, decodeBoolean))

/**
 * A JSON boolean: exactly `true` or `false` (Zulip validates strictly, so
 * `1` is "not a boolean" and `yes` is "not valid JSON").
 */
export const JsonBoolean = jsonBoolean("JSON boolean: `true` or `false`.")

/** A JSON list of integers, e.g. `[1,2,3]`. */
export const JsonIntegerList = Schema.String.annotate({ description: "JSON list of integers, e.g. `[1,2,3]`." }).pipe(
  Schema.decodeTo(
    Schema.Array(Schema.Int),
    SchemaTransformation.transformEffect({
      decode: (text, options) => {
        const parsed = parseJson(text)
        if (!parsed.ok) return Effect.fail(issue(parsed.kind, text, options))
        const value = parsed.value
        if (!Array.isArray(value)) return Effect.fail(issue("NotAList", text, options))
        if (value.length > MaxListItems) return Effect.fail(tooManyItems(MaxListItems, text, options))
        for (let i = 0; i < value.length; i++) {
          const problem = integerProblem(value[i])
          if (problem !== undefined) return Effect.fail(new SchemaIssue.Pointer([i], issue(problem, value[i], options)))
        }
        return Effect.succeed(value as ReadonlyArray<number>)
      },
      encode: (value) => Effect.succeed(JSON.stringify(value))
    })
  )
)

/** An optional JSON boolean with Zulip's default. */
export const optionalBoolean = (defaultValue: boolean, description?: string) =>
  jsonBoolean(
    `${description === undefined ? "" : `${description} `}JSON boolean: \`true\` or \`false\`; default \`${defaultValue}\`.`
  ).pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed(defaultValue)))

/** A JSON integer, e.g. `10` (not `10.0`, not `"10"`). */
export const JsonInteger = Schema.String.annotate({ description: "JSON integer." }).pipe(
  Schema.decodeTo(
    Schema.Int,
    SchemaTransformation.transformEffect<number, string>({
      decode: (text, options) => {
        const parsed = parseJson(text)
        if (!parsed.ok) return Effect.fail(issue(parsed.kind, text, options))
        // `10.0` and `1e3` are JSON floats, not integers, however whole.
        const problem = /[.eE]/.test(text) ? "NotAnInteger" : integerProblem(parsed.value)
        return problem === undefined ? Effect.succeed(parsed.value as number) : Effect.fail(issue(problem, text, options))
      },
      encode: (value) => Effect.succeed(JSON.stringify(value))
    })
  )
)

// ---------------------------------------------------------------------------
// Schemas of a parameter's JSON value
// ---------------------------------------------------------------------------

const oneOfKey = "~@teamchat/http/ParamOneOf"

/** A check that fails with the Zulip error of `problem`'s kind. */
const kindCheck = <T>(problem: (value: T) => Kind | undefined) =>
  Schema.makeFilter<T>((value, _ast, options) => {
    const kind = problem(value)
    return kind === undefined ? undefined : issue(kind, value, options)
  })

/** `schema`, after a check of the raw value (a list's length before its items, as Zulip checks). */
const checkedFirst = <S extends Schema.Top>(check: SchemaAST.Check<unknown>, schema: S) =>
  Schema.Unknown.check(check).pipe(Schema.decodeTo(schema))

const atMostItems = (max: number) =>
  Schema.makeFilter<unknown>((value, _ast, options) =>
    Array.isArray(value) && value.length > max ? tooManyItems(max, value, options) : undefined
  )

/**
 * Schemas of the value of a JSON parameter (decoded by {@link json}), each
 * refusing with Zulip's error: "x is not a string", "x[0] is not an
 * integer", "x is too long (limit: N items)", "Invalid x",
 * "Missing 'x[0]["id"]' argument". Only the first problem is reported.
 */
export const Value = {
  string: Schema.String,
  boolean: Schema.Boolean,
  /** An integer within ±(2^53 − 1) ({@link integerProblem}). */
  integer: Schema.Number.check(kindCheck(integerProblem)),
  /** A list of at most `max` items (default {@link MaxListItems}), counted before any item is read. */
  list: <S extends Schema.Top>(item: S, max: number = MaxListItems) => checkedFirst(atMostItems(max), Schema.Array(item)),
  /** `inner`, refusing a list of more than `max` items first (before alternatives of `oneOf` hide why). */
  atMost: <S extends Schema.Top>(max: number, inner: S) => checkedFirst(atMostItems(max), inner),
  /** A list of exactly two; any other length is "Invalid x". */
  pair: <S extends Schema.Top>(item: S) =>
    checkedFirst(
      kindCheck<unknown>((value) => Array.isArray(value) && value.length !== 2 ? "InvalidParameter" : undefined),
      Schema.Tuple([item, item])
    ),
  /** A string with something besides whitespace ("x cannot be blank"), kept as sent. */
  nonBlank: Schema.String.check(kindCheck((value: string) => value.trim() === "" ? "CannotBeBlank" : undefined)),
  /** A JSON number, whole or not, at most `max` ("x is not an integer", "x is too large"). */
  number: (max: number) => Schema.Number.check(kindCheck((value: number) => value > max ? "TooLarge" : undefined)),
  /** One of the given strings; anything else is "Invalid x". */
  literal: <const L extends ReadonlyArray<string>>(values: L) => Schema.Literals(values),
  /** `null`, or a value of `inner` (whose error a misfit gets). */
  nullOr: <S extends Schema.Top>(inner: S) => Schema.NullOr(inner),
  /**
   * An object with these fields (`Schema.optionalKey` ones may be absent);
   * another key is "Unexpected argument" ({@link json} decodes with
   * `onExcessProperty: "error"`).
   */
  struct: Schema.Struct,
  /** An object whose values are all of `item`. */
  record: <S extends Schema.Top>(item: S) => Schema.Record(Schema.String, item),
  /** The first alternative that fits; otherwise "Invalid x", whatever the alternatives said. */
  oneOf: <const Members extends ReadonlyArray<Schema.Top>>(...members: Members) =>
    Schema.Union(members).annotate({ [oneOfKey]: true })
}

/** Parse options of JSON values: another key in an object is an error, as Zulip's checks have it. */
const valueOptions: SchemaAST.ParseOptions = { onExcessProperty: "error" }

/**
 * A parameter sent as JSON text whose value must fit `value` (a schema of
 * {@link Value}); with `nul: "allow"`, strings may hold escaped NUL bytes
 * (see {@link parseJson}).
 */
export const json = <S extends Schema.Top & { readonly DecodingServices: never }>(
  value: S,
  description: string,
  parse?: { readonly nul: "allow" }
) => {
  const decode = Schema.decodeUnknownEffect(value)
  return Schema.String.annotate({ description }).pipe(
    Schema.decodeTo(
      Schema.declare((_: unknown): _ is S["Type"] => true),
      SchemaTransformation.transformEffect<S["Type"], string>({
        decode: (text, options) => {
          const parsed = parseJson(text, parse)
          if (!parsed.ok) return Effect.fail(issue(parsed.kind, text, options))
          return Effect.mapError(decode(parsed.value, valueOptions), (error) => error.issue)
        },
        encode: (decoded) => Effect.succeed(JSON.stringify(decoded))
      })
    )
  )
}

/**
 * A parameter that is a plain string in some values and JSON in others:
 * `literals` are taken as they are (also when JSON-quoted); any other text
 * is JSON that must fit `value`.
 */
export const literalOrJson = <const L extends string, S extends Schema.Top & { readonly DecodingServices: never }>(
  literals: ReadonlyArray<L>,
  value: S,
  description: string
) => {
  const decode = Schema.decodeUnknownEffect(value)
  return Schema.String.annotate({ description }).pipe(
    Schema.decodeTo(
      Schema.declare((_: unknown): _ is L | S["Type"] => true),
      SchemaTransformation.transformEffect<L | S["Type"], string>({
        decode: (text, options) => {
          if ((literals as ReadonlyArray<string>).includes(text)) return Effect.succeed(text as L)
          const parsed = parseJson(text)
          if (!parsed.ok) {
            return Effect.fail(issue(parsed.kind === "NullCharacters" ? parsed.kind : "InvalidParameter", text, options))
          }
          if (typeof parsed.value === "string" && (literals as ReadonlyArray<string>).includes(parsed.value)) {
            return Effect.succeed(parsed.value as L)
          }
          return Effect.mapError(decode(parsed.value, valueOptions), (error) => error.issue)
        },
        encode: (decoded) => Effect.succeed(typeof decoded === "string" ? decoded : JSON.stringify(decoded))
      })
    )
  )
}

/**
 * Decodes parameters in a handler, for an endpoint that must check
 * something else first (Zulip's drafts refuse a user with syncing off before
 * reading any parameter): the same Zulip errors as a declared parameter's.
 */
export const decodeIn = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown): Effect.Effect<S["Type"], ZulipError.ZulipError> =>
    Effect.mapError(decode(input), (error) => toZulipError(error.issue))
}

// ---------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------

interface Located {
  readonly path: ReadonlyArray<PropertyKey>
  readonly leaf: SchemaIssue.Issue
}

// Zulip reports only the first problem; follow the first issue to its leaf.
const locate = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): Located => {
  switch (issue._tag) {
    case "Pointer":
      return locate(issue.issue, [...path, ...issue.path])
    case "Composite":
      return locate(issue.issues[0], path)
    case "AnyOf": {
      // `Value.oneOf` is "Invalid x" whatever its alternatives said
      if (issue.ast.annotations?.[oneOfKey] === true) return { path, leaf: issue }
      if (issue.issues.length > 0) return locate(issue.issues[0]!, path)
      // No alternative takes a value of this type (`Value.nullOr`): the first non-null one's error
      const expected = issue.ast.types.find((member) => member._tag !== "Null")
      return expected === undefined || expected._tag === "Union"
        ? { path, leaf: expected?.annotations?.[oneOfKey] === true ? new SchemaIssue.AnyOf(expected, [], issue.input) : issue }
        : { path, leaf: new SchemaIssue.InvalidType(expected, issue.input) }
    }
    case "Filter":
    case "Encoding":
      return locate(issue.issue, path)
    default:
      return { path, leaf: issue }
  }
}

/** Zulip's way of naming a nested location: `drafts[0]["content"]`. */
export const formatLocation = (path: ReadonlyArray<PropertyKey>): string =>
  path
    .map((segment, i) =>
      i === 0 ? String(segment) : typeof segment === "number" ? `[${segment}]` : `[${JSON.stringify(String(segment))}]`
    )
    .join("")

/** The error of a JSON value of the wrong type, by the type the schema expected. */
const typeErrors: Partial<Record<SchemaAST.AST["_tag"], new(fields: { readonly var_name: string }) => ZulipError.ZulipError>> = {
  String: Errors.NotAString,
  Boolean: Errors.NotABoolean,
  Number: Errors.NotAnInteger,
  Arrays: Errors.NotAList,
  Objects: Errors.NotADict
}

const kindOf = (leaf: SchemaIssue.Issue): Kind | undefined => {
  if (leaf._tag !== "InvalidValue") return undefined
  const kind = leaf.annotations?.[kindKey]
  return typeof kind === "string" && (kind in kinds || kind === "TooManyItems") ? (kind as Kind) : undefined
}

/**
 * The Zulip error for a failed parameter decoding: a missing key is
 * `REQUEST_VARIABLE_MISSING`; codec failures name their error; anything else
 * (an unexpected type, a value outside an enumeration) is "Invalid x".
 */
export const toZulipError = (failure: SchemaIssue.Issue): ZulipError.ZulipError => {
  const { leaf, path } = locate(failure, [])
  if (leaf._tag === "InvalidValue" && ZulipError.isZulipError(leaf.annotations?.[errorKey])) {
    return leaf.annotations[errorKey] as ZulipError.ZulipError
  }
  const var_name = formatLocation(path)
  if (leaf._tag === "MissingKey") return new Errors.RequestVariableMissing({ var_name })
  const kind = kindOf(leaf)
  if (kind === "TooManyItems") {
    const max = leaf._tag === "InvalidValue" ? leaf.annotations?.[maxItemsKey] : undefined
    return new Errors.TooManyItems({ var_name, max_items: typeof max === "number" ? max : MaxListItems })
  }
  if (kind !== undefined) return new kinds[kind]({ var_name })
  if (leaf._tag === "UnexpectedKey") {
    return new Errors.UnexpectedArgument({ var_name: formatLocation(path.slice(0, -1)), argument: String(path.at(-1)) })
  }
  if (leaf._tag === "InvalidType") {
    const typeError = typeErrors[leaf.ast._tag]
    if (typeError !== undefined) return new typeError({ var_name })
  }
  return new Errors.InvalidParameter({ var_name })
}
