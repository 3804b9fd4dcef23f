/**
 * The system bots (the Welcome Bot, the Notification Bot) share one
 * find-or-create (`services/SystemBot.ts`): each is made once per
 * organization, a generic bot without owner under its address, and
 * concurrent first uses, from two processes on one PostgreSQL database,
 * all get that one bot.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Struct from "effect/Struct"
import type { RealmId } from "../../src/domain/Ids.ts"
import type { User } from "../../src/domain/User.ts"
import * as Persistence from "../../src/Persistence.ts"
import { UserRepo } from "../../src/ports/Repositories.ts"
import { NotificationBot, NotificationBotEmail, NotificationBotName } from "../../src/services/NotificationBot.ts"
import { WelcomeBot, WelcomeBotEmail, WelcomeBotName } from "../../src/services/WelcomeBot.ts"
import * as CheckedEvents from "../../src/testing/CheckedEvents.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import * as Teamchat from "../../src/Teamchat.ts"
import { backends, makeOrg } from "../events/fixtures.ts"

const addresses = [NotificationBotEmail, WelcomeBotEmail]

/** The organization's users under a system bot's address, by id. */
const systemBotRows = (realmId: RealmId) =>
  Effect.map(UserRepo.use((repo) => repo.listByRealm(realmId)), (users) => users.filter((u) => addresses.includes(u.delivery_email)))

/** What makes a user a system bot. */
const shape = (user: User) =>
  Struct.pick(user, ["delivery_email", "email", "full_name", "role", "is_bot", "bot_type", "bot_owner_id", "is_active"])

const bots = {
  notification: (realmId: RealmId) => NotificationBot.use((service) => service.bot(realmId)),
  welcome: (realmId: RealmId) => WelcomeBot.use((service) => service.bot(realmId))
}

layer(backends.memory())("system bots", (it) => {
  it.effect("each is made on first use, once: a generic bot without owner under its address", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      assert.deepStrictEqual(yield* systemBotRows(org.realm.id), [])
      const notification = yield* bots.notification(org.realm.id)
      const welcome = yield* bots.welcome(org.realm.id)
      assert.deepStrictEqual(shape(notification), {
        delivery_email: NotificationBotEmail,
        email: NotificationBotEmail,
        full_name: NotificationBotName,
        role: 400,
        is_bot: true,
        bot_type: 1,
        bot_owner_id: null,
        is_active: true
      })
      assert.deepStrictEqual(shape(welcome), {
        delivery_email: WelcomeBotEmail,
        email: WelcomeBotEmail,
        full_name: WelcomeBotName,
        role: 400,
        is_bot: true,
        bot_type: 1,
        bot_owner_id: null,
        is_active: true
      })
      // Later uses find them.
      assert.strictEqual((yield* bots.notification(org.realm.id)).id, notification.id)
      assert.strictEqual((yield* bots.welcome(org.realm.id)).id, welcome.id)
      assert.deepStrictEqual(
        (yield* systemBotRows(org.realm.id)).map((u) => u.id),
        [notification.id, welcome.id]
      )
    }))
})

describe("system bots on two processes of one PostgreSQL database", () => {
  it.effect("concurrent first uses of both bots from both processes: one bot of each", () =>
    Effect.gen(function*() {
      const database = yield* TestDatabase.TestDatabase
      // Real keys: the test key generator gives both processes the same API
      // keys, which collide on users' unique api_key before the address does.
      const open = () =>
        CheckedEvents.layerServices(Persistence.layerPostgres(database.url, { maxConnections: 4 }), Teamchat.layerSecrets)
      // Built one after the other: the second finds the migrations done.
      const a = yield* Layer.build(open())
      const b = yield* Layer.build(open())
      const org = yield* Effect.provide(makeOrg, a)
      const calls = [a, b].flatMap((process) => [
        ...Array.from({ length: 4 }, () => Effect.provide(bots.notification(org.realm.id), process)),
        ...Array.from({ length: 4 }, () => Effect.provide(bots.welcome(org.realm.id), process))
      ])
      const found = yield* Effect.all(calls, { concurrency: "unbounded" })
      const rows = yield* Effect.provide(systemBotRows(org.realm.id), b)
      assert.deepStrictEqual(rows.map((u) => u.delivery_email).sort(), [NotificationBotEmail, WelcomeBotEmail].sort())
      const idOf = (address: string) => rows.find((u) => u.delivery_email === address)!.id
      assert.deepStrictEqual(
        found.map((u) => u.id),
        [a, b].flatMap(() => [
          ...Array.from({ length: 4 }, () => idOf(NotificationBotEmail)),
          ...Array.from({ length: 4 }, () => idOf(WelcomeBotEmail))
        ])
      )
    }).pipe(Effect.provide(TestDatabase.postgresLayer())), 60_000)
})
