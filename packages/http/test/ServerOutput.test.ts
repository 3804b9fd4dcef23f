/**
 * The server's progress lines in the JSON log format: shaped like effect's
 * JSON logger's entries, stamped by the Clock.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"
import * as Server from "../src/Server.ts"

describe("server output", () => {
  it.effect("jsonLines: one entry per complete line, timestamped by the Clock", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust(1_500)
      const written: Array<string> = []
      const output = Server.jsonLines((text) => written.push(text), yield* Clock.Clock)
      output("teamchat: opening… ")
      assert.deepStrictEqual(written, [])
      output("ready\nsecond line\n")
      assert.deepStrictEqual(written.map((line) => JSON.parse(line)), [
        { message: "opening… ready", level: "INFO", timestamp: "1970-01-01T00:00:01.500Z", annotations: {}, spans: {} },
        { message: "second line", level: "INFO", timestamp: "1970-01-01T00:00:01.500Z", annotations: {}, spans: {} }
      ])
      assert.isTrue(written.every((line) => line.endsWith("}\n")))
    }))
})
