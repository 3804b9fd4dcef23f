/**
 * The event pipeline takes time from the Clock and ids from the id service
 * (`KeyGenerator`), so a TestClock and the test generator make them exact;
 * the names processes tell each other apart by (`instanceId`) come from
 * effect's Random, so a seed makes them exact.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Random from "effect/Random"
import * as TestClock from "effect/testing/TestClock"
import * as Persistence from "../../src/Persistence.ts"
import { decodeNotice, EventStore } from "../../src/ports/EventStore.ts"
import type { Signal } from "../../src/ports/EventStore.ts"
import { EventQueues } from "../../src/services/events/EventQueues.ts"
import { instanceId } from "../../src/services/internal/KeyGenerator.ts"
import * as SqlEventStore from "../../src/sql/SqlEventStore.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { Register } from "../../src/services/Register.ts"
import type { ServerInfo } from "../../src/services/Register.ts"
import { backends, makeOrg } from "./fixtures.ts"

const server: ServerInfo = {
  zulip_version: "11.0-teamchat",
  zulip_feature_level: 416,
  zulip_merge_base: "11.0",
  base_url: "http://localhost:9991"
}

layer(backends.memory())("time and ids", (it) => {
  it.effect("queue ids come from the id service: the test generator's sequence, in order", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const queues = yield* EventQueues
      const first = yield* queues.register(org.member, {})
      const second = yield* queues.register(org.other, {})
      assert.strictEqual(first.id, "00000000-0000-4000-8000-000000000001")
      assert.strictEqual(second.id, "00000000-0000-4000-8000-000000000002")
      const state = yield* (yield* Register).register(org.member, { fetch_event_types: [] }, server)
      assert.strictEqual(state.queue_id, "00000000-0000-4000-8000-000000000003")
    }))

  it.effect("POST /register's server_timestamp and default server_generation follow the Clock", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      yield* TestClock.adjust(1_234_500)
      const state = yield* (yield* Register).register(org.member, { fetch_event_types: ["presence", "realm"] }, server)
      assert.strictEqual(state.server_timestamp, 1_234.5)
      assert.strictEqual(state.server_generation, 1_234)
      // A server that says when it started keeps its own generation.
      const started = yield* (yield* Register).register(
        org.member,
        { fetch_event_types: ["realm"] },
        { ...server, server_generation: 99 }
      )
      assert.strictEqual(started.server_generation, 99)
    }))
})

describe("instance names on PostgreSQL", () => {
  layer(Persistence.layerSql.pipe(Layer.provideMerge(TestDatabase.postgresLayer())), { timeout: "60 seconds" })((it) => {
    it.effect("the event store's NOTIFY origin is drawn from effect's Random: one seed, one origin", () =>
      Effect.scoped(Effect.gen(function*() {
        const pg = yield* PgClient.PgClient
        // Another process's listener: it reads the origin the store names itself by.
        const notices = yield* pg.listen(SqlEventStore.NotifyChannel)
        const build = Layer.build(Layer.fresh(SqlEventStore.layer)).pipe(Random.withSeed("origin"))
        const signal: Signal = { _tag: "queue", queue: "seeded", reason: "superseded", at: 1 }
        const origins: Array<string | undefined> = []
        for (let i = 0; i < 2; i++) {
          const store = Context.get(yield* build, EventStore)
          yield* store.signal(signal)
          const notice = decodeNotice((yield* Queue.take(notices)).payload)
          assert.deepStrictEqual(notice?.signal, signal)
          origins.push(notice?.origin)
        }
        const expected = yield* instanceId.pipe(Random.withSeed("origin"))
        assert.match(expected, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        assert.deepStrictEqual(origins, [expected, expected])
      })))
  })
})
