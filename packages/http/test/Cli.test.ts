/**
 * The command line, run as users run it: `node packages/http/src/bin.ts …`
 * in a child process, checking exit codes and the exact stdout/stderr text.
 * Bad input that is caught before a database opens runs in parallel; the
 * commands' database paths run in sequence on one PGlite data directory and
 * on a fresh PostgreSQL database (fast to open, so it carries most cases).
 * Also: Config.ts's parsing of the environment, in process.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Authentication } from "@teamchat/core/services/Authentication"
import { Channels } from "@teamchat/core/services/Channels"
import { Organizations } from "@teamchat/core/services/Organizations"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import * as TestConsole from "effect/testing/TestConsole"
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Cli from "../src/Cli.ts"
import * as Config from "../src/Config.ts"
import * as Server from "../src/Server.ts"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

/**
 * Only against hangs: the tests wait for output lines and exits, never for a
 * time, as a busy two-core machine may take many seconds per process.
 */
const hangCeiling = 10 * 60_000
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))

const settings = [
  "PORT", "HOST", "DATABASE_URL", "DATA_DIR", "DEMO", "EXTERNAL_URL",
  "RATE_LIMIT_REQUESTS", "RATE_LIMIT_WINDOW_SECONDS", "LOG_LEVEL", "LOG_FORMAT", "PUSH_BOUNCER_URL",
  "DATABASE_POOL_SIZE", "DATABASE_POOL_TIMEOUT_SECONDS"
]
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !settings.includes(key)))

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const teamchat = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.promise(() =>
    new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        [bin, ...args],
        { cwd: repoRoot, env: { ...baseEnv, ...env }, timeout: hangCeiling },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
      )
    })
  )

const apiKeyLine = /^[A-Za-z0-9]{32}\n$/

/** Exit code 2, nothing on stdout, and `line` as the only line on stderr. */
const assertUsage = (run: Run, line: string) => assertOneLine(run, 2, line)

/** `code`, nothing on stdout, and `line` as the only line on stderr. */
const assertOneLine = (run: Run, code: number, line: string) => {
  assert.strictEqual(run.code, code, run.stderr)
  assert.strictEqual(run.stdout, "")
  assert.strictEqual(run.stderr, `${line}\n`)
}

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "teamchat-cli-"))

describe("teamchat command line without a database", () => {
  it.live("help, version and usage errors", () =>
    Effect.gen(function*() {
      const cases = yield* Effect.all({
        none: teamchat([]),
        help: teamchat(["help"]),
        helpCommand: teamchat(["help", "create-user"]),
        flagHelp: teamchat(["rotate-api-key", "--help"]),
        version: teamchat(["--version"]),
        unknown: teamchat(["frobnicate"]),
        missing: teamchat(["create-user", "--org", "acme", "--email", "a@acme.test"]),
        role: teamchat(["create-user", "--org", "acme", "--email", "a@acme.test", "--name", "A", "--role", "king"]),
        bot: teamchat(["create-user", "--org", "acme", "--email", "b@acme.test", "--name", "B", "--bot", "generic"]),
        botType: teamchat(["create-user", "--org", "acme", "--email", "b@acme.test", "--name", "B", "--bot", "robot", "--owner", "a@acme.test"]),
        owner: teamchat(["create-user", "--org", "acme", "--email", "b@acme.test", "--name", "B", "--owner", "a@acme.test"]),
        botPassword: teamchat(["create-user", "--org", "acme", "--email", "b@acme.test", "--name", "B", "--bot", "generic", "--owner", "a@acme.test", "--password", "x"]),
        unknownFlag: teamchat(["deactivate-user", "--org", "acme", "--email", "a@acme.test", "--force"]),
        auditLimit: teamchat(["audit-log", "--limit", "0"]),
        auditLimitText: teamchat(["audit-log", "--limit", "many"])
      }, { concurrency: 4 })

      assert.strictEqual(cases.none.code, 2)
      assert.include(cases.none.stderr, "USAGE\n  teamchat <subcommand> [flags]")
      assert.strictEqual(cases.help.code, 0)
      assert.include(cases.help.stdout, "EXAMPLES\n  # Serve the demo organization on http://127.0.0.1:9991\n  pnpm teamchat serve --demo\n")
      for (
        const command of [
          "serve",
          "create-organization",
          "create-user",
          "rotate-api-key",
          "change-user-emails-permission",
          "deactivate-user",
          "reactivate-user",
          "audit-log",
          "help"
        ]
      ) {
        assert.include(cases.help.stdout, `\n  ${command} `)
      }
      assert.strictEqual(cases.helpCommand.code, 0)
      assert.include(cases.helpCommand.stdout, "teamchat create-user [flags]")
      assert.include(cases.helpCommand.stdout, "(choices: owner, admin, moderator, member, guest)")
      assert.strictEqual(cases.flagHelp.code, 0)
      assert.include(cases.flagHelp.stdout, "--email string")
      assert.strictEqual(cases.version.stdout, "teamchat v0.1.0\n")

      assertUsage(cases.unknown, "teamchat: Unknown subcommand \"frobnicate\" for \"teamchat\" (usage: pnpm teamchat help)")
      assertUsage(cases.missing, "teamchat: Missing required flag: --name (usage: pnpm teamchat help create-user)")
      assertUsage(
        cases.role,
        "teamchat: Invalid value for flag --role: \"king\". Expected: \"owner\" | \"admin\" | \"moderator\" | \"member\" | \"guest\"" +
          " (usage: pnpm teamchat help create-user)"
      )
      assertUsage(cases.bot, "teamchat: --bot needs --owner <email of the bot's owner>")
      assertUsage(
        cases.botType,
        "teamchat: Invalid value for flag --bot: \"robot\". Expected: \"generic\" | \"incoming\" | \"outgoing\" | \"embedded\"" +
          " (usage: pnpm teamchat help create-user)"
      )
      assertUsage(cases.owner, "teamchat: --owner is only for bots; add --bot <type>")
      assertUsage(cases.botPassword, "teamchat: bots log in with their API key; drop --password")
      assertUsage(
        cases.unknownFlag,
        "teamchat: Unrecognized flag: --force in command teamchat deactivate-user (usage: pnpm teamchat help deactivate-user)"
      )
      assertUsage(cases.auditLimit, "teamchat: invalid --limit \"0\": expected a whole number of rows from 1")
      assert.strictEqual(cases.auditLimitText.code, 2)
      assert.strictEqual(cases.auditLimitText.stdout, "")
      assert.include(cases.auditLimitText.stderr, "--limit")
    }), { timeout: hangCeiling })

  it.live("pnpm teamchat runs the command line with nothing sourced first", () =>
    Effect.gen(function*() {
      // The PATH of a shell that did not source scripts/env.sh: the script brings Node 22 itself.
      const searchPath = (process.env.PATH ?? "").split(":").filter((dir) => !dir.includes("/.tools/")).join(":")
      const env = { ...baseEnv, PATH: searchPath }
      const run = (file: string, args: ReadonlyArray<string>) =>
        Effect.promise(() =>
          new Promise<Run>((resolve) => {
            execFile(file, args, { cwd: repoRoot, env, timeout: hangCeiling }, (error, stdout, stderr) =>
              resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
          })
        )
      const script = yield* run("bash", ["scripts/teamchat.sh", "--version"])
      assert.strictEqual(script.code, 0, script.stderr)
      assert.strictEqual(script.stdout, "teamchat v0.1.0\n")
      const packageJson = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
        scripts: Record<string, string>
      }
      assert.strictEqual(packageJson.scripts.teamchat, "bash scripts/teamchat.sh")
      const usage = yield* run("bash", ["scripts/teamchat.sh", "frobnicate"])
      assertUsage(usage, "teamchat: Unknown subcommand \"frobnicate\" for \"teamchat\" (usage: pnpm teamchat help)")
    }), { timeout: hangCeiling })

  it.live("serve through scripts/teamchat.sh, without a terminal and started as a background job, stops on SIGINT", () =>
    Effect.gen(function*() {
      // A script's `cmd &` starts with SIGINT ignored; the server takes the
      // signal only if it is the process signalled, so the script must exec it.
      const child = spawn(
        "bash",
        ["-c", "trap '' INT; exec bash scripts/teamchat.sh serve --port 0 --database-url memory://"],
        { cwd: repoRoot, env: baseEnv, stdio: ["ignore", "pipe", "pipe"] }
      )
      let stdout = ""
      let stderr = ""
      child.stderr.setEncoding("utf8").on("data", (data: string) => (stderr += data))
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      yield* Effect.promise(() =>
        new Promise<void>((resolve, reject) => {
          child.stdout.setEncoding("utf8").on("data", (data: string) => {
            stdout += data
            if (stdout.includes("teamchat listening on ")) resolve()
          })
          child.on("exit", () => reject(new Error(`exited early: ${stderr}`)))
        })
      )
      child.kill("SIGINT")
      assert.strictEqual(yield* Effect.promise(() => exited), 0, stderr)
      assert.match(stdout, /\nteamchat: shutting down…\nteamchat: stopped\n$/)
    }), { timeout: hangCeiling })

  it.live("a password the join page would refuse is refused, before a database opens", () =>
    Effect.gen(function*() {
      const dataDir = path.join(tempDir(), "data")
      const owner = ["--string-id", "acme", "--name", "Acme", "--owner-email", "boss@acme.test", "--owner-name", "Boss"]
      const cases = yield* Effect.all({
        owner: teamchat(["create-organization", ...owner, "--owner-password", "x"], { DATA_DIR: dataDir }),
        // 5 characters in 6 UTF-16 code units: characters count, as on the join page.
        ownerEmoji: teamchat(["create-organization", ...owner, "--owner-password", "abcd😀"], { DATA_DIR: dataDir }),
        user: teamchat(
          ["create-user", "--org", "acme", "--email", "a@acme.test", "--name", "A", "--password", "12345", "--database-url", "memory://"]
        )
      }, { concurrency: 3 })
      assertUsage(cases.owner, "teamchat: The password is too weak.")
      assertUsage(cases.ownerEmoji, "teamchat: The password is too weak.")
      assertUsage(cases.user, "teamchat: The password is too weak.")
      // Nothing was created.
      assert.isFalse(fs.existsSync(dataDir))
      fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
    }), { timeout: hangCeiling })

  it.live("configuration errors", () =>
    Effect.gen(function*() {
      const account = ["--org", "acme", "--email", "a@acme.test"]
      const owner = ["--string-id", "acme", "--name", "Acme", "--owner-email", "boss@acme.test", "--owner-name", "Boss"]
      const cases = yield* Effect.all({
        port: teamchat(["serve"], { PORT: "http" }),
        portFlag: teamchat(["serve", "--port", "70000"]),
        host: teamchat(["serve", "--host", "not a host"]),
        demo: teamchat(["serve"], { DEMO: "maybe" }),
        level: teamchat(["serve"], { LOG_LEVEL: "loud" }),
        rate: teamchat(["serve"], { RATE_LIMIT_REQUESTS: "-5" }),
        external: teamchat(["serve"], { EXTERNAL_URL: "chat.example.com" }),
        bouncer: teamchat(["serve"], { PUSH_BOUNCER_URL: "push.example.com" }),
        database: teamchat(["rotate-api-key", ...account], { DATABASE_URL: "mysql://localhost/teamchat" }),
        both: teamchat(["rotate-api-key", ...account, "--data-dir", "/tmp/x", "--database-url", "postgres://localhost/x"]),
        url: teamchat(["create-organization", ...owner, "--url", "https://acme.test/chat"])
      }, { concurrency: 4 })
      assertUsage(cases.port, "teamchat: invalid PORT \"http\": expected a port number from 0 to 65535 (0 picks a free port)")
      assertUsage(cases.portFlag, "teamchat: invalid --port \"70000\": expected a port number from 0 to 65535 (0 picks a free port)")
      assertUsage(cases.host, "teamchat: invalid --host \"not a host\": expected an IP address or host name to listen on, e.g. 127.0.0.1 or 0.0.0.0")
      assertUsage(cases.demo, "teamchat: invalid DEMO \"maybe\": expected 1 or 0 (also true/false, yes/no, on/off)")
      assertUsage(cases.level, "teamchat: invalid LOG_LEVEL \"loud\": expected one of trace, debug, info, warn, error, fatal, none")
      assertUsage(
        cases.rate,
        "teamchat: invalid RATE_LIMIT_REQUESTS \"-5\": expected a whole number of requests per window (0 disables rate limiting)"
      )
      assertUsage(
        cases.external,
        "teamchat: invalid EXTERNAL_URL \"chat.example.com\": expected an http:// or https:// URL without a path, e.g. https://chat.example.com"
      )
      assertUsage(
        cases.bouncer,
        "teamchat: invalid PUSH_BOUNCER_URL \"push.example.com\": expected an http:// or https:// URL without credentials, query or fragment, e.g. https://push.example.com"
      )
      assertUsage(
        cases.database,
        "teamchat: invalid DATABASE_URL \"mysql://localhost/teamchat\": expected a postgres:// or postgresql:// URL (e.g. postgres://user:password@localhost:5432/teamchat), or memory://"
      )
      assertUsage(cases.both, "teamchat: invalid --data-dir \"/tmp/x\": expected either --database-url or --data-dir, not both")
      assertUsage(
        cases.url,
        "teamchat: invalid --url \"https://acme.test/chat\": expected an http:// or https:// URL without a path, e.g. https://chat.example.com"
      )
    }), { timeout: hangCeiling })
})

describe("teamchat command line on PGlite (DATA_DIR)", () => {
  it.live("creates an organization and a user in one data directory, and refuses a directory in use", () =>
    Effect.gen(function*() {
      const dataDir = path.join(tempDir(), "nested", "data")
      const env = { DATA_DIR: dataDir }
      const created = yield* teamchat([
        "create-organization", "--string-id", "acme", "--name", "Acme", "--owner-email", "boss@acme.test", "--owner-name", "The Boss"
      ], env)
      assert.strictEqual(created.code, 0, created.stderr)
      assert.match(created.stdout, apiKeyLine)
      assert.strictEqual(
        created.stderr,
        "teamchat: created organization 'Acme' (acme) at http://localhost:9991; owner The Boss <boss@acme.test> (owner, id 1)\n" +
          "teamchat: the owner's API key:\n"
      )

      // A second process sees the first one's data.
      const user = yield* teamchat(["create-user", "--org", "acme", "--email", "ann@acme.test", "--name", "Ann"], env)
      assert.strictEqual(user.code, 0, user.stderr)
      assert.match(user.stdout, apiKeyLine)
      assert.strictEqual(user.stderr, "teamchat: created Ann <ann@acme.test> (member, id 2) in 'acme'; API key:\n")
      // Errors found in the database are one line too.
      assertUsage(
        yield* teamchat(["create-user", "--org", "nope", "--email", "x@acme.test", "--name", "X"], env),
        "teamchat: no organization 'nope' (known: acme)"
      )
      assert.isFalse(fs.existsSync(path.join(dataDir, Server.lockFile)))

      // A live process (this one) holds the directory: refused before PGlite opens.
      fs.writeFileSync(path.join(dataDir, Server.lockFile), `${process.pid}\n`)
      const locked = yield* teamchat(["rotate-api-key", "--org", "acme", "--email", "ann@acme.test"], env)
      assert.strictEqual(locked.code, 1)
      assert.strictEqual(locked.stdout, "")
      assert.strictEqual(
        locked.stderr,
        `teamchat: the data directory ${dataDir} is in use by another teamchat process (pid ${process.pid}); ` +
          "stop it first (embedded PGlite allows one process at a time; use DATABASE_URL for more)\n"
      )
      fs.rmSync(path.dirname(path.dirname(dataDir)), { recursive: true, force: true })
    }), { timeout: hangCeiling })
})

describe("teamchat command line on a data directory without a database", () => {
  it.live("only serve and create-organization create one; the other commands say what they looked for", () =>
    Effect.gen(function*() {
      const parent = tempDir()
      const typo = path.join(parent, "dat")
      const empty = path.join(parent, "empty")
      fs.mkdirSync(empty)
      const account = ["--org", "acme", "--email", "a@acme.test"]
      const missing = (dataDir: string) =>
        `teamchat: no database in ${dataDir} (looked for PGlite's files in ${path.join(dataDir, "pgdata")}); ` +
        "check --data-dir or DATA_DIR (only serve and create-organization create a database)"
      const cases = yield* Effect.all({
        flag: teamchat(["rotate-api-key", ...account, "--data-dir", typo]),
        env: teamchat(["create-user", ...account, "--name", "A"], { DATA_DIR: typo }),
        deactivate: teamchat(["deactivate-user", ...account, "--data-dir", typo]),
        reactivate: teamchat(["reactivate-user", ...account, "--data-dir", typo]),
        permission: teamchat(["change-user-emails-permission", ...account, "--data-dir", typo]),
        audit: teamchat(["audit-log", "--data-dir", typo]),
        empty: teamchat(["rotate-api-key", ...account], { DATA_DIR: empty })
      }, { concurrency: 3 })
      for (const run of [cases.flag, cases.env, cases.deactivate, cases.reactivate, cases.permission, cases.audit]) {
        assertOneLine(run, 1, missing(typo))
      }
      assertOneLine(cases.empty, 1, missing(empty))
      // Nothing was created, not even the directory or its lock file.
      assert.isFalse(fs.existsSync(typo))
      assert.deepStrictEqual(fs.readdirSync(empty), [])
      fs.rmSync(parent, { recursive: true, force: true })
    }), { timeout: hangCeiling })
})

describe("teamchat serve with LOG_FORMAT=json", () => {
  it.live("writes only JSON lines on stdout, and error requests carry Zulip's code", () =>
    Effect.gen(function*() {
      const child = spawn(process.execPath, [bin, "serve", "--demo", "--port", "0", "--database-url", "memory://"], {
        cwd: repoRoot,
        env: { ...baseEnv, LOG_FORMAT: "json" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stderr.setEncoding("utf8").on("data", (data: string) => (stderr += data))
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      const base = yield* Effect.promise(() =>
        new Promise<string>((resolve, reject) => {
          child.stdout.setEncoding("utf8").on("data", (data: string) => {
            stdout += data
            const listening = /listening on (http:\/\/[0-9.:]+)/.exec(stdout)
            if (listening !== null) resolve(listening[1]!)
          })
          child.on("exit", () => reject(new Error(`exited early: ${stderr}`)))
        })
      )
      const statuses = yield* Effect.promise(async () => [
        (await fetch(`${base}/api/v1/server_settings`)).status,
        (await fetch(`${base}/api/v1/users/me`)).status
      ])
      assert.deepStrictEqual(statuses, [200, 401])
      child.kill("SIGTERM")
      assert.strictEqual(yield* Effect.promise(() => exited), 0, stderr)
      assert.strictEqual(stderr, "")

      const entries = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, any>)
      const messages = entries.map((entry) => entry.message)
      assert.deepStrictEqual(messages.slice(0, 2), ["opening in-memory database… ready", "seeding demo organization 'Zulip Dev'… done (10 users, 6 bots, 7 channels)"])
      assert.match(messages[2], /^teamchat listening on http:\/\/127\.0\.0\.1:\d+ \(in-memory database, demo organization\)$/)
      assert.deepStrictEqual(messages.slice(-2), ["shutting down…", "stopped"])
      for (const entry of entries) {
        assert.strictEqual(entry.level, "INFO")
        assert.isString(entry.timestamp)
      }
      const requests = entries.filter((entry) => entry.message === "request").map((entry) => {
        const { duration_ms: _, ...annotations } = entry.annotations
        return annotations
      })
      assert.deepStrictEqual(requests, [
        { method: "GET", path: "/api/v1/server_settings", status: 200, user_id: null },
        { method: "GET", path: "/api/v1/users/me", status: 401, user_id: null, code: "UNAUTHORIZED" }
      ])
    }), { timeout: hangCeiling })
})

describe("teamchat command line with PostgreSQL unusable", () => {
  const server = new URL(process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test")

  /** A port nothing listens on: bound by this process, then released. */
  const closedPort = Effect.promise(() =>
    new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo
        probe.close(() => resolve(port))
      })
    })
  )

  it.live("says whether the database is missing or no server answers", () =>
    Effect.gen(function*() {
      const name = `teamchat_missing_${process.pid}_${Date.now()}`
      const missing = new URL(server)
      missing.pathname = `/${name}`
      const port = yield* closedPort
      const account = ["--org", "acme", "--email", "a@acme.test"]
      const cases = yield* Effect.all({
        missing: teamchat(["rotate-api-key", ...account], { DATABASE_URL: missing.toString() }),
        refused: teamchat(["rotate-api-key", ...account], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/teamchat` })
      }, { concurrency: 2 })
      assertOneLine(cases.missing, 1, `teamchat: database "${name}" does not exist; create it with: createdb ${name}`)
      assertOneLine(
        cases.refused,
        1,
        `teamchat: no PostgreSQL server at 127.0.0.1:${port} (connection refused); start one or fix DATABASE_URL`
      )
    }), { timeout: hangCeiling })
})

// Needs the PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
layer(TestDatabase.postgresLayer(), { timeout: Duration.millis(hangCeiling), excludeTestServices: true })(
  "teamchat command line on PostgreSQL (DATABASE_URL)",
  (it) => {
    it.effect("every command's success and error paths", () =>
      Effect.gen(function*() {
        const database = yield* TestDatabase.TestDatabase
        const env = { DATABASE_URL: database.url }
        const run = (...args: Array<string>) => teamchat(args, env)
        const account = (email: string) => ["--org", "acme", "--email", email]

        // create-organization
        const org = yield* teamchat([
          "create-organization", "--string-id", "acme", "--name", "Acme", "--owner-email", "boss@acme.test",
          "--owner-name", "The Boss", "--owner-password", "boss-secret"
        ], { ...env, EXTERNAL_URL: "https://chat.acme.test/" })
        assert.strictEqual(org.code, 0, org.stderr)
        assert.match(org.stdout, apiKeyLine)
        assert.strictEqual(
          org.stderr,
          "teamchat: created organization 'Acme' (acme) at https://chat.acme.test; owner The Boss <boss@acme.test> (owner, id 1)\n" +
            "teamchat: the owner's API key:\n"
        )
        const created = yield* run("create-user", ...account("ann@acme.test"), "--name", "Ann", "--role", "admin", "--password", "ann-secret")
        assert.strictEqual(created.code, 0, created.stderr)
        assert.match(created.stdout, apiKeyLine)
        assert.include(created.stderr, "teamchat: created Ann <ann@acme.test> (admin, id 2) in 'acme'; API key:\n")

        // Rejections that change nothing, so they may run side by side.
        const rejected = yield* Effect.all({
          duplicateOrg: run("create-organization", "--string-id", "acme", "--name", "Again", "--owner-email", "x@acme.test", "--owner-name", "X"),
          badStringId: run("create-organization", "--string-id", "Bad_Id", "--name", "Bad", "--owner-email", "x@bad.test", "--owner-name", "X"),
          duplicateEmail: run("create-user", ...account("ANN@acme.test"), "--name", "Ann again"),
          unknownOrg: run("create-user", "--org", "nope", "--email", "x@acme.test", "--name", "X"),
          badEmail: run("create-user", ...account("not-an-email"), "--name", "X"),
          emptyName: run("create-user", ...account("x@acme.test"), "--name", "   "),
          unknownOwner: run("create-user", ...account("cd-bot@acme.test"), "--name", "CD", "--bot", "generic", "--owner", "ghost@acme.test"),
          unknownEmail: run("rotate-api-key", ...account("ghost@acme.test")),
          onlyOwner: run("deactivate-user", ...account("boss@acme.test")),
          active: run("reactivate-user", ...account("ann@acme.test")),
          // Two organizations on one URL: the server could not tell them apart by Host.
          urlTaken: teamchat(
            ["create-organization", "--string-id", "beta", "--name", "Beta", "--owner-email", "x@beta.test", "--owner-name", "X"],
            { ...env, EXTERNAL_URL: "https://chat.acme.test" }
          ),
          urlFlagTaken: run(
            "create-organization", "--string-id", "beta", "--name", "Beta", "--owner-email", "x@beta.test", "--owner-name", "X",
            "--url", "http://CHAT.acme.test/"
          )
        }, { concurrency: 3 })
        assertUsage(
          rejected.urlTaken,
          "teamchat: organization 'acme' already has the URL https://chat.acme.test; " +
            "give 'beta' a URL of its own with --url, e.g. --url https://beta.chat.acme.test"
        )
        assertUsage(
          rejected.urlFlagTaken,
          "teamchat: organization 'acme' already has the URL https://chat.acme.test; " +
            "give 'beta' a URL of its own with --url, e.g. --url http://beta.chat.acme.test"
        )
        assertUsage(rejected.duplicateOrg, "teamchat: Subdomain is already in use. Please choose a different one.")
        assertUsage(rejected.badStringId, "teamchat: Subdomain can only have lowercase letters, numbers, and '-'s.")
        assertUsage(rejected.duplicateEmail, "teamchat: Email 'ANN@acme.test' already in use")
        assertUsage(rejected.unknownOrg, "teamchat: no organization 'nope' (known: acme)")
        assertUsage(rejected.badEmail, "teamchat: Enter a valid email address.")
        assertUsage(rejected.emptyName, "teamchat: Name must not be empty!")
        assertUsage(rejected.unknownOwner, "teamchat: no user with email 'ghost@acme.test' in organization 'acme'")
        assertUsage(rejected.unknownEmail, "teamchat: no user with email 'ghost@acme.test' in organization 'acme'")
        assertUsage(rejected.onlyOwner, "teamchat: Cannot deactivate the only organization owner")
        assertUsage(rejected.active, "teamchat: User is already active")

        // create-user --bot
        const bot = yield* run("create-user", ...account("ci-bot@acme.test"), "--name", "CI", "--bot", "incoming", "--owner", "ann@acme.test")
        assert.strictEqual(bot.code, 0, bot.stderr)
        assert.match(bot.stdout, apiKeyLine)
        assert.include(bot.stderr, "teamchat: created CI <ci-bot@acme.test> (bot, id 3) in 'acme'; API key:\n")

        // rotate-api-key
        const rotated = yield* run("rotate-api-key", ...account("ann@acme.test"))
        assert.strictEqual(rotated.code, 0, rotated.stderr)
        assert.match(rotated.stdout, apiKeyLine)
        assert.notStrictEqual(rotated.stdout, created.stdout)
        assert.include(rotated.stderr, "teamchat: new API key for Ann <ann@acme.test> (admin, id 2) (the old key no longer works):\n")

        // deactivate-user / reactivate-user
        const deactivated = yield* run("deactivate-user", ...account("ann@acme.test"))
        assert.strictEqual(deactivated.code, 0, deactivated.stderr)
        assert.strictEqual(deactivated.stdout, "")
        assert.strictEqual(deactivated.stderr, "teamchat: deactivated Ann <ann@acme.test> (admin, id 2)\n")
        assertUsage(yield* run("deactivate-user", ...account("ann@acme.test")), "teamchat: User is already deactivated")
        const reactivated = yield* run("reactivate-user", ...account("ann@acme.test"))
        assert.strictEqual(reactivated.code, 0, reactivated.stderr)
        assert.strictEqual(reactivated.stdout, "")
        assert.strictEqual(reactivated.stderr, "teamchat: reactivated Ann <ann@acme.test> (admin, id 2)\n")

        // change-user-emails-permission: granted, then Zulip's refusals when it is already so.
        const granted = yield* run("change-user-emails-permission", ...account("ann@acme.test"))
        assert.strictEqual(granted.code, 0, granted.stderr)
        assert.strictEqual(granted.stderr, "teamchat: Ann <ann@acme.test> (admin, id 2) may now change users' email addresses\n")
        assertUsage(
          yield* run("change-user-emails-permission", ...account("ann@acme.test")),
          "teamchat: User can already change user emails for this realm."
        )
        assertUsage(
          yield* run("change-user-emails-permission", ...account("boss@acme.test"), "--revoke"),
          "teamchat: User can't change user emails for this realm."
        )

        // What the commands wrote is what the server would see.
        yield* Effect.gen(function*() {
          const realm = (yield* (yield* Organizations).findByStringId("acme"))!
          assert.strictEqual(realm.url, "https://chat.acme.test")
          const auth = yield* Authentication
          const principal = yield* auth.basic("ann@acme.test", rotated.stdout.trim())
          assert.strictEqual(principal.user.role, 200)
          assert.isTrue(principal.user.can_change_user_emails)
          assert.isFalse((yield* auth.basic("boss@acme.test", org.stdout.trim())).user.can_change_user_emails)
          assert.strictEqual((yield* Effect.flip(auth.basic("ann@acme.test", created.stdout.trim())))._tag, "InvalidApiKey")
          const grant = yield* auth.fetchApiKey(realm.id, "boss@acme.test", "boss-secret")
          assert.strictEqual(grant.api_key, org.stdout.trim())
          // Ann's bot went down with her and, as in Zulip, stays down when she comes back.
          assert.strictEqual((yield* Effect.flip(auth.basic("ci-bot@acme.test", bot.stdout.trim())))._tag, "UserDeactivated")
          // A change a user makes, for the audit log below: the server's requests write the same rows.
          const boss = yield* auth.basic("boss@acme.test", org.stdout.trim())
          const channels = yield* Channels
          const channel = yield* channels.create(realm.id, { name: "design team", creator_id: boss.user.id })
          yield* channels.update(boss, channel.id, { name: "design crew" })
        }).pipe(Effect.provide(Teamchat.layerSql(Teamchat.layerSecretsTest)))

        // audit-log: every change above, oldest first; the operator's commands have no acting user.
        const time = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /
        const log = yield* run("audit-log", "--organization", "acme")
        assert.strictEqual(log.code, 0, log.stderr)
        assert.strictEqual(log.stderr, "")
        const lines = log.stdout.trimEnd().split("\n")
        for (const line of lines) assert.match(line, time)
        assert.deepStrictEqual(lines.map((line) => line.replace(time, "")), [
          "realm_created actor=-",
          "user_created actor=- user=boss@acme.test",
          "user_created actor=- user=ann@acme.test",
          "user_created actor=- user=ci-bot@acme.test",
          "user_api_key_changed actor=- user=ann@acme.test",
          "user_deactivated actor=- user=ann@acme.test",
          "user_deactivated actor=- user=ci-bot@acme.test",
          "user_reactivated actor=- user=ann@acme.test",
          "user_special_permission_changed actor=- user=ann@acme.test can_change_user_emails: false → true",
          "stream_created actor=boss@acme.test stream=\"design crew\"",
          "stream_name_changed actor=boss@acme.test stream=\"design crew\" \"design team\" → \"design crew\""
        ])

        // --json: the stored rows, one object per line; --limit keeps the newest; --event-type one type.
        const json = yield* run("audit-log", "--org", "acme", "--json", "--limit", "2", "--event-type", "user_deactivated")
        assert.strictEqual(json.code, 0, json.stderr)
        const rows = json.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
        assert.deepStrictEqual(rows.map(({ event_time, id, ...rest }) => {
          assert.isNumber(id)
          assert.isNumber(event_time)
          return rest
        }), [
          {
            realm_id: 1,
            acting_user_id: null,
            modified_user_id: 2,
            modified_stream_id: null,
            modified_user_group_id: null,
            event_type: "user_deactivated",
            extra_data: {}
          },
          {
            realm_id: 1,
            acting_user_id: null,
            modified_user_id: 3,
            modified_stream_id: null,
            modified_user_group_id: null,
            event_type: "user_deactivated",
            extra_data: {}
          }
        ])
        // The only organization needs no --organization.
        assert.strictEqual((yield* run("audit-log", "--limit", "1")).stdout.replace(time, ""), lines.at(-1)!.replace(time, "") + "\n")

        assertUsage(yield* run("audit-log", "--organization", "nope"), "teamchat: no organization 'nope' (known: acme)")
        const unknownType = yield* run("audit-log", "--event-type", "user_renamed")
        assert.strictEqual(unknownType.code, 2)
        assert.strictEqual(unknownType.stdout, "")
        assert.match(unknownType.stderr, /^teamchat: unknown event type 'user_renamed' \(known: realm_created, user_created, .*\)\n$/)
        const beta = yield* run(
          "create-organization", "--string-id", "beta", "--name", "Beta", "--owner-email", "x@beta.test", "--owner-name", "X",
          "--url", "http://beta.chat.acme.test"
        )
        assert.strictEqual(beta.code, 0, beta.stderr)
        assertUsage(yield* run("audit-log"), "teamchat: choose an organization with --organization (known: acme, beta)")
      }), { timeout: hangCeiling })
  }
)

/** `serve --demo` in this process on `database`: its base URL; what it prints goes to `printed`. */
const serveDemo = (database: Config.Database, printed: Array<string>) =>
  Effect.map(
    Layer.build(Server.layer({
      port: 0,
      host: "127.0.0.1",
      database,
      demo: true,
      externalUrl: "http://localhost:9991",
      rateLimit: false,
      logLevel: "Warn",
      logFormat: "logfmt"
    }, { secrets: Teamchat.layerSecretsTest, output: (text) => void printed.push(text), http: { log: false } })),
    (context) => HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)
  )

const wire = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const reply: { readonly status: number; readonly json: any } = { status: response.status, json: await response.json() }
    return reply
  })

// Needs the PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
layer(TestDatabase.postgresLayer(), { timeout: Duration.millis(hangCeiling), excludeTestServices: true })(
  "the dev login on a --demo server",
  (it) => {
    it.effect("'zulip' made by create-organization is not the demo: no dev login there; the seeded demo keeps it", () =>
      Effect.scoped(Effect.gen(function*() {
        const database = yield* TestDatabase.TestDatabase
        const org = yield* teamchat([
          "create-organization", "--string-id", "zulip", "--name", "Real Org", "--owner-email", "boss@zulip.com",
          "--owner-name", "The Boss", "--owner-password", "a-real-secret-42", "--url", "http://localhost:9991"
        ], { DATABASE_URL: database.url })
        assert.strictEqual(org.code, 0, org.stderr)
        const printed: Array<string> = []
        const base = yield* serveDemo({ _tag: "Postgres", url: database.url }, printed)
        assert.include(printed.join(""), "teamchat: the database already has 1 organization(s); not seeding the demo organization\n")
        const notFound = { status: 404, json: { result: "error", msg: "Not Found", code: "BAD_REQUEST" } }
        const form = (fields: Record<string, string>) => ({ method: "POST", body: new URLSearchParams(fields) })
        assert.deepStrictEqual(yield* wire(`${base}/api/v1/dev_fetch_api_key`, form({ username: "boss@zulip.com" })), notFound)
        assert.deepStrictEqual(yield* wire(`${base}/api/v1/dev_list_users`), notFound)
        // The organization itself answers: its owner logs in with the password.
        const login = yield* wire(`${base}/api/v1/fetch_api_key`, form({ username: "boss@zulip.com", password: "a-real-secret-42" }))
        assert.deepStrictEqual([login.status, login.json.email], [200, "boss@zulip.com"])

        const seeded: Array<string> = []
        const demo = yield* serveDemo({ _tag: "Memory" }, seeded)
        assert.include(seeded.join(""), "seeding demo organization 'Zulip Dev'")
        const key = yield* wire(`${demo}/api/v1/dev_fetch_api_key`, form({ username: "iago@zulip.com" }))
        assert.deepStrictEqual([key.status, key.json.email], [200, "iago@zulip.com"])
        const list = yield* wire(`${demo}/api/v1/dev_list_users`)
        assert.deepStrictEqual(
          [list.status, list.json.direct_admins.map((u: { email: string }) => u.email)],
          [200, ["desdemona@zulip.com", "iago@zulip.com"]]
        )
      })), { timeout: hangCeiling })
  }
)

describe("reportFailures", () => {
  it.effect("a defect is one line on stderr, exit code 1", () =>
    Effect.gen(function*() {
      const code = yield* Cli.reportFailures(Effect.die(new Error("boom\n    at somewhere")))
      assert.strictEqual(code, 1)
      assert.deepStrictEqual(yield* TestConsole.errorLines, ["teamchat: internal error: boom (set LOG_LEVEL=debug for details)"])
      assert.deepStrictEqual(yield* TestConsole.logLines, [])
    }).pipe(Effect.provide(TestConsole.layer)))

  it.effect("LOG_LEVEL=debug (read like every setting) adds the details", () =>
    Effect.gen(function*() {
      const code = yield* Cli.reportFailures(Effect.die(new Error("boom"))).pipe(
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: { LOG_LEVEL: " Debug " } }))
      )
      assert.strictEqual(code, 1)
      const lines = yield* TestConsole.errorLines
      assert.strictEqual(lines[0], "teamchat: internal error: boom")
      assert.lengthOf(lines, 2)
      assert.match(String(lines[1]), /^Error: boom\n\s+at /)
    }).pipe(Effect.provide(TestConsole.layer)))
})

describe("Config", () => {
  const load = (env: Record<string, string>, overrides: Config.Overrides = {}) =>
    Config.server(overrides).pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))

  it.effect("defaults", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* load({}), {
        port: 9991,
        host: "127.0.0.1",
        database: { _tag: "Pglite", dataDir: "./data" },
        demo: false,
        externalUrl: undefined,
        rateLimit: { requests: undefined, windowSeconds: undefined },
        logLevel: "Info",
        logFormat: "logfmt",
        workers: 1,
        rateLimitStore: { _tag: "Memory" },
        filesDir: "data/uploads"
      })
    }))

  it.effect("uploaded files live in the data directory's uploads folder (beside PostgreSQL too); MAX_FILE_UPLOAD_SIZE_MIB", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* load({ DATA_DIR: "/srv/chat" })).filesDir, "/srv/chat/uploads")
      assert.strictEqual((yield* load({}, { dataDir: "/tmp/x" })).filesDir, "/tmp/x/uploads")
      assert.strictEqual((yield* load({ DATABASE_URL: "postgres://db/chat", DATA_DIR: "/srv/chat" })).filesDir, "/srv/chat/uploads")
      assert.strictEqual((yield* load({ DATABASE_URL: "postgres://db/chat" })).filesDir, "data/uploads")
      assert.strictEqual((yield* load({ DATABASE_URL: "memory://" })).filesDir, undefined)
      assert.strictEqual((yield* load({ MAX_FILE_UPLOAD_SIZE_MIB: "25" })).maxFileUploadSizeMib, 25)
      assert.strictEqual((yield* load({ MAX_FILE_UPLOAD_SIZE_MIB: "0" })).maxFileUploadSizeMib, 0)
      assert.strictEqual((yield* load({})).maxFileUploadSizeMib, undefined)
      assert.deepStrictEqual((yield* load({ S3_BUCKET: "chat-files" })).s3, { bucket: "chat-files" })
      assert.deepStrictEqual(
        (yield* load({ S3_BUCKET: "chat-files", S3_ENDPOINT: "http://127.0.0.1:9000" })).s3,
        { bucket: "chat-files", endpoint: "http://127.0.0.1:9000" }
      )
      assert.strictEqual((yield* load({})).s3, undefined)
      const error = yield* Effect.flip(load({ MAX_FILE_UPLOAD_SIZE_MIB: "1.5" }))
      assert.strictEqual(error.message, "invalid MAX_FILE_UPLOAD_SIZE_MIB \"1.5\": expected a whole number of MiB from 0 to 1048576")
    }))

  it.effect("MAX_BODY_BYTES sets the request body limit of the served options (default 4 MiB)", () =>
    Effect.gen(function*() {
      const config = yield* load({ MAX_BODY_BYTES: "65536" })
      assert.strictEqual(config.maxBodyBytes, 65536)
      assert.strictEqual(Server.httpOptions(config).maxBodyBytes, 65536)
      assert.strictEqual(Server.httpOptions(yield* load({})).maxBodyBytes, 4 * 1024 * 1024)
      const error = yield* Effect.flip(load({ MAX_BODY_BYTES: "12" }))
      assert.strictEqual(
        error.message,
        "invalid MAX_BODY_BYTES \"12\": expected a whole number of bytes from 1024 to 1073741824"
      )
    }))

  it.effect("DATABASE_POOL_SIZE and DATABASE_POOL_TIMEOUT_SECONDS size the PostgreSQL pool and bound its wait", () =>
    Effect.gen(function*() {
      const postgres = { DATABASE_URL: "postgres://db/chat" }
      const configured = yield* load({ ...postgres, DATABASE_POOL_SIZE: "25", DATABASE_POOL_TIMEOUT_SECONDS: "3" })
      assert.deepStrictEqual(configured.database, { _tag: "Postgres", url: "postgres://db/chat", poolSize: 25, poolTimeoutSeconds: 3 })
      if (configured.database._tag !== "Postgres") return
      assert.deepStrictEqual(Config.poolOptions(configured.database), { maxConnections: 25, acquireTimeout: Duration.seconds(3) })
      // Unset: the core's defaults (10 connections, 10 s).
      const plain = (yield* load(postgres)).database
      assert.deepStrictEqual(plain, { _tag: "Postgres", url: "postgres://db/chat" })
      if (plain._tag === "Postgres") assert.deepStrictEqual(Config.poolOptions(plain), {})
      const message = (env: Record<string, string>) => Effect.map(Effect.flip(load({ ...postgres, ...env })), (e) => e.message)
      assert.strictEqual(
        yield* message({ DATABASE_POOL_SIZE: "1" }),
        "invalid DATABASE_POOL_SIZE \"1\": expected a whole number of connections per server process from 2 to 1000"
      )
      assert.strictEqual(
        yield* message({ DATABASE_POOL_TIMEOUT_SECONDS: "0.5" }),
        "invalid DATABASE_POOL_TIMEOUT_SECONDS \"0.5\": expected a whole number of seconds from 1 to 3600"
      )
    }))

  it.effect("reads the environment; flags win; empty variables count as unset", () =>
    Effect.gen(function*() {
      const env = {
        PORT: "8080",
        HOST: "0.0.0.0",
        DATABASE_URL: "postgresql://u:secret@db:5432/chat",
        DATA_DIR: "/ignored",
        DEMO: "yes",
        EXTERNAL_URL: "https://chat.example.com/",
        RATE_LIMIT_REQUESTS: "0",
        LOG_LEVEL: "WARNING",
        LOG_FORMAT: "json"
      }
      const config = yield* load(env)
      assert.deepStrictEqual(config, {
        port: 8080,
        host: "0.0.0.0",
        database: { _tag: "Postgres", url: "postgresql://u:secret@db:5432/chat" },
        demo: true,
        externalUrl: "https://chat.example.com",
        rateLimit: false,
        logLevel: "Warn",
        logFormat: "json",
        // One worker per core on PostgreSQL, rate limits counted there.
        workers: os.availableParallelism(),
        rateLimitStore: { _tag: "Postgres" },
        // Beside PostgreSQL the data directory keeps only the uploaded files.
        filesDir: "/ignored/uploads"
      })
      assert.strictEqual(Config.describeDatabase(config.database), "PostgreSQL at postgresql://u:***@db:5432/chat")
      const flagged = yield* load(env, { port: "0", dataDir: "./here", demo: true })
      assert.strictEqual(flagged.port, 0)
      assert.deepStrictEqual(flagged.database, { _tag: "Pglite", dataDir: "./here" })
      assert.deepStrictEqual((yield* load({ PORT: "", DATABASE_URL: " " })).database, { _tag: "Pglite", dataDir: "./data" })
      assert.strictEqual((yield* load({ DEMO: "0" }, { demo: true })).demo, true)
      assert.deepStrictEqual((yield* load({ DATABASE_URL: "memory://" })).database, { _tag: "Memory" })
      assert.strictEqual(Config.describeDatabase({ _tag: "Memory" }), "in-memory database")
    }))

  it.effect("workers: one per core on PostgreSQL by default, one at most on PGlite and in memory", () =>
    Effect.gen(function*() {
      const postgres = { DATABASE_URL: "postgres://db/chat" }
      assert.strictEqual((yield* load({ ...postgres, WORKERS: "3" })).workers, 3)
      assert.strictEqual((yield* load({ ...postgres, WORKERS: "3" }, { workers: "5" })).workers, 5)
      assert.strictEqual((yield* load({ WORKERS: "1" })).workers, 1)
      const message = (env: Record<string, string>, overrides: Config.Overrides = {}) =>
        Effect.map(Effect.flip(load(env, overrides)), (e) => e.message)
      assert.strictEqual(
        yield* message({}, { workers: "2" }),
        "invalid --workers \"2\": expected 1 with the embedded PGlite database, which allows one process; " +
          "set DATABASE_URL=postgres://… for more"
      )
      assert.strictEqual(
        yield* message({ DATABASE_URL: "memory://", WORKERS: "4" }),
        "invalid WORKERS \"4\": expected 1 with the in-memory database; set DATABASE_URL=postgres://… for more"
      )
      assert.strictEqual(
        yield* message({ ...postgres, WORKERS: "0" }),
        "invalid WORKERS \"0\": expected a whole number of server processes from 1 to 256"
      )
    }))

  it.effect("the rate-limit store: Redis when REDIS_URL is set, else PostgreSQL on PostgreSQL, else memory", () =>
    Effect.gen(function*() {
      const postgres = { DATABASE_URL: "postgres://db/chat" }
      const store = (env: Record<string, string>) => Effect.map(load(env), (c) => c.rateLimitStore)
      assert.deepStrictEqual(yield* store({ REDIS_URL: "redis://127.0.0.1:6379" }), { _tag: "Redis", url: "redis://127.0.0.1:6379" })
      assert.deepStrictEqual(yield* store({ ...postgres, REDIS_URL: "redis://cache:6379/2" }), { _tag: "Redis", url: "redis://cache:6379/2" })
      assert.deepStrictEqual(yield* store({ ...postgres, RATE_LIMIT_STORE: "Memory" }), { _tag: "Memory" })
      assert.deepStrictEqual(yield* store({ ...postgres, REDIS_URL: "redis://cache", RATE_LIMIT_STORE: "postgres" }), { _tag: "Postgres" })
      assert.strictEqual(Config.describeRateLimitStore({ _tag: "Redis", url: "redis://u:pw@cache:6379" }), "rate limits in Redis at redis://u:***@cache:6379")
      const message = (env: Record<string, string>) => Effect.map(Effect.flip(load(env)), (e) => e.message)
      assert.strictEqual(
        yield* message({ REDIS_URL: "localhost:6379" }),
        "invalid REDIS_URL \"localhost:6379\": expected a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379"
      )
      assert.strictEqual(yield* message({ RATE_LIMIT_STORE: "redis" }), "invalid RATE_LIMIT_STORE \"redis\": expected REDIS_URL set as well")
      assert.strictEqual(
        yield* message({ RATE_LIMIT_STORE: "postgres" }),
        "invalid RATE_LIMIT_STORE \"postgres\": expected memory or redis when DATABASE_URL is not a PostgreSQL URL"
      )
      assert.strictEqual(yield* message({ RATE_LIMIT_STORE: "disk" }), "invalid RATE_LIMIT_STORE \"disk\": expected memory, postgres or redis")
      // REDIS_KEY_PREFIX: the deployment's part of the Redis keys; unset keeps "teamchat:".
      assert.deepStrictEqual(
        yield* store({ REDIS_URL: "redis://cache", REDIS_KEY_PREFIX: " acme:chat: " }),
        { _tag: "Redis", url: "redis://cache", keyPrefix: "acme:chat:" }
      )
      assert.strictEqual(
        Config.describeRateLimitStore({ _tag: "Redis", url: "redis://cache", keyPrefix: "acme:" }),
        "rate limits in Redis at redis://cache under acme:"
      )
      const prefixExpected = "expected 1 to 64 letters, digits or the characters : . _ - / (no spaces), e.g. acme:"
      for (const bad of ["acme chat:", "acme*", "x".repeat(65), "tab\there"]) {
        assert.strictEqual(
          yield* message({ REDIS_URL: "redis://cache", REDIS_KEY_PREFIX: bad }),
          `invalid REDIS_KEY_PREFIX ${JSON.stringify(bad)}: ${prefixExpected}`
        )
      }
      // Checked whichever store is chosen: a typo shows before Redis is switched on.
      assert.strictEqual(
        yield* message({ REDIS_KEY_PREFIX: "a b" }),
        `invalid REDIS_KEY_PREFIX "a b": ${prefixExpected}`
      )
    }))

  it.effect("resolves the rate limit against the HTTP adapter's default", () =>
    Effect.gen(function*() {
      const fallback = { requests: 200, windowSeconds: 60 }
      const resolve = (env: Record<string, string>) => Effect.map(load(env), (c) => Config.resolveRateLimit(c.rateLimit, fallback))
      assert.deepStrictEqual(yield* resolve({}), fallback)
      assert.deepStrictEqual(yield* resolve({ RATE_LIMIT_REQUESTS: "5" }), { requests: 5, windowSeconds: 60 })
      assert.deepStrictEqual(yield* resolve({ RATE_LIMIT_WINDOW_SECONDS: "10" }), { requests: 200, windowSeconds: 10 })
      assert.deepStrictEqual(yield* resolve({ RATE_LIMIT_REQUESTS: "5", RATE_LIMIT_WINDOW_SECONDS: "1" }), { requests: 5, windowSeconds: 1 })
      assert.isFalse(yield* resolve({ RATE_LIMIT_REQUESTS: "0", RATE_LIMIT_WINDOW_SECONDS: "1" }))
      assert.isFalse(Config.resolveRateLimit({ requests: undefined, windowSeconds: 10 }, false))
    }))

  it.effect("rejects bad values with one line naming the setting", () =>
    Effect.gen(function*() {
      const message = (env: Record<string, string>) => Effect.map(Effect.flip(load(env)), (e) => e.message)
      assert.strictEqual(
        yield* message({ PORT: "9991x" }),
        "invalid PORT \"9991x\": expected a port number from 0 to 65535 (0 picks a free port)"
      )
      assert.strictEqual(
        yield* message({ RATE_LIMIT_WINDOW_SECONDS: "0" }),
        "invalid RATE_LIMIT_WINDOW_SECONDS \"0\": expected a whole number of seconds from 1 to 86400"
      )
      assert.strictEqual(yield* message({ LOG_FORMAT: "xml" }), "invalid LOG_FORMAT \"xml\": expected logfmt, json or pretty")
      assert.match(yield* message({ DATABASE_URL: "postgres://" }), /^invalid DATABASE_URL "postgres:\/\/": expected a postgres:\/\//)
      assert.match(yield* message({ EXTERNAL_URL: "ftp://chat.example.com" }), /^invalid EXTERNAL_URL/)
      for (const url of ["ftp://push.example.com", "https://user:secret@push.example.com", "https://push.example.com/?x=1", "https://push.example.com/#x"]) {
        assert.strictEqual(
          yield* message({ PUSH_BOUNCER_URL: url }),
          `invalid PUSH_BOUNCER_URL ${JSON.stringify(url)}: expected an http:// or https:// URL without credentials, query or fragment, e.g. https://push.example.com`
        )
      }
    }))

  it.effect("names in any case, values trimmed; a bad flag is named as the flag", () =>
    Effect.gen(function*() {
      const accepted: ReadonlyArray<[Record<string, string>, Partial<Config.ServerConfig>]> = [
        [{ DEMO: " ON " }, { demo: true }],
        [{ DEMO: "No" }, { demo: false }],
        [{ LOG_LEVEL: "Off" }, { logLevel: "None" }],
        [{ LOG_LEVEL: "trace" }, { logLevel: "Trace" }],
        [{ LOG_FORMAT: "PRETTY" }, { logFormat: "pretty" }],
        [{ PORT: " 0 " }, { port: 0 }],
        [{ HOST: "::1" }, { host: "::1" }],
        [{ DATABASE_URL: "MEMORY:" }, { database: { _tag: "Memory" } }],
        [{ EXTERNAL_URL: "HTTPS://Chat.Example.com:8443" }, { externalUrl: "https://chat.example.com:8443" }],
        [{}, { pushBouncerUrl: undefined }],
        [{ PUSH_BOUNCER_URL: " HTTPS://Push.Example.com/zulip " }, { pushBouncerUrl: "https://push.example.com/zulip" }],
        [{ RATE_LIMIT_REQUESTS: "7", RATE_LIMIT_WINDOW_SECONDS: "86400" }, { rateLimit: { requests: 7, windowSeconds: 86400 } }]
      ]
      for (const [env, expected] of accepted) {
        const config = yield* load(env)
        assert.deepStrictEqual(Object.fromEntries(Object.keys(expected).map((key) => [key, config[key as keyof typeof config]])), expected)
      }
      // --demo wins without reading DEMO at all.
      assert.isTrue((yield* load({ DEMO: "maybe" }, { demo: true })).demo)
      const rejected: ReadonlyArray<[Record<string, string>, Config.Overrides, string]> = [
        [{ HOST: "a b" }, {}, "invalid HOST \"a b\": expected an IP address or host name to listen on, e.g. 127.0.0.1 or 0.0.0.0"],
        [{ PORT: "80" }, { port: "-1" }, "invalid --port \"-1\": expected a port number from 0 to 65535 (0 picks a free port)"],
        [{}, { externalUrl: "https://chat.example.com/x" }, "invalid --external-url \"https://chat.example.com/x\": expected an http:// or https:// URL without a path, e.g. https://chat.example.com"],
        [{}, { databaseUrl: "postgres://" }, "invalid --database-url \"postgres://\": expected a postgres:// or postgresql:// URL (e.g. postgres://user:password@localhost:5432/teamchat), or memory://"],
        [{}, { dataDir: " " }, "invalid --data-dir \" \": expected a directory path"],
        [{ RATE_LIMIT_REQUESTS: "1000000001" }, {}, "invalid RATE_LIMIT_REQUESTS \"1000000001\": expected a whole number of requests per window (0 disables rate limiting)"]
      ]
      for (const [env, overrides, line] of rejected) {
        assert.strictEqual(yield* Effect.map(Effect.flip(load(env, overrides)), (e) => e.message), line)
      }
    }))
})
