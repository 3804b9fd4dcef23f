/**
 * The packages' exports maps are their contracts: each lists its `index.ts`
 * modules and test helpers (`scripts/exports-map.ts` writes them), and
 * nothing else resolves, so tests, benchmarks and embedders import alike.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { exportsMapOf, packageDirs } from "../../../scripts/exports-map.ts"

const root = path.resolve(import.meta.dirname, "../../..")
// Node's own resolution, as an embedder's program importing the packages gets it
const resolveFromHttp = createRequire(path.join(root, "packages/http/package.json")).resolve
const resolveFromBench = createRequire(path.join(root, "bench/package.json")).resolve

describe("public surface", () => {
  it.each(packageDirs)("%s: the exports map is the one its index implies", (dir) => {
    const pkg = JSON.parse(readFileSync(path.join(root, dir, "package.json"), "utf8"))
    // stale: run `node scripts/exports-map.ts`
    expect(pkg.exports).toEqual(exportsMapOf(path.join(root, dir)))
  })

  it.each([
    ["@teamchat/core", "packages/core/src/index.ts"],
    ["@teamchat/core/services/Users", "packages/core/src/services/Users.ts"],
    ["@teamchat/core/ports/Repositories", "packages/core/src/ports/Repositories.ts"],
    ["@teamchat/core/testing/TestDatabase", "packages/core/src/testing/TestDatabase.ts"],
    ["@teamchat/http/Server", "packages/http/src/Server.ts"]
  ])("%s resolves", (specifier, file) => {
    expect(resolveFromBench(specifier)).toBe(path.join(root, file))
  })

  it.each([
    "@teamchat/core/services/internal/access",
    "@teamchat/core/sql/SqlUserRepo",
    "@teamchat/core/memory/MemoryDatabase",
    "@teamchat/core/services/Users.ts",
    "@teamchat/http/internal/Envelope",
    "@teamchat/http/Pipeline"
  ])("%s does not resolve", (specifier) => {
    expect(() => resolveFromHttp(specifier)).toThrow(expect.objectContaining({ code: "ERR_PACKAGE_PATH_NOT_EXPORTED" }))
  })
})
