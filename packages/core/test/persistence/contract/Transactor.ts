/**
 * Transactor: commits, rollbacks on failures and defects, nested
 * transactions, and afterCommit.
 */
import { assert } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import type { Channel } from "../../../src/domain/Channel.ts"
import type { RealmId } from "../../../src/domain/Ids.ts"
import type { Realm } from "../../../src/domain/Realm.ts"
import type { User } from "../../../src/domain/User.ts"
import type { UserGroup } from "../../../src/domain/UserGroup.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { ChannelRepo, GroupRepo, RealmRepo, SubscriptionRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { Transactor } from "../../../src/ports/Transactor.ts"
import type { Vitest } from "@effect/vitest"
import { unique, newRealm, newUser, newGroup, newChannel, subscription, sortedMembership, ids, Boom, seed } from "./fixtures.ts"

export const transactorTests = (it: Vitest.MethodsNonLive<Persistence>): void => {
  it.effect("a committed transaction keeps every write", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const { realm, alice, bob, group, channel } = yield* tx.withTransaction(Effect.gen(function*() {
        const seeded = yield* seed
        const groups = yield* GroupRepo
        const channels = yield* ChannelRepo
        const group = yield* groups.insert(newGroup(seeded.realm.id))
        yield* groups.addMembers(group.id, [seeded.alice.id])
        const channel = yield* channels.insert(newChannel(seeded.realm.id))
        yield* (yield* SubscriptionRepo).upsert(subscription(seeded.bob.id, channel.id))
        return { ...seeded, group, channel }
      }))
      assert.deepStrictEqual(yield* (yield* RealmRepo).findById(realm.id), realm)
      assert.deepStrictEqual(yield* (yield* UserRepo).listByRealm(realm.id), [alice, bob])
      assert.deepStrictEqual(yield* (yield* GroupRepo).findById(group.id), group)
      assert.deepStrictEqual(sortedMembership(yield* (yield* GroupRepo).membership(realm.id)), {
        members: [[group.id, [alice.id]]],
        subgroups: []
      })
      assert.deepStrictEqual(yield* (yield* SubscriptionRepo).listByRealm(realm.id), [
        subscription(bob.id, channel.id)
      ])
    }))

  /** Writes to every table inside `tx`, then fails the way `end` says. */
  const writeEverything = <E>(
    realm: Realm,
    alice: User,
    group: UserGroup,
    channel: Channel,
    end: Effect.Effect<never, E>
  ) =>
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const users = yield* UserRepo
      const groups = yield* GroupRepo
      const channels = yield* ChannelRepo
      const subs = yield* SubscriptionRepo
      yield* realms.update({ ...realm, name: "changed", deactivated: true })
      yield* users.update({ ...alice, full_name: "changed", api_key: unique("changed") })
      const carol = yield* users.insert(newUser(realm.id))
      yield* groups.update({ ...group, name: unique("changed") })
      yield* groups.addMembers(group.id, [carol.id])
      yield* groups.removeMembers(group.id, [alice.id])
      yield* groups.addSubgroups(group.id, [group.id])
      yield* channels.update({ ...channel, name: unique("changed"), is_default: true })
      const extra = yield* channels.insert(newChannel(realm.id))
      yield* subs.upsert(subscription(alice.id, channel.id, { active: false }))
      yield* subs.upsert(subscription(carol.id, extra.id))
      yield* realms.insert(newRealm())
      return yield* end
    })

  /** A snapshot of everything an organization's rows look like. */
  const observe = (realm: RealmId) =>
    Effect.gen(function*() {
      return {
        realm: yield* (yield* RealmRepo).findById(realm),
        realms: ids(yield* (yield* RealmRepo).list),
        users: yield* (yield* UserRepo).listByRealm(realm),
        groups: yield* (yield* GroupRepo).listByRealm(realm),
        membership: sortedMembership(yield* (yield* GroupRepo).membership(realm)),
        channels: yield* (yield* ChannelRepo).listByRealm(realm),
        subscriptions: yield* (yield* SubscriptionRepo).listByRealm(realm)
      }
    })

  const setup = Effect.gen(function*() {
    const { realm, alice, bob } = yield* seed
    const group = yield* (yield* GroupRepo).insert(newGroup(realm.id))
    yield* (yield* GroupRepo).addMembers(group.id, [alice.id, bob.id])
    const channel = yield* (yield* ChannelRepo).insert(newChannel(realm.id))
    yield* (yield* SubscriptionRepo).upsert(subscription(alice.id, channel.id))
    return { realm, alice, bob, group, channel }
  })

  it.effect("a failing transaction rolls every write back", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const { realm, alice, group, channel } = yield* setup
      const before = yield* observe(realm.id)
      const error = yield* tx.withTransaction(writeEverything(realm, alice, group, channel, Effect.fail(new Boom())))
        .pipe(Effect.flip)
      assert.instanceOf(error, Boom)
      assert.deepStrictEqual(yield* observe(realm.id), before)
      assert.deepStrictEqual(yield* (yield* UserRepo).findByApiKey(alice.api_key), alice)
    }))

  it.effect("a defect rolls every write back", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const { realm, alice, group, channel } = yield* setup
      const before = yield* observe(realm.id)
      const exit = yield* tx.withTransaction(writeEverything(realm, alice, group, channel, Effect.die("boom")))
        .pipe(Effect.exit)
      assert.isTrue(Exit.hasDies(exit))
      assert.deepStrictEqual(yield* observe(realm.id), before)
    }))

  it.effect("a failing nested transaction rolls back only its own writes when the outer one recovers", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const users = yield* UserRepo
      const groups = yield* GroupRepo
      const { realm, alice, bob, group } = yield* setup
      const result = yield* tx.withTransaction(Effect.gen(function*() {
        const outerUser = yield* users.insert(newUser(realm.id))
        yield* groups.addMembers(group.id, [outerUser.id])
        const inner = yield* tx.withTransaction(Effect.gen(function*() {
          const innerUser = yield* users.insert(newUser(realm.id))
          yield* groups.addMembers(group.id, [innerUser.id])
          yield* groups.removeMembers(group.id, [alice.id])
          yield* users.update({ ...bob, full_name: "inner" })
          return yield* Effect.fail(new Boom())
        })).pipe(Effect.flip)
        assert.instanceOf(inner, Boom)
        // Inside the outer transaction the inner writes are already gone.
        assert.deepStrictEqual(yield* users.findById(bob.id), bob)
        const lastUser = yield* users.insert(newUser(realm.id))
        // A nested transaction that succeeds is kept.
        yield* tx.withTransaction(groups.addMembers(group.id, [lastUser.id]))
        return { outerUser, lastUser }
      }))
      assert.deepStrictEqual(yield* users.listByRealm(realm.id), [alice, bob, result.outerUser, result.lastUser])
      assert.strictEqual(result.lastUser.id, result.outerUser.id + 2)
      assert.deepStrictEqual(sortedMembership(yield* groups.membership(realm.id)), {
        members: [[group.id, [alice.id, bob.id, result.outerUser.id, result.lastUser.id]]],
        subgroups: []
      })
    }))

  it.effect("a nested defect also rolls back only the nested part", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const channels = yield* ChannelRepo
      const { realm, channel } = yield* setup
      yield* tx.withTransaction(Effect.gen(function*() {
        yield* channels.update({ ...channel, description: "outer" })
        const exit = yield* tx.withTransaction(channels.update({ ...channel, description: "inner" }).pipe(
          Effect.andThen(Effect.die("inner boom"))
        )).pipe(Effect.exit)
        assert.isTrue(Exit.hasDies(exit))
      }))
      assert.deepStrictEqual(yield* channels.listByRealm(realm.id), [{ ...channel, description: "outer" }])
    }))

  it.effect("afterCommit runs after the commit, with the committed state visible", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const realms = yield* RealmRepo
      const log = yield* Ref.make<Array<string>>([])
      const push = (entry: string) => Ref.update(log, (entries) => [...entries, entry])
      const realm = yield* tx.withTransaction(Effect.gen(function*() {
        const realm = yield* realms.insert(newRealm())
        yield* tx.afterCommit(Effect.gen(function*() {
          const seen = yield* realms.findById(realm.id)
          yield* push(seen === undefined ? "callback: missing" : `callback: ${seen.string_id}`)
        }))
        yield* tx.withTransaction(tx.afterCommit(push("nested callback")))
        yield* push("body done")
        return realm
      }))
      assert.deepStrictEqual(yield* Ref.get(log), ["body done", `callback: ${realm.string_id}`, "nested callback"])
    }))

  it.effect("a fiber forked by an afterCommit callback runs transactions of its own", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const realms = yield* RealmRepo
      const log = yield* Ref.make<Array<string>>([])
      const push = (entry: string) => Ref.update(log, (entries) => [...entries, entry])
      // The forked work starts once the first transaction is over, callbacks included.
      const gate = yield* Deferred.make<void>()
      const forked = yield* Deferred.make<Fiber.Fiber<Realm>>()
      yield* tx.withTransaction(Effect.gen(function*() {
        yield* realms.insert(newRealm())
        yield* tx.afterCommit(Effect.gen(function*() {
          const fiber = yield* Effect.forkDetach(Deferred.await(gate).pipe(
            Effect.andThen(tx.withTransaction(Effect.gen(function*() {
              const realm = yield* realms.insert(newRealm())
              yield* tx.afterCommit(push("forked commit"))
              return realm
            })))
          ))
          yield* Deferred.succeed(forked, fiber)
        }))
      }))
      yield* Deferred.succeed(gate, undefined)
      const realm = yield* Fiber.join(yield* Deferred.await(forked))
      assert.deepStrictEqual(yield* Ref.get(log), ["forked commit"])
      assert.deepStrictEqual(yield* realms.findById(realm.id), realm)
    }))

  it.effect("afterCommit outside a transaction runs at once", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const log = yield* Ref.make<Array<string>>([])
      yield* tx.afterCommit(Ref.update(log, (entries) => [...entries, "ran"]))
      assert.deepStrictEqual(yield* Ref.get(log), ["ran"])
    }))

  it.effect("afterCommit never runs after a rollback", () =>
    Effect.gen(function*() {
      const tx = yield* Transactor
      const realms = yield* RealmRepo
      const log = yield* Ref.make<Array<string>>([])
      const push = (entry: string) => Ref.update(log, (entries) => [...entries, entry])

      yield* tx.withTransaction(Effect.gen(function*() {
        yield* realms.insert(newRealm())
        yield* tx.afterCommit(push("failed"))
        return yield* Effect.fail(new Boom())
      })).pipe(Effect.flip)

      yield* tx.withTransaction(Effect.gen(function*() {
        yield* tx.afterCommit(push("died"))
        return yield* Effect.die("boom")
      })).pipe(Effect.exit)

      yield* tx.withTransaction(Effect.gen(function*() {
        yield* tx.afterCommit(push("outer"))
        yield* tx.withTransaction(Effect.gen(function*() {
          yield* tx.afterCommit(push("inner rolled back"))
          return yield* Effect.fail(new Boom())
        })).pipe(Effect.flip)
        yield* tx.afterCommit(push("outer again"))
      }))

      assert.deepStrictEqual(yield* Ref.get(log), ["outer", "outer again"])
    }))
}
