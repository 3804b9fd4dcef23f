/**
 * The server's log lines (Server.layerLogging's formatters): logfmt and JSON
 * as effect writes them, without the fiber, and with the worker in a cluster.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { jsonLogLines, logfmtLogLines } from "../src/Server.ts"

/** The lines `logger` makes of one INFO entry with an annotation. */
const linesOf = (logger: Logger.Logger<unknown, string>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    yield* Effect.logInfo("request").pipe(
      Effect.annotateLogs({ method: "GET" }),
      Effect.provide(Logger.layer([Logger.map(logger, (line) => void lines.push(line))]))
    )
    return lines
  })

const cases = [
  { name: "logfmt alone", logger: logfmtLogLines(undefined), pattern: /^timestamp=\S+ level=INFO message=request method=GET$/ },
  { name: "logfmt of worker 2", logger: logfmtLogLines(2), pattern: /^timestamp=\S+ level=INFO worker=2 message=request method=GET$/ }
]

describe("log lines", () => {
  for (const c of cases) {
    it.effect(c.name, () =>
      Effect.gen(function*() {
        const [line] = yield* linesOf(c.logger)
        assert.match(line!, c.pattern)
      }))
  }

  it.effect("JSON: no fiberId; the worker in a cluster", () =>
    Effect.gen(function*() {
      const [alone] = yield* linesOf(jsonLogLines(undefined))
      const [clustered] = yield* linesOf(jsonLogLines(3))
      const keysOf = (line: string) => Object.keys(JSON.parse(line)).sort()
      assert.notProperty(JSON.parse(alone!), "fiberId")
      assert.notProperty(JSON.parse(alone!), "worker")
      assert.strictEqual(JSON.parse(clustered!).worker, 3)
      assert.deepStrictEqual(JSON.parse(clustered!).annotations, { method: "GET" })
      assert.deepStrictEqual(keysOf(clustered!), [...keysOf(alone!), "worker"].sort())
    }))
})
