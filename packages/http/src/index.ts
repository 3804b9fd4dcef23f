/**
 * The Zulip /api/v1 HTTP adapter of teamchat. The package's exports map lists
 * exactly these modules (each also importable by its own path, as
 * `@teamchat/http/Http`); nothing under `internal/` resolves.
 *
 * @since 0.1.0
 */
export * as Api from "./api/Api.ts"
/** Server settings from the environment and flags, validated into one `ServerConfig`. */
export * as Config from "./Config.ts"
export * as Http from "./Http.ts"
/** The push bouncer client (the core's `PushBouncer` port over HTTP). */
export * as PushBouncerClient from "./PushBouncerClient.ts"
/** The standalone Node server (`Server.start`), as `teamchat serve` runs it. */
export * as Server from "./Server.ts"
