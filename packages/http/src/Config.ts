/**
 * Server configuration: environment variables read with effect's `Config`,
 * overridden by command-line flags, validated into one `ServerConfig`.
 *
 * | variable | flag | default |
 * |---|---|---|
 * | `PORT` | `--port` | 9991 (0 picks a free port) |
 * | `HOST` | `--host` | 127.0.0.1 |
 * | `DATABASE_URL` | `--database-url` | unset: embedded PGlite in `DATA_DIR`; `memory://`: in memory, lost at exit |
 * | `DATA_DIR` | `--data-dir` | ./data |
 * | `DEMO` | `--demo` | off |
 * | `EXTERNAL_URL` | `--external-url` | http://localhost:PORT |
 * | `RATE_LIMIT_REQUESTS` (0 disables) | | the HTTP adapter's default |
 * | `RATE_LIMIT_WINDOW_SECONDS` | | the HTTP adapter's default, else 60 |
 * | `LOG_LEVEL` | | info |
 * | `LOG_FORMAT` (logfmt, json, pretty) | | logfmt: one line per entry |
 *
 * Empty variables count as unset. A bad value fails with `InvalidConfig`,
 * whose message is one line naming the setting, the value and what was
 * expected.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as LogLevel from "effect/LogLevel"
import { isIP } from "node:net"

/** Where the data lives. @category models */
export type Database =
  | { readonly _tag: "Pglite"; readonly dataDir: string }
  | { readonly _tag: "Postgres"; readonly url: string }
  | { readonly _tag: "Memory" }

/** @category models */
export interface RateLimit {
  readonly requests: number
  readonly windowSeconds: number
}

/**
 * The rate limit as configured: `false` when disabled (`RATE_LIMIT_REQUESTS=0`),
 * otherwise the parts that were set; unset parts come from the HTTP
 * adapter's default (see `resolveRateLimit`).
 *
 * @category models
 */
export type RateLimitSetting =
  | false
  | { readonly requests: number | undefined; readonly windowSeconds: number | undefined }

/** @category models */
export interface ServerConfig {
  readonly port: number
  readonly host: string
  readonly database: Database
  readonly demo: boolean
  /** The organization URL; undefined means http://localhost:<bound port>. */
  readonly externalUrl: string | undefined
  readonly rateLimit: RateLimitSetting
  readonly logLevel: LogLevel.LogLevel
  readonly logFormat: LogFormat
}

/** How log entries (one per request, among others) are written to stdout. @category models */
export type LogFormat = "logfmt" | "json" | "pretty"

/**
 * Values given on the command line; they win over the environment. Strings
 * are validated exactly like the variables they replace.
 *
 * @category models
 */
export interface Overrides {
  readonly port?: string | undefined
  readonly host?: string | undefined
  readonly databaseUrl?: string | undefined
  readonly dataDir?: string | undefined
  readonly externalUrl?: string | undefined
  readonly demo?: boolean | undefined
}

/** @category errors */
export class InvalidConfig extends Data.TaggedError("InvalidConfig")<{
  /** The variable or flag, e.g. `PORT` or `--port`. */
  readonly setting: string
  readonly value: string
  readonly expected: string
}> {
  override get message(): string {
    return `invalid ${this.setting} ${JSON.stringify(this.value)}: expected ${this.expected}`
  }
}

/** @category constants */
export const defaults = {
  port: 9991,
  host: "127.0.0.1",
  dataDir: "./data",
  rateLimitWindowSeconds: 60,
  logLevel: "Info",
  logFormat: "logfmt"
} as const

// -----------------------------------------------------------------------------
// reading
// -----------------------------------------------------------------------------

interface Raw {
  readonly setting: string
  readonly value: string
}

/** An environment variable through the current ConfigProvider; empty is unset. */
const env = (name: string): Effect.Effect<Raw | undefined, InvalidConfig> =>
  Effect.map(Config.option(Config.String(name)), (value) =>
      value._tag === "Some" && value.value.trim() !== "" ? { setting: name, value: value.value.trim() } : undefined
  ).pipe(
    Effect.mapError((error) => new InvalidConfig({ setting: name, value: "", expected: `a readable value (${error.message})` }))
  )

/** The flag when given, else the variable. */
const setting = (name: string, flag: string, override: string | undefined) =>
  override !== undefined ? Effect.succeed<Raw | undefined>({ setting: flag, value: override }) : env(name)

const invalid = (raw: Raw, expected: string) =>
  Effect.fail(new InvalidConfig({ setting: raw.setting, value: raw.value, expected }))

const integer = (raw: Raw, min: number, max: number, expected: string) => {
  const n = /^\d+$/.test(raw.value) ? Number(raw.value) : Number.NaN
  return Number.isSafeInteger(n) && n >= min && n <= max ? Effect.succeed(n) : invalid(raw, expected)
}

const hostnamePattern = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/

const booleans: Record<string, boolean> = {
  "1": true, true: true, yes: true, on: true,
  "0": false, false: false, no: false, off: false
}

const logLevels: Record<string, LogLevel.LogLevel> = {
  all: "All", trace: "Trace", debug: "Debug", info: "Info", warn: "Warn", warning: "Warn",
  error: "Error", fatal: "Fatal", none: "None", off: "None"
}

// -----------------------------------------------------------------------------
// settings
// -----------------------------------------------------------------------------

/**
 * `DATABASE_URL` / `--database-url` (PostgreSQL) or else `DATA_DIR` /
 * `--data-dir` (PGlite). A flag beats either variable.
 *
 * @category config
 */
export const database = Effect.fn("Config.database")(function*(overrides: Overrides = {}) {
  if (overrides.databaseUrl !== undefined && overrides.dataDir !== undefined) {
    return yield* new InvalidConfig({
      setting: "--data-dir",
      value: overrides.dataDir,
      expected: "either --database-url or --data-dir, not both"
    })
  }
  const url = overrides.dataDir !== undefined
    ? undefined
    : yield* setting("DATABASE_URL", "--database-url", overrides.databaseUrl)
  if (url !== undefined && /^memory:(\/\/)?$/i.test(url.value)) return { _tag: "Memory" } satisfies Database as Database
  if (url !== undefined) {
    return { _tag: "Postgres", url: yield* postgresUrl(url) } satisfies Database as Database
  }
  const dir = yield* setting("DATA_DIR", "--data-dir", overrides.dataDir)
  if (dir !== undefined && dir.value.trim() === "") return yield* invalid(dir, "a directory path")
  return { _tag: "Pglite", dataDir: dir?.value ?? defaults.dataDir } satisfies Database as Database
})

const postgresUrl = (raw: Raw) => {
  const expected = "a postgres:// or postgresql:// URL (e.g. postgres://user:password@localhost:5432/teamchat), or memory://"
  if (!/^postgres(ql)?:\/\//i.test(raw.value) || !URL.canParse(raw.value)) return invalid(raw, expected)
  const url = new URL(raw.value)
  return url.hostname === "" ? invalid(raw, expected) : Effect.succeed(raw.value)
}

/**
 * An organization URL (`EXTERNAL_URL`, `--external-url`, `--url`): an http
 * or https origin, returned without a trailing slash.
 *
 * @category config
 */
export const organizationUrl = (settingName: string, value: string): Effect.Effect<string, InvalidConfig> => {
  const raw = { setting: settingName, value }
  const expected = "an http:// or https:// URL without a path, e.g. https://chat.example.com"
  if (!URL.canParse(value)) return invalid(raw, expected)
  const url = new URL(value)
  const plain = (url.protocol === "http:" || url.protocol === "https:") && url.pathname === "/" &&
    url.search === "" && url.hash === "" && url.username === "" && url.password === ""
  return plain ? Effect.succeed(url.origin) : invalid(raw, expected)
}

/**
 * `EXTERNAL_URL` / `--external-url`, or undefined when unset.
 *
 * @category config
 */
export const externalUrl = Effect.fn("Config.externalUrl")(function*(overrides: Overrides = {}) {
  const raw = yield* setting("EXTERNAL_URL", "--external-url", overrides.externalUrl)
  return raw === undefined ? undefined : yield* organizationUrl(raw.setting, raw.value)
})

/**
 * `PORT` / `--port`.
 *
 * @category config
 */
export const port = Effect.fn("Config.port")(function*(overrides: Overrides = {}) {
  const raw = yield* setting("PORT", "--port", overrides.port)
  return raw === undefined
    ? defaults.port
    : yield* integer(raw, 0, 65535, "a port number from 0 to 65535 (0 picks a free port)")
})

/** The default organization URL for a port. @category config */
export const defaultExternalUrl = (port: number): string => `http://localhost:${port}`

/**
 * Every server setting.
 *
 * @category config
 */
export const server = Effect.fn("Config.server")(function*(overrides: Overrides = {}) {
  const listenPort = yield* port(overrides)
  const hostRaw = yield* setting("HOST", "--host", overrides.host)
  if (hostRaw !== undefined && isIP(hostRaw.value) === 0 && !hostnamePattern.test(hostRaw.value)) {
    return yield* invalid(hostRaw, "an IP address or host name to listen on, e.g. 127.0.0.1 or 0.0.0.0")
  }
  const host = hostRaw?.value ?? defaults.host

  const demoRaw = overrides.demo === true ? undefined : yield* env("DEMO")
  let demo = overrides.demo === true
  if (demoRaw !== undefined) {
    const value = booleans[demoRaw.value.toLowerCase()]
    if (value === undefined) return yield* invalid(demoRaw, "1 or 0 (also true/false, yes/no, on/off)")
    demo = value
  }

  const requestsRaw = yield* env("RATE_LIMIT_REQUESTS")
  const windowRaw = yield* env("RATE_LIMIT_WINDOW_SECONDS")
  const requests = requestsRaw === undefined
    ? undefined
    : yield* integer(requestsRaw, 0, 1_000_000_000, "a whole number of requests per window (0 disables rate limiting)")
  const windowSeconds = windowRaw === undefined
    ? undefined
    : yield* integer(windowRaw, 1, 86_400, "a whole number of seconds from 1 to 86400")
  const rateLimit: RateLimitSetting = requests === 0 ? false : { requests, windowSeconds }

  const levelRaw = yield* env("LOG_LEVEL")
  let logLevel: LogLevel.LogLevel = defaults.logLevel
  if (levelRaw !== undefined) {
    const level = logLevels[levelRaw.value.toLowerCase()]
    if (level === undefined) return yield* invalid(levelRaw, "one of trace, debug, info, warn, error, fatal, none")
    logLevel = level
  }

  const formatRaw = yield* env("LOG_FORMAT")
  let logFormat: LogFormat = defaults.logFormat
  if (formatRaw !== undefined) {
    const format = formatRaw.value.toLowerCase()
    if (format !== "logfmt" && format !== "json" && format !== "pretty") {
      return yield* invalid(formatRaw, "logfmt, json or pretty")
    }
    logFormat = format
  }

  return {
    port: listenPort,
    host,
    database: yield* database(overrides),
    demo,
    externalUrl: yield* externalUrl(overrides),
    rateLimit,
    logLevel,
    logFormat
  } satisfies ServerConfig as ServerConfig
})

/**
 * The rate limit to serve with: the configured parts over `fallback` (the
 * HTTP adapter's default). Setting only the window keeps the fallback's
 * request count, and stays disabled when the fallback is.
 *
 * @category config
 */
export const resolveRateLimit = (configured: RateLimitSetting, fallback: RateLimit | false): RateLimit | false => {
  if (configured === false) return false
  if (configured.requests === undefined) {
    return fallback === false || configured.windowSeconds === undefined
      ? fallback
      : { requests: fallback.requests, windowSeconds: configured.windowSeconds }
  }
  return {
    requests: configured.requests,
    windowSeconds: configured.windowSeconds ?? (fallback === false ? defaults.rateLimitWindowSeconds : fallback.windowSeconds)
  }
}

// -----------------------------------------------------------------------------
// display
// -----------------------------------------------------------------------------

/** A URL with any password replaced by `***`. @category display */
export const redactUrl = (url: string): string => {
  if (!URL.canParse(url)) return url
  const parsed = new URL(url)
  if (parsed.password !== "") parsed.password = "***"
  return parsed.toString()
}

/** "PGlite at ./data", "PostgreSQL at postgres://user:***@host/db" or "in-memory database". @category display */
export const describeDatabase = (database: Database): string =>
  database._tag === "Pglite"
    ? `PGlite at ${database.dataDir}`
    : database._tag === "Postgres"
    ? `PostgreSQL at ${redactUrl(database.url)}`
    : "in-memory database"
