/**
 * The closing line of `.ci/run` from vitest's JSON report: `N passed, N
 * failed` (and `, N skipped`), counting tests. A file whose tests never ran
 * (it did not load, or a hook failed) counts as one failure; a file with
 * failing tests counts only its tests. Exits 1 on any failure or when
 * nothing passed.
 *
 *   node scripts/count-results.ts .vitest-results.json
 */
import * as fs from "node:fs"

interface Report {
  readonly numPassedTests: number
  readonly numFailedTests: number
  readonly numPendingTests: number
  readonly numTodoTests: number
  readonly testResults?: ReadonlyArray<{
    readonly status: string
    readonly assertionResults?: ReadonlyArray<{ readonly status: string }>
  }>
}

export const count = (report: Report): { readonly line: string; readonly ok: boolean } => {
  const brokenFiles = (report.testResults ?? []).filter((file) =>
    file.status === "failed" && !(file.assertionResults ?? []).some((test) => test.status === "failed")
  ).length
  const passed = report.numPassedTests
  const failed = report.numFailedTests + brokenFiles
  const skipped = report.numPendingTests + report.numTodoTests
  return {
    line: `${passed} passed, ${failed} failed` + (skipped > 0 ? `, ${skipped} skipped` : ""),
    ok: failed === 0 && passed > 0
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { line, ok } = count(JSON.parse(fs.readFileSync(process.argv[2]!, "utf8")) as Report)
  console.log(line)
  process.exit(ok ? 0 : 1)
}
