/**
 * The Zulip /api/v1 HTTP adapter of teamchat.
 *
 * @since 0.1.0
 */
export * as Api from "./api/Api.ts"
export * as Http from "./Http.ts"
