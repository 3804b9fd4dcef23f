/**
 * E2EE push registration: POST /mobile_push/register of a new device (a
 * row written as pending, a `push_device` event, and after the commit the
 * forward to a bouncer, its answer and a second event) and of a device
 * already active (Zulip's idempotent answer: one read), beside GET
 * /users/me for the same users in the same run, in an organization of 200
 * users on PGlite.
 *
 * The bouncer is a plain Node HTTP server on 127.0.0.1 answering at once
 * with a `device_id`; it runs in this process, as does the server (the web
 * handler called directly, no sockets to it), so its work and the forwards
 * count against the rate of the new registrations. Requests run closed-loop
 * with `connections` in flight, alternating round by round; each round's
 * ratios are taken within the round and the medians over the rounds are the
 * result. Floors: a new registration at least a tenth (it is two
 * transactions, two events and a round trip to the bouncer against one
 * read; about 0.19 measured on a busy 2-core machine), a repeated one at
 * least half of the rate of GET /users/me.
 */
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as PushBouncerClient from "@teamchat/http/PushBouncerClient"
import { alternatingRounds, makeClosedLoop } from "./closedLoop.ts"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { openInProcess } from "./people.ts"
import { describeSpread, spread } from "./stats.ts"

const origin = "http://localhost:9991"
const organizationSize = 200

type Kind = "register" | "again" | "me"

/** A bouncer that registers every device at once. */
const startBouncer = () =>
  new Promise<{ readonly url: string; readonly received: () => number; readonly close: () => Promise<void> }>((resolve) => {
    let received = 0
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        received++
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { push_account_id: number }
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ result: "success", msg: "", device_id: body.push_account_id }))
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        received: () => received,
        close: () => new Promise((done) => server.close(() => done()))
      }))
  })

export const pushBenchmark: Benchmark = {
  name: "push",
  description: "POST /mobile_push/register (new and repeated) vs GET /users/me, 200 users, bouncer on 127.0.0.1 (PGlite, in process)",
  run: async (options: BenchOptions, log) => {
    const bouncer = await startBouncer()
    const core = Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(
      Layer.provideMerge(PgliteClient.layer({})),
      Layer.provide(PushBouncerClient.layer({ url: bouncer.url }))
    )
    const { auth, close, handler } = await openInProcess(core, origin, organizationSize, log)
    try {
      let failures = 0
      let firstFailure: string | undefined
      const check = async (what: string, response: Response) => {
        const text = await response.text()
        if (response.status !== 200) {
          failures++
          firstFailure ??= `${what}: ${response.status} ${text}`
        }
      }
      const send = (i: number, path: string, method: string, form?: Record<string, string>) =>
        handler(new Request(`${origin}/api/v1${path}`, {
          method,
          headers: { authorization: auth[i]! },
          ...(form === undefined ? {} : { body: new URLSearchParams(form) })
        }))
      const registration = (pushAccountId: number) => ({
        token_kind: "fcm",
        push_account_id: String(pushAccountId),
        push_public_key: "cHVzaC1wdWJsaWMta2V5LWZvci10aGUtYmVuY2htYXJr",
        bouncer_public_key: "YmVuY2gtYm91bmNlci1rZXk=",
        encrypted_push_registration: Buffer.from(`{"token":"t${pushAccountId}","token_kind":"fcm"}`).toString("base64")
      })

      // Account 1 of every user is registered (and active) before the runs.
      for (let i = 0; i < organizationSize; i++) {
        await check("POST /mobile_push/register", await send(i, "/mobile_push/register", "POST", registration(1)))
      }
      while (bouncer.received() < organizationSize) await new Promise((done) => setTimeout(done, 10))
      if (failures > 0) throw new Error(`setup failed: ${firstFailure}`)

      let account = 1
      const calls: Record<Kind, (i: number) => Promise<unknown>> = {
        register: async (i) => check("POST /mobile_push/register (new)", await send(i, "/mobile_push/register", "POST", registration(++account))),
        again: async (i) => check("POST /mobile_push/register (again)", await send(i, "/mobile_push/register", "POST", registration(1))),
        me: async (i) => check("GET /users/me", await send(i, "/users/me", "GET"))
      }

      const load = makeClosedLoop(organizationSize, options.connections)

      const kinds: ReadonlyArray<Kind> = ["me", "register", "again"]
      const results = await alternatingRounds("push", calls, kinds, load, options, log)
      if (failures > 0) throw new Error(`${failures} requests failed; the first: ${firstFailure}`)
      const rps = (kind: Kind) => spread(results[kind].map((r) => r.rps))
      const ratio = (kind: "register" | "again") => spread(results[kind].map((r, i) => r.rps / results.me[i]!.rps))
      const registerRatio = ratio("register")
      const againRatio = ratio("again")
      log(`new / users/me: ${describeSpread(registerRatio)}; again / users/me: ${describeSpread(againRatio)}`)
      return [
        { name: "POST /mobile_push/register (new device)", value: rps("register").median, unit: "req/s" },
        { name: "POST /mobile_push/register (active device again)", value: rps("again").median, unit: "req/s" },
        { name: "GET /users/me", value: rps("me").median, unit: "req/s" },
        { name: "ratio new / users/me", value: registerRatio.median, unit: "", min: 0.1 },
        { name: "ratio again / users/me", value: againRatio.median, unit: "", min: 0.5 }
      ] satisfies ReadonlyArray<Metric>
    } finally {
      await close()
      await bouncer.close()
    }
  }
}
