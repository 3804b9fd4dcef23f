/**
 * Every write operation of the served OpenAPI document, 8 requests at once,
 * on PostgreSQL with two workers (support/concurrency/TwoWorkers.ts): the
 * authorization matrix's rows build the requests (support/matrix/), each as
 * the first role the row lets succeed, so a new write endpoint is raced
 * without new code here. Requests of a row may name the same state (a row's
 * shared fixture), so they race for one transition too.
 *
 * For every request: no 5xx and a Zulip-shaped body (a success, or an error
 * with `msg` and `code`); for every row: at least one request gets the
 * matrix's answer; afterwards the server still answers. The invariants and
 * lost updates of particular races are ConcurrencyPostgres.test.ts's.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { layerMatrixOn, MatrixFixture, methodOf, pathOf, sendCall } from "./support/AuthorizationMatrix.ts"
import { layerTwoWorkers } from "./support/concurrency/TwoWorkers.ts"
import { matrix } from "./support/matrix/Rows.ts"
import type { Account, Row } from "./support/matrix/Table.ts"

const writeMethods = new Set(["POST", "PATCH", "PUT", "DELETE"])

/** The roles tried, in order: the first the row lets succeed sends the requests. */
const roles: ReadonlyArray<Account> = ["owner", "admin", "moderator", "member", "guest", "bot"]

const senderOf = (row: Row): Account => roles.find((role) => row.expect[role].status === 200) ?? "owner"

const caseName = (row: Row) => `${row.operation}${row.scenario === undefined ? "" : `, ${row.scenario}`} ×8 as ${senderOf(row)}`

describe("every write operation 8 at once on PostgreSQL with two workers", () => {
  layer(layerMatrixOn(layerTwoWorkers()), { timeout: "300 seconds", excludeTestServices: true })((it) => {
    it.effect("the matrix has write rows to race", () =>
      Effect.sync(() => assert.isAbove(matrix.filter((row) => writeMethods.has(methodOf(row))).length, 40)))

    for (const row of matrix.filter((row) => writeMethods.has(methodOf(row)))) {
      it.effect(caseName(row), () =>
        Effect.gen(function*() {
          const fixture = yield* MatrixFixture
          const as = senderOf(row)
          const calls = yield* Effect.forEach(Array.from({ length: 8 }), () => row.request(fixture, as, as))
          const replies = yield* Effect.all(
            calls.map((call) =>
              sendCall(fixture.server, methodOf(row), `/api/v1${call.path ?? pathOf(row)}`, fixture.accounts[as], call)
            ),
            { concurrency: "unbounded" }
          )
          const report = replies.map((r) => `${r.status} ${r.text.slice(0, 300)}`).join("\n")
          for (const reply of replies) {
            assert.isBelow(reply.status, 500, report)
            if (reply.status === 200) {
              assert.strictEqual(reply.json.result, "success", report)
            } else {
              assert.strictEqual(reply.json.result, "error", report)
              assert.isString(reply.json.msg, report)
              assert.isString(reply.json.code, report)
            }
          }
          const expected = row.expect[as].status
          assert.isTrue(replies.some((r) => r.status === expected), `none got ${expected}:\n${report}`)
          const alive = yield* fixture.server.fetch("GET", "/api/v1/users/me", { as: fixture.accounts.owner })
          assert.strictEqual(alive.status, 200, alive.text)
        }).pipe(Effect.ensuring(Effect.flatMap(MatrixFixture, (fixture) => row.restore?.(fixture) ?? Effect.void))))
    }
  })
})
