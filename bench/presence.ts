/**
 * Presence: POST /users/me/presence, the busiest endpoint of a Zulip server
 * (every client pings once a minute), in an organization of 1,000 users,
 * beside GET /users/me for the same users in the same run.
 *
 * Each user pings as the mobile app does: `status=active` with the
 * `last_update_id` of its previous answer, so each answer carries the rows
 * that changed since. The server's clock moves one minute for every round
 * of the 1,000 users, so every ping is a user's first of its minute and
 * writes its row (a ping within the same minute would only read), and each
 * answer holds the pings of the last minute: up to the whole organization.
 *
 * Both endpoints are driven closed-loop with `connections` requests in
 * flight, handed to the web handler directly (no sockets), alternating
 * round by round, on PGlite (the default backend). The floor: presence at
 * least half the rate of GET /users/me.
 */
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { alternatingRounds, makeClosedLoop } from "./closedLoop.ts"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { openInProcess } from "./people.ts"
import { describeSpread, spread } from "./stats.ts"

const origin = "http://localhost:9991"
const organizationSize = 1000
const minute = 60_000

/** A wall clock the benchmark moves: one minute per round of pings. */
const makeBenchClock = () => {
  let now = Date.UTC(2026, 0, 1)
  const base = Clock.Clock.defaultValue()
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: () => now,
    currentTimeMillis: Effect.sync(() => now),
    currentTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: base.monotonicTimeNanos,
    sleep: (duration) => base.sleep(duration)
  }
  return { clock, advance: (ms: number) => void (now += ms) }
}

export const presenceBenchmark: Benchmark = {
  name: "presence",
  description: "POST /users/me/presence in a 1,000-user organization vs GET /users/me (PGlite, in process)",
  run: async (options: BenchOptions, log) => {
    const benchClock = makeBenchClock()
    const core = Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(
      Layer.provideMerge(PgliteClient.layer({})),
      Layer.provideMerge(Layer.succeed(Clock.Clock, benchClock.clock))
    )
    const { auth, close, handler } = await openInProcess(core, origin, organizationSize, log)
    try {
      const lastUpdateId = auth.map(() => -1)
      let failures = 0
      let firstFailure: string | undefined
      let entries = 0
      let pings = 0
      let answers = 0

      const ping = async (i: number) => {
        const response = await handler(new Request(`${origin}/api/v1/users/me/presence`, {
          method: "POST",
          headers: { authorization: auth[i]! },
          body: new URLSearchParams({ status: "active", last_update_id: String(lastUpdateId[i]), new_user_input: "true" })
        }))
        // The client reads the body as text, as it does for GET /users/me, so
        // the two are charged the same client work: parsing a thousand entries
        // (~60 KB) took about 15 % of the measured time, spent in the client
        // on presence alone. The id is read from the text; every 16th answer
        // is parsed whole and checked.
        const text = await response.text()
        const id = /"presence_last_update_id":(-?\d+)/.exec(text)?.[1]
        if (response.status !== 200 || id === undefined) {
          failures++
          firstFailure ??= `POST /users/me/presence: ${response.status} ${text.slice(0, 500)}`
          return
        }
        lastUpdateId[i] = Number(id)
        if (++answers % 16 === 0) {
          const body = JSON.parse(text) as { presence_last_update_id?: number; presences?: Record<string, unknown> }
          if (body.presence_last_update_id !== Number(id) || body.presences === undefined) {
            failures++
            firstFailure ??= `POST /users/me/presence: an answer without its presences: ${text.slice(0, 500)}`
          } else {
            entries += Object.keys(body.presences).length
            pings++
          }
        }
      }
      const me = async (i: number) => {
        const response = await handler(new Request(`${origin}/api/v1/users/me`, { headers: { authorization: auth[i]! } }))
        const text = await response.text()
        if (response.status !== 200) {
          failures++
          firstFailure ??= `GET /users/me: ${response.status} ${text}`
        }
      }

      // The clock moves a minute each time the users come round again.
      const load = makeClosedLoop(organizationSize, options.connections, () => benchClock.advance(minute))
      const results = await alternatingRounds("presence", { presence: ping, me }, ["me", "presence"], load, options, log, async () => {
        // Every user has pinged: the measured answers are the steady state's.
        for (let i = 0; i < organizationSize; i++) if (lastUpdateId[i] === -1) await ping(i)
        entries = 0
        pings = 0
      })
      if (failures > 0) throw new Error(`${failures} requests failed; the first: ${firstFailure}`)
      // Each round's ratio is taken within the round; the result is their median.
      const presenceRps = spread(results.presence.map((r) => r.rps))
      const meRps = spread(results.me.map((r) => r.rps))
      const ratio = spread(results.presence.map((r, i) => r.rps / results.me[i]!.rps))
      log(`presence / users/me: ${describeSpread(ratio)}`)
      return [
        { name: "POST /users/me/presence", value: presenceRps.median, unit: "req/s" },
        { name: "GET /users/me", value: meRps.median, unit: "req/s" },
        { name: "presence entries per answer", value: pings === 0 ? 0 : entries / pings, unit: "" },
        { name: "ratio presence / users/me", value: ratio.median, unit: "", min: 0.5 }
      ] satisfies ReadonlyArray<Metric>
    } finally {
      await close()
    }
  }
}
