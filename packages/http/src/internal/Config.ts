/**
 * The resolved `HttpOptions`, as a service the handlers and middleware read.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type { HttpOptions } from "../Http.ts"

/** @internal */
export class HttpConfig extends Context.Service<HttpConfig, HttpOptions>()("@teamchat/http/internal/HttpConfig") {}

/** @internal */
export const layer = (options: HttpOptions): Layer.Layer<HttpConfig> => Layer.succeed(HttpConfig, options)
