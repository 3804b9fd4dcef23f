/**
 * The `teamchat` command line: `serve` plus the administrative commands
 * that create organizations and users and manage accounts, all on the same
 * database configuration as the server (`DATABASE_URL` / `DATA_DIR`).
 *
 * Run it as `pnpm teamchat <command>` (the root package.json script) or
 * `bash scripts/teamchat.sh <command>`; both bring Node 22 first.
 *
 * Output contract: a command's result (an API key) goes to stdout;
 * confirmations and errors go to stderr, one line each (the administrative
 * commands open the database silently). Exit codes: 0 success, 2 bad input
 * (usage, configuration, unknown organization or user, anything the domain
 * rejects), 1 an operational failure (port taken, database unreachable or
 * missing, data directory locked by a running server).
 *
 * Start-up loads only effect's CLI: each command imports the configuration,
 * the core and the server when it runs, so `help`, `--version` and a
 * mistyped flag answer without loading the SQL, PGlite and HTTP stacks.
 *
 * @since 0.1.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import type { AuditLog, AuditLogRecord, Realm, Role, Teamchat, User } from "@teamchat/core"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Argument from "effect/cli/Argument"
import * as CliConfig from "effect/cli/CliConfig"
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Config from "./Config.ts"
import * as Version from "./Version.ts"

/** @category constants */
export const version = Version.version

/** The program name shown in help and errors. @category constants */
export const name = "teamchat"

/** How a user runs the program from the repository. @category constants */
export const invocation = "pnpm teamchat"

// -----------------------------------------------------------------------------
// errors and exit codes
// -----------------------------------------------------------------------------

/** Bad input found by a command (unknown organization, bad combination of flags). @category errors */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** @category constants */
export const ExitCode = { ok: 0, failure: 1, usage: 2 } as const

/**
 * A data directory without a database, given to a command that may not
 * create one: most likely a mistyped path.
 *
 * @category errors
 */
export class NoDatabase extends Data.TaggedError("NoDatabase")<{
  readonly dataDir: string
  readonly lookedFor: string
}> {
  override get message(): string {
    return `no database in ${this.dataDir} (looked for PGlite's files in ${this.lookedFor}); ` +
      "check --data-dir or DATA_DIR (only serve and create-organization create a database)"
  }
}

/**
 * One line describing a failure, and the exit code it maps to. The domain's
 * refusals (Zulip errors) arrive as `UsageError`s: see `withCore`.
 *
 * @category errors
 */
export const describeFailure = (error: unknown): { readonly message: string; readonly exitCode: number } => {
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : ""
  const message = error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String((error as { message: unknown }).message)
    : String(error)
  switch (tag) {
    case "InvalidConfig":
    case "UsageError":
      return { message, exitCode: ExitCode.usage }
    case "SqlError":
      return { message: describeSqlError(error, message), exitCode: ExitCode.failure }
    case "MigrationError":
      return { message: `database migration failed: ${message}`, exitCode: ExitCode.failure }
  }
  // CannotListen, DataDirInUse, DataDirUnusable, NoDatabase and anything unexpected.
  return { message, exitCode: ExitCode.failure }
}

const property = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined

/**
 * A database failure in words a user can act on: the driver reports a
 * missing database and a dead server alike ("Failed to connect"), so look
 * at what PostgreSQL or the socket said.
 */
const describeSqlError = (error: unknown, message: string): string => {
  const cause = property(property(error, "reason"), "cause") ?? property(error, "cause")
  const code = property(cause, "code")
  const detail = String(property(cause, "message") ?? "")
  switch (code) {
    case "3D000": { // invalid_catalog_name
      const database = /database "(.*)" does not exist/.exec(detail)?.[1]
      return database === undefined ? detail : `database "${database}" does not exist; create it with: createdb ${database}`
    }
    case "ECONNREFUSED":
      return `no PostgreSQL server at ${property(cause, "address")}:${property(cause, "port")} (connection refused); ` +
        "start one or fix DATABASE_URL"
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot resolve the PostgreSQL host ${property(cause, "hostname")}; fix DATABASE_URL`
    case "28000": // invalid_authorization_specification
    case "28P01": // invalid_password
      return `PostgreSQL refused the login: ${detail}; fix the user or password in DATABASE_URL`
  }
  return detail === "" ? `database error: ${message}` : `database error: ${message}: ${detail}`
}

const firstLine = (text: string) => text.split("\n")[0]!.trim()

/**
 * Runs `effect`, turning every failure into one line on stderr and an exit
 * code. Defects (bugs) print their stack only at LOG_LEVEL=debug.
 * Interruption passes through.
 *
 * @category running
 */
export const reportFailures = <R>(effect: Effect.Effect<number, unknown, R>): Effect.Effect<number, never, R> =>
  effect.pipe(
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const failure = cause.reasons.find(Cause.isFailReason)
      if (failure !== undefined) {
        const { exitCode, message } = describeFailure(failure.error)
        return Effect.as(Console.error(`${name}: ${firstLine(message)}`), exitCode)
      }
      const defect = cause.reasons.find(Cause.isDieReason)
      const text = defect === undefined ? "unknown error" : describeFailure(defect.defect).message
      return Effect.gen(function*() {
        // An unreadable LOG_LEVEL is for the command to report; here it only means no details.
        const Config = yield* loadConfig
        const level = yield* Effect.orElseSucceed(Config.logLevel, () => Config.defaults.logLevel)
        const debug = level === "Debug" || level === "Trace"
        yield* Console.error(`${name}: internal error: ${firstLine(text)}${debug ? "" : " (set LOG_LEVEL=debug for details)"}`)
        if (debug) yield* Console.error(Cause.pretty(cause))
        return ExitCode.failure
      })
    })
  ) as Effect.Effect<number, never, R>

// -----------------------------------------------------------------------------
// modules loaded when a command needs them
// -----------------------------------------------------------------------------

// Each is loaded once, by the first command (or failure) that needs it.
const loadConfig = Effect.promise(() => import("./Config.ts"))
const loadCore = Effect.promise(() => import("@teamchat/core"))
const loadServer = Effect.promise(() => import("./Server.ts"))
const loadCluster = Effect.promise(() => import("./Cluster.ts"))

// -----------------------------------------------------------------------------
// shared flags
// -----------------------------------------------------------------------------

const optionalString = (flag: string, description: string) =>
  Flag.String(flag).pipe(Flag.withDescription(description), Flag.optional)

const requiredString = (flag: string, description: string) =>
  Flag.String(flag).pipe(Flag.withDescription(description))

const databaseFlags = {
  dataDir: optionalString("data-dir", "Embedded PGlite data directory (env DATA_DIR, default ./data)"),
  databaseUrl: optionalString(
    "database-url",
    "PostgreSQL URL, postgres://… (env DATABASE_URL); replaces PGlite. memory:// keeps everything in memory"
  )
}

interface DatabaseFlags {
  readonly dataDir: Option.Option<string>
  readonly databaseUrl: Option.Option<string>
}

const databaseOverrides = (flags: DatabaseFlags): Config.Overrides => ({
  dataDir: Option.getOrUndefined(flags.dataDir),
  databaseUrl: Option.getOrUndefined(flags.databaseUrl)
})

const accountFlags = {
  org: requiredString("org", "The organization's string id (e.g. zulip)"),
  email: requiredString("email", "The account's email address")
}

const say = (line: string) => Console.error(`${name}: ${line}`)

type Core = typeof import("@teamchat/core")

/**
 * Runs `program` with the core on the configured database, opened without
 * progress lines so that a command prints one line, its outcome. The
 * database closes when `program` ends. On PGlite the database must exist
 * unless `create` is set: a mistyped data directory would otherwise be a
 * new, empty database. The domain's refusals become `UsageError`s.
 */
const withCore = <A, E>(
  flags: DatabaseFlags,
  program: (core: Core) => Effect.Effect<A, E, Teamchat.Services>,
  options: { readonly create?: boolean } = {}
) =>
  Effect.gen(function*() {
    const database = yield* (yield* loadConfig).database(databaseOverrides(flags))
    const Server = yield* loadServer
    if (database._tag === "Pglite" && options.create !== true) {
      const dataDir = path.resolve(database.dataDir)
      const lookedFor = path.join(dataDir, Server.pgliteSubdirectory)
      // PG_VERSION is the first file PostgreSQL's initdb writes; PGlite keeps it.
      if (!fs.existsSync(path.join(lookedFor, "PG_VERSION"))) return yield* new NoDatabase({ dataDir, lookedFor })
    }
    const core = yield* loadCore
    return yield* program(core).pipe(
      Effect.provide(Server.layerCore(database, { output: Server.silent })),
      Effect.mapError((error) => core.ZulipError.isZulipError(error) ? new UsageError({ message: error.msg }) : error)
    )
  })

/**
 * The join page's password rule, checked before the database opens, with
 * the text Zulip answers for a weak password where accounts are created.
 */
const requireStrongPassword = Effect.fn("Cli.requireStrongPassword")(function*(password: Option.Option<string>) {
  if (Option.isNone(password)) return
  const core = yield* loadCore
  if (core.Password.isTooWeak(password.value)) {
    return yield* new UsageError({ message: new core.Errors.PasswordTooWeak().msg })
  }
})

const requireOrganization = Effect.fn("Cli.requireOrganization")(function*({ Organizations }: Core, stringId: string) {
  const organizations = yield* Organizations.Organizations
  const realm = yield* organizations.findByStringId(stringId)
  if (realm !== undefined) return realm
  const all = yield* organizations.list
  const known = all.length === 0 ? "the database has no organizations yet" : `known: ${all.map((o) => o.string_id).join(", ")}`
  return yield* new UsageError({ message: `no organization '${stringId}' (${known})` })
})

/**
 * The server picks the organization of a request by its `Host` (see
 * internal/Realm.ts), so two organizations on one host could not be told
 * apart: the later one would take over the first one's logins.
 */
const requireFreeUrl = Effect.fn("Cli.requireFreeUrl")(function*({ Organizations }: Core, stringId: string, url: string) {
  const host = new URL(url).host
  const holder = (yield* (yield* Organizations.Organizations).list).find((realm) =>
    URL.canParse(realm.url) && new URL(realm.url).host === host
  )
  if (holder === undefined) return
  const suggestion = new URL(url)
  suggestion.hostname = `${stringId}.${suggestion.hostname}`
  return yield* new UsageError({
    message: `organization '${holder.string_id}' already has the URL ${holder.url}; give '${stringId}' a URL of its own ` +
      `with --url, e.g. --url ${suggestion.origin}`
  })
})

const requireUser = Effect.fn("Cli.requireUser")(function*({ Users }: Core, realm: Realm.Realm, email: string) {
  const user = yield* (yield* Users.Users).findByEmail(realm.id, email)
  if (user === undefined) {
    return yield* new UsageError({ message: `no user with email '${email}' in organization '${realm.string_id}'` })
  }
  return user
})

const roles: Record<string, Role.Role> = { owner: 100, admin: 200, moderator: 300, member: 400, guest: 600 }
const roleNames = ["owner", "admin", "moderator", "member", "guest"] as const
const botTypes: Record<string, Role.BotType> = { generic: 1, incoming: 2, outgoing: 3, embedded: 4 }
const botTypeNames = ["generic", "incoming", "outgoing", "embedded"] as const

const roleName = (role: Role.Role): string => Object.entries(roles).find(([, r]) => r === role)?.[0] ?? String(role)

const describeUser = (user: User.User) =>
  `${user.full_name} <${user.delivery_email}> (${user.is_bot ? "bot" : roleName(user.role)}, id ${user.id})`

// -----------------------------------------------------------------------------
// commands
// -----------------------------------------------------------------------------

const serve = Command.make(
  "serve",
  {
    demo: Flag.Boolean("demo").pipe(
      Flag.withDescription("Seed the demo organization 'Zulip Dev' into an empty database and enable dev login (env DEMO=1)"),
      Flag.withDefault(false)
    ),
    port: optionalString("port", "Port to listen on (env PORT, default 9991; 0 picks a free port)"),
    host: optionalString("host", "Address to listen on (env HOST, default 127.0.0.1)"),
    externalUrl: optionalString("external-url", "Public URL of the organization (env EXTERNAL_URL, default http://localhost:PORT)"),
    workers: optionalString(
      "workers",
      "Server processes behind the port (env WORKERS; default one per core on PostgreSQL, 1 on PGlite, which allows no more)"
    ),
    ...databaseFlags
  },
  Effect.fn(function*(flags) {
    const config = yield* (yield* loadConfig).server({
      ...databaseOverrides(flags),
      port: Option.getOrUndefined(flags.port),
      host: Option.getOrUndefined(flags.host),
      externalUrl: Option.getOrUndefined(flags.externalUrl),
      demo: flags.demo || undefined,
      workers: Option.getOrUndefined(flags.workers)
    })
    const Cluster = yield* loadCluster
    const Server = yield* loadServer
    // A worker forked by a primary (Cluster.ts) runs one server; the primary reports.
    if (Cluster.isWorker()) return yield* Cluster.runWorker(config)
    const workers = config.workers ?? 1
    return yield* (workers > 1 ? Cluster.runPrimary(config, workers) : Server.run(config)).pipe(
      Effect.onInterrupt(() =>
        Effect.clockWith((clock) => Effect.sync(() => Server.outputFor(config.logFormat, clock)(`${name}: stopped\n`)))
      )
    )
  })
).pipe(
  Command.withDescription("Run the HTTP server (Zulip REST API under /api/v1) until SIGINT or SIGTERM"),
  Command.withExamples([
    { command: `${invocation} serve --demo`, description: "Serve the demo organization on http://127.0.0.1:9991" },
    { command: `DATABASE_URL=postgres://localhost/teamchat ${invocation} serve`, description: "Serve from PostgreSQL, one worker per core" },
    {
      command: `DATABASE_URL=postgres://localhost/teamchat REDIS_URL=redis://127.0.0.1:6379 ${invocation} serve --workers 4`,
      description: "Four workers behind one port, rate limits counted in Redis"
    }
  ])
)

const createOrganization = Command.make(
  "create-organization",
  {
    stringId: requiredString("string-id", "Short id: lowercase letters, digits and '-' (e.g. acme)"),
    name: requiredString("name", "Display name of the organization"),
    ownerEmail: requiredString("owner-email", "Email of the owner account created with it"),
    ownerName: requiredString("owner-name", "Full name of the owner"),
    ownerPassword: optionalString("owner-password", "Password for the owner (omit: log in with the API key only)"),
    url: optionalString("url", "Organization URL (default EXTERNAL_URL, else http://localhost:PORT)"),
    ...databaseFlags
  },
  Effect.fn(function*(flags) {
    const Config = yield* loadConfig
    const url = Option.isSome(flags.url)
      ? yield* Config.organizationUrl("--url", flags.url.value)
      : (yield* Config.externalUrl()) ?? Config.defaultExternalUrl(yield* Config.port())
    yield* requireStrongPassword(flags.ownerPassword)
    const { owner, realm } = yield* withCore(
      flags,
      (core) => Effect.gen(function*() {
        const organizations = yield* core.Organizations.Organizations
        yield* requireFreeUrl(core, flags.stringId, url)
        return yield* organizations.create({
          string_id: flags.stringId,
          name: flags.name,
          url,
          owner: {
            email: flags.ownerEmail,
            full_name: flags.ownerName,
            ...(Option.isSome(flags.ownerPassword) ? { password: flags.ownerPassword.value } : {})
          }
        })
      }),
      // The one command besides serve that may start a new database.
      { create: true }
    )
    yield* say(`created organization '${realm.name}' (${realm.string_id}) at ${realm.url}; owner ${describeUser(owner!)}`)
    yield* say("the owner's API key:")
    yield* Console.log(owner!.api_key)
  })
).pipe(
  Command.withDescription("Create an organization and its owner; prints the owner's API key"),
  Command.withExamples([{
    command: `${invocation} create-organization --string-id acme --name "Acme" --owner-email boss@acme.test ` +
      `--owner-name "Boss" --url http://acme.localhost:9991`,
    description: "Create the organization 'acme', served to requests whose Host is acme.localhost:9991"
  }])
)

const createUser = Command.make(
  "create-user",
  {
    ...accountFlags,
    name: requiredString("name", "Full name"),
    role: Flag.Literals("role", roleNames).pipe(Flag.withDescription("Organization role"), Flag.withDefault("member")),
    password: optionalString("password", "Password (omit: log in with the API key only)"),
    bot: Flag.Literals("bot", botTypeNames).pipe(Flag.withDescription("Create a bot of this type (needs --owner)"), Flag.optional),
    owner: optionalString("owner", "Email of the bot's owner"),
    ...databaseFlags
  },
  Effect.fn(function*(flags) {
    if (Option.isSome(flags.bot) && Option.isNone(flags.owner)) {
      return yield* new UsageError({ message: "--bot needs --owner <email of the bot's owner>" })
    }
    if (Option.isNone(flags.bot) && Option.isSome(flags.owner)) {
      return yield* new UsageError({ message: "--owner is only for bots; add --bot <type>" })
    }
    if (Option.isSome(flags.bot) && Option.isSome(flags.password)) {
      return yield* new UsageError({ message: "bots log in with their API key; drop --password" })
    }
    yield* requireStrongPassword(flags.password)
    const { realm, user } = yield* withCore(
      flags,
      (core) => Effect.gen(function*() {
        const realm = yield* requireOrganization(core, flags.org)
        const bot = Option.isSome(flags.bot)
          ? { bot_type: botTypes[flags.bot.value]!, owner_id: (yield* requireUser(core, realm, Option.getOrThrow(flags.owner))).id }
          : undefined
        const user = yield* (yield* core.Users.Users).create(realm.id, {
          email: flags.email,
          full_name: flags.name,
          role: roles[flags.role]!,
          ...(Option.isSome(flags.password) ? { password: flags.password.value } : {}),
          ...(bot !== undefined ? { bot } : {})
        })
        return { realm, user }
      })
    )
    yield* say(`created ${describeUser(user)} in '${realm.string_id}'; API key:`)
    yield* Console.log(user.api_key)
  })
).pipe(
  Command.withDescription("Create a user or a bot in an organization; prints its API key"),
  Command.withExamples([
    { command: `${invocation} create-user --org zulip --email ann@zulip.com --name Ann --role admin`, description: "An administrator" },
    {
      command: `${invocation} create-user --org zulip --email ci-bot@zulip.com --name CI --bot incoming --owner iago@zulip.com`,
      description: "An incoming-webhook bot owned by iago"
    }
  ])
)

const rotateApiKey = Command.make(
  "rotate-api-key",
  { ...accountFlags, ...databaseFlags },
  Effect.fn(function*(flags) {
    const user = yield* withCore(
      flags,
      (core) => Effect.gen(function*() {
        const realm = yield* requireOrganization(core, flags.org)
        const user = yield* requireUser(core, realm, flags.email)
        return yield* (yield* core.Users.Users).rotateApiKey(user.id)
      })
    )
    yield* say(`new API key for ${describeUser(user)} (the old key no longer works):`)
    yield* Console.log(user.api_key)
  })
).pipe(Command.withDescription("Replace a user's API key; prints the new key"))

const changeUserEmailsPermission = Command.make(
  "change-user-emails-permission",
  {
    ...accountFlags,
    revoke: Flag.Boolean("revoke").pipe(
      Flag.withDescription("Take the permission away instead of granting it"),
      Flag.withDefault(false)
    ),
    ...databaseFlags
  },
  Effect.fn(function*(flags) {
    const { Role } = yield* loadCore
    const user = yield* withCore(
      flags,
      (core) => Effect.gen(function*() {
        const realm = yield* requireOrganization(core, flags.org)
        const user = yield* requireUser(core, realm, flags.email)
        return yield* (yield* core.Users.Users).setCanChangeUserEmails(user.id, !flags.revoke)
      })
    )
    yield* say(
      `${describeUser(user)} ${
        flags.revoke ? "may no longer change users' email addresses" : "may now change users' email addresses"
      }${
        !flags.revoke && !Role.isAdministrator(user.role)
          ? " (once they are an administrator)"
          : ""
      }`
    )
  })
).pipe(
  Command.withDescription(
    "Grant (or with --revoke take away) Zulip's can_change_user_emails permission: with it, an administrator may " +
      "change other users' email addresses (new_email on PATCH /users/{id})"
  ),
  Command.withExamples([{
    command: `${invocation} change-user-emails-permission --org zulip --email iago@zulip.com`,
    description: "Let the administrator iago change users' addresses"
  }])
)

const setActive = (commandName: string, active: boolean) =>
  Command.make(
    commandName,
    { ...accountFlags, ...databaseFlags },
    Effect.fn(function*(flags) {
      const user = yield* withCore(
        flags,
        (core) => Effect.gen(function*() {
          const realm = yield* requireOrganization(core, flags.org)
          const user = yield* requireUser(core, realm, flags.email)
          const users = yield* core.Users.Users
          return yield* active ? users.reactivate(user.id) : users.deactivate(user.id)
        })
      )
      // A confirmation, so stderr: these commands have no result for stdout.
      yield* say(`${active ? "reactivated" : "deactivated"} ${describeUser(user)}`)
    })
  ).pipe(Command.withDescription(
    active ? "Reactivate a deactivated user" : "Deactivate a user: they can no longer log in or use their API key"
  ))

const deactivateUser = setActive("deactivate-user", false)
const reactivateUser = setActive("reactivate-user", true)

/** The organization `--organization` names, or the only one there is. */
const chooseOrganization = Effect.fn("Cli.chooseOrganization")(function*(core: Core, stringId: Option.Option<string>) {
  if (Option.isSome(stringId)) return yield* requireOrganization(core, stringId.value)
  const all = yield* (yield* core.Organizations.Organizations).list
  if (all.length === 1) return all[0]!
  return yield* new UsageError({
    message: all.length === 0
      ? "the database has no organizations yet"
      : `choose an organization with --organization (known: ${all.map((o) => o.string_id).join(", ")})`
  })
})

const json = (value: unknown) => JSON.stringify(value)

/**
 * One row as a line: time, type, who acted (`-`: the operator or the
 * system), what it changed, then the rest of `extra_data` as `key=value` and
 * the change itself as `[property: ]old → new` (values in JSON).
 */
const auditLine = (entry: AuditLogRecord.AuditLogEntry, names: AuditLog.AuditLogNames): string => {
  const user = (id: NonNullable<AuditLogRecord.AuditLogEntry["modified_user_id"]>) => names.users.get(id) ?? `#${id}`
  const parts = [new Date(entry.event_time).toISOString(), entry.event_type, `actor=${entry.acting_user_id === null ? "-" : user(entry.acting_user_id)}`]
  if (entry.modified_user_id !== null) parts.push(`user=${user(entry.modified_user_id)}`)
  if (entry.modified_stream_id !== null) {
    parts.push(`stream=${json(names.streams.get(entry.modified_stream_id) ?? `#${entry.modified_stream_id}`)}`)
  }
  if (entry.modified_user_group_id !== null) {
    parts.push(`group=${json(names.groups.get(entry.modified_user_group_id) ?? `#${entry.modified_user_group_id}`)}`)
  }
  const { new_value, old_value, property, ...rest } = entry.extra_data
  for (const [key, value] of Object.entries(rest)) parts.push(`${key}=${json(value)}`)
  if (old_value !== undefined || new_value !== undefined) {
    parts.push(`${property === undefined ? "" : `${String(property)}: `}${json(old_value ?? null)} → ${json(new_value ?? null)}`)
  }
  return parts.join(" ")
}

const auditLog = Command.make(
  "audit-log",
  {
    organization: optionalString("organization", "The organization's string id; needed when the database has several").pipe(
      Flag.withAlias("org")
    ),
    limit: Flag.Int("limit").pipe(Flag.withDescription("Show the newest N rows"), Flag.withDefault(100)),
    eventType: optionalString("event-type", "Only rows of this type (e.g. user_role_changed)"),
    json: Flag.Boolean("json").pipe(Flag.withDescription("One JSON object per line, as stored"), Flag.withDefault(false)),
    ...databaseFlags
  },
  Effect.fn(function*(flags) {
    if (flags.limit < 1) {
      return yield* new UsageError({ message: `invalid --limit "${flags.limit}": expected a whole number of rows from 1` })
    }
    const lines = yield* withCore(
      flags,
      (core) => Effect.gen(function*() {
        const known: ReadonlyArray<string> = core.AuditLogRecord.AuditLogEventTypes
        if (Option.isSome(flags.eventType) && !known.includes(flags.eventType.value)) {
          return yield* new UsageError({ message: `unknown event type '${flags.eventType.value}' (known: ${known.join(", ")})` })
        }
        const realm = yield* chooseOrganization(core, flags.organization)
        const audit = yield* core.AuditLog.AuditLog
        const entries = yield* audit.list(realm.id, {
          limit: flags.limit,
          eventType: Option.getOrUndefined(flags.eventType) as AuditLogRecord.AuditLogEventType | undefined
        })
        if (flags.json) return entries.map(json)
        const names = yield* audit.names(realm.id)
        return entries.map((entry) => auditLine(entry, names))
      })
    )
    for (const line of lines) yield* Console.log(line)
  })
).pipe(
  Command.withDescription(
    "List an organization's audit log, oldest first: one line per change (time, type, acting user, what changed, " +
      "old → new), the newest --limit rows"
  ),
  Command.withExamples([
    { command: `${invocation} audit-log --organization zulip --limit 20`, description: "The last 20 changes" },
    { command: `${invocation} audit-log --event-type user_role_changed --json`, description: "Role changes as JSON lines" }
  ])
)

const help = Command.make(
  "help",
  { command: Argument.String("command").pipe(Argument.withDescription("Show the help of this command"), Argument.optional) },
  ({ command }) => showHelp(Option.isSome(command) ? [command.value, "--help"] : ["--help"])
).pipe(Command.withDescription("Show help for teamchat or one of its commands"))

// A function with a declared type breaks the cycle root -> help -> root.
const showHelp = (args: ReadonlyArray<string>): Effect.Effect<void, unknown, Command.Environment> =>
  Command.runWith(root, { version })(args)

/** The command tree. @category commands */
export const root = Command.make(name).pipe(
  Command.withDescription(
    "A team chat server speaking the Zulip REST API. Configuration comes from the environment " +
      "(PORT, HOST, DATABASE_URL, DATA_DIR, DEMO, EXTERNAL_URL, WORKERS, RATE_LIMIT_REQUESTS, " +
      "RATE_LIMIT_WINDOW_SECONDS, RATE_LIMIT_STORE, REDIS_URL, REDIS_KEY_PREFIX, LOG_LEVEL, LOG_FORMAT, MAX_BODY_BYTES) and the flags below. Run it from the repository as " +
      `'${invocation} <command>' or 'bash scripts/teamchat.sh <command>'.`
  ),
  Command.withSubcommands([
    serve,
    createOrganization,
    createUser,
    rotateApiKey,
    changeUserEmailsPermission,
    deactivateUser,
    reactivateUser,
    auditLog,
    help
  ]),
  Command.withExamples([
    { command: `${invocation} serve --demo`, description: "Serve the demo organization on http://127.0.0.1:9991" },
    { command: `${invocation} help create-organization`, description: "The flags of one command" }
  ])
)

// -----------------------------------------------------------------------------
// running
// -----------------------------------------------------------------------------

/**
 * Parse errors become one line each on stderr plus a pointer to the help;
 * help the user did not ask for (no command) goes to stderr as well.
 */
const presenter = CliOutput.layerPresenter({
  present: (event) =>
    Effect.gen(function*() {
      const formatter = yield* CliOutput.Formatter
      switch (event._tag) {
        case "InvalidInvocation": {
          // One line: the errors, then where the usage is.
          const errors = event.errors.map((error) => firstLine(error.message)).join("; ")
          const usage = [invocation, "help", ...event.commandPath.slice(1)].join(" ")
          return yield* Console.error(`${name}: ${errors} (usage: ${usage})`)
        }
        case "Help":
          return event.reason === "Requested"
            ? yield* Console.log(formatter.formatHelpDoc(event.helpDoc))
            : yield* Console.error(formatter.formatHelpDoc(event.helpDoc))
        case "Version":
          return yield* Console.log(formatter.formatVersion(event.name, event.version))
      }
    }).pipe(Effect.provide(CliOutput.layer(CliOutput.defaultFormatter({ colors: false }))))
})

/**
 * Runs the command line `args` (without `node` and the script) and returns
 * the exit code; never fails except by interruption.
 *
 * @category running
 */
export const main = (args: ReadonlyArray<string>): Effect.Effect<number> =>
  reportFailures(
    Command.runWith(root, { version })(args).pipe(
      Effect.as(ExitCode.ok),
      // Parse errors were printed by the presenter already.
      Effect.catchIf(
        (error): error is CliError.ShowHelp => CliError.isCliError(error) && error._tag === "ShowHelp",
        () => Effect.succeed(ExitCode.usage)
      ),
      Effect.provide([presenter, CliConfig.layer({ builtIns: [GlobalFlag.Help, GlobalFlag.Version] })]),
      Effect.provide(NodeServices.layer)
    )
  )
