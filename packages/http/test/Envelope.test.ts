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
    }))
})
