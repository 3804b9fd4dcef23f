/**
 * The base of every Zulip-compatible API error.
 *
 * Zulip answers every failed request with the same envelope,
 * `{"result":"error","msg":<text>,"code":<CODE>, ...extra}`, and an HTTP
 * status (400 unless the error says otherwise). This module provides:
 *
 * - {@link make}: a factory that turns a code, a status, a message template and
 *   the error's fields into a `Schema.TaggedError` class. Instances can be
 *   yielded (`return yield* new InvalidApiKey()`), caught with
 *   `Effect.catchTag`, decoded and encoded like any schema class, and carry
 *   `code`, `httpStatus`, `msg`, `headers` and `wire`.
 * - {@link ZulipError}: the interface all such instances satisfy, with the
 *   guard {@link isZulipError} and {@link toWireBody}.
 *
 * Fields come in two kinds. `fields` are Zulip's "data fields": they are sent
 * on the wire next to `code` (e.g. `stream_id`, `var_name`, `queue_id`).
 * `params` only feed the message template (e.g. the user id in
 * "Invalid user ID 5") and are never sent, which mirrors Zulip where such
 * values are formatted into `msg` only.
 *
 * This module is HTTP-agnostic: the HTTP adapter turns an instance into a
 * response with `httpStatus`, `headers` and `toWireBody`.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * Marker stored on the prototype of every Zulip error class; the guard checks
 * for it instead of `instanceof` so that it survives module reloads.
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
 * Zulip's default HTTP status for an error (`JsonableError.http_status_code`).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_STATUS = 400

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
  /** The HTTP status Zulip answers with. */
  readonly httpStatus: number
  /** The exact Zulip message text. */
  readonly msg: string
  /** Extra response headers (`WWW-Authenticate`, `Retry-After`); usually empty. */
  readonly headers: Readonly<Record<string, string>>
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
  readonly httpStatus: number
  readonly msg: string
  readonly headers: Readonly<Record<string, string>>
  readonly wire: WireBody
}

/**
 * The static members of a class built by {@link make}, so that code and
 * status can be read without an instance (e.g. to list an endpoint's errors).
 *
 * @category models
 * @since 0.1.0
 */
export interface Statics<Tag extends string, Code extends string> {
  readonly tag: Tag
  readonly code: Code
  readonly httpStatus: number
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
  /** HTTP status; defaults to 400. */
  readonly status?: number | undefined
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
  /** Extra response headers, e.g. `WWW-Authenticate` for 401s. */
  readonly headers?:
    | Readonly<Record<string, string>>
    | ((props: Schema.Struct.Type<Fields & Params>) => Readonly<Record<string, string>>)
    | undefined
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

const noHeaders: Readonly<Record<string, string>> = Object.freeze({})

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
  const status = spec.status ?? DEFAULT_STATUS
  const dataFields: Schema.Struct.Fields = spec.fields ?? {}
  const allFields = { ...dataFields, ...(spec.params ?? {}) }
  // Pairs of (property name, wire key), fixed once per class.
  const renames: Readonly<Record<string, string | undefined>> = spec.wireNames ?? {}
  const wirePairs: ReadonlyArray<readonly [string, string]> = Object.keys(dataFields).map(
    (key) => [key, renames[key] ?? key] as const
  )
  const allKeys = Object.keys(allFields)
  const hasMsgField = "msg" in allFields
  const message = spec.message
  if (message === undefined && !hasMsgField) {
    throw new globalThis.Error(`ZulipError.make("${tag}"): a message template or a msg field is required`)
  }
  const headers = spec.headers

  const Base = Schema.TaggedError<unknown>()(tag, allFields, { httpApiStatus: status }) as unknown as {
    readonly prototype: object
  }
  const proto = Base.prototype

  const define = (target: object, key: PropertyKey, descriptor: PropertyDescriptor) =>
    Object.defineProperty(target, key, { configurable: true, enumerable: false, ...descriptor })

  define(proto, TypeId, { value: TypeId })
  define(proto, "code", { value: spec.code })
  define(proto, "httpStatus", { value: status })
  // A `msg` field is an own property set by the constructor; an accessor on the
  // prototype would make that assignment throw.
  if (!hasMsgField) {
    define(proto, "msg", {
      get(this: Record<string, unknown>) {
        if (typeof message !== "function") return message
        const shown: Record<string, unknown> = {}
        for (const key of allKeys) shown[key] = echo(this[key])
        return message(shown as Schema.Struct.Type<Fields & Params>)
      }
    })
  }
  // A `msg` field is a whole message built by the caller, often around a
  // request's value: it is cut as one value. A template cuts its values.
  const shownMsg = hasMsgField ? (msg: string) => echo(msg) : (msg: string) => msg
  // Error.message is what loggers and Cause renderers print.
  define(proto, "message", {
    get(this: { readonly msg: string }) {
      return shownMsg(this.msg)
    }
  })
  define(proto, "headers", {
    get(this: Schema.Struct.Type<Fields & Params>) {
      if (headers === undefined) return noHeaders
      return typeof headers === "function" ? headers(this) : headers
    }
  })
  define(proto, "wire", {
    get(this: Record<string, unknown> & { readonly msg: string }): WireBody {
      const body: Record<string, unknown> = { result: "error", msg: shownMsg(this.msg), code: spec.code }
      for (const [key, wireKey] of wirePairs) {
        const value = this[key]
        if (value !== undefined) body[wireKey] = echo(value)
      }
      return body as unknown as WireBody
    }
  })

  define(Base, "tag", { value: tag })
  define(Base, "code", { value: spec.code })
  define(Base, "httpStatus", { value: status })
  define(Base, "wireKeys", { value: Object.freeze(wirePairs.map(([, wireKey]) => wireKey)) })

  return Base as never
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

/**
 * The HTTP status Zulip answers with for an error.
 *
 * @category conversions
 * @since 0.1.0
 */
export const httpStatus = (error: ZulipError): number => error.httpStatus
