/**
 * The real-time endpoints over the wire, written once and run on every core
 * backend: POST /register, GET and DELETE /events, and the endpoints whose
 * changes the queues deliver (subscriptions, settings, alert words).
 *
 * Heartbeats come after 2 s here (the core's `EventQueuesConfig`, set
 * through the core layer the web handler is built on), so a blocked poll
 * that ends sooner ended because of the action under test. Register bodies
 * are compared with what the core's `Register` answers for the same caller
 * and parameters: the adapter must decode the parameters faithfully and add
 * Zulip's envelope, nothing else.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Errors from "@teamchat/core/errors/Errors"
import { EventQueues } from "@teamchat/core/services/events/EventQueues"
import type { RegisterParams } from "@teamchat/core/services/Register"
import { Register } from "@teamchat/core/services/Register"
import { Authentication } from "@teamchat/core/services/Authentication"
import { Subscriptions } from "@teamchat/core/services/Subscriptions"
import { UserSettings } from "@teamchat/core/services/UserSettings"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { defaultHttpOptions } from "../../src/Http.ts"
import type { Backend, Credentials, Reply, RequestOptions } from "./Harness.ts"
import {
  accounts,
  demoLayer,
  demoPassword,
  epoch,
  layerServer,
  makeRequest,
  realmUrl,
  Server,
  withEventQueuesConfig
} from "./Harness.ts"

/** The heartbeat of these suites. */
export const heartbeatMs = 2_000

const roles = Object.keys(accounts) as ReadonlyArray<keyof typeof accounts>

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const error = (msg: string, extra: object = {}) => ({ result: "error", msg, code: "BAD_REQUEST", ...extra })
const badQueue = (queueId: string) => ({
  result: "error",
  msg: `Bad event queue ID: ${queueId}`,
  code: "BAD_EVENT_QUEUE_ID",
  queue_id: queueId
})

/** Real time, whatever clock the test runs on. */
const sleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))
const now = () => performance.now()

/** Events without their ids, for exact comparisons. */
const bare = (events: ReadonlyArray<Record<string, unknown>>) => events.map(({ id: _id, ...rest }) => rest)

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
const mobileForm = {
  idle_queue_timeout: "mobile",
  apply_markdown: "true",
  client_gravatar: "false",
  slim_presence: "true",
  client_capabilities: JSON.stringify(mobileCapabilities)
}

type Kind = "int" | "string" | "bool" | "list" | "object" | "number"

/** The keys the mobile app requires in a register response, with their types (initial_snapshot.g.dart). */
const mobileRequired: Readonly<Record<string, Kind>> = {
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
const terminalRequired = [
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

const kindOf = (value: unknown): Kind | "null" | "other" => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "list"
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "number"
  if (typeof value === "string") return "string"
  if (typeof value === "boolean") return "bool"
  if (typeof value === "object") return "object"
  return "other"
}

const assertKind = (value: unknown, kind: Kind, label: string) =>
  assert.strictEqual(kind === "number" && kindOf(value) === "int" ? "number" : kindOf(value), kind, label)

const principalOf = (credentials: Credentials) =>
  Effect.flatMap(Authentication, (auth) => auth.basic(credentials.email, credentials.apiKey))

export const eventsContract = (backend: Backend) =>
  describe(`real-time events over HTTP on ${backend}`, () => {
    layer(
      layerServer((clock) =>
        withEventQueuesConfig(demoLayer(backend, clock), { heartbeatMinMs: heartbeatMs, heartbeatMaxMs: heartbeatMs })
      ),
      { timeout: "120 seconds" }
    )((it) => {
      const as = (role: keyof typeof accounts) => Effect.flatMap(Server, (server) => server.login(accounts[role]))

      const register = (who: Credentials, form: Record<string, string> = {}) =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("POST", "/api/v1/register", { as: who, form })
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json.queue_id as string
        })

      const poll = (who: Credentials, query: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("GET", "/api/v1/events", { as: who, query }))

      const drain = (who: Credentials, queueId: string, lastEventId: number) =>
        poll(who, { queue_id: queueId, last_event_id: String(lastEventId), dont_block: "true" })

      /** Sends a request without waiting for its answer. */
      const start = (method: string, path: string, options: RequestOptions) =>
        Effect.map(Server, (server) => Effect.runPromise(server.fetch(method, path, options)))

      const waiting = Effect.flatMap(Server, (server) => server.core(Effect.flatMap(EventQueues, (q) => q.waitingPolls)))

      /** Until `n` polls wait in the core. */
      const waitingFor = (n: number) =>
        Effect.gen(function*() {
          for (let i = 0; i < 500; i++) {
            if ((yield* waiting) >= n) return
            yield* sleep(5)
          }
          assert.fail(`no ${n} waiting polls`)
        })

      const serverInfo = (generation: number) => ({
        ...defaultHttpOptions.version,
        base_url: realmUrl,
        server_generation: generation
      })

      /** The core's register state for the same caller and parameters, to compare the wire with. */
      const coreRegister = (who: Credentials, params: RegisterParams, reply: Reply) =>
        Effect.flatMap(Server, (server) =>
          server.core(Effect.gen(function*() {
            const principal = yield* principalOf(who)
            const state = yield* (yield* Register).register(principal, params, serverInfo(reply.json.server_generation))
            const same: Record<string, unknown> = { ...state, queue_id: reply.json.queue_id }
            if ("server_timestamp" in state) same.server_timestamp = reply.json.server_timestamp
            return success(same)
          })))

      const channelId = (who: Credentials, name: string) =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("GET", "/api/v1/streams", { as: who, query: { include_all: "true" } })
          const channel = reply.json.streams.find((s: { name: string }) => s.name === name)
          assert.isDefined(channel, name)
          return channel.stream_id as number
        })

      // -----------------------------------------------------------------------
      // POST /register

      it.effect("POST /register with the mobile app's parameters, as every role: every required key, typed", () =>
        Effect.gen(function*() {
          const server = yield* Server
          for (const role of roles) {
            const who = yield* as(role)
            const reply = yield* server.fetch("POST", "/api/v1/register", { as: who, form: mobileForm })
            assert.strictEqual(reply.status, 200, `${role}: ${reply.text}`)
            const body = reply.json
            for (const [key, kind] of Object.entries(mobileRequired)) {
              assert.isTrue(key in body, `${role}: ${key} missing`)
              assertKind(body[key], kind, `${role}: ${key}`)
            }
            assert.isUndefined(body.ignored_parameters_unsupported, role)
            assert.strictEqual(body.last_event_id, -1)
            assert.strictEqual(body.zulip_feature_level, 416)
            assert.strictEqual(body.event_queue_longpoll_timeout_seconds, 90)
            assert.strictEqual(body.server_emoji_data_url, `${realmUrl}/static/generated/emoji/emoji_api.json`)
            assert.strictEqual(body.server_generation, Math.floor(epoch / 1000))
            assert.isTrue(body.realm_users.some((u: { user_id: number }) => u.user_id === who.userId), `${role}: self`)
            for (const user of [...body.realm_users, ...body.realm_non_active_users]) {
              for (const [key, kind] of [["user_id", "int"], ["email", "string"], ["full_name", "string"], [
                "date_joined",
                "string"
              ], ["is_bot", "bool"], ["role", "int"], ["timezone", "string"], ["avatar_version", "int"]] as const) {
                assertKind(user[key], kind, `${role}: realm_users[].${key}`)
              }
            }
            for (const sub of body.subscriptions) {
              assert.match(sub.color, /^#[0-9a-f]{6}$/i, role)
              for (const key of ["pin_to_top", "is_muted", "invite_only", "is_web_public", "history_public_to_subscribers"]) {
                assertKind(sub[key], "bool", `${role}: subscriptions[].${key}`)
              }
              for (const key of ["stream_id", "date_created"]) assertKind(sub[key], "int", `${role}: subscriptions[].${key}`)
              for (const key of ["name", "description", "rendered_description"]) {
                assertKind(sub[key], "string", `${role}: subscriptions[].${key}`)
              }
            }
            for (const group of body.realm_user_groups) {
              for (const key of ["id", "members", "direct_subgroup_ids", "name", "description", "is_system_group"]) {
                assert.isTrue(key in group, `${role}: realm_user_groups[].${key}`)
              }
            }
            const settings = body.user_settings
            for (const key of ["starred_message_counts", "display_emoji_reaction_users", "presence_enabled"]) {
              assertKind(settings[key], "bool", `${role}: user_settings.${key}`)
            }
            assertKind(settings.emojiset, "string", `${role}: user_settings.emojiset`)
            for (const key of ["count", "pms", "streams", "huddles", "mentions", "old_unreads_missing"]) {
              assert.isTrue(key in body.unread_msgs, `${role}: unread_msgs.${key}`)
            }
            // With user_settings_object the legacy top-level settings are left out.
            assert.isFalse("emojiset" in body, role)
            // The whole body is the core's state for these parameters, in the envelope.
            const expected = yield* coreRegister(who, {
              apply_markdown: true,
              client_gravatar: false,
              slim_presence: true,
              client_capabilities: mobileCapabilities,
              queue_lifespan_secs: 12 * 60 * 60
            }, reply)
            assert.deepStrictEqual(body, expected, role)
          }
        }))

      it.effect("POST /register as zulip-js (multipart, event_types=null) and as zulip-terminal", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const js = yield* server.fetch("POST", "/api/v1/register", { as: hamlet, multipart: { event_types: "null" } })
          assert.strictEqual(js.status, 200)
          assert.deepStrictEqual(js.json, yield* coreRegister(hamlet, { event_types: null }, js))
          // Without capabilities the legacy settings come at the top level too.
          assert.strictEqual(js.json.emojiset, js.json.user_settings.emojiset)

          const terminal = yield* server.fetch("POST", "/api/v1/register", {
            as: hamlet,
            form: {
              event_types: JSON.stringify([
                "message",
                "update_message",
                "reaction",
                "submessage",
                "subscription",
                "typing",
                "update_message_flags",
                "user_settings",
                "realm_emoji",
                "realm_user"
              ]),
              fetch_event_types: JSON.stringify([
                "realm",
                "presence",
                "subscription",
                "message",
                "starred_messages",
                "update_message_flags",
                "muted_topics",
                "realm_user",
                "realm_user_groups",
                "user_settings",
                "realm_emoji",
                "custom_profile_fields",
                "zulip_version"
              ]),
              client_gravatar: "true",
              apply_markdown: "true",
              include_subscribers: "true",
              narrow: "[]"
            }
          })
          assert.strictEqual(terminal.status, 200, terminal.text)
          for (const key of terminalRequired) assert.isTrue(key in terminal.json, `zulip-terminal: ${key}`)
          for (const sub of terminal.json.subscriptions) {
            for (const key of ["stream_id", "name", "color", "description", "pin_to_top", "is_muted", "desktop_notifications", "invite_only", "message_retention_days", "subscribers"]) {
              assert.isTrue(key in sub, `zulip-terminal: subscriptions[].${key}`)
            }
          }
          assert.isTrue(terminal.json.subscriptions.some((s: { subscribers: Array<number> }) => s.subscribers.includes(hamlet.userId)))
          // Unknown type names (zulip_version) are ignored.
          assert.isUndefined(terminal.json.ignored_parameters_unsupported)
        }))

      it.effect("POST /register: fetch_event_types selects the state, else event_types; unknown types are ignored", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const base = ["result", "msg", "queue_id", "last_event_id", "zulip_version", "zulip_feature_level", "zulip_merge_base"]
          const settings = yield* server.core(
            Effect.flatMap(principalOf(hamlet), (p) => Effect.flatMap(UserSettings, (s) => s.get(p.user)))
          )
          const words = (yield* server.fetch("GET", "/api/v1/users/me/alert_words", { as: hamlet })).json.alert_words

          const fetched = yield* server.fetch("POST", "/api/v1/register", {
            as: hamlet,
            form: {
              event_types: JSON.stringify(["message"]),
              fetch_event_types: JSON.stringify(["alert_words", "user_settings", "no_such_type"])
            }
          })
          assert.deepStrictEqual(fetched.json, {
            result: "success",
            msg: "",
            queue_id: fetched.json.queue_id,
            last_event_id: -1,
            zulip_version: "11.0-teamchat",
            zulip_feature_level: 416,
            zulip_merge_base: "11.0",
            alert_words: words,
            user_settings: settings
          })
          assert.deepStrictEqual(Object.keys(fetched.json), [...base, "alert_words", "user_settings"])

          const byEventTypes = yield* server.fetch("POST", "/api/v1/register", {
            as: hamlet,
            form: { event_types: JSON.stringify(["alert_words"]) }
          })
          assert.deepStrictEqual(Object.keys(byEventTypes.json), [...base, "alert_words"])

          const unknownOnly = yield* server.fetch("POST", "/api/v1/register", {
            as: hamlet,
            form: { event_types: JSON.stringify(["no_such_type"]) }
          })
          assert.strictEqual(unknownOnly.status, 200)
          assert.deepStrictEqual(Object.keys(unknownOnly.json), base)
          // Such a queue receives nothing.
          yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: hamlet, form: { alert_words: "[\"unknown-type-check\"]" } })
          const nothing = yield* drain(hamlet, unknownOnly.json.queue_id, -1)
          assert.deepStrictEqual(nothing.json, success({ events: [] }))
        }))

      it.effect("POST /register: narrow, all_public_streams and parameter errors", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const guest = yield* as("guest")
          const cases: ReadonlyArray<readonly [Credentials, Record<string, string>, object]> = [
            [hamlet, { narrow: "[[\"search\",\"x\"]]" }, error("Operator search not supported.")],
            [hamlet, { narrow: "[[\"channel\",\"Denmark\"],[\"pm-with\",\"a@b.c\"]]" }, error("Operator pm-with not supported.")],
            [hamlet, { narrow: "[[\"is\",\"followed\"]]" }, error("Operand followed not supported.")],
            [hamlet, { narrow: "[[\"stream\"]]" }, error("Invalid narrow[0]")],
            [hamlet, { narrow: "[[\"stream\",1]]" }, error("narrow[0][1] is not a string")],
            [hamlet, { narrow: "{\"operator\":\"stream\"}" }, error("narrow is not a list")],
            [hamlet, { narrow: "channel:Denmark" }, error("narrow is not valid JSON")],
            [hamlet, { event_types: "message" }, error("event_types is not valid JSON")],
            [hamlet, { fetch_event_types: "[1]" }, error("fetch_event_types[0] is not a string")],
            [hamlet, { client_capabilities: "[]" }, error("client_capabilities is not a dict")],
            [hamlet, { client_capabilities: "{\"user_settings_object\":1}" }, error("client_capabilities[\"user_settings_object\"] is not a boolean")],
            [hamlet, { include_subscribers: "sometimes" }, error("Invalid include_subscribers")],
            [hamlet, { queue_lifespan_secs: "1.5" }, error("queue_lifespan_secs is not an integer")],
            [hamlet, { idle_queue_timeout: "desktop" }, error("Invalid idle_queue_timeout")],
            [hamlet, { apply_markdown: "yes" }, error("apply_markdown is not valid JSON")],
            [guest, { all_public_streams: "true" }, error("User not authorized for this query")]
          ]
          for (const [who, form, expected] of cases) {
            const reply = yield* server.fetch("POST", "/api/v1/register", { as: who, form })
            assert.strictEqual(reply.status, 400, JSON.stringify(form))
            assert.deepStrictEqual(reply.json, expected, JSON.stringify(form))
          }
          for (
            const form of [
              { narrow: "[[\"channel\",\"Denmark\"],[\"topic\",\"x\"],[\"sender\",\"a@b.c\"],[\"is\",\"dm\"]]" },
              { all_public_streams: "true", include_subscribers: "partial", idle_queue_timeout: "3600" },
              { include_subscribers: "false", queue_lifespan_secs: "0", client_capabilities: "{}" }
            ]
          ) {
            const reply = yield* server.fetch("POST", "/api/v1/register", {
              as: hamlet,
              form: { ...form, fetch_event_types: "[\"alert_words\"]" }
            })
            assert.strictEqual(reply.status, 200, reply.text)
            assert.isUndefined(reply.json.ignored_parameters_unsupported)
          }
          const unknown = yield* server.fetch("POST", "/api/v1/register", {
            as: hamlet,
            form: { fetch_event_types: "[\"alert_words\"]", bogus: "1", client: "x" }
          })
          assert.deepStrictEqual(unknown.json.ignored_parameters_unsupported, ["bogus", "client"])
          const anonymous = yield* server.fetch("POST", "/api/v1/register")
          assert.strictEqual(anonymous.status, 401)
        }))

      // -----------------------------------------------------------------------
      // GET /events

      it.effect("GET /events: increasing ids, acknowledgement by last_event_id, and the pruning errors", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
          assert.deepStrictEqual((yield* drain(hamlet, queueId, -1)).json, success({ events: [] }))
          const first = yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: hamlet, form: { alert_words: "[\"ack-one\"]" } })
          const second = yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: hamlet, form: { alert_words: "[\"ack-two\"]" } })
          const both = yield* drain(hamlet, queueId, -1)
          assert.strictEqual(both.status, 200)
          const events = both.json.events
          assert.deepStrictEqual(bare(events), [
            { type: "alert_words", alert_words: first.json.alert_words },
            { type: "alert_words", alert_words: second.json.alert_words }
          ])
          assert.isTrue(events[0].id < events[1].id)
          assert.deepStrictEqual(Object.keys(both.json), ["result", "msg", "events"])
          // Delivery does not remove; acknowledging does.
          assert.deepStrictEqual((yield* drain(hamlet, queueId, -1)).json.events, events)
          assert.deepStrictEqual((yield* drain(hamlet, queueId, events[0].id)).json.events, [events[1]])
          assert.deepStrictEqual((yield* drain(hamlet, queueId, events[1].id)).json, success({ events: [] }))
          assert.deepStrictEqual((yield* drain(hamlet, queueId, events[1].id)).json, success({ events: [] }))
          const pruned = yield* drain(hamlet, queueId, events[0].id)
          assert.strictEqual(pruned.status, 400)
          assert.deepStrictEqual(pruned.json, error(`An event newer than ${events[0].id} has already been pruned!`))
          const bogus = events[1].id + 1000
          const missing = yield* drain(hamlet, queueId, bogus)
          assert.deepStrictEqual(missing.json, error(`Event ${bogus} was not in this queue`))
          const fresh = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
          assert.deepStrictEqual((yield* drain(hamlet, fresh, 5)).json, error("Event 5 was not in this queue"))
        }))

      it.effect("GET /events: BAD_EVENT_QUEUE_ID for unknown queues, other users' queues and expired queues", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const unknown = yield* drain(hamlet, "no-such-queue", -1)
          assert.strictEqual(unknown.status, 400)
          assert.deepStrictEqual(unknown.json, badQueue("no-such-queue"))
          const mine = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
          const theirs = yield* poll(iago, { queue_id: mine, last_event_id: "-1", dont_block: "true" })
          assert.deepStrictEqual(theirs.json, badQueue(mine))
          const deleteTheirs = yield* server.fetch("DELETE", "/api/v1/events", { as: iago, form: { queue_id: mine } })
          assert.deepStrictEqual(deleteTheirs.json, badQueue(mine))
          // Still alive for its owner.
          assert.strictEqual((yield* drain(hamlet, mine, -1)).status, 200)
          // A queue expires its lifespan after the last poll that waited (or its creation).
          const short = yield* register(hamlet, { event_types: "[\"alert_words\"]", queue_lifespan_secs: "1" })
          assert.strictEqual((yield* drain(hamlet, short, -1)).status, 200)
          server.clock.advance(1_000)
          const expired = yield* drain(hamlet, short, -1)
          assert.strictEqual(expired.status, 400)
          assert.deepStrictEqual(expired.json, badQueue(short))
          assert.strictEqual((yield* drain(hamlet, mine, -1)).status, 200)
        }))

      it.effect("GET /events: missing queue_id and last_event_id, and bad parameters", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
          const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
            [{}, error("Missing 'queue_id' argument")],
            [{ dont_block: "false" }, error("Missing 'queue_id' argument")],
            [{ queue_id: queueId }, error("Missing 'last_event_id' argument")],
            [{ queue_id: queueId, last_event_id: "x" }, error("last_event_id is not valid JSON")],
            [{ queue_id: queueId, last_event_id: "1.5" }, error("last_event_id is not an integer")],
            [{ queue_id: queueId, last_event_id: "-1", dont_block: "1" }, error("dont_block is not a boolean")],
            [{ dont_block: "true", narrow: "[[\"nope\",\"x\"]]" }, error("Operator nope not supported.")]
          ]
          for (const [query, expected] of cases) {
            const reply = yield* poll(hamlet, query)
            assert.strictEqual(reply.status, 400, JSON.stringify(query))
            assert.deepStrictEqual(reply.json, expected, JSON.stringify(query))
          }
        }))

      it.effect("GET /events with dont_block and no queue_id registers a queue with the request's parameters", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const created = yield* poll(hamlet, { dont_block: "true", event_types: "[\"alert_words\"]" })
          assert.strictEqual(created.status, 200)
          assert.deepStrictEqual(created.json, success({ events: [], queue_id: created.json.queue_id }))
          assert.isString(created.json.queue_id)
          const queueId = created.json.queue_id
          yield* server.fetch("PATCH", "/api/v1/settings", { as: hamlet, form: { enter_sends: "true" } })
          const words = yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: hamlet, form: { alert_words: "[\"dont-block\"]" } })
          const reply = yield* drain(hamlet, queueId, -1)
          // Only alert_words: event_types came with the request; queue_id only when the call registered.
          assert.deepStrictEqual(bare(reply.json.events), [{ type: "alert_words", alert_words: words.json.alert_words }])
          assert.deepStrictEqual(Object.keys(reply.json), ["result", "msg", "events"])
          yield* server.fetch("PATCH", "/api/v1/settings", { as: hamlet, form: { enter_sends: "false" } })
        }))

      it.effect("GET /events blocks until another user's action commits (POST /users/me/subscriptions)", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const name = `Blocking ${backend}`
          const created = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: hamlet,
            form: { subscriptions: JSON.stringify([{ name }]) }
          })
          assert.deepStrictEqual(created.json, success({ subscribed: { [hamlet.userId]: [name] }, already_subscribed: {} }))
          const streamId = yield* channelId(hamlet, name)
          const queueId = yield* register(hamlet, { event_types: "[\"subscription\"]" })
          const before = yield* waiting
          const started = now()
          const pending = yield* start("GET", "/api/v1/events", { as: hamlet, query: { queue_id: queueId, last_event_id: "-1" } })
          yield* waitingFor(before + 1)
          const joined = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: iago,
            form: { subscriptions: JSON.stringify([{ name }]) }
          })
          assert.deepStrictEqual(joined.json, success({ subscribed: { [iago.userId]: [name] }, already_subscribed: {} }))
          const reply = yield* Effect.promise(() => pending)
          const elapsed = now() - started
          assert.strictEqual(reply.status, 200)
          assert.deepStrictEqual(bare(reply.json.events), [
            { type: "subscription", op: "peer_add", stream_ids: [streamId], user_ids: [iago.userId] }
          ])
          assert.isBelow(elapsed, heartbeatMs, "returned on the action, not the heartbeat")
          assert.strictEqual(yield* waiting, before)
        }))

      it.effect("GET /events: a heartbeat after the configured interval; it is acknowledged like an event", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
          const started = now()
          const reply = yield* poll(hamlet, { queue_id: queueId, last_event_id: "-1" })
          const elapsed = now() - started
          assert.strictEqual(reply.status, 200)
          assert.deepStrictEqual(reply.json, success({ events: [{ type: "heartbeat", id: reply.json.events[0].id }] }))
          assert.isAtLeast(elapsed, heartbeatMs - 50)
          assert.isBelow(elapsed, heartbeatMs + 1_500)
          const next = yield* drain(hamlet, queueId, reply.json.events[0].id)
          assert.deepStrictEqual(next.json, success({ events: [] }))
        }))

      it.effect("GET /events: a newer poll of the same queue finishes the older one", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
          const before = yield* waiting
          const query = { queue_id: queueId, last_event_id: "-1" }
          const older = yield* start("GET", "/api/v1/events", { as: hamlet, query })
          yield* waitingFor(before + 1)
          const started = now()
          const newer = yield* start("GET", "/api/v1/events", { as: hamlet, query })
          const first = yield* Effect.promise(() => older)
          assert.deepStrictEqual(first.json, success({ events: [] }))
          assert.isBelow(now() - started, heartbeatMs)
          yield* waitingFor(before + 1)
          const words = yield* server.fetch("POST", "/api/v1/users/me/alert_words", { as: hamlet, form: { alert_words: "[\"newer-poll\"]" } })
          const second = yield* Effect.promise(() => newer)
          assert.deepStrictEqual(bare(second.json.events), [{ type: "alert_words", alert_words: words.json.alert_words }])
          assert.isBelow(now() - started, heartbeatMs)
        }))

      it.effect("GET /events: a client that goes away frees its waiting poll", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
          const before = yield* waiting
          const abort = new AbortController()
          const request = new Request(
            makeRequest("GET", "/api/v1/events", { as: hamlet, query: { queue_id: queueId, last_event_id: "-1" } }),
            { signal: abort.signal }
          )
          const pending = server.handler(request)
          yield* waitingFor(before + 1)
          abort.abort()
          yield* Effect.promise(() => pending.then(() => undefined, () => undefined))
          for (let i = 0; i < 100 && (yield* waiting) > before; i++) yield* sleep(5)
          assert.strictEqual(yield* waiting, before)
          // The queue lives on and answers the next poll.
          assert.deepStrictEqual((yield* drain(hamlet, queueId, -1)).json, success({ events: [] }))
        }))

      it.effect("DELETE /events: deletes the queue, ends a waiting poll; then BAD_EVENT_QUEUE_ID", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const queueId = yield* register(hamlet, { event_types: "[\"alert_words\"]" })
          const before = yield* waiting
          const pending = yield* start("GET", "/api/v1/events", {
            as: hamlet,
            query: { queue_id: queueId, last_event_id: "-1" }
          })
          yield* waitingFor(before + 1)
          // zulip-js sends DELETE parameters in the query string.
          const deleted = yield* server.fetch("DELETE", "/api/v1/events", { as: hamlet, query: { queue_id: queueId } })
          assert.strictEqual(deleted.status, 200)
          assert.deepStrictEqual(deleted.json, success())
          const ended = yield* Effect.promise(() => pending)
          assert.deepStrictEqual(ended.json, badQueue(queueId))
          assert.deepStrictEqual((yield* drain(hamlet, queueId, -1)).json, badQueue(queueId))
          const again = yield* server.fetch("DELETE", "/api/v1/events", { as: hamlet, form: { queue_id: queueId } })
          assert.deepStrictEqual(again.json, badQueue(queueId))
          const missing = yield* server.fetch("DELETE", "/api/v1/events", { as: hamlet })
          assert.deepStrictEqual(missing.json, {
            result: "error",
            msg: "Missing 'queue_id' argument",
            code: "REQUEST_VARIABLE_MISSING",
            var_name: "queue_id"
          })
        }))

      // -----------------------------------------------------------------------
      // subscriptions

      it.effect("subscriptions: responses, and the add, peer, remove and update events", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const cordelia = yield* server.login("cordelia@zulip.com")
          const name = `Subscribed ${backend}`
          const hamletQueue = yield* register(hamlet, { event_types: "[\"subscription\"]" })
          const cordeliaQueue = yield* register(cordelia, { event_types: "[\"subscription\"]" })
          const iagoQueue = yield* register(iago, { event_types: "[\"subscription\",\"stream\"]" })

          // iago creates the channel with hamlet as its only subscriber.
          const subscribed = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: iago,
            form: { subscriptions: JSON.stringify([{ name, description: "Made by a test" }]), principals: JSON.stringify([hamlet.userId]) }
          })
          assert.strictEqual(subscribed.status, 200, subscribed.text)
          assert.deepStrictEqual(subscribed.json, success({ subscribed: { [hamlet.userId]: [name] }, already_subscribed: {} }))
          const streamId = yield* channelId(hamlet, name)
          const listed = yield* server.fetch("GET", "/api/v1/users/me/subscriptions", {
            as: hamlet,
            query: { include_subscribers: "true" }
          })
          const { subscribers, ...hamletSub } = listed.json.subscriptions.find((s: { name: string }) => s.name === name)
          assert.deepStrictEqual(subscribers, [hamlet.userId])
          assert.strictEqual(hamletSub.description, "Made by a test")
          // The queue was registered without include_subscribers: no subscriber lists in its events.
          const hamletEvents = (yield* drain(hamlet, hamletQueue, -1)).json.events
          assert.deepStrictEqual(bare(hamletEvents), [{ type: "subscription", op: "add", subscriptions: [hamletSub] }])
          const peerAdd = { type: "subscription", op: "peer_add", stream_ids: [streamId], user_ids: [hamlet.userId] }
          assert.deepStrictEqual(bare((yield* drain(cordelia, cordeliaQueue, -1)).json.events), [peerAdd])
          const iagoEvents = (yield* drain(iago, iagoQueue, -1)).json.events
          assert.deepStrictEqual(bare(iagoEvents).map((e) => `${e.type} ${e.op}`), ["stream create", "subscription peer_add"])
          assert.deepStrictEqual(bare(iagoEvents)[1], peerAdd)

          // Subscribing again: already subscribed, and no event.
          const again = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: hamlet,
            multipart: { subscriptions: JSON.stringify([{ name: name.toUpperCase() }]) }
          })
          assert.deepStrictEqual(again.json, success({ subscribed: {}, already_subscribed: { [hamlet.userId]: [name] } }))
          const hamletLast = hamletEvents[hamletEvents.length - 1].id
          assert.deepStrictEqual((yield* drain(hamlet, hamletQueue, hamletLast)).json.events, [])

          // Personal properties.
          const props = yield* server.fetch("POST", "/api/v1/users/me/subscriptions/properties", {
            as: hamlet,
            form: {
              subscription_data: JSON.stringify([
                { stream_id: streamId, property: "is_muted", value: true },
                { stream_id: streamId, property: "color", value: "#abcdef" }
              ])
            }
          })
          assert.deepStrictEqual(props.json, success())
          const updates = (yield* drain(hamlet, hamletQueue, hamletLast)).json.events
          assert.deepStrictEqual(bare(updates), [
            { type: "subscription", op: "update", property: "in_home_view", value: false, stream_id: streamId },
            { type: "subscription", op: "update", property: "is_muted", value: true, stream_id: streamId },
            { type: "subscription", op: "update", property: "color", value: "#abcdef", stream_id: streamId }
          ])
          const afterUpdates = updates[updates.length - 1].id

          // Unsubscribing.
          const removed = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
            as: hamlet,
            form: { subscriptions: JSON.stringify([name]) }
          })
          assert.deepStrictEqual(removed.json, success({ removed: [name], not_removed: [] }))
          assert.deepStrictEqual(bare((yield* drain(hamlet, hamletQueue, afterUpdates)).json.events), [
            { type: "subscription", op: "remove", subscriptions: [{ name, stream_id: streamId }] }
          ])
          const cordeliaEvents = (yield* drain(cordelia, cordeliaQueue, -1)).json.events
          assert.deepStrictEqual(bare(cordeliaEvents), [
            peerAdd,
            { type: "subscription", op: "peer_remove", stream_ids: [streamId], user_ids: [hamlet.userId] }
          ])
          const notRemoved = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
            as: hamlet,
            query: { subscriptions: JSON.stringify([name]) }
          })
          assert.deepStrictEqual(notRemoved.json, success({ removed: [], not_removed: [name] }))
          const unknown = yield* server.fetch("DELETE", "/api/v1/users/me/subscriptions", {
            as: hamlet,
            form: { subscriptions: JSON.stringify(["No such channel"]) }
          })
          assert.strictEqual(unknown.status, 400)
          assert.deepStrictEqual(unknown.json, new Errors.StreamNameDoesNotExist({ stream: "No such channel" }).wire)
        }))

      it.effect("subscriptions: GET as every role, authorization errors, and parameter errors", () =>
        Effect.gen(function*() {
          const server = yield* Server
          for (const role of roles) {
            const who = yield* as(role)
            for (const include of ["false", "true", "partial"]) {
              const reply = yield* server.fetch("GET", "/api/v1/users/me/subscriptions", {
                as: who,
                query: { include_subscribers: include }
              })
              const expected = yield* server.core(Effect.gen(function*() {
                const principal = yield* principalOf(who)
                return yield* (yield* Subscriptions).list(principal, { includeSubscribers: include !== "false" })
              }))
              assert.deepStrictEqual(reply.json, success({ subscriptions: expected }), `${role} ${include}`)
            }
          }
          const hamlet = yield* as("member")
          const fatal = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: hamlet,
            form: { subscriptions: JSON.stringify([{ name: "core team" }]) }
          })
          assert.deepStrictEqual(fatal.json, error("Unable to access channel (core team)."))
          const lenient = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: hamlet,
            form: { subscriptions: JSON.stringify([{ name: "core team" }, { name: "Verona" }]), authorization_errors_fatal: "false" }
          })
          assert.deepStrictEqual(
            lenient.json,
            success({ subscribed: {}, already_subscribed: { [hamlet.userId]: ["Verona"] }, unauthorized: ["core team"] })
          )
          const cases: ReadonlyArray<readonly [string, string, Record<string, string>, object]> = [
            ["POST", "/api/v1/users/me/subscriptions", {}, {
              result: "error",
              msg: "Missing 'subscriptions' argument",
              code: "REQUEST_VARIABLE_MISSING",
              var_name: "subscriptions"
            }],
            ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[\"Verona\"]" }, error("subscriptions[0] is not a dict")],
            ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":\"x\",\"colour\":1}]" }, error("Argument \"colour\" at subscriptions[0] is unexpected")],
            ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":5}]" }, error("subscriptions[0][\"name\"] is not a string")],
            ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":\"x\"}]", principals: "[1,\"a\"]" }, error("Invalid principals")],
            ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":\"x\"}]", principals: "[999999]" }, new Errors.NoSuchUser().wire],
            ["POST", "/api/v1/users/me/subscriptions", { subscriptions: "[{\"name\":\"  \"}]" }, error("Channel name can't be empty.")],
            ["DELETE", "/api/v1/users/me/subscriptions", { subscriptions: "Verona" }, error("subscriptions is not valid JSON")],
            ["POST", "/api/v1/users/me/subscriptions/properties", { subscription_data: "[{\"stream_id\":\"1\",\"property\":\"color\",\"value\":\"#000000\"}]" }, error("subscription_data[0][\"stream_id\"] is not an integer")],
            ["POST", "/api/v1/users/me/subscriptions/properties", { subscription_data: "[{\"stream_id\":1,\"property\":\"color\"}]" }, {
              result: "error",
              msg: "Missing 'subscription_data[0][\"value\"]' argument",
              code: "REQUEST_VARIABLE_MISSING",
              var_name: "subscription_data[0][\"value\"]"
            }],
            ["POST", "/api/v1/users/me/subscriptions/properties", { subscription_data: "[{\"stream_id\":999999,\"property\":\"color\",\"value\":\"#000000\"}]" }, error("Invalid channel ID")],
            ["POST", "/api/v1/users/me/subscriptions/properties", { subscription_data: "[{\"stream_id\":1,\"property\":\"volume\",\"value\":true}]" }, error("Unknown subscription property: volume")]
          ]
          for (const [method, path, form, expected] of cases) {
            const reply = yield* server.fetch(method, path, { as: hamlet, form })
            assert.strictEqual(reply.status, 400, `${method} ${JSON.stringify(form)}`)
            assert.deepStrictEqual(reply.json, expected, `${method} ${JSON.stringify(form)}`)
          }
        }))

      // -----------------------------------------------------------------------
      // settings and alert words

      it.effect("PATCH /settings: user_settings events, and the legacy events only without user_settings_object", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const types = JSON.stringify(["user_settings", "update_display_settings", "update_global_notifications"])
          const legacy = yield* register(hamlet, { event_types: types })
          const modern = yield* register(hamlet, {
            event_types: types,
            client_capabilities: JSON.stringify({ user_settings_object: true })
          })
          const email = (yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })).json.email
          const changed = yield* server.fetch("PATCH", "/api/v1/settings", {
            as: hamlet,
            form: { emojiset: "twitter", enable_sounds: "false", default_language: "de", unknown_setting: "1" }
          })
          assert.strictEqual(changed.status, 200, changed.text)
          assert.deepStrictEqual(changed.json, success({ ignored_parameters_unsupported: ["unknown_setting"] }))
          const settings = [
            { type: "user_settings", op: "update", property: "default_language", value: "de", language_name: "Deutsch" },
            { type: "user_settings", op: "update", property: "emojiset", value: "twitter" },
            { type: "user_settings", op: "update", property: "enable_sounds", value: false }
          ]
          const legacyEvents = bare((yield* drain(hamlet, legacy, -1)).json.events)
          assert.deepStrictEqual(legacyEvents, [
            settings[0],
            { type: "update_display_settings", user: email, setting_name: "default_language", setting: "de", language_name: "Deutsch" },
            settings[1],
            { type: "update_display_settings", user: email, setting_name: "emojiset", setting: "twitter" },
            settings[2],
            { type: "update_global_notifications", user: email, notification_name: "enable_sounds", setting: false }
          ])
          assert.deepStrictEqual(bare((yield* drain(hamlet, modern, -1)).json.events), settings)
          // The register state follows.
          const state = yield* server.fetch("POST", "/api/v1/register", {
            as: hamlet,
            form: { fetch_event_types: "[\"user_settings\"]" }
          })
          assert.strictEqual(state.json.user_settings.emojiset, "twitter")
          assert.strictEqual(state.json.user_settings.enable_sounds, false)
          // An empty PATCH changes nothing (go-zulip's UpdateSettings test).
          assert.deepStrictEqual((yield* server.fetch("PATCH", "/api/v1/settings", { as: hamlet })).json, success())
          const reset = yield* server.fetch("PATCH", "/api/v1/settings", {
            as: hamlet,
            query: { emojiset: "google", enable_sounds: "true", default_language: "en" }
          })
          assert.deepStrictEqual(reset.json, success())
        }))

      it.effect("PATCH /settings: typed parameters and the core's checks", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const bot = yield* as("bot")
          const cases: ReadonlyArray<readonly [Credentials, Record<string, string>, object]> = [
            [hamlet, { enter_sends: "1" }, error("enter_sends is not a boolean")],
            [hamlet, { enter_sends: "yes" }, error("enter_sends is not valid JSON")],
            [hamlet, { color_scheme: "7" }, error("Invalid color_scheme")],
            [hamlet, { web_font_size_px: "\"16\"" }, error("web_font_size_px is not an integer")],
            [hamlet, { emojiset: "apple" }, error("Invalid emojiset")],
            [hamlet, { default_language: "xx" }, error("Invalid default_language")],
            [hamlet, { timezone: "Mars/Olympus" }, error("Not a recognized time zone")],
            [hamlet, { notification_sound: "gong" }, error("Invalid notification sound 'gong'")],
            [bot, { enter_sends: "true" }, error("This endpoint does not accept bot requests.")]
          ]
          for (const [who, form, expected] of cases) {
            const reply = yield* server.fetch("PATCH", "/api/v1/settings", { as: who, form })
            assert.strictEqual(reply.status, 400, JSON.stringify(form))
            assert.deepStrictEqual(reply.json, expected, JSON.stringify(form))
          }
        }))

      it.effect("POST /register: the own avatar_url is always a URL; realm users carry bot_type, null for people", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const avatar = `https://secure.gravatar.com/avatar/${
            createHash("md5").update("hamlet@zulip.com").digest("hex")
          }?d=identicon&version=1`
          for (const client_gravatar of ["true", "false"]) {
            const reply = yield* server.fetch("POST", "/api/v1/register", {
              as: hamlet,
              form: { fetch_event_types: "[\"realm_user\"]", client_gravatar }
            })
            assert.strictEqual(reply.status, 200, reply.text)
            assert.strictEqual(reply.json.avatar_url, avatar, client_gravatar)
            assert.strictEqual(reply.json.avatar_url_medium, avatar.replace("?d=identicon", "?d=identicon&s=500"))
            const self = reply.json.realm_users.find((u: { user_id: number }) => u.user_id === hamlet.userId)
            assert.strictEqual(self.avatar_url, client_gravatar === "true" ? null : avatar)
            const bots = new Map<string, number>(
              reply.json.realm_users.filter((u: { is_bot: boolean }) => u.is_bot).map((u: { email: string; bot_type: number }) => [u.email, u.bot_type])
            )
            assert.strictEqual(bots.get(accounts.bot), 1)
            assert.strictEqual(bots.get("webhook-bot@zulip.com"), 2)
            for (const user of [...reply.json.realm_users, ...reply.json.realm_non_active_users]) {
              if (!user.is_bot) assert.isNull(user.bot_type, user.email)
            }
          }
        }))

      it.effect("PATCH /settings changes everything or nothing: a refused full name keeps the old password", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const prospero = yield* server.login("prospero@zulip.com")
          const queueId = yield* register(prospero, { event_types: "[\"realm_user\",\"user_settings\"]" })
          const login = (password: string) =>
            server.fetch("POST", "/api/v1/fetch_api_key", { form: { username: prospero.email, password } })
          const newPassword = "a new password"
          const refused = yield* server.fetch("PATCH", "/api/v1/settings", {
            as: prospero,
            form: { old_password: demoPassword, new_password: newPassword, full_name: "P", emojiset: "twitter" }
          })
          assert.strictEqual(refused.status, 400)
          assert.deepStrictEqual(refused.json, error("Name too short!"))
          assert.strictEqual((yield* login(demoPassword)).status, 200)
          const stale = yield* login(newPassword)
          assert.strictEqual(stale.status, 401)
          assert.deepStrictEqual(stale.json, {
            result: "error",
            msg: "Your username or password is incorrect",
            code: "AUTHENTICATION_FAILED"
          })
          const me = yield* server.fetch("GET", "/api/v1/users/me", { as: prospero })
          assert.strictEqual(me.json.full_name, "Prospero from The Tempest")
          const state = yield* server.fetch("POST", "/api/v1/register", {
            as: prospero,
            form: { fetch_event_types: "[\"user_settings\"]" }
          })
          assert.strictEqual(state.json.user_settings.emojiset, "google")
          assert.deepStrictEqual((yield* drain(prospero, queueId, -1)).json.events, [])
          // The same request with a valid name changes all of it.
          const changed = yield* server.fetch("PATCH", "/api/v1/settings", {
            as: prospero,
            form: { old_password: demoPassword, new_password: newPassword, full_name: "Prospero" }
          })
          assert.deepStrictEqual(changed.json, success())
          assert.strictEqual((yield* login(newPassword)).status, 200)
          assert.strictEqual((yield* login(demoPassword)).status, 401)
          const back = yield* server.fetch("PATCH", "/api/v1/settings", {
            as: prospero,
            form: { old_password: newPassword, new_password: demoPassword, full_name: "Prospero from The Tempest" }
          })
          assert.deepStrictEqual(back.json, success())
        }))

      it.effect("alert words: add and remove answer the whole list and send it as an event", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const othello = yield* server.login("othello@zulip.com")
          const queueId = yield* register(othello, { event_types: "[\"alert_words\"]" })
          const empty = yield* server.fetch("GET", "/api/v1/users/me/alert_words", { as: othello })
          assert.deepStrictEqual(empty.json, success({ alert_words: [] }))
          const added = yield* server.fetch("POST", "/api/v1/users/me/alert_words", {
            as: othello,
            multipart: { alert_words: JSON.stringify(["venice", " Desdemona ", "", "handkerchief"]) }
          })
          assert.deepStrictEqual(added.json, success({ alert_words: ["Desdemona", "handkerchief", "venice"] }))
          const removed = yield* server.fetch("DELETE", "/api/v1/users/me/alert_words", {
            as: othello,
            query: { alert_words: JSON.stringify(["handkerchief", "not there"]) }
          })
          assert.deepStrictEqual(removed.json, success({ alert_words: ["Desdemona", "venice"] }))
          assert.deepStrictEqual(bare((yield* drain(othello, queueId, -1)).json.events), [
            { type: "alert_words", alert_words: ["Desdemona", "handkerchief", "venice"] },
            { type: "alert_words", alert_words: ["Desdemona", "venice"] }
          ])
          const listed = yield* server.fetch("GET", "/api/v1/users/me/alert_words", { as: othello })
          assert.deepStrictEqual(listed.json, success({ alert_words: ["Desdemona", "venice"] }))
          const tooLong = yield* server.fetch("POST", "/api/v1/users/me/alert_words", {
            as: othello,
            form: { alert_words: JSON.stringify(["ok", "x".repeat(101)]) }
          })
          assert.deepStrictEqual(tooLong.json, error("alert_words[1] is too long (limit: 100 characters)"))
          const notList = yield* server.fetch("POST", "/api/v1/users/me/alert_words", {
            as: othello,
            form: { alert_words: "\"venice\"" }
          })
          assert.deepStrictEqual(notList.json, error("alert_words is not a list"))
        }))

      // Last: it moves the clock by hours.
      it.effect("idle_queue_timeout=mobile keeps a queue 12 hours; the default 10 minutes", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const types = "[\"alert_words\"]"
          const mobile = yield* register(hamlet, { event_types: types, idle_queue_timeout: "mobile" })
          const plain = yield* register(hamlet, { event_types: types })
          const hour = yield* register(hamlet, { event_types: types, idle_queue_timeout: "3600" })
          server.clock.advance(600_000)
          assert.deepStrictEqual((yield* drain(hamlet, plain, -1)).json, badQueue(plain))
          assert.strictEqual((yield* drain(hamlet, hour, -1)).status, 200)
          assert.strictEqual((yield* drain(hamlet, mobile, -1)).status, 200)
          server.clock.advance(3_000_000)
          assert.deepStrictEqual((yield* drain(hamlet, hour, -1)).json, badQueue(hour))
          assert.strictEqual((yield* drain(hamlet, mobile, -1)).status, 200)
          server.clock.advance(12 * 3_600_000 - 3_600_000)
          assert.deepStrictEqual((yield* drain(hamlet, mobile, -1)).json, badQueue(mobile))
          const fresh = yield* drain(hamlet, yield* register(hamlet, { event_types: types }), -1)
          assert.deepStrictEqual(fresh.json, success({ events: [] }))
        }))
    })
  })
