/**
 * GET /streams, GET /users/me/{stream_id}/topics, GET /get_stream_id.
 *
 * @since 0.1.0
 */
import { Channels, Topics } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
import { CurrentPrincipal } from "../api/Middleware.ts"

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "streams",
  Effect.fn(function*(handlers) {
    const channels = yield* Channels.Channels
    const topics = yield* Topics.Topics
    return handlers
      .handle("list", ({ query: { include_all_active, ...flags } }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          channels.list(principal, { ...flags, include_all: flags.include_all || include_all_active })).pipe(
            Effect.map((streams) => ({ streams })),
            Envelope.wrap
          ))
      .handle("topics", ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          topics.list(principal, params.stream_id, { allowEmptyTopicName: query.allow_empty_topic_name })).pipe(
            Effect.map((found) => ({ topics: found })),
            Envelope.wrap
          ))
      .handle("idByName", ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => channels.idByName(principal, query.stream)).pipe(
          Effect.map((stream_id) => ({ stream_id })),
          Envelope.wrap
        ))
  })
)
