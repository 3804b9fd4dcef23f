/**
 * POST/GET /messages, GET /messages/{id}, POST /messages/flags[/narrow] and
 * POST /streams/{stream_id}/delete_topic.
 *
 * @since 0.1.0
 */
import * as Errors from "@teamchat/core/errors/Errors"
import { MessageFlags } from "@teamchat/core/services/MessageFlags"
import { clientName, Messages, parseAnchor, parseTo } from "@teamchat/core/services/Messages"
import { Topics } from "@teamchat/core/services/Topics"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
import { CurrentPrincipal } from "../middleware/Authentication.ts"

const numericId = (text: string) =>
  /^[0-9]{1,15}$/.test(text) ? Effect.succeed(Number(text)) : Effect.fail(new Errors.NotFoundRoute())

/** A JSON value sent as text; text that is not JSON is an error named after the parameter. */
const jsonValue = (name: string, text: string | undefined) => {
  if (text === undefined) return Effect.succeed(null)
  try {
    return Effect.succeed(JSON.parse(text) as unknown)
  } catch {
    return Effect.fail(new Errors.NotValidJson({ var_name: name }))
  }
}

const sendingClient = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => clientName(request.headers["user-agent"])
)

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "messages",
  Effect.fn(function*(handlers) {
    const messages = yield* Messages
    const flags = yield* MessageFlags
    const topics = yield* Topics
    return handlers.handleAll({
      send: ({ query }) =>
        Effect.gen(function*() {
          if (query.topic !== undefined && query.subject !== undefined) {
            return yield* new Errors.RequestConfusingVar({ var_name1: "topic", var_name2: "subject" })
          }
          const principal = yield* CurrentPrincipal
          const client = yield* sendingClient
          const sent = yield* messages.send(principal, {
            type: query.type,
            to: parseTo(query.to),
            topic: query.topic ?? query.subject,
            content: query.content,
            read_by_sender: query.read_by_sender,
            queue_id: query.queue_id,
            local_id: query.local_id
          }, { client })
          return { id: sent.id }
        }).pipe(Envelope.wrap),
      list: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          // The deprecated flag wins over an anchor (zulip-terminal sends both, with anchor=0).
          const anchorText = query.use_first_unread_anchor ? "first_unread" : query.anchor
          if (anchorText === undefined) return yield* new Errors.RequestVariableMissing({ var_name: "anchor" })
          const anchor = yield* parseAnchor(anchorText)
          return yield* messages.fetch(principal, {
            anchor,
            include_anchor: query.include_anchor,
            num_before: query.num_before,
            num_after: query.num_after,
            narrow: yield* jsonValue("narrow", query.narrow),
            apply_markdown: query.apply_markdown,
            client_gravatar: query.client_gravatar,
            allow_empty_topic_name: query.allow_empty_topic_name
          })
        }).pipe(Envelope.wrap),
      get: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const id = yield* numericId(params.message_id)
          return yield* messages.getById(principal, id, {
            apply_markdown: query.apply_markdown,
            allow_empty_topic_name: query.allow_empty_topic_name
          })
        }).pipe(Envelope.wrap),
      flags: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => flags.update(principal, query)).pipe(Envelope.wrap),
      flagsNarrow: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          return yield* flags.updateByNarrow(principal, {
            anchor: yield* parseAnchor(query.anchor),
            include_anchor: query.include_anchor,
            num_before: query.num_before,
            num_after: query.num_after,
            narrow: yield* jsonValue("narrow", query.narrow),
            op: query.op,
            flag: query.flag
          })
        }).pipe(Envelope.wrap),
      deleteTopic: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const channelId = yield* numericId(params.stream_id)
          return yield* topics.deleteTopic(principal, channelId, query.topic_name)
        }).pipe(Envelope.wrap)
    })
  })
)
