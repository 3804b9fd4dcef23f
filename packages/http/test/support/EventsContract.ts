/**
 * The real-time endpoints over the wire, written once and run on every core
 * backend: POST /register, GET and DELETE /events, and the endpoints whose
 * changes the queues deliver (subscriptions, settings, alert words).
 *
 * Heartbeats come after 2 s of the server's clock here (the core's
 * `EventQueuesConfig`, set through the core layer the web handler is built
 * on), and that clock's timers move only when a test advances it: a blocked
 * poll that ends while the clock stands still ended because of the action
 * under test, however slow the machine. Register bodies are compared with
 * fixed bodies written from Zulip's behaviour (events/registerBodies.ts).
 *
 * The cases live by area under events/ (fixtures.ts holds what they share);
 * this file runs them on one server per backend.
 */
import { describe, layer } from "@effect/vitest"
import { expiryTests } from "./events/Expiry.ts"
import { heartbeatMs } from "./events/fixtures.ts"
import { queuesTests } from "./events/Queues.ts"
import { registerTests } from "./events/Register.ts"
import { settingsTests } from "./events/Settings.ts"
import { subscriptionsTests } from "./events/Subscriptions.ts"
import type { Backend } from "./Harness.ts"
import { demoLayer, layerServer, withEventQueuesConfig } from "./Harness.ts"

export { heartbeatMs, mobileCapabilities } from "./events/fixtures.ts"

export const eventsContract = (backend: Backend) =>
  describe(`real-time events over HTTP on ${backend}`, () => {
    layer(
      layerServer(
        (clock) =>
          withEventQueuesConfig(demoLayer(backend, clock), { heartbeatMinMs: heartbeatMs, heartbeatMaxMs: heartbeatMs }),
        {},
        { timers: "manual" }
      ),
      { timeout: "120 seconds" }
    )((it) => {
      registerTests(it)
      queuesTests(it, backend)
      subscriptionsTests(it, backend)
      settingsTests(it)
      expiryTests(it)
    })
  })
