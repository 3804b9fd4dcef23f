/**
 * Writes the `exports` map of `packages/core` and `packages/http` from their
 * `src/index.ts`: the entry itself, each module it re-exports (importable by
 * its own path too, as effect's modules are), and the test helpers of
 * `src/testing/`. Nothing else resolves, so `index.ts` is the contract.
 * `packages/core/test/PublicSurface.test.ts` fails when a map is stale.
 *
 *     node scripts/exports-map.ts          (rewrite both maps)
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"

/** The exports map that `index.ts` of the package at `dir` implies. */
export const exportsMapOf = (dir: string): Record<string, string> => {
  const index = readFileSync(path.join(dir, "src/index.ts"), "utf8")
  const modules = [...index.matchAll(/^export \* as \w+ from "\.\/(.+)\.ts"$/gm)].map((m) => m[1]!)
  let testing: Array<string> = []
  try {
    testing = readdirSync(path.join(dir, "src/testing"))
      .filter((file) => file.endsWith(".ts"))
      .map((file) => `testing/${file.slice(0, -3)}`)
  } catch {
    // no test helpers in this package
  }
  const map: Record<string, string> = { ".": "./src/index.ts" }
  for (const module of [...modules, ...testing].sort()) map[`./${module}`] = `./src/${module}.ts`
  return map
}

export const packageDirs = ["packages/core", "packages/http"]

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, "..")
  for (const dir of packageDirs) {
    const file = path.join(root, dir, "package.json")
    const pkg = JSON.parse(readFileSync(file, "utf8"))
    pkg.exports = exportsMapOf(path.join(root, dir))
    writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n")
    console.log(`${dir}: ${Object.keys(pkg.exports).length} entries`)
  }
}
