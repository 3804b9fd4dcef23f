/**
 * Servers under test, one per process: `node bench/servers.ts <kind>`.
 * Reads a JSON object on the first line of stdin, listens on an ephemeral
 * loopback port, prints `{"url": …, "pid": …}` on stdout, and exits on
 * SIGTERM or when stdin closes (the benchmark went away). Each later stdin
 * line `cpu` is answered with one stdout line, `process.cpuUsage()`.
 *
 * - `teamchat`: the standalone server (Server.ts: NodeHttpServer + the API
 *   routes) on the in-memory backend (or the `database` of the input, as
 *   the server's configuration spells it) with the demo organization, rate
 *   limiting and request logging off.
 * - `bare`: node:http answering every request with the given status,
 *   headers and body, nothing else.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { createInterface } from "node:readline"
import type { Database } from "../packages/http/src/Config.ts"

interface BareInput {
  readonly status: number
  readonly headers: Record<string, string>
  /** base64 */
  readonly body: string
}

const kind = process.argv[2]
const lines = createInterface({ input: process.stdin })
const input = await new Promise<unknown>((resolve) => lines.once("line", (line) => resolve(JSON.parse(line))))

let stop: () => Promise<void>
let url: string

if (kind === "teamchat") {
  // Loaded here, so the bare server's process holds node:http only.
  const { startTeamchat } = await import("./teamchat.ts")
  const running = await startTeamchat((input as { database?: Database }).database)
  url = running.url
  stop = running.close
} else if (kind === "bare") {
  const { body, headers, status } = input as BareInput
  const bytes = Buffer.from(body, "base64")
  const server = http.createServer((_request, response) => {
    response.writeHead(status, headers)
    response.end(bytes)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  stop = () =>
    new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
} else {
  console.error(`usage: node bench/servers.ts teamchat|bare`)
  process.exit(2)
}

// `BENCH_SERVER_CPU_PROFILE=<dir>`: a V8 CPU profile of the whole server
// process (start-up and warm-up included), written to
// `<dir>/server-<kind>-<pid>.cpuprofile` when it stops.
const profileDir = process.env.BENCH_SERVER_CPU_PROFILE
const profiling = profileDir === undefined || profileDir === "" ? undefined : await (async () => {
  const { Session } = await import("node:inspector/promises")
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.setSamplingInterval", { interval: 100 })
  await session.post("Profiler.start")
  return async () => {
    const { profile } = await session.post("Profiler.stop")
    session.disconnect()
    const { mkdirSync, writeFileSync } = await import("node:fs")
    mkdirSync(profileDir!, { recursive: true })
    writeFileSync(`${profileDir}/server-${kind}-${process.pid}.cpuprofile`, JSON.stringify(profile))
  }
})()

let stopping = false
const shutdown = () => {
  if (stopping) return
  stopping = true
  const done = (code: number) => () => {
    if (profiling === undefined) process.exit(code)
    else profiling().finally(() => process.exit(code))
  }
  stop().then(done(0), done(1))
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)
lines.on("close", shutdown)
// `cpu`: answers with the CPU time this process has used (process.cpuUsage(), µs).
lines.on("line", (line) => {
  if (line.trim() === "cpu") process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`)
})
process.stdout.write(`${JSON.stringify({ url, pid: process.pid })}\n`)
