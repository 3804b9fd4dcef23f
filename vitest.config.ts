import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // PGlite instances are heavy (WASM); keep parallelism modest on 2-core machines.
    maxWorkers: 2,
    sequence: { concurrent: false }
  }
})
