/**
 * Bad input at the edge, written once and run on every core backend: ids
 * and integers that are not integers or lie beyond ±(2^53 − 1), NUL bytes
 * and lone surrogates in raw and JSON parameters, and over-long values that
 * errors repeat. Each row is one request and the exact status and body it
 * gets; none of them may reach the core's storage.
 *
 * What the server answers (Zulip's answer where it has one):
 * - a path id that is not digits is no route (404 "Not Found", Django's
 *   `<int:…>` converter); digits beyond any id this server issues are the
 *   endpoint's not-found error ("Invalid message(s)", "Invalid channel ID",
 *   "Scheduled message does not exist", "No such user");
 * - an integer parameter that is a fraction or a float form is "x is not an
 *   integer"; a whole number beyond ±(2^53 − 1) is "x is too large" / "x is
 *   too small" (it cannot be read exactly, nor echoed);
 * - `to` of POST /messages reads as Zulip's `extract_stream_indicator`: a
 *   number that is not an integer is "Invalid data type for channel"
 *   ("… for recipients" for direct messages);
 * - NUL bytes: "x contains NULL (0x00) characters.", except where Zulip
 *   has its own message (content, topic, full_name); a lone surrogate in
 *   JSON text is "x is not valid JSON", as Zulip's JSON parser says;
 * - an error repeats at most 500 characters of a value, cut with "...".
 * - POST /user_uploads with a body that is not multipart, or multipart
 *   without a file, has no file ("You must specify a file to upload");
 *   a multipart type without a boundary is "Malformed request body"; a
 *   download path that leaves the store (encoded slashes and dots) names no
 *   upload: Zulip's HTML 404, for the download and the temporary URL of
 *   GET /api/v1/user_uploads alike;
 * - a temporary URL's token that is not upper-case hex of UTF-8 text of
 *   the server's signed form (NUL bytes, bytes that are not UTF-8, an
 *   expiry beyond any time, anything over-long) is "Invalid token"; a
 *   temporary path of other than two segments names no file (HTML 404).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Backend, RequestOptions } from "./Harness.ts"
import { accounts, demoLayer, layerServer, makeRequest, Server } from "./Harness.ts"

const badRequest = (msg: string, extra: object = {}) => ({ result: "error", msg, code: "BAD_REQUEST", ...extra })
const noRoute = { result: "error", msg: "Not Found", code: "BAD_REQUEST" }
const nul = (name: string) => badRequest(`${name} contains NULL (0x00) characters.`)

interface Row {
  readonly name: string
  readonly method: string
  readonly path: string
  readonly as?: keyof typeof accounts
  readonly options?: Omit<RequestOptions, "as">
  readonly status: number
  readonly body: object
  /** An answer that is not JSON (a download's HTML): its exact text; `body` is then unused. */
  readonly text?: string
}

const channel = (to: string) => ({ form: { type: "channel", to, topic: "bad input", content: "never sent" } })
const direct = (to: string) => ({ form: { type: "direct", to, content: "never sent" } })
const range = { anchor: "newest", num_before: "1", num_after: "1" }

/** Defect 1: non-integers and integers beyond the safe range, in every place an integer is read. */
const integers: ReadonlyArray<Row> = [
  ...["1.5", "1e20", "1e309", "[1.5]", "1.0"].map((to): Row => ({
    name: `POST /messages channel to=${to}`,
    method: "POST",
    path: "/api/v1/messages",
    options: channel(to),
    status: 400,
    body: badRequest("Invalid data type for channel")
  })),
  ...([
    ["9007199254740993", "to is too large"],
    ["9223372036854775808", "to is too large"],
    ["-9223372036854775808", "to is too small"],
    ["[9007199254740993]", "to[0] is too large"]
  ] as const).map(([to, msg]): Row => ({
    name: `POST /messages channel to=${to}`,
    method: "POST",
    path: "/api/v1/messages",
    options: channel(to),
    status: 400,
    body: badRequest(msg)
  })),
  {
    name: "POST /messages direct to=[1.5]",
    method: "POST",
    path: "/api/v1/messages",
    options: direct("[1.5]"),
    status: 400,
    body: badRequest("Invalid data type for recipients")
  },
  {
    name: "POST /messages direct to=[9223372036854775808]",
    method: "POST",
    path: "/api/v1/messages",
    options: direct("[9223372036854775808]"),
    status: 400,
    body: badRequest("to[0] is too large")
  },
  {
    name: "GET /messages/{id} beyond any id",
    method: "GET",
    path: "/api/v1/messages/9007199254740993",
    status: 400,
    body: badRequest("Invalid message(s)")
  },
  { name: "GET /messages/{id} not digits", method: "GET", path: "/api/v1/messages/1.5", status: 404, body: noRoute },
  {
    name: "DELETE /messages/{id} beyond any id",
    method: "DELETE",
    path: "/api/v1/messages/9007199254740993",
    status: 400,
    body: badRequest("Invalid message(s)")
  },
  { name: "DELETE /messages/{id} zero", method: "DELETE", path: "/api/v1/messages/0", status: 400, body: badRequest("Invalid message(s)") },
  { name: "DELETE /messages/{id} not digits", method: "DELETE", path: "/api/v1/messages/1.5", status: 404, body: noRoute },
  {
    name: "POST /messages/{id}/reactions beyond any id",
    method: "POST",
    path: "/api/v1/messages/9007199254740993/reactions",
    options: { form: { emoji_name: "octopus" } },
    status: 400,
    body: badRequest("Invalid message(s)")
  },
  {
    name: "DELETE /messages/{id}/reactions not digits",
    method: "DELETE",
    path: "/api/v1/messages/-1/reactions",
    options: { form: { emoji_name: "octopus" } },
    status: 404,
    body: noRoute
  },
  {
    name: "POST /messages widget_content not JSON",
    method: "POST",
    path: "/api/v1/messages",
    options: { form: { type: "stream", to: "Verona", topic: "t", content: "c", widget_content: "{" } },
    status: 400,
    body: badRequest("Widgets: API programmer sent invalid JSON content")
  },
  {
    name: "POST /messages/{id}/typing beyond any id",
    method: "POST",
    path: "/api/v1/messages/9007199254740993/typing",
    options: { form: { op: "start" } },
    status: 400,
    body: badRequest("Invalid message(s)")
  },
  { name: "POST /messages/{id}/typing zero", method: "POST", path: "/api/v1/messages/0/typing", options: { form: { op: "stop" } }, status: 400, body: badRequest("Invalid message(s)") },
  { name: "POST /messages/{id}/typing not digits", method: "POST", path: "/api/v1/messages/-1/typing", options: { form: { op: "start" } }, status: 404, body: noRoute },
  { name: "POST /messages/{id}/typing op of another case", method: "POST", path: "/api/v1/messages/1/typing", options: { form: { op: "START" } }, status: 400, body: badRequest("Invalid op") },
  {
    name: "GET /messages/{id}/read_receipts beyond any id",
    method: "GET",
    path: "/api/v1/messages/9007199254740993/read_receipts",
    status: 400,
    body: badRequest("Invalid message(s)")
  },
  {
    name: "GET /messages/{id}/read_receipts not digits",
    method: "GET",
    path: "/api/v1/messages/1e3/read_receipts",
    status: 404,
    body: noRoute
  },
  ...([
    ["1.5", "stream_id is not an integer"],
    ["1e3", "stream_id is not an integer"],
    ["9007199254740993", "stream_id is too large"],
    ["-9223372036854775808", "stream_id is too small"]
  ] as const).flatMap(([id, msg]): ReadonlyArray<Row> => [
    {
      name: `POST /mark_stream_as_read stream_id=${id}`,
      method: "POST",
      path: "/api/v1/mark_stream_as_read",
      options: { form: { stream_id: id } },
      status: 400,
      body: badRequest(msg)
    },
    {
      name: `POST /mark_topic_as_read stream_id=${id}`,
      method: "POST",
      path: "/api/v1/mark_topic_as_read",
      options: { form: { stream_id: id, topic_name: "x" } },
      status: 400,
      body: badRequest(msg)
    }
  ]),
  {
    name: "PATCH /scheduled_messages/{id} beyond any id",
    method: "PATCH",
    path: "/api/v1/scheduled_messages/9223372036854775808",
    options: { form: { content: "x" } },
    status: 404,
    body: badRequest("Scheduled message does not exist")
  },
  {
    name: "DELETE /scheduled_messages/{id} beyond any id",
    method: "DELETE",
    path: "/api/v1/scheduled_messages/99999999999999999999999",
    status: 404,
    body: badRequest("Scheduled message does not exist")
  },
  {
    name: "DELETE /scheduled_messages/{id} negative",
    method: "DELETE",
    path: "/api/v1/scheduled_messages/-1",
    status: 404,
    body: noRoute
  },
  {
    name: "DELETE /scheduled_messages/{id} not digits",
    method: "DELETE",
    path: "/api/v1/scheduled_messages/1e3",
    status: 404,
    body: noRoute
  },
  {
    name: "POST /streams/{id}/delete_topic beyond any id",
    method: "POST",
    path: "/api/v1/streams/9007199254740993/delete_topic",
    as: "admin",
    options: { form: { topic_name: "x" } },
    status: 400,
    body: badRequest("Invalid channel ID")
  },
  {
    name: "PATCH /messages/{id} beyond any id",
    method: "PATCH",
    path: "/api/v1/messages/9007199254740993",
    options: { form: { content: "x" } },
    status: 400,
    body: badRequest("Invalid message(s)")
  },
  {
    name: "PATCH /messages/{id} not digits",
    method: "PATCH",
    path: "/api/v1/messages/1.5",
    options: { form: { content: "x" } },
    status: 404,
    body: noRoute
  },
  {
    name: "GET /messages/{id}/history beyond any id",
    method: "GET",
    path: "/api/v1/messages/99999999999999999999999/history",
    status: 400,
    body: badRequest("Invalid message(s)")
  },
  {
    name: "GET /messages/{id}/history allow_empty_topic_name not JSON",
    method: "GET",
    path: "/api/v1/messages/1/history",
    options: { query: { allow_empty_topic_name: "maybe" } },
    status: 400,
    body: badRequest("allow_empty_topic_name is not valid JSON")
  },
  {
    name: "POST /streams/{id}/delete_topic not digits",
    method: "POST",
    path: "/api/v1/streams/1.5/delete_topic",
    as: "admin",
    options: { form: { topic_name: "x" } },
    status: 404,
    body: noRoute
  },
  ...([
    [{ stream_id: "9007199254740993", topic: "t", visibility_policy: "1" }, "stream_id is too large"],
    [{ stream_id: "-9223372036854775808", topic: "t", visibility_policy: "1" }, "stream_id is too small"],
    [{ stream_id: "1.0", topic: "t", visibility_policy: "1" }, "stream_id is not an integer"],
    [{ stream_id: "1", topic: "t", visibility_policy: "1e0" }, "visibility_policy is not an integer"],
    [{ stream_id: "1", topic: "t", visibility_policy: "18446744073709551617" }, "visibility_policy is too large"]
  ] as const).map(([form, msg]): Row => ({
    name: `POST /user_topics ${JSON.stringify(form)}`,
    method: "POST",
    path: "/api/v1/user_topics",
    options: { form },
    status: 400,
    body: badRequest(msg)
  })),
  ...([
    [{ stream_id: "9007199254740993", topic: "t", op: "add" }, "stream_id is too large"],
    [{ stream_id: "1.0", topic: "t", op: "add" }, "stream_id is not an integer"],
    [{ stream_id: "[1]", topic: "t", op: "remove" }, "stream_id is not an integer"],
    [{ stream_id: "1", topic: "t", op: "ADD" }, "Invalid op"]
  ] as const).map(([form, msg]): Row => ({
    name: `PATCH /users/me/subscriptions/muted_topics ${JSON.stringify(form)}`,
    method: "PATCH",
    path: "/api/v1/users/me/subscriptions/muted_topics",
    options: { form },
    status: 400,
    body: badRequest(msg)
  })),
  {
    name: "PATCH /users/me/subscriptions/muted_topics topic with NUL",
    method: "PATCH",
    path: "/api/v1/users/me/subscriptions/muted_topics",
    options: { form: { stream_id: "1", topic: "a\u0000b", op: "add" } },
    status: 400,
    body: nul("topic")
  },
  ...(["POST", "DELETE"] as const).flatMap((method): ReadonlyArray<Row> => [
    {
      name: `${method} /users/me/muted_users/{id} beyond any id`,
      method,
      path: "/api/v1/users/me/muted_users/9223372036854775808",
      status: 400,
      body: badRequest("No such user")
    },
    {
      name: `${method} /users/me/muted_users/{id} not digits`,
      method,
      path: "/api/v1/users/me/muted_users/1e3",
      status: 404,
      body: noRoute
    }
  ]),
  {
    name: "GET /users/me/{id}/topics beyond any id",
    method: "GET",
    path: "/api/v1/users/me/9007199254740993/topics",
    status: 400,
    body: badRequest("Invalid channel ID")
  },
  {
    name: "GET /users/me/{id}/topics not digits",
    method: "GET",
    path: "/api/v1/users/me/1.5/topics",
    status: 404,
    body: noRoute
  },
  {
    name: "GET /users/{id} beyond any id",
    method: "GET",
    path: "/api/v1/users/9223372036854775808",
    status: 400,
    body: badRequest("No such user")
  },
  {
    name: "GET /messages num_before beyond the range",
    method: "GET",
    path: "/api/v1/messages",
    options: { query: { ...range, num_before: "9007199254740993" } },
    status: 400,
    body: badRequest("num_before is too large")
  },
  {
    name: "GET /messages num_after a fraction",
    method: "GET",
    path: "/api/v1/messages",
    options: { query: { ...range, num_after: "1.5" } },
    status: 400,
    body: badRequest("num_after is not an integer")
  },
  {
    name: "GET /messages narrow operand beyond the range",
    method: "GET",
    path: "/api/v1/messages",
    options: { query: { ...range, narrow: "[{\"operator\":\"channel\",\"operand\":9007199254740993}]" } },
    status: 400,
    body: badRequest("narrow is too large")
  },
  {
    name: "GET /events last_event_id beyond the range",
    method: "GET",
    path: "/api/v1/events",
    options: { query: { queue_id: "q", last_event_id: "9223372036854775808" } },
    status: 400,
    body: badRequest("last_event_id is too large")
  },
  {
    name: "POST /register queue_lifespan_secs beyond the range",
    method: "POST",
    path: "/api/v1/register",
    options: { form: { queue_lifespan_secs: "-9223372036854775808" } },
    status: 400,
    body: badRequest("queue_lifespan_secs is too small")
  },
  {
    name: "GET /users user_ids beyond the range",
    method: "GET",
    path: "/api/v1/users",
    options: { query: { user_ids: "[1,9007199254740993]" } },
    status: 400,
    body: badRequest("user_ids[1] is too large")
  },
  {
    name: "GET /messages/matches_narrow msg_ids beyond the range",
    method: "GET",
    path: "/api/v1/messages/matches_narrow",
    options: { query: { msg_ids: "[1e20]", narrow: "[]" } },
    status: 400,
    body: badRequest("msg_ids[0] is too large")
  },
  {
    name: "GET /messages/matches_narrow msg_ids not JSON",
    method: "GET",
    path: "/api/v1/messages/matches_narrow",
    options: { query: { msg_ids: "[1", narrow: "[]" } },
    status: 400,
    body: badRequest("msg_ids is not valid JSON")
  },
  {
    name: "GET /messages/matches_narrow narrow not JSON",
    method: "GET",
    path: "/api/v1/messages/matches_narrow",
    options: { query: { msg_ids: "[1]", narrow: "[" } },
    status: 400,
    body: badRequest("narrow is not valid JSON")
  },
  {
    name: "POST /messages/flags messages beyond the range",
    method: "POST",
    path: "/api/v1/messages/flags",
    options: { form: { messages: "[1e20]", op: "add", flag: "read" } },
    status: 400,
    body: badRequest("messages[0] is too large")
  },
  {
    name: "POST /scheduled_messages scheduled_delivery_timestamp a float form",
    method: "POST",
    path: "/api/v1/scheduled_messages",
    options: { form: { type: "channel", to: "1", topic: "t", content: "c", scheduled_delivery_timestamp: "2e9" } },
    status: 400,
    body: badRequest("scheduled_delivery_timestamp is not an integer")
  },
  {
    name: "PATCH /messages/{id} content with NUL",
    method: "PATCH",
    path: "/api/v1/messages/1",
    options: { form: { content: "a\u0000b" } },
    status: 400,
    body: badRequest("Message must not contain null bytes")
  },
  ...([
    ["1.5", "stream_id is not an integer"],
    ["1e3", "stream_id is not an integer"],
    ["9007199254740993", "stream_id is too large"],
    ["-9223372036854775808", "stream_id is too small"]
  ] as const).map(([id, msg]): Row => ({
    name: `PATCH /messages/{id} stream_id=${id}`,
    method: "PATCH",
    path: "/api/v1/messages/1",
    options: { form: { stream_id: id } },
    status: 400,
    body: badRequest(msg)
  })),
  {
    name: "PATCH /messages/{id} prev_content_sha256 with NUL",
    method: "PATCH",
    path: "/api/v1/messages/1",
    options: { form: { content: "x", prev_content_sha256: "\u0000" } },
    status: 400,
    body: nul("prev_content_sha256")
  },
  {
    name: "POST /users/me/subscriptions/properties stream_id beyond the range",
    method: "POST",
    path: "/api/v1/users/me/subscriptions/properties",
    options: {
      form: { subscription_data: "[{\"stream_id\":9007199254740993,\"property\":\"pin_to_top\",\"value\":true}]" }
    },
    status: 400,
    body: badRequest("subscription_data[0][\"stream_id\"] is too large")
  }
]

/** Defect 2: NUL bytes and lone surrogates, raw and inside JSON. */
const characters: ReadonlyArray<Row> = [
  {
    name: "GET /events queue_id with NUL",
    method: "GET",
    path: "/api/v1/events",
    options: { query: { queue_id: "\u0000", last_event_id: "-1" } },
    status: 400,
    body: nul("queue_id")
  },
  {
    name: "DELETE /events queue_id with NUL",
    method: "DELETE",
    path: "/api/v1/events",
    options: { query: { queue_id: "a\u0000b" } },
    status: 400,
    body: nul("queue_id")
  },
  {
    name: "POST /mark_topic_as_read topic_name with NUL",
    method: "POST",
    path: "/api/v1/mark_topic_as_read",
    options: { form: { stream_id: "1", topic_name: "a\u0000" } },
    status: 400,
    body: nul("topic_name")
  },
  {
    name: "POST /user_topics topic with NUL",
    method: "POST",
    path: "/api/v1/user_topics",
    options: { form: { stream_id: "1", topic: "a\u0000b", visibility_policy: "1" } },
    status: 400,
    body: nul("topic")
  },
  {
    name: "POST /submessage message_id beyond any id",
    method: "POST",
    path: "/api/v1/submessage",
    options: { form: { message_id: "9007199254740993", msg_type: "widget", content: "{}" } },
    status: 400,
    body: badRequest("message_id is too large")
  },
  {
    name: "POST /submessage message_id a fraction",
    method: "POST",
    path: "/api/v1/submessage",
    options: { form: { message_id: "1.5", msg_type: "widget", content: "{}" } },
    status: 400,
    body: badRequest("message_id is not an integer")
  },
  {
    name: "POST /submessage content with NUL",
    method: "POST",
    path: "/api/v1/submessage",
    options: { form: { message_id: "1", msg_type: "widget", content: "{\"a\": \"\u0000\"}" } },
    status: 400,
    body: nul("content")
  },
  {
    name: "POST /submessage msg_type with NUL",
    method: "POST",
    path: "/api/v1/submessage",
    options: { form: { message_id: "1", msg_type: "wid\u0000get", content: "{}" } },
    status: 400,
    body: nul("msg_type")
  },
  {
    name: "POST /messages/{id}/reactions emoji_name with NUL",
    method: "POST",
    path: "/api/v1/messages/1/reactions",
    options: { form: { emoji_name: "octo\u0000pus" } },
    status: 400,
    body: nul("emoji_name")
  },
  {
    name: "DELETE /messages/{id}/reactions emoji_code and reaction_type with NUL",
    method: "DELETE",
    path: "/api/v1/messages/1/reactions",
    options: { form: { emoji_code: "1f419\u0000", reaction_type: "unicode_emoji" } },
    status: 400,
    body: nul("emoji_code")
  },
  {
    name: "POST /streams/{id}/delete_topic topic_name with NUL",
    method: "POST",
    path: "/api/v1/streams/1/delete_topic",
    as: "admin",
    options: { form: { topic_name: "\u0000" } },
    status: 400,
    body: nul("topic_name")
  },
  {
    name: "POST /messages local_id with NUL in the query string",
    method: "POST",
    path: "/api/v1/messages?local_id=%00",
    options: { form: { type: "channel", to: "Verona", topic: "t", content: "c" } },
    status: 400,
    body: nul("local_id")
  },
  {
    name: "POST /messages content with NUL: Zulip's message",
    method: "POST",
    path: "/api/v1/messages",
    options: { form: { type: "channel", to: "Verona", topic: "t", content: "a\u0000b" } },
    status: 400,
    body: badRequest("Message must not contain null bytes")
  },
  {
    name: "POST /messages topic with NUL: Zulip's message",
    method: "POST",
    path: "/api/v1/messages",
    options: { form: { type: "channel", to: "Verona", topic: "a\u0000b", content: "c" } },
    status: 400,
    body: badRequest("Topic must not contain null bytes")
  },
  {
    name: "PATCH /settings full_name with NUL: Zulip's message",
    method: "PATCH",
    path: "/api/v1/settings",
    options: { form: { full_name: "Ham\u0000let" } },
    status: 400,
    body: badRequest("Invalid characters in name!")
  },
  {
    name: "POST /dev_fetch_api_key username with NUL, multipart",
    method: "POST",
    path: "/api/v1/dev_fetch_api_key",
    options: { multipart: { username: "hamlet@zulip.com\u0000" } },
    status: 400,
    body: nul("username")
  },
  {
    name: "GET /users/{email} with NUL",
    method: "GET",
    path: "/api/v1/users/hamlet%00@zulip.com",
    status: 400,
    body: badRequest("No such user")
  },
  {
    name: "POST /users/me/alert_words with an escaped NUL",
    method: "POST",
    path: "/api/v1/users/me/alert_words",
    options: { form: { alert_words: "[\"a\\u0000\"]" } },
    status: 400,
    body: nul("alert_words")
  },
  {
    name: "POST /users/me/alert_words with an escaped lone surrogate",
    method: "POST",
    path: "/api/v1/users/me/alert_words",
    options: { form: { alert_words: "[\"\\ud800\"]" } },
    status: 400,
    body: badRequest("alert_words is not valid JSON")
  },
  {
    name: "POST /users/me/subscriptions with a lone surrogate in a name",
    method: "POST",
    path: "/api/v1/users/me/subscriptions",
    options: { form: { subscriptions: "[{\"name\":\"x\\udc00\"}]" } },
    status: 400,
    body: badRequest("subscriptions is not valid JSON")
  },
  {
    name: "POST /register event_types with an escaped NUL",
    method: "POST",
    path: "/api/v1/register",
    options: { form: { event_types: "[\"message\\u0000\"]" } },
    status: 400,
    body: nul("event_types")
  },
  {
    name: "POST /register narrow with an escaped NUL in an operand",
    method: "POST",
    path: "/api/v1/register",
    options: { form: { narrow: "[[\"channel\",\"Verona\\u0000\"]]" } },
    status: 400,
    body: nul("narrow")
  },
  {
    name: "GET /messages search narrow with an escaped NUL",
    method: "GET",
    path: "/api/v1/messages",
    options: { query: { ...range, narrow: "[[\"search\",\"\\u0000\"]]" } },
    status: 400,
    body: nul("narrow")
  },
  {
    name: "POST /messages direct to with an escaped NUL",
    method: "POST",
    path: "/api/v1/messages",
    options: direct("[\"hamlet@zulip.com\\u0000\"]"),
    status: 400,
    body: nul("to")
  },
  {
    name: "a parameter the endpoint ignores is not read",
    method: "GET",
    path: "/api/v1/users/me/alert_words",
    options: { query: { unknown: "\u0000" } },
    status: 200,
    body: { result: "success", msg: "", alert_words: [], ignored_parameters_unsupported: ["unknown"] }
  }
]

const long = (char: string) => char.repeat(1_000_000)
const cut = (char: string) => `${char.repeat(497)}...`

/** Defect 8, its echo half: errors repeat at most 500 characters of a value. */
const echoes: ReadonlyArray<Row> = [
  {
    name: "DELETE /events with a 1 MB queue id",
    method: "DELETE",
    path: "/api/v1/events",
    options: { form: { queue_id: long("q") } },
    status: 400,
    body: { result: "error", msg: `Bad event queue ID: ${cut("q")}`, code: "BAD_EVENT_QUEUE_ID", queue_id: cut("q") }
  },
  {
    name: "POST /messages to a 1 MB channel name",
    method: "POST",
    path: "/api/v1/messages",
    options: channel(long("n")),
    status: 400,
    body: { result: "error", msg: `Channel '${cut("n")}' does not exist`, code: "STREAM_DOES_NOT_EXIST", stream: cut("n") }
  },
  {
    name: "POST /messages to a 1 MB email: a message built around it is cut as a whole",
    method: "POST",
    path: "/api/v1/messages",
    options: direct(long("e")),
    status: 400,
    body: badRequest(`Invalid email '${"e".repeat(497 - "Invalid email '".length)}...`)
  },
  {
    name: "POST /messages/flags/narrow with a 1 MB flag",
    method: "POST",
    path: "/api/v1/messages/flags/narrow",
    options: { form: { anchor: "newest", num_before: "0", num_after: "0", op: "add", flag: long("f") } },
    status: 400,
    body: badRequest(`Invalid flag: '${cut("f")}'`)
  }
]

const noFile = badRequest("You must specify a file to upload")
const hex = (text: string) => Buffer.from(text, "utf8").toString("hex").toUpperCase()
const fileMissing = "<p>This file does not exist or has been deleted.</p>"

/** Uploads: bodies that are not one file, attachment ids, download paths that would leave the store. */
const uploads: ReadonlyArray<Row> = [
  ...[
    ["application/json", "{\"file\": \"x\"}"],
    ["text/plain", "file"],
    ["application/octet-stream", "\u0000\u0001"]
  ].map(([type, body]): Row => ({
    name: `POST /user_uploads with a ${type} body`,
    method: "POST",
    path: "/api/v1/user_uploads",
    options: { body: body!, headers: { "content-type": type! } },
    status: 400,
    body: noFile
  })),
  {
    name: "POST /user_uploads with a form body",
    method: "POST",
    path: "/api/v1/user_uploads",
    options: { form: { file: "not a file" } },
    status: 400,
    body: noFile
  },
  {
    name: "POST /user_uploads with a multipart body of fields only",
    method: "POST",
    path: "/api/v1/user_uploads",
    options: { multipart: { file: "not a file", filename: "x.txt" } },
    status: 400,
    body: noFile
  },
  {
    name: "POST /user_uploads with a multipart type and no boundary",
    method: "POST",
    path: "/api/v1/user_uploads",
    options: { body: "--x\r\n", headers: { "content-type": "multipart/form-data" } },
    status: 400,
    body: badRequest("Malformed request body")
  },
  {
    name: "POST /user_uploads with a multipart body cut off inside the file",
    method: "POST",
    path: "/api/v1/user_uploads",
    options: {
      body: "--cut\r\nContent-Disposition: form-data; name=\"file\"; filename=\"cut.txt\"\r\n" +
        "Content-Type: text/plain\r\n\r\nthe body ends here",
      headers: { "content-type": "multipart/form-data; boundary=cut" }
    },
    status: 400,
    body: badRequest("Malformed request body")
  },
  { name: "DELETE /attachments/{id} zero", method: "DELETE", path: "/api/v1/attachments/0", status: 400, body: badRequest("Invalid attachment") },
  {
    name: "DELETE /attachments/{id} beyond the safe range",
    method: "DELETE",
    path: "/api/v1/attachments/9007199254740993",
    status: 400,
    body: badRequest("Invalid attachment")
  },
  { name: "DELETE /attachments/{id} not digits", method: "DELETE", path: "/api/v1/attachments/1.5", status: 404, body: noRoute },
  ...[
    "/user_uploads/1/..%2F..%2F..%2Fetc%2Fpasswd",
    "/user_uploads/1/%2E%2E%2F%2E%2E%2Fpgdata%2FPG_VERSION",
    "/user_uploads/1/ab/token/..%5C..%5Cwindows.ini",
    "/user_uploads/1/ab/tok%00en/file.txt",
    "/user_uploads/1/%2Fetc%2Fpasswd",
    "/user_uploads/1e3/ab/token/file.txt"
  ].flatMap((path): ReadonlyArray<Row> => [
    {
      name: `GET ${path}`,
      method: "GET",
      path,
      status: 404,
      body: {},
      text: fileMissing
    },
    {
      name: `GET /api/v1${path} (a temporary URL)`,
      method: "GET",
      path: `/api/v1${path}`,
      status: 404,
      body: {},
      text: fileMissing
    }
  ]),
  ...[
    ["a NUL byte", "%00"],
    ["hex of a NUL byte", "00"],
    ["hex that is not UTF-8", "FFFE"],
    ["hex of a path with a NUL byte", hex("1/ab/tok\u0000en/file.txt:9999999999:c2ln")],
    ["an expiry beyond the safe range", hex("1/ab/token/file.txt:9007199254740993:c2ln")],
    ["a negative expiry", hex("1/ab/token/file.txt:-1:c2ln")],
    ["lower-case hex", hex("1/ab/token/file.txt:9999999999:c2ln").toLowerCase()],
    ["100,000 hex digits", "A".repeat(100_000)]
  ].map(([what, token]): Row => ({
    name: `GET /user_uploads/temporary/{token}/file.txt with ${what}`,
    method: "GET",
    path: `/user_uploads/temporary/${token}/file.txt`,
    status: 400,
    body: badRequest("Invalid token")
  })),
  // Not UTF-8 once percent-decoded: no route takes it.
  { name: "GET /user_uploads/temporary/{token}/file.txt with a lone surrogate", method: "GET", path: "/user_uploads/temporary/%ED%A0%80/file.txt", status: 404, body: noRoute },
  ...["/user_uploads/temporary/ABCD", "/user_uploads/temporary/ABCD/file.txt/more", "/user_uploads/temporary/ABCD/"].map((path): Row => ({
    name: `GET ${path}`,
    method: "GET",
    path,
    status: 404,
    body: {},
    text: fileMissing
  }))
]

export const badInputContract = (backend: Backend) =>
  describe(`bad input over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      const run = (row: Row) =>
        Effect.gen(function*() {
          const server = yield* Server
          const as = yield* server.login(accounts[row.as ?? "member"])
          if (row.text !== undefined) {
            const response = yield* Effect.promise(() => server.handler(makeRequest(row.method, row.path, { ...row.options, as })))
            const text = yield* Effect.promise(() => response.text())
            assert.deepStrictEqual({ status: response.status, text }, { status: row.status, text: row.text })
            return
          }
          const reply = yield* server.fetch(row.method, row.path, { ...row.options, as })
          assert.deepStrictEqual(
            { status: reply.status, body: reply.json },
            { status: row.status, body: row.body },
            reply.text.slice(0, 300)
          )
        })

      for (const [group, rows] of [["integers and ids", integers], ["characters", characters], ["echoes", echoes], ["uploads", uploads]] as const) {
        describe(group, () => {
          for (const row of rows) it.effect(row.name, () => run(row))
        })
      }

      it.effect("refused requests write nothing", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const as = yield* server.login(accounts.member)
          const newest = () =>
            Effect.map(
              server.fetch("GET", "/api/v1/messages", { as, query: { anchor: "newest", num_before: "1", num_after: "0" } }),
              (reply) => reply.json.messages.map((m: { id: number }) => m.id)
            )
          const words = () => Effect.map(server.fetch("GET", "/api/v1/users/me/alert_words", { as }), (r) => r.json)
          const attachments = () => Effect.map(server.fetch("GET", "/api/v1/attachments", { as }), (r) => r.json)
          const before = { messages: yield* newest(), words: yield* words(), attachments: yield* attachments() }
          for (const row of [...integers, ...characters, ...echoes, ...uploads]) {
            if (row.status === 200 || row.text !== undefined) continue
            const who = yield* server.login(accounts[row.as ?? "member"])
            yield* server.fetch(row.method, row.path, { ...row.options, as: who })
          }
          assert.deepStrictEqual({ messages: yield* newest(), words: yield* words(), attachments: yield* attachments() }, before)
        }))
    })
  })
