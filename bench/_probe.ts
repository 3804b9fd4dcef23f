import * as Server from "../packages/http/src/Server.ts"
import { Session } from "node:inspector/promises"
import { writeFileSync } from "node:fs"
const fast = process.env.FAST !== "0"
const db = process.env.DB === "pglite" ? { _tag: "Pglite" as const, dataDir: process.env.DATADIR! } : { _tag: "Memory" as const }
const running = await Server.start({
  port: Number(process.env.PORT ?? 0), host: "127.0.0.1", database: db as any, demo: true, externalUrl: undefined,
  rateLimit: false, logLevel: "Warn", logFormat: "logfmt"
}, { http: { log: false }, output: () => {}, fastPaths: fast })
console.log(running.url)
const session = new Session(); session.connect()
process.on("SIGUSR2", async () => { await session.post("Profiler.enable"); await session.post("Profiler.setSamplingInterval", { interval: 50 }); await session.post("Profiler.start") })
process.on("SIGINT", async () => {
  try { const { profile } = await session.post("Profiler.stop"); writeFileSync("/tmp/prof/steady.cpuprofile", JSON.stringify(profile)) } catch {}
  running.close().finally(() => process.exit(0))
})
