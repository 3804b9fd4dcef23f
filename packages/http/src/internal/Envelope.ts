/**
 * Zulip's success envelope: `{"result":"success","msg":"", ...data}`, plus
 * `ignored_parameters_unsupported` when the request carried parameters the
 * endpoint does not support.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
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

/** Wraps handler data in the success envelope of the current request. */
export const succeed = <A extends object>(data: A): Effect.Effect<Envelope<A>, never, IgnoredParameters> =>
  IgnoredParameters.useSync((ignored) =>
    ignored.length === 0
      ? { result: "success", msg: "", ...data } as Envelope<A>
      : { result: "success", msg: "", ...data, ignored_parameters_unsupported: ignored } as Envelope<A>)

/** `Effect.flatMap(self, succeed)` */
export const wrap = <A extends object, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<Envelope<A>, E, R | IgnoredParameters> => Effect.flatMap(self, succeed)
