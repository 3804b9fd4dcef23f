/**
 * The import rules of the workspace, checked by `pnpm run lint:layers` and in
 * CI (`.ci/run`). Each package reads bottom-up: a folder imports only folders
 * listed before it (its own files excepted), so no import runs upward and no
 * two folders import each other. See docs/architecture.md.
 */
const core = "^packages/core/src/"
const http = "^packages/http/src/"

/** packages/core, lowest first. */
const coreLayers = [
  ["domain", "domain/"],
  ["errors", "errors/"],
  ["markdown", "markdown/"],
  ["permissions", "permissions/"],
  ["narrow", "narrow/"],
  ["views", "views/"],
  ["ports", "ports/"],
  ["services/internal", "services/internal/"],
  ["services/events", "services/events/"],
  ["services", "services/[^/]+$"],
  ["demo", "demo/"],
  // The adapters sit side by side: neither imports the other (rule core-adapters-apart).
  ["memory, sql, redis and files (adapters)", "(memory|sql|redis|files)/"],
  ["composition (Persistence.ts, Teamchat.ts, index.ts)", "[^/]+$"],
  ["testing", "testing/"]
]

/** packages/http, lowest first. */
const httpLayers = [
  ["internal", "internal/"],
  ["api", "api/"],
  ["handlers", "handlers/"],
  ["middleware", "middleware/"],
  ["server (Http.ts, Config.ts, Server.ts, Cli.ts, bin.ts, index.ts)", "[^/]+$"]
]

const layerRules = (pkg, root, layers) =>
  layers.slice(0, -1).map(([name, path], i) => ({
    name: `${pkg}-layer-order: ${name}`,
    comment: `${pkg}/src/${name} may import only the layers below it (${
      layers.slice(0, i).map(([n]) => n).join(", ") || "none"
    }); an import of a higher layer runs upward`,
    severity: "error",
    from: { path: root + path },
    to: { path: layers.slice(i + 1).map(([, p]) => root + p) }
  }))

module.exports = {
  forbidden: [
    ...layerRules("core", core, coreLayers),
    ...layerRules("http", http, httpLayers),
    {
      name: "core-adapters-apart",
      comment: "the memory, SQL and Redis adapters implement the same ports and never import each other",
      severity: "error",
      from: { path: `${core}(memory|sql|redis|files)/` },
      to: { path: `${core}(memory|sql|redis|files)/`, pathNot: `${core}$1/` }
    },
    {
      name: "core-no-http",
      comment: "packages/core is the domain: it never imports HTTP modules (effect's http, @effect/platform-node, packages/http)",
      severity: "error",
      from: { path: "^packages/core/" },
      to: {
        path: [
          "^packages/http/",
          "node_modules/effect/(dist/)?(src/)?(unstable/)?http",
          "^effect/(unstable/)?http",
          "(^|node_modules/)@effect/platform-node(/|$)"
        ]
      }
    },
    {
      name: "http-no-core-internals",
      comment: "packages/http and the examples reach core through its public entry (@teamchat/core, src/index.ts), never a module behind it (internal/ folders, ports, adapters)",
      severity: "error",
      from: { path: "^packages/http/src/|^examples/" },
      to: { path: core, pathNot: `${core}index\\.ts$` }
    },
    {
      name: "no-circular",
      comment: "no module reaches itself through its imports",
      severity: "error",
      from: { path: "^packages/(core|http)/src/" },
      to: { circular: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)test/|\\.test\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".d.ts"]
    }
  }
}
