/**
 * docs/map.md, the checked map beside docs/architecture.md's overview,
 * keeps one row per endpoint of the served OpenAPI document (API
 * definition, handler, service, SQL, tests). This keeps the map true: an
 * operation without a row, a row for an operation that is not served, and a
 * row naming a file or folder that does not exist all fail.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { demoLayer, layerServer, Server } from "./support/Harness.ts"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const map = readFileSync(`${root}docs/map.md`, "utf8")

const methods = ["get", "post", "put", "patch", "delete"] as const

/** The rows of the table under "## Endpoints": the endpoint and the paths each cell names. */
const mapRows = (markdown: string) => {
  const section = markdown.split(/^## Endpoints$/m)[1]?.split(/^## /m)[0]
  if (section === undefined) throw new Error("docs/map.md has no '## Endpoints' section")
  return section.split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [endpoint, ...cells] = line.split("|").slice(1, -1).map((cell) => cell.trim())
      const paths = cells.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!))
      return { endpoint: endpoint!.replaceAll("`", ""), paths }
    })
}

describe("docs/map.md", () => {
  layer(layerServer((clock) => demoLayer("memory", clock)))((it) => {
    it.effect("has a row for every served operation and names only files that exist", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const document = (yield* server.fetch("GET", "/api/v1/openapi.json")).json as {
          readonly paths: Record<string, Record<string, unknown>>
        }
        const served = Object.entries(document.paths).flatMap(([path, operations]) =>
          methods.filter((method) => method in operations).map((method) =>
            `${method.toUpperCase()} ${path.replace(/^\/api\/v1/, "")}`
          )
        ).sort()
        const rows = mapRows(map)
        assert.deepStrictEqual(rows.map((row) => row.endpoint).sort(), served)
        const missing = rows.flatMap((row) =>
          row.paths.filter((path) => !existsSync(`${root}${path}`)).map((path) => `${row.endpoint}: ${path}`)
        )
        assert.deepStrictEqual(missing, [])
        assert.isTrue(rows.every((row) => row.paths.length >= 4), "every row names its API, handler, service and tests")
      }))
  })

  it("finds a row whose file is missing", () => {
    const rows = mapRows("## Endpoints\n\n| `GET /x` | `packages/nowhere.ts` |\n\n## Next\n| `GET /y` | `z` |\n")
    assert.deepStrictEqual(rows, [{ endpoint: "GET /x", paths: ["packages/nowhere.ts"] }])
    assert.isFalse(existsSync(`${root}${rows[0]!.paths[0]}`))
  })
})
