/**
 * Statuses over the wire, written once and run on every core backend: POST
 * /users/me/status, POST /users/{user_id}/status (administrators), GET
 * /users/{user_id}/status, register's `user_status` and the `user_status`
 * event, per role, with Zulip's texts for every refusal and nothing written
 * by a refused request.
 *
 * Emoji facts are Zulip's: `car` is 1f697, `octopus` 1f419, `+1` 1f44d
 * (whose alias `thumbs_up` names the same code), `zulip` is Zulip's own
 * extra emoji.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Users } from "@teamchat/core/services/Users"
import { userId as toUserId } from "@teamchat/core/domain/Ids"
import * as Effect from "effect/Effect"
import { listen } from "./EventListener.ts"
import type { Backend, Credentials, Role } from "./Harness.ts"
import { accounts, demoLayer, layerServer, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const badRequest = (msg: string) => ({ result: "error", msg, code: "BAD_REQUEST" })

export const userStatusContract = (backend: Backend) =>
  describe(`user status over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const login = (email: string) => Effect.flatMap(Server, (server) => server.login(email))

      const setOwn = (who: Credentials, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/users/me/status", { as: who, form }))
      const setOther = (who: Credentials, id: number | string, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", `/api/v1/users/${id}/status`, { as: who, form }))
      const get = (who: Credentials, id: number | string) =>
        Effect.flatMap(Server, (server) => server.fetch("GET", `/api/v1/users/${id}/status`, { as: who }))
      const statusOf = (id: number) =>
        Effect.flatMap(as("owner"), (owner) => Effect.map(get(owner, id), (reply) => reply.json.status))

      const registerState = (who: Credentials, types: ReadonlyArray<string>) =>
        Effect.flatMap(Server, (server) =>
          Effect.map(
            server.fetch("POST", "/api/v1/register", { as: who, form: { fetch_event_types: JSON.stringify(types) } }),
            (reply) => reply.json
          ))

      it.effect("every person sets their own status; the change is announced and read back", () =>
        Effect.gen(function*() {
          const observer = yield* login("cordelia@zulip.com")
          const poll = yield* listen(observer, ["user_status"])
          for (const role of ["owner", "admin", "moderator", "member", "guest"] as const) {
            const who = yield* as(role)
            const reply = yield* setOwn(who, { status_text: `  out to lunch (${role})  `, emoji_name: "car" })
            assert.strictEqual(reply.status, 200, `${role}: ${reply.text}`)
            assert.deepStrictEqual(reply.json, success())
            assert.deepStrictEqual(yield* statusOf(who.userId), {
              status_text: `out to lunch (${role})`,
              emoji_name: "car",
              emoji_code: "1f697",
              reaction_type: "unicode_emoji"
            })
            assert.deepStrictEqual(yield* poll, [{
              type: "user_status",
              user_id: who.userId,
              status_text: `out to lunch (${role})`,
              emoji_name: "car",
              emoji_code: "1f697",
              reaction_type: "unicode_emoji"
            }])
          }
          // Register shows everyone's, keyed by user id.
          const state = yield* registerState(observer, ["user_status"])
          const member = yield* as("member")
          assert.deepStrictEqual(state.user_status[String(member.userId)], {
            status_text: "out to lunch (member)",
            emoji_name: "car",
            emoji_code: "1f697",
            reaction_type: "unicode_emoji"
          })
          assert.strictEqual(Object.keys(state.user_status).length, 5)
        }))

      it.effect("a bot cannot set its own status", () =>
        Effect.gen(function*() {
          const bot = yield* as("bot")
          const reply = yield* setOwn(bot, { status_text: "beep" })
          assert.strictEqual(reply.status, 400)
          assert.deepStrictEqual(reply.json, badRequest("This endpoint does not accept bot requests."))
          const owner = yield* as("owner")
          assert.deepStrictEqual((yield* get(owner, bot.userId)).json, badRequest("No such user"))
        }))

      it.effect("only the parameters passed change; empty values clear", () =>
        Effect.gen(function*() {
          const who = yield* login("ZOE@zulip.com")
          yield* setOwn(who, { status_text: "busy", emoji_name: "octopus" })
          const poll = yield* listen(who, ["user_status"])
          assert.deepStrictEqual((yield* setOwn(who, { status_text: "still busy" })).json, success())
          assert.deepStrictEqual(yield* statusOf(who.userId), {
            status_text: "still busy",
            emoji_name: "octopus",
            emoji_code: "1f419",
            reaction_type: "unicode_emoji"
          })
          // An alias is kept as sent, with its emoji's code.
          yield* setOwn(who, { emoji_name: "thumbs_up" })
          assert.deepStrictEqual(yield* statusOf(who.userId), {
            status_text: "still busy",
            emoji_name: "thumbs_up",
            emoji_code: "1f44d",
            reaction_type: "unicode_emoji"
          })
          yield* setOwn(who, { emoji_name: "zulip" })
          assert.deepStrictEqual(yield* statusOf(who.userId), {
            status_text: "still busy",
            emoji_name: "zulip",
            emoji_code: "zulip",
            reaction_type: "zulip_extra_emoji"
          })
          yield* setOwn(who, { emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" })
          yield* setOwn(who, { emoji_name: "" })
          assert.deepStrictEqual(yield* statusOf(who.userId), { status_text: "still busy" })
          yield* setOwn(who, { status_text: "" })
          assert.deepStrictEqual(yield* statusOf(who.userId), {})
          assert.deepStrictEqual(yield* poll, [
            { type: "user_status", user_id: who.userId, status_text: "still busy" },
            {
              type: "user_status",
              user_id: who.userId,
              emoji_name: "thumbs_up",
              emoji_code: "1f44d",
              reaction_type: "unicode_emoji"
            },
            {
              type: "user_status",
              user_id: who.userId,
              emoji_name: "zulip",
              emoji_code: "zulip",
              reaction_type: "zulip_extra_emoji"
            },
            { type: "user_status", user_id: who.userId, emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" },
            { type: "user_status", user_id: who.userId, emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" },
            { type: "user_status", user_id: who.userId, status_text: "" }
          ])
          // Nothing set and presence shared: left out of register's user_status.
          const state = yield* registerState(who, ["user_status"])
          assert.notProperty(state.user_status, String(who.userId))
        }))

      it.effect("bad changes are refused with Zulip's texts and write nothing", () =>
        Effect.gen(function*() {
          const who = yield* login("othello@zulip.com")
          yield* setOwn(who, { status_text: "before", emoji_name: "car" })
          const before = yield* statusOf(who.userId)
          const poll = yield* listen(who, ["user_status", "user_settings"])
          const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
            [{}, "Client did not pass any new values."],
            // Zulip checks for new values first: an emoji code alone is none.
            [{ emoji_code: "1f697" }, "Client did not pass any new values."],
            [
              { status_text: "after", emoji_code: "1f697" },
              "Client must pass emoji_name if they pass either emoji_code or reaction_type."
            ],
            [{ away: "false", reaction_type: "unicode_emoji" }, "Client must pass emoji_name if they pass either emoji_code or reaction_type."],
            [{ status_text: "x".repeat(61) }, "status_text is too long (limit: 60 characters)"],
            [{ status_text: "x".repeat(61), away: "true" }, "status_text is too long (limit: 60 characters)"],
            [{ emoji_name: "unicorn_sparkle" }, "Emoji 'unicorn_sparkle' does not exist"],
            [{ emoji_name: "unicorn_sparkle", emoji_code: "1f697" }, "Emoji 'unicorn_sparkle' does not exist"],
            [{ emoji_name: "car", emoji_code: "1f419", reaction_type: "unicode_emoji" }, "Invalid emoji name."],
            [{ emoji_name: "car", emoji_code: "ffffff", reaction_type: "unicode_emoji" }, "Invalid emoji code."],
            [{ emoji_name: "car", reaction_type: "realm_emoji" }, "Invalid custom emoji."],
            [{ emoji_name: "car", emoji_code: "1", reaction_type: "realm_emoji" }, "Invalid custom emoji."],
            [{ emoji_name: "car", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" }, "Invalid emoji name."],
            [{ emoji_name: "zulip", emoji_code: "zulipp", reaction_type: "zulip_extra_emoji" }, "Invalid emoji code."],
            [{ emoji_name: "car", emoji_code: "1f697", reaction_type: "sticker" }, "Invalid emoji type."]
          ]
          for (const [form, msg] of cases) {
            const reply = yield* setOwn(who, form)
            assert.strictEqual(reply.status, 400, JSON.stringify(form))
            assert.deepStrictEqual(reply.json, badRequest(msg), JSON.stringify(form))
          }
          const notBoolean = yield* setOwn(who, { away: "yes" })
          assert.deepStrictEqual(notBoolean.json, badRequest("away is not valid JSON"))
          assert.deepStrictEqual(yield* statusOf(who.userId), before)
          assert.deepStrictEqual(yield* poll, [])
          // Exactly 60 characters (after stripping) is fine; characters, not UTF-16 units.
          const sixty = "🐙".repeat(60)
          assert.deepStrictEqual((yield* setOwn(who, { status_text: ` ${sixty} ` })).json, success())
          assert.strictEqual((yield* statusOf(who.userId)).status_text, sixty)
        }))

      it.effect("away is the negation of presence_enabled", () =>
        Effect.gen(function*() {
          const who = yield* login("prospero@zulip.com")
          const observer = yield* login("cordelia@zulip.com")
          const mine = yield* listen(who, ["user_status", "user_settings"])
          const theirs = yield* listen(observer, ["user_status", "user_settings"])
          assert.deepStrictEqual((yield* setOwn(who, { away: "true" })).json, success())
          assert.deepStrictEqual(yield* statusOf(who.userId), { away: true })
          assert.deepStrictEqual(yield* mine, [
            { type: "user_settings", op: "update", property: "presence_enabled", value: false },
            { type: "user_status", user_id: who.userId, away: true }
          ])
          assert.deepStrictEqual(yield* theirs, [{ type: "user_status", user_id: who.userId, away: true }])
          const state = yield* registerState(who, ["user_status", "user_settings"])
          assert.strictEqual(state.user_settings.presence_enabled, false)
          assert.deepStrictEqual(state.user_status[String(who.userId)], { away: true })

          assert.deepStrictEqual((yield* setOwn(who, { away: "false", status_text: "back" })).json, success())
          assert.deepStrictEqual(yield* statusOf(who.userId), { status_text: "back" })
          assert.deepStrictEqual(yield* theirs, [
            { type: "user_status", user_id: who.userId, away: false, status_text: "back" }
          ])
          assert.strictEqual((yield* registerState(who, ["user_settings"])).user_settings.presence_enabled, true)
        }))

      it.effect("administrators set another user's status; everyone else is refused", () =>
        Effect.gen(function*() {
          const target = yield* login("AARON@zulip.com")
          const poll = yield* listen(target, ["user_status"])
          for (const role of ["owner", "admin"] as const) {
            const who = yield* as(role)
            const reply = yield* setOther(who, target.userId, { status_text: `set by ${role}`, emoji_name: "octopus" })
            assert.deepStrictEqual(reply.json, success(), role)
            assert.deepStrictEqual(yield* statusOf(target.userId), {
              status_text: `set by ${role}`,
              emoji_name: "octopus",
              emoji_code: "1f419",
              reaction_type: "unicode_emoji"
            })
            assert.deepStrictEqual(yield* poll, [{
              type: "user_status",
              user_id: target.userId,
              status_text: `set by ${role}`,
              emoji_name: "octopus",
              emoji_code: "1f419",
              reaction_type: "unicode_emoji"
            }])
          }
          for (const role of ["moderator", "member", "guest", "bot"] as const) {
            const who = yield* as(role)
            const reply = yield* setOther(who, target.userId, { status_text: "hijacked" })
            assert.strictEqual(reply.status, 400, role)
            assert.deepStrictEqual(reply.json, badRequest("Insufficient permission"), role)
          }
          assert.deepStrictEqual(yield* poll, [])
          assert.strictEqual((yield* statusOf(target.userId)).status_text, "set by admin")
        }))

      it.effect("the administrators' endpoint: its targets and parameters", () =>
        Effect.gen(function*() {
          const admin = yield* as("admin")
          const bot = yield* as("bot")
          const member = yield* as("member")
          assert.deepStrictEqual((yield* setOther(admin, bot.userId, { status_text: "x" })).json, badRequest("No such user"))
          assert.deepStrictEqual((yield* setOther(admin, 999999, { status_text: "x" })).json, badRequest("No such user"))
          assert.deepStrictEqual(
            (yield* setOther(admin, "99999999999999999999", { status_text: "x" })).json,
            badRequest("No such user")
          )
          const notDigits = yield* setOther(admin, "me2", { status_text: "x" })
          assert.strictEqual(notDigits.status, 404)
          // `away` is not a parameter here: ignored, so nothing new was passed.
          const awayOnly = yield* setOther(admin, member.userId, { away: "true" })
          assert.deepStrictEqual(awayOnly.json, badRequest("Client did not pass any new values."))
          // Zulip's order of checks here too: new values first (an emoji code or
          // type alone is none), then an emoji name for a code or type.
          assert.deepStrictEqual(
            (yield* setOther(admin, member.userId, { emoji_code: "1f697" })).json,
            badRequest("Client did not pass any new values.")
          )
          assert.deepStrictEqual(
            (yield* setOther(admin, member.userId, { status_text: "meeting", emoji_code: "1f697" })).json,
            badRequest("Client must pass emoji_name if they pass either emoji_code or reaction_type.")
          )
          assert.deepStrictEqual(
            (yield* setOther(admin, member.userId, { status_text: "meeting", reaction_type: "unicode_emoji" })).json,
            badRequest("Client must pass emoji_name if they pass either emoji_code or reaction_type.")
          )
          const withAway = yield* setOther(admin, member.userId, { away: "true", status_text: "meeting" })
          assert.deepStrictEqual(withAway.json, success({ ignored_parameters_unsupported: ["away"] }))
          const settings = yield* registerState(member, ["user_settings"])
          assert.strictEqual(settings.user_settings.presence_enabled, true)
          // The text's length is checked before the target.
          assert.deepStrictEqual(
            (yield* setOther(admin, 999999, { status_text: "x".repeat(61) })).json,
            badRequest("status_text is too long (limit: 60 characters)")
          )
          assert.deepStrictEqual(
            (yield* setOther(admin, member.userId, { emoji_name: "nope_nope" })).json,
            badRequest("Emoji 'nope_nope' does not exist")
          )
        }))

      it.effect("reading a status: every role, any person; bots, unknown and deactivated users are refused", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const cordelia = yield* login("cordelia@zulip.com")
          yield* setOwn(cordelia, { status_text: "reading" })
          for (const role of ["owner", "admin", "moderator", "member", "guest", "bot"] as const) {
            const who = yield* as(role)
            const reply = yield* get(who, cordelia.userId)
            assert.deepStrictEqual(reply.json, success({ status: { status_text: "reading" } }), role)
          }
          const member = yield* as("member")
          assert.deepStrictEqual((yield* get(member, 999999)).json, badRequest("No such user"))
          const leaving = yield* login("webhook-bot@zulip.com")
          assert.deepStrictEqual((yield* get(member, leaving.userId)).json, badRequest("No such user"))
          yield* server.core(Effect.gen(function*() {
            const users = yield* Users
            yield* Effect.orDie(users.deactivate(toUserId(cordelia.userId)))
          }))
          assert.deepStrictEqual((yield* get(member, cordelia.userId)).json, badRequest("User is deactivated"))
          const admin = yield* as("admin")
          assert.deepStrictEqual(
            (yield* setOther(admin, cordelia.userId, { status_text: "x" })).json,
            badRequest("User is deactivated")
          )
          // Deactivated users leave register's user_status.
          assert.notProperty((yield* registerState(member, ["user_status"])).user_status, String(cordelia.userId))
        }))
    })
  })
