/**
 * HTTP Basic authentication as Zulip answers it, and spectators on GET /users.
 */
import { assert, describe, layer } from "@effect/vitest"
import { userId } from "@teamchat/core/domain/Ids"
import { RealmRepo } from "@teamchat/core/persistence/Repositories"
import { Organizations } from "@teamchat/core/services/Organizations"
import { Users } from "@teamchat/core/services/Users"
import * as Effect from "effect/Effect"
import { accounts, basic, demoLayer, layerServer, Server } from "./support/Harness.ts"

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
