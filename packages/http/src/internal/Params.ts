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
 * @internal
 */
import * as Errors from "@teamchat/core/errors/Errors"
import type * as ZulipError from "@teamchat/core/errors/ZulipError"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"

/** The Zulip errors a parameter codec can report, by kind. */
const kinds = {
  NotValidJson: Errors.NotValidJson,
  NotABoolean: Errors.NotABoolean,
  NotAnInteger: Errors.NotAnInteger,
  NotAList: Errors.NotAList,
  NotAString: Errors.NotAString,
  NotADict: Errors.NotADict,
  InvalidParameter: Errors.InvalidParameter
} as const

/** @internal */
export type Kind = keyof typeof kinds

const kindKey = "~@teamchat/http/ParamErrorKind"
const argumentKey = "~@teamchat/http/ParamErrorArgument"

const issue = (kind: Kind, input: unknown, options?: SchemaAST.ParseOptions) =>
  new SchemaIssue.InvalidValue({ message: kind, [kindKey]: kind }, input, options)

type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false }

const parseJson = (text: string): Parsed => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

const isInteger = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u)

const decodeBoolean = SchemaTransformation.transformEffect<boolean, string>({
  decode: (text, options) => {
    const parsed = parseJson(text)
    if (!parsed.ok) return Effect.fail(issue("NotValidJson", text, options))
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
        if (!parsed.ok) return Effect.fail(issue("NotValidJson", text, options))
        const value = parsed.value
        if (!Array.isArray(value)) return Effect.fail(issue("NotAList", text, options))
        const bad = value.findIndex((element) => !isInteger(element))
        return bad === -1
          ? Effect.succeed(value as ReadonlyArray<number>)
          : Effect.fail(new SchemaIssue.Pointer([bad], issue("NotAnInteger", value[bad], options)))
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
        if (!parsed.ok) return Effect.fail(issue("NotValidJson", text, options))
        return isInteger(parsed.value) && !/[.eE]/.test(text)
          ? Effect.succeed(parsed.value)
          : Effect.fail(issue("NotAnInteger", text, options))
      },
      encode: (value) => Effect.succeed(JSON.stringify(value))
    })
  )
)

// ---------------------------------------------------------------------------
// JSON values of a given shape
// ---------------------------------------------------------------------------

type Location = ReadonlyArray<PropertyKey>

/** Thrown by a shape at the first value that does not fit (Zulip reports only the first). */
class Misfit {
  readonly path: Location
  readonly kind: Kind | "Missing" | "Unexpected"
  readonly argument: string | undefined
  constructor(path: Location, kind: Misfit["kind"], argument: string | undefined) {
    this.path = path
    this.kind = kind
    this.argument = argument
  }
}

/**
 * Checks a parsed JSON value and returns it typed, or throws a `Misfit`
 * naming where and why it does not fit.
 */
export type Shape<A> = (value: unknown, path: Location) => A

const misfit = (path: Location, kind: Misfit["kind"], argument?: string): never => {
  throw new Misfit(path, kind, argument)
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Shapes of JSON values, with Zulip's error for each misfit. */
export const shape = {
  string: ((value, path) => typeof value === "string" ? value : misfit(path, "NotAString")) as Shape<string>,
  boolean: ((value, path) => typeof value === "boolean" ? value : misfit(path, "NotABoolean")) as Shape<boolean>,
  integer: ((value, path) => isInteger(value) ? value : misfit(path, "NotAnInteger")) as Shape<number>,
  list: <A>(item: Shape<A>): Shape<ReadonlyArray<A>> => (value, path) =>
    Array.isArray(value) ? value.map((element, i) => item(element, [...path, i])) : misfit(path, "NotAList"),
  /** A list of exactly two; any other length is "Invalid x". */
  pair: <A>(item: Shape<A>): Shape<readonly [A, A]> => (value, path) => {
    if (!Array.isArray(value)) return misfit(path, "NotAList")
    if (value.length !== 2) return misfit(path, "InvalidParameter")
    return [item(value[0], [...path, 0]), item(value[1], [...path, 1])]
  },
  nullOr: <A>(inner: Shape<A>): Shape<A | null> => (value, path) => value === null ? null : inner(value, path),
  /** An object with these fields (optional ones may be absent); other keys are unexpected. */
  struct: <A extends Record<string, unknown>>(
    fields: { readonly [K in keyof A]-?: Shape<A[K]> },
    optional: ReadonlyArray<keyof A> = []
  ): Shape<A> =>
  (value, path) => {
    if (!isObject(value)) return misfit(path, "NotADict")
    for (const key of Object.keys(value)) if (!Object.hasOwn(fields, key)) misfit(path, "Unexpected", key)
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(fields) as Array<keyof A & string>) {
      if (!Object.hasOwn(value, key)) {
        if (optional.includes(key)) continue
        misfit([...path, key], "Missing")
      }
      out[key] = fields[key](value[key], [...path, key])
    }
    return out as A
  },
  /** An object whose values all fit `item`. */
  record: <A>(item: Shape<A>): Shape<Readonly<Record<string, A>>> => (value, path) => {
    if (!isObject(value)) return misfit(path, "NotADict")
    const out: Record<string, A> = Object.create(null)
    for (const [key, element] of Object.entries(value)) out[key] = item(element, [...path, key])
    return out
  },
  /** The first alternative that fits; otherwise "Invalid x". */
  oneOf: <A>(...alternatives: ReadonlyArray<Shape<A>>): Shape<A> => (value, path) => {
    for (const alternative of alternatives) {
      try {
        return alternative(value, path)
      } catch (error) {
        if (!(error instanceof Misfit)) throw error
      }
    }
    return misfit(path, "InvalidParameter")
  }
}

const misfitIssue = (m: Misfit, input: unknown, options: SchemaAST.ParseOptions): SchemaIssue.Issue => {
  const leaf = m.kind === "Missing"
    ? new SchemaIssue.MissingKey(undefined)
    : m.kind === "Unexpected"
    ? new SchemaIssue.InvalidValue({ message: "unexpected key", [argumentKey]: m.argument }, input, options)
    : issue(m.kind, input, options)
  return m.path.length === 0 ? leaf : new SchemaIssue.Pointer(m.path, leaf)
}

const checked = <A>(value: unknown, check: Shape<A>, options: SchemaAST.ParseOptions) => {
  try {
    return Effect.succeed(check(value, []))
  } catch (error) {
    if (error instanceof Misfit) return Effect.fail(misfitIssue(error, value, options))
    throw error
  }
}

/** A parameter sent as JSON text whose value must fit `check`. */
export const json = <A>(check: Shape<A>, description: string) =>
  Schema.String.annotate({ description }).pipe(
    Schema.decodeTo(
      Schema.declare((_: unknown): _ is A => true),
      SchemaTransformation.transformEffect<A, string>({
        decode: (text, options) => {
          const parsed = parseJson(text)
          return parsed.ok ? checked(parsed.value, check, options) : Effect.fail(issue("NotValidJson", text, options))
        },
        encode: (value) => Effect.succeed(JSON.stringify(value))
      })
    )
  )

/**
 * A parameter that is a plain string in some values and JSON in others:
 * `literals` are taken as they are (also when JSON-quoted); any other text
 * is JSON that must fit `check`.
 */
export const literalOrJson = <const L extends string, A>(
  literals: ReadonlyArray<L>,
  check: Shape<A>,
  description: string
) =>
  Schema.String.annotate({ description }).pipe(
    Schema.decodeTo(
      Schema.declare((_: unknown): _ is L | A => true),
      SchemaTransformation.transformEffect<L | A, string>({
        decode: (text, options) => {
          if ((literals as ReadonlyArray<string>).includes(text)) return Effect.succeed(text as L)
          const parsed = parseJson(text)
          if (!parsed.ok) return Effect.fail(issue("InvalidParameter", text, options))
          if (typeof parsed.value === "string" && (literals as ReadonlyArray<string>).includes(parsed.value)) {
            return Effect.succeed(parsed.value as L)
          }
          return checked(parsed.value, check, options)
        },
        encode: (value) => Effect.succeed(typeof value === "string" ? value : JSON.stringify(value))
      })
    )
  )

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
    case "AnyOf":
      return issue.issues.length === 0 ? { path, leaf: issue } : locate(issue.issues[0]!, path)
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

const kindOf = (leaf: SchemaIssue.Issue): Kind | undefined => {
  if (leaf._tag !== "InvalidValue") return undefined
  const kind = leaf.annotations?.[kindKey]
  return typeof kind === "string" && kind in kinds ? (kind as Kind) : undefined
}

/**
 * The Zulip error for a failed parameter decoding: a missing key is
 * `REQUEST_VARIABLE_MISSING`; codec failures name their error; anything else
 * (an unexpected type, a value outside an enumeration) is "Invalid x".
 */
export const toZulipError = (failure: SchemaIssue.Issue): ZulipError.ZulipError => {
  const { leaf, path } = locate(failure, [])
  const var_name = formatLocation(path)
  if (leaf._tag === "MissingKey") return new Errors.RequestVariableMissing({ var_name })
  if (leaf._tag === "InvalidValue" && typeof leaf.annotations?.[argumentKey] === "string") {
    return new Errors.UnexpectedArgument({ var_name, argument: leaf.annotations[argumentKey] as string })
  }
  const kind = kindOf(leaf)
  if (kind !== undefined) return new kinds[kind]({ var_name })
  if (leaf._tag === "InvalidType" && leaf.ast._tag === "String") return new Errors.NotAString({ var_name })
  return new Errors.InvalidParameter({ var_name })
}
