/**
 * What every area of the events contract shares: Zulip's bodies, the
 * clients' register parameters and required keys, and the requests
 * (register, poll, drain, a request left running, waiting polls).
 */
import { assert } from "@effect/vitest"
import { EventQueues } from "@teamchat/core/services/events/EventQueues"
import * as Effect from "effect/Effect"
import type { Credentials, RequestOptions } from "../Harness.ts"
import { accounts, Server } from "../Harness.ts"

/** The heartbeat of these suites. */
export const heartbeatMs = 2_000

export const roles = Object.keys(accounts) as ReadonlyArray<keyof typeof accounts>

export const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
export const error = (msg: string, extra: object = {}) => ({ result: "error", msg, code: "BAD_REQUEST", ...extra })
export const badQueue = (queueId: string) => ({
  result: "error",
  msg: `Bad event queue ID: ${queueId}`,
  code: "BAD_EVENT_QUEUE_ID",
  queue_id: queueId
})

/** Real time, whatever clock the test runs on. */
export const sleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Events without their ids, for exact comparisons. */
export const bare = (events: ReadonlyArray<Record<string, unknown>>) => events.map(({ id: _id, ...rest }) => rest)

/** The mobile app's register parameters (zulip-flutter `registerQueue`). */
export const mobileCapabilities = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: true,
  stream_typing_notifications: true,
  user_settings_object: true,
  include_deactivated_groups: true,
  empty_topic_name: true,
  individual_emoji_changes: true
}
export const mobileForm = {
  idle_queue_timeout: "mobile",
  apply_markdown: "true",
  client_gravatar: "false",
  slim_presence: "true",
  client_capabilities: JSON.stringify(mobileCapabilities)
}

export type Kind = "int" | "string" | "bool" | "list" | "object" | "number"

/** The keys the mobile app requires in a register response, with their types (initial_snapshot.g.dart). */
export const mobileRequired: Readonly<Record<string, Kind>> = {
  queue_id: "string",
  last_event_id: "int",
  zulip_feature_level: "int",
  zulip_version: "string",
  zulip_merge_base: "string",
  alert_words: "list",
  custom_profile_fields: "list",
  max_stream_name_length: "int",
  max_topic_length: "int",
  server_presence_ping_interval_seconds: "int",
  server_presence_offline_threshold_seconds: "int",
  muted_users: "list",
  presences: "object",
  realm_emoji: "object",
  realm_user_groups: "list",
  recent_private_conversations: "list",
  subscriptions: "list",
  unread_msgs: "object",
  starred_messages: "list",
  streams: "list",
  user_status: "object",
  user_settings: "object",
  user_topics: "list",
  realm_wildcard_mention_policy: "int",
  realm_name: "string",
  realm_waiting_period_threshold: "int",
  realm_allow_message_editing: "bool",
  realm_enable_read_receipts: "bool",
  realm_icon_url: "string",
  realm_presence_disabled: "bool",
  realm_default_external_accounts: "object",
  max_file_upload_size_mib: "int",
  server_emoji_data_url: "string",
  event_queue_longpoll_timeout_seconds: "int",
  realm_users: "list",
  realm_non_active_users: "list",
  cross_realm_bots: "list",
  // Optional in the app, typed when present.
  server_typing_started_expiry_period_milliseconds: "int",
  server_typing_stopped_wait_period_milliseconds: "int",
  server_typing_started_wait_period_milliseconds: "int",
  realm_empty_topic_display_name: "string"
}

/** What zulip-terminal reads at start (a missing key crashes it). */
export const terminalRequired = [
  "queue_id",
  "last_event_id",
  "max_message_id",
  "user_id",
  "email",
  "full_name",
  "realm_name",
  "zulip_version",
  "presences",
  "realm_users",
  "cross_realm_bots",
  "subscriptions",
  "realm_message_retention_days",
  "muted_topics",
  "realm_user_groups",
  "unread_msgs",
  "realm_emoji",
  "user_settings",
  "starred_messages",
  "realm_allow_edit_history",
  "realm_allow_message_editing",
  "realm_message_content_edit_limit_seconds",
  "custom_profile_fields"
]

export const kindOf = (value: unknown): Kind | "null" | "other" => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "list"
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "number"
  if (typeof value === "string") return "string"
  if (typeof value === "boolean") return "bool"
  if (typeof value === "object") return "object"
  return "other"
}

export const assertKind = (value: unknown, kind: Kind, label: string) =>
  assert.strictEqual(kind === "number" && kindOf(value) === "int" ? "number" : kindOf(value), kind, label)

export const as = (role: keyof typeof accounts) => Effect.flatMap(Server, (server) => server.login(accounts[role]))

export const register = (who: Credentials, form: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("POST", "/api/v1/register", { as: who, form })
    assert.strictEqual(reply.status, 200, reply.text)
    return reply.json.queue_id as string
  })

export const poll = (who: Credentials, query: Record<string, string>) =>
  Effect.flatMap(Server, (server) => server.fetch("GET", "/api/v1/events", { as: who, query }))

export const drain = (who: Credentials, queueId: string, lastEventId: number) =>
  poll(who, { queue_id: queueId, last_event_id: String(lastEventId), dont_block: "true" })

/** Sends a request without waiting for its answer. */
export const start = (method: string, path: string, options: RequestOptions) =>
  Effect.map(Server, (server) => Effect.runPromise(server.fetch(method, path, options)))

export const waiting = Effect.flatMap(Server, (server) => server.core(Effect.flatMap(EventQueues, (q) => q.waitingPolls)))

/** Until `n` polls wait in the core (the 30 s ceiling only guards against a hang). */
export const waitingFor = (n: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 6_000; i++) {
      if ((yield* waiting) >= n) return
      yield* sleep(5)
    }
    assert.fail(`no ${n} waiting polls`)
  })

/** Until at most `n` polls wait in the core (the same ceiling). */
export const waitingAtMost = (n: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 6_000; i++) {
      if ((yield* waiting) <= n) return
      yield* sleep(5)
    }
    assert.fail(`still more than ${n} waiting polls`)
  })

export const channelId = (who: Credentials, name: string) =>
  Effect.gen(function*() {
    const server = yield* Server
    const reply = yield* server.fetch("GET", "/api/v1/streams", { as: who, query: { include_all: "true" } })
    const channel = reply.json.streams.find((s: { name: string }) => s.name === name)
    assert.isDefined(channel, name)
    return channel.stream_id as number
  })
