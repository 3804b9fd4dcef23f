/** PATCH /settings and alert words, and their events. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import type { Credentials } from "../Harness.ts"
import { accounts, demoPassword, Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { success, error, bare, as, register, drain } from "./fixtures.ts"

export const settingsTests = (it: Vitest.MethodsNonLive<Server>): void => {
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
        [hamlet, { email: "othello@zulip.com" }, error("Already has an account.")],
        [hamlet, { email: "Welcome-Bot@zulip.com" }, error("Reserved for system bots.")],
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

  it.effect("PATCH /settings refuses a new password shorter than 6 characters, counted as the join page counts them", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const cordelia = yield* server.login("cordelia@zulip.com")
      // "abcd😀" is 5 characters but 6 UTF-16 code units: one rule for every password.
      for (const newPassword of ["12345", "abcd😀"]) {
        const refused = yield* server.fetch("PATCH", "/api/v1/settings", {
          as: cordelia,
          form: { old_password: demoPassword, new_password: newPassword }
        })
        assert.strictEqual(refused.status, 400, newPassword)
        assert.deepStrictEqual(refused.json, error("New password is too weak!"))
      }
      const login = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
        form: { username: cordelia.email, password: demoPassword }
      })
      assert.strictEqual(login.status, 200)
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
}
