/**
 * Vitest's global setup (vitest.config.ts): when the run includes tests on
 * PostgreSQL, connect once to TEST_DATABASE_URL's server before any test
 * starts. Without a server, the run stops with one line saying so, instead of
 * every PostgreSQL test failing with its own stack trace. The tests never
 * skip: a run that needs PostgreSQL fails without it.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fs from "node:fs"
import type { TestProject } from "vitest/node"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

/** A file that mentions PostgreSQL at all may use it (a file on memory or PGlite only does not). */
const mentionsPostgres = (file: string): boolean => /postgres/i.test(fs.readFileSync(file, "utf8"))

/** The filters of this run (`vitest run <filters>`); none: every test file. */
const filters = (project: TestProject): Array<string> =>
  (project.vitest as unknown as { readonly filenamePattern?: Array<string> }).filenamePattern ?? []

const property = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined

export default async function setup(project: TestProject): Promise<void> {
  const specifications = await project.vitest.globTestSpecifications(filters(project))
  if (!specifications.some((specification) => mentionsPostgres(specification.moduleId))) return
  const url = process.env.TEST_DATABASE_URL || TestDatabase.defaultAdminUrl
  const exit = await Effect.runPromiseExit(TestDatabase.checkServer(url))
  if (Exit.isSuccess(exit)) return
  const error = Cause.squash(exit.cause)
  const cause = property(property(error, "reason"), "cause") ?? property(error, "cause")
  const detail = String(property(cause, "message") ?? property(error, "message") ?? error)
  const shown = new URL(url)
  if (shown.password !== "") shown.password = "***"
  const failure = new Error(
    `cannot connect to the PostgreSQL server of TEST_DATABASE_URL (${shown}): ${detail}; ` +
      "start it, or set TEST_DATABASE_URL to a server whose user may create databases"
  )
  // One line: where it failed is this file, which says so above.
  failure.stack = `Error: ${failure.message}`
  throw failure
}
