/**
 * `ignored_parameters_unsupported`: the request parameters (query string and
 * form body) an endpoint does not declare, sorted, reported on success only.
 * Path parameters never count.
 *
 * @internal
 */
import * as Context from "effect/Context"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import type * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

/** The parameters of the current request that its endpoint ignored, sorted. */
export class IgnoredParameters extends Context.Service<IgnoredParameters, ReadonlyArray<string>>()(
  "@teamchat/http/internal/IgnoredParameters"
) {}

const fieldNames = (schema: Schema.Top | undefined): ReadonlyArray<string> => {
  if (schema === undefined) return []
  const ast = SchemaAST.toEncoded(schema.ast)
  return SchemaAST.isObjects(ast) ? ast.propertySignatures.map((ps) => String(ps.name)) : []
}

const cache = new WeakMap<HttpApiEndpoint.Top, ReadonlySet<string>>()

/** The names an endpoint declares: its query fields and its path parameters. */
export const declaredNames = (endpoint: HttpApiEndpoint.Top): ReadonlySet<string> => {
  let names = cache.get(endpoint)
  if (names === undefined) {
    names = new Set([...fieldNames(endpoint.query), ...fieldNames(endpoint.params)])
    cache.set(endpoint, names)
  }
  return names
}

const none: ReadonlyArray<string> = Object.freeze([])

/** Sent minus declared, in Python's `sorted` order (code points). */
export const compute = (sent: Iterable<string>, declared: ReadonlySet<string>): ReadonlyArray<string> => {
  let ignored: Set<string> | undefined
  for (const name of sent) {
    if (declared.has(name)) continue
    if (ignored === undefined) ignored = new Set()
    ignored.add(name)
  }
  return ignored === undefined ? none : Array.from(ignored).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}
