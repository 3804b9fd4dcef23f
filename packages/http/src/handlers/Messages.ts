/**
 * POST/GET /messages, GET, PATCH and DELETE /messages/{id}, GET
 * /messages/{id}/history, POST /messages/flags[/narrow], POST
 * /mark_all_as_read, /mark_stream_as_read, /mark_topic_as_read, GET
 * /messages/{id}/read_receipts, POST and DELETE
 * /messages/{message_id}/reactions, POST /streams/{stream_id}/delete_topic
 * POST /submessage and POST /messages/render.
 *
 * @since 0.1.0
 */
import { Errors, MessageDeletion, MessageEdits, MessageFlags, Messages, Reactions, Submessages, Topics } from "@teamchat/core"
import type { Principal, ZulipError } from "@teamchat/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
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
 * type for the recipient. A list longer than the core takes is refused
 * before its items are read.
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
  const target = (
    value: unknown,
    name: string
  ): Effect.Effect<number | string, Errors.BadRequest | Errors.TooLarge | Errors.TooSmall> => {
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
  if (!Array.isArray(value)) return target(value, "to")
  if (value.length > Messages.MaxRecipients) {
    return Effect.fail(new Errors.TooManyItems({ var_name: "to", max_items: Messages.MaxRecipients }))
  }
  return Effect.forEach(value, (element, i) => target(element, `to[${i}]`))
}

/** The core's `StaleAccess`, by its tag. */
type Stale = { readonly _tag: "StaleAccess" }

/**
 * `deferred` for a principal that may come from a kept read the core checks
 * itself, in the same statement as its work (one statement fewer); when that
 * read was stale (`StaleAccess`, nothing written), the request is
 * authenticated again, with the check, and `checked` answers it afresh.
 */
const withCheckedRetry = <A, E, R>(
  deferred: Effect.Effect<A, E, R>,
  checked: (principal: Principal.Principal) => Effect.Effect<A, Exclude<E, Stale>, R>,
  endpoint: string
): Effect.Effect<A, Exclude<E, Stale> | ZulipError.ZulipError, R> =>
  Effect.catch(deferred, (error) =>
    Predicate.isTagged(error, "StaleAccess")
      ? Effect.flatMap(Effect.serviceOption(Reauthenticate), (again) =>
        Option.isNone(again)
          ? Effect.die(new Error(`${endpoint}: a stale principal without Reauthenticate`))
          : Effect.flatMap(again.value, checked))
      : Effect.fail(error as Exclude<E, Stale>))

/** The decoded query of POST /messages. */
type SendQuery = HttpApiEndpoint.Query<typeof Api.groups.messages.endpoints.send>["Type"]

/** The core's request for POST /messages's decoded parameters. */
export const sendRequest = Effect.fnUntraced(function*(query: SendQuery) {
  if (query.topic !== undefined && query.subject !== undefined) {
    return yield* new Errors.RequestConfusingVar({ var_name1: "topic", var_name2: "subject" })
  }
  return {
    type: query.type,
    to: yield* sendTarget(query.type, query.to),
    topic: query.topic ?? query.subject,
    content: query.content,
    read_by_sender: query.read_by_sender,
    queue_id: query.queue_id,
    local_id: query.local_id,
    widget_content: query.widget_content
  }
})

/** The decoded query of GET /messages. */
type ListQuery = HttpApiEndpoint.Query<typeof Api.groups.messages.endpoints.list>["Type"]

/**
 * GET /messages's request to the core, from its decoded query.
 */
export const fetchRequest = Effect.fnUntraced(function*(query: ListQuery) {
  // The deprecated flag wins over an anchor (zulip-terminal sends both, with anchor=0).
  const anchorText = query.use_first_unread_anchor ? "first_unread" : query.anchor
  if (anchorText === undefined) return yield* new Errors.RequestVariableMissing({ var_name: "anchor" })
  const anchor = yield* Messages.parseAnchor(anchorText)
  return {
    anchor,
    include_anchor: query.include_anchor,
    num_before: query.num_before,
    num_after: query.num_after,
    narrow: yield* jsonValue("narrow", query.narrow),
    apply_markdown: query.apply_markdown,
    client_gravatar: query.client_gravatar,
    allow_empty_topic_name: query.allow_empty_topic_name
  } satisfies Messages.FetchRequest
})

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
    const submessages = yield* Submessages.Submessages
    const reactions = yield* Reactions.Reactions
    const deletion = yield* MessageDeletion.MessageDeletion
    const edits = yield* MessageEdits.MessageEdits
    // A page of messages is up to 5,000 of them: sent without HttpApi's
    // generic encoder when it certainly encodes to itself (Envelope.respond).
    const respondList = Envelope.respond(Api.groups.messages.endpoints.list)
    const respondGet = Envelope.respond(Api.groups.messages.endpoints.get)
    // A send's `{id}` too: the encoder's setup costs more than the answer.
    const respondSend = Envelope.respond(Api.groups.messages.endpoints.send)
    return handlers.handleAll({
      send: ({ query }) =>
        Effect.gen(function*() {
          const request = yield* sendRequest(query)
          const principal = yield* CurrentPrincipal
          const client = yield* sendingClient
          const sent = yield* withCheckedRetry(
            messages.sendDeferred(principal, request, { client }),
            (checked) => messages.send(checked, request, { client }),
            "POST /messages"
          )
          return { id: sent.id }
        }).pipe(Effect.flatMap(respondSend)),
      list: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const request = yield* fetchRequest(query)
          return yield* withCheckedRetry(
            messages.fetchDeferred(principal, request),
            (checked) => messages.fetch(checked, request),
            "GET /messages"
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
      delete: ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => deletion.deleteMessage(principal, params.message_id)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
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
      markAllAsRead: () => Effect.flatMap(CurrentPrincipal, (principal) => flags.markAllAsRead(principal)).pipe(Envelope.wrap),
      markStreamAsRead: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => flags.markChannelAsRead(principal, query.stream_id)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      markTopicAsRead: ({ query }) =>
        Effect.flatMap(
          CurrentPrincipal,
          (principal) => flags.markTopicAsRead(principal, query.stream_id, query.topic_name)
        ).pipe(Effect.as({}), Envelope.wrap),
      readReceipts: ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => flags.readReceipts(principal, params.message_id)).pipe(Envelope.wrap),
      addReaction: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => reactions.add(principal, params.message_id, query)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      removeReaction: ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => reactions.remove(principal, params.message_id, query)).pipe(
          Effect.as({}),
          Envelope.wrap
        ),
      deleteTopic: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          return yield* topics.deleteTopic(principal, params.stream_id, query.topic_name)
        }).pipe(Envelope.wrap),
      submessage: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* submessages.add(principal, query)
          return {}
        }).pipe(Envelope.wrap),
      edit: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const { subject, ...rest } = query
          return yield* edits.edit(principal, params.message_id, { ...rest, topic: query.topic ?? subject })
        }).pipe(Envelope.wrap),
      history: ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const message_history = yield* edits.history(principal, params.message_id, query)
          return { message_history }
        }).pipe(Envelope.wrap),
      matchesNarrow: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const narrow = yield* Params.parseJsonParameter("narrow", query.narrow)
          return { messages: yield* messages.matchesNarrow(principal, query.msg_ids, narrow) }
        }).pipe(Envelope.wrap),
      render: ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => messages.render(principal, query.content)).pipe(
          Effect.map((rendered) => ({ rendered })),
          Envelope.wrap
        )
    })
  })
)
