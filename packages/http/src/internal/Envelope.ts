/**
 * Zulip's success envelope: `{"result":"success","msg":"", ...data}`, plus
 * `ignored_parameters_unsupported` when the request carried parameters the
 * endpoint does not support.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiError from "effect/http-api/HttpApiError"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import { IgnoredParameters } from "./IgnoredParameters.ts"

const envelopeFields = {
  result: Schema.Literal("success"),
  msg: Schema.Literal("")
}

const ignoredField = {
  ignored_parameters_unsupported: Schema.optionalKey(Schema.Array(Schema.String)).annotate({
    description: "The request parameters this endpoint ignored (since feature level 167)."
  })
}

/** The success schema of an endpoint whose data has these fields. */
export const Success = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct({ ...envelopeFields, ...fields, ...ignoredField })

/**
 * The success schema of an endpoint whose data has these fields and any
 * others (POST /register: the keys depend on the requested state).
 */
export const SuccessWithRest = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.StructWithRest(Schema.Struct({ ...envelopeFields, ...fields, ...ignoredField }), [
    Schema.Record(Schema.String, Schema.Unknown)
  ])

/** The envelope around a success value. */
export type Envelope<A> = A & {
  readonly result: "success"
  readonly msg: ""
  readonly ignored_parameters_unsupported?: ReadonlyArray<string>
}

/** The envelope around `data`, for a request that ignored the parameters `ignored`. */
export const envelope = <A extends object>(data: A, ignored: ReadonlyArray<string>): Envelope<A> =>
  ignored.length === 0
    ? { result: "success", msg: "", ...data } as Envelope<A>
    : { result: "success", msg: "", ...data, ignored_parameters_unsupported: ignored } as Envelope<A>

/** Wraps handler data in the success envelope of the current request. */
export const succeed = <A extends object>(data: A): Effect.Effect<Envelope<A>, never, IgnoredParameters> =>
  IgnoredParameters.useSync((ignored) => envelope(data, ignored))

/** `Effect.flatMap(self, succeed)` */
export const wrap = <A extends object, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<Envelope<A>, E, R | IgnoredParameters> => Effect.flatMap(self, succeed)

// ---------------------------------------------------------------------------
// The JSON response, without HttpApi's generic encoder
// ---------------------------------------------------------------------------

/**
 * Whether a value certainly encodes to itself under a schema: then HttpApi's
 * response (the JSON text of the encoded value) is the JSON text of the value
 * itself. `false` only means "not certain".
 */
type Identity = (value: unknown) => boolean

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** A plain object or array frozen with everything inside it: its JSON text never changes. */
const isDeepFrozen = (value: unknown): boolean => {
  if (typeof value !== "object" || value === null) return true
  if (!Object.isFrozen(value)) return false
  for (const key in value) if (!isDeepFrozen((value as Record<string, unknown>)[key])) return false
  return true
}

/**
 * A scalar kind's identity: its JSON type, and the node's checks (`Int`,
 * lengths, patterns...) run by effect's own guard, as the encoder runs them.
 */
const scalar = (ast: SchemaAST.AST, isType: Identity): Identity => {
  if (ast.checks === undefined) return isType
  // `Int` alone, the commonest: its own predicate, without the guard's machinery.
  if (ast.checks.length === 1 && isIntFilter(ast.checks[0]!)) {
    return (value) => isType(value) && Number.isSafeInteger(value)
  }
  const passes = Schema.is(Schema.make<Schema.Top>(ast))
  return (value) => isType(value) && passes(value)
}

const isIntFilter = (check: SchemaAST.Check<never>): boolean =>
  check._tag === "Filter" && check.annotations?.representation?.id === "effect/schema/isInt"

/** Kinds whose values are JSON scalars; unions of these are unambiguous. */
const scalarTags = new Set(["String", "Boolean", "Number", "Literal", "Null", "Union"])

/**
 * Scalar kinds that encode any value they take to itself: a union member of
 * these kinds that takes a value answers it unchanged, whatever the identity
 * check of the member says.
 */
const selfEncodingTags = new Set(["String", "Boolean", "Number", "Literal", "Null"])

/** Nesting beyond this is not followed (a cycle, or data no endpoint sends): not certain. */
const maxJsonDepth = 32

/**
 * JSON data that JSON.stringify writes as it is: scalars (finite numbers),
 * arrays and plain objects of them, nothing with `toJSON`, bigints or
 * functions. `Schema.Unknown` encodes anything to itself, so such a value's
 * JSON text is the encoder's.
 */
const isJsonData = (value: unknown, depth = 0): boolean => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(value)
    case "object": {
      if (value === null) return true
      if (depth >= maxJsonDepth) return false
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false
        for (let i = 0; i < value.length; i++) if (!isJsonData(value[i], depth + 1)) return false
        return true
      }
      if (!isPlainObject(value)) return false
      for (const key in value) if (!Object.hasOwn(value, key) || !isJsonData(value[key], depth + 1)) return false
      return true
    }
    default:
      return false
  }
}

/**
 * The identity check of a schema made only of the node kinds handled here
 * (no transformations, checks only on scalars); `undefined` for anything else.
 */
const identity = (
  ast: SchemaAST.AST,
  /** Replaces the check of some of a struct's own fields (not deeper ones). */
  fieldOverride?: (ast: SchemaAST.AST) => Identity | undefined
): Identity | undefined => {
  if (ast.encoding !== undefined) return jsonEncoded(ast)
  const context = ast.context
  if (context !== undefined && context.constructorDefault !== undefined) return undefined
  switch (ast._tag) {
    case "String":
      return scalar(ast, (value) => typeof value === "string")
    case "Boolean":
      return scalar(ast, (value) => typeof value === "boolean")
    case "Number":
      return scalar(ast, (value) => typeof value === "number" && Number.isFinite(value))
    case "Null":
      return scalar(ast, (value) => value === null)
    case "Literal": {
      const literal = ast.literal
      return typeof literal === "bigint" ? undefined : scalar(ast, (value) => value === literal)
    }
    case "Union": {
      if (ast.checks !== undefined || (ast.options?.mode ?? "anyOf") !== "anyOf") return undefined
      const members = ast.types.map((member) => identity(member))
      if (members.some((member) => member === undefined)) return undefined
      const checks = members as ReadonlyArray<Identity>
      if (ast.types.every((member) => scalarTags.has(member._tag))) return (value) => checks.some((check) => check(value))
      if (ast.types.every((member) => member._tag === "Objects")) return structUnion(ast.types, checks)
      return orderedUnion(ast.types, checks)
    }
    case "Unknown":
      return ast.checks === undefined ? isJsonData : undefined
    case "Arrays": {
      if (ast.checks !== undefined || ast.elements.length !== 0 || ast.rest.length !== 1) return undefined
      const element = identity(ast.rest[0]!)
      if (element === undefined) return undefined
      return (value) => {
        if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false
        for (let i = 0; i < value.length; i++) if (!element(value[i])) return false
        return true
      }
    }
    case "Objects": {
      if (ast.checks !== undefined) return undefined
      if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 1) {
        const index = ast.indexSignatures[0]!
        if (index.parameter._tag !== "String" || index.parameter.checks !== undefined) return undefined
        const item = identity(index.type)
        if (item === undefined) return undefined
        // The encoder reads a record's `Object.keys`, as JSON.stringify does:
        // own, enumerable, string keys, which `for…in` walks without
        // collecting them (an inherited key fails).
        return (value) => {
          if (!isPlainObject(value)) return false
          for (const key in value) if (!Object.hasOwn(value, key) || !item(value[key])) return false
          return true
        }
      }
      // A struct with a rest (`StructWithRest`: POST /register's answer) has
      // one string-keyed index signature beside its fields.
      if (ast.indexSignatures.length > 1) return undefined
      const rest = ast.indexSignatures.length === 1 ? restEntry(ast.indexSignatures[0]!) : null
      if (rest === undefined) return undefined
      const fields: Array<{ readonly name: string; readonly optional: boolean; readonly check: Identity }> = []
      for (const ps of ast.propertySignatures) {
        if (typeof ps.name !== "string") return undefined
        const check = fieldOverride?.(ps.type) ?? identity(ps.type)
        if (check === undefined) return undefined
        fields.push({ name: ps.name, optional: ps.type.context?.isOptional === true, check })
      }
      const declared = new Set(fields.map((field) => field.name))
      // The value's keys must be the schema's, in the schema's order (the
      // encoded object's order), optional ones possibly left out, then the
      // rest's keys, if it has one (the encoder writes the fields first,
      // then the other own enumerable keys in their order). Walked without
      // collecting the keys: a record of a thousand entries checks a
      // thousand of these. `for…in` yields the enumerable string keys (own,
      // or inherited: then it fails), what JSON.stringify writes; a field it
      // does not yield must not be an own property either (non-enumerable).
      const absent = (value: object, field: (typeof fields)[number]) => field.optional && !Object.hasOwn(value, field.name)
      return (value) => {
        if (!isPlainObject(value)) return false
        let f = 0
        for (const key in value) {
          if (rest !== null && !declared.has(key)) {
            // The rest begins: every field not yet seen must be absent.
            for (; f < fields.length; f++) if (!absent(value, fields[f]!)) return false
            if (!Object.hasOwn(value, key) || !rest(value[key])) return false
            continue
          }
          while (f < fields.length && fields[f]!.name !== key) {
            if (!absent(value, fields[f]!)) return false
            f++
          }
          if (f === fields.length || !fields[f]!.check(value[key])) return false
          f++
        }
        for (; f < fields.length; f++) if (!absent(value, fields[f]!)) return false
        return true
      }
    }
    default:
      return undefined
  }
}

/**
 * A union of plain structs: the encoder takes the first member that
 * encodes the value, and a struct encodes a value with extra keys by
 * dropping them. So the value encodes to itself when it passes member i
 * exactly and lacks a required key of every member before i (those fail).
 */
const structUnion = (types: ReadonlyArray<SchemaAST.AST>, checks: ReadonlyArray<Identity>): Identity | undefined => {
  const required: Array<ReadonlyArray<string>> = []
  for (const member of types) {
    if (member._tag !== "Objects" || member.indexSignatures.length !== 0) return undefined
    required.push(
      member.propertySignatures.filter((ps) => ps.type.context?.isOptional !== true).map((ps) => String(ps.name))
    )
  }
  return (value) => {
    if (!isPlainObject(value)) return false
    for (let i = 0; i < checks.length; i++) {
      if (checks[i]!(value)) return true
      // Member i would take the value (or a part of it): not certain.
      if (required[i]!.every((name) => Object.hasOwn(value, name))) return false
    }
    return false
  }
}

/**
 * An endpoint's success schema is its JSON codec (`Schema.toCodecJson`):
 * a plain `Number` there encodes a finite number to itself (only NaN and
 * the infinities become strings), `Unknown` passes JSON data through. Both
 * links are effect's own, recognised by identity; any other encoding is not
 * certain.
 */
const numberToJson = Schema.toCodecJson(Schema.Number).ast.encoding?.[0]
const unknownToJson = Schema.toCodecJson(Schema.Unknown).ast.encoding?.[0]

const jsonEncoded = (ast: SchemaAST.AST): Identity | undefined => {
  const link = ast.encoding?.length === 1 ? ast.encoding[0] : undefined
  if (link === undefined || ast.context?.constructorDefault !== undefined) return undefined
  if (ast._tag === "Number" && link === numberToJson) {
    return scalar(ast, (value) => typeof value === "number" && Number.isFinite(value))
  }
  if (ast._tag === "Unknown" && link === unknownToJson && ast.checks === undefined) return isJsonData
  return undefined
}

/**
 * Any other union (a name or a list of users, as `display_recipient`): the
 * encoder takes the first member that encodes the value, so the value
 * encodes to itself when it passes member i exactly and every member before
 * i is a scalar kind, which either refuses it or answers it unchanged.
 */
const orderedUnion = (types: ReadonlyArray<SchemaAST.AST>, checks: ReadonlyArray<Identity>): Identity => (value) => {
  for (let i = 0; i < checks.length; i++) {
    if (checks[i]!(value)) return true
    if (!selfEncodingTags.has(types[i]!._tag)) return false
  }
  return false
}

/**
 * The identity of a rest's entries (`null` if the struct has no rest): an
 * index signature over all strings, unchecked; `undefined` for any other.
 */
const restEntry = (index: SchemaAST.IndexSignature): Identity | undefined =>
  index.parameter._tag === "String" && index.parameter.checks === undefined ? identity(index.type) : undefined

/** A record's entry schema (`Schema.Record(Schema.String, entry)`), when the field's schema is one. */
const recordEntry = (ast: SchemaAST.AST): SchemaAST.AST | undefined => {
  if (ast._tag !== "Objects" || ast.checks !== undefined || ast.encoding !== undefined) return undefined
  if (ast.propertySignatures.length !== 0 || ast.indexSignatures.length !== 1) return undefined
  const index = ast.indexSignatures[0]!
  return index.parameter._tag === "String" && index.parameter.checks === undefined ? index.type : undefined
}

/**
 * The JSON text HttpApi would send for a success value of a plain struct
 * schema, when the value certainly encodes to itself; `undefined` when it
 * does not (or is not certain to), or for a schema not handled here.
 *
 * A record field's entries are checked and written one by one, and those
 * frozen all the way down (the presence answers' thousand entries, mostly
 * unchanged from one ping to the next) keep their checked `"key":value`
 * text while they live, so a later answer checks and writes only new
 * entries; the text is the same either way.
 */
/** Records of at most this many entries are written with the rest of the value, at once. */
const smallRecord = 16

const jsonText = (ast: SchemaAST.Objects): ((value: object) => string | undefined) | undefined => {
  const records = new Map<string, { readonly check: Identity; readonly texts: WeakMap<object, { readonly key: string; readonly text: string }> }>()
  for (const ps of ast.propertySignatures) {
    const entry = recordEntry(ps.type)
    const check = entry === undefined ? undefined : identity(entry)
    if (check !== undefined) records.set(String(ps.name), { check, texts: new WeakMap() })
  }
  // Record fields are checked while they are written, below.
  const recordTypes = new Set(ast.propertySignatures.filter((ps) => records.has(String(ps.name))).map((ps) => ps.type))
  const check = identity(ast, (node) => (recordTypes.has(node) ? isPlainObject : undefined))
  if (check === undefined) return undefined
  if (records.size === 0) return (value) => (check(value) ? JSON.stringify(value) : undefined)
  const record = (value: Record<string, unknown>, field: NonNullable<ReturnType<typeof records.get>>): string | undefined => {
    // Object.keys is what JSON.stringify writes: own, enumerable, string keys.
    const keys = Object.keys(value)
    const parts = new Array<string>(keys.length)
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      const entry = value[key]
      if (typeof entry === "object" && entry !== null) {
        const kept = field.texts.get(entry)
        if (kept !== undefined && kept.key === key) {
          parts[i] = kept.text
          continue
        }
      }
      if (!field.check(entry)) return undefined
      const text = `${JSON.stringify(key)}:${JSON.stringify(entry)}`
      if (typeof entry === "object" && entry !== null && isDeepFrozen(entry)) field.texts.set(entry, { key, text })
      parts[i] = text
    }
    return `{${parts.join(",")}}`
  }
  const recordFields = Array.from(records)
  /**
   * Whether every record field is small (a user's profile data) and its
   * entries check: then the value is written at once, as JSON.stringify is
   * several times faster than the parts below, whose kept texts pay off
   * for large records only.
   */
  const smallRecords = (value: Record<string, unknown>): boolean | undefined => {
    for (const [name, field] of recordFields) {
      const fieldValue = value[name] as Record<string, unknown> | undefined
      if (fieldValue === undefined) continue
      const keys = Object.keys(fieldValue)
      if (keys.length > smallRecord) return false
      for (let i = 0; i < keys.length; i++) if (!field.check(fieldValue[keys[i]!])) return undefined
    }
    return true
  }
  return (value) => {
    if (!check(value)) return undefined
    const small = smallRecords(value as Record<string, unknown>)
    if (small !== false) return small === true ? JSON.stringify(value) : undefined
    const parts: Array<string> = []
    for (const [key, fieldValue] of Object.entries(value)) {
      // JSON.stringify leaves out undefined (the check lets no other such value through).
      if (fieldValue === undefined) continue
      const field = records.get(key)
      const text = field === undefined ? JSON.stringify(fieldValue) : record(fieldValue as Record<string, unknown>, field)
      if (text === undefined) return undefined
      parts.push(`${JSON.stringify(key)}:${text}`)
    }
    return `{${parts.join(",")}}`
  }
}

type Respond = (value: object) => HttpServerResponse.HttpServerResponse | undefined
type Text = (value: object) => string | undefined

const texts = new WeakMap<HttpApiEndpoint.Top, Text | null>()
const responders = new WeakMap<HttpApiEndpoint.Top, Respond | null>()

/**
 * The JSON text HttpApi would send for a success value of `endpoint` (with
 * status 200 and `Content-Type: application/json`), when the endpoint has
 * one plain JSON success schema the value certainly encodes to itself;
 * `undefined` otherwise. `undefined` for an endpoint without such a schema.
 */
export const successText = (endpoint: HttpApiEndpoint.Top): Text | undefined => {
  let text = texts.get(endpoint)
  if (text === undefined) {
    text = null
    const schemas = Array.from(endpoint.success as Iterable<Schema.Top>)
    const schema = schemas.length === 1 ? schemas[0]! : undefined
    // A plain struct without annotations (so no status, encoding, headers or
    // streaming): HttpApi's defaults apply, status 200 and JSON.
    if (
      schema !== undefined && !HttpApiSchema.isWithHeaders(schema) && schema.ast._tag === "Objects" &&
      schema.ast.annotations === undefined && schema.ast.context === undefined
    ) {
      text = jsonText(schema.ast) ?? null
    }
    texts.set(endpoint, text)
  }
  return text ?? undefined
}

/**
 * The response HttpApi would encode for a success value of `endpoint`,
 * built directly from `successText`; `undefined` when there is none.
 */
const responder = (endpoint: HttpApiEndpoint.Top): Respond | undefined => {
  let respond = responders.get(endpoint)
  if (respond === undefined) {
    respond = null
    const encode = successText(endpoint)
    if (encode !== undefined) {
      respond = (value) => {
        const text = encode(value)
        return text === undefined ? undefined : HttpServerResponse.text(text, { status: 200, contentType: "application/json" })
      }
    }
    responders.set(endpoint, respond)
  }
  return respond ?? undefined
}

/**
 * `succeed` for a handler of `endpoint`, answered with the very response
 * HttpApi would send for the envelope, without its generic schema encoder
 * when the envelope certainly encodes to itself (the hot endpoints).
 */
export const respond = (endpoint: HttpApiEndpoint.Top) => {
  const fast = responder(endpoint)
  return <A extends object>(
    data: A
  ): Effect.Effect<Envelope<A> | HttpServerResponse.HttpServerResponse, never, IgnoredParameters> =>
    IgnoredParameters.useSync((ignored) => {
      const value = envelope(data, ignored)
      return fast?.(value) ?? value
    })
}

type Encode = (value: object) => Effect.Effect<HttpServerResponse.HttpServerResponse, HttpApiError.HttpApiSchemaError>

const encoders = new WeakMap<HttpApiEndpoint.Top, Encode>()

/**
 * The response HttpApi would send for a success value of `endpoint`,
 * computed outside HttpApi (a `DeferredResponse`): `respond`'s when the
 * value certainly encodes to itself, otherwise the value encoded by the
 * endpoint's success schema, as JSON (what HttpApi does; a value the schema
 * refuses fails with its `HttpApiSchemaError` of kind `Body`). Only for an
 * endpoint with one plain JSON success schema (status 200), as `respond`'s.
 */
export const encoder = (endpoint: HttpApiEndpoint.Top): Encode => {
  const known = encoders.get(endpoint)
  if (known !== undefined) return known
  const schemas = Array.from(endpoint.success as Iterable<Schema.Top>)
  const schema = schemas.length === 1 ? schemas[0]! : undefined
  if (
    schema === undefined || HttpApiSchema.isWithHeaders(schema) || schema.ast._tag !== "Objects" ||
    schema.ast.annotations !== undefined || schema.ast.context !== undefined
  ) {
    throw new Error(`Envelope.encoder: ${endpoint.identifier} has no plain JSON success schema`)
  }
  const fast = responder(endpoint)
  // Success schemas need no services: HttpApi runs them without any.
  const encodeBody = Schema.encodeUnknownEffect(schema as Schema.Codec<unknown, unknown>)
  const json = (encoded: unknown) => {
    try {
      return Effect.succeed(HttpServerResponse.text(JSON.stringify(encoded), { status: 200, contentType: "application/json" }))
    } catch {
      const issue = new SchemaIssue.InvalidValue({ expected: "a JSON-serializable response body" }, encoded)
      return Effect.fail(new HttpApiError.HttpApiSchemaError({ kind: "Body", cause: new Schema.SchemaError(issue) }))
    }
  }
  const encode: Encode = (value) => {
    const response = fast?.(value)
    return response !== undefined
      ? Effect.succeed(response)
      : Effect.flatMap(HttpApiError.HttpApiSchemaError.wrap("Body", encodeBody(value)), json)
  }
  encoders.set(endpoint, encode)
  return encode
}
