/**
 * POST /register in an organization of 1,000 users and 200 channels (each
 * user subscribed to 20 of them, every channel with 100 subscribers), all
 * event types and every default of the endpoint, beside GET /users/me by the
 * same user in the same run: the ratio of their p50s says how many
 * "cheapest authenticated requests" one register costs (target: report,
 * ≤ 50x).
 *
 * The demo organization plus 990 users (through the repository, and into
 * the member system groups as the service puts them: the service's per-user
 * transaction is not what is measured) and 200 channels
 * (through the service). Each register's queue is deleted again, untimed,
 * so the server does not accumulate them. The two requests alternate, and
 * each round (`--rounds`, default 5) reports its p50s; the median and the
 * spread over the rounds are the result. In-memory backend and PGlite
 * (`REGISTER_BACKENDS=memory`: memory only); requests handed to the web
 * handler directly (no sockets).
 */
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import type { UserId } from "@teamchat/core/domain/Ids"
import { realmId } from "@teamchat/core/domain/Ids"
import { GroupRepo, UserRepo } from "@teamchat/core/ports/Repositories"
import { Organizations } from "@teamchat/core/services/Organizations"
import { Channels } from "@teamchat/core/services/Channels"
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import { makeWebHandler } from "@teamchat/http/Http"
import type { Benchmark, BenchOptions, Metric } from "./harness.ts"
import { profiled } from "./profile.ts"
import { describeSpread, percentile, spread } from "./stats.ts"

const origin = "http://localhost:9991"
const userCount = 1000
const channelCount = 200
const channelsPerUser = 20
const samplesPerRound = 20

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

type Core = Layer.Layer<Teamchat.Services, unknown>

const measure = async (label: string, core: Core, rounds: number, log: (line: string) => void) => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(core, scope).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
  )
  const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
    Effect.runPromise(Effect.provideContext(effect, context).pipe(Effect.provideService(References.MinimumLogLevel, "Warn")) as Effect.Effect<A, E>)
  try {
    log(`seeding the demo organization, then up to ${userCount} users and ${channelCount} channels`)
    await run(DemoOrganization.seed(origin))
    const counts = await run(Effect.gen(function*() {
      const realm = realmId(1)
      const users = yield* UserRepo
      const existing = yield* users.listByRealm(realm)
      const template = existing.find((u) => u.delivery_email === "hamlet@zulip.com")!
      const ids: Array<UserId> = existing.filter((u) => !u.is_bot).map((u) => u.id)
      for (let i = ids.length; i < userCount; i++) {
        const user = yield* users.insert(() => ({
          ...template,
          email: `user${i}@zulip.com`,
          delivery_email: `user${i}@zulip.com`,
          full_name: `User ${i}`,
          role: 400,
          api_key: `benchkey${String(i).padStart(24, "0")}`
        }))
        ids.push(user.id)
      }
      // The system groups the service would have put them in (members: full user access).
      const system = yield* (yield* Organizations).systemGroups(realm)
      const added = ids.slice(existing.filter((u) => !u.is_bot).length)
      for (const name of ["role:fullmembers", "role:members"] as const) yield* (yield* GroupRepo).addMembers(system[name], added)
      const channels = yield* Channels
      for (let c = 0; c < channelCount; c++) {
        const created = yield* channels.create(realm, { name: `bench channel ${c}`, description: `Channel **${c}** of the bench` })
        // User i is in channels i, i+10, …: 20 channels each, 100 subscribers each.
        const members = ids.filter((_, i) => (i - c) % (channelCount / channelsPerUser) === 0)
        yield* channels.subscribe(created.id, members)
      }
      return { users: (yield* users.listByRealm(realm)).length }
    }))
    log(`${counts.users} users (bots included)`)
    // The ratios here put an endpoint's cost beside the cost of the plainest
    // request through the same routes.
    const { handler, dispose } = makeWebHandler(Layer.succeedContext(context), { demo: true, rateLimit: false })
    const login = await handler(new Request(`${origin}/api/v1/dev_fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username: "iago@zulip.com" })
    }))
    const auth = basic("iago@zulip.com", ((await login.json()) as { api_key: string }).api_key)
    const call = async (method: string, path: string, form?: Record<string, string>) => {
      const response = await handler(new Request(new URL(path, origin), {
        method,
        headers: { authorization: auth },
        ...(form === undefined ? {} : { body: new URLSearchParams(form) })
      }))
      const text = await response.text()
      if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`)
      return text
    }
    const register = async () => {
      let t = performance.now()
      const text = await call("POST", "/api/v1/register")
      const ms = performance.now() - t
      const body = JSON.parse(text) as { queue_id: string; realm_users: ReadonlyArray<unknown>; subscriptions: ReadonlyArray<unknown> }
      if (body.realm_users.length < userCount) throw new Error(`register listed ${body.realm_users.length} users`)
      t = performance.now()
      await call("DELETE", `/api/v1/events?queue_id=${encodeURIComponent(body.queue_id)}`)
      return { ms, bytes: text.length }
    }
    const me = async () => {
      const t = performance.now()
      await call("GET", "/api/v1/users/me")
      return performance.now() - t
    }
    const first = await register()
    log(`register answers ${(first.bytes / 1024).toFixed(0)} KiB`)
    for (let i = 0; i < 10; i++) {
      await register()
      await me()
    }
    const results: Array<{ register: number; me: number }> = []
    await profiled(`register-${label}`, async () => {
    for (let round = 1; round <= rounds; round++) {
      const registerTimes: Array<number> = []
      const meTimes: Array<number> = []
      for (let i = 0; i < samplesPerRound; i++) {
        registerTimes.push((await register()).ms)
        meTimes.push(await me())
      }
      const r = { register: percentile(registerTimes, 0.5), me: percentile(meTimes, 0.5) }
      results.push(r)
      log(`round ${round}: register p50 ${r.register.toFixed(2)} ms, GET /users/me p50 ${r.me.toFixed(3)} ms, ratio ${(r.register / r.me).toFixed(1)}`)
    }
    })
    await dispose()
    return results
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const metrics = (label: string, results: ReadonlyArray<{ register: number; me: number }>, log: (line: string) => void) => {
  const register = spread(results.map((r) => r.register))
  const me = spread(results.map((r) => r.me))
  const ratio = spread(results.map((r) => r.register / r.me))
  log(`${label}: register p50 ${describeSpread(register)} ms, GET /users/me p50 ${describeSpread(me, 3)} ms`)
  log(`${label}: register/users-me ${describeSpread(ratio, 1)} (target ≤ 50)`)
  return [
    { name: `${label}: POST /register p50 (ms)`, value: register.median, unit: "" },
    { name: `${label}: GET /users/me p50 (ms)`, value: me.median, unit: "" },
    { name: `${label}: register / GET /users/me (target ≤ 50)`, value: ratio.median, unit: "" },
    // The harness knows floors only: 50 / ratio must reach 1.
    { name: `${label}: 50 / (register / GET /users/me)`, value: 50 / ratio.median, unit: "" }
  ] satisfies ReadonlyArray<Metric>
}

export const registerBenchmark: Benchmark = {
  name: "register",
  description: "POST /register, 1,000 users and 200 channels, vs GET /users/me (memory, PGlite)",
  run: async (options: BenchOptions, log) => {
    log(`memory backend, ${options.rounds} rounds`)
    const memory = await measure("memory", Teamchat.layerMemory(Teamchat.layerSecretsTest), options.rounds, log)
    if (process.env.REGISTER_BACKENDS === "memory") return metrics("memory", memory, log)
    log(`PGlite (in memory), ${options.rounds} rounds`)
    const pglite = await measure(
      "PGlite",
      Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgliteClient.layer({}))),
      options.rounds,
      log
    )
    return [...metrics("memory", memory, log), ...metrics("PGlite", pglite, log)]
  }
}
