/**
 * HTTP Basic authentication as Zulip answers it, and spectators on GET /users.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import { userId } from "@teamchat/core/domain/Ids"
import { RealmRepo, UserRepo } from "@teamchat/core/ports/Repositories"
import { KeyGenerator } from "@teamchat/core/services/KeyGenerator"
import { Organizations } from "@teamchat/core/services/Organizations"
import { PasswordHasher } from "@teamchat/core/services/PasswordHasher"
import { Users } from "@teamchat/core/services/Users"
import * as CheckedEvents from "@teamchat/core/testing/CheckedEvents"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { keptHeaders, parseAuthorization } from "../src/middleware/Authentication.ts"
import { accounts, basic, demoLayer, demoPassword, layerServer, realmUrl, Server } from "./support/Harness.ts"

const unauthorized = {
  result: "error",
  msg: "Not logged in: API authentication or user session required",
  code: "UNAUTHORIZED"
}
const invalidHeader = { result: "error", msg: "Invalid authorization header for basic auth", code: "UNAUTHORIZED" }

describe("authentication", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("no credentials: 401 UNAUTHORIZED with a Basic challenge", () =>
      Effect.gen(function*() {
        const server = yield* Server
        for (const path of ["/api/v1/users/me", "/api/v1/streams", "/api/v1/users/1"]) {
          for (const headers of [{}, { authorization: "" }]) {
            const reply = yield* server.fetch("GET", path, { headers })
            assert.strictEqual(reply.status, 401, path)
            assert.strictEqual(reply.headers.get("www-authenticate"), "Basic realm=\"zulip\"", path)
            assert.strictEqual(reply.headers.get("content-type"), "application/json", path)
            assert.deepStrictEqual(reply.json, unauthorized, path)
          }
        }
      }))

    it.effect("another scheme: 400 'This endpoint requires HTTP basic authentication.'", () =>
      Effect.gen(function*() {
        const server = yield* Server
        for (const authorization of ["Bearer abcdef", "Digest username=x", "Token a:b"]) {
          const reply = yield* server.fetch("GET", "/api/v1/users/me", { headers: { authorization } })
          assert.strictEqual(reply.status, 400, authorization)
          assert.isNull(reply.headers.get("www-authenticate"))
          assert.deepStrictEqual(reply.json, {
            result: "error",
            msg: "This endpoint requires HTTP basic authentication.",
            code: "BAD_REQUEST"
          })
        }
      }))

    it.effect("credentials that do not decode: 401 'Invalid authorization header for basic auth'", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const encode = (text: string) => Buffer.from(text).toString("base64")
        const headers = [
          "Basic",
          "Basic !!!!",
          "Basic abc",
          `Basic ${encode("no-colon-here")}`,
          `Basic ${encode("a:b:c")}`,
          `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString("base64")}`,
          `Basic ${encode("a:b")} extra`
        ]
        for (const authorization of headers) {
          const reply = yield* server.fetch("GET", "/api/v1/users/me", { headers: { authorization } })
          assert.strictEqual(reply.status, 401, authorization)
          assert.strictEqual(reply.headers.get("www-authenticate"), "Basic realm=\"zulip\"", authorization)
          assert.deepStrictEqual(reply.json, invalidHeader, authorization)
        }
      }))

    it.effect("bad keys: malformed, unknown, or another user's", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const iago = yield* server.login(accounts.admin)
        const malformed = yield* server.fetch("GET", "/api/v1/users/me", {
          headers: { authorization: basic(accounts.member, "short") }
        })
        assert.strictEqual(malformed.status, 401)
        assert.deepStrictEqual(malformed.json, { result: "error", msg: "Malformed API key", code: "INVALID_API_KEY" })
        const invalid = { result: "error", msg: "Invalid API key", code: "INVALID_API_KEY" }
        const unknown = yield* server.fetch("GET", "/api/v1/users/me", {
          headers: { authorization: basic(accounts.member, "A".repeat(32)) }
        })
        assert.strictEqual(unknown.status, 401)
        assert.deepStrictEqual(unknown.json, invalid)
        const mismatch = yield* server.fetch("GET", "/api/v1/users/me", {
          headers: { authorization: basic(accounts.member, iago.apiKey) }
        })
        assert.strictEqual(mismatch.status, 401)
        assert.deepStrictEqual(mismatch.json, invalid)
        const caseInsensitive = yield* server.fetch("GET", "/api/v1/users/me", {
          headers: { authorization: basic("HAMLET@Zulip.COM", hamlet.apiKey) }
        })
        assert.strictEqual(caseInsensitive.status, 200)
        assert.strictEqual(caseInsensitive.json.user_id, hamlet.userId)
        const lowerScheme = yield* server.fetch("GET", "/api/v1/users/me", {
          headers: { authorization: basic(accounts.member, hamlet.apiKey).replace("Basic", "basic") }
        })
        assert.strictEqual(lowerScheme.status, 200)
      }))

    it.effect("spectators may list users when the organization allows it", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("GET", "/api/v1/users")
        assert.strictEqual(reply.status, 200)
        const expected = yield* server.core(Effect.gen(function*() {
          const organizations = yield* Organizations
          const realm = (yield* organizations.findByStringId("zulip"))!
          const users = yield* Users
          return yield* users.list(realm, undefined, { clientGravatar: true, includeCustomProfileFields: false })
        }))
        assert.deepStrictEqual(reply.json, { result: "success", msg: "", members: expected })
        assert.isTrue(reply.json.members.every((m: { is_bot: boolean; delivery_email: string | null }) =>
          m.is_bot || m.delivery_email === null
        ))
        // Spectators may not read anything else.
        const me = yield* server.fetch("GET", "/api/v1/users/me")
        assert.strictEqual(me.status, 401)
      }))
  })
})

describe("deactivation", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("a deactivated account, then a deactivated organization (checked first)", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const iago = yield* server.login(accounts.admin)
        yield* server.core(Effect.flatMap(Users, (users) => users.deactivate(userId(hamlet.userId))))
        const deactivated = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
        assert.strictEqual(deactivated.status, 401)
        assert.deepStrictEqual(deactivated.json, {
          result: "error",
          msg: "Account is deactivated",
          code: "USER_DEACTIVATED"
        })
        // With spectators no longer allowed, an anonymous GET /users needs credentials.
        yield* server.core(Effect.gen(function*() {
          const realms = yield* RealmRepo
          const realm = (yield* realms.findByStringId("zulip"))!
          yield* realms.update({ ...realm, settings: { ...realm.settings, enable_spectator_access: false } })
        }))
        const anonymous = yield* server.fetch("GET", "/api/v1/users")
        assert.strictEqual(anonymous.status, 401)
        assert.strictEqual(anonymous.headers.get("www-authenticate"), "Basic realm=\"zulip\"")
        assert.deepStrictEqual(anonymous.json, unauthorized)
        yield* server.core(Effect.gen(function*() {
          const realms = yield* RealmRepo
          const realm = (yield* realms.findByStringId("zulip"))!
          yield* realms.update({ ...realm, deactivated: true })
        }))
        for (const who of [hamlet, iago]) {
          const reply = yield* server.fetch("GET", "/api/v1/users/me", { as: who })
          assert.strictEqual(reply.status, 401)
          assert.deepStrictEqual(reply.json, {
            result: "error",
            msg: "This organization has been deactivated",
            code: "REALM_DEACTIVATED"
          })
        }
      }))
  })
})

/** The test hasher, counting the verifications it makes. */
const makeCountingHasher = () => {
  let verifications = 0
  const layer = Layer.effect(
    PasswordHasher,
    Effect.gen(function*() {
      const inner = yield* PasswordHasher
      return PasswordHasher.of({
        hash: inner.hash,
        verify: (password, stored) =>
          Effect.suspend(() => {
            verifications++
            return inner.verify(password, stored)
          })
      })
    })
  ).pipe(Layer.provide(PasswordHasher.layerTest))
  /** The verifications since the last call. */
  const take = () => {
    const made = verifications
    verifications = 0
    return made
  }
  return { layer, take }
}

describe("POST /fetch_api_key does the same work for every account", () => {
  const hasher = makeCountingHasher()
  const failed = { result: "error", msg: "Your username or password is incorrect", code: "AUTHENTICATION_FAILED" }
  const deactivated = { result: "error", msg: "Account is deactivated", code: "USER_DEACTIVATED" }
  layer(layerServer((clock) =>
    Layer.effectDiscard(DemoOrganization.seed(realmUrl)).pipe(
      Layer.provideMerge(CheckedEvents.layerMemory(Layer.mergeAll(KeyGenerator.layerTest, hasher.layer))),
      Layer.provideMerge(Layer.succeed(Clock.Clock, clock.clock))
    )
  ))((it) => {
    it.effect("one password verification whether the account exists, is a bot, has no password or is deactivated", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const login = (username: string, password: string) =>
          server.fetch("POST", "/api/v1/fetch_api_key", { form: { username, password } })
        // ZOE has no password; cordelia is deactivated.
        yield* server.core(Effect.gen(function*() {
          const users = yield* UserRepo
          const realm = (yield* (yield* RealmRepo).findByStringId("zulip"))!
          const zoe = (yield* users.findByDeliveryEmail(realm.id, "ZOE@zulip.com"))!
          yield* users.update({ ...zoe, password_hash: null })
          const cordelia = (yield* users.findByDeliveryEmail(realm.id, "cordelia@zulip.com"))!
          yield* users.update({ ...cordelia, is_active: false })
        }))
        hasher.take()
        const cases: ReadonlyArray<readonly [string, string, number, object]> = [
          [accounts.member, "not the password", 401, failed],
          ["nobody@zulip.com", "not the password", 401, failed],
          ["nobody@zulip.com", demoPassword, 401, failed],
          [accounts.bot, demoPassword, 401, failed],
          ["ZOE@zulip.com", demoPassword, 401, failed],
          ["cordelia@zulip.com", "not the password", 401, deactivated],
          ["cordelia@zulip.com", demoPassword, 401, deactivated]
        ]
        for (const [username, password, status, body] of cases) {
          const reply = yield* login(username, password)
          assert.strictEqual(reply.status, status, username)
          assert.deepStrictEqual(reply.json, body, username)
          assert.strictEqual(hasher.take(), 1, `${username}: verifications`)
        }
        const granted = yield* login(accounts.member, demoPassword)
        assert.strictEqual(granted.status, 200)
        assert.strictEqual(hasher.take(), 1)
      }))
  })
})

describe("the organization of the request's host", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("credentials used at another organization's host: 'Account is not associated with this subdomain'", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const other = "http://lear.localhost:9991"
        yield* server.core(Effect.flatMap(Organizations, (organizations) =>
          organizations.create({
            string_id: "lear",
            name: "Lear & Co.",
            url: other,
            owner: { email: "king@lear.example", full_name: "King Lear", password: "a password" }
          })))
        const hamlet = yield* server.login(accounts.member)
        const wrongHost = {
          result: "error",
          msg: "Account is not associated with this subdomain",
          code: "BAD_REQUEST"
        }
        const requests: ReadonlyArray<readonly [string, string, Record<string, string>]> = [
          ["GET", "/api/v1/users/me", {}],
          ["GET", "/api/v1/users", {}],
          ["GET", "/api/v1/streams", {}],
          ["POST", "/api/v1/register", {}],
          ["PATCH", "/api/v1/settings", { full_name: "Renamed" }],
          ["POST", "/api/v1/messages", { type: "channel", to: "Verona", topic: "t", content: "c" }],
          ["GET", "/api/v1/messages", { anchor: "newest", num_before: "1", num_after: "0" }]
        ]
        for (const [method, path, params] of requests) {
          const options = method === "GET" ? { query: params } : { form: params }
          const reply = yield* server.fetch(method, path, { ...options, as: hamlet, origin: other })
          assert.strictEqual(reply.status, 400, `${method} ${path}`)
          assert.deepStrictEqual(reply.json, wrongHost, `${method} ${path}`)
          // A host that names no organization, and the organization's own host, are fine.
          for (const origin of ["http://127.0.0.1:9991", realmUrl]) {
            const same = yield* server.fetch(method, path, { ...options, as: hamlet, origin })
            assert.strictEqual(same.status, 200, `${method} ${path} at ${origin}: ${same.text}`)
          }
        }
        const me = yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })
        assert.strictEqual(me.json.full_name, "Renamed")
        // The other organization's own accounts are at home there.
        const king = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
          origin: other,
          form: { username: "king@lear.example", password: "a password" }
        })
        assert.strictEqual(king.status, 200, king.text)
        const kingMe = yield* server.fetch("GET", "/api/v1/users/me", {
          origin: other,
          as: { email: "king@lear.example", apiKey: king.json.api_key }
        })
        assert.strictEqual(kingMe.status, 200)
        const kingAway = yield* server.fetch("GET", "/api/v1/users/me", {
          as: { email: "king@lear.example", apiKey: king.json.api_key }
        })
        assert.deepStrictEqual(kingAway.json, wrongHost)
      }))
  })
})

describe("parsed Authorization headers", () => {
  it("a header evicted by keptHeaders others is parsed again, the same", () => {
    const header = basic("iago@zulip.com", "first-key")
    const first = parseAuthorization(header)
    assert.deepStrictEqual(first, { email: "iago@zulip.com", apiKey: "first-key" })
    // The same header answers the kept value; past the bound it is parsed afresh, equal.
    assert.strictEqual(parseAuthorization(header), first)
    for (let i = 0; i < keptHeaders; i++) parseAuthorization(basic(`user${i}@example.com`, `key-${i}`))
    const again = parseAuthorization(header)
    assert.notStrictEqual(again, first)
    assert.deepStrictEqual(again, first)
  })
})
