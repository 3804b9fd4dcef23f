/**
 * The base of every Zulip-compatible API error.
 *
 * Zulip answers every failed request with the same envelope,
 * `{"result":"error","msg":<text>,"code":<CODE>, ...extra}`. This module provides:
 *
 * - {@link make}: a factory that turns a code, a message template and the
 *   error's fields into a `Schema.TaggedError` class. Instances can be
 *   yielded (`return yield* new InvalidApiKey()`), caught with
 *   `Effect.catchTag`, decoded and encoded like any schema class, and carry
 *   `code`, `msg` and `wire`.
 * - {@link ZulipError}: the interface all such instances satisfy, with the
 *   guard {@link isZulipError} and {@link toWireBody}.
 *
 * Fields come in two kinds. `fields` are Zulip's "data fields": they are sent
 * on the wire next to `code` (e.g. `stream_id`, `var_name`, `queue_id`).
 * `params` only feed the message template (e.g. the user id in
 * "Invalid user ID 5") and are never sent, which mirrors Zulip where such
 * values are formatted into `msg` only.
 *
 * An error says what went wrong, not how a protocol answers it: the HTTP
 * adapter chooses each error's status and headers.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * Marker every Zulip error class answers; the guard checks for it instead of
 * `instanceof` so that it survives module reloads.
 *
 * @category type ids
 * @since 0.1.0
 */
export const TypeId = "~@teamchat/core/errors/ZulipError" as const

/**
 * @category type ids
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

/**
 * Zulip's default error code.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_CODE = "BAD_REQUEST"

/**
 * The JSON body Zulip sends for an error. Keys come in the order `result`,
 * `msg`, `code`, then the error's data fields.
 *
 * @category models
 * @since 0.1.0
 */
export interface WireBody {
  readonly result: "error"
  readonly msg: string
  readonly code: string
  readonly [extra: string]: unknown
}

/**
 * What every Zulip error instance exposes, whatever its class.
 *
 * @category models
 * @since 0.1.0
 */
export interface ZulipError extends Cause.YieldableError {
  readonly [TypeId]: TypeId
  /** The class tag, used by `Effect.catchTag`. */
  readonly _tag: string
  /** Zulip's error code, e.g. `"BAD_REQUEST"`. */
  readonly code: string
  /** The exact Zulip message text. */
  readonly msg: string
  /** The exact JSON body Zulip sends. */
  readonly wire: WireBody
}

/**
 * The members a class built by {@link make} adds to its instances.
 *
 * @category models
 * @since 0.1.0
 */
export interface Proto<Code extends string> {
  readonly [TypeId]: TypeId
  readonly code: Code
  readonly msg: string
  readonly wire: WireBody
}

/**
 * The static members of a class built by {@link make}, so that tag and code
 * can be read without an instance (e.g. to list an endpoint's errors).
 *
 * @category models
 * @since 0.1.0
 */
export interface Statics<Tag extends string, Code extends string> {
  readonly tag: Tag
  readonly code: Code
  /** Names of the data fields, in wire order, after renaming. */
  readonly wireKeys: ReadonlyArray<string>
}

/**
 * The class type produced by {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export type ZulipErrorClass<
  Self,
  Tag extends string,
  Code extends string,
  Fields extends Schema.Struct.Fields
> =
  & Schema.Class<Self, Schema.TaggedStruct<Tag, Fields>, Cause.YieldableError & Proto<Code>>
  & Statics<Tag, Code>

/**
 * How one error is defined.
 *
 * @category models
 * @since 0.1.0
 */
export interface Spec<
  Code extends string,
  Fields extends Schema.Struct.Fields,
  Params extends Schema.Struct.Fields
> {
  /** Zulip's error code. */
  readonly code: Code
  /** Data fields, sent on the wire after `code`, in declaration order. */
  readonly fields?: Fields | undefined
  /** Message-only parameters, never sent on the wire. */
  readonly params?: Params | undefined
  /**
   * The message, fixed or built from the fields and params. May be omitted
   * only when `msg` itself is a field or param (generic errors).
   */
  readonly message?:
    | string
    | ((props: Schema.Struct.Type<Fields & Params>) => string)
    | undefined
  /** Wire names for fields whose JSON key is not a valid identifier (`"retry-after"`). */
  readonly wireNames?: { readonly [K in keyof Fields]?: string } | undefined
}

/**
 * The most characters of one value an error repeats. Values come from
 * requests (a queue id, a channel name, an email), so longer ones are cut
 * and end with "...", as Zulip cuts over-long topics: an error never sends
 * back a megabyte it was sent. No stored name or message comes near it.
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_ECHO_LENGTH = 500

/**
 * A value as an error repeats it: strings longer than
 * {@link MAX_ECHO_LENGTH} cut (never inside a surrogate pair), others as
 * they are.
 *
 * @category conversions
 * @since 0.1.0
 */
export const echo = <A>(value: A): A => {
  if (typeof value !== "string" || value.length <= MAX_ECHO_LENGTH) return value
  let end = MAX_ECHO_LENGTH - 3
  const last = value.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${value.slice(0, end)}...` as A
}

type MissingSelf = "Missing `Self` generic - use `class Self extends ZulipError.make<Self>()(...)`"

/** What the generated classes below are typed as; {@link make} gives them their real type. */
type Constructor = new(props: unknown) => Record<string, unknown>

/**
 * Defines a Zulip error class.
 *
 * ```ts
 * class StreamDoesNotExist extends ZulipError.make<StreamDoesNotExist>()("StreamDoesNotExist", {
 *   code: "STREAM_DOES_NOT_EXIST",
 *   fields: { stream_id: Schema.Int },
 *   message: ({ stream_id }) => `Channel with ID '${stream_id}' does not exist`
 * }) {}
 *
 * const e = new StreamDoesNotExist({ stream_id: 9 })
 * e.wire // {"result":"error","msg":"Channel with ID '9' does not exist","code":"STREAM_DOES_NOT_EXIST","stream_id":9}
 * ```
 *
 * Field values are copied to the wire as they are, so data fields must use
 * JSON-native schemas (no transformations). Every string field and param is
 * cut by {@link echo} wherever the error shows it (message and wire body).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <Self = never>() =>
<
  const Tag extends string,
  const Code extends string,
  const Fields extends Schema.Struct.Fields = {},
  const Params extends Schema.Struct.Fields = {}
>(
  tag: Tag,
  spec: Spec<Code, Fields, Params>
): [Self] extends [never] ? MissingSelf : ZulipErrorClass<Self, Tag, Code, Fields & Params> => {
  const dataFields: Schema.Struct.Fields = spec.fields ?? {}
  const allFields = { ...dataFields, ...(spec.params ?? {}) }
  // Pairs of (property name, wire key), fixed once per class.
  const renames: Readonly<Record<string, string | undefined>> = spec.wireNames ?? {}
  const wirePairs: ReadonlyArray<readonly [string, string]> = Object.keys(dataFields).map(
    (key) => [key, renames[key] ?? key] as const
  )
  const wireKeys = Object.freeze(wirePairs.map(([, wireKey]) => wireKey))
  const allKeys = Object.keys(allFields)
  const message = spec.message
  const code = spec.code

  const hasMsgField = "msg" in allFields
  // A `msg` field is a whole message built by the caller, often around a
  // request's value: it is cut as one value. A template cuts each value it shows.
  const shownMsg = hasMsgField ? (msg: string): string => echo(msg) : (msg: string): string => msg

  // Typed loosely here; `ZulipErrorClass` states what the class is.
  const Base = Schema.TaggedError<unknown>()(tag, allFields) as unknown as Constructor

  class WithWire extends Base {
    static readonly tag = tag
    static readonly code = code
    static readonly wireKeys = wireKeys
    get [TypeId]() {
      return TypeId
    }
    get code() {
      return code
    }
    // Error.message is what loggers and Cause renderers print.
    get message() {
      return shownMsg(this.msg as string)
    }
    get wire(): WireBody {
      const body: Record<string, unknown> = { result: "error", msg: shownMsg(this.msg as string), code }
      for (const [key, wireKey] of wirePairs) {
        const value = this[key]
        if (value !== undefined) body[wireKey] = echo(value)
      }
      return body as unknown as WireBody
    }
  }
  // A `msg` field is an own property set by the constructor: no accessor may shadow it.
  if (hasMsgField) return WithWire as never
  if (message === undefined) {
    throw new globalThis.Error(`ZulipError.make("${tag}"): a message template or a msg field is required`)
  }
  const template = message

  class WithTemplate extends WithWire {
    get msg(): string {
      if (typeof template !== "function") return template
      const shown: Record<string, unknown> = {}
      for (const key of allKeys) shown[key] = echo(this[key])
      return template(shown as Schema.Struct.Type<Fields & Params>)
    }
  }
  return WithTemplate as never
}

/**
 * Checks whether a value is an error built by {@link make}.
 *
 * @category guards
 * @since 0.1.0
 */
export const isZulipError = (u: unknown): u is ZulipError => Predicate.hasProperty(u, TypeId)

/**
 * The exact JSON body Zulip sends for an error.
 *
 * @category conversions
 * @since 0.1.0
 */
export const toWireBody = (error: ZulipError): WireBody => error.wire
