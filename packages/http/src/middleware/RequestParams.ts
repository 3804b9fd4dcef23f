/**
 * Zulip's parameter sources, merged before HttpApi decodes an endpoint's
 * `query` schema: the query string on every method, and on POST, PUT, PATCH
 * and DELETE the body, `application/x-www-form-urlencoded` or
 * `multipart/form-data` (files are not parameters). A body value wins over a
 * query value of the same name, and a repeated name keeps its last value, as
 * Django's `QueryDict.get` does. Other body types are ignored, as Zulip does.
 *
 * The merged record replaces `ParsedSearchParams` for the rest of the
 * request, so endpoints declare every parameter under `query`. The
 * middleware also provides `IgnoredParameters` for the success envelope.
 *
 * Bodies over `maxBodyBytes` fail with a Zulip-shaped 413, checked against
 * `Content-Length` first and enforced while reading. An endpoint annotated
 * `ReadsBodyItself` (POST /user_uploads) keeps its body for its handler.
 *
 * Every merged value the endpoint declares is checked here for what no
 * parameter may hold (NUL bytes, lone surrogates; see `Params.checkText`),
 * so no endpoint, old or new, passes them on to the core or to SQL.
 *
 * @since 0.1.0
 */
import { Errors } from "@teamchat/core"
import * as ByteSize from "effect/ByteSize"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpMethod from "effect/http/HttpMethod"
import type * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Multipart from "effect/http/Multipart"
import * as Redacted from "effect/Redacted"
import type * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as Stream from "effect/Stream"
import { ReadsBodyItself, RequestParams } from "../api/Middleware.ts"
import { PayloadTooLarge } from "../internal/Errors.ts"
import * as IgnoredParameters from "../internal/IgnoredParameters.ts"
import * as Params from "../internal/Params.ts"

/** The parameters whose schema gives NUL bytes a message of its own. */
const nullMessagesOf = (query: Schema.Top | undefined): ReadonlyMap<string, string> => {
  const messages = new Map<string, string>()
  if (query === undefined || !SchemaAST.isObjects(query.ast)) return messages
  for (const property of query.ast.propertySignatures) {
    const msg = Params.nullMessageOf(property.type)
    if (msg !== undefined) messages.set(String(property.name), msg)
  }
  return messages
}

const tooLarge = (maxBodyBytes: number) => new PayloadTooLarge({ max_bytes: maxBodyBytes })
const malformed = () => new Errors.BadRequest({ msg: "Malformed request body" })

const fromServerError = (maxBodyBytes: number) => (error: HttpServerError.HttpServerError) =>
  error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
    ? tooLarge(maxBodyBytes)
    : malformed()

const fromMultipartError = (maxBodyBytes: number) => (error: Multipart.MultipartError) =>
  error.reason._tag === "Parse" || error.reason._tag === "InternalError" ? malformed() : tooLarge(maxBodyBytes)

/**
 * The form fields of the body, in order; `undefined` (nothing to read) for
 * methods and types Zulip does not read.
 */
const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  maxBodyBytes: number
): Effect.Effect<ReadonlyArray<readonly [string, string]>, PayloadTooLarge | Errors.BadRequest> | undefined => {
  if (!HttpMethod.hasBody(request.method)) return undefined
  const type = Params.mediaType(request.headers["content-type"])
  const isForm = type === "application/x-www-form-urlencoded"
  const isMultipart = type === "multipart/form-data"
  if (!isForm && !isMultipart) return undefined
  const declaredLength = Number(request.headers["content-length"])
  if (Number.isFinite(declaredLength) && declaredLength > maxBodyBytes) return Effect.fail(tooLarge(maxBodyBytes))
  const read: Effect.Effect<ReadonlyArray<readonly [string, string]>, PayloadTooLarge | Errors.BadRequest> = isForm
    ? request.urlParamsBody.pipe(
      Effect.map((params) =>
        params.params.map(([key, value]) => [key, typeof value === "string" ? value : Redacted.value(value)] as const)
      ),
      Effect.mapError(fromServerError(maxBodyBytes))
    )
    : Effect.suspend(() => {
      const fields: Array<readonly [string, string]> = []
      return request.multipartStream.pipe(
        Stream.runForEach((part) => {
          if (Multipart.isField(part)) fields.push([part.key, part.value])
          return Effect.void
        }),
        Effect.as(fields),
        Effect.mapError(fromMultipartError(maxBodyBytes))
      )
    })
  const limit = ByteSize.bytes(maxBodyBytes)
  return read.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, limit),
    Effect.provideService(Multipart.MaxFieldSize, limit)
  )
}

/** @category layers */
export const layer = (options: { readonly maxBodyBytes: number }): Layer.Layer<RequestParams> =>
  Layer.succeed(RequestParams, (httpEffect, { endpoint }) => {
    // Runs once per endpoint, when the routes are built.
    const declared = IgnoredParameters.declaredNames(endpoint)
    const nullMessages = nullMessagesOf(endpoint.query)
    const readsBody = !Context.get(endpoint.annotations, ReadsBodyItself)
    const withParams = (merged: Record<string, string>, ignored: ReadonlyArray<string>) => {
      const run = Effect.updateContext(
        httpEffect,
        (context: Context.Context<never>) =>
          Context.add(
            Context.add(context, HttpServerRequest.ParsedSearchParams, merged),
            IgnoredParameters.IgnoredParameters,
            ignored
          )
      )
      // Only parameters the endpoint reads: the others are never read, only named
      // in `ignored_parameters_unsupported`.
      for (const name in merged) {
        if (!declared.has(name)) continue
        const refused = Params.checkText(name, merged[name]!, nullMessages.get(name))
        if (refused !== undefined) return Effect.andThen(Effect.fail(refused), run)
      }
      return run
    }
    const withBody = (
      merged: Record<string, string>,
      body: ReadonlyArray<readonly [string, string]>
    ) => {
      for (const [key, value] of body) merged[key] = value
      return withParams(merged, IgnoredParameters.compute(Object.keys(merged), declared))
    }
    type Requires = HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams
    return Effect.contextWith((context: Context.Context<Requires>) => {
      const request = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
      const query = Context.getUnsafe(context, HttpServerRequest.ParsedSearchParams)
      const merged: Record<string, string> = Object.create(null)
      for (const key in query) {
        if (!Object.hasOwn(query, key)) continue
        const value = query[key]!
        const last = typeof value === "string" ? value : value[value.length - 1]
        if (last !== undefined) merged[key] = last
      }
      const body = readsBody ? readBody(request, options.maxBodyBytes) : undefined
      if (body === undefined) {
        return withParams(merged, IgnoredParameters.compute(Object.keys(merged), declared))
      }
      return Effect.flatMap(body, (fields) => withBody(merged, fields))
    })
  })
