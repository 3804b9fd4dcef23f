/**
 * What a failed request of an endpoint answers: the `ZulipErrors`
 * middleware's rule, shared with the responses an endpoint computes outside
 * it (`DeferredResponse`). Core errors are sent as they are; a parameter
 * that does not decode becomes Zulip's parameter error; an unexpected
 * defect, or a response the API contract cannot encode, is logged and
 * answered with a 500, except the database being unavailable (no
 * connection in time, too many connections: `Persistence.isUnavailable`),
 * a 503 with `Retry-After`. Interruptions pass through.
 *
 * @internal
 */
import { Persistence, ZulipError } from "@teamchat/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiError from "effect/http-api/HttpApiError"
import * as Option from "effect/Option"
import { InternalServerError, ServiceUnavailable, toResponse } from "./Errors.ts"
import * as Params from "./Params.ts"

/** The response for a failure of `group.endpoint` (identifiers, named in the log line of a defect). */
export const recover = (group: string, endpoint: string) =>
<E>(cause: Cause.Cause<E>): Effect.Effect<HttpServerResponse.HttpServerResponse, E> => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) {
    const error: unknown = failure.value
    if (ZulipError.isZulipError(error)) return Effect.succeed(toResponse(error))
    if (HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders") {
      return Effect.succeed(toResponse(Params.toZulipError(error.cause.issue)))
    }
  }
  return unavailable(cause) ?? Effect.as(
    Effect.logError(`Unexpected failure in ${group}.${endpoint}`, cause),
    toResponse(new InternalServerError())
  )
}

/** The 503 for a cause whose failure or defect is the database being unavailable (logged as a warning). */
export const unavailable = <E>(cause: Cause.Cause<E>): Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined => {
  const found = cause.reasons.some((reason) =>
    (Cause.isDieReason(reason) && Persistence.isUnavailable(reason.defect)) ||
    (Cause.isFailReason(reason) && Persistence.isUnavailable(reason.error))
  )
  return found
    ? Effect.as(Effect.logWarning("Database unavailable; answered 503", cause), toResponse(new ServiceUnavailable()))
    : undefined
}
