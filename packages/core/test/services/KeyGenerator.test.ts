/**
 * The server's signatures (`KeyGenerator.sign`, `verify`): what temporary
 * file URLs carry. Processes given one key (a cluster's workers) accept each
 * other's; a process's own random key accepts only its own; a salt keeps one
 * use's signatures from passing for another's; a signature changed in any
 * way, or written differently, is refused. The test generator's signing
 * leaves its token sequence alone.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { KeyGenerator } from "../../src/services/internal/KeyGenerator.ts"

const build = (layer: Layer.Layer<KeyGenerator>) => Effect.scoped(Effect.map(Layer.build(layer), (context) => context.mapUnsafe.get(KeyGenerator.key) as KeyGenerator["Service"]))

describe("KeyGenerator signatures", () => {
  it.effect("one key shared: each accepts the other's; random keys: only their own", () =>
    Effect.gen(function*() {
      const key = new Uint8Array(32).fill(7)
      const a = yield* build(KeyGenerator.layerWith({ signingKey: key }))
      const b = yield* build(KeyGenerator.layerWith({ signingKey: key }))
      const signature = yield* a.sign("salt", "1/ab/token/file.txt:1767225660")
      assert.match(signature, /^[A-Za-z0-9_-]{43}$/)
      assert.isTrue(yield* b.verify("salt", "1/ab/token/file.txt:1767225660", signature))

      const r1 = yield* build(KeyGenerator.layer)
      const r2 = yield* build(KeyGenerator.layer)
      const own = yield* r1.sign("salt", "message")
      assert.isTrue(yield* r1.verify("salt", "message", own))
      assert.isFalse(yield* r2.verify("salt", "message", own))
      assert.notStrictEqual(own, yield* r2.sign("salt", "message"))
    }))

  it.effect("another salt, another message, a changed or differently written signature: refused", () =>
    Effect.gen(function*() {
      const keys = yield* build(KeyGenerator.layer)
      const signature = yield* keys.sign("salt", "message")
      assert.isFalse(yield* keys.verify("other salt", "message", signature))
      assert.isFalse(yield* keys.verify("salt", "message!", signature))
      // The salt and the message are kept apart: moving text across the boundary changes the signature.
      assert.isFalse(yield* keys.verify("saltm", "essage", signature))
      const flipped = signature.slice(0, -1) + (signature.endsWith("A") ? "B" : "A")
      for (const wrong of ["", flipped, signature.slice(1), signature + "A", signature + "=", Buffer.from(signature, "base64url").toString("base64")]) {
        if (wrong === signature) continue
        assert.isFalse(yield* keys.verify("salt", "message", wrong), wrong)
      }
    }))

  it.effect("the test generator: signatures are the same on every run, and its tokens do not move", () =>
    Effect.gen(function*() {
      const plain = yield* build(KeyGenerator.layerTest)
      const signing = yield* build(KeyGenerator.layerTest)
      const signature = yield* signing.sign("salt", "message")
      assert.strictEqual(signature, yield* plain.sign("salt", "message"))
      assert.isTrue(yield* plain.verify("salt", "message", signature))
      assert.strictEqual(yield* signing.token(32), yield* plain.token(32))
    }))
})
