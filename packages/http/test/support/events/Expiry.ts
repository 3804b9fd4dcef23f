/** How long an idle queue is kept. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"
import { success, badQueue, as, register, drain } from "./fixtures.ts"

/** Registered last: it moves the clock by hours. */
export const expiryTests = (it: Vitest.MethodsNonLive<Server>): void => {
  it.effect("idle_queue_timeout=mobile keeps a queue 12 hours; the default 10 minutes", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const hamlet = yield* as("member")
      const types = "[\"alert_words\"]"
      const mobile = yield* register(hamlet, { event_types: types, idle_queue_timeout: "mobile" })
      const plain = yield* register(hamlet, { event_types: types })
      const hour = yield* register(hamlet, { event_types: types, idle_queue_timeout: "3600" })
      server.clock.advance(600_000)
      assert.deepStrictEqual((yield* drain(hamlet, plain, -1)).json, badQueue(plain))
      assert.strictEqual((yield* drain(hamlet, hour, -1)).status, 200)
      assert.strictEqual((yield* drain(hamlet, mobile, -1)).status, 200)
      server.clock.advance(3_000_000)
      assert.deepStrictEqual((yield* drain(hamlet, hour, -1)).json, badQueue(hour))
      assert.strictEqual((yield* drain(hamlet, mobile, -1)).status, 200)
      server.clock.advance(12 * 3_600_000 - 3_600_000)
      assert.deepStrictEqual((yield* drain(hamlet, mobile, -1)).json, badQueue(mobile))
      const fresh = yield* drain(hamlet, yield* register(hamlet, { event_types: types }), -1)
      assert.deepStrictEqual(fresh.json, success({ events: [] }))
    }))
}
