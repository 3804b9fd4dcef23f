/** UserRepo. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { userId } from "../../../src/domain/Ids.ts"
import type { UserId } from "../../../src/domain/Ids.ts"
import type { User } from "../../../src/domain/User.ts"
import { placeholderEmail } from "../../../src/domain/User.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { RealmRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import type { Vitest } from "@effect/vitest"
import { unique, newRealm, newUser, seed } from "./fixtures.ts"

export const usersTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  // --- users ----------------------------------------------------------

  it.effect("UserRepo: insert passes the new id to make; find and update round-trip every field", () =>
    Effect.gen(function*() {
      const { realm, alice } = yield* seed
      const users = yield* UserRepo
      let made: UserId | undefined
      const bot = yield* users.insert((id) => {
        made = id
        return newUser(realm.id, {
          email: `bot-${id}@example.com`,
          role: 600,
          is_bot: true,
          bot_type: 2,
          bot_owner_id: alice.id,
          is_active: false,
          timezone: "",
          avatar_source: "U",
          avatar_version: 7,
          email_address_visibility: 5,
          password_hash: "scrypt$16384$8$1$salt$hash",
          can_change_user_emails: true
        })(id)
      })
      assert.strictEqual(made, bot.id)
      assert.strictEqual(bot.email, `bot-${bot.id}@example.com`)
      assert.deepStrictEqual(yield* users.findById(bot.id), bot)
      assert.strictEqual(bot.bot_owner_id, alice.id)

      const found = yield* users.findById(alice.id)
      assert.deepStrictEqual(found, alice)
      assert.strictEqual(alice.email, placeholderEmail(alice.id, "example.localhost"))
      assert.strictEqual(alice.password_hash, null)
      assert.strictEqual(alice.bot_type, null)

      const updated: User = {
        ...bot,
        delivery_email: "Changed@Example.com",
        email: "changed@example.com",
        full_name: "Renamed Bot",
        role: 100,
        is_bot: false,
        bot_type: null,
        bot_owner_id: null,
        is_active: true,
        timezone: "Asia/Kolkata",
        avatar_source: "G",
        avatar_version: 8,
        date_joined: 1_900_000_000_000,
        email_address_visibility: 1,
        api_key: unique("rotated"),
        password_hash: null,
        can_change_user_emails: false
      }
      yield* users.update(updated)
      assert.deepStrictEqual(yield* users.findById(bot.id), updated)
      assert.deepStrictEqual(yield* users.findById(alice.id), alice)

      yield* users.update({ ...updated, id: userId(bot.id + 1000) })
      assert.strictEqual(yield* users.findById(userId(bot.id + 1000)), undefined)
    }))

  it.effect("UserRepo: findByDeliveryEmail is case-insensitive and scoped to the organization", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const users = yield* UserRepo
      const r1 = yield* realms.insert(newRealm())
      const r2 = yield* realms.insert(newRealm())
      const local = unique("Alice.Smith")
      const inR1 = yield* users.insert(newUser(r1.id, { delivery_email: `${local}@Example.COM` }))
      const inR2 = yield* users.insert(newUser(r2.id, { delivery_email: `${local.toLowerCase()}@example.com` }))

      assert.deepStrictEqual(yield* users.findByDeliveryEmail(r1.id, `${local}@Example.COM`), inR1)
      assert.deepStrictEqual(yield* users.findByDeliveryEmail(r1.id, `${local.toUpperCase()}@EXAMPLE.COM`), inR1)
      assert.deepStrictEqual(yield* users.findByDeliveryEmail(r1.id, `${local.toLowerCase()}@example.com`), inR1)
      assert.deepStrictEqual(yield* users.findByDeliveryEmail(r2.id, `${local}@Example.COM`), inR2)
      assert.strictEqual(yield* users.findByDeliveryEmail(r1.id, `${local}@example.org`), undefined)
      assert.strictEqual(yield* users.findByDeliveryEmail(r1.id, `${local}`), undefined)
      // LIKE-style wildcards are not patterns.
      assert.strictEqual(yield* users.findByDeliveryEmail(r1.id, `%@example.com`), undefined)
    }))

  it.effect("UserRepo: findByDeliveryEmail folds non-ASCII case", () =>
    Effect.gen(function*() {
      const { realm } = yield* seed
      const users = yield* UserRepo
      const local = unique("élodie.ñúñez")
      const user = yield* users.insert(newUser(realm.id, { delivery_email: `${local}@exämple.com` }))
      assert.deepStrictEqual(yield* users.findByDeliveryEmail(realm.id, `${local.toUpperCase()}@EXÄMPLE.COM`), user)
    }))

  it.effect("UserRepo: findByApiKey finds exactly that key", () =>
    Effect.gen(function*() {
      const { alice, bob } = yield* seed
      const users = yield* UserRepo
      assert.deepStrictEqual(yield* users.findByApiKey(alice.api_key), alice)
      assert.deepStrictEqual(yield* users.findByApiKey(bob.api_key), bob)
      assert.strictEqual(yield* users.findByApiKey(alice.api_key.toUpperCase()), undefined)
      assert.strictEqual(yield* users.findByApiKey(unique("missing")), undefined)
      assert.strictEqual(yield* users.findByApiKey(""), undefined)
    }))

  it.effect("UserRepo: listByRealm keeps organizations apart and orders by id", () =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const users = yield* UserRepo
      const r1 = yield* realms.insert(newRealm())
      const r2 = yield* realms.insert(newRealm())
      const a = yield* users.insert(newUser(r1.id))
      const b = yield* users.insert(newUser(r2.id))
      const c = yield* users.insert(newUser(r1.id, { is_active: false }))
      const d = yield* users.insert(newUser(r1.id, { is_bot: true, bot_type: 1, bot_owner_id: a.id }))
      const e = yield* users.insert(newUser(r2.id))
      assert.deepStrictEqual(yield* users.listByRealm(r1.id), [a, c, d])
      assert.deepStrictEqual(yield* users.listByRealm(r2.id), [b, e])
      const r3 = yield* realms.insert(newRealm())
      assert.deepStrictEqual(yield* users.listByRealm(r3.id), [])
    }))
}
