/**
 * Several server processes behind one port, with `node:cluster`: the
 * primary process migrates the database and seeds the demo organization
 * once, then forks the workers, each a whole server (Server.ts) on the same
 * PostgreSQL database; the primary hands the port's connections to them in
 * turn. Event queues, the access cache and scheduled delivery already work
 * across processes on one database, and rate limits are counted in a shared
 * store (`RATE_LIMIT_STORE`), so any worker serves any request.
 *
 * A worker that dies is logged and replaced. SIGTERM or SIGINT to the
 * primary drains every worker (each shuts down gracefully, as one server
 * does) and then the primary exits; a worker still running after the
 * graceful timeout and five seconds more is killed.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import cluster from "node:cluster"
import type { Worker } from "node:cluster"
import { randomBytes } from "node:crypto"
import { createServer } from "node:net"
import type { ServerConfig } from "./Config.ts"
import { defaultExternalUrl } from "./Config.ts"
import * as Server from "./Server.ts"

/** The environment variable that gives a worker the port its primary chose. @category constants */
export const workerPortVariable = "TEAMCHAT_WORKER_PORT"

/**
 * The environment variable that gives a worker its primary's signing key
 * (hex), so a temporary file URL one worker signs works at every other.
 * Drawn at random by the primary when it starts; only the cluster's own
 * processes see it.
 *
 * @category constants
 */
export const workerSigningKeyVariable = "TEAMCHAT_WORKER_SIGNING_KEY"

/** Whether this process is a worker forked by a primary. @category predicates */
export const isWorker = (): boolean => cluster.isWorker && process.env[workerPortVariable] !== undefined

/** A worker did not start. @category errors */
export class WorkerFailed extends Data.TaggedError("WorkerFailed")<{
  readonly worker: number
  readonly exit: string
}> {
  override get message(): string {
    return `worker ${this.worker} failed to start (${this.exit}); its error is above`
  }
}

/** What a worker tells its primary. */
interface Ready {
  readonly teamchat: "listening"
  readonly url: string
}

const isReady = (message: unknown): message is Ready =>
  typeof message === "object" && message !== null && (message as Ready).teamchat === "listening"

const describeExit = (code: number | null, signal: string | null) =>
  signal !== null ? `signal ${signal}` : `exit code ${code}`

/** A free port on `host`, asked of the system (for PORT=0: every worker needs the same one). */
const freePort = (host: string) =>
  Effect.callback<number, Server.CannotListen>((resume) => {
    const probe = createServer()
    probe.once("error", (cause) => resume(Effect.fail(new Server.CannotListen({ host, port: 0, cause }))))
    probe.listen(0, host, () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resume(Effect.succeed(port)))
    })
  })

/**
 * The worker side: one whole server that seeds nothing, prints only its
 * failures and tells the primary when it listens.
 *
 * @category running
 */
export const runWorker = (config: ServerConfig, options: Server.Options = {}): Effect.Effect<never, Server.StartupError> => {
  const port = Number(process.env[workerPortVariable] ?? config.port)
  const signingKey = process.env[workerSigningKeyVariable]
  return Server.run({ ...config, port }, {
    ...options,
    signingKey: options.signingKey ?? (signingKey === undefined ? undefined : Buffer.from(signingKey, "hex")),
    seed: false,
    output: options.output ?? Server.silent,
    onListening: (url) => process.send?.({ teamchat: "listening", url } satisfies Ready)
  })
}

/**
 * The primary side: migrations and demo seeding once, then `workers`
 * workers forked and supervised until interrupted.
 *
 * @category running
 */
export const runPrimary = (
  config: ServerConfig,
  workers: number,
  options: Pick<Server.Options, "output" | "gracefulShutdownTimeout"> = {}
): Effect.Effect<never, Server.StartupError | Server.CoreError | WorkerFailed> =>
  Effect.gen(function*() {
    // The primary's lines follow LOG_FORMAT as a single server's do.
    const output = options.output ?? Server.outputFor(config.logFormat, yield* Effect.clockWith(Effect.succeed))
    const port = config.port === 0 ? yield* freePort(config.host) : config.port
    const url = config.externalUrl ?? defaultExternalUrl(port)
    // The database is migrated (and seeded) before any worker opens it.
    const core = Server.layerCore(config.database, { output })
    yield* Effect.scoped(Layer.build(
      config.demo ? Layer.effectDiscard(Server.seedDemo(url, output)).pipe(Layer.provideMerge(core)) : core
    ))
    return yield* supervise(config, workers, port, output, options.gracefulShutdownTimeout)
  })

const supervise = (
  config: ServerConfig,
  count: number,
  port: number,
  output: Server.Output,
  gracefulShutdownTimeout: Server.Options["gracefulShutdownTimeout"]
) =>
  Effect.callback<never, WorkerFailed>((resume) => {
    let stopping = false
    let announced = false
    const slots = new Map<Worker, number>()
    const listening = new Set<number>()
    // A worker whose slot started and was replaced too often in a row waits a little before the next.
    const restarts = new Map<number, number>()
    // Every worker, replacements too, signs with the same key.
    const signingKey = randomBytes(32).toString("hex")

    const fork = (slot: number) => {
      const worker = cluster.fork({
        [workerPortVariable]: String(port),
        [Server.workerSlotVariable]: String(slot),
        [workerSigningKeyVariable]: signingKey
      })
      slots.set(worker, slot)
      worker.on("message", (message: unknown) => {
        if (!isReady(message)) return
        restarts.set(slot, 0)
        listening.add(slot)
        if (!announced && listening.size === count) {
          announced = true
          const pids = [...slots.keys()].map((w) => w.process.pid).join(", ")
          output(`teamchat listening on ${message.url} (${Server.describeServing(config, count)})\n`)
          output(`teamchat: ${count} workers (pids ${pids}); a worker that dies is replaced\n`)
          if (config.demo) output(Server.demoAccountsLine(message.url))
        } else if (announced) {
          output(`teamchat: worker ${slot} is serving again (pid ${worker.process.pid})\n`)
        }
      })
    }

    const onExit = (worker: Worker, code: number | null, signal: string | null) => {
      const slot = slots.get(worker)
      if (slot === undefined) return
      slots.delete(worker)
      if (stopping) {
        if (slots.size === 0) {
          clearTimeout(killTimer)
          output("teamchat: all workers stopped\n")
          done()
        }
        return
      }
      if (!announced && !listening.has(slot)) {
        // A worker that never listened: the configuration or the database is wrong for all of them.
        stop()
        resume(Effect.fail(new WorkerFailed({ worker: slot, exit: describeExit(code, signal) })))
        return
      }
      listening.delete(slot)
      const attempt = (restarts.get(slot) ?? 0) + 1
      restarts.set(slot, attempt)
      const delay = attempt <= 1 ? 0 : Math.min(30_000, 250 * 2 ** Math.min(attempt, 7))
      output(
        `teamchat: worker ${slot} (pid ${worker.process.pid}) exited (${describeExit(code, signal)}); ` +
          `starting another${delay > 0 ? ` in ${delay} ms` : ""}\n`
      )
      setTimeout(() => {
        if (!stopping) fork(slot)
      }, delay).unref()
    }

    let killTimer: ReturnType<typeof setTimeout> | undefined
    let done = () => {}
    const stop = () => {
      if (stopping) return
      stopping = true
      for (const worker of slots.keys()) worker.process.kill("SIGTERM")
    }
    // Set before the runtime's own handlers interrupt: a worker that a terminal's
    // Ctrl-C reached too is not replaced while the primary stops.
    const onSignal = () => {
      stopping = true
    }
    process.on("SIGINT", onSignal)
    process.on("SIGTERM", onSignal)
    cluster.on("exit", onExit)
    for (let slot = 1; slot <= count; slot++) fork(slot)

    return Effect.callback<void>((finished) => {
      process.off("SIGINT", onSignal)
      process.off("SIGTERM", onSignal)
      const wasStopping = stopping
      stopping = false
      stop()
      if (!wasStopping || slots.size > 0) output(`teamchat: stopping ${slots.size} workers…\n`)
      done = () => {
        cluster.off("exit", onExit)
        finished(Effect.void)
      }
      if (slots.size === 0) return done()
      const graceMs = Duration.toMillis(gracefulShutdownTimeout ?? "10 seconds")
      killTimer = setTimeout(() => {
        for (const worker of slots.keys()) worker.process.kill("SIGKILL")
      }, graceMs + 5_000)
    })
  })
