/**
 * The outermost HttpApi middleware: every failure below it becomes Zulip's
 * error JSON with the error's status and headers. Core errors are sent as
 * they are; a parameter that does not decode becomes Zulip's parameter error
 * ("Missing 'x' argument", "x is not a boolean", ...); an unexpected defect,
 * or a response the API contract cannot encode, is logged and answered with
 * a 500.
 *
 * The middleware also declares the error responses of every endpoint, which
 * types handler failures (any Zulip error) and documents them in OpenAPI.
 *
 * @since 0.1.0
 */
import { ZulipError } from "@teamchat/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpApiError from "effect/http-api/HttpApiError"
import * as Option from "effect/Option"
import { ZulipErrors } from "../api/Middleware.ts"
import { InternalServerError, toResponse } from "../internal/Errors.ts"
import * as Params from "../internal/Params.ts"

/** @category layers */
export const layer: Layer.Layer<ZulipErrors> = Layer.succeed(ZulipErrors, (httpEffect, { endpoint, group }) =>
  Effect.catchCause(httpEffect, (cause) => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
    const failure = Cause.findErrorOption(cause)
    if (Option.isSome(failure)) {
      const error: unknown = failure.value
      if (ZulipError.isZulipError(error)) return Effect.succeed(toResponse(error))
      if (HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders") {
        return Effect.succeed(toResponse(Params.toZulipError(error.cause.issue)))
      }
    }
    return Effect.as(
      Effect.logError(`Unexpected failure in ${group.identifier}.${endpoint.identifier}`, cause),
      toResponse(new InternalServerError())
    )
  }))
