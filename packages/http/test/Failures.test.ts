/**
 * A database that cannot take a request (no connection in time, too many
 * connections) is a JSON 503 with `Retry-After`, never a 500 (issue #32:
 * 20 concurrent large bodies left one request with a 500 from a connection
 * timeout); any other defect stays a 500.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { ConnectionError, SqlError, UnknownError } from "effect/sql/SqlError"
import * as Failures from "../src/internal/Failures.ts"

const answer = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    const response = yield* Failures.recover("messages", "send")(cause)
    const web = HttpServerResponse.toWeb(response)
    return { status: web.status, retryAfter: web.headers.get("retry-after"), body: yield* Effect.promise(() => web.json()) }
  })

const busy = { result: "error", msg: "The server is too busy to answer this request; try again shortly", code: "BAD_REQUEST" }

describe("Failures.recover", () => {
  it.effect("a connection that could not be opened in time is a 503 with Retry-After", () =>
    Effect.gen(function*() {
      const timedOut = new SqlError({
        reason: new ConnectionError({ cause: new Error("Connection timed out"), message: "PgConnection: Connection timed out", operation: "connect" })
      })
      assert.deepStrictEqual(yield* answer(Cause.die(timedOut)), { status: 503, retryAfter: "1", body: busy })
      assert.deepStrictEqual(yield* answer(Cause.fail(timedOut)), { status: 503, retryAfter: "1", body: busy })
    }))

  it.effect("PostgreSQL's too many connections is a 503 too", () =>
    Effect.gen(function*() {
      const tooMany = new SqlError({
        reason: new UnknownError({ cause: { code: "53300" }, message: "sorry, too many clients already", operation: "connect" })
      })
      assert.deepStrictEqual(yield* answer(Cause.die(tooMany)), { status: 503, retryAfter: "1", body: busy })
    }))

  it.effect("any other defect is a 500 without Retry-After", () =>
    Effect.gen(function*() {
      const other = new SqlError({ reason: new UnknownError({ cause: { code: "XX000" }, message: "boom", operation: "execute" }) })
      assert.deepStrictEqual(yield* answer(Cause.die(other)), {
        status: 500,
        retryAfter: null,
        body: { result: "error", msg: "Internal server error", code: "BAD_REQUEST" }
      })
    }))
})
