/**
 * The organization's access read is kept between requests while its access
 * version holds (`AccessCache`), on every backend: a read with nothing
 * written since is the kept one, every write to what access decisions read
 * is seen by the next read, and nothing read inside a rolled-back
 * transaction outlives it.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { AccessCache } from "../../src/ports/AccessCache.ts"
import { AlertWordRepo, GroupRepo, RealmRepo, UserRepo } from "../../src/ports/Repositories.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import { Channels } from "../../src/services/Channels.ts"
import { makeAccessLoader } from "../../src/services/internal/access.ts"
import { Organizations } from "../../src/services/Organizations.ts"
import { backends, makeOrg } from "../events/fixtures.ts"

class Boom {
  readonly _tag = "Boom"
}

/** The member's name in a fresh read of the organization. */
const nameIn = (ctx: { readonly state: { readonly usersById: ReadonlyMap<number, { readonly full_name: string }> } }, id: number) =>
  ctx.state.usersById.get(id)?.full_name

for (const [name, make] of Object.entries(backends)) {
  describe(`access cache on ${name}`, () => {
    layer(make(), { timeout: "120 seconds" })((it) => {
      it.effect("is provided, and a read with nothing written since is the kept one", () =>
        Effect.gen(function*() {
          assert.isTrue((yield* Effect.serviceOption(AccessCache))._tag === "Some")
          const org = yield* makeOrg
          const load = yield* makeAccessLoader
          const first = yield* load(org.realm)
          assert.strictEqual(yield* load(org.realm), first)
        }))

      it.effect("every write to what access decisions read is seen by the next read", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const load = yield* makeAccessLoader
          const users = yield* UserRepo
          const member = org.member.user
          const changes: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown, any>, (ctx: any) => boolean]> = [
            [
              "user",
              users.update({ ...member, full_name: "Renamed" }),
              (ctx) => nameIn(ctx, member.id) === "Renamed"
            ],
            [
              "realm",
              (yield* RealmRepo).update({ ...org.realm, name: "Renamed org" }),
              (ctx) => ctx.state.realm.name === "Renamed org"
            ],
            [
              "group members",
              Effect.gen(function*() {
                const system = yield* (yield* Organizations).systemGroups(org.realm.id)
                yield* (yield* GroupRepo).addMembers(system["role:administrators"], [member.id])
              }),
              (ctx) => ctx.state.index.isMember(member.id, ctx.state.groups.find((g: any) => g.name === "role:administrators").id)
            ],
            [
              "channel and subscriptions",
              Effect.gen(function*() {
                const channels = yield* Channels
                const created = yield* channels.create(org.realm.id, { name: "cache check", description: "" })
                yield* channels.subscribe(created.id, [member.id])
              }),
              (ctx) =>
                ctx.channels.some((c: any) => c.name === "cache check" && ctx.subscriptions.get(member.id)?.has(c.id) === true)
            ],
            [
              "alert words",
              (yield* AlertWordRepo).add(member.id, ["cachecheck"]),
              (ctx) => ctx.alertWords.get(member.id)?.includes("cachecheck") === true
            ]
          ]
          for (const [what, write, seen] of changes) {
            const before = yield* load(org.realm)
            assert.isFalse(seen(before), `${what}: already there`)
            yield* write
            assert.isTrue(seen(yield* load(org.realm)), `${what}: not seen after the write`)
          }
        }))

      it.effect("a read made inside a rolled-back transaction is not kept", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const load = yield* makeAccessLoader
          const users = yield* UserRepo
          const member = org.member.user
          yield* load(org.realm)
          const failed = yield* (yield* Transactor).withTransaction(Effect.gen(function*() {
            yield* users.update({ ...member, full_name: "Uncommitted" })
            assert.strictEqual(nameIn(yield* load(org.realm), member.id), "Uncommitted")
            return yield* Effect.fail(new Boom())
          })).pipe(Effect.flip)
          assert.strictEqual(failed._tag, "Boom")
          assert.strictEqual(nameIn(yield* load(org.realm), member.id), member.full_name)
        }))
    })
  })
}

// Memory transactions do not isolate: a read outside one sees its writes
// before it commits, and must not keep them past a rollback.
describe("access cache on memory, a read beside a transaction", () => {
  layer(backends.memory())((it) => {
    it.effect("a read of uncommitted state made outside the transaction is not kept past its rollback", () =>
      Effect.gen(function*() {
        const org = yield* makeOrg
        const load = yield* makeAccessLoader
        const users = yield* UserRepo
        const member = org.member.user
        const written = yield* Deferred.make<void>()
        const readDone = yield* Deferred.make<void>()
        const writer = yield* (yield* Transactor).withTransaction(Effect.gen(function*() {
          yield* users.update({ ...member, full_name: "Uncommitted" })
          yield* Deferred.succeed(written, undefined)
          yield* Deferred.await(readDone)
          return yield* Effect.fail(new Boom())
        })).pipe(Effect.flip, Effect.forkChild)
        yield* Deferred.await(written)
        assert.strictEqual(nameIn(yield* load(org.realm), member.id), "Uncommitted")
        yield* Deferred.succeed(readDone, undefined)
        yield* Fiber.join(writer)
        assert.strictEqual(nameIn(yield* load(org.realm), member.id), member.full_name)
      }))
  })
})
