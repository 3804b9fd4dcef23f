/**
 * User groups: "is user U allowed by setting S" and GET /user_groups for an
 * organization of 10,000 users in 1,000 groups nested 5 deep (200 chains of
 * five groups, each group the only subgroup of the one above it, each with
 * 10 direct members), beside baselines measured in the same run.
 *
 * - check: `hasGroupPermission` over the organization's group index (the
 *   one place every permission check goes through), for random users and
 *   random values (named groups at every depth, and anonymous values), next
 *   to a plain `Set.has` on member sets computed beforehand. Reported cold
 *   (the first question of a freshly built index, as after any write) and
 *   warm (the index's caches filled), each as a ratio to the baseline.
 * - list: GET /user_groups, then GET /users (every user), through the
 *   whole API (auth, parsing, the organization's state, the view, the
 *   envelope, JSON), p50, each next to `JSON.stringify` of the same body
 *   built beforehand.
 *
 * In-memory backend, requests handed to the web handler directly.
 */
import type { GroupId, UserId } from "@teamchat/core/domain/Ids"
import type { GroupSettingValue } from "@teamchat/core/domain/GroupSetting"
import { hasGroupPermission, makeGroupIndex } from "@teamchat/core/permissions/GroupMembership"
import { GroupRepo, UserRepo } from "@teamchat/core/ports/Repositories"
import { Organizations } from "@teamchat/core/services/Organizations"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { makeWebHandler } from "@teamchat/http/Http"
import type { Benchmark, Metric } from "./harness.ts"

const origin = "http://groups.bench.test:9991"
const userCount = 10_000
const chains = 200
const depth = 5
const membersPerGroup = 10
const checks = 200_000
const coldRounds = 20
const listSamples = 60

/** A small deterministic generator (mulberry32), so every run asks the same questions. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!
}

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

export const groupsBenchmark: Benchmark = {
  name: "groups",
  description: "permission checks, GET /user_groups and GET /users, 10,000 users in 1,000 groups nested 5 deep (memory)",
  run: async (_options, log) => {
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(Teamchat.layerMemory(Teamchat.layerSecretsTest), scope))
    const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(Effect.provideContext(effect, context) as Effect.Effect<A, E>)
    try {
      log(`seeding ${userCount} users and ${chains * depth} groups`)
      const next = random(20240611)
      const seeded = await run(Effect.gen(function*() {
        const { realm, owner } = yield* (yield* Organizations).create({
          string_id: "groupsbench",
          name: "Groups bench",
          url: origin,
          owner: { email: "owner@groups.bench.test", full_name: "Owner" }
        })
        // Users straight through the repository: the service's per-user
        // transaction is not what this benchmark measures.
        const userRepo = yield* UserRepo
        const ids: Array<UserId> = [owner!.id]
        for (let i = 1; i < userCount; i++) {
          const user = yield* userRepo.insert(() => ({
            ...owner!,
            email: `u${i}@groups.bench.test`,
            delivery_email: `u${i}@groups.bench.test`,
            full_name: `User ${i}`,
            role: 400,
            api_key: `benchkey${String(i).padStart(24, "0")}`
          }))
          ids.push(user.id)
        }
        const system = yield* (yield* Organizations).systemGroups(realm.id)
        for (const name of ["role:fullmembers", "role:members"] as const) yield* (yield* GroupRepo).addMembers(system[name], ids.slice(1))
        const repo = yield* GroupRepo
        const groups: Array<GroupId> = []
        for (let c = 0; c < chains; c++) {
          let below: GroupId | undefined
          for (let level = depth - 1; level >= 0; level--) {
            const group = yield* repo.insert({
              realm_id: realm.id,
              name: `chain${c}-level${level}`,
              description: "",
              is_system_group: false,
              creator_id: owner!.id,
              date_created: 0,
              deactivated: false,
              settings: {
                can_add_members_group: { direct_members: [owner!.id], direct_subgroups: [] },
                can_join_group: { direct_members: [], direct_subgroups: [] },
                can_leave_group: { direct_members: [], direct_subgroups: [] },
                can_manage_group: { direct_members: [owner!.id], direct_subgroups: [] },
                can_mention_group: { direct_members: [], direct_subgroups: [] },
                can_remove_members_group: { direct_members: [], direct_subgroups: [] }
              }
            })
            yield* repo.addMembers(group.id, Array.from({ length: membersPerGroup }, () => ids[Math.floor(next() * ids.length)]!))
            if (below !== undefined) yield* repo.addSubgroups(group.id, [below])
            groups.push(group.id)
            below = group.id
          }
        }
        return { realm, owner: owner!, groups }
      }))

      // --- check --------------------------------------------------------------
      const { allGroups, membership, usersById } = await run(Effect.gen(function*() {
        const repo = yield* GroupRepo
        const allUsers = yield* (yield* UserRepo).listByRealm(seeded.realm.id)
        return {
          allGroups: yield* repo.listByRealm(seeded.realm.id),
          membership: yield* repo.membership(seeded.realm.id),
          usersById: new Map(allUsers.map((u) => [u.id, u]))
        }
      }))
      const userList = Array.from(usersById.values())
      const values: Array<GroupSettingValue> = []
      for (let i = 0; i < 64; i++) {
        values.push(i % 4 === 3
          ? {
            direct_members: [userList[Math.floor(next() * userList.length)]!.id],
            direct_subgroups: [seeded.groups[Math.floor(next() * seeded.groups.length)]!]
          }
          : seeded.groups[Math.floor(next() * seeded.groups.length)]!)
      }
      const questions = Array.from({ length: checks }, () => ({
        user: userList[Math.floor(next() * userList.length)]!,
        value: values[Math.floor(next() * values.length)]!
      }))
      const buildIndex = () => makeGroupIndex(allGroups, membership, (id) => usersById.get(id))

      // Baseline: each value's members as a Set, computed before timing.
      const reference = buildIndex()
      const memberSets = new Map(values.map((v) => [v, new Set<number>(reference.recursiveMembersOfValue(v))]))
      const timeBaseline = () => {
        let yes = 0
        const start = process.hrtime.bigint()
        for (const q of questions) if (memberSets.get(q.value)!.has(q.user.id)) yes++
        return { ns: Number(process.hrtime.bigint() - start), yes }
      }
      const timeIndex = (index: ReturnType<typeof buildIndex>) => {
        let yes = 0
        const start = process.hrtime.bigint()
        for (const q of questions) if (hasGroupPermission(index, q.user, q.value, { allowEveryoneGroup: true })) yes++
        return { ns: Number(process.hrtime.bigint() - start), yes }
      }
      const warmIndex = buildIndex()
      timeIndex(warmIndex)
      timeBaseline()
      let baselineNs = 0
      let warmNs = 0
      for (let round = 0; round < 5; round++) {
        const b = timeBaseline()
        const w = timeIndex(warmIndex)
        if (b.yes !== w.yes) throw new Error(`check answers differ: baseline ${b.yes}, index ${w.yes}`)
        baselineNs += b.ns
        warmNs += w.ns
      }
      const perCheckBaseline = baselineNs / (5 * checks)
      const perCheckWarm = warmNs / (5 * checks)
      // Cold: a fresh index (as after any write) answering one question.
      const cold: Array<number> = []
      for (let round = 0; round < coldRounds; round++) {
        const q = questions[round]!
        const start = process.hrtime.bigint()
        hasGroupPermission(buildIndex(), q.user, q.value, { allowEveryoneGroup: true })
        cold.push(Number(process.hrtime.bigint() - start))
      }
      const coldNs = percentile(cold, 0.5)
      log(`check: baseline ${perCheckBaseline.toFixed(1)} ns, warm ${perCheckWarm.toFixed(1)} ns, cold p50 ${(coldNs / 1e6).toFixed(2)} ms`)

      // --- list ---------------------------------------------------------------
      const { handler, dispose } = makeWebHandler(Layer.succeedContext(context), { demo: false, rateLimit: false })
      const owner = await run(Effect.map(UserRepo.use((r) => r.findById(seeded.owner.id)), (u) => u!))
      const authorization = basic(owner.email, owner.api_key)
      /** An endpoint's p50 beside JSON.stringify of its body, alternating. */
      const measureList = async (path: string, check: (body: Record<string, ReadonlyArray<unknown>>) => void) => {
        const get = async () => {
          const response = await handler(new Request(`${origin}${path}`, { headers: { authorization } }))
          const text = await response.text()
          if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text.slice(0, 200)}`)
          return text
        }
        const body = JSON.parse(await get()) as Record<string, ReadonlyArray<unknown>>
        check(body)
        const times: Array<number> = []
        const serializeTimes: Array<number> = []
        for (let i = 0; i < listSamples; i++) {
          let start = process.hrtime.bigint()
          await get()
          times.push(Number(process.hrtime.bigint() - start))
          start = process.hrtime.bigint()
          JSON.stringify(body)
          serializeTimes.push(Number(process.hrtime.bigint() - start))
        }
        const p50 = percentile(times, 0.5)
        const serializeP50 = percentile(serializeTimes, 0.5)
        log(`GET ${path}: p50 ${(p50 / 1e6).toFixed(2)} ms, JSON.stringify of the body p50 ${(serializeP50 / 1e6).toFixed(2)} ms`)
        return { p50, serializeP50 }
      }
      const groupList = await measureList("/api/v1/user_groups", (body) => {
        if (body.user_groups?.length !== chains * depth + 8) throw new Error(`listed ${body.user_groups?.length} groups`)
      })
      // Every user, as bots and API clients ask (the apps read them from POST /register).
      const people = await measureList("/api/v1/users", (body) => {
        if (body.members?.length !== userCount) throw new Error(`listed ${body.members?.length} users`)
      })
      await dispose()
      return [
        { name: "check warm, ns per check", value: perCheckWarm, unit: "ns" },
        { name: "check baseline (Set.has), ns per check", value: perCheckBaseline, unit: "ns" },
        { name: "check warm / baseline", value: perCheckWarm / perCheckBaseline, unit: "" },
        { name: "check cold (fresh index, first question) p50", value: coldNs / 1000, unit: "µs" },
        { name: "check cold / baseline", value: coldNs / perCheckBaseline, unit: "" },
        { name: "GET /user_groups p50", value: groupList.p50 / 1000, unit: "µs" },
        { name: "JSON.stringify of the same body p50", value: groupList.serializeP50 / 1000, unit: "µs" },
        { name: "GET /user_groups / JSON.stringify", value: groupList.p50 / groupList.serializeP50, unit: "" },
        { name: "GET /users p50", value: people.p50 / 1000, unit: "µs" },
        { name: "JSON.stringify of the same body p50 (users)", value: people.serializeP50 / 1000, unit: "µs" },
        { name: "GET /users / JSON.stringify", value: people.p50 / people.serializeP50, unit: "" }
      ] satisfies ReadonlyArray<Metric>
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}
