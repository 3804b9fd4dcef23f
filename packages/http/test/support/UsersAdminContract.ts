/**
 * User administration over the wire, written once and run on every core
 * backend: PATCH /users/{user_id | email} (full_name, role), DELETE
 * /users/{user_id} and POST /users/{user_id}/reactivate, per role (owner,
 * admin, moderator, member, guest, bot), with Zulip's exact refusals, the
 * `realm_user` / `subscription` events they cause, and nothing written by a
 * refused request.
 *
 * Tests share one server, so each puts back what it changed.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Backend, Credentials } from "./Harness.ts"
import { expectReply as expect, listen as listenTo } from "./EventListener.ts"
import { accounts, demoLayer, layerServer, Server } from "./Harness.ts"

const success = { result: "success", msg: "" }
const error = (msg: string, code = "BAD_REQUEST") => ({ result: "error", msg, code })
const insufficient = error("Insufficient permission")
const noSuchUser = error("No such user")
const ownerRequired = error("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL")
const administratorRequired = error("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")

type Role = keyof typeof accounts
const roles = Object.keys(accounts) as ReadonlyArray<Role>

export const usersAdminContract = (backend: Backend) =>
  describe(`user administration over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      const listen = (who: Credentials, eventTypes: ReadonlyArray<string> = ["realm_user", "subscription"]) =>
        listenTo(who, eventTypes)
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const login = (email: string) => Effect.flatMap(Server, (server) => server.login(email))

      const patch = (who: Credentials, target: number | string, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("PATCH", `/api/v1/users/${target}`, { as: who, form }))
      const deactivate = (who: Credentials, target: number | string) =>
        Effect.flatMap(Server, (server) => server.fetch("DELETE", `/api/v1/users/${target}`, { as: who }))
      const reactivate = (who: Credentials, target: number | string) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", `/api/v1/users/${target}/reactivate`, { as: who }))

      /** The user as the owner sees them. */
      const user = (id: number) =>
        Effect.gen(function*() {
          const server = yield* Server
          const reply = yield* server.fetch("GET", `/api/v1/users/${id}`, { as: yield* as("owner") })
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json.user as { full_name: string; role: number; is_active: boolean; email: string }
        })

      /** A queue of `who` for these event types; the effect returned drains it. */
      it.effect("PATCH full_name: owners and administrators may; every other role is refused and nothing changes", () =>
        Effect.gen(function*() {
          const othello = yield* login("othello@zulip.com")
          const original = (yield* user(othello.userId)).full_name
          const allowed: ReadonlyArray<Role> = ["owner", "admin"]
          for (const role of roles) {
            const reply = yield* patch(yield* as(role), othello.userId, { full_name: `Othello ${role}` })
            if (allowed.includes(role)) {
              expect(reply, 200, success)
              assert.strictEqual((yield* user(othello.userId)).full_name, `Othello ${role}`, role)
            } else {
              expect(reply, 400, insufficient)
              assert.strictEqual((yield* user(othello.userId)).full_name, `Othello admin`, role)
            }
          }
          expect(yield* patch(yield* as("owner"), othello.userId, { full_name: original }), 200, success)
        }))

      it.effect("PATCH full_name: the realm_user update event, blank and unchanged names ignored, Zulip's name errors", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const cordelia = yield* login("cordelia@zulip.com")
          const original = (yield* user(cordelia.userId)).full_name
          const events = yield* listen(yield* as("member"))
          expect(yield* patch(iago, cordelia.userId, { full_name: "  Cordelia  " }), 200, success)
          assert.deepStrictEqual(yield* events, [
            { type: "realm_user", op: "update", person: { user_id: cordelia.userId, full_name: "Cordelia" } }
          ])
          // Blank and unchanged names change nothing and send nothing.
          expect(yield* patch(iago, cordelia.userId, { full_name: "   " }), 200, success)
          expect(yield* patch(iago, cordelia.userId, { full_name: "Cordelia" }), 200, success)
          assert.deepStrictEqual(yield* events, [])
          expect(yield* patch(iago, cordelia.userId, { full_name: "x".repeat(101) }), 400, error("Name too long!"))
          expect(yield* patch(iago, cordelia.userId, { full_name: "Cor*delia" }), 400, error("Invalid characters in name!"))
          expect(yield* patch(iago, cordelia.userId, { full_name: "Cordelia|12" }), 400, error("Invalid format!"))
          assert.strictEqual((yield* user(cordelia.userId)).full_name, "Cordelia")
          assert.deepStrictEqual(yield* events, [])
          expect(yield* patch(iago, cordelia.userId, { full_name: original }), 200, success)
        }))

      it.effect("PATCH role: administrators below owner, owners for the owner role, the last owner, guests never administrators", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const iago = yield* as("admin")
          const othello = yield* login("othello@zulip.com")
          const polonius = yield* as("guest")
          const events = yield* listen(yield* as("member"))

          // Below the owner role, administrators decide; others are refused first by access.
          for (const role of ["moderator", "member", "guest", "bot"] as const) {
            expect(yield* patch(yield* as(role), othello.userId, { role: "300" }), 400, insufficient)
          }
          expect(yield* patch(iago, othello.userId, { role: "300" }), 200, success)
          assert.strictEqual((yield* user(othello.userId)).role, 300)
          assert.deepStrictEqual(yield* events, [
            { type: "realm_user", op: "update", person: { user_id: othello.userId, role: 300 } }
          ])
          // The same role again is no change and no event.
          expect(yield* patch(iago, othello.userId, { role: "300" }), 200, success)
          assert.deepStrictEqual(yield* events, [])

          // Granting or removing the owner role takes an owner.
          expect(yield* patch(iago, othello.userId, { role: "100" }), 400, ownerRequired)
          expect(yield* patch(iago, owner.userId, { role: "200" }), 400, ownerRequired)
          // The only owner keeps the role.
          expect(
            yield* patch(owner, owner.userId, { role: "400" }),
            400,
            error("The owner permission cannot be removed from the only organization owner.")
          )
          // With a second owner, the first may step down, and back.
          expect(yield* patch(owner, othello.userId, { role: "100" }), 200, success)
          expect(yield* patch(othello, owner.userId, { role: "200" }), 200, success)
          expect(yield* patch(othello, owner.userId, { role: "100" }), 200, success)
          expect(yield* patch(owner, othello.userId, { role: "400" }), 200, success)
          assert.deepStrictEqual((yield* events).map((e) => e.person), [
            { user_id: othello.userId, role: 100 },
            { user_id: owner.userId, role: 200 },
            { user_id: owner.userId, role: 100 },
            { user_id: othello.userId, role: 400 }
          ])

          // The spec's refusal: a guest is not made an administrator (nor an owner).
          expect(yield* patch(owner, polonius.userId, { role: "200" }), 400, error("Guests cannot be organization administrators"))
          expect(yield* patch(owner, polonius.userId, { role: "100" }), 400, error("Guests cannot be organization administrators"))
          assert.strictEqual((yield* user(polonius.userId)).role, 600)
          assert.deepStrictEqual(yield* events, [])
        }))

      it.effect("PATCH role: bad codes are Zulip's parameter errors; a refused part writes nothing", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const othello = yield* login("othello@zulip.com")
          const before = yield* user(othello.userId)
          expect(yield* patch(iago, othello.userId, { role: "500" }), 400, error("Invalid role"))
          expect(yield* patch(iago, othello.userId, { role: "\"400\"" }), 400, error("role is not an integer"))
          expect(yield* patch(iago, othello.userId, { role: "moderator" }), 400, error("role is not valid JSON"))
          // A valid role with an invalid name: neither is written.
          expect(yield* patch(iago, othello.userId, { role: "300", full_name: "a@b" }), 400, error("Invalid characters in name!"))
          assert.deepStrictEqual(yield* user(othello.userId), before)
        }))

      it.effect("PATCH: a bot's owner may rename it but not change its role; by address, real or placeholder", () =>
        Effect.gen(function*() {
          const zoe = yield* login("ZOE@zulip.com")
          const bot = yield* login("webhook-bot@zulip.com")
          const original = (yield* user(bot.userId)).full_name
          expect(yield* patch(zoe, bot.userId, { full_name: "Zoe's hook" }), 200, success)
          expect(yield* patch(zoe, bot.userId, { role: "200" }), 400, administratorRequired)
          // Bots' addresses are public, so their owner may name them by it.
          expect(yield* patch(zoe, "webhook-bot@zulip.com", { full_name: original }), 200, success)
          assert.strictEqual((yield* user(bot.userId)).full_name, original)

          // Real addresses work for viewers allowed to see them (administrators
          // here), placeholders for everyone; anything else is no user.
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const placeholder = (yield* user(hamlet.userId)).email
          const hamletName = (yield* user(hamlet.userId)).full_name
          expect(yield* patch(iago, "hamlet@zulip.com", { full_name: "Hamlet by address" }), 200, success)
          expect(yield* patch(iago, placeholder, { full_name: hamletName }), 200, success)
          assert.strictEqual((yield* user(hamlet.userId)).full_name, hamletName)
          expect(yield* patch(iago, "nobody@zulip.com", { full_name: "x" }), 400, noSuchUser)
          expect(yield* patch(iago, 99999, { full_name: "x" }), 400, noSuchUser)
          // A member cannot see real addresses, so one names nobody for them.
          expect(yield* patch(yield* login("cordelia@zulip.com"), "hamlet@zulip.com", { full_name: "x" }), 400, noSuchUser)
          expect(yield* patch(yield* login("cordelia@zulip.com"), placeholder, { full_name: "x" }), 400, insufficient)
        }))

      it.effect("DELETE and reactivate: administrators only, with Zulip's refusals in Zulip's order", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const iago = yield* as("admin")
          const prospero = yield* login("prospero@zulip.com")
          for (const role of ["moderator", "member", "guest", "bot"] as const) {
            expect(yield* deactivate(yield* as(role), prospero.userId), 400, insufficient)
          }
          assert.isTrue((yield* user(prospero.userId)).is_active)
          expect(yield* deactivate(iago, owner.userId), 400, ownerRequired)
          expect(yield* deactivate(owner, owner.userId), 400, error("Cannot deactivate the only organization owner"))
          // DELETE /users/{id} is for people; bots have their own endpoint.
          expect(yield* deactivate(iago, (yield* as("bot")).userId), 400, noSuchUser)
          expect(yield* deactivate(iago, 99999), 400, noSuchUser)
          expect(yield* deactivate(iago, "abc"), 404, { result: "error", msg: "Not Found", code: "BAD_REQUEST" })

          expect(yield* deactivate(iago, prospero.userId), 200, success)
          assert.isFalse((yield* user(prospero.userId)).is_active)
          expect(yield* deactivate(iago, prospero.userId), 400, error("User is deactivated"))
          // Their key no longer works.
          const server = yield* Server
          expect(
            yield* server.fetch("GET", "/api/v1/users/me", { as: prospero }),
            401,
            error("Account is deactivated", "USER_DEACTIVATED")
          )

          for (const role of ["moderator", "member", "guest", "bot"] as const) {
            expect(yield* reactivate(yield* as(role), prospero.userId), 400, insufficient)
          }
          assert.isFalse((yield* user(prospero.userId)).is_active)
          expect(yield* reactivate(iago, prospero.userId), 200, success)
          assert.isTrue((yield* user(prospero.userId)).is_active)
          expect(yield* reactivate(iago, prospero.userId), 400, error("User is already active"))
          expect(yield* reactivate(iago, 99999), 400, noSuchUser)
          assert.strictEqual((yield* server.fetch("GET", "/api/v1/users/me", { as: prospero })).status, 200)
        }))

      it.effect("DELETE: peer_remove for the user's channels, then is_active false; their bots go with them; reactivation", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const aaron = yield* login("AARON@zulip.com")
          const bot = yield* login("outgoing-webhook@zulip.com")
          const server = yield* Server
          const subscribed = (yield* server.fetch("GET", "/api/v1/users/me/subscriptions", { as: aaron })).json
            .subscriptions.map((s: { stream_id: number }) => s.stream_id) as Array<number>
          assert.isAbove(subscribed.length, 0)
          const events = yield* listen(owner)

          expect(yield* deactivate(owner, aaron.userId), 200, success)
          const deactivation = yield* events
          const peerRemoved = deactivation.filter((e) => e.type === "subscription")
          assert.deepStrictEqual(
            peerRemoved.flatMap((e) => e.stream_ids as Array<number>).sort((a, b) => a - b),
            [...subscribed].sort((a, b) => a - b)
          )
          for (const e of peerRemoved) assert.deepStrictEqual(e, { type: "subscription", op: "peer_remove", stream_ids: e.stream_ids, user_ids: [aaron.userId] })
          assert.deepStrictEqual(deactivation.filter((e) => e.type === "realm_user"), [
            { type: "realm_user", op: "update", person: { user_id: aaron.userId, is_active: false } },
            { type: "realm_user", op: "update", person: { user_id: bot.userId, is_active: false } }
          ])
          assert.isFalse((yield* user(bot.userId)).is_active)

          // Reactivating the owner leaves the bot deactivated, as Zulip does.
          expect(yield* reactivate(owner, aaron.userId), 200, success)
          const reactivation = yield* events
          assert.deepStrictEqual(reactivation[0], { type: "realm_user", op: "update", person: { user_id: aaron.userId, is_active: true } })
          assert.deepStrictEqual(
            reactivation.slice(1).flatMap((e) => e.op === "peer_add" ? e.stream_ids as Array<number> : []).sort((a, b) => a - b),
            [...subscribed].sort((a, b) => a - b)
          )
          assert.isFalse((yield* user(bot.userId)).is_active)
          expect(yield* reactivate(owner, bot.userId), 200, success)
          assert.isTrue((yield* user(bot.userId)).is_active)
        }))
    })
  })
