/**
 * A push notification bouncer for tests: a real HTTP server on 127.0.0.1
 * (an ephemeral port) that answers Zulip's `push/e2ee/register` the way the
 * `bouncer_public_key` it receives asks, and records every request.
 *
 * | bouncer_public_key | answer |
 * |---|---|
 * | `key-ok` | 200 `{"result":"success","msg":"","device_id":1000 + push_account_id}` |
 * | `key-retired` | 400 `INVALID_BOUNCER_PUBLIC_KEY` "Invalid bouncer_public_key" |
 * | `key-expired` | 400 `REQUEST_EXPIRED` "Request expired" |
 * | `key-garbled` | 400 `BAD_REQUEST` "Invalid encrypted_push_registration" |
 * | `key-500` | 500, plain text |
 * | `key-flaky` | 502 the first time per account, then like `key-ok` |
 * | `key-slow` | never answers (until the server closes); with `holdSlow`, answers like `key-ok` on `release()` |
 * | `key-html` | 200 with an HTML page |
 * | `key-no-id` | 200 `{"result":"success","msg":""}` |
 */
import * as Effect from "effect/Effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface BouncerRequest {
  readonly method: string
  readonly path: string
  readonly contentType: string | undefined
  readonly body: unknown
}

export interface TestBouncer {
  /** The base URL, once listening. */
  url: string
  readonly requests: Array<BouncerRequest>
  /** The recorded requests for one account. */
  readonly requestsFor: (pushAccountId: number) => ReadonlyArray<BouncerRequest>
  /** Waits until `count` requests for the account have come in. */
  readonly received: (pushAccountId: number, count: number) => Effect.Effect<void>
  /** Answers the held `key-slow` requests (with `holdSlow`). */
  readonly release: () => void
}

export interface TestBouncerOptions {
  /** `key-slow` requests wait for `release()` instead of forever. */
  readonly holdSlow?: boolean
}

const json = (status: number, body: object) => ({ status, type: "application/json", text: JSON.stringify(body) })

/** Starts a bouncer, closed (hung requests too) when the scope closes. */
export const startWith = (options: TestBouncerOptions): Effect.Effect<TestBouncer, never, import("effect/Scope").Scope> => Effect.acquireRelease(
  Effect.promise(() => {
    const requests: Array<BouncerRequest> = []
    const flaked = new Set<number>()
    const waiters = new Set<() => void>()
    const held: Array<() => void> = []
    const requestsFor = (id: number) =>
      requests.filter((r) => (r.body as { push_account_id?: unknown } | undefined)?.push_account_id === id)
    const bouncer: TestBouncer = {
      url: "",
      requests,
      requestsFor,
      received: (id, count) =>
        Effect.callback<void>((resume) => {
          const check = () => {
            if (requestsFor(id).length < count) return
            waiters.delete(check)
            resume(Effect.void)
          }
          waiters.add(check)
          check()
          return Effect.sync(() => void waiters.delete(check))
        }),
      release: () => {
        for (const answer of held.splice(0)) answer()
      }
    }
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let body: any
        try {
          body = JSON.parse(text)
        } catch {
          body = text
        }
        requests.push({ method: request.method ?? "", path: request.url ?? "", contentType: request.headers["content-type"], body })
        for (const waiter of [...waiters]) waiter()
        const id = typeof body?.push_account_id === "number" ? body.push_account_id : 0
        const ok = () => json(200, { result: "success", msg: "", device_id: 1000 + id })
        let answer: { status: number; type: string; text: string } | undefined
        switch (body?.bouncer_public_key) {
          case "key-ok":
            answer = ok()
            break
          case "key-retired":
            answer = json(400, { result: "error", msg: "Invalid bouncer_public_key", code: "INVALID_BOUNCER_PUBLIC_KEY" })
            break
          case "key-expired":
            answer = json(400, { result: "error", msg: "Request expired", code: "REQUEST_EXPIRED" })
            break
          case "key-garbled":
            answer = json(400, { result: "error", msg: "Invalid encrypted_push_registration", code: "BAD_REQUEST" })
            break
          case "key-500":
            answer = { status: 500, type: "text/plain", text: "Internal Server Error" }
            break
          case "key-flaky":
            if (flaked.has(id)) {
              answer = ok()
            } else {
              flaked.add(id)
              answer = { status: 502, type: "text/plain", text: "Bad Gateway" }
            }
            break
          case "key-slow":
            answer = undefined
            if (options.holdSlow === true) {
              held.push(() => {
                const ok1 = ok()
                response.writeHead(ok1.status, { "content-type": ok1.type })
                response.end(ok1.text)
              })
            }
            break
          case "key-html":
            answer = { status: 200, type: "text/html", text: "<html><body>Welcome</body></html>" }
            break
          case "key-no-id":
            answer = json(200, { result: "success", msg: "" })
            break
          default:
            answer = json(400, { result: "error", msg: "Unknown test key", code: "BAD_REQUEST" })
        }
        if (answer === undefined) return
        response.writeHead(answer.status, { "content-type": answer.type })
        response.end(answer.text)
      })
    })
    return new Promise<{ bouncer: TestBouncer; server: typeof server }>((resolve) => {
      server.listen(0, "127.0.0.1", () => {
        bouncer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        resolve({ bouncer, server })
      })
    })
  }),
  ({ server }) =>
    Effect.promise(() =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    )
).pipe(Effect.map(({ bouncer }) => bouncer))

/** A bouncer with the default answers. */
export const start = startWith({})

/** A URL on 127.0.0.1 where nothing listens: a port bound and released. */
export const refusingUrl: Effect.Effect<string> = Effect.promise(() =>
  new Promise<string>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => resolve(`http://127.0.0.1:${port}`))
    })
  })
)
