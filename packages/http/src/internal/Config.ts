/**
 * The resolved `HttpOptions` (defined here, below the handlers and
 * middleware that read them), as a service.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/** What `layerRoutes` is given (re-exported by Http.ts). @category models */
export interface HttpOptions {
  /** Enables the demo login: POST /dev_fetch_api_key and GET /dev_list_users. */
  readonly demo: boolean
  /**
   * Requests per authenticated user per window (default 200 per 60 s);
   * `false` turns rate limiting off, for users and anonymous clients alike.
   */
  readonly rateLimit: { readonly requests: number; readonly windowSeconds: number } | false
  /**
   * Requests per client address for endpoints without credentials (default
   * 100 per 60 s); ignored when `rateLimit` is `false`.
   */
  readonly anonymousRateLimit?: { readonly requests: number; readonly windowSeconds: number } | undefined
  /**
   * Password logins (POST /fetch_api_key) per username and per client address
   * (default 5 per 30 minutes, Zulip's `authenticate_by_username`); ignored
   * when `rateLimit` is `false`.
   */
  readonly authenticationRateLimit?: { readonly requests: number; readonly windowSeconds: number } | undefined
  /**
   * Account creations tried through invitation join pages, per client
   * address (default 10 per 10 minutes); ignored when `rateLimit` is `false`.
   */
  readonly joinRateLimit?: { readonly requests: number; readonly windowSeconds: number } | undefined
  /**
   * Larger request bodies get a Zulip-shaped 413 (default 4 MiB), refused by
   * `Content-Length` before reading and while reading one without it.
   */
  readonly maxBodyBytes: number
  readonly version: {
    readonly zulip_version: string
    readonly zulip_feature_level: number
    readonly zulip_merge_base: string
  }
  /**
   * One structured log line per request at Info level (annotations `method`,
   * `path`, `status`, `duration_ms`, `user_id`); off by default.
   */
  readonly log?: boolean | undefined
}

/** @internal */
export class HttpConfig extends Context.Service<HttpConfig, HttpOptions>()("@teamchat/http/internal/HttpConfig") {}

/** @internal */
export const layer = (options: HttpOptions): Layer.Layer<HttpConfig> => Layer.succeed(HttpConfig, options)
