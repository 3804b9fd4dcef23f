/**
 * Two servers on one fresh PostgreSQL database, as two worker processes of a
 * deployment are: each its own core (its own connection pool, kept reads and
 * event store) and its own web handler. The `Server` it provides sends its
 * requests to the two in turn, so requests sent at once really race in the
 * database. `server.core` runs on the first worker's core.
 */
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import { KeyGenerator } from "@teamchat/core/services/KeyGenerator"
import { PasswordHasher } from "@teamchat/core/services/PasswordHasher"
import { EventQueuesConfig } from "@teamchat/core/services/events/EventQueues"
import * as PgClientLayer from "@teamchat/core/sql/PgClientLayer"
import * as CheckedEvents from "@teamchat/core/testing/CheckedEvents"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { makeWebHandler } from "../../../src/Http.ts"
import type { Core } from "../Harness.ts"
import { epoch, makeManualClock, realmUrl, Server, serverOf } from "../Harness.ts"

export const layerTwoWorkers = (
  options: {
    /** Event-queue timings of both workers (e.g. heartbeats at once for the fuzz suite). */
    readonly eventQueues?: Partial<EventQueuesConfig>
  } = {}
): Layer.Layer<Server, unknown> =>
  Layer.effect(
  Server,
  Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const clock = makeManualClock(epoch)
    const database = yield* Layer.buildWithScope(TestDatabase.postgresLayer(), scope)
    const { url } = Context.get(database, TestDatabase.TestDatabase)
    // Random keys and queue ids, as real workers have: the test layer's
    // sequences would be the same in both workers.
    const secrets = Layer.mergeAll(KeyGenerator.layer, PasswordHasher.layerTest)
    const coreOf = () =>
      CheckedEvents.layerSql(secrets).pipe(
        Layer.provide(PgClientLayer.layer(url, { maxConnections: 8 })),
        Layer.provideMerge(Layer.succeed(Clock.Clock, clock.clock)),
        Layer.provideMerge(
          Layer.succeed(EventQueuesConfig, { ...EventQueuesConfig.defaultValue(), ...options.eventQueues })
        )
      )
    // Separate memo maps: nothing of one worker's core is shared with the other.
    const build = (layer: Layer.Layer<Core, unknown>) =>
      Effect.flatMap(Layer.makeMemoMap, (memo) => Layer.buildWithMemoMap(layer, memo, scope))
    const first = yield* build(Layer.effectDiscard(DemoOrganization.seed(realmUrl)).pipe(Layer.provideMerge(coreOf())))
    const second = yield* build(coreOf())
    const handlers = [first, second].map((context) => {
      const { dispose, handler } = makeWebHandler(Layer.succeedContext(context), { demo: true, rateLimit: false })
      return { dispose, handler }
    })
    yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(handlers.map((h) => h.dispose()))))
    // Each request to the next worker in turn.
    let turn = 0
    const handler = (request: Request) => handlers[turn++ % 2]!.handler(request)
    return serverOf(handler, first, clock)
  })
)
