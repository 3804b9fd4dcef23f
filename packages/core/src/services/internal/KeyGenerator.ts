/**
 * Generation of secrets and opaque ids (API keys, event queue ids), and the
 * server's signatures (HMAC with its signing key: temporary file URLs). A
 * service so tests can make them deterministic. Also the names of a process's
 * components among a deployment's processes (`instanceId`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto"

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** A cryptographically random token; rejection sampling keeps every character equally likely. */
const randomToken = (length: number, chars = alphabet): Effect.Effect<string> =>
  Effect.sync(() => {
    const limit = 256 - (256 % chars.length)
    let out = ""
    while (out.length < length) {
      for (const byte of randomBytes(length * 2)) {
        if (byte < limit && out.length < length) out += chars[byte % chars.length]
      }
    }
    return out
  })

/** HMAC-SHA256 signatures under `key`, the salt keeping one use's signatures from passing for another's. */
const signer = (key: Uint8Array) => {
  const mac = (salt: string, message: string) => createHmac("sha256", key).update(`${salt}\0${message}`).digest()
  return {
    sign: (salt: string, message: string) => Effect.sync(() => mac(salt, message).toString("base64url")),
    verify: (salt: string, message: string, signature: string) =>
      Effect.sync(() => {
        const expected = mac(salt, message)
        const given = Buffer.from(signature, "base64url")
        return given.length === expected.length && given.toString("base64url") === signature &&
          timingSafeEqual(given, expected)
      })
  }
}

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
  /**
   * The server's signature of `message` under `salt` (HMAC-SHA256 with the
   * server's signing key, base64url): what a signed token (a temporary
   * file URL) carries.
   */
  sign(salt: string, message: string): Effect.Effect<string>
  /** Whether `signature` is the server's signature of `message` under `salt` (compared in constant time). */
  verify(salt: string, message: string, signature: string): Effect.Effect<boolean>
}>()("teamchat/core/services/KeyGenerator") {
  /**
   * Cryptographically random tokens; signatures with `signingKey`, or a
   * key drawn at random when the layer is built (each process its own: a
   * deployment of several processes passes them one key, `Cluster.ts`).
   */
  static readonly layerWith = (options: { readonly signingKey?: Uint8Array | undefined } = {}) =>
    Layer.sync(KeyGenerator, () =>
      KeyGenerator.of({
        token: randomToken,
        uuid: Effect.sync(randomUUID),
        ...signer(options.signingKey ?? randomBytes(32))
      }))

  /** Cryptographically random tokens and a random signing key. */
  static readonly layer = KeyGenerator.layerWith()

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
      uuid: Effect.sync(() => `00000000-0000-4000-8000-${(++uuids).toString(16).padStart(12, "0")}`),
      // A key of its own, drawn from the tokens' generator's seed, not from its sequence: signing leaves the tokens alone.
      ...signer(Buffer.from(Array.from({ length: 32 }, (_, i) => (0x2545f491 >>> ((i % 4) * 8)) ^ i)))
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
