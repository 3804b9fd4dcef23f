/**
 * Presence over the wire, written once and run on every core backend: POST
 * /users/me/presence in the modern protocol (`last_update_id`, as the mobile
 * app pings) and the legacy one (email-keyed, as zulip-terminal reads it),
 * `ping_only`, `history_limit_days`, the `presence` events in both forms,
 * `presence_enabled`, GET /users/{user_id_or_email}/presence, GET
 * /realm/presence and register's `presences`, per role, on the harness's
 * manual clock. On SQL, a ping leaves the organization's cached access state
 * in place.
 *
 * The tests of a run share one server and its clock; they run in order and
 * each names the users whose rows it looks at. Expected times are the
 * clock's, in whole seconds; the demo users joined at the clock's start.
 */
import { assert, describe, layer } from "@effect/vitest"
import { userId } from "@teamchat/core/domain/Ids"
import { AccessCache } from "@teamchat/core/ports/AccessCache"
import { Users } from "@teamchat/core/services/Users"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Backend, Credentials, Role } from "./Harness.ts"
import { accounts, demoLayer, epoch, layerServer, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const badRequest = (msg: string) => ({ result: "error", msg, code: "BAD_REQUEST" })
const bare = (events: ReadonlyArray<Record<string, unknown>>) => events.map(({ id: _id, ...rest }) => rest)

const joined = epoch / 1000
const minute = 60_000

const website = (status: "active" | "idle", timestamp: number) => ({
  aggregated: { client: "website", status, timestamp },
  website: { client: "website", status, timestamp, pushable: false }
})

export const presenceContract = (backend: Backend) =>
  describe(`presence over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const login = (email: string) => Effect.flatMap(Server, (server) => server.login(email))
      const now = Effect.map(Server, (server) => server.clock.now())
      const seconds = Effect.map(now, (ms) => Math.floor(ms / 1000))
      const advance = (ms: number) => Effect.map(Server, (server) => server.clock.advance(ms))

      /** The API email (a placeholder where the user hides their address): what legacy entries are keyed by. */
      const apiEmail = (who: Credentials) =>
        Effect.flatMap(Server, (server) =>
          Effect.map(server.fetch("GET", "/api/v1/users/me", { as: who }), (reply) => reply.json.email as string))
      const ping = (who: Credentials, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/users/me/presence", { as: who, form }))
      const userPresence = (who: Credentials, key: number | string, query: Record<string, string> = {}) =>
        Effect.flatMap(Server, (server) => server.fetch("GET", `/api/v1/users/${key}/presence`, { as: who, query }))

      /** Registers and returns the queue's poll (new events since the last poll). */
      const register = (who: Credentials, form: Record<string, string>) =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("POST", "/api/v1/register", { as: who, form })
          assert.strictEqual(reply.status, 200, reply.text)
          let last = -1
          const queueId = reply.json.queue_id as string
          return Effect.gen(function*() {
            const events = (yield* server.fetch("GET", "/api/v1/events", {
              as: who,
              query: { queue_id: queueId, last_event_id: String(last), dont_block: "true" }
            })).json.events as Array<Record<string, unknown> & { id: number }>
            if (events.length > 0) last = events[events.length - 1]!.id
            return events.filter((e) => e.type !== "heartbeat")
          })
        })

      it.effect("the modern protocol: rows changed since the id the client holds", () =>
        Effect.gen(function*() {
          yield* advance(60 * minute)
          const othello = yield* login("othello@zulip.com")
          const hamlet = yield* as("member")
          const t0 = yield* seconds

          const first = yield* ping(othello, { status: "active", last_update_id: "-1", new_user_input: "true" })
          assert.strictEqual(first.status, 200, first.text)
          const id1 = first.json.presence_last_update_id as number
          assert.isAbove(id1, 0)
          assert.deepStrictEqual(first.json, success({
            presences: { [othello.userId]: { active_timestamp: t0, idle_timestamp: t0 } },
            server_timestamp: (yield* now) / 1000,
            presence_last_update_id: id1
          }))

          // An idle client that was never active: active_timestamp is when the user joined.
          const second = yield* ping(hamlet, { status: "idle", last_update_id: String(id1) })
          assert.deepStrictEqual(second.json.presences, { [hamlet.userId]: { active_timestamp: joined, idle_timestamp: t0 } })
          assert.strictEqual(second.json.presence_last_update_id, id1 + 1)

          // Within the minimum interval nothing is written: nothing new, the same id.
          const again = yield* ping(hamlet, { status: "idle", last_update_id: String(id1 + 1) })
          assert.deepStrictEqual(again.json.presences, {})
          assert.strictEqual(again.json.presence_last_update_id, id1 + 1)

          yield* advance(minute)
          const t1 = yield* seconds
          const later = yield* ping(othello, { status: "active", last_update_id: String(id1 + 1) })
          assert.deepStrictEqual(later.json.presences, { [othello.userId]: { active_timestamp: t1, idle_timestamp: t1 } })
          assert.strictEqual(later.json.presence_last_update_id, id1 + 2)

          // Everything in the window, modern because of slim_presence.
          const slim = yield* ping(hamlet, { status: "idle", slim_presence: "true" })
          assert.deepStrictEqual(slim.json.presences, {
            [othello.userId]: { active_timestamp: t1, idle_timestamp: t1 },
            [hamlet.userId]: { active_timestamp: joined, idle_timestamp: t1 }
          })
          assert.strictEqual(slim.json.presence_last_update_id, id1 + 3)

          // ping_only: the presence is recorded, no data comes back.
          const only = yield* ping(hamlet, { status: "active", ping_only: "true", last_update_id: "7" })
          assert.deepStrictEqual(only.json, success({ presence_last_update_id: 7 }))
          const without = yield* ping(othello, { status: "idle", ping_only: "true" })
          assert.deepStrictEqual(without.json, success({ presence_last_update_id: -1 }))
          const seen = yield* ping(othello, { status: "idle", last_update_id: String(id1 + 3) })
          assert.deepStrictEqual(seen.json.presences, { [hamlet.userId]: { active_timestamp: t1, idle_timestamp: t1 } })

          // history_limit_days: 0 asks for nothing; rows older than the window are left out.
          const none = yield* ping(othello, { status: "idle", history_limit_days: "0" })
          assert.deepStrictEqual(none.json.presences, {})
          assert.strictEqual(none.json.presence_last_update_id, -1)
          yield* advance(2 * 86_400_000)
          const cordelia = yield* login("cordelia@zulip.com")
          const window = yield* ping(cordelia, { status: "active", last_update_id: "-1", history_limit_days: "1" })
          assert.deepStrictEqual(Object.keys(window.json.presences), [String(cordelia.userId)])
          const wide = yield* ping(cordelia, { status: "active", last_update_id: "0", history_limit_days: "3" })
          assert.deepStrictEqual(
            Object.keys(wide.json.presences).map(Number).sort((a, b) => a - b),
            [othello.userId, cordelia.userId, hamlet.userId].sort((a, b) => a - b)
          )
          // A client holding data (an id above 0) is not limited by the window.
          const held = yield* ping(cordelia, { status: "active", last_update_id: "1", history_limit_days: "1" })
          assert.includeMembers(Object.keys(held.json.presences), [String(othello.userId), String(hamlet.userId)])
        }))

      it.effect("the legacy format, keyed by API email, as zulip-terminal reads it", () =>
        Effect.gen(function*() {
          yield* advance(60 * minute)
          const othello = yield* login("othello@zulip.com")
          const hamlet = yield* as("member")
          const t0 = yield* seconds
          yield* ping(othello, { status: "active" })
          yield* ping(hamlet, { status: "idle" })
          const reply = yield* ping(hamlet, { status: "idle" })
          assert.deepStrictEqual(reply.json.presences[yield* apiEmail(othello)], website("active", t0))
          // Hamlet was last active days ago and is connected now: idle since now.
          assert.deepStrictEqual(reply.json.presences[yield* apiEmail(hamlet)], website("idle", t0))
          assert.isNumber(reply.json.presence_last_update_id)
          assert.strictEqual(reply.json.server_timestamp, (yield* now) / 1000)

          // Register without slim_presence: the same legacy entries.
          const server = yield* Server
          const registered = yield* server.fetch("POST", "/api/v1/register", {
            as: hamlet,
            form: { fetch_event_types: JSON.stringify(["presence"]) }
          })
          assert.deepStrictEqual(registered.json.presences[yield* apiEmail(othello)], website("active", t0))
          assert.strictEqual(registered.json.presence_last_update_id, reply.json.presence_last_update_id)
          assert.strictEqual(registered.json.server_timestamp, (yield* now) / 1000)
          const slim = yield* server.fetch("POST", "/api/v1/register", {
            as: hamlet,
            form: { fetch_event_types: JSON.stringify(["presence"]), slim_presence: "true" }
          })
          assert.deepStrictEqual(slim.json.presences[othello.userId], { active_timestamp: t0, idle_timestamp: t0 })

          // GET /realm/presence: legacy, without an update id; bots may read it.
          const bot = yield* as("bot")
          const realm = yield* server.fetch("GET", "/api/v1/realm/presence", { as: bot })
          assert.strictEqual(realm.status, 200, realm.text)
          assert.deepStrictEqual(Object.keys(realm.json).sort(), ["msg", "presences", "result", "server_timestamp"])
          assert.deepStrictEqual(realm.json.presences[yield* apiEmail(othello)], website("active", t0))
        }))

      it.effect("every person pings; bots and bad statuses are refused", () =>
        Effect.gen(function*() {
          for (const role of ["owner", "admin", "moderator", "member", "guest"] as const) {
            const who = yield* as(role)
            const reply = yield* ping(who, { status: "active", last_update_id: "-1" })
            assert.strictEqual(reply.status, 200, `${role}: ${reply.text}`)
            assert.property(reply.json.presences, String(who.userId), role)
          }
          const bot = yield* as("bot")
          const refused = yield* ping(bot, { status: "active" })
          assert.strictEqual(refused.status, 400)
          assert.deepStrictEqual(refused.json, badRequest("This endpoint does not accept bot requests."))
          const member = yield* as("member")
          assert.deepStrictEqual((yield* ping(member, { status: "away" })).json, badRequest("Invalid status: away"))
          assert.deepStrictEqual((yield* ping(member, {})).json, {
            ...badRequest("Missing 'status' argument"),
            code: "REQUEST_VARIABLE_MISSING",
            var_name: "status"
          })
          assert.deepStrictEqual(
            (yield* ping(member, { status: "active", last_update_id: "1.5" })).json,
            badRequest("last_update_id is not an integer")
          )
          assert.deepStrictEqual(
            (yield* ping(member, { status: "active", ping_only: "yes" })).json,
            badRequest("ping_only is not valid JSON")
          )
          // Bots never appear: the bot's refused ping wrote nothing.
          const all = yield* ping(member, { status: "active", slim_presence: "true" })
          assert.notProperty(all.json.presences, String(bot.userId))
        }))

      it.effect("presence events: a first ping and coming back online, in the form each client asked for", () =>
        Effect.gen(function*() {
          const zoe = yield* login("ZOE@zulip.com")
          const legacy = yield* register(yield* login("cordelia@zulip.com"), { event_types: JSON.stringify(["presence"]) })
          const modern = yield* register(yield* as("admin"), {
            event_types: JSON.stringify(["presence"]),
            client_capabilities: JSON.stringify({ simplified_presence_events: true })
          })
          const t0 = yield* seconds
          yield* ping(zoe, { status: "active", last_update_id: "-1" })
          const serverTimestamp = (yield* now) / 1000
          assert.deepStrictEqual(bare(yield* legacy), [{
            type: "presence",
            email: yield* apiEmail(zoe),
            user_id: zoe.userId,
            server_timestamp: serverTimestamp,
            presence: { website: { client: "website", status: "active", timestamp: t0, pushable: false } }
          }])
          assert.deepStrictEqual(bare(yield* modern), [{
            type: "presence",
            presences: { [zoe.userId]: { active_timestamp: t0, idle_timestamp: t0 } }
          }])
          // Still online a minute later: no event.
          yield* advance(minute)
          yield* ping(zoe, { status: "active" })
          assert.deepStrictEqual(yield* legacy, [])
          // Idle pings announce nothing either (within the queues' lifespan).
          yield* advance(3 * minute)
          yield* ping(zoe, { status: "idle" })
          assert.deepStrictEqual(yield* modern, [])
          // Active again after being away: announced.
          yield* advance(minute)
          const t1 = yield* seconds
          yield* ping(zoe, { status: "active" })
          assert.deepStrictEqual(bare(yield* modern), [{
            type: "presence",
            presences: { [zoe.userId]: { active_timestamp: t1, idle_timestamp: t1 } }
          }])
          assert.strictEqual((yield* legacy).length, 1)
        }))

      it.effect("presence_enabled off: shown offline at once, pings ignored; on again: online at once", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const prospero = yield* login("prospero@zulip.com")
          const observer = yield* register(yield* as("admin"), {
            event_types: JSON.stringify(["presence"]),
            client_capabilities: JSON.stringify({ simplified_presence_events: true })
          })
          yield* ping(prospero, { status: "active" })
          yield* observer
          yield* advance(minute)
          const off = yield* server.fetch("PATCH", "/api/v1/settings", { as: prospero, form: { presence_enabled: "false" } })
          assert.deepStrictEqual(off.json, success())
          const hidden = (yield* seconds) - 260
          assert.deepStrictEqual(bare(yield* observer), [{
            type: "presence",
            presences: { [prospero.userId]: { active_timestamp: joined, idle_timestamp: hidden } }
          }])
          yield* advance(minute)
          yield* ping(prospero, { status: "active" })
          const member = yield* as("member")
          assert.deepStrictEqual((yield* userPresence(member, prospero.userId, { slim_presence: "true" })).json, success({
            presence: { active_timestamp: joined, idle_timestamp: hidden }
          }))
          assert.deepStrictEqual(yield* observer, [])
          // `away: false` through the status endpoint turns it on again.
          const t1 = yield* seconds
          assert.deepStrictEqual(
            (yield* server.fetch("POST", "/api/v1/users/me/status", { as: prospero, form: { away: "false" } })).json,
            success()
          )
          assert.deepStrictEqual(bare(yield* observer), [{
            type: "presence",
            presences: { [prospero.userId]: { active_timestamp: t1, idle_timestamp: t1 } }
          }])
        }))

      it.effect("GET /users/{user_id_or_email}/presence: any role, by id or API email", () =>
        Effect.gen(function*() {
          yield* advance(60 * minute)
          const aaron = yield* login("AARON@zulip.com")
          const t0 = yield* seconds
          yield* ping(aaron, { status: "active" })
          const legacy = success({
            presence: { aggregated: { status: "active", timestamp: t0 }, website: { status: "active", timestamp: t0 } }
          })
          for (const role of ["owner", "admin", "moderator", "member", "guest", "bot"] as const) {
            const who = yield* as(role)
            assert.deepStrictEqual((yield* userPresence(who, aaron.userId)).json, legacy, role)
          }
          const member = yield* as("member")
          assert.deepStrictEqual((yield* userPresence(member, (yield* apiEmail(aaron)).toUpperCase())).json, legacy)
          assert.deepStrictEqual(
            (yield* userPresence(member, aaron.userId, { slim_presence: "true" })).json,
            success({ presence: { active_timestamp: t0, idle_timestamp: t0 } })
          )
          // Past the offline threshold the aggregate says offline.
          yield* advance(141_000)
          assert.deepStrictEqual((yield* userPresence(member, aaron.userId)).json, success({
            presence: { aggregated: { status: "offline", timestamp: t0 }, website: { status: "active", timestamp: t0 } }
          }))
          const bot = yield* as("bot")
          assert.deepStrictEqual(
            (yield* userPresence(member, bot.userId)).json,
            badRequest("Presence is not supported for bot users.")
          )
          assert.deepStrictEqual((yield* userPresence(member, 999999)).json, badRequest("No such user"))
          assert.deepStrictEqual((yield* userPresence(member, "nobody@zulip.com")).json, badRequest("No such user"))
          // Someone who never reported presence.
          const server = yield* Server
          const newcomer = yield* server.core(Effect.gen(function*() {
            const users = yield* Users
            const me = yield* users.findById(userId(member.userId))
            return yield* Effect.orDie(users.create(me!.realm_id, { email: "newcomer@zulip.com", full_name: "Newcomer", role: 400 }))
          }))
          assert.deepStrictEqual(
            (yield* userPresence(member, newcomer.id)).json,
            badRequest(`No presence data for ${newcomer.id}`)
          )
          assert.deepStrictEqual(
            (yield* userPresence(member, newcomer.email)).json,
            badRequest(`No presence data for ${newcomer.email}`)
          )
        }))

      it.effect("register's presence_history_limit_days: presences older than the limit are left out", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const admin = yield* as("admin")
          const shiva = yield* as("moderator")
          const owner = yield* as("owner")
          const registered = (form: Record<string, string>) =>
            server.fetch("POST", "/api/v1/register", {
              as: admin,
              form: { fetch_event_types: JSON.stringify(["presence"]), ...form }
            })
          // Whatever earlier tests wrote is ten days old; shiva is three days older than the owner.
          yield* advance(10 * 86_400_000)
          const shivaAt = yield* seconds
          const shivaPing = yield* ping(shiva, { status: "active", ping_only: "true" })
          assert.strictEqual(shivaPing.status, 200, shivaPing.text)
          yield* advance(3 * 86_400_000)
          const ownerAt = yield* seconds
          const ownerPing = yield* ping(owner, { status: "active", last_update_id: "-1" })
          const newest = ownerPing.json.presence_last_update_id as number

          const body = (presences: object) => ({
            ...success({ presences, server_timestamp: ownerAt, presence_last_update_id: newest }),
            queue_id: reply.json.queue_id,
            last_event_id: -1,
            zulip_version: reply.json.zulip_version,
            zulip_feature_level: reply.json.zulip_feature_level,
            zulip_merge_base: reply.json.zulip_merge_base
          })
          let reply = yield* registered({ slim_presence: "true", presence_history_limit_days: "2" })
          assert.deepStrictEqual(reply.json, body({ [owner.userId]: { active_timestamp: ownerAt, idle_timestamp: ownerAt } }))
          reply = yield* registered({ slim_presence: "true", presence_history_limit_days: "4" })
          assert.deepStrictEqual(reply.json, body({
            [shiva.userId]: { active_timestamp: shivaAt, idle_timestamp: shivaAt },
            [owner.userId]: { active_timestamp: ownerAt, idle_timestamp: ownerAt }
          }))
          // The legacy form follows the same window.
          reply = yield* registered({ presence_history_limit_days: "2" })
          assert.deepStrictEqual(reply.json, body({ [yield* apiEmail(owner)]: website("active", ownerAt) }))
          // Without it, 14 days: the rows of ten days ago are in too.
          const all = yield* registered({ slim_presence: "true" })
          assert.includeMembers(Object.keys(all.json.presences), [String(shiva.userId), String(owner.userId)])
          assert.isAbove(Object.keys(all.json.presences).length, 2)
          // 0 days: none.
          const none = yield* registered({ slim_presence: "true", presence_history_limit_days: "0" })
          assert.deepStrictEqual([none.json.presences, none.json.presence_last_update_id], [{}, -1])

          // Zulip's parameter errors (a JSON integer).
          for (
            const [value, msg] of [
              ["two", "presence_history_limit_days is not valid JSON"],
              ["\"2\"", "presence_history_limit_days is not an integer"],
              ["1.5", "presence_history_limit_days is not an integer"],
              ["[2]", "presence_history_limit_days is not an integer"]
            ] as const
          ) {
            const refused = yield* registered({ presence_history_limit_days: value })
            assert.strictEqual(refused.status, 400, value)
            assert.deepStrictEqual(refused.json, badRequest(msg))
          }
        }))

      if (backend !== "memory") {
        it.effect("a ping leaves the organization's cached access state in place", () =>
          Effect.gen(function*() {
            const server = yield* Server
            const member = yield* as("member")
            const cached = server.core(Effect.map(Effect.serviceOption(AccessCache), (cache) => {
              const entries = Option.getOrThrow(cache).entries
              return [...entries.values()][0]
            }))
            // Register reads the organization's access state through the cache.
            const read = server.fetch("POST", "/api/v1/register", {
              as: member,
              form: { fetch_event_types: JSON.stringify(["alert_words"]) }
            })
            yield* read
            const before = yield* cached
            assert.isDefined(before)
            yield* advance(minute)
            for (const status of ["active", "idle", "active"]) {
              yield* advance(minute)
              const reply = yield* ping(member, { status, last_update_id: "-1" })
              assert.strictEqual(reply.status, 200)
            }
            yield* read
            const after = yield* cached
            assert.strictEqual(after?.version, before!.version)
            assert.strictEqual(after?.value, before!.value)
            // A write to the access state does move it (the check above can fail).
            yield* server.fetch("POST", "/api/v1/users/me/alert_words", {
              as: member,
              form: { alert_words: JSON.stringify(["presence-check"]) }
            })
            yield* read
            assert.notStrictEqual((yield* cached)?.value, before!.value)
          }))
      }
    })
  })
