/**
 * The event pipeline takes time from the Clock and ids from the id service
 * (`KeyGenerator`), so a TestClock and the test generator make them exact.
 */
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"
import { EventQueues } from "../../src/services/events/EventQueues.ts"
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
