/** POST /register as the clients send it, and its parameter errors. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Credentials } from "../Harness.ts"
import { epoch, realmUrl, Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { roles, success, error, mobileForm, mobileRequired, terminalRequired, assertKind, as, drain } from "./fixtures.ts"
import { defaultUserSettings, demoIds, registerBody } from "./registerBodies.ts"

export const registerTests = (it: Vitest.MethodsNonLive<Server>): void => {
  // -----------------------------------------------------------------------
  // POST /register

  it.effect("POST /register with the mobile app's parameters, as every role: every required key, typed", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const ids = yield* demoIds
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
        // The whole body, written out from Zulip's behaviour.
        assert.deepStrictEqual(body, registerBody(ids, role, body), role)
      }
    }))

  it.effect("POST /register as zulip-js (multipart, event_types=null) and as zulip-terminal", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const hamlet = yield* as("member")
      const js = yield* server.fetch("POST", "/api/v1/register", { as: hamlet, multipart: { event_types: "null" } })
      assert.strictEqual(js.status, 200)
      assert.deepStrictEqual(js.json, registerBody(yield* demoIds, "member", js.json, "legacy"))
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
      // What every register answers, whatever it fetches.
      const versions = (queueId: unknown) => ({
        result: "success",
        msg: "",
        queue_id: queueId,
        last_event_id: -1,
        zulip_version: "11.0-teamchat",
        zulip_feature_level: 416,
        zulip_merge_base: "11.0"
      })
      const fetched = yield* server.fetch("POST", "/api/v1/register", {
        as: hamlet,
        form: {
          event_types: JSON.stringify(["message"]),
          fetch_event_types: JSON.stringify(["alert_words", "user_settings", "no_such_type"])
        }
      })
      assert.deepStrictEqual(fetched.json, {
        ...versions(fetched.json.queue_id),
        alert_words: [],
        user_settings: { ...defaultUserSettings, timezone: "" }
      })
      assert.deepStrictEqual(Object.keys(fetched.json), [...base, "alert_words", "user_settings"])

      const byEventTypes = yield* server.fetch("POST", "/api/v1/register", {
        as: hamlet,
        form: { event_types: JSON.stringify(["alert_words"]) }
      })
      assert.deepStrictEqual(byEventTypes.json, { ...versions(byEventTypes.json.queue_id), alert_words: [] })
      assert.deepStrictEqual(Object.keys(byEventTypes.json), [...base, "alert_words"])

      const unknownOnly = yield* server.fetch("POST", "/api/v1/register", {
        as: hamlet,
        form: { event_types: JSON.stringify(["no_such_type"]) }
      })
      assert.strictEqual(unknownOnly.status, 200)
      assert.deepStrictEqual(unknownOnly.json, versions(unknownOnly.json.queue_id))
      assert.deepStrictEqual(Object.keys(unknownOnly.json), base)
      // Such a queue receives nothing.
      const added = yield* server.fetch("POST", "/api/v1/users/me/alert_words", {
        as: hamlet,
        form: { alert_words: "[\"unknown-type-check\"]" }
      })
      assert.deepStrictEqual(added.json, success({ alert_words: ["unknown-type-check"] }))
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
}
