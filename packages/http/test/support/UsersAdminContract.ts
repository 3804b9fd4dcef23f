/**
 * User administration over the wire, written once and run on every core
 * backend: PATCH /users/{user_id | email} (full_name, role, new_email), DELETE
 * /users/{user_id}, POST /users/{user_id}/reactivate and DELETE /users/me
 * (deactivating oneself), per role (owner,
 * admin, moderator, member, guest, bot), with Zulip's exact refusals, the
 * `realm_user` / `subscription` events they cause, and nothing written by a
 * refused request.
 *
 * Tests share one server, so each puts back what it changed.
 */
import { assert, describe, layer } from "@effect/vitest"
import { userId } from "@teamchat/core/domain/Ids"
import { AuditLogRepo } from "@teamchat/core/ports/AuditLogRepo"
import { RealmRepo } from "@teamchat/core/ports/Repositories"
import { Users } from "@teamchat/core/services/Users"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import type { Backend, Credentials } from "./Harness.ts"
import { expectReply as expect, listen as listenTo } from "./EventListener.ts"
import { accounts, demoLayer, layerServer, realmUrl, Server } from "./Harness.ts"

const success = { result: "success", msg: "" }
const error = (msg: string, code = "BAD_REQUEST") => ({ result: "error", msg, code })
const insufficient = error("Insufficient permission")
const noSuchUser = error("No such user")
const ownerRequired = error("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL")
const administratorRequired = error("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")
const notAuthorizedForEmails = error("User not authorized to change user emails")

/** The gravatar URLs of an address, as Zulip computes them. */
const gravatar = (email: string, version: number) => {
  const hash = createHash("md5").update(email.toLowerCase()).digest("hex")
  return {
    avatar_url: `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${version}`,
    avatar_url_medium: `https://secure.gravatar.com/avatar/${hash}?d=identicon&s=500&version=${version}`
  }
}

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
          return reply.json.user as { full_name: string; role: number; is_active: boolean; email: string; avatar_version: number }
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

      /** Grants (or takes away) the operator's can_change_user_emails permission, as the CLI does. */
      const allowEmailChanges = (who: { readonly userId: number }, value: boolean) =>
        Effect.flatMap(Server, (server) =>
          server.core(Effect.gen(function*() {
            return yield* (yield* Users).setCanChangeUserEmails(userId(who.userId), value)
          }).pipe(Effect.orDie)))

      it.effect("PATCH new_email: administrators with can_change_user_emails only, after the access check", () =>
        Effect.gen(function*() {
          const prospero = yield* login("prospero@zulip.com")
          const before = yield* user(prospero.userId)
          const form = { new_email: "prospero.renamed@zulip.com" }
          // Without the permission: administrators are refused for it, the rest by access first.
          for (const role of roles) {
            const reply = yield* patch(yield* as(role), prospero.userId, form)
            expect(reply, 400, role === "owner" || role === "admin" ? notAuthorizedForEmails : insufficient)
          }
          // The permission without an administrator's role is not enough: a
          // moderator still cannot administer people, a bot's owner may rename
          // the bot but not change its address.
          const shiva = yield* as("moderator")
          const zoe = yield* login("ZOE@zulip.com")
          const bot = yield* login("webhook-bot@zulip.com")
          yield* allowEmailChanges(shiva, true)
          yield* allowEmailChanges(zoe, true)
          expect(yield* patch(shiva, prospero.userId, form), 400, insufficient)
          expect(yield* patch(zoe, bot.userId, { new_email: "hook@zulip.com" }), 400, notAuthorizedForEmails)
          // The refusal comes before any other part is looked at.
          expect(yield* patch(zoe, bot.userId, { full_name: "x@y", new_email: "hook@zulip.com" }), 400, notAuthorizedForEmails)
          yield* allowEmailChanges(shiva, false)
          yield* allowEmailChanges(zoe, false)
          assert.deepStrictEqual(yield* user(prospero.userId), before)
          assert.strictEqual((yield* user(bot.userId)).email, "webhook-bot@zulip.com")
        }))

      it.effect("PATCH new_email: Zulip's refusals for bad, taken and deactivated addresses; the same address is no change", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const prospero = yield* login("prospero@zulip.com")
          const before = yield* user(prospero.userId)
          const events = yield* listen(yield* as("owner"))
          yield* allowEmailChanges(iago, true)
          for (const bad of ["", "prospero", "prospero@", "@zulip.com", "pro spero@zulip.com", "prospero@zulip", "a@b@zulip.com"]) {
            expect(yield* patch(iago, prospero.userId, { new_email: bad }), 400, error("Invalid new email address."))
          }
          // Another account's address, compared without case, and the user's own with another case.
          for (const taken of ["hamlet@zulip.com", "HAMLET@zulip.com", "webhook-bot@zulip.com", "Prospero@zulip.com"]) {
            expect(yield* patch(iago, prospero.userId, { new_email: taken }), 400, error("New email value error: Already has an account."))
          }
          // The system bots' addresses, in any case, whether or not the organization has the bot yet.
          for (const reserved of ["notification-bot@zulip.com", "Welcome-Bot@zulip.com", "emailgateway@zulip.com"]) {
            expect(yield* patch(iago, prospero.userId, { new_email: reserved }), 400, error("New email value error: Reserved for system bots."))
          }
          // A deactivated account keeps its address.
          const server = yield* Server
          const gone = yield* server.core(Effect.gen(function*() {
            const realm = (yield* (yield* RealmRepo).list).find((r) => r.url === realmUrl)!
            const users = yield* Users
            const made = yield* users.create(realm.id, { email: "gone@zulip.com", full_name: "Gone", role: 400 })
            yield* users.deactivate(made.id)
            return made
          }).pipe(Effect.orDie))
          yield* events
          expect(
            yield* patch(iago, prospero.userId, { new_email: "Gone@zulip.com" }),
            400,
            error("New email value error: Account has been deactivated.")
          )
          // The user's own address, exactly: nothing to do, nothing sent.
          expect(yield* patch(iago, prospero.userId, { new_email: "prospero@zulip.com" }), 200, success)
          // A refused address writes nothing of the request's other parts either.
          expect(yield* patch(iago, prospero.userId, { role: "300", full_name: "Prospero II", new_email: "nope" }), 400, error("Invalid new email address."))
          // Zulip checks the role before the address.
          expect(yield* patch(iago, prospero.userId, { role: "100", new_email: "nope" }), 400, ownerRequired)
          assert.deepStrictEqual(yield* user(prospero.userId), before)
          assert.deepStrictEqual(yield* events, [])
          // The deactivated account's own address is no change for it either.
          expect(yield* patch(iago, gone.id, { new_email: "gone@zulip.com" }), 200, success)
          yield* allowEmailChanges(iago, false)
        }))

      it.effect("PATCH new_email: the address moves, logins follow it, and the events go to who may see what", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const owner = yield* as("owner")
          const iago = yield* as("admin")
          const prospero = yield* login("prospero@zulip.com")
          const before = yield* user(prospero.userId)
          const ownerEvents = yield* listen(owner)
          const memberEvents = yield* listen(yield* as("member"))
          yield* allowEmailChanges(iago, true)

          expect(yield* patch(iago, prospero.userId, { new_email: "Prospero.Duke@zulip.com" }), 200, success)
          const avatar = {
            type: "realm_user",
            op: "update",
            person: {
              user_id: prospero.userId,
              avatar_source: "G",
              ...gravatar("Prospero.Duke@zulip.com", before.avatar_version),
              avatar_version: before.avatar_version
            }
          }
          // The demo shows real addresses to administrators: they learn the new
          // one; everyone sees the avatar (derived from the address) change; the
          // API email is a placeholder, so no new_email.
          assert.deepStrictEqual(yield* ownerEvents, [
            { type: "realm_user", op: "update", person: { user_id: prospero.userId, delivery_email: "Prospero.Duke@zulip.com" } },
            avatar
          ])
          assert.deepStrictEqual(yield* memberEvents, [avatar])

          // The user is found by the new address, no longer by the old one.
          const found = yield* server.fetch("GET", "/api/v1/users/prospero.duke@zulip.com", { as: owner })
          assert.strictEqual(found.status, 200, found.text)
          assert.deepStrictEqual(
            [found.json.user.user_id, found.json.user.email, found.json.user.delivery_email],
            [prospero.userId, before.email, "Prospero.Duke@zulip.com"]
          )
          expect(yield* server.fetch("GET", "/api/v1/users/prospero@zulip.com", { as: owner }), 400, noSuchUser)

          // Password logins and HTTP Basic follow the address.
          expect(
            yield* server.fetch("POST", "/api/v1/fetch_api_key", { form: { username: "prospero@zulip.com", password: "teamchat-demo" } }),
            401,
            error("Your username or password is incorrect", "AUTHENTICATION_FAILED")
          )
          expect(
            yield* server.fetch("POST", "/api/v1/fetch_api_key", { form: { username: "prospero.duke@zulip.com", password: "teamchat-demo" } }),
            200,
            { ...success, api_key: prospero.apiKey, email: "Prospero.Duke@zulip.com", user_id: prospero.userId }
          )
          expect(
            yield* server.fetch("GET", "/api/v1/users/me", { as: prospero }),
            401,
            error("Invalid API key", "INVALID_API_KEY")
          )
          const me = yield* server.fetch("GET", "/api/v1/users/me", { as: { email: "prospero.duke@zulip.com", apiKey: prospero.apiKey } })
          assert.strictEqual(me.json.delivery_email, "Prospero.Duke@zulip.com", me.text)

          // Back, by the address the administrator now knows.
          expect(yield* patch(iago, "Prospero.Duke@zulip.com", { new_email: "prospero@zulip.com" }), 200, success)
          assert.deepStrictEqual(yield* user(prospero.userId), before)
          assert.strictEqual((yield* server.fetch("GET", "/api/v1/users/me", { as: prospero })).status, 200)
          yield* ownerEvents
          yield* memberEvents
          yield* allowEmailChanges(iago, false)
        }))

      it.effect("PATCH new_email: a bot's public address changes for everyone, with new_email", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const bot = yield* login("webhook-bot@zulip.com")
          const before = yield* user(bot.userId)
          const memberEvents = yield* listen(yield* as("member"))
          yield* allowEmailChanges(owner, true)
          expect(yield* patch(owner, bot.userId, { new_email: "hook-bot@zulip.com" }), 200, success)
          assert.deepStrictEqual(yield* memberEvents, [
            { type: "realm_user", op: "update", person: { user_id: bot.userId, delivery_email: "hook-bot@zulip.com" } },
            {
              type: "realm_user",
              op: "update",
              person: {
                user_id: bot.userId,
                avatar_source: "G",
                ...gravatar("hook-bot@zulip.com", before.avatar_version),
                avatar_version: before.avatar_version
              }
            },
            { type: "realm_user", op: "update", person: { user_id: bot.userId, new_email: "hook-bot@zulip.com" } }
          ])
          assert.strictEqual((yield* user(bot.userId)).email, "hook-bot@zulip.com")
          expect(yield* patch(owner, "hook-bot@zulip.com", { new_email: "webhook-bot@zulip.com" }), 200, success)
          assert.deepStrictEqual(yield* user(bot.userId), before)
          yield* memberEvents
          yield* allowEmailChanges(owner, false)
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

      /** A new account of `role` in the demo organization, logged in; with a bot of its own when asked. */
      const freshAccount = (role: 100 | 200 | 300 | 400 | 600, withBot = false) =>
        Effect.gen(function*() {
          const server = yield* Server
          const name = `self-${role}-${Math.random().toString(36).slice(2, 10)}`
          const made = yield* server.core(Effect.gen(function*() {
            const realm = (yield* RealmRepo.use((r) => r.list)).find((r) => r.url === realmUrl)!
            const users = yield* Users
            const person = yield* users.create(realm.id, { email: `${name}@zulip.com`, full_name: name, role })
            const bot = withBot
              ? yield* users.create(realm.id, {
                email: `${name}-bot@zulip.com`,
                full_name: `${name} bot`,
                role: 400,
                bot: { bot_type: 1, owner_id: person.id }
              })
              : undefined
            return { person, bot }
          }).pipe(Effect.orDie))
          const credentials = yield* server.login(made.person.delivery_email)
          return { credentials, botId: made.bot?.id as number | undefined }
        })
      const deactivateSelf = (who: Credentials) =>
        Effect.flatMap(Server, (server) => server.fetch("DELETE", "/api/v1/users/me", { as: who }))

      it.effect("DELETE /users/me: each role but the only owner deactivates itself; its key stops working until reactivated", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const owner = yield* as("owner")
          for (const role of [200, 300, 400, 600] as const) {
            const { credentials } = yield* freshAccount(role)
            expect(yield* deactivateSelf(credentials), 200, success)
            assert.isFalse((yield* user(credentials.userId)).is_active, String(role))
            expect(
              yield* server.fetch("GET", "/api/v1/users/me", { as: credentials }),
              401,
              error("Account is deactivated", "USER_DEACTIVATED")
            )
            expect(yield* deactivateSelf(credentials), 401, error("Account is deactivated", "USER_DEACTIVATED"))
            // The key is unchanged: it works again once an administrator reactivates the account.
            expect(yield* reactivate(owner, credentials.userId), 200, success)
            assert.strictEqual((yield* server.fetch("GET", "/api/v1/users/me", { as: credentials })).status, 200)
          }
          // A bot may deactivate itself too.
          const { botId } = yield* freshAccount(400, true)
          const botKey = yield* server.core(Users.use((users) => users.findById(userId(botId!))))
          const bot = { email: botKey!.delivery_email, apiKey: botKey!.api_key }
          expect(yield* deactivateSelf(bot), 200, success)
          assert.isFalse((yield* user(botId!)).is_active)
          expect(yield* reactivate(owner, botId!), 200, success)
        }))

      it.effect("DELETE /users/me: the only owner is refused with CANNOT_DEACTIVATE_LAST_USER; with a second owner either may leave", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const owner = yield* as("owner")
          const before = yield* server.fetch("GET", "/api/v1/users/me", { as: owner })
          expect(yield* deactivateSelf(owner), 400, {
            result: "error",
            msg: "Cannot deactivate the only organization owner.",
            code: "CANNOT_DEACTIVATE_LAST_USER",
            is_last_owner: true,
            entity: "organization owner"
          })
          assert.deepStrictEqual((yield* server.fetch("GET", "/api/v1/users/me", { as: owner })).json, before.json)

          const { credentials: second } = yield* freshAccount(100)
          expect(yield* deactivateSelf(second), 200, success)
          // Now the demo owner is the only one again.
          expect(yield* deactivateSelf(owner), 400, {
            result: "error",
            msg: "Cannot deactivate the only organization owner.",
            code: "CANNOT_DEACTIVATE_LAST_USER",
            is_last_owner: true,
            entity: "organization owner"
          })
          expect(yield* reactivate(owner, second.userId), 200, success)
          expect(yield* deactivateSelf(owner), 200, success)
          const seen = yield* server.fetch("GET", `/api/v1/users/${owner.userId}`, { as: second })
          assert.isFalse(seen.json.user.is_active, seen.text)
          // Put the demo owner back (the second owner reactivates them).
          expect(yield* reactivate(second, owner.userId), 200, success)
          expect(yield* patch(owner, second.userId, { role: "400" }), 200, success)
          assert.strictEqual((yield* server.fetch("GET", "/api/v1/users/me", { as: owner })).status, 200)
        }))

      it.effect("DELETE /users/me: is_active false (after peer_remove) to the organization, the person's bots with them, audited as their own act", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const owner = yield* as("owner")
          const { botId, credentials } = yield* freshAccount(400, true)
          const events = yield* listen(owner, ["realm_user", "realm_bot"])
          expect(yield* deactivateSelf(credentials), 200, success)
          assert.deepStrictEqual((yield* events).filter((e) => e.type === "realm_user"), [
            { type: "realm_user", op: "update", person: { user_id: credentials.userId, is_active: false } },
            { type: "realm_user", op: "update", person: { user_id: botId!, is_active: false } }
          ])
          assert.isFalse((yield* user(botId!)).is_active)
          const audited = yield* server.core(Effect.gen(function*() {
            const realm = (yield* RealmRepo.use((r) => r.list)).find((r) => r.url === realmUrl)!
            return yield* AuditLogRepo.use((audit) => audit.list(realm.id, { limit: 2, eventType: "user_deactivated" }))
          }))
          assert.deepStrictEqual(
            audited.map((row) => [Number(row.acting_user_id), Number(row.modified_user_id)]),
            [[credentials.userId, credentials.userId], [credentials.userId, botId!]]
          )
          expect(yield* reactivate(owner, credentials.userId), 200, success)
          expect(yield* reactivate(owner, botId!), 200, success)
        }))

      it.effect("PATCH, PUT and POST /users/me are Zulip's 405 naming the path's own methods, and change nobody", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const member = yield* as("member")
          for (const method of ["PATCH", "PUT", "POST"]) {
            const reply = yield* server.fetch(method, "/api/v1/users/me", { as: member, form: { full_name: "Not Me", role: "100" } })
            expect(reply, 405, { result: "error", msg: "Method Not Allowed", allowed_methods: ["GET", "DELETE", "HEAD"] })
            assert.strictEqual(reply.headers.get("allow"), "GET, DELETE, HEAD", method)
          }
          const me = (yield* server.fetch("GET", "/api/v1/users/me", { as: member })).json
          assert.deepStrictEqual([me.full_name, me.role], ["King Hamlet", 400])
        }))
    })
  })
