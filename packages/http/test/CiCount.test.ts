/**
 * `.ci/run`'s closing line (scripts/count-results.ts) counts tests: a failing
 * test is one failure, whatever files and suites hold it; a file that never
 * ran its tests is one.
 */
import { assert, describe, it } from "@effect/vitest"
import { count } from "../../../scripts/count-results.ts"

const file = (status: string, tests: ReadonlyArray<string>) => ({
  status,
  assertionResults: tests.map((s) => ({ status: s }))
})

const cases = [
  {
    name: "one failing test beside a passing one",
    report: { numPassedTests: 1, numFailedTests: 1, numPendingTests: 0, numTodoTests: 0, testResults: [file("failed", ["failed", "passed"])] },
    line: "1 passed, 1 failed",
    ok: false
  },
  {
    name: "a file that did not load, beside a passing file",
    report: { numPassedTests: 3, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [file("failed", []), file("passed", ["passed", "passed", "passed"])] },
    line: "3 passed, 1 failed",
    ok: false
  },
  {
    name: "all passing, some skipped",
    report: { numPassedTests: 4, numFailedTests: 0, numPendingTests: 1, numTodoTests: 1, testResults: [file("passed", ["passed", "passed", "passed", "passed", "pending", "todo"])] },
    line: "4 passed, 0 failed, 2 skipped",
    ok: true
  },
  {
    name: "nothing ran",
    report: { numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [] },
    line: "0 passed, 0 failed",
    ok: false
  }
] as const

describe("the CI closing line", () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepStrictEqual(count(c.report), { line: c.line, ok: c.ok })
    })
  }
})
