/**
 * Invitation links: POST /join/<key>/ (a person joining through a reusable
 * link: the account, its channel, the welcome message and the events to
 * everyone) and POST /invites/multiuse (an administrator making a link),
 * beside GET /users/me in the same run, in an organization of 1,000 users.
 *
 * Every join makes a new account (a fresh address each time) through one
 * link to Verona; the form's CSRF cookie and token come from one GET of the
 * page, as a browser would send them. The three requests are driven
 * closed-loop with `connections` requests in flight, handed to the web
 * handler directly (no sockets), alternating round by round, on PGlite (the
 * default backend); each round's ratios are taken within the round, and the
 * medians over the rounds are the result. Password hashing is the tests'
 * cheap hasher, so the join's figure is the server's own work. Floors: a
 * join at least a fiftieth, a new link at least a fifth of the rate of GET
 * /users/me.
 */
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Layer from "effect/Layer"
import { alternatingRounds, makeClosedLoop } from "./closedLoop.ts"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { basic, openInProcess } from "./people.ts"
import { describeSpread, spread } from "./stats.ts"

const origin = "http://localhost:9991"
const organizationSize = 1000

type Kind = "join" | "create" | "me"

export const invitesBenchmark: Benchmark = {
  name: "invites",
  description: "POST /join/<key>/ and POST /invites/multiuse vs GET /users/me, 1,000 users (PGlite, in process)",
  run: async (options: BenchOptions, log) => {
    const core = Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgliteClient.layer({})))
    const { auth: accounts, close, handler } = await openInProcess(core, origin, organizationSize, log)
    try {
      const admin = await (async () => {
        const response = await handler(new Request(`${origin}/api/v1/dev_fetch_api_key`, {
          method: "POST",
          body: new URLSearchParams({ username: "iago@zulip.com" })
        }))
        const body = await response.json() as { api_key: string }
        return basic("iago@zulip.com", body.api_key)
      })()
      const streams = await (await handler(new Request(`${origin}/api/v1/streams`, { headers: { authorization: admin } }))).json() as {
        streams: Array<{ stream_id: number; name: string }>
      }
      const verona = streams.streams.find((s) => s.name === "Verona")!.stream_id
      const made = await (await handler(new Request(`${origin}/api/v1/invites/multiuse`, {
        method: "POST",
        headers: { authorization: admin },
        body: new URLSearchParams({ stream_ids: JSON.stringify([verona]), invite_expires_in_minutes: "null" })
      }))).json() as { invite_link: string }
      const joinPath = new URL(made.invite_link).pathname
      const form = await handler(new Request(`${origin}${joinPath}`))
      const cookie = form.headers.get("set-cookie")!.split(";")[0]!
      const token = /name="teamchat_join_csrf" value="([^"]+)"/.exec(await form.text())![1]!

      let failures = 0
      let firstFailure: string | undefined
      let joined = 0
      const check = async (what: string, response: Response) => {
        const text = await response.text()
        if (response.status !== 200) {
          failures++
          firstFailure ??= `${what}: ${response.status} ${text.slice(0, 300)}`
        }
      }
      const calls: Record<Kind, (i: number) => Promise<void>> = {
        join: async () => {
          const n = joined++
          await check("POST /join", await handler(new Request(`${origin}${joinPath}`, {
            method: "POST",
            headers: { cookie },
            body: new URLSearchParams({
              teamchat_join_csrf: token,
              full_name: `Newcomer ${n}`,
              email: `newcomer${n}@zulip.com`,
              password: "a good password"
            })
          })))
        },
        create: async () =>
          check("POST /invites/multiuse", await handler(new Request(`${origin}/api/v1/invites/multiuse`, {
            method: "POST",
            headers: { authorization: admin },
            body: new URLSearchParams({ stream_ids: JSON.stringify([verona]) })
          }))),
        me: async (i) =>
          check("GET /users/me", await handler(new Request(`${origin}/api/v1/users/me`, { headers: { authorization: accounts[i]! } })))
      }

      const load = makeClosedLoop(organizationSize, options.connections)

      const kinds: ReadonlyArray<Kind> = ["me", "join", "create"]
      const results = await alternatingRounds("invites", calls, kinds, load, options, log)
      if (failures > 0) throw new Error(`${failures} requests failed; the first: ${firstFailure}`)
      const rps = (kind: Kind) => spread(results[kind].map((r) => r.rps))
      const ratio = (kind: "join" | "create") => spread(results[kind].map((r, i) => r.rps / results.me[i]!.rps))
      const joinRatio = ratio("join")
      const createRatio = ratio("create")
      log(`join / users/me: ${describeSpread(joinRatio, 3)}; create / users/me: ${describeSpread(createRatio, 3)}`)
      return [
        { name: "POST /join/<key>/ (a new account)", value: rps("join").median, unit: "req/s" },
        { name: "POST /invites/multiuse", value: rps("create").median, unit: "req/s" },
        { name: "GET /users/me", value: rps("me").median, unit: "req/s" },
        { name: "ratio join / users/me", value: joinRatio.median, unit: "", min: 0.02 },
        { name: "ratio create / users/me", value: createRatio.median, unit: "", min: 0.2 }
      ] satisfies ReadonlyArray<Metric>
    } finally {
      await close()
    }
  }
}
