/**
 * POST/GET /messages, GET /messages/{id}, POST /messages/flags[/narrow] and
 * POST /streams/{stream_id}/delete_topic.
 *
 * @since 0.1.0
 */
import { Errors, MessageFlags, Messages, Topics } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { Api } from "../api/Api.ts"
import * as Envelope from "../internal/Envelope.ts"
import * as Params from "../internal/Params.ts"
import { CurrentPrincipal, Reauthenticate } from "../api/Middleware.ts"

/** A JSON value sent as text (absent: null). */
const jsonValue = (name: string, text: string | undefined) =>
  text === undefined ? Effect.succeed(null) : Params.parseJsonParameter(name, text)

/**
 * `to` of a send, read as Zulip does (`extract_stream_indicator`,
 * `extract_private_recipients`): JSON when it parses (an id, a name, a list
 * of them), otherwise plain text (a channel name, comma-separated emails).
 * Numbers must be integers the server can hold; other JSON is the wrong
 * type for the recipient.
 */
const sendTarget = (type: string, text: string) => {
  const parsed = Params.parseJson(text)
  if (!parsed.ok) {
    return parsed.kind === "NotValidJson" ? Effect.succeed(text) : Effect.fail(Params.jsonError("to", parsed.kind))
  }
  const wrongType = () =>
    new Errors.BadRequest({
      msg: type === "channel" || type === "stream" ? "Invalid data type for channel" : "Invalid data type for recipients"
    })
  const target = (value: unknown, name: string): Effect.Effect<number | string, Errors.BadRequest | Errors.TooLarge | Errors.TooSmall> => {
    if (typeof value === "string") return Effect.succeed(value)
    const problem = Params.integerProblem(value)
    if (problem === undefined) return Effect.succeed(value as number)
    if (problem === "TooLarge") return Effect.fail(new Errors.TooLarge({ var_name: name }))
    if (problem === "TooSmall") return Effect.fail(new Errors.TooSmall({ var_name: name }))
    return Effect.fail(wrongType())
  }
  const value = parsed.value
  // `1e3` and `1.0` are JSON floats, as Zulip's parser reads them.
  if (typeof value === "number" && /[.eE]/.test(text)) return Effect.fail(wrongType())
  return Array.isArray(value)
    ? Effect.forEach(value, (element, i) => target(element, `to[${i}]`))
    : target(value, "to")
}

const sendingClient = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => Messages.clientName(request.headers["user-agent"])
)

/** @category handlers */
export const layer = HttpApiBuilder.group(
  Api,
  "messages",
  Effect.fn(function*(handlers) {
    const messages = yield* Messages.Messages
    const flags = yield* MessageFlags.MessageFlags
    const topics = yield* Topics.Topics
    // A page of messages is up to 5,000 of them: sent without HttpApi's
    // generic encoder when it certainly encodes to itself (Envelope.respond).
    const respondList = Envelope.respond(Api.groups.messages.endpoints.list)
    const respondGet = Envelope.respond(Api.groups.messages.endpoints.get)
    // A send's `{id}` too: the encoder's setup costs more than the answer.
    const respondSend = Envelope.respond(Api.groups.messages.endpoints.send)
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
            to: yield* sendTarget(query.type, query.to),
            topic: query.topic ?? query.subject,
            content: query.content,
            read_by_sender: query.read_by_sender,
            queue_id: query.queue_id,
            local_id: query.local_id
          }, { client })
          return { id: sent.id }
        }).pipe(Effect.flatMap(respondSend)),
      list: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          // The deprecated flag wins over an anchor (zulip-terminal sends both, with anchor=0).
          const anchorText = query.use_first_unread_anchor ? "first_unread" : query.anchor
          if (anchorText === undefined) return yield* new Errors.RequestVariableMissing({ var_name: "anchor" })
          const anchor = yield* Messages.parseAnchor(anchorText)
          const request = {
            anchor,
            include_anchor: query.include_anchor,
            num_before: query.num_before,
            num_after: query.num_after,
            narrow: yield* jsonValue("narrow", query.narrow),
            apply_markdown: query.apply_markdown,
            client_gravatar: query.client_gravatar,
            allow_empty_topic_name: query.allow_empty_topic_name
          }
          // The principal may come from a kept read the search checks itself
          // (one statement fewer); when that read was stale, the request is
          // authenticated again, with the check, and answered afresh.
          return yield* messages.fetchDeferred(principal, request).pipe(
            Effect.catchTag("StaleAccess", () =>
              Effect.flatMap(Effect.serviceOption(Reauthenticate), (again) =>
                Option.isNone(again)
                  ? Effect.die(new Error("GET /messages: a stale principal without Reauthenticate"))
                  : Effect.flatMap(again.value, (checked) => messages.fetch(checked, request))))
          )
        }).pipe(Effect.flatMap(respondList)),
      get: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          return yield* messages.getById(principal, params.message_id, {
            apply_markdown: query.apply_markdown,
            allow_empty_topic_name: query.allow_empty_topic_name
          })
        }).pipe(Effect.flatMap(respondGet)),
      flags: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => flags.update(principal, query)).pipe(Envelope.wrap),
      flagsNarrow: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          return yield* flags.updateByNarrow(principal, {
            anchor: yield* Messages.parseAnchor(query.anchor),
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
          return yield* topics.deleteTopic(principal, params.stream_id, query.topic_name)
        }).pipe(Envelope.wrap)
    })
  })
)
