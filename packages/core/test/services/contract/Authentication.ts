/**
 * Authentication: Basic credentials, password and development logins, key
 * rotation, and every write reaching the next request.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as DemoData from "../../../src/demo/DemoData.ts"
import { userId } from "../../../src/domain/Ids.ts"
import type { Role } from "../../../src/domain/Role.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { RealmRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { Transactor } from "../../../src/ports/Transactor.ts"
import { Authentication } from "../../../src/services/Authentication.ts"
import { Messages } from "../../../src/services/Messages.ts"
import { Users } from "../../../src/services/Users.ts"
import type { Principal } from "../../../src/domain/Principal.ts"
import type * as Teamchat from "../../../src/Teamchat.ts"
import type { Vitest } from "@effect/vitest"
import { fails, makeOrg, addUser, addBot, withTestClock } from "./fixtures.ts"

export const authenticationTests = (it: Vitest.MethodsNonLive<Teamchat.Services | Persistence>): void => {
  // --- Authentication ----------------------------------------------------

  it.effect("Authentication.basic: Zulip's order of checks and errors", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg({ settings: { email_address_visibility: 3 } })
      const auth = yield* Authentication
      const users = yield* Users
      const person = yield* addUser(org, 400, { email: `Basic.User@${org.domain}` })
      const other = yield* addUser(org, 400)

      const ok = yield* auth.basic(`  basic.USER@${org.domain.toUpperCase()} `, ` ${person.api_key} `)
      assert.deepStrictEqual(ok.user, person)
      assert.deepStrictEqual(ok.realm, (yield* (yield* RealmRepo).findById(org.realm.id))!)

      for (const malformed of ["", "short", `${person.api_key}x`, `${person.api_key.slice(1)}-`, "ä".repeat(32)]) {
        yield* fails(auth.basic(person.delivery_email, malformed), "MalformedApiKey", "Malformed API key")
      }
      yield* fails(auth.basic(person.delivery_email, "A".repeat(32)), "InvalidApiKey", "Invalid API key")
      // Keys match exactly: not by case.
      const flipped = person.api_key.replace(/[a-zA-Z]/, (c) => c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())
      yield* fails(auth.basic(person.delivery_email, flipped), "InvalidApiKey", "Invalid API key")
      // The key of another account, or the right key with another address.
      yield* fails(auth.basic(person.delivery_email, other.api_key), "InvalidApiKey", "Invalid API key")
      yield* fails(auth.basic(other.delivery_email, person.api_key), "InvalidApiKey", "Invalid API key")
      // The placeholder API address is not the login: Zulip compares the real one.
      assert.strictEqual(person.email, `user${person.id}@${org.realm.fake_email_domain}`)
      yield* fails(auth.basic(person.email, person.api_key), "InvalidApiKey", "Invalid API key")

      // A deactivated account.
      yield* users.deactivate(person.id)
      yield* fails(auth.basic(person.delivery_email, person.api_key), "UserDeactivated", "Account is deactivated")
      // A deactivated organization is reported first, but only once the key and address match.
      const realms = yield* RealmRepo
      yield* realms.update({ ...(yield* realms.findById(org.realm.id))!, deactivated: true })
      yield* fails(
        auth.basic(person.delivery_email, person.api_key),
        "RealmDeactivated",
        "This organization has been deactivated"
      )
      yield* fails(auth.basic(other.delivery_email, other.api_key), "RealmDeactivated", "This organization has been deactivated")
      yield* fails(auth.basic(person.delivery_email, other.api_key), "InvalidApiKey", "Invalid API key")
      yield* fails(auth.basic(person.delivery_email, "short"), "MalformedApiKey", "Malformed API key")
    }).pipe(withTestClock))

  it.effect("Authentication.fetchApiKey: password login", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg({ settings: { email_address_visibility: 3 } })
      const auth = yield* Authentication
      const users = yield* Users
      const person = yield* addUser(org, 400, { email: `Stored.Case@${org.domain}`, password: "correct horse" })
      const failed = "Your username or password is incorrect"

      assert.deepStrictEqual(yield* auth.fetchApiKey(org.realm.id, ` stored.case@${org.domain} `, "correct horse"), {
        api_key: person.api_key,
        email: `Stored.Case@${org.domain}`,
        user_id: person.id
      })
      const refused: ReadonlyArray<{
        readonly case: string
        readonly username: string
        readonly password: string
        readonly tag: string
        readonly msg: string
      }> = [
        { case: "a wrong password", username: person.delivery_email, password: "wrong", tag: "AuthenticationFailed", msg: failed },
        { case: "an empty password", username: person.delivery_email, password: "", tag: "AuthenticationFailed", msg: failed },
        {
          case: "an unknown address",
          username: `nobody@${org.domain}`,
          password: "correct horse",
          tag: "AuthenticationFailed",
          msg: failed
        },
        {
          case: "not an address",
          username: "not an email",
          password: "x",
          tag: "InvalidEmailAddress",
          msg: "Enter a valid email address."
        }
      ]
      for (const row of refused) {
        yield* fails(auth.fetchApiKey(org.realm.id, row.username, row.password), row.tag, row.msg, row.case)
      }
      // The placeholder address is not a login name.
      yield* fails(auth.fetchApiKey(org.realm.id, person.email, "correct horse"), "AuthenticationFailed", failed)
      // Another organization's account.
      const other = yield* makeOrg()
      yield* fails(auth.fetchApiKey(other.realm.id, person.delivery_email, "correct horse"), "AuthenticationFailed", failed)
      // Accounts without a password, and bots even with one.
      const passwordless = yield* addUser(org, 400, { password: undefined })
      yield* fails(auth.fetchApiKey(org.realm.id, passwordless.delivery_email, ""), "AuthenticationFailed", failed)
      const bot = yield* addBot(org, org.owner, { password: "bot-password" })
      yield* fails(auth.fetchApiKey(org.realm.id, bot.delivery_email, "bot-password"), "AuthenticationFailed", failed)
      // After a password change only the new one works.
      yield* users.setPassword(person.id, "battery staple")
      yield* fails(auth.fetchApiKey(org.realm.id, person.delivery_email, "correct horse"), "AuthenticationFailed", failed)
      assert.strictEqual((yield* auth.fetchApiKey(org.realm.id, person.delivery_email, "battery staple")).user_id, person.id)
      yield* fails(users.setPassword(userId(999_999_999), "x"), "NoSuchUser", "No such user")
      // A deactivated account is said so whatever the password (Zulip looks the
      // account up before checking it), except an empty one.
      yield* users.deactivate(person.id)
      yield* fails(auth.fetchApiKey(org.realm.id, person.delivery_email, "wrong"), "UserDeactivated", "Account is deactivated")
      yield* fails(auth.fetchApiKey(org.realm.id, person.delivery_email, ""), "AuthenticationFailed", failed)
      yield* fails(
        auth.fetchApiKey(org.realm.id, person.delivery_email, "battery staple"),
        "UserDeactivated",
        "Account is deactivated"
      )
      // Organization switches.
      const disabled = yield* makeOrg({ settings: { email_auth_enabled: false } })
      yield* fails(
        auth.fetchApiKey(disabled.realm.id, disabled.owner.delivery_email, "owner-secret"),
        "PasswordAuthDisabled",
        "Password authentication is disabled in this organization"
      )
      const realms = yield* RealmRepo
      yield* realms.update({ ...(yield* realms.findById(org.realm.id))!, deactivated: true })
      yield* fails(
        auth.fetchApiKey(org.realm.id, org.owner.delivery_email, "owner-secret"),
        "RealmDeactivated",
        "This organization has been deactivated"
      )
      yield* fails(
        auth.fetchApiKey(org.realm.id, org.owner.delivery_email, "wrong"),
        "RealmDeactivated",
        "This organization has been deactivated"
      )
      // A deactivated account in a deactivated organization: the account's answer.
      yield* fails(auth.fetchApiKey(org.realm.id, person.delivery_email, "wrong"), "UserDeactivated", "Account is deactivated")
    }).pipe(withTestClock))

  it.effect("Authentication.devFetchApiKey: any active account of the demo organization, bots included, without a password", () =>
    Effect.gen(function*() {
      // The demo organization is the one the demo seed marks, whatever its string id.
      const org = yield* makeOrg({ demo: true, settings: { email_address_visibility: 3 } })
      const auth = yield* Authentication
      const users = yield* Users
      const person = yield* addUser(org, 600, { email: `Dev.Login@${org.domain}` })
      const bot = yield* addBot(org, person)
      assert.deepStrictEqual(yield* auth.devFetchApiKey(org.realm.id, `DEV.login@${org.domain}`), {
        api_key: person.api_key,
        email: `Dev.Login@${org.domain}`,
        user_id: person.id
      })
      assert.deepStrictEqual(yield* auth.devFetchApiKey(org.realm.id, bot.delivery_email), {
        api_key: bot.api_key,
        email: bot.delivery_email,
        user_id: bot.id
      })
      yield* fails(
        auth.devFetchApiKey(org.realm.id, `nobody@${org.domain}`),
        "AuthenticationFailed",
        "Your username or password is incorrect"
      )
      yield* fails(auth.devFetchApiKey(org.realm.id, "nobody"), "InvalidEmailAddress", "Enter a valid email address.")
      yield* users.deactivate(person.id)
      yield* fails(auth.devFetchApiKey(org.realm.id, person.delivery_email), "UserDeactivated", "Account is deactivated")
      const realms = yield* RealmRepo
      yield* realms.update({ ...(yield* realms.findById(org.realm.id))!, deactivated: true })
      yield* fails(
        auth.devFetchApiKey(org.realm.id, `nobody@${org.domain}`),
        "RealmDeactivated",
        "This organization has been deactivated"
      )
    }).pipe(withTestClock))

  it.effect("Authentication.devFetchApiKey and devListUsers: no other organization has the dev login", () =>
    Effect.gen(function*() {
      // Not even one under the demo's string id (this block's database has no other).
      for (const org of [yield* makeOrg(), yield* makeOrg({ string_id: DemoData.realm.string_id })]) {
        const auth = yield* Authentication
        const owner = org.owner.delivery_email
        yield* fails(auth.devFetchApiKey(org.realm.id, owner), "DevAuthNotEnabled", "DevAuthBackend not enabled.")
        // Refused before the address is even looked at, as where the login does not exist.
        yield* fails(auth.devFetchApiKey(org.realm.id, "nobody"), "DevAuthNotEnabled", "DevAuthBackend not enabled.")
        yield* fails(auth.devListUsers(org.realm.id), "DevAuthNotEnabled", "DevAuthBackend not enabled.")
      }
    }).pipe(withTestClock))

  it.effect("Users.rotateApiKey: the old key stops working at once", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const users = yield* Users
      const auth = yield* Authentication
      const person = yield* addUser(org, 400)
      const rotated = yield* users.rotateApiKey(person.id)
      assert.deepStrictEqual(rotated, { ...person, api_key: rotated.api_key })
      assert.match(rotated.api_key, /^[A-Za-z0-9]{32}$/)
      assert.notStrictEqual(rotated.api_key, person.api_key)
      assert.deepStrictEqual(yield* users.findById(person.id), rotated)
      yield* fails(auth.basic(person.delivery_email, person.api_key), "InvalidApiKey", "Invalid API key")
      assert.strictEqual((yield* auth.basic(person.delivery_email, rotated.api_key)).user.id, person.id)
      assert.strictEqual(
        (yield* auth.fetchApiKey(org.realm.id, person.delivery_email, "pw")).api_key,
        rotated.api_key
      )
      yield* fails(users.rotateApiKey(userId(999_999_999)), "NoSuchUser", "No such user")
    }).pipe(withTestClock))

  it.effect("Authentication.basic: every write to the account or the organization reaches the next request", () =>
    Effect.gen(function*() {
      // On SQL, authentication reuses the organization read that requests
      // keep between them; these writes go straight to the repositories, as
      // another server process would make them, so nothing but the stored
      // data can tell the next request about them.
      const org = yield* makeOrg()
      const auth = yield* Authentication
      const messages = yield* Messages
      const userRepo = yield* UserRepo
      const realms = yield* RealmRepo
      const person = yield* addUser(org, 400)
      // Reads the organization from the principal's copy of the realm, as a send does.
      const readOrganization = (principal: Principal) =>
        messages.validate(principal, { type: "private", to: [person.id], content: "hello" })
      // A request: authenticate, then read the organization.
      const request = (apiKey: string) =>
        Effect.gen(function*() {
          const principal = yield* auth.basic(person.delivery_email, apiKey)
          yield* readOrganization(principal)
          return principal
        })
      yield* request(person.api_key)
      assert.deepStrictEqual((yield* request(person.api_key)).user, person)

      const rekeyed = { ...person, api_key: "k".repeat(32) }
      yield* userRepo.update(rekeyed)
      yield* fails(auth.basic(person.delivery_email, person.api_key), "InvalidApiKey", "Invalid API key")
      assert.deepStrictEqual((yield* request(rekeyed.api_key)).user, rekeyed)

      const promoted = { ...rekeyed, role: 200 as Role, full_name: "Promoted" }
      yield* userRepo.update(promoted)
      assert.deepStrictEqual((yield* request(promoted.api_key)).user, promoted)

      yield* userRepo.update({ ...promoted, is_active: false })
      yield* fails(auth.basic(person.delivery_email, promoted.api_key), "UserDeactivated", "Account is deactivated")
      yield* userRepo.update(promoted)
      yield* request(promoted.api_key)

      // Inside a transaction its own writes count at once; once it rolls
      // back they never did.
      const rolledBack = yield* Effect.flip((yield* Transactor).withTransaction(Effect.gen(function*() {
        yield* userRepo.update({ ...promoted, full_name: "Uncommitted" })
        assert.strictEqual((yield* request(promoted.api_key)).user.full_name, "Uncommitted")
        return yield* Effect.fail("roll back" as const)
      })))
      assert.strictEqual(rolledBack, "roll back")
      assert.deepStrictEqual((yield* request(promoted.api_key)).user, promoted)

      // A request still holding the organization as it was before a
      // change must not leave that old copy behind for the next one.
      const held = yield* auth.basic(person.delivery_email, promoted.api_key)
      const renamed = { ...(yield* realms.findById(org.realm.id))!, name: "Renamed" }
      yield* realms.update(renamed)
      yield* readOrganization(held)
      assert.deepStrictEqual((yield* request(promoted.api_key)).realm, renamed)

      yield* realms.update({ ...renamed, deactivated: true })
      yield* fails(
        auth.basic(person.delivery_email, promoted.api_key),
        "RealmDeactivated",
        "This organization has been deactivated"
      )
    }).pipe(withTestClock))
}
