/**
 * The standalone server: the core on the configured database (migrated at
 * start), the demo organization seeded into an empty database when asked,
 * the scheduled-message delivery worker, and the HTTP routes served by
 * Node's `http` module.
 *
 * Startup order is port, database, seeding, routes, so a taken port fails
 * before the database opens. Shutdown runs the other way: the server stops
 * accepting connections and lets in-flight requests finish, then the
 * database closes (PGlite flushes its files) and the data directory is
 * unlocked.
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import {
  Attachment,
  DemoData,
  DemoOrganization,
  EventQueues,
  Organizations,
  Persistence,
  ScheduledDelivery,
  Teamchat
} from "@teamchat/core"
import type { KeyGenerator, PasswordHasher, RateLimitStore } from "@teamchat/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Formatter from "effect/Formatter"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import type { MigrationError } from "effect/sql/Migrator"
import type { SqlError } from "effect/sql/SqlError"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import cluster from "node:cluster"
import * as fs from "node:fs"
import { createServer, STATUS_CODES } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type * as net from "node:net"
import * as path from "node:path"
import type { Database, ServerConfig } from "./Config.ts"
import type * as Config from "./Config.ts"
import { defaultExternalUrl, describeDatabase, describeRateLimitStore, poolOptions, redactUrl, resolveRateLimit } from "./Config.ts"
import { defaultHttpOptions, layerRoutes } from "./Http.ts"
import * as PushBouncerClient from "./PushBouncerClient.ts"
import type { HttpOptions } from "./Http.ts"

/** Where progress text goes; the default is stdout. @category models */
export type Output = (text: string) => void

/** @category models */
export interface Options {
  /** Overrides of the HTTP adapter's options (demo and rate limit come from the config). */
  readonly http?: Partial<HttpOptions> | undefined
  /** Key generation and password hashing; production strength by default. */
  readonly secrets?: Layer.Layer<KeyGenerator.KeyGenerator | PasswordHasher.PasswordHasher> | undefined
  /**
   * The key signatures (temporary file URLs) are made with, when `secrets`
   * is not given: the cluster's workers share their primary's. Undefined: a
   * random one of this process's.
   */
  readonly signingKey?: Uint8Array | undefined
  readonly output?: Output | undefined
  /** How long shutdown waits for in-flight requests (default 10 seconds). */
  readonly gracefulShutdownTimeout?: Duration.Input | undefined
  /**
   * How long a client has to send a whole request, headers and body
   * (default 60 seconds); later it gets a 408. Responses are not limited:
   * long polls hold theirs for up to a minute after the request is in.
   */
  readonly requestTimeout?: Duration.Input | undefined
  /** How long an idle keep-alive connection stays open (default Node's, 5 seconds). */
  readonly keepAliveTimeout?: Duration.Input | undefined
  /**
   * Whether this process seeds the demo organization (default true); the
   * workers of a cluster leave it to the primary.
   */
  readonly seed?: boolean | undefined
  /** Called once the server is serving, with its address (the workers of a cluster tell the primary). */
  readonly onListening?: ((url: string) => void) | undefined
}

/** @category constants */
export const stdout: Output = (text) => {
  process.stdout.write(text)
}

/** @category constants */
export const stderr: Output = (text) => {
  process.stderr.write(text)
}

/** Prints nothing. @category constants */
export const silent: Output = () => {}

/**
 * `write` in JSON lines: each complete line of text becomes one entry
 * shaped like effect's JSON logger's (`message`, `level`, `timestamp` from
 * `clock`, `annotations`, `spans`), so a `LOG_FORMAT=json` stream stays JSON.
 *
 * @category constants
 */
export const jsonLines = (write: Output, clock: Clock.Clock): Output => {
  let pending = ""
  return (text) => {
    pending += text
    let end = pending.indexOf("\n")
    while (end !== -1) {
      const line = pending.slice(0, end).replace(/^teamchat: /, "")
      pending = pending.slice(end + 1)
      write(
        JSON.stringify({ message: line, level: "INFO", timestamp: new Date(clock.currentTimeMillisUnsafe()).toISOString(), annotations: {}, spans: {} }) +
          "\n"
      )
      end = pending.indexOf("\n")
    }
  }
}

/** Where the server's progress goes by default: stdout, as JSON lines in json log format. @category constants */
export const outputFor = (logFormat: ServerConfig["logFormat"], clock: Clock.Clock): Output =>
  logFormat === "json" ? jsonLines(stdout, clock) : stdout

// -----------------------------------------------------------------------------
// data directory
// -----------------------------------------------------------------------------

/** Another live process holds the PGlite data directory. @category errors */
export class DataDirInUse extends Data.TaggedError("DataDirInUse")<{
  readonly dataDir: string
  readonly pid: number
}> {
  override get message(): string {
    return `the data directory ${this.dataDir} is in use by another teamchat process (pid ${this.pid}); ` +
      `stop it first (embedded PGlite allows one process at a time; use DATABASE_URL for more)`
  }
}

/** The data directory cannot be created or written. @category errors */
export class DataDirUnusable extends Data.TaggedError("DataDirUnusable")<{
  readonly dataDir: string
  readonly reason: string
}> {
  override get message(): string {
    return `cannot use the data directory ${this.dataDir}: ${this.reason}`
  }
}

/** The port cannot be bound. @category errors */
export class CannotListen extends Data.TaggedError("CannotListen")<{
  readonly host: string
  readonly port: number
  readonly cause: unknown
}> {
  override get message(): string {
    const code = (this.cause as NodeJS.ErrnoException | undefined)?.code
    const reason = code === "EADDRINUSE"
      ? "the address is already in use (another server on that port? set PORT)"
      : code === "EACCES"
      ? "permission denied (ports below 1024 need privileges)"
      : code === "EADDRNOTAVAIL"
      ? "the address is not on this machine (check HOST)"
      : String((this.cause as Error | undefined)?.message ?? this.cause)
    return `cannot listen on ${this.host}:${this.port}: ${reason}`
  }
}

/** The lock file inside a data directory. @category constants */
export const lockFile = "teamchat.lock"
/** PGlite's files live in this subdirectory of the data directory. @category constants */
export const pgliteSubdirectory = "pgdata"

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const errnoMessage = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException
  return e.code === "EACCES" || e.code === "EPERM"
    ? "permission denied"
    : e.code === "ENOTDIR" || e.code === "EEXIST"
    ? "a file is in the way"
    : e.code === "EROFS"
    ? "read-only file system"
    : String(e.message ?? error)
}

/**
 * Creates the data directory when missing and takes its lock file for the
 * scope: PGlite is a single-process database, and two processes on one
 * directory would corrupt it. A lock left by a dead process is taken over.
 *
 * @category data directory
 */
export const lockDataDir = (dataDir: string): Effect.Effect<void, DataDirInUse | DataDirUnusable, Scope.Scope> => {
  const file = path.join(dataDir, lockFile)
  const take = (): number | undefined => {
    fs.mkdirSync(dataDir, { recursive: true })
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx" })
        return undefined
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
      const holder = Number.parseInt(fs.readFileSync(file, "utf8").trim(), 10)
      if (Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) return holder
      fs.rmSync(file, { force: true })
    }
    throw new Error("the lock file keeps reappearing")
  }
  return Effect.acquireRelease(
    Effect.try({
      try: take,
      catch: (error) => new DataDirUnusable({ dataDir, reason: errnoMessage(error) })
    }).pipe(
      Effect.flatMap((holder) => holder === undefined ? Effect.void : Effect.fail(new DataDirInUse({ dataDir, pid: holder })))
    ),
    () =>
      Effect.sync(() => {
        try {
          if (fs.readFileSync(file, "utf8").trim() === String(process.pid)) fs.rmSync(file, { force: true })
        } catch {
          // Already gone.
        }
      })
  )
}

// -----------------------------------------------------------------------------
// core
// -----------------------------------------------------------------------------

/**
 * Prints `label… ` now and, when `effect` ends, its summary, "failed" or
 * "interrupted" (also when the whole program is interrupted).
 *
 * @category progress
 */
export const step = <A, E, R>(
  output: Output,
  label: string,
  effect: Effect.Effect<A, E, R>,
  summary: (a: A) => string = () => "done"
): Effect.Effect<A, E, R> =>
  Effect.sync(() => output(`teamchat: ${label}… `)).pipe(
    Effect.andThen(effect),
    Effect.onExit((exit) =>
      Effect.sync(() =>
        output(
          Exit.isSuccess(exit) ? `${summary(exit.value)}\n` : Cause.hasInterruptsOnly(exit.cause) ? "interrupted\n" : "failed\n"
        )
      )
    )
  )

/** Errors building the core can fail with. @category errors */
export type CoreError = Layer.Error<ReturnType<typeof layerCore>>

/**
 * Every core service on the configured database, migrated; for PGlite the
 * data directory is created and locked first. Prints progress to `output`.
 *
 * @category layers
 */
export const layerCore = (
  database: Database,
  options: {
    readonly secrets?: Layer.Layer<KeyGenerator.KeyGenerator | PasswordHasher.PasswordHasher> | undefined
    /** The signing key when `secrets` is not given; undefined: a random one. */
    readonly signingKey?: Uint8Array | undefined
    readonly output?: Output | undefined
    /** The push bouncer E2EE registrations are forwarded to; none when undefined. */
    readonly pushBouncerUrl?: string | undefined
    /** The folder uploaded files are kept in; undefined: memory. */
    readonly filesDir?: string | undefined
    /** The S3 bucket uploaded files are kept in instead (`S3_BUCKET`, `S3_ENDPOINT`). */
    readonly s3?: { readonly bucket: string; readonly endpoint?: string | undefined } | undefined
    /** The upload limit in MiB; undefined: 100. */
    readonly maxFileUploadSizeMib?: number | undefined
  } = {}
) => {
  const output = options.output ?? stdout
  const storage = options.s3 !== undefined
    ? Persistence.layerFileStorageS3(options.s3)
    : options.filesDir === undefined
    ? Persistence.layerFileStorageMemory
    : Persistence.layerFileStorageLocal(options.filesDir)
  const uploadLimit = options.maxFileUploadSizeMib === undefined
    ? Layer.empty
    : Layer.succeed(Attachment.MaxFileUploadSizeMib)(options.maxFileUploadSizeMib)
  // Besides the secrets: where uploaded files go and their limit.
  const keys = options.secrets ??
    (options.signingKey === undefined ? Teamchat.layerSecrets : Teamchat.layerSecretsWith({ signingKey: options.signingKey }))
  const secrets = Layer.mergeAll(keys, storage, uploadLimit)
  const core: Layer.Layer<
    Teamchat.Services | Persistence.Persistence,
    MigrationError | SqlError | DataDirInUse | DataDirUnusable
  > = database._tag === "Memory"
    ? Teamchat.layerMemory(secrets)
    : Teamchat.layerServices.pipe(
      Layer.provideMerge(
        database._tag === "Pglite"
          ? Persistence.layerPglite(path.join(database.dataDir, pgliteSubdirectory)).pipe(
            Layer.provide(Layer.effectDiscard(lockDataDir(database.dataDir)))
          )
          : Persistence.layerPostgres(database.url, poolOptions(database))
      ),
      Layer.provide(secrets)
    )
  const pushed = options.pushBouncerUrl === undefined
    ? core
    : core.pipe(Layer.provide(PushBouncerClient.layer({ url: options.pushBouncerUrl })))
  // The layer is built inside the step, in the scope of the returned layer.
  return Layer.effectContext(step(output, `opening ${describeDatabase(database)}`, Layer.build(pushed), () => "ready"))
}

/** What `seedDemo` did. @category models */
export type SeedOutcome =
  | { readonly _tag: "Seeded"; readonly users: number; readonly bots: number; readonly channels: number }
  | { readonly _tag: "Skipped"; readonly organizations: number }

/**
 * Seeds the demo organization at `url` when the database has no
 * organization yet; otherwise leaves it alone.
 *
 * @category seeding
 */
export const seedDemo = Effect.fn("Server.seedDemo")(function*(url: string, output: Output = stdout) {
  const organizations = yield* Organizations.Organizations
  const existing = yield* organizations.list
  if (existing.length > 0) {
    const demo = existing.find((o) => o.demo)
    output(
      demo !== undefined
        ? `teamchat: demo organization '${demo.name}' already present\n`
        : `teamchat: the database already has ${existing.length} organization(s); not seeding the demo organization\n`
    )
    return { _tag: "Skipped", organizations: existing.length } satisfies SeedOutcome as SeedOutcome
  }
  return yield* step(
    output,
    `seeding demo organization '${DemoData.realm.name}'`,
    DemoOrganization.seed(url).pipe(Effect.as({
      _tag: "Seeded",
      users: 1 + DemoData.users.length,
      bots: DemoData.bots.length,
      channels: DemoData.channels.length
    } satisfies SeedOutcome as SeedOutcome)),
    (o) => o._tag === "Seeded" ? `done (${o.users} users, ${o.bots} bots, ${o.channels} channels)` : "skipped"
  )
})

// -----------------------------------------------------------------------------
// server
// -----------------------------------------------------------------------------

/** @category constants */
export const defaultRequestTimeout: Duration.Input = "60 seconds"

/** What Node's parser refuses before a request reaches the routes, by Node's error code. */
const clientErrors: Record<string, { readonly status: number; readonly msg: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, msg: "The request's URL or headers are too large." },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, msg: "The request was not received in time." },
  ERR_HTTP_HEADERS_TIMEOUT: { status: 408, msg: "The request was not received in time." }
}
const malformed = { status: 400, msg: "Malformed HTTP request." }

/**
 * Answers what Node's parser refuses (headers over its 16 KiB limit, a
 * request not received within the timeout, malformed HTTP) with Zulip's JSON
 * error instead of Node's bare status line, then closes the connection.
 * A response already under way is cut off, as Node would.
 */
const answerClientError = (error: NodeJS.ErrnoException, socket: net.Socket): void => {
  const { msg, status } = clientErrors[error.code ?? ""] ?? malformed
  const response = (socket as net.Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  // A reset connection has nobody to answer.
  if (error.code === "ECONNRESET" || !socket.writable || (response != null && response.headersSent)) {
    socket.destroy()
    return
  }
  const body = JSON.stringify({ result: "error", msg, code: "BAD_REQUEST" })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
  socket.destroySoon()
}

/**
 * A Node server that answers parser errors as Zulip does and gives clients
 * `requestTimeout` to send a request; the timeout is checked every quarter
 * of itself (at most every second) rather than Node's default 30 seconds.
 * A request without Host reaches the routes, which answer it with Zulip's
 * JSON 400 (`middleware/RequestLog.ts`).
 */
const makeNodeServer = (requestTimeout: Duration.Input, keepAliveTimeout: Duration.Input | undefined) => {
  const timeout = Duration.toMillis(requestTimeout)
  const server = createServer({
    requestTimeout: timeout,
    headersTimeout: timeout,
    requireHostHeader: false,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(timeout / 4)))
  })
  if (keepAliveTimeout !== undefined) server.keepAliveTimeout = Duration.toMillis(keepAliveTimeout)
  server.on("clientError", answerClientError)
  return server
}

/** Redis does not answer at startup. @category errors */
export class CannotReachRedis extends Data.TaggedError("CannotReachRedis")<{
  readonly url: string
  readonly cause: unknown
}> {
  override get message(): string {
    const cause = this.cause as { readonly cause?: unknown; readonly message?: unknown } | undefined
    const text = String((cause?.cause as Error | undefined)?.message ?? cause?.message ?? cause)
    const reason = /ECONNREFUSED/.test(text)
      ? "connection refused"
      : /ENOTFOUND|EAI_AGAIN/.test(text)
      ? "unknown host"
      : text
    return `cannot reach Redis at ${redactUrl(this.url)} (${reason}); start it or fix REDIS_URL`
  }
}

/**
 * The store rate limits are counted in: this process's memory, a small pool
 * of its own to the PostgreSQL database, or Redis (connected at startup).
 *
 * @category layers
 */
export const layerRateLimitStore = (
  store: Config.RateLimitStore | undefined,
  database: Database
): Layer.Layer<RateLimitStore.RateLimitStore, SqlError | CannotReachRedis> => {
  if (store?._tag === "Redis") {
    const url = store.url
    const layer = store.keyPrefix === undefined
      ? Persistence.layerRateLimitsRedis
      : Persistence.layerRateLimitsRedisWithPrefix(store.keyPrefix)
    return layer.pipe(
      Layer.provide(Layer.effectContext(
        // The Redis client is loaded only when it is used (about 150 ms of start-up otherwise).
        Effect.promise(() => import("@effect/platform-node/NodeRedis")).pipe(
          Effect.flatMap((NodeRedis) => Layer.build(NodeRedis.layer({ url }))),
          Effect.mapError((cause) => new CannotReachRedis({ url, cause }))
        )
      ).pipe(
        // The client's own warnings while connecting repeat the one line above;
        // later failures are logged by the rate limiter.
        Layer.provide(Layer.succeed(References.MinimumLogLevel)("Error"))
      ))
    )
  }
  if (store?._tag === "Postgres" && database._tag === "Postgres") return Persistence.layerRateLimitsPostgres(database.url)
  return Persistence.layerRateLimitsMemory
}

/** The HTTP options a config serves with. @category server */
export const httpOptions = (config: ServerConfig, overrides: Partial<HttpOptions> = {}): HttpOptions => ({
  ...defaultHttpOptions,
  log: true,
  ...overrides,
  demo: config.demo,
  rateLimit: resolveRateLimit(config.rateLimit, overrides.rateLimit ?? defaultHttpOptions.rateLimit),
  ...(config.maxBodyBytes === undefined ? {} : { maxBodyBytes: config.maxBodyBytes })
})

/**
 * The whole server as a layer: listening when built, shut down gracefully
 * when its scope closes. Provides the `HttpServer` (for its bound address).
 *
 * @category layers
 */
export const layer = (config: ServerConfig, options: Options = {}) =>
  Layer.unwrap(Effect.clockWith((clock) => Effect.sync(() => {
    const output = options.output ?? outputFor(config.logFormat, clock)
    // The port is taken first so a conflict fails fast; until the routes are
    // attached, requests get a 503 instead of waiting on a socket nobody reads.
    const server = makeNodeServer(options.requestTimeout ?? defaultRequestTimeout, options.keepAliveTimeout)
    const starting = (_request: IncomingMessage, response: ServerResponse) => {
      if (server.listenerCount("request") > 1) return // the routes are attached and answer
      response.writeHead(503, { "content-type": "application/json", "retry-after": "1", connection: "close" })
      response.end(JSON.stringify({ result: "error", msg: "The server is starting; try again in a moment.", code: "SERVER_STARTING" }))
    }
    server.on("request", starting)
    // The server alone: the routes get the HTTP platform services from
    // `layerRoutes`, and every request copies the context of `serve`.
    const nodeServer = Layer.effect(HttpServer.HttpServer)(
      NodeHttpServer.make(() => server, {
        port: config.port,
        host: config.host,
        gracefulShutdownTimeout: options.gracefulShutdownTimeout ?? "10 seconds"
      }).pipe(
        Effect.mapError((error) => new CannotListen({ host: config.host, port: config.port, cause: error.cause }))
      )
    )
    const app = Layer.unwrap(Effect.gen(function*() {
      const address = (yield* HttpServer.HttpServer).address
      const port = "port" in address ? address.port : config.port
      const url = config.externalUrl ?? defaultExternalUrl(port)
      const core = layerCore(config.database, {
        secrets: options.secrets,
        signingKey: options.signingKey,
        output,
        pushBouncerUrl: config.pushBouncerUrl,
        filesDir: config.filesDir,
        s3: config.s3,
        maxFileUploadSizeMib: config.maxFileUploadSizeMib
      })
      const seeded = config.demo && options.seed !== false
        ? Layer.effectDiscard(seedDemo(url, output)).pipe(Layer.provideMerge(core))
        : core
      // The scheduled-message worker runs as long as the routes do.
      const ready = ScheduledDelivery.ScheduledDelivery.layerWorker.pipe(Layer.provideMerge(seeded))
      // The core goes to the routes, not to `serve`: every request runs in
      // the server's context merged with its route's, and the merge copies
      // both, so the server's own context is kept small.
      const store = layerRateLimitStore(config.rateLimitStore, config.database)
      const served = httpOptions(config, options.http)
      const routes = HttpRouter.serve(layerRoutes(served).pipe(Layer.provide(store), Layer.provide(ready)), {
        disableLogger: true,
        disableListenLog: true
      })
      const announce = Layer.effectDiscard(Effect.gen(function*() {
        server.off("request", starting)
        const base = HttpServer.formatAddress(address)
        output(`teamchat listening on ${base} (${describeServing(config)})\n`)
        if (config.demo) {
          output(demoAccountsLine(base))
        }
        options.onListening?.(base)
        // Released first, before the server stops accepting connections.
        // `server.close()` closes the keep-alive connections idle at that
        // moment and waits for the others; close each one as soon as its
        // last response is out, instead of after its keep-alive timeout.
        // Long polls waiting here are answered at once with their heartbeat
        // (a Zulip answer, their queues kept), so their clients poll again
        // elsewhere instead of holding the shutdown to its timeout.
        const queues = yield* EventQueues.EventQueues
        yield* Effect.addFinalizer(() =>
          Effect.andThen(
            Effect.sync(() => {
              output("teamchat: shutting down…\n")
              const sweep = setInterval(() => server.closeIdleConnections(), 50).unref()
              server.once("close", () => clearInterval(sweep))
            }),
            queues.heartbeatAll
          )
        )
      }))
      return announce.pipe(Layer.provide(routes), Layer.provide(ready))
    }))
    return app.pipe(
      Layer.provideMerge(nodeServer),
      Layer.provide(layerLogging(config))
    )
  })))

/** How to log in to the demo organization at `base`. @category display */
export const demoAccountsLine = (base: string): string =>
  `teamchat: demo accounts (e.g. iago@zulip.com) log in with password '${DemoData.password}', ` +
  `or get an API key with: curl -d username=iago@zulip.com ${base}/api/v1/dev_fetch_api_key\n`

/**
 * What the listening line says is served: the database, the demo, and on
 * PostgreSQL the workers and where rate limits are counted.
 *
 * @category display
 */
export const describeServing = (config: ServerConfig, workers = config.workers ?? 1): string =>
  [
    describeDatabase(config.database),
    ...(config.demo ? ["demo organization"] : []),
    ...(config.database._tag === "Postgres"
      ? [`${workers} worker${workers === 1 ? "" : "s"}`, describeRateLimitStore(config.rateLimitStore)]
      : config.rateLimitStore?._tag === "Redis"
      ? [describeRateLimitStore(config.rateLimitStore)]
      : [])
  ].join(", ")

/**
 * The environment variable that gives a worker its slot (1 … workers), the
 * number its primary calls it by: a replacement takes the slot of the worker
 * it replaces, where `cluster.worker.id` counts every fork.
 *
 * @category constants
 */
export const workerSlotVariable = "TEAMCHAT_WORKER"

/** This worker's slot in its cluster; undefined outside one. @category running */
export const workerSlot = (): number | undefined => {
  const slot = Number(process.env[workerSlotVariable])
  return cluster.isWorker && Number.isSafeInteger(slot) && slot > 0 ? slot : undefined
}

/**
 * The configured log level and format (one line per entry unless "pretty").
 *
 * @category layers
 */
export const layerLogging = (
  config: Pick<ServerConfig, "logLevel" | "logFormat">,
  worker: number | undefined = workerSlot()
): Layer.Layer<never> =>
  Layer.mergeAll(
    Layer.succeed(References.MinimumLogLevel)(config.logLevel),
    Logger.layer([
      config.logFormat === "json"
        ? Logger.withConsoleLog(jsonLogLines(worker))
        : config.logFormat === "pretty"
        ? Logger.consolePretty()
        : Logger.withConsoleLog(logfmtLogLines(worker))
    ])
  )

/**
 * logfmt lines as effect writes them, without the fiber (a number internal
 * to the process that tells a reader nothing) and, in a cluster, with the
 * worker that wrote them after the level.
 *
 * @category layers
 */
export const logfmtLogLines = (worker: number | undefined): Logger.Logger<unknown, string> =>
  Logger.map(Logger.formatLogFmt, (line) => {
    const withoutFiber = line.replace(/ fiber=#\d+/, "")
    return worker === undefined ? withoutFiber : withoutFiber.replace(/^(timestamp=\S+ level=\S+)/, `$1 worker=${worker}`)
  })

/**
 * JSON lines as effect writes them, without `fiberId` and, in a cluster,
 * with `worker`.
 *
 * @category layers
 */
export const jsonLogLines = (worker: number | undefined): Logger.Logger<unknown, string> =>
  Logger.map(Logger.formatStructured, ({ fiberId: _fiberId, ...entry }) =>
    Formatter.formatJson(worker === undefined ? entry : { ...entry, worker }))

/** Errors starting the server can fail with. @category errors */
export type StartupError = Layer.Error<ReturnType<typeof layer>>

/**
 * Runs the server until interrupted (SIGINT/SIGTERM under
 * `NodeRuntime.runMain`), then shuts it down gracefully.
 *
 * @category running
 */
export const run = (config: ServerConfig, options: Options = {}): Effect.Effect<never, StartupError> =>
  Layer.launch(layer(config, options)).pipe(Effect.provide(layerLogging(config)))

/** A server started by `start`. @category models */
export interface Running {
  /** e.g. http://127.0.0.1:9991 */
  readonly url: string
  readonly port: number
  /** Graceful shutdown: in-flight requests finish, then the database closes. */
  readonly close: () => Promise<void>
}

/**
 * Starts the server from code that does not use Effect (scripts,
 * benchmarks, other servers' tests); resolves once it is serving.
 *
 * @category running
 */
export const start = async (config: ServerConfig, options: Options = {}): Promise<Running> => {
  const scope = Effect.runSync(Scope.make())
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  try {
    const context = await Effect.runPromise(
      Layer.buildWithScope(layer(config, options), scope).pipe(Effect.provide(layerLogging(config)))
    )
    const server = Context.get(context, HttpServer.HttpServer)
    const port = "port" in server.address ? server.address.port : config.port
    return { url: HttpServer.formatAddress(server.address), port, close }
  } catch (error) {
    await close()
    throw error
  }
}
