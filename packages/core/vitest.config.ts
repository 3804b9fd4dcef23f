// The workspace's settings (timeouts, workers) when this package's tests run
// on their own (`npx vitest run` here); the workspace run uses the root file.
import { defineConfig, mergeConfig } from "vitest/config"
import workspace from "../../vitest.config.ts"

export default mergeConfig(workspace, defineConfig({ test: { include: ["test/**/*.test.ts"] } }))
