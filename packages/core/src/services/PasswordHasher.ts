/**
 * Password storage: salted scrypt hashes only, compared in constant time.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

interface ScryptCost {
  readonly N: number
  readonly r: number
  readonly p: number
}

const keyLength = 32

const derive = (password: string, salt: Buffer, cost: ScryptCost) =>
  Effect.callback<Buffer>((resume) => {
    scrypt(password.normalize("NFKC"), salt, keyLength, { ...cost, maxmem: 256 * cost.N * cost.r }, (error, key) => {
      // scrypt only fails for invalid parameters, which are ours.
      resume(error ? Effect.die(error) : Effect.succeed(key))
    })
  })

const make = (cost: ScryptCost) =>
  PasswordHasher.of({
    hash: (password) =>
      Effect.gen(function*() {
        const salt = randomBytes(16)
        const key = yield* derive(password, salt, cost)
        return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString("base64")}$${key.toString("base64")}`
      }),
    verify: (password, stored) =>
      Effect.gen(function*() {
        const parts = stored.split("$")
        if (parts.length !== 6 || parts[0] !== "scrypt") return false
        const [, N, r, p, salt, expected] = parts as [string, string, string, string, string, string]
        const expectedKey = Buffer.from(expected, "base64")
        const key = yield* derive(password, Buffer.from(salt, "base64"), { N: Number(N), r: Number(r), p: Number(p) })
        return key.length === expectedKey.length && timingSafeEqual(key, expectedKey)
      })
  })

/** @category services */
export class PasswordHasher extends Context.Service<PasswordHasher, {
  hash(password: string): Effect.Effect<string>
  verify(password: string, stored: string): Effect.Effect<boolean>
}>()("teamchat/core/services/PasswordHasher") {
  /** Production cost (N = 2^15, about 50 ms per hash). */
  static readonly layer = Layer.sync(PasswordHasher, () => make({ N: 1 << 15, r: 8, p: 1 }))
  /** Cheap cost for tests; the format and checks are the same. */
  static readonly layerTest = Layer.sync(PasswordHasher, () => make({ N: 1 << 10, r: 8, p: 1 }))
}
