/** The demo organization's channel subscriptions. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Server } from "../Harness.ts"
import type { Vitest } from "@effect/vitest"

export const demoTests = (it: Vitest.MethodsNonLive<Server>): void => {
  // -----------------------------------------------------------------------
  // The demo organization

  it.effect("the demo's channel subscriptions follow populate_db's rule", () =>
    Effect.gen(function*() {
      const server = yield* Server
      const expected: Record<string, ReadonlyArray<string>> = {
        "desdemona@zulip.com": ["Denmark", "Scotland", "Verona"],
        "iago@zulip.com": ["Denmark", "Scotland", "Venice", "Verona"],
        "shiva@zulip.com": ["Denmark", "Rome", "Scotland", "Venice", "Verona", "core team", "sandbox"],
        "hamlet@zulip.com": ["Denmark", "Scotland", "Verona"],
        "polonius@zulip.com": ["Denmark", "Rome", "Scotland", "Venice", "Verona"],
        "default-bot@zulip.com": [],
        "cordelia@zulip.com": ["Denmark", "Verona"],
        "othello@zulip.com": ["Denmark", "Rome", "Scotland", "Venice", "Verona"],
        "prospero@zulip.com": ["Denmark", "Rome", "Scotland", "Venice", "Verona", "core team"],
        "ZOE@zulip.com": ["Verona"]
      }
      for (const [email, names] of Object.entries(expected)) {
        const who = yield* server.login(email)
        const reply = yield* server.fetch("GET", "/api/v1/users/me/subscriptions", { as: who })
        assert.strictEqual(reply.status, 200, reply.text)
        assert.deepStrictEqual(reply.json.subscriptions.map((s: { name: string }) => s.name).sort(), names, email)
      }
    }))
}
