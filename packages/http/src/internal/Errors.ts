/**
 * Zulip-shaped errors the HTTP adapter adds to the core catalogue, the error
 * schemas the API contract declares (for typing and the OpenAPI document),
 * and the conversion of any Zulip error into a response (status and headers
 * from `ErrorStatus.ts`).
 *
 * @internal
 */
import { ZulipError } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"
import * as ErrorStatus from "./ErrorStatus.ts"

/** A request to an API path that no endpoint serves (404). */
export class NotFoundRoute extends ZulipError.make<NotFoundRoute>()("NotFoundRoute", {
  code: "BAD_REQUEST",
  message: "Not Found"
}) {}

/** A request body over `HttpOptions.maxBodyBytes` (413). */
export class PayloadTooLarge extends ZulipError.make<PayloadTooLarge>()("PayloadTooLarge", {
  code: "BAD_REQUEST",
  params: { max_bytes: Schema.Int },
  message: ({ max_bytes }) => `Request body is larger than the allowed limit of ${max_bytes} bytes`
}) {}

/**
 * A parameter with NUL bytes, which no parameter may hold (PostgreSQL text
 * cannot store them). Zulip's wording for names ("Channel name … contains
 * NULL (0x00) characters."), naming the parameter instead of echoing it.
 */
export class NullCharacters extends ZulipError.make<NullCharacters>()("NullCharacters", {
  code: "BAD_REQUEST",
  params: { var_name: Schema.String },
  message: ({ var_name }) => `${var_name} contains NULL (0x00) characters.`
}) {}

/** An unexpected defect (500); the cause is logged, never sent. */
export class InternalServerError extends ZulipError.make<InternalServerError>()("InternalServerError", {
  code: "BAD_REQUEST",
  message: "Internal server error"
}) {}

/**
 * The database could not take the request now (no connection in time, too
 * many connections): 503 with `Retry-After`, never a 500, so clients retry.
 */
export class ServiceUnavailable extends ZulipError.make<ServiceUnavailable>()("ServiceUnavailable", {
  code: "BAD_REQUEST",
  message: "The server is too busy to answer this request; try again shortly"
}) {}

/** The body of an unknown route. */
export const notFound = (): ZulipError.ZulipError => new NotFoundRoute()

/**
 * A known path asked with a method it is not served with: Zulip's
 * rest_dispatch answer (json_method_not_allowed), 405 with the path's
 * methods in Django's `Allow` and in `allowed_methods`, and no `code`.
 */
export const methodNotAllowed = (methods: ReadonlyArray<string>): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe({ result: "error", msg: "Method Not Allowed", allowed_methods: methods }, {
    status: 405,
    headers: { allow: methods.join(", ") }
  })

/** OPTIONS on a known path: Zulip's rest_dispatch answers 204 with the path's methods, sorted, in `Allow`. */
export const allowedMethods = (methods: ReadonlyArray<string>): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.empty({ status: 204, headers: { allow: [...methods].sort().join(", ") } })

/** The response Zulip sends for an error: its status, headers and wire body, as JSON. */
export const toResponse = (error: ZulipError.ZulipError): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(ZulipError.toWireBody(error), {
    status: ErrorStatus.status(error),
    headers: ErrorStatus.headers(error)
  })

const WireBody = Schema.Struct({
  result: Schema.Literal("error"),
  msg: Schema.String,
  code: Schema.String
}).annotate({ description: "A Zulip error; some errors add data fields (var_name, retry-after, ...)." })

// Errors are encoded by the ZulipErrors middleware before HttpApi sees them;
// these schemas type handler failures and document the responses.
const errorResponse = (status: number, description: string) =>
  WireBody.pipe(
    Schema.decodeTo(
      Schema.declare((u): u is ZulipError.ZulipError => ZulipError.isZulipError(u) && ErrorStatus.status(u) === status),
      SchemaTransformation.transformEffect<ZulipError.ZulipError, typeof WireBody.Encoded>({
        decode: (wire, options) =>
          Effect.fail(new SchemaIssue.Forbidden({ message: "Zulip errors are encoded only" }, wire, options)),
        encode: (error) => Effect.succeed({ result: "error" as const, msg: error.msg, code: error.code })
      })
    ),
    HttpApiSchema.status(status)
  ).annotate({ description })

/** Every status a Zulip error can carry, for `error:` declarations. */
export const ErrorResponses = [
  errorResponse(400, "Bad request: invalid or missing parameters, or a rule the request breaks."),
  errorResponse(401, "Authentication failed or missing."),
  errorResponse(403, "Access denied."),
  errorResponse(404, "Not found, or no organization for this host."),
  errorResponse(413, "The request body is too large."),
  errorResponse(429, "Rate limit exceeded."),
  errorResponse(500, "Internal server error."),
  errorResponse(503, "The database is too busy; retry after the `Retry-After` header's seconds.")
] as const
