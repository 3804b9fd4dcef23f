/**
 * Generation of secrets and opaque ids (API keys, event queue ids). A service
 * so tests can make them deterministic. Also the names of a process's
 * components among a deployment's processes (`instanceId`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import { randomBytes, randomUUID } from "node:crypto"

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** Zulip API keys: 32 characters of [A-Za-z0-9]. @category constants */
export const ApiKeyLength = 32

/** @category predicates */
export const isWellFormedApiKey = (key: string): boolean => /^[A-Za-z0-9]{32}$/.test(key)

/** @category services */
export class KeyGenerator extends Context.Service<KeyGenerator, {
  /**
   * A fresh random string of `length` characters from `chars` (default
   * [A-Za-z0-9]; at most 256 characters), each equally likely.
   */
  token(length: number, chars?: string): Effect.Effect<string>
  /** A fresh opaque id in UUID form (event queue ids). */
  readonly uuid: Effect.Effect<string>
}>()("teamchat/core/services/KeyGenerator") {
  /** Cryptographically random tokens. */
  static readonly layer = Layer.succeed(
    KeyGenerator,
    KeyGenerator.of({
      token: (length, chars = alphabet) =>
        Effect.sync(() => {
          // Rejection sampling keeps every character equally likely.
          const limit = 256 - (256 % chars.length)
          let out = ""
          while (out.length < length) {
            for (const byte of randomBytes(length * 2)) {
              if (byte < limit && out.length < length) out += chars[byte % chars.length]
            }
          }
          return out
        }),
      uuid: Effect.sync(randomUUID)
    })
  )

  /**
   * Deterministic tokens for tests: the same sequence on every run. UUIDs
   * count up (`…-000000000001`, `…-000000000002`) apart from the tokens, so
   * registering a queue does not change the next API key.
   */
  static readonly layerTest = Layer.sync(KeyGenerator, () => {
    let uuids = 0
    let state = 0x2545f491
    const next = () => {
      // xorshift32
      state ^= state << 13
      state ^= state >>> 17
      state ^= state << 5
      return state >>> 0
    }
    return KeyGenerator.of({
      token: (length, chars = alphabet) =>
        Effect.sync(() => Array.from({ length }, () => chars[next() % chars.length]).join("")),
      uuid: Effect.sync(() => `00000000-0000-4000-8000-${(++uuids).toString(16).padStart(12, "0")}`)
    })
  })
}

const hex4 = (n: number): string => n.toString(16).padStart(4, "0")

/**
 * A fresh name, in UUID (v4) form, for one instance of a component among all
 * the processes of a deployment: the SQL event store's NOTIFY origin, the
 * Redis rate-limit store's request members. From effect's `Random`, so
 * `Random.withSeed` makes it reproducible in a test. It names and guards
 * nothing, so it needs no cryptographic source (unlike `KeyGenerator`'s
 * tokens); and it is not `KeyGenerator.uuid`, whose test sequence would give
 * two processes of one test the same name.
 *
 * @category constructors
 */
export const instanceId: Effect.Effect<string> = Effect.map(
  Effect.all(Array.from({ length: 8 }, () => Random.nextIntBetween(0, 0xffff))),
  ([a, b, c, d, e, f, g, h]) =>
    `${hex4(a!)}${hex4(b!)}-${hex4(c!)}-${hex4((d! & 0x0fff) | 0x4000)}-${hex4((e! & 0x3fff) | 0x8000)}-${hex4(f!)}${hex4(g!)}${hex4(h!)}`
)

/** A new API key. @category constructors */
export const apiKey: Effect.Effect<string, never, KeyGenerator> = KeyGenerator.use((g) => g.token(ApiKeyLength))
