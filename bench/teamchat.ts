/**
 * The teamchat server every benchmark measures, started inside a child
 * process: memory backend, the demo organization, no rate limit, quiet logs.
 */
import * as Server from "../packages/http/src/Server.ts"

export const startTeamchat = () =>
  Server.start({
    port: 0,
    host: "127.0.0.1",
    database: { _tag: "Memory" },
    demo: true,
    externalUrl: undefined,
    rateLimit: false,
    logLevel: "Warn",
    logFormat: "logfmt"
  }, { http: { log: false }, output: () => {} })
