/**
 * Embedding teamchat in an existing Node HTTP server.
 *
 * The host application keeps its own server and routes (here GET /healthz
 * and a 404 of its own) and hands every /api/v1/* request to teamchat's web
 * handler (`makeWebHandler`), which takes a standard `Request` and returns a
 * `Response`. teamchat runs on its in-memory backend with the demo
 * organization, so there is nothing to set up:
 *
 *   . scripts/env.sh                               # once per shell: Node 22 on PATH
 *   node examples/embed-in-node-server.ts          # PORT=3000 by default
 *   curl http://127.0.0.1:3000/healthz
 *   curl http://127.0.0.1:3000/api/v1/server_settings
 *   curl -d username=iago@zulip.com http://127.0.0.1:3000/api/v1/dev_fetch_api_key
 *
 * For durable data, pass `Teamchat.layerServices` over `Persistence.layerPglite(dir)`
 * or `Persistence.layerPostgres(url)` instead of `Teamchat.layerMemory()`
 * (docs/embedding.md, "Choosing a backend").
 */
import { DemoOrganization, Teamchat } from "@teamchat/core"
import { makeWebHandler } from "@teamchat/http/Http"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"
import { fileURLToPath } from "node:url"

export interface HostApp {
  readonly server: Server
  /** Where the host listens, e.g. http://127.0.0.1:3000. */
  readonly url: string
  readonly close: () => Promise<void>
}

/** Node's request as a web `Request`; the body is streamed, not buffered. */
const toWebRequest = (request: IncomingMessage): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v))
    else if (value !== undefined) headers.set(name, value)
  }
  const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "localhost"}`)
  const method = request.method ?? "GET"
  return method === "GET" || method === "HEAD"
    ? new Request(url, { method, headers })
    : new Request(url, { method, headers, body: Readable.toWeb(request) as ReadableStream<Uint8Array>, duplex: "half" })
}

/** A web `Response` written to Node's response. */
const sendWebResponse = async (response: Response, target: ServerResponse): Promise<void> => {
  target.statusCode = response.status
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") target.setHeader(name, value)
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) target.setHeader("set-cookie", cookies)
  if (response.body === null) {
    target.end()
    return
  }
  for await (const chunk of response.body) target.write(chunk)
  target.end()
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve()
    })
  })

/** Starts the host application with teamchat mounted under /api/v1. */
export const start = async (options: { readonly port?: number; readonly host?: string } = {}): Promise<HostApp> => {
  const host = options.host ?? "127.0.0.1"
  const server = createServer()
  await listen(server, options.port ?? 3000, host)
  const { port } = server.address() as AddressInfo

  // teamchat: the whole domain in memory, seeded with the demo organization
  // (its URL names the host's port), and the demo login enabled.
  const core = Layer.effectDiscard(DemoOrganization.seed(`http://localhost:${port}`)).pipe(
    Layer.provideMerge(Teamchat.layerMemory())
  )
  const teamchat = makeWebHandler(core, { demo: true })

  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://host").pathname
    // The host's own routes.
    if (path === "/healthz") {
      response.writeHead(200, { "content-type": "text/plain" }).end("ok\n")
      return
    }
    // teamchat's routes.
    if (path.startsWith("/api/v1/")) {
      teamchat.handler(toWebRequest(request))
        .then((answer) => sendWebResponse(answer, response))
        .catch((error: unknown) => {
          if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" })
          response.end(`host app: teamchat failed: ${String(error)}\n`)
        })
      return
    }
    response.writeHead(404, { "content-type": "text/plain" }).end("host app: no such page\n")
  })

  return {
    server,
    url: `http://${host}:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await teamchat.dispose()
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const app = await start({ port: Number(process.env.PORT ?? 3000) })
  console.log(`host app on ${app.url}: /healthz is the host's, /api/v1/* is teamchat's (demo organization)`)
  const stop = () => {
    app.close().then(() => process.exit(0), () => process.exit(1))
  }
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
}
