/**
 * Drafts: PATCH /drafts/{draft_id}, what a client sends as its user types
 * (Zulip's web app saves the draft every few seconds of typing), and GET
 * /drafts of a user with 100 drafts, beside GET /users/me for the same users
 * in the same run, in an organization of 1,000 users.
 *
 * Each user owns one channel draft (on Verona, a public channel) and edits
 * it in turn with new content: each edit checks the user's sync setting,
 * locks the row, checks the channel, writes it and publishes an `update`
 * event. The listing users each hold 100 drafts.
 *
 * The three requests are driven closed-loop with `connections` requests in
 * flight, handed to the web handler directly (no sockets), alternating round
 * by round, on PGlite (the default backend); each round's ratios are taken
 * within the round, and the medians over the rounds are the result. Floors:
 * an edit at least a quarter, a listing of 100 at least a fifth of the rate
 * of GET /users/me.
 */
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Layer from "effect/Layer"
import { alternatingRounds, makeClosedLoop } from "./closedLoop.ts"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { openInProcess } from "./people.ts"
import { describeSpread, spread } from "./stats.ts"

const origin = "http://localhost:9991"
const organizationSize = 1000
/** Users whose lists are read, each holding `listSize` drafts. */
const listers = 20
const listSize = 100

type Kind = "edit" | "list" | "me"

export const draftsBenchmark: Benchmark = {
  name: "drafts",
  description: "PATCH /drafts/{id} and GET /drafts (100 drafts) vs GET /users/me, 1,000 users (PGlite, in process)",
  run: async (options: BenchOptions, log) => {
    const core = Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgliteClient.layer({})))
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
        return text
      }
      const post = (i: number, path: string, method: string, form?: Record<string, string>) =>
        handler(new Request(`${origin}/api/v1${path}`, {
          method,
          headers: { authorization: auth[i]! },
          ...(form === undefined ? {} : { body: new URLSearchParams(form) })
        }))

      const streams = JSON.parse(await check("GET /streams", await post(0, "/streams", "GET"))) as {
        streams: Array<{ name: string; stream_id: number }>
      }
      const verona = streams.streams.find((s) => s.name === "Verona")!.stream_id
      const draft = (content: string) => ({ type: "stream", to: [verona], topic: "typing", content })

      log(`each user's draft, and ${listSize} drafts for ${listers} users`)
      const draftIds: Array<number> = []
      for (let i = 0; i < organizationSize; i++) {
        const text = await check("POST /drafts", await post(i, "/drafts", "POST", { drafts: JSON.stringify([draft("h")]) }))
        draftIds.push((JSON.parse(text) as { ids: Array<number> }).ids[0]!)
      }
      for (let i = 0; i < listers; i++) {
        const many = Array.from({ length: listSize - 1 }, (_, n) => draft(`draft ${n}`))
        await check("POST /drafts", await post(i, "/drafts", "POST", { drafts: JSON.stringify(many) }))
      }
      if (failures > 0) throw new Error(`setup failed: ${firstFailure}`)

      let typed = 0
      const calls: Record<Kind, (i: number) => Promise<unknown>> = {
        edit: async (i) => {
          typed++
          await check("PATCH /drafts", await post(i, `/drafts/${draftIds[i]}`, "PATCH", {
            draft: JSON.stringify(draft(`hello, typed ${typed} characters`))
          }))
        },
        list: async (i) => check("GET /drafts", await post(i % listers, "/drafts", "GET")),
        me: async (i) => check("GET /users/me", await post(i, "/users/me", "GET"))
      }

      const load = makeClosedLoop(organizationSize, options.connections)

      const kinds: ReadonlyArray<Kind> = ["me", "edit", "list"]
      const results = await alternatingRounds("drafts", calls, kinds, load, options, log)
      if (failures > 0) throw new Error(`${failures} requests failed; the first: ${firstFailure}`)
      // Each round's ratios are taken within the round; the result is their median.
      const rps = (kind: Kind) => spread(results[kind].map((r) => r.rps))
      const ratio = (kind: "edit" | "list") => spread(results[kind].map((r, i) => r.rps / results.me[i]!.rps))
      const editRatio = ratio("edit")
      const listRatio = ratio("list")
      log(`edit / users/me: ${describeSpread(editRatio)}; list / users/me: ${describeSpread(listRatio)}`)
      return [
        { name: "PATCH /drafts/{draft_id}", value: rps("edit").median, unit: "req/s" },
        { name: `GET /drafts (${listSize} drafts)`, value: rps("list").median, unit: "req/s" },
        { name: "GET /users/me", value: rps("me").median, unit: "req/s" },
        { name: "ratio edit / users/me", value: editRatio.median, unit: "", min: 0.25 },
        { name: "ratio list / users/me", value: listRatio.median, unit: "", min: 0.2 }
      ] satisfies ReadonlyArray<Metric>
    } finally {
      await close()
    }
  }
}
