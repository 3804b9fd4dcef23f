/**
 * Server configuration: environment variables read with effect's `Config`,
 * overridden by command-line flags, validated into one `ServerConfig`.
 *
 * | variable | flag | default |
 * |---|---|---|
 * | `PORT` | `--port` | 9991 (0 picks a free port) |
 * | `HOST` | `--host` | 127.0.0.1 |
 * | `DATABASE_URL` | `--database-url` | unset: embedded PGlite in `DATA_DIR`; `memory://`: in memory, lost at exit |
 * | `DATA_DIR` | `--data-dir` | ./data (uploaded files in its `uploads` folder, on PostgreSQL too) |
 * | `DEMO` | `--demo` | off |
 * | `EXTERNAL_URL` | `--external-url` | http://localhost:PORT |
 * | `RATE_LIMIT_REQUESTS` (0 disables) | | the HTTP adapter's default |
 * | `RATE_LIMIT_WINDOW_SECONDS` | | the HTTP adapter's default, else 60 |
 * | `RATE_LIMIT_STORE` (memory, postgres, redis) | | redis when `REDIS_URL` is set, else postgres on PostgreSQL, else memory |
 * | `REDIS_URL` | | unset (redis://host:port, for `RATE_LIMIT_STORE=redis`) |
 * | `REDIS_KEY_PREFIX` | | teamchat: (keys are `<prefix>ratelimit:…`; one per deployment sharing a Redis) |
 * | `WORKERS` | `--workers` | one per core on PostgreSQL, else 1 (PGlite and memory allow 1) |
 * | `LOG_LEVEL` | | info |
 * | `LOG_FORMAT` (logfmt, json, pretty) | | logfmt: one line per entry |
 * | `PUSH_BOUNCER_URL` | | unset: no push service (POST /mobile_push/register fails with `PUSH_SERVICE_NOT_CONFIGURED`) |
 * | `MAX_BODY_BYTES` | | the HTTP adapter's default (4 MiB): larger request bodies get a 413 |
 * | `S3_BUCKET` | | unset: uploaded files in `DATA_DIR/uploads`; set: in this bucket of an S3-compatible store (credentials and region by the AWS SDK's usual means) |
 * | `S3_ENDPOINT` | | unset: AWS; an S3-compatible server's URL (path-style requests) |
 * | `MAX_FILE_UPLOAD_SIZE_MIB` | | 100: larger uploads are refused (Zulip's `MAX_FILE_UPLOAD_SIZE`; 0 refuses every file) |
 * | `DATABASE_POOL_SIZE` | | 10 connections per server process (PostgreSQL) |
 * | `DATABASE_POOL_TIMEOUT_SECONDS` | | 10: a request waiting longer for a free connection gets a 503 with `Retry-After` |
 *
 * Each value, from a flag or a variable, is parsed by effect's `Config`:
 * `Config.Boolean`, `Config.LogLevel`, `Config.Literals`, and integers and URLs
 * read as `Config.Int`, `Config.Port` and `Config.URL` read them, with this
 * server's ranges and checks. Empty variables count as unset; values are trimmed and
 * names are accepted in any case. A bad value fails with `InvalidConfig`,
 * whose message is one line naming the setting, the value and what was
 * expected.
 *
 * @since 0.1.0
 */
import type { Persistence } from "@teamchat/core"
import * as Config from "effect/Config"
import * as path from "node:path"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { isIP } from "node:net"
import { availableParallelism } from "node:os"

/** Where the data lives. @category models */
export type Database =
  | { readonly _tag: "Pglite"; readonly dataDir: string }
  | {
    readonly _tag: "Postgres"
    readonly url: string
    /** Connections per process (`DATABASE_POOL_SIZE`); undefined: core's default. */
    readonly poolSize?: number | undefined
    /** The longest wait for a free connection (`DATABASE_POOL_TIMEOUT_SECONDS`); undefined: core's default. */
    readonly poolTimeoutSeconds?: number | undefined
  }
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

/**
 * Where rate limits are counted: this process's memory, the PostgreSQL
 * database, or Redis; the last two are shared by every process using them.
 *
 * @category models
 */
export type RateLimitStore =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Postgres" }
  | {
    readonly _tag: "Redis"
    readonly url: string
    /** The deployment's key prefix (`REDIS_KEY_PREFIX`); undefined: the default, "teamchat:". */
    readonly keyPrefix?: string | undefined
  }

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
  /** Server processes behind the port (default 1). */
  readonly workers?: number | undefined
  /** Where rate limits are counted (default this process's memory). */
  readonly rateLimitStore?: RateLimitStore | undefined
  /**
   * The push notification bouncer that E2EE push registrations are
   * forwarded to (`PUSH_BOUNCER_URL`); undefined: none configured.
   */
  readonly pushBouncerUrl?: string | undefined
  /** Larger request bodies are refused with a 413 (`MAX_BODY_BYTES`); undefined: the HTTP adapter's default. */
  readonly maxBodyBytes?: number | undefined
  /**
   * The folder uploaded files are kept in: `<DATA_DIR>/uploads` (PGlite and
   * PostgreSQL); undefined: in memory, with the in-memory database.
   */
  readonly filesDir?: string | undefined
  /** Uploaded files in this bucket of an S3-compatible store (`S3_BUCKET`, `S3_ENDPOINT`) instead of `filesDir`. */
  readonly s3?: { readonly bucket: string; readonly endpoint?: string | undefined } | undefined
  /** The upload limit in MiB (`MAX_FILE_UPLOAD_SIZE_MIB`); undefined: Zulip's default, 100. */
  readonly maxFileUploadSizeMib?: number | undefined
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
  readonly workers?: string | undefined
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

/**
 * One setting: its environment variable, how effect's `Config` reads its
 * value, and what the error line says was expected. `normalize` prepares a
 * value for `read` (case-insensitive names).
 */
interface Setting<A> {
  readonly name: string
  readonly read: (name: string) => Config.Config<A>
  readonly expected: string
  readonly normalize?: ((value: string) => string) | undefined
}

/**
 * The raw value of a setting: the flag when given, else the variable through
 * the current `ConfigProvider`, trimmed; an empty variable is unset.
 */
const rawValue = (name: string, flag: string | undefined, override: string | undefined) =>
  override !== undefined
    ? Effect.succeed(Option.some({ setting: flag ?? name, value: override }))
    : Config.option(Config.String(name)).pipe(
      Effect.map(Option.flatMap((value) => {
        const trimmed = value.trim()
        return trimmed === "" ? Option.none() : Option.some({ setting: name, value: trimmed })
      })),
      Effect.mapError((error) =>
        new InvalidConfig({ setting: name, value: "", expected: `a readable value (${error.message})` })
      )
    )

/**
 * Reads `setting` (from `flag` when given): `None` when unset. The value is
 * parsed by its `Config` from a provider holding just that value, so a flag
 * and a variable are read alike; a `ConfigError` becomes this server's one
 * line naming the flag or variable, the value and what was expected.
 */
const read = <A>(setting: Setting<A>, flag?: string, override?: string) =>
  Effect.flatMap(
    rawValue(setting.name, flag, override),
    Option.match({
      onNone: () => Effect.succeedNone,
      onSome: (raw) => {
        const value = setting.normalize === undefined ? raw.value : setting.normalize(raw.value)
        return setting.read(setting.name).parse(ConfigProvider.fromUnknown({ [setting.name]: value })).pipe(
          Effect.map(Option.some),
          Effect.mapError(() => new InvalidConfig({ setting: raw.setting, value: raw.value, expected: setting.expected }))
        )
      }
    })
  )

const hostnamePattern = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/

const integerBetween = (minimum: number, maximum: number) => (name: string) =>
  Config.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })), name)

/** Names accepted for `LOG_LEVEL`, in any case, as `Config.LogLevel` spells them. */
const logLevelNames: Record<string, LogLevel.LogLevel> = {
  all: "All", trace: "Trace", debug: "Debug", info: "Info", warn: "Warn", warning: "Warn",
  error: "Error", fatal: "Fatal", none: "None", off: "None"
}

const lowercase = (value: string) => value.toLowerCase()

const settings = {
  // `Config.Port` starts at 1; 0 asks the system for a free port.
  port: {
    name: "PORT",
    read: integerBetween(0, 65535),
    expected: "a port number from 0 to 65535 (0 picks a free port)"
  },
  host: {
    name: "HOST",
    read: (name) =>
      Config.schema(Schema.String.check(Schema.makeFilter((host) => isIP(host) !== 0 || hostnamePattern.test(host))), name),
    expected: "an IP address or host name to listen on, e.g. 127.0.0.1 or 0.0.0.0"
  },
  demo: {
    name: "DEMO",
    read: Config.Boolean,
    expected: "1 or 0 (also true/false, yes/no, on/off)",
    normalize: lowercase
  },
  rateLimitRequests: {
    name: "RATE_LIMIT_REQUESTS",
    read: integerBetween(0, 1_000_000_000),
    expected: "a whole number of requests per window (0 disables rate limiting)"
  },
  rateLimitWindowSeconds: {
    name: "RATE_LIMIT_WINDOW_SECONDS",
    read: integerBetween(1, 86_400),
    expected: "a whole number of seconds from 1 to 86400"
  },
  logLevel: {
    name: "LOG_LEVEL",
    read: Config.LogLevel,
    expected: "one of trace, debug, info, warn, error, fatal, none",
    normalize: (value) => logLevelNames[value.toLowerCase()] ?? value
  },
  workers: {
    name: "WORKERS",
    read: integerBetween(1, 256),
    expected: "a whole number of server processes from 1 to 256"
  },
  rateLimitStore: {
    name: "RATE_LIMIT_STORE",
    read: (name) => Config.Literals(["memory", "postgres", "redis"], name),
    expected: "memory, postgres or redis",
    normalize: lowercase
  },
  redisUrl: {
    name: "REDIS_URL",
    read: (name) => Config.schema(Schema.String.check(Schema.makeFilter((url) => redisUrl.test(url))), name),
    expected: "a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379"
  },
  redisKeyPrefix: {
    name: "REDIS_KEY_PREFIX",
    read: (name) => Config.schema(Schema.String.check(Schema.makeFilter((prefix) => redisKeyPrefix.test(prefix))), name),
    expected: "1 to 64 letters, digits or the characters : . _ - / (no spaces), e.g. acme:"
  },
  logFormat: {
    name: "LOG_FORMAT",
    read: (name) => Config.Literals(["logfmt", "json", "pretty"], name),
    expected: "logfmt, json or pretty",
    normalize: lowercase
  },
  databaseUrl: {
    name: "DATABASE_URL",
    read: (name) =>
      Config.schema(
        Schema.String.check(Schema.makeFilter((url) => memoryUrl.test(url) || postgresUrl.test(url))),
        name
      ),
    expected: "a postgres:// or postgresql:// URL (e.g. postgres://user:password@localhost:5432/teamchat), or memory://"
  },
  dataDir: { name: "DATA_DIR", read: Config.String, expected: "a directory path" },
  databasePoolSize: {
    name: "DATABASE_POOL_SIZE",
    read: integerBetween(2, 1000),
    expected: "a whole number of connections per server process from 2 to 1000"
  },
  databasePoolTimeoutSeconds: {
    name: "DATABASE_POOL_TIMEOUT_SECONDS",
    read: integerBetween(1, 3600),
    expected: "a whole number of seconds from 1 to 3600"
  },
  maxBodyBytes: {
    name: "MAX_BODY_BYTES",
    read: integerBetween(1024, 1024 * 1024 * 1024),
    expected: "a whole number of bytes from 1024 to 1073741824"
  },
  s3Bucket: { name: "S3_BUCKET", read: Config.String, expected: "a bucket name" },
  s3Endpoint: {
    name: "S3_ENDPOINT",
    read: (name) => Config.map(Config.schema(Schema.URL.check(Schema.makeFilter(isOrigin)), name), (url) => url.origin),
    expected: "an http:// or https:// URL without a path, e.g. http://127.0.0.1:9000"
  },
  maxFileUploadSizeMib: {
    name: "MAX_FILE_UPLOAD_SIZE_MIB",
    read: integerBetween(0, 1024 * 1024),
    expected: "a whole number of MiB from 0 to 1048576"
  },
  pushBouncerUrl: {
    name: "PUSH_BOUNCER_URL",
    read: (name) => Config.map(Config.schema(Schema.URL.check(Schema.makeFilter(isBouncerUrl)), name), (url) => url.toString()),
    expected: "an http:// or https:// URL without credentials, query or fragment, e.g. https://push.example.com"
  },
  externalUrl: {
    name: "EXTERNAL_URL",
    read: (name) => Config.map(Config.schema(Schema.URL.check(Schema.makeFilter(isOrigin)), name), (url) => url.origin),
    expected: "an http:// or https:// URL without a path, e.g. https://chat.example.com"
  }
} satisfies Record<string, Setting<unknown>>

const memoryUrl = /^memory:(\/\/)?$/i

/** A Redis URL with a host. */
const redisUrl = {
  test: (value: string): boolean =>
    /^rediss?:\/\//i.test(value) && URL.canParse(value) && new URL(value).hostname !== ""
}

/**
 * A Redis key prefix: printable, without spaces, and without the characters
 * Redis's key patterns (`SCAN MATCH`) treat specially, so that an operator
 * can list a deployment's keys as `<prefix>*`.
 */
const redisKeyPrefix = /^[A-Za-z0-9:._\-/]{1,64}$/

/** A PostgreSQL URL with a host, kept as written. */
const postgresUrl = {
  test: (value: string): boolean =>
    /^postgres(ql)?:\/\//i.test(value) && URL.canParse(value) && new URL(value).hostname !== ""
}

/** An http or https URL the bouncer's paths can be appended to. */
const isBouncerUrl = (url: URL): boolean =>
  (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === "" &&
  url.username === "" && url.password === ""

/** An http or https origin: nothing after the host and port but an optional slash. */
const isOrigin = (url: URL): boolean =>
  (url.protocol === "http:" || url.protocol === "https:") && url.pathname === "/" &&
  url.search === "" && url.hash === "" && url.username === "" && url.password === ""

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
    ? Option.none<string>()
    : yield* read(settings.databaseUrl, "--database-url", overrides.databaseUrl)
  if (Option.isSome(url)) {
    if (memoryUrl.test(url.value)) return { _tag: "Memory" } satisfies Database as Database
    const poolSize = Option.getOrUndefined(yield* read(settings.databasePoolSize))
    const poolTimeoutSeconds = Option.getOrUndefined(yield* read(settings.databasePoolTimeoutSeconds))
    return {
      _tag: "Postgres",
      url: url.value,
      ...(poolSize === undefined ? {} : { poolSize }),
      ...(poolTimeoutSeconds === undefined ? {} : { poolTimeoutSeconds })
    } satisfies Database as Database
  }
  const dir = yield* read(settings.dataDir, "--data-dir", overrides.dataDir)
  if (Option.isSome(dir) && dir.value.trim() === "") {
    return yield* new InvalidConfig({ setting: "--data-dir", value: dir.value, expected: settings.dataDir.expected })
  }
  return { _tag: "Pglite", dataDir: Option.getOrElse(dir, () => defaults.dataDir) } satisfies Database as Database
})

/**
 * An organization URL (`EXTERNAL_URL`, `--external-url`, `--url`): an http
 * or https origin, returned without a trailing slash.
 *
 * @category config
 */
export const organizationUrl = (settingName: string, value: string): Effect.Effect<string, InvalidConfig> =>
  Effect.map(read(settings.externalUrl, settingName, value), Option.getOrThrow)

/**
 * `EXTERNAL_URL` / `--external-url`, or undefined when unset.
 *
 * @category config
 */
export const externalUrl = Effect.fn("Config.externalUrl")(function*(overrides: Overrides = {}) {
  return Option.getOrUndefined(yield* read(settings.externalUrl, "--external-url", overrides.externalUrl))
})

/**
 * `PORT` / `--port`.
 *
 * @category config
 */
export const port = Effect.fn("Config.port")(function*(overrides: Overrides = {}) {
  return Option.getOrElse(yield* read(settings.port, "--port", overrides.port), () => defaults.port)
})

/**
 * `LOG_LEVEL`, or Info when unset.
 *
 * @category config
 */
export const logLevel: Effect.Effect<LogLevel.LogLevel, InvalidConfig> = Effect.map(
  read(settings.logLevel),
  Option.getOrElse((): LogLevel.LogLevel => defaults.logLevel)
)

/**
 * `PUSH_BOUNCER_URL`, or undefined when unset.
 *
 * @category config
 */
export const pushBouncerUrl: Effect.Effect<string | undefined, InvalidConfig> = Effect.map(
  read(settings.pushBouncerUrl),
  Option.getOrUndefined
)

/** The default organization URL for a port. @category config */
export const defaultExternalUrl = (port: number): string => `http://localhost:${port}`

/**
 * Every server setting.
 *
 * @category config
 */
export const server = Effect.fn("Config.server")(function*(overrides: Overrides = {}) {
  const listenPort = yield* port(overrides)
  const host = Option.getOrElse(yield* read(settings.host, "--host", overrides.host), () => defaults.host)
  // --demo turns the demo on whatever DEMO says.
  const demo = overrides.demo === true || Option.getOrElse(yield* read(settings.demo), () => false)
  const requests = Option.getOrUndefined(yield* read(settings.rateLimitRequests))
  const windowSeconds = Option.getOrUndefined(yield* read(settings.rateLimitWindowSeconds))
  const rateLimit: RateLimitSetting = requests === 0 ? false : { requests, windowSeconds }
  const level = yield* logLevel
  const logFormat = Option.getOrElse(yield* read(settings.logFormat), (): LogFormat => defaults.logFormat)
  const db = yield* database(overrides)
  const bouncer = yield* pushBouncerUrl
  const maxBodyBytes = Option.getOrUndefined(yield* read(settings.maxBodyBytes))
  const maxFileUploadSizeMib = Option.getOrUndefined(yield* read(settings.maxFileUploadSizeMib))
  const filesDir = yield* filesDirectory(db)
  const s3Bucket = Option.getOrUndefined(yield* read(settings.s3Bucket))
  const s3Endpoint = Option.getOrUndefined(yield* read(settings.s3Endpoint))
  return {
    port: listenPort,
    host,
    database: db,
    demo,
    externalUrl: yield* externalUrl(overrides),
    rateLimit,
    logLevel: level,
    logFormat,
    workers: yield* workers(db, overrides),
    rateLimitStore: yield* rateLimitStore(db),
    ...(bouncer === undefined ? {} : { pushBouncerUrl: bouncer }),
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
    ...(filesDir === undefined ? {} : { filesDir }),
    ...(maxFileUploadSizeMib === undefined ? {} : { maxFileUploadSizeMib }),
    ...(s3Bucket === undefined ? {} : { s3: { bucket: s3Bucket, ...(s3Endpoint === undefined ? {} : { endpoint: s3Endpoint }) } })
  } satisfies ServerConfig as ServerConfig
})

/** The folder of the uploads folder. @category constants */
export const filesSubdirectory = "uploads"

/**
 * Where uploaded files are kept: the data directory's `uploads` folder
 * (PGlite's, or `DATA_DIR` beside PostgreSQL); none with the in-memory
 * database.
 *
 * @category config
 */
export const filesDirectory = Effect.fn("Config.filesDirectory")(function*(db: Database) {
  if (db._tag === "Memory") return undefined
  if (db._tag === "Pglite") return path.join(db.dataDir, filesSubdirectory)
  const dir = yield* read(settings.dataDir)
  return path.join(Option.getOrElse(dir, () => defaults.dataDir), filesSubdirectory)
})

/**
 * `WORKERS` / `--workers`: one process per core on PostgreSQL by default;
 * the embedded PGlite and the in-memory database belong to one process, so
 * more than one is refused there.
 *
 * @category config
 */
export const workers = Effect.fn("Config.workers")(function*(db: Database, overrides: Overrides = {}) {
  const configured = yield* read(settings.workers, "--workers", overrides.workers)
  if (db._tag === "Postgres") return Option.getOrElse(configured, () => Math.max(1, availableParallelism()))
  if (Option.isSome(configured) && configured.value > 1) {
    return yield* new InvalidConfig({
      setting: overrides.workers !== undefined ? "--workers" : "WORKERS",
      value: String(overrides.workers ?? configured.value),
      expected: `1 with ${db._tag === "Pglite" ? "the embedded PGlite database, which allows one process" : "the in-memory database"}` +
        "; set DATABASE_URL=postgres://… for more"
    })
  }
  return 1
})

/**
 * `RATE_LIMIT_STORE`, `REDIS_URL` and `REDIS_KEY_PREFIX`: redis when
 * `REDIS_URL` is set, else the PostgreSQL database when serving from one,
 * else this process's memory. The prefix is checked whichever is chosen.
 *
 * @category config
 */
export const rateLimitStore = Effect.fn("Config.rateLimitStore")(function*(db: Database) {
  const store = yield* read(settings.rateLimitStore)
  const url = yield* read(settings.redisUrl)
  const keyPrefix = yield* read(settings.redisKeyPrefix)
  const chosen = Option.getOrElse(store, () => Option.isSome(url) ? "redis" : db._tag === "Postgres" ? "postgres" : "memory")
  switch (chosen) {
    case "redis":
      if (Option.isNone(url)) {
        return yield* new InvalidConfig({ setting: "RATE_LIMIT_STORE", value: "redis", expected: "REDIS_URL set as well" })
      }
      return {
        _tag: "Redis",
        url: url.value,
        ...(Option.isSome(keyPrefix) ? { keyPrefix: keyPrefix.value } : {})
      } satisfies RateLimitStore as RateLimitStore
    case "postgres":
      if (db._tag !== "Postgres") {
        return yield* new InvalidConfig({
          setting: "RATE_LIMIT_STORE",
          value: "postgres",
          expected: "memory or redis when DATABASE_URL is not a PostgreSQL URL"
        })
      }
      return { _tag: "Postgres" } satisfies RateLimitStore as RateLimitStore
    default:
      return { _tag: "Memory" } satisfies RateLimitStore as RateLimitStore
  }
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

/** "rate limits in Redis at redis://127.0.0.1:6379" and the like. @category display */
export const describeRateLimitStore = (store: RateLimitStore | undefined): string =>
  store === undefined || store._tag === "Memory"
    ? "rate limits in memory"
    : store._tag === "Postgres"
    ? "rate limits in PostgreSQL"
    : `rate limits in Redis at ${redactUrl(store.url)}${store.keyPrefix === undefined ? "" : ` under ${store.keyPrefix}`}`

/**
 * The pool options of a PostgreSQL database as configured (core's defaults
 * for what is unset).
 *
 * @category config
 */
export const poolOptions = (database: Extract<Database, { readonly _tag: "Postgres" }>): Persistence.PgPoolOptions => ({
  ...(database.poolSize === undefined ? {} : { maxConnections: database.poolSize }),
  ...(database.poolTimeoutSeconds === undefined ? {} : { acquireTimeout: Duration.seconds(database.poolTimeoutSeconds) })
})

/** "PGlite at ./data", "PostgreSQL at postgres://user:***@host/db" or "in-memory database". @category display */
export const describeDatabase = (database: Database): string =>
  database._tag === "Pglite"
    ? `PGlite at ${database.dataDir}`
    : database._tag === "Postgres"
    ? `PostgreSQL at ${redactUrl(database.url)}`
    : "in-memory database"
