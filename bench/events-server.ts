/**
 * The servers of the events benchmark, one per process:
 * `node --expose-gc bench/events-server.ts teamchat|bare`.
 *
 * - `teamchat`: the standalone server (`Server.start`) on the in-memory
 *   backend (`EVENTS_DATABASE=pglite`: embedded PGlite in a temporary
 *   directory, removed at exit) with the demo organization, rate limiting
 *   and request logging off, production timings (heartbeat after 45–55 s).
 * - `bare`: node:http holding every GET until a POST /release, which answers
 *   all of them at once with the bytes given on stdin (`{"body": base64}`).
 *
 * Protocol: the first stdin line is a JSON object (the bare server's body);
 * the process prints `{"url": …}` when listening. Each further stdin line is
 * a command, answered by one stdout line:
 *
 * - `idle`: waits until the process has used less than 5 ms of CPU in a
 *   100 ms window (at most 30 s), i.e. every request it received is either
 *   answered or waiting; answers `{"idle": true|false}`. `EVENTS_IDLE_CPU_MS`
 *   changes the 5 ms (a profiler needs more).
 * - `memory`: `process.memoryUsage()` after two full collections.
 * - `snapshot <file>`: writes a heap snapshot (for looking into the memory
 *   figures); answers `{"file": …}`.
 *
 * It exits when stdin closes or on SIGTERM.
 */
import { mkdtempSync, rmSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as v8 from "node:v8"
import type { AddressInfo } from "node:net"
import { createInterface } from "node:readline"
import { startTeamchat } from "./teamchat.ts"

const kind = process.argv[2]
const lines = createInterface({ input: process.stdin })
const pendingLines: Array<string> = []
let waiter: ((line: string) => void) | undefined
lines.on("line", (line) => {
  if (waiter !== undefined) {
    const resolve = waiter
    waiter = undefined
    resolve(line)
  } else pendingLines.push(line)
})
const nextLine = () =>
  new Promise<string>((resolve) => {
    const line = pendingLines.shift()
    if (line !== undefined) resolve(line)
    else waiter = resolve
  })

const input = JSON.parse(await nextLine()) as { readonly body?: string }
const collect = () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("run with --expose-gc")
  gc()
  gc()
}

let url: string
let stop: () => Promise<void>

if (kind === "teamchat") {
  const dataDir = process.env.EVENTS_DATABASE === "pglite" ? mkdtempSync(join(tmpdir(), "teamchat-events-")) : undefined
  const running = await startTeamchat(dataDir === undefined ? undefined : { _tag: "Pglite", dataDir })
  url = running.url
  stop = () => running.close().finally(() => dataDir === undefined ? undefined : rmSync(dataDir, { recursive: true, force: true }))
} else if (kind === "bare") {
  const body = Buffer.from(input.body ?? "", "base64")
  const pending: Array<http.ServerResponse> = []
  const server = http.createServer((request, response) => {
    if (request.method === "POST" && request.url === "/release") {
      const held = pending.splice(0)
      for (const r of held) {
        r.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) })
        r.end(body)
      }
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ released: held.length }))
      return
    }
    pending.push(response)
    response.on("close", () => {
      const i = pending.indexOf(response)
      if (i !== -1) pending.splice(i, 1)
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  stop = () =>
    new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
} else {
  console.error("usage: node --expose-gc bench/events-server.ts teamchat|bare")
  process.exit(2)
}

/** CPU milliseconds per 100 ms below which the process counts as idle (raise it under a profiler). */
const idleCpuMs = Number(process.env.EVENTS_IDLE_CPU_MS ?? 5)

const quiet = async (): Promise<boolean> => {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const before = process.cpuUsage()
    await new Promise((resolve) => setTimeout(resolve, 100))
    const used = process.cpuUsage(before)
    if ((used.user + used.system) / 1000 < idleCpuMs) return true
  }
  return false
}

let stopping = false
const shutdown = () => {
  if (stopping) return
  stopping = true
  stop().then(() => process.exit(0), () => process.exit(1))
}
process.on("SIGTERM", shutdown)
lines.on("close", shutdown)
process.stdout.write(`${JSON.stringify({ url })}\n`)

while (!stopping) {
  const command = (await nextLine()).trim()
  if (command === "idle") {
    process.stdout.write(`${JSON.stringify({ idle: await quiet() })}\n`)
  } else if (command === "memory") {
    collect()
    process.stdout.write(`${JSON.stringify(process.memoryUsage())}\n`)
  } else if (command.startsWith("snapshot ")) {
    collect()
    process.stdout.write(`${JSON.stringify({ file: v8.writeHeapSnapshot(command.slice("snapshot ".length)) })}\n`)
  } else {
    process.stdout.write(`${JSON.stringify({ error: `unknown command ${command}` })}\n`)
  }
}
