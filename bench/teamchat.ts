/**
 * The teamchat server every benchmark measures, started inside a child
 * process: memory backend unless another database is given, the demo
 * organization, no rate limit, no request log, quiet logs. `options` go to
 * `Server.start` as they are (e.g. `{ fastPaths: false }`).
 */
import type { Database } from "@teamchat/http/Config"
import * as Server from "@teamchat/http/Server"

export const startTeamchat = (database: Database = { _tag: "Memory" }, options: Record<string, unknown> = {}) =>
  Server.start({
    port: 0,
    host: "127.0.0.1",
    database,
    demo: true,
    externalUrl: undefined,
    rateLimit: false,
    logLevel: "Warn",
    logFormat: "logfmt"
  }, { http: { log: false }, output: () => {}, ...options })
