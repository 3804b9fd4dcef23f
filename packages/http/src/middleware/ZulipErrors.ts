/**
 * The outermost HttpApi middleware: every failure below it becomes Zulip's
 * error JSON with the error's status and headers (the rule of
 * `internal/Failures.ts`). Core errors are sent as they are; a parameter
 * that does not decode becomes Zulip's parameter error ("Missing 'x'
 * argument", "x is not a boolean", ...); an unexpected defect, or a response
 * the API contract cannot encode, is logged and answered with a 500.
 *
 * The middleware also declares the error responses of every endpoint, which
 * types handler failures (any Zulip error) and documents them in OpenAPI.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ZulipErrors } from "../api/Middleware.ts"
import * as Failures from "../internal/Failures.ts"

/** @category layers */
export const layer: Layer.Layer<ZulipErrors> = Layer.succeed(ZulipErrors, (httpEffect, { endpoint, group }) =>
  Effect.catchCause(httpEffect, Failures.recover(group.identifier, endpoint.identifier)))
