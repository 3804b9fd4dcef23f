/**
 * The teamchat server every benchmark measures, started inside a child
 * process: memory backend unless another database is given, the demo
 * organization, no rate limit, quiet logs.
 */
import type { Database } from "../packages/http/src/Config.ts"
import * as Server from "../packages/http/src/Server.ts"

export const startTeamchat = (database: Database = { _tag: "Memory" }) =>
  Server.start({
    port: 0,
    host: "127.0.0.1",
    database,
    demo: true,
    externalUrl: undefined,
    rateLimit: false,
    logLevel: "Warn",
    logFormat: "logfmt"
  }, { http: { log: false }, output: () => {} })
