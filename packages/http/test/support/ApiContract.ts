/**
 * The users, streams and authentication endpoints over the wire, written once
 * and run on every core backend (memory, PGlite, PostgreSQL). Each run seeds
 * the demo organization into a fresh database and serves it through
 * `makeWebHandler`.
 *
 * Expected bodies are written out by hand where the shape is the point
 * (GET /users/me, GET /users/{id}, fetch_api_key), and otherwise compared with
 * what the core returns for the same caller: the adapter must add Zulip's
 * envelope and nothing else. Every role of the demo organization is covered.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Errors from "@teamchat/core/errors/Errors"
import type { ListChannelsOptions } from "@teamchat/core/services/Channels"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import type { Backend, Role } from "./Harness.ts"
import { accounts, demoLayer, demoPassword, epochIso, layerServer, realmUrl, Server } from "./Harness.ts"
import { bots, channelRow, demoIds, listedBy, people, userRow } from "./events/registerBodies.ts"

const gravatar = (email: string) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(email.toLowerCase()).digest("hex")}?d=identicon&version=1`

const roles = Object.keys(accounts) as ReadonlyArray<Role>

const userKeys = [
  "email",
  "user_id",
  "avatar_version",
  "is_admin",
  "is_owner",
  "is_guest",
  "is_bot",
  "role",
  "timezone",
  "is_active",
  "date_joined",
  "delivery_email",
  "avatar_url",
  "full_name",
  "bot_type"
]
const botKeys = [...userKeys, "bot_owner_id"]

const ownUserKeys = [
  "result",
  "msg",
  "avatar_url",
  "avatar_version",
  "email",
  "full_name",
  "is_admin",
  "is_owner",
  "role",
  "is_guest",
  "is_bot",
  "is_active",
  "timezone",
  "date_joined",
  "max_message_id",
  "user_id",
  "delivery_email"
]

const channelKeys = [
  "stream_id",
  "name",
  "is_archived",
  "description",
  "rendered_description",
  "date_created",
  "creator_id",
  "invite_only",
  "is_web_public",
  "stream_post_policy",
  "is_announcement_only",
  "message_retention_days",
  "history_public_to_subscribers",
  "topics_policy",
  "first_message_id",
  "folder_id",
  "is_recently_active",
  "can_add_subscribers_group",
  "can_remove_subscribers_group",
  "can_administer_channel_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_move_messages_out_of_channel_group",
  "can_move_messages_within_channel_group",
  "can_send_message_group",
  "can_subscribe_group",
  "can_resolve_topics_group",
  "subscriber_count",
  "stream_weekly_traffic"
]

const success = <A extends object>(data: A) => ({ result: "success", msg: "", ...data })

/** A user row without custom profile data (only GET /users?include_custom_profile_fields asks for it). */
const withoutProfile = (row: object) => {
  const { profile_data: _profile, ...rest } = row as { profile_data?: unknown }
  return rest
}

export const apiContract = (backend: Backend) =>
  describe(`HTTP API on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "90 seconds" })((it) => {
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))

      it.effect("POST /fetch_api_key with a multipart body returns the key, the email and the user id", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const iago = yield* server.login(accounts.admin)
          const reply = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
            multipart: { username: "IAGO@zulip.com", password: demoPassword }
          })
          assert.strictEqual(reply.status, 200)
          assert.strictEqual(reply.headers.get("content-type"), "application/json")
          assert.deepStrictEqual(reply.json, success({ api_key: iago.apiKey, email: "iago@zulip.com", user_id: iago.userId }))
          assert.deepStrictEqual(Object.keys(reply.json), ["result", "msg", "api_key", "email", "user_id"])
        }))

      it.effect("POST /fetch_api_key failures come from the core", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const wrong = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
            form: { username: "iago@zulip.com", password: "not it" }
          })
          assert.strictEqual(wrong.status, 401)
          assert.deepStrictEqual(wrong.json, {
            result: "error",
            msg: "Your username or password is incorrect",
            code: "AUTHENTICATION_FAILED"
          })
          const missing = yield* server.fetch("POST", "/api/v1/fetch_api_key", { form: { username: "iago@zulip.com" } })
          assert.strictEqual(missing.status, 400)
          assert.deepStrictEqual(missing.json, {
            result: "error",
            msg: "Missing 'password' argument",
            code: "REQUEST_VARIABLE_MISSING",
            var_name: "password"
          })
          const notEmail = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
            form: { username: "iago", password: demoPassword }
          })
          assert.strictEqual(notEmail.status, 400)
          assert.deepStrictEqual(notEmail.json, new Errors.InvalidEmailAddress().wire)
        }))

      it.effect("POST /dev_fetch_api_key reads the username from the query string of a body-less POST", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* server.login(accounts.member)
          const reply = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
            query: { username: accounts.member }
          })
          assert.strictEqual(reply.status, 200)
          assert.deepStrictEqual(
            reply.json,
            success({ api_key: hamlet.apiKey, email: "hamlet@zulip.com", user_id: hamlet.userId })
          )
          const unknown = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
            query: { username: "nobody@zulip.com" }
          })
          assert.strictEqual(unknown.status, 401)
          assert.deepStrictEqual(unknown.json, new Errors.AuthenticationFailed().wire)
        }))

      it.effect("GET /dev_list_users lists the people of the organization", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("GET", "/api/v1/dev_list_users")
          assert.strictEqual(reply.status, 200)
          const admins = reply.json.direct_admins.map((u: { email: string }) => u.email)
          assert.deepStrictEqual(admins, ["desdemona@zulip.com", "iago@zulip.com"])
          assert.isTrue(reply.json.direct_users.some((u: { email: string }) => u.email === "hamlet@zulip.com"))
          assert.deepStrictEqual(reply.json.direct_users[0], { email: "AARON@zulip.com", realm_url: realmUrl })
        }))

      it.effect("GET /users/me, written out for a member", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const hamlet = yield* as("member")
          const reply = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
          assert.strictEqual(reply.status, 200)
          assert.deepStrictEqual(reply.json, {
            result: "success",
            msg: "",
            avatar_url: gravatar("hamlet@zulip.com"),
            avatar_version: 1,
            email: `user${hamlet.userId}@zulipdev.com`,
            full_name: "King Hamlet",
            is_admin: false,
            is_owner: false,
            role: 400,
            is_guest: false,
            is_bot: false,
            is_active: true,
            timezone: "",
            date_joined: epochIso,
            max_message_id: -1,
            user_id: hamlet.userId,
            delivery_email: "hamlet@zulip.com",
            profile_data: {}
          })
          assert.deepStrictEqual(Object.keys(reply.json), [...ownUserKeys, "profile_data"])
        }))

      it.effect("GET /users/me for every role, written out", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const ids = yield* demoIds
          for (const role of roles) {
            const credentials = yield* as(role)
            const reply = yield* server.fetch("GET", "/api/v1/users/me", { as: credentials })
            assert.strictEqual(reply.status, 200, role)
            // The own-user view: its real address, the avatar always as a URL, and no bot fields.
            const { bot_type: _type, bot_owner_id: _owner, profile_data, ...row } = userRow(ids, role, accounts[role]) as any
            assert.deepStrictEqual(reply.json, success({
              ...row,
              max_message_id: -1,
              ...(role === "bot" ? {} : { profile_data })
            }), role)
            assert.deepStrictEqual(
              Object.keys(reply.json),
              role === "bot" ? ownUserKeys : [...ownUserKeys, "profile_data"],
              role
            )
          }
        }))

      it.effect("GET /users for every role, written out", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const ids = yield* demoIds
          for (const role of roles) {
            const credentials = yield* as(role)
            const reply = yield* server.fetch("GET", "/api/v1/users", { as: credentials })
            assert.strictEqual(reply.status, 200, role)
            // client_gravatar is on by default, profile_data only when asked for.
            const members = [...people, ...bots].map((p) => withoutProfile(userRow(ids, role, p.email, true)))
            assert.deepStrictEqual(reply.json, success({ members }), role)
            assert.deepStrictEqual(Object.keys(reply.json), ["result", "msg", "members"])
            for (const member of reply.json.members) {
              assert.deepStrictEqual(Object.keys(member), member.is_bot ? botKeys : userKeys, role)
            }
          }
        }))

      it.effect("GET /users shows real addresses to administrators only", () =>
        Effect.gen(function*() {
          const server = yield* Server
          for (const role of roles) {
            const viewer = yield* as(role)
            const reply = yield* server.fetch("GET", "/api/v1/users", { as: viewer })
            const othello = reply.json.members.find((m: any) => m.full_name === "Othello, the Moor of Venice")
            const expected = role === "owner" || role === "admin" ? "othello@zulip.com" : null
            assert.strictEqual(othello.delivery_email, expected, role)
            // Everyone sees their own address.
            const self = reply.json.members.find((m: any) => m.user_id === viewer.userId)
            assert.strictEqual(self.delivery_email, accounts[role], role)
            const bot = reply.json.members.find((m: any) => m.email === "default-bot@zulip.com")
            assert.strictEqual(bot.delivery_email, "default-bot@zulip.com", role)
            assert.strictEqual(bot.bot_type, 1, role)
          }
        }))

      it.effect("GET /users with user_ids, client_gravatar and include_custom_profile_fields", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const reply = yield* server.fetch("GET", "/api/v1/users", {
            as: iago,
            query: {
              user_ids: JSON.stringify([hamlet.userId, iago.userId]),
              client_gravatar: "false",
              include_custom_profile_fields: "true"
            }
          })
          assert.strictEqual(reply.status, 200)
          const ids = yield* demoIds
          assert.deepStrictEqual(reply.json, success({
            members: [userRow(ids, "admin", "hamlet@zulip.com"), userRow(ids, "admin", "iago@zulip.com")]
          }))
          assert.deepStrictEqual(reply.json.members.map((m: any) => m.user_id), [hamlet.userId, iago.userId])
          assert.strictEqual(reply.json.members[0].avatar_url, gravatar("hamlet@zulip.com"))
          assert.deepStrictEqual(reply.json.members[0].profile_data, {})
          const unknown = yield* server.fetch("GET", "/api/v1/users", { as: iago, query: { user_ids: "[999999]" } })
          assert.strictEqual(unknown.status, 400)
          assert.deepStrictEqual(unknown.json, new Errors.InvalidUserId({ user_id: 999999 }).wire)
        }))

      it.effect("GET /users/{user_id}, written out for a member and for the owner", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const iago = yield* as("admin")
          const iagoAs = (viewer: { delivery_email: string | null; avatar_url: string | null }) => ({
            result: "success",
            msg: "",
            user: {
              email: `user${iago.userId}@zulipdev.com`,
              user_id: iago.userId,
              avatar_version: 1,
              is_admin: true,
              is_owner: false,
              is_guest: false,
              is_bot: false,
              role: 200,
              timezone: "US/Eastern",
              is_active: true,
              date_joined: epochIso,
              ...viewer,
              full_name: "Iago",
              bot_type: null
            }
          })
          const byMember = yield* server.fetch("GET", `/api/v1/users/${iago.userId}`, { as: yield* as("member") })
          assert.strictEqual(byMember.status, 200)
          assert.deepStrictEqual(byMember.json, iagoAs({ delivery_email: null, avatar_url: gravatar("iago@zulip.com") }))
          assert.deepStrictEqual(Object.keys(byMember.json.user), userKeys)
          // The owner may see the address, so with client_gravatar (the default) the URL is left to the client.
          const byOwner = yield* server.fetch("GET", `/api/v1/users/${iago.userId}`, { as: yield* as("owner") })
          assert.deepStrictEqual(byOwner.json, iagoAs({ delivery_email: "iago@zulip.com", avatar_url: null }))
        }))

      it.effect("GET /users/{user_id} and /users/{email} for every role, real and placeholder addresses", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const ids = yield* demoIds
          for (const role of roles) {
            const viewer = yield* as(role)
            for (const target of roles) {
              const subject = yield* as(target)
              // One user: client_gravatar on by default, no profile_data unless asked for.
              const expected = withoutProfile(userRow(ids, role, accounts[target], true))
              const byId = yield* server.fetch("GET", `/api/v1/users/${subject.userId}`, { as: viewer })
              assert.strictEqual(byId.status, 200, `${role} → ${target}`)
              assert.deepStrictEqual(byId.json, success({ user: expected }), `${role} → ${target}`)
              const placeholder = yield* server.fetch(
                "GET",
                `/api/v1/users/user${subject.userId}@zulipdev.com`,
                { as: viewer }
              )
              assert.deepStrictEqual(placeholder.json, byId.json, `${role} → ${target} by placeholder`)
              const byEmail = yield* server.fetch("GET", `/api/v1/users/${encodeURIComponent(accounts[target])}`, {
                as: viewer
              })
              const emailVisible = role === "owner" || role === "admin" || role === target || target === "bot"
              if (emailVisible) {
                assert.deepStrictEqual(byEmail.json, byId.json, `${role} → ${target} by email`)
              } else {
                assert.strictEqual(byEmail.status, 400, `${role} → ${target} by email`)
                assert.deepStrictEqual(byEmail.json, new Errors.NoSuchUser().wire)
              }
            }
          }
        }))

      it.effect("GET /users/{user_id} of nobody is 'No such user'", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("GET", "/api/v1/users/424242", { as: yield* as("member") })
          assert.strictEqual(reply.status, 400)
          assert.deepStrictEqual(reply.json, { result: "error", msg: "No such user", code: "BAD_REQUEST" })
        }))

      it.effect("GET /streams for every role, written out", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const ids = yield* demoIds
          for (const role of roles) {
            const credentials = yield* as(role)
            const reply = yield* server.fetch("GET", "/api/v1/streams", { as: credentials })
            assert.strictEqual(reply.status, 200, role)
            assert.deepStrictEqual(reply.json, success({ streams: listedBy(role).map((name) => channelRow(ids, name)) }), role)
            for (const stream of reply.json.streams) assert.deepStrictEqual(Object.keys(stream), channelKeys, role)
          }
        }))

      it.effect("GET /streams: what each role sees", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const names = (reply: { json: any }) => reply.json.streams.map((s: { name: string }) => s.name)
          const publicChannels = ["Denmark", "Rome", "Scotland", "Venice", "Verona", "sandbox"]
          const admin = yield* server.fetch("GET", "/api/v1/streams", { as: yield* as("admin") })
          assert.isFalse(names(admin).includes("core team"))
          const adminAll = yield* server.fetch("GET", "/api/v1/streams", {
            as: yield* as("admin"),
            query: { include_all: "true" }
          })
          assert.deepStrictEqual(names(adminAll), ["Denmark", "Rome", "Scotland", "Venice", "Verona", "core team", "sandbox"])
          const member = yield* server.fetch("GET", "/api/v1/streams", { as: yield* as("member") })
          assert.deepStrictEqual(names(member).filter((n: string) => publicChannels.includes(n)), publicChannels)
          // Guests list only what they are subscribed to.
          const guest = yield* as("guest")
          const guestReply = yield* server.fetch("GET", "/api/v1/streams", { as: guest })
          assert.deepStrictEqual(names(guestReply), ["Denmark", "Rome", "Scotland", "Venice", "Verona"])
          // The deprecated alias include_all_active behaves like include_all.
          const alias = yield* server.fetch("GET", "/api/v1/streams", {
            as: yield* as("admin"),
            query: { include_all_active: "true" }
          })
          assert.deepStrictEqual(alias.json, adminAll.json)
        }))

      it.effect("GET /streams with every flag", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const ids = yield* demoIds
          const bot = yield* as("bot")
          const flags: ListChannelsOptions = {
            include_public: false,
            include_web_public: true,
            include_subscribed: false,
            exclude_archived: false,
            include_all: false,
            include_default: true,
            include_owner_subscribed: true,
            include_can_access_content: true
          }
          const query = Object.fromEntries(Object.entries(flags).map(([k, v]) => [k, JSON.stringify(v)]))
          const reply = yield* server.fetch("GET", "/api/v1/streams", { as: bot, query })
          assert.strictEqual(reply.status, 200)
          assert.isUndefined(reply.json.ignored_parameters_unsupported)
          // No public listing, but the web-public channel, those the bot's owner is in, and all the bot may read.
          const listed = ["Denmark", "Rome", "Scotland", "Venice", "Verona", "sandbox"]
          assert.deepStrictEqual(
            reply.json,
            success({ streams: listed.map((name) => ({ ...channelRow(ids, name), is_default: false })) })
          )
          for (const stream of reply.json.streams) {
            assert.deepStrictEqual(Object.keys(stream), [...channelKeys, "is_default"])
          }
          const webPublic = yield* server.fetch("GET", "/api/v1/streams", {
            as: bot,
            query: { include_public: "false", include_subscribed: "false", include_web_public: "true" }
          })
          assert.deepStrictEqual(webPublic.json.streams.map((s: { name: string }) => s.name), ["Rome"])
        }))

      it.effect("GET /streams describes a channel the way Zulip does", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("GET", "/api/v1/streams", {
            as: yield* as("member"),
            query: { include_web_public: "true" }
          })
          const rome = reply.json.streams.find((s: { name: string }) => s.name === "Rome")
          const { can_add_subscribers_group: _1, can_remove_subscribers_group: _2, can_administer_channel_group: _3,
            can_delete_any_message_group: _4, can_delete_own_message_group: _5, can_move_messages_out_of_channel_group: _6,
            can_move_messages_within_channel_group: _7, can_send_message_group: _8, can_subscribe_group: _9,
            can_resolve_topics_group: _10, stream_id, subscriber_count, ...rest } = rome
          assert.isNumber(stream_id)
          assert.isNumber(subscriber_count)
          assert.deepStrictEqual(rest, {
            name: "Rome",
            is_archived: false,
            description: "Yet another Italian city",
            rendered_description: "<p>Yet another Italian city</p>",
            date_created: Math.floor(Date.parse(epochIso.replace(".000000+00:00", "Z")) / 1000),
            creator_id: null,
            invite_only: false,
            is_web_public: true,
            stream_post_policy: 1,
            is_announcement_only: false,
            message_retention_days: null,
            history_public_to_subscribers: true,
            topics_policy: "inherit",
            first_message_id: null,
            folder_id: null,
            is_recently_active: true,
            stream_weekly_traffic: null
          })
        }))
    })
  })
