import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    // Checks TEST_DATABASE_URL's server once when PostgreSQL tests run: one line when it is missing.
    globalSetup: [fileURLToPath(new URL("./packages/core/test/support/TestDatabaseSetup.ts", import.meta.url))],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // PGlite instances are heavy (WASM); keep parallelism modest on 2-core machines.
    maxWorkers: 2,
    sequence: { concurrent: false }
  }
})
