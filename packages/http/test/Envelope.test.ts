/**
 * `Envelope.respond`: a success value that certainly encodes to itself is
 * answered directly, with the JSON text HttpApi's encoder would send; any
 * other value is left to that encoder (returned as the envelope).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as Schema from "effect/Schema"
import { Api } from "../src/api/Api.ts"
import * as Envelope from "../src/internal/Envelope.ts"
import { IgnoredParameters } from "../src/internal/IgnoredParameters.ts"

const group = HttpApiGroup.make("probes").add(
  HttpApiEndpoint.get("probe", "/probe", {
    success: Envelope.Success({
      id: Schema.Int,
      name: Schema.String.check(Schema.isMinLength(1)),
      tags: Schema.Array(Schema.String)
    })
  })
)

// An endpoint outside an HttpApi keeps its `never` parts, which `Top` does not admit.
const respond = Envelope.respond(group.endpoints.probe as unknown as HttpApiEndpoint.Top)

/** The JSON text when answered directly, `undefined` when left to HttpApi's encoder. */
const direct = (data: object) =>
  respond(data as never).pipe(
    Effect.map((out) => {
      if (!HttpServerResponse.isHttpServerResponse(out)) return undefined
      assert.strictEqual(out.status, 200)
      const body = out.body
      assert.strictEqual(body._tag, "Uint8Array")
      return body._tag === "Uint8Array" ? new TextDecoder().decode(body.body) : undefined
    }),
    Effect.provideService(IgnoredParameters, [])
  )

/** What `respond` answers for `data`: the JSON text when answered directly, `undefined` when left to HttpApi's encoder. */
const answeredText = (
  respondWith: ReturnType<typeof Envelope.respond>,
  data: object,
  ignored: ReadonlyArray<string> = []
) =>
  respondWith(data as never).pipe(
    Effect.map((out) =>
      HttpServerResponse.isHttpServerResponse(out) && out.body._tag === "Uint8Array"
        ? new TextDecoder().decode(out.body.body)
        : undefined
    ),
    Effect.provideService(IgnoredParameters, ignored)
  )

describe("Envelope.respond", () => {
  it.effect("values that pass every check of their schema are answered directly", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* direct({ id: 7, name: "denmark", tags: ["a"] }),
        `{"result":"success","msg":"","id":7,"name":"denmark","tags":["a"]}`
      )
    }))

  it.effect("values that fail a check, carry extra keys or are out of order go to HttpApi's encoder", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* direct({ id: 7.5, name: "denmark", tags: [] }))
      assert.isUndefined(yield* direct({ id: 7, name: "", tags: [] }))
      assert.isUndefined(yield* direct({ id: 7, name: "denmark", tags: [1] }))
      assert.isUndefined(yield* direct({ id: 7, name: "denmark", tags: [], extra: true }))
      assert.isUndefined(yield* direct({ name: "denmark", id: 7, tags: [] }))
      // A field JSON.stringify would not write (non-enumerable) but the encoder reads.
      const hidden = { id: 7, name: "denmark" }
      Object.defineProperty(hidden, "tags", { value: [], enumerable: false })
      assert.isUndefined(yield* direct(hidden))
    }))
})

const unionSuccess = Envelope.Success({
  entries: Schema.Record(
    Schema.String,
    Schema.Union([
      Schema.Struct({ a: Schema.Int, b: Schema.Int }),
      Schema.Struct({ a: Schema.Int, c: Schema.optionalKey(Schema.String) })
    ])
  )
})
const unionGroup = HttpApiGroup.make("unions").add(HttpApiEndpoint.get("probe", "/union", { success: unionSuccess }))
const respondUnion = Envelope.respond(unionGroup.endpoints.probe as unknown as HttpApiEndpoint.Top)
const directUnion = (data: object) =>
  respondUnion(data as never).pipe(
    Effect.map((out) => HttpServerResponse.isHttpServerResponse(out)),
    Effect.provideService(IgnoredParameters, [])
  )

describe("Envelope.respond with a union of structs", () => {
  it.effect("a value that is exactly one member, and certainly not an earlier one, is answered directly", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* directUnion({ entries: { x: { a: 1, b: 2 } } }))
      // The first member needs `b`: it cannot take these.
      assert.isTrue(yield* directUnion({ entries: { x: { a: 1 }, y: { a: 2, c: "z" } } }))
    }))

  it.effect("a value an earlier member could take by dropping keys, or no member fits, goes to the encoder", () =>
    Effect.gen(function*() {
      // Exactly the second member, but the first takes it (dropping `c`): the encoder would answer {a, b}.
      assert.isFalse(yield* directUnion({ entries: { x: { a: 1, b: 2, c: "z" } } }))
      assert.isFalse(yield* directUnion({ entries: { x: { a: 1.5 } } }))
      assert.isFalse(yield* directUnion({ entries: { x: { b: 2 } } }))
      assert.isFalse(yield* directUnion({ entries: { x: null } }))
      // An optional field present but not enumerable: the encoder reads it, JSON.stringify does not.
      const hidden = { a: 1 }
      Object.defineProperty(hidden, "c", { value: "z", enumerable: false })
      assert.isFalse(yield* directUnion({ entries: { x: hidden } }))
    }))

  it.effect("what is answered directly is byte for byte what HttpApi's encoder sends", () =>
    Effect.gen(function*() {
      const value = { result: "success", msg: "", entries: { x: { a: 1, b: 2 }, y: { a: 2, c: "z" }, z: { a: 3 } } }
      const encoded = yield* Schema.encodeUnknownEffect(unionSuccess)(value)
      const out = yield* respondUnion({ entries: value.entries } as never).pipe(Effect.provideService(IgnoredParameters, []))
      assert.isTrue(HttpServerResponse.isHttpServerResponse(out))
      if (HttpServerResponse.isHttpServerResponse(out) && out.body._tag === "Uint8Array") {
        assert.strictEqual(new TextDecoder().decode(out.body.body), JSON.stringify(encoded))
      }
    }))
})

describe("the presence endpoints answer without HttpApi's encoder", () => {
  const modern = { active_timestamp: 1767225600, idle_timestamp: 1767225660 }
  const legacy = {
    aggregated: { client: "website", status: "active", timestamp: 1767225600 },
    website: { client: "website", status: "active", timestamp: 1767225600, pushable: false }
  }
  const cases = [
    { name: "a modern ping answer", endpoint: "update", data: { presences: { "7": modern }, presence_last_update_id: 9, server_timestamp: 1767225600.5 } },
    { name: "a legacy ping answer", endpoint: "update", data: { presences: { "a@x.test": legacy }, presence_last_update_id: 9, server_timestamp: 1767225600.5 } },
    { name: "a ping_only answer", endpoint: "update", data: { presence_last_update_id: -1 } },
    { name: "GET /realm/presence", endpoint: "realm", data: { presences: { "a@x.test": legacy }, server_timestamp: 1767225600.5 } }
  ] as const
  for (const { data, endpoint, name } of cases) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const respondPresence = Envelope.respond(Api.groups.presence.endpoints[endpoint] as unknown as HttpApiEndpoint.Top)
        const out = yield* respondPresence(data).pipe(Effect.provideService(IgnoredParameters, []))
        assert.isTrue(HttpServerResponse.isHttpServerResponse(out))
      }))
  }
})

/** The text answered directly, or `undefined` when left to the encoder. */
const unionText = (entries: object) => answeredText(respondUnion, { entries })

/** HttpApi's encoder's text for the same entries. */
const encoderText = (entries: object) =>
  Effect.map(Schema.encodeUnknownEffect(unionSuccess)({ result: "success", msg: "", entries }), JSON.stringify)

describe("Envelope.respond keeps the text of record entries frozen all the way down", () => {
  it.effect("a frozen entry answered again, under its key or another, is written as the encoder writes it", () =>
    Effect.gen(function*() {
      const x = Object.freeze({ a: 1, b: 2 })
      const y = Object.freeze({ a: 2, c: "z" })
      for (const entries of [{ x, y }, { x, y }, { y: x, x: y }, { "10": x, "9": y, k: x }]) {
        assert.strictEqual(yield* unionText(entries), yield* encoderText(entries))
      }
    }))

  it.effect("an entry that is not frozen (or holds one that is not) is written anew each time", () =>
    Effect.gen(function*() {
      const open = { a: 1, b: 2 }
      const frozen = Object.freeze({ a: 1, c: "z" })
      assert.strictEqual(yield* unionText({ open, frozen }), yield* encoderText({ open, frozen }))
      open.b = 3
      assert.strictEqual(yield* unionText({ open, frozen }), yield* encoderText({ open, frozen }))
      assert.include(yield* unionText({ open }), `"b":3`)
    }))

  it.effect("a frozen entry its schema refuses is never kept, and keeps going to the encoder", () =>
    Effect.gen(function*() {
      const wrong = Object.freeze({ a: 1.5, b: 2 })
      assert.isUndefined(yield* unionText({ wrong }))
      assert.isUndefined(yield* unionText({ wrong }))
      const fine = Object.freeze({ a: 1, b: 2 })
      assert.isUndefined(yield* unionText({ fine, wrong }))
    }))
})

describe("Envelope.respond writes small records with the rest of the value, large ones entry by entry", () => {
  const entries = (n: number, entry: (i: number) => object) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, entry(i)]))

  it.effect("either way, the text is the encoder's", () =>
    Effect.gen(function*() {
      for (const n of [0, 1, 16, 17, 40]) {
        const open = entries(n, (i) => (i % 2 === 0 ? { a: i, b: 2 } : { a: i, c: "z" }))
        const frozen = entries(n, (i) => Object.freeze({ a: i, b: 2 }))
        for (const value of [open, frozen, frozen]) {
          assert.strictEqual(yield* unionText(value), yield* encoderText(value), `${n} entries`)
        }
      }
    }))

  it.effect("either way, one entry the schema refuses sends the value to the encoder", () =>
    Effect.gen(function*() {
      for (const n of [1, 16, 17, 40]) {
        const value = entries(n, (i) => (i === n - 1 ? { a: 1.5, b: 2 } : { a: i, b: 2 }))
        assert.isUndefined(yield* unionText(value), `${n} entries`)
      }
    }))
})

describe("GET /messages, GET /messages/{id} and POST /messages answer without HttpApi's encoder", () => {
  const channelMessage = {
    id: 12, sender_id: 4, sender_email: "iago@zulip.test", sender_full_name: "Iago", sender_realm_str: "zulip",
    avatar_url: "https://example.test/a.png", client: "API", content: "<p>hi</p>", content_type: "text/html",
    display_recipient: "Denmark", is_me_message: false, reactions: [], recipient_id: 16, subject: "topic",
    topic_links: [], submessages: [], timestamp: 1767225600, type: "stream", stream_id: 8, flags: ["read"]
  }
  // Keys in the order the message view writes them (the schema's).
  const direct = {
    id: 13, sender_id: 4, sender_email: "iago@zulip.test", sender_full_name: "Iago", sender_realm_str: "zulip",
    avatar_url: null, client: "API", content: "<p>hi</p>", content_type: "text/html",
    display_recipient: [{ id: 4, email: "iago@zulip.test", full_name: "Iago", is_mirror_dummy: false }],
    is_me_message: false,
    // Unknown entries: plain JSON data encodes to itself.
    reactions: [{ emoji_name: "smile", emoji_code: "1f604", reaction_type: "unicode_emoji", user_id: 4 }],
    recipient_id: 17, subject: "", topic_links: [], submessages: [], timestamp: 1767225600, type: "private",
    last_edit_timestamp: 1767225700, flags: [], match_content: "<p>hi</p>", match_subject: ""
  }
  const page = {
    anchor: 10000000000000000, found_anchor: false, found_oldest: false, found_newest: true, history_limited: false,
    messages: [channelMessage, direct]
  }
  const text = (endpoint: "list" | "get" | "send", data: object) =>
    answeredText(Envelope.respond(Api.groups.messages.endpoints[endpoint] as unknown as HttpApiEndpoint.Top), data)
  const encoded = (endpoint: "list" | "get" | "send", data: object) =>
    Effect.map(
      // The endpoint's own success codec (HttpApi keeps its JSON codec), as HttpApi encodes with it.
      Schema.encodeUnknownEffect(
        Array.from(Api.groups.messages.endpoints[endpoint].success as Iterable<Schema.Codec<unknown, unknown>>)[0]!
      )(
        { result: "success", msg: "", ...data }
      ),
      JSON.stringify
    )

  it.effect("a page of channel and direct messages is answered directly, byte for byte as the encoder would", () =>
    Effect.gen(function*() {
      const answered = yield* text("list", page)
      assert.isDefined(answered)
      assert.strictEqual(answered, yield* encoded("list", page))
      const one = { message: channelMessage, raw_content: "hi" }
      assert.strictEqual(yield* text("get", one), yield* encoded("get", one))
      assert.strictEqual(yield* text("send", { id: 12 }), yield* encoded("send", { id: 12 }))
    }))

  it.effect("reactions that are not plain JSON data, or a recipient of the wrong shape, go to the encoder", () =>
    Effect.gen(function*() {
      const withReactions = (reactions: unknown) => ({ ...page, messages: [{ ...channelMessage, reactions }] })
      assert.isUndefined(yield* text("list", withReactions([{ user_id: 1n }])))
      assert.isUndefined(yield* text("list", withReactions([new Date(0)])))
      assert.isUndefined(yield* text("list", withReactions([{ toJSON: () => "x" }])))
      assert.isUndefined(yield* text("list", withReactions([Number.NaN])))
      const wrongRecipient = { ...page, messages: [{ ...direct, display_recipient: [{ id: 4, email: "x" }] }] }
      assert.isUndefined(yield* text("list", wrongRecipient))
      assert.isUndefined(yield* text("list", { ...page, messages: [{ ...channelMessage, display_recipient: 7 }] }))
    }))
})

describe("Envelope.respond with a struct and a rest (POST /register's answer)", () => {
  const restSuccess = Envelope.SuccessWithRest({ queue_id: Schema.String, last_event_id: Schema.Int })
  const restGroup = HttpApiGroup.make("rests").add(HttpApiEndpoint.post("probe", "/rest", { success: restSuccess }))
  const respondRest = Envelope.respond(restGroup.endpoints.probe as unknown as HttpApiEndpoint.Top)
  const restText = (data: object) => answeredText(respondRest, data)
  const restEncoded = (data: object) =>
    Effect.map(Schema.encodeUnknownEffect(restSuccess)({ result: "success", msg: "", ...data }), JSON.stringify)

  const answered = [
    { name: "the fields alone", data: { queue_id: "q", last_event_id: -1 } },
    {
      name: "the fields, then the rest",
      data: { queue_id: "q", last_event_id: -1, realm_users: [{ user_id: 7, full_name: "Iago" }], max_message_id: 40 }
    },
    { name: "rest values of every JSON kind", data: { queue_id: "q", last_event_id: 3, a: null, b: "x", c: true, d: 1.5, e: {} } }
  ] as const
  for (const { data, name } of answered) {
    it.effect(`answered directly, byte for byte as the encoder would: ${name}`, () =>
      Effect.gen(function*() {
        const text = yield* restText(data)
        assert.isDefined(text)
        assert.strictEqual(text, yield* restEncoded(data))
      }))
  }

  it.effect("the rest before a field, a field that fails, or a rest value that is not JSON data go to the encoder", () =>
    Effect.gen(function*() {
      // The encoder writes the fields first: the value's own order would differ.
      assert.isUndefined(yield* restText({ realm_users: [], queue_id: "q", last_event_id: -1 }))
      assert.isUndefined(yield* restText({ queue_id: "q", realm_users: [], last_event_id: -1 }))
      assert.isUndefined(yield* restText({ queue_id: "q", last_event_id: 1.5, realm_users: [] }))
      assert.isUndefined(yield* restText({ queue_id: "q", realm_users: [] }))
      for (const bad of [1n, new Date(0), Number.NaN, undefined, { toJSON: () => "x" }, [() => 1]]) {
        assert.isUndefined(yield* restText({ queue_id: "q", last_event_id: -1, realm_users: bad }))
      }
      // A rest key that is not enumerable: neither writes it, but a field that is not enumerable the encoder reads.
      const hiddenRest = { queue_id: "q", last_event_id: -1 }
      Object.defineProperty(hiddenRest, "secret", { value: 1, enumerable: false })
      assert.strictEqual(yield* restText(hiddenRest), yield* restEncoded(hiddenRest))
      const hiddenField = { queue_id: "q", extra: 1 }
      Object.defineProperty(hiddenField, "last_event_id", { value: -1, enumerable: false })
      assert.isUndefined(yield* restText(hiddenField))
    }))

  it.effect("a request that ignored parameters (written after the rest) goes to the encoder", () =>
    Effect.map(
      answeredText(respondRest, { queue_id: "q", last_event_id: -1, max_message_id: 4 }, ["foo"]),
      (text) => assert.isUndefined(text)
    ))

  it.effect("POST /register's endpoint answers directly, byte for byte as its encoder would", () =>
    Effect.gen(function*() {
      const endpoint = Api.groups.events.endpoints.register
      const data = {
        queue_id: "1:2",
        last_event_id: -1,
        zulip_version: "11.0",
        zulip_feature_level: 400,
        zulip_merge_base: "",
        realm_users: [{ user_id: 4, full_name: "Iago", profile_data: {} }],
        max_message_id: 40
      }
      const text = yield* answeredText(Envelope.respond(endpoint as unknown as HttpApiEndpoint.Top), data)
      assert.isDefined(text)
      const schema = Array.from(endpoint.success as Iterable<Schema.Codec<unknown, unknown>>)[0]!
      assert.strictEqual(text, JSON.stringify(yield* Schema.encodeUnknownEffect(schema)({ result: "success", msg: "", ...data })))
    }))
})
