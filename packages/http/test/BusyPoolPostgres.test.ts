/**
 * A server whose database pool is exhausted answers at once with Zulip's
 * JSON error shape and a 503 with `Retry-After`, instead of holding the
 * request until a connection frees (issue #32 item 8): the wait for a
 * connection is bounded by the pool's `acquireTimeout`
 * (`DATABASE_POOL_TIMEOUT_SECONDS`). The test holds every connection of a
 * small pool in open transactions (the listeners keep theirs), then asks.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import * as CheckedEvents from "@teamchat/core/testing/CheckedEvents"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { accounts, layerServer, realmUrl, Server } from "./support/Harness.ts"
import type { Core } from "./support/Harness.ts"

const core = (clock: { readonly clock: Clock.Clock }) =>
  Layer.effectDiscard(DemoOrganization.seed(realmUrl)).pipe(
    Layer.provideMerge(CheckedEvents.layerSql().pipe(Layer.provideMerge(
      TestDatabase.postgresLayer({ pool: { maxConnections: 4, acquireTimeout: "300 millis" } })
    ))),
    Layer.provideMerge(Layer.succeed(Clock.Clock, clock.clock))
  ) as Layer.Layer<Core, unknown>

describe("an exhausted PostgreSQL pool", () => {
  layer(layerServer(core), { timeout: "120 seconds" })((it) => {
    it.effect("is a JSON 503 with Retry-After, and the server answers again once a connection frees", () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const me = () => server.fetch("GET", "/api/v1/users/me", { as: hamlet })
        assert.strictEqual((yield* me()).status, 200)

        // Take connections until the pool has none left: a holder that cannot get one fails.
        const release = yield* Deferred.make<void>()
        // The server's own client: the core's context holds it beside the services.
        const sql = yield* server.core(
          Effect.service(SqlClient.SqlClient) as unknown as Effect.Effect<SqlClient.SqlClient, never, Core>
        )
        let holders = 0
        for (;;) {
          const held = yield* Deferred.make<boolean>()
          yield* Effect.forkScoped(
            sql.withTransaction(Effect.andThen(sql`SELECT 1`, Effect.andThen(Deferred.succeed(held, true), Deferred.await(release)))).pipe(
              Effect.onExit((exit) =>
                Exit.isFailure(exit) ? Effect.asVoid(Deferred.succeed(held, false)) : Effect.void
              ),
              Effect.ignore
            )
          )
          if (!(yield* Deferred.await(held))) break
          holders++
        }
        assert.isAtLeast(holders, 1)
        assert.isAtMost(holders, 4)

        const busy = yield* me()
        assert.strictEqual(busy.status, 503)
        assert.strictEqual(busy.headers.get("retry-after"), "1")
        assert.strictEqual(busy.headers.get("content-type"), "application/json")
        assert.deepStrictEqual(busy.json, {
          result: "error",
          msg: "The server is too busy to answer this request; try again shortly",
          code: "BAD_REQUEST"
        })
        // A write is refused the same way, and nothing of it is kept.
        const send = yield* server.fetch("POST", "/api/v1/messages", {
          as: hamlet,
          form: { type: "stream", to: "Verona", topic: "busy pool", content: "never stored" }
        })
        assert.strictEqual(send.status, 503)

        yield* Deferred.succeed(release, undefined)
        assert.strictEqual((yield* me()).status, 200)
        const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM messages WHERE content = 'never stored'`
        assert.strictEqual(row?.n, 0)
      })))

  })
})
