/**
 * Zulip's parameter conventions over the wire: sources (query string, form
 * and multipart bodies), precedence, JSON-typed values, the exact error
 * texts, and `ignored_parameters_unsupported`.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Params from "../src/internal/Params.ts"
import { accounts, demoLayer, demoPassword, layerServer, makeRequest, Server } from "./support/Harness.ts"

const error = (msg: string, extra: Record<string, unknown> = {}) => ({
  result: "error",
  msg,
  code: "BAD_REQUEST",
  ...extra
})

describe("parameters", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("a multipart body is read like a form body", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
          multipart: { username: accounts.member }
        })
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.json.email, accounts.member)
        assert.isUndefined(reply.json.ignored_parameters_unsupported)
      }))

    it.effect("a multipart body with a file: files are not parameters", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const body = new FormData()
        body.append("username", accounts.admin)
        body.append("password", demoPassword)
        body.append("extra", "1")
        body.append("attachment", new Blob(["not a parameter"], { type: "text/plain" }), "notes.txt")
        const reply = yield* server.fetch("POST", "/api/v1/fetch_api_key", { body })
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.json.email, accounts.admin)
        assert.deepStrictEqual(reply.json.ignored_parameters_unsupported, ["extra"])
      }))

    it.effect("the body wins over the query string", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const form = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
          query: { username: accounts.guest },
          form: { username: accounts.member }
        })
        assert.strictEqual(form.json.email, accounts.member)
        const multipart = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
          query: { username: accounts.guest },
          multipart: { username: accounts.admin }
        })
        assert.strictEqual(multipart.json.email, accounts.admin)
      }))

    it.effect("parameters split between the query string and the body", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
          query: { username: accounts.admin },
          form: { password: demoPassword }
        })
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.json.email, accounts.admin)
      }))

    it.effect("a repeated parameter keeps its last value", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch(
          "POST",
          `/api/v1/dev_fetch_api_key?username=${encodeURIComponent(accounts.guest)}&username=${
            encodeURIComponent(accounts.member)
          }`
        )
        assert.strictEqual(reply.json.email, accounts.member)
      }))

    it.effect("bodies of other types are not read (Zulip reads form bodies only)", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username: accounts.member })
        })
        assert.strictEqual(reply.status, 400)
        assert.strictEqual(reply.headers.get("content-type"), "application/json")
        assert.deepStrictEqual(reply.json, {
          result: "error",
          msg: "Missing 'username' argument",
          code: "REQUEST_VARIABLE_MISSING",
          var_name: "username"
        })
      }))

    it.effect("JSON booleans are strict: `true` and `false` only", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const cases: ReadonlyArray<readonly [string, object]> = [
          ["1", error("client_gravatar is not a boolean")],
          ["\"true\"", error("client_gravatar is not a boolean")],
          ["null", error("client_gravatar is not a boolean")],
          ["yes", error("client_gravatar is not valid JSON")],
          ["True", error("client_gravatar is not valid JSON")],
          ["", error("client_gravatar is not valid JSON")]
        ]
        for (const [value, expected] of cases) {
          const reply = yield* server.fetch("GET", "/api/v1/users", { as: hamlet, query: { client_gravatar: value } })
          assert.strictEqual(reply.status, 400, value)
          assert.deepStrictEqual(reply.json, expected, value)
        }
        const ok = yield* server.fetch("GET", "/api/v1/streams", {
          as: hamlet,
          query: { include_public: "false", include_subscribed: "true" }
        })
        assert.strictEqual(ok.status, 200)
      }))

    it.effect("JSON lists: not JSON, not a list, an element that is not an integer", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const cases: ReadonlyArray<readonly [string, object]> = [
          ["[1,", error("user_ids is not valid JSON")],
          ["1,2", error("user_ids is not valid JSON")],
          ["{\"a\":1}", error("user_ids is not a list")],
          ["7", error("user_ids is not a list")],
          [`[${hamlet.userId},"2"]`, error("user_ids[1] is not an integer")],
          ["[true]", error("user_ids[0] is not an integer")],
          ["[1.5]", error("user_ids[0] is not an integer")]
        ]
        for (const [value, expected] of cases) {
          const reply = yield* server.fetch("GET", "/api/v1/users", { as: hamlet, query: { user_ids: value } })
          assert.strictEqual(reply.status, 400, value)
          assert.deepStrictEqual(reply.json, expected, value)
        }
      }))

    it.effect("the first problem is reported, in declaration order", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("POST", "/api/v1/fetch_api_key")
        assert.deepStrictEqual(reply.json, {
          result: "error",
          msg: "Missing 'username' argument",
          code: "REQUEST_VARIABLE_MISSING",
          var_name: "username"
        })
        const hamlet = yield* server.login(accounts.member)
        const both = yield* server.fetch("GET", "/api/v1/users", {
          as: hamlet,
          query: { client_gravatar: "1", include_custom_profile_fields: "x" }
        })
        assert.deepStrictEqual(both.json, error("client_gravatar is not a boolean"))
      }))

    it.effect("ignored_parameters_unsupported: sorted, from the query string and the body", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const get = yield* server.fetch("GET", "/api/v1/users/me", {
          as: hamlet,
          query: { zeta: "1", alpha: "2", Beta: "3", client_gravatar: "true" }
        })
        assert.strictEqual(get.status, 200)
        assert.deepStrictEqual(get.json.ignored_parameters_unsupported, ["Beta", "alpha", "client_gravatar", "zeta"])
        const keys = Object.keys(get.json)
        assert.strictEqual(keys[keys.length - 1], "ignored_parameters_unsupported")
        const post = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
          query: { from_query: "1" },
          multipart: { username: accounts.member, from_body: "1" }
        })
        assert.deepStrictEqual(post.json.ignored_parameters_unsupported, ["from_body", "from_query"])
        const none = yield* server.fetch("GET", "/api/v1/users", { as: hamlet, query: { client_gravatar: "false" } })
        assert.isFalse("ignored_parameters_unsupported" in none.json)
      }))

    it.effect("ignored_parameters_unsupported is never sent with an error", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
          form: { username: accounts.member, password: "wrong", bogus: "1" }
        })
        assert.strictEqual(reply.status, 401)
        assert.deepStrictEqual(Object.keys(reply.json), ["result", "msg", "code"])
      }))

    it.effect("parameter names that mean something to JavaScript are just names", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const reply = yield* server.fetch("GET", "/api/v1/users/me?__proto__=1&constructor=2&toString=3", { as: hamlet })
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.json.ignored_parameters_unsupported, ["__proto__", "constructor", "toString"])
      }))

    it.effect("path parameters never count as ignored", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const reply = yield* server.fetch("GET", `/api/v1/users/${hamlet.userId}`, {
          as: hamlet,
          query: { user_id_or_email: "x", other: "y" }
        })
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.json.ignored_parameters_unsupported, ["other"])
      }))

    it.effect("a percent-encoded email in the path", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const iago = yield* server.login(accounts.admin)
        const reply = yield* server.fetch("GET", "/api/v1/users/hamlet%40zulip.com", { as: iago })
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.json.user.delivery_email, accounts.member)
      }))

    it.effect("a malformed multipart body is a 400, not a 500", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const reply = yield* server.fetch("POST", "/api/v1/dev_fetch_api_key", {
          headers: { "content-type": "multipart/form-data" },
          body: "this is not multipart"
        })
        assert.strictEqual(reply.status, 400)
        assert.deepStrictEqual(reply.json, error("Malformed request body"))
      }))

    it.effect("makeRequest sends a real multipart body", () =>
      Effect.sync(() => {
        const request = makeRequest("POST", "/api/v1/x", { multipart: { a: "1" } })
        assert.match(request.headers.get("content-type") ?? "", /^multipart\/form-data; boundary=/)
      }))
  })
})

describe("parameter codecs", () => {
  const decode = <S extends Schema.Top>(schema: S, input: unknown) =>
    Schema.decodeUnknownEffect(schema)(input).pipe(
      Effect.flip,
      Effect.map((failure) => Params.toZulipError(failure.issue).wire)
    )

  layer(Layer.empty)((it) => {
    it.effect("a missing key, a bad literal, a nested location", () =>
      Effect.gen(function*() {
        const schema = Schema.Struct({
          content: Schema.String,
          role: Schema.Literals(["100", "200"]),
          user_ids: Schema.optionalKey(Params.JsonIntegerList)
        })
        assert.deepStrictEqual(yield* decode(schema, { role: "100" }), {
          result: "error",
          msg: "Missing 'content' argument",
          code: "REQUEST_VARIABLE_MISSING",
          var_name: "content"
        })
        assert.deepStrictEqual(yield* decode(schema, { content: "x", role: "300" }), error("Invalid role"))
        assert.deepStrictEqual(yield* decode(schema, { content: ["a", "b"], role: "100" }), error("content is not a string"))
        assert.deepStrictEqual(
          yield* decode(schema, { content: "x", role: "100", user_ids: "[1,2,\"3\"]" }),
          error("user_ids[2] is not an integer")
        )
        assert.strictEqual(Params.formatLocation(["drafts", 0, "content"]), "drafts[0][\"content\"]")
      }))

    it.effect("booleans decode from JSON text only, with defaults", () =>
      Effect.gen(function*() {
        const schema = Schema.Struct({ flag: Params.optionalBoolean(true), other: Params.optionalBoolean(false) })
        assert.deepStrictEqual(yield* Schema.decodeUnknownEffect(schema)({}), { flag: true, other: false })
        assert.deepStrictEqual(yield* Schema.decodeUnknownEffect(schema)({ flag: "false", other: "true" }), {
          flag: false,
          other: true
        })
        assert.deepStrictEqual(yield* decode(schema, { flag: "0" }), error("flag is not a boolean"))
        assert.deepStrictEqual(yield* decode(schema, { other: "nope" }), error("other is not valid JSON"))
        assert.strictEqual(yield* Schema.encodeEffect(Params.JsonBoolean)(true), "true")
      }))

    // The schemas of JSON values: each misfit is Zulip's error, at the first problem, named by its location.
    const V = Params.Value
    const draft = V.struct({
      type: V.literal(["", "stream", "private"]),
      to: V.list(V.integer),
      content: V.nonBlank,
      timestamp: Schema.optionalKey(V.nullOr(V.number(1000)))
    })
    const valueCases: ReadonlyArray<readonly [string, Schema.Top & { readonly DecodingServices: never }, unknown, string | { readonly ok: unknown }]> = [
      ["a string", V.string, 5, "x is not a string"],
      ["a boolean", V.boolean, 1, "x is not a boolean"],
      ["an integer", V.integer, 7, { ok: 7 }],
      ["a fraction is not an integer", V.integer, 1.5, "x is not an integer"],
      ["text is not an integer", V.integer, "7", "x is not an integer"],
      ["beyond 2^53 - 1", V.integer, 2 ** 60, "x is too large"],
      ["below -(2^53 - 1)", V.integer, -(2 ** 60), "x is too small"],
      ["not a list", V.list(V.integer), { a: 1 }, "x is not a list"],
      ["an item, by index", V.list(V.integer), [1, "a"], "x[1] is not an integer"],
      ["too many items, before any item is read", V.list(V.integer, 2), ["a", "b", "c"], "x is too long (limit: 2 items)"],
      ["a pair of another length", V.pair(V.string), ["a"], "Invalid x"],
      ["a pair's item", V.pair(V.string), ["a", 1], "x[1] is not a string"],
      ["blank", V.nonBlank, "  ", "x cannot be blank"],
      ["a number over its maximum", V.number(10), 10.5, "x is too large"],
      ["a literal", V.literal(["a", "b"]), "c", "Invalid x"],
      ["null", V.nullOr(V.integer), null, { ok: null }],
      ["not null: the inner error", V.nullOr(V.integer), "a", "x is not an integer"],
      ["not a dict", draft, [], "x is not a dict"],
      ["a missing field", draft, { type: "", to: [] }, "Missing 'x[\"content\"]' argument"],
      ["an unexpected field, before the fields", draft, { id: 1, type: 5 }, "Argument \"id\" at x is unexpected"],
      ["fields in declaration order", draft, { type: "x", to: ["a"], content: "" }, "Invalid x[\"type\"]"],
      ["a nested location", V.list(draft), [{ type: "", to: [1, 2.5], content: "c" }], "x[0][\"to\"][1] is not an integer"],
      ["an optional field absent", draft, { type: "", to: [], content: "c" }, { ok: { type: "", to: [], content: "c" } }],
      ["a record's value", V.record(V.boolean), { a: true, b: 1 }, "x[\"b\"] is not a boolean"],
      ["no alternative fits: Invalid", V.oneOf(V.integer, V.list(V.string)), ["a", 1], "Invalid x"],
      ["an alternative fits", V.oneOf(V.integer, V.list(V.string)), ["a"], { ok: ["a"] }],
      ["at most, before the alternatives", V.atMost(1, V.oneOf(V.list(V.integer))), [1, 2], "x is too long (limit: 1 items)"],
      ["null or one of: Invalid", V.nullOr(V.oneOf(V.string, V.list(V.integer))), 5, "Invalid x"]
    ]
    it.effect.each(valueCases)("JSON values: %s", ([, value, input, expected]) =>
      Effect.gen(function*() {
        const schema = Schema.Struct({ x: Params.json(value, "x") })
        const decoded = yield* Effect.result(Schema.decodeUnknownEffect(schema)({ x: JSON.stringify(input) }))
        if (typeof expected === "string") {
          assert.strictEqual(decoded._tag, "Failure")
          if (decoded._tag === "Failure") assert.strictEqual(Params.toZulipError(decoded.failure.issue).msg, expected)
        } else {
          assert.strictEqual(decoded._tag, "Success")
          if (decoded._tag === "Success") assert.deepStrictEqual(decoded.success.x, expected.ok)
        }
      }))
  })
})
