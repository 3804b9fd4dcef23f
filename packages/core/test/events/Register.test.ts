/**
 * POST /register's initial state: every key the mobile app requires (with
 * its type and nested required fields) and those zulip-terminal reads, on
 * the in-memory backend.
 */
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { EventQueues } from "../../src/services/events/EventQueues.ts"
import { Register } from "../../src/services/Register.ts"
import type { ServerInfo } from "../../src/services/Register.ts"
import { AlertWords } from "../../src/services/AlertWords.ts"
import { Subscriptions } from "../../src/services/Subscriptions.ts"
import { backends, makeOrg } from "./fixtures.ts"

const server: ServerInfo = {
  zulip_version: "11.0-teamchat",
  zulip_feature_level: 416,
  zulip_merge_base: "11.0",
  base_url: "http://localhost:9991"
}

type Kind = "int" | "string" | "bool" | "array" | "object" | "intOrObject"
const kindOf = (value: unknown): string =>
  Array.isArray(value) ? "array" : value === null ? "null" : Number.isInteger(value) ? "int" : typeof value === "number" ? "number" : typeof value === "boolean" ? "bool" : typeof value

const check = (object: Record<string, unknown>, spec: Record<string, Kind>, where: string) => {
  for (const [key, kind] of Object.entries(spec)) {
    assert.property(object, key, `${where}.${key} missing`)
    const actual = kindOf(object[key])
    if (kind === "intOrObject") assert.include(["int", "object"], actual, `${where}.${key}`)
    else assert.strictEqual(actual, kind, `${where}.${key}`)
  }
}

/** lib/api/model/initial_snapshot.g.dart: required top-level keys. */
const mobileRequired: Record<string, Kind> = {
  queue_id: "string",
  last_event_id: "int",
  zulip_feature_level: "int",
  zulip_version: "string",
  zulip_merge_base: "string",
  alert_words: "array",
  custom_profile_fields: "array",
  max_stream_name_length: "int",
  max_topic_length: "int",
  server_presence_ping_interval_seconds: "int",
  server_presence_offline_threshold_seconds: "int",
  muted_users: "array",
  presences: "object",
  realm_emoji: "object",
  realm_user_groups: "array",
  recent_private_conversations: "array",
  subscriptions: "array",
  unread_msgs: "object",
  starred_messages: "array",
  streams: "array",
  user_status: "object",
  user_settings: "object",
  user_topics: "array",
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
  realm_users: "array",
  realm_non_active_users: "array",
  cross_realm_bots: "array"
}

layer(backends.memory())("register", (it) => {
  it.effect("has every key the mobile app requires, with the right types and nested fields", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const register = yield* Register
      yield* (yield* Subscriptions).subscribe(org.member, { subscriptions: [{ name: "Denmark" }] })
      yield* (yield* AlertWords).add(org.member, ["hello"])
      const state = yield* register.register(org.member, {
        apply_markdown: true,
        client_gravatar: false,
        slim_presence: true,
        client_capabilities: {
          notification_settings_null: true,
          bulk_message_deletion: true,
          user_avatar_url_field_optional: true,
          stream_typing_notifications: true,
          user_settings_object: true,
          include_deactivated_groups: true,
          empty_topic_name: true
        }
      }, server)
      check(state, mobileRequired, "register")
      assert.strictEqual(state.last_event_id, -1)
      assert.strictEqual(state.zulip_feature_level, 416)
      assert.strictEqual(state.max_message_length, 10000)
      assert.strictEqual(state.max_topic_length, 60)
      assert.strictEqual(state.max_stream_name_length, 60)
      assert.strictEqual(state.max_stream_description_length, 1024)
      assert.strictEqual(state.realm_empty_topic_display_name, "general chat")
      assert.strictEqual(state.event_queue_longpoll_timeout_seconds, 90)
      assert.strictEqual(state.server_presence_ping_interval_seconds, 60)
      assert.strictEqual(state.server_presence_offline_threshold_seconds, 140)
      assert.match(state.server_emoji_data_url as string, /^http:\/\/localhost:9991\//)
      assert.deepStrictEqual(state.alert_words, ["hello"])
      assert.deepStrictEqual(state.unread_msgs, { count: 0, pms: [], streams: [], huddles: [], mentions: [], old_unreads_missing: false })
      const users = state.realm_users as Array<Record<string, unknown>>
      assert.isTrue(users.some((u) => u.user_id === org.member.user.id), "self is in realm_users")
      for (const user of users) {
        check(user, { user_id: "int", email: "string", full_name: "string", date_joined: "string", is_bot: "bool", role: "int", timezone: "string", avatar_version: "int" }, "realm_users[]")
      }
      const subs = state.subscriptions as Array<Record<string, unknown>>
      assert.strictEqual(subs.length, 1)
      const streamFields: Record<string, Kind> = {
        stream_id: "int",
        name: "string",
        description: "string",
        rendered_description: "string",
        date_created: "int",
        invite_only: "bool",
        is_web_public: "bool",
        history_public_to_subscribers: "bool"
      }
      check(subs[0]!, { ...streamFields, pin_to_top: "bool", is_muted: "bool", color: "string" }, "subscriptions[]")
      assert.match(subs[0]!.color as string, /^#[0-9a-f]{6}$/)
      for (const stream of state.streams as Array<Record<string, unknown>>) check(stream, streamFields, "streams[]")
      for (const group of state.realm_user_groups as Array<Record<string, unknown>>) {
        check(group, { id: "int", members: "array", direct_subgroup_ids: "array", name: "string", description: "string", is_system_group: "bool" }, "realm_user_groups[]")
      }
      const settings = state.user_settings as Record<string, unknown>
      check(settings, { starred_message_counts: "bool", display_emoji_reaction_users: "bool", emojiset: "string", presence_enabled: "bool" }, "user_settings")
      for (const account of Object.values(state.realm_default_external_accounts as Record<string, Record<string, unknown>>)) {
        check(account, { name: "string", text: "string", hint: "string", url_pattern: "string" }, "realm_default_external_accounts")
      }
      // The queue exists and is empty.
      const { events } = yield* (yield* EventQueues).getEvents(org.member, {
        queue_id: state.queue_id as string,
        last_event_id: -1,
        dont_block: true
      })
      assert.deepStrictEqual(events, [])
    }))

  it.effect("has what zulip-terminal reads, legacy settings at top level without user_settings_object", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const state = yield* (yield* Register).register(org.member, { apply_markdown: true, client_gravatar: true }, server)
      check(state, {
        queue_id: "string",
        last_event_id: "int",
        max_message_id: "int",
        user_id: "int",
        email: "string",
        full_name: "string",
        realm_name: "string",
        zulip_version: "string",
        presences: "object",
        realm_users: "array",
        cross_realm_bots: "array",
        subscriptions: "array",
        realm_message_retention_days: "int",
        muted_topics: "array",
        realm_user_groups: "array",
        unread_msgs: "object",
        realm_emoji: "object",
        user_settings: "object",
        starred_messages: "array",
        realm_allow_edit_history: "bool",
        realm_allow_message_editing: "bool",
        realm_message_content_edit_limit_seconds: "int",
        custom_profile_fields: "array",
        // Legacy copies for clients without user_settings_object.
        twenty_four_hour_time: "bool",
        enter_sends: "bool",
        enable_sounds: "bool",
        timezone: "string"
      }, "register")
      check(state.user_settings as Record<string, unknown>, {
        send_private_typing_notifications: "bool",
        twenty_four_hour_time: "bool",
        pm_content_in_desktop_notifications: "bool"
      }, "user_settings")
      assert.strictEqual(state.user_id, org.member.user.id)
    }))

  it.effect("fetch_event_types selects the state; unknown types are ignored; always the queue keys", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const state = yield* (yield* Register).register(org.member, { fetch_event_types: ["alert_words", "bogus"], event_types: ["message"] }, server)
      assert.deepStrictEqual(Object.keys(state).sort(), ["alert_words", "last_event_id", "queue_id", "zulip_feature_level", "zulip_merge_base", "zulip_version"])
      const realmOnly = yield* (yield* Register).register(org.member, { event_types: ["realm"] }, server)
      assert.property(realmOnly, "max_message_length")
      assert.notProperty(realmOnly, "realm_users")
    }))

  it.effect("a guest sees only what it may: no private channel it is not in, limited users", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const subs = yield* Subscriptions
      yield* subs.subscribe(org.owner, { subscriptions: [{ name: "secret" }], invite_only: true })
      yield* subs.subscribe(org.owner, { subscriptions: [{ name: "public" }] })
      const state = yield* (yield* Register).register(org.guest, {}, server)
      const names = (state.streams as Array<{ name: string }>).map((s) => s.name)
      assert.notInclude(names, "secret")
      assert.notInclude(names, "public")
      assert.deepStrictEqual(state.never_subscribed, [])
      const admin = yield* (yield* Register).register(org.admin, {}, server)
      assert.includeMembers((admin.streams as Array<{ name: string }>).map((s) => s.name), ["public", "secret"])
    }))
})
