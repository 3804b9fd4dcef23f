/**
 * Recursive group membership through the service, on random group graphs,
 * on every backend: groups are made with `UserGroups.create`, nested by
 * random subgroup additions (some of which would close a cycle and must be
 * refused), some members are deactivated, and then every group's recursive
 * and direct members, recursive subgroups and `isMember` answers must equal
 * a reference computed here from the generated graph, on memory, PGlite and
 * PostgreSQL alike (so the three backends agree with each other).
 *
 * Samples come from the shared property seed (`TEAMCHAT_PROPERTY_SEED`);
 * the test also counts how many samples reached nested groups and refused
 * cycles, so a generator that stops producing them fails.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { GroupId, UserId } from "../../src/domain/Ids.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import { UserGroups } from "../../src/services/UserGroups.ts"
import { Users } from "../../src/services/Users.ts"
import { backends, makeOrg, unique } from "../events/fixtures.ts"
import { assertPassed, checkOptions } from "../support/Properties.ts"

const USERS = 6
const GROUPS = 7
const RUNS = 8

const intBetween = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))
const bool = Arbitrary.schema(Schema.Boolean)

/** A graph over indices: users 0..USERS-1, groups 0..GROUPS-1. */
interface Graph {
  readonly members: ReadonlyArray<readonly [group: number, user: number]>
  /** Subgroup additions in order; some close a cycle and must be refused. */
  readonly edges: ReadonlyArray<readonly [group: number, subgroup: number]>
  readonly deactivated: ReadonlyArray<boolean>
}

const graphArb: Arbitrary.Arbitrary<Graph> = Arbitrary.all({
  members: Arbitrary.array(Arbitrary.all([intBetween(0, GROUPS - 1), intBetween(0, USERS - 1)]), { maxLength: 14 }),
  edges: Arbitrary.array(Arbitrary.all([intBetween(0, GROUPS - 1), intBetween(0, GROUPS - 1)]), { minLength: 3, maxLength: 14 }),
  deactivated: Arbitrary.array(bool, { minLength: USERS, maxLength: USERS })
})

/** Reference: what the graph means, by plain set arithmetic over the accepted edges. */
const reachable = (edges: ReadonlyMap<number, ReadonlySet<number>>, from: number): Set<number> => {
  const seen = new Set<number>([from])
  let grown = true
  while (grown) {
    grown = false
    for (const group of Array.from(seen)) {
      for (const sub of edges.get(group) ?? []) {
        if (!seen.has(sub)) {
          seen.add(sub)
          grown = true
        }
      }
    }
  }
  return seen
}

interface Observed {
  readonly refused: ReadonlyArray<boolean>
  readonly recursive: ReadonlyArray<ReadonlyArray<number>>
  readonly direct: ReadonlyArray<ReadonlyArray<number>>
  readonly subgroups: ReadonlyArray<ReadonlyArray<number>>
  readonly isMember: ReadonlyArray<ReadonlyArray<boolean>>
}

/** Builds the graph through the service and reads it back, as indices. */
const observe = (graph: Graph) =>
  Effect.gen(function*() {
    const org = yield* makeOrg
    const users = yield* Users
    const groups = yield* UserGroups
    const owner: Principal = org.owner
    const people = yield* Effect.forEach(
      Array.from({ length: USERS }, (_, i) => i),
      (i) => users.create(org.realm.id, { email: `p${i}@${org.realm.string_id}.test`, full_name: `P${i}`, role: 400 })
    )
    const ids: Array<GroupId> = []
    for (let g = 0; g < GROUPS; g++) {
      const members = Array.from(new Set(graph.members.filter(([group]) => group === g).map(([, u]) => people[u]!.id)))
      ids.push(yield* groups.create(owner, { name: unique("g"), description: "", members }))
    }
    const refused: Array<boolean> = []
    for (const [g, s] of graph.edges) {
      const result = yield* Effect.result(groups.updateSubgroups(owner, ids[g]!, { add: [ids[s]!] }))
      if (result._tag === "Success") refused.push(false)
      else {
        // Already a subgroup, or a cycle: both are refusals of the reference too.
        assert.include(["SubgroupCycle", "SubgroupAlreadyMember"], result.failure._tag)
        refused.push(true)
      }
    }
    for (let u = 0; u < USERS; u++) if (graph.deactivated[u]) yield* users.deactivate(people[u]!.id)
    const userIndex = new Map<number, number>(people.map((p, i) => [p.id, i]))
    const groupIndex = new Map<number, number>(ids.map((id, i) => [id, i]))
    const toUsers = (list: ReadonlyArray<UserId>) => list.map((id) => userIndex.get(id)!).sort((a, b) => a - b)
    const recursive: Array<ReadonlyArray<number>> = []
    const direct: Array<ReadonlyArray<number>> = []
    const subgroups: Array<ReadonlyArray<number>> = []
    const isMember: Array<ReadonlyArray<boolean>> = []
    for (const id of ids) {
      recursive.push(toUsers(yield* groups.members(owner, id, { directOnly: false })))
      direct.push(toUsers(yield* groups.members(owner, id, { directOnly: true })))
      subgroups.push((yield* groups.subgroups(owner, id, { directOnly: false })).map((s) => groupIndex.get(s)!).sort((a, b) => a - b))
      const row: Array<boolean> = []
      for (let u = 0; u < USERS; u++) {
        if (graph.deactivated[u]) continue
        row.push(yield* groups.isMember(owner, id, people[u]!.id, { directOnly: false }))
      }
      isMember.push(row)
    }
    return { refused, recursive, direct, subgroups, isMember } satisfies Observed
  })

/** The reference answer for a graph. */
const expected = (graph: Graph): Observed & { readonly depth: number } => {
  const edges = new Map<number, Set<number>>()
  const refused: Array<boolean> = []
  for (const [g, s] of graph.edges) {
    const already = edges.get(g)?.has(s) === true
    const cycle = reachable(edges, s).has(g)
    refused.push(already || cycle)
    if (!already && !cycle) edges.set(g, (edges.get(g) ?? new Set()).add(s))
  }
  const active = (u: number) => !graph.deactivated[u]
  const directOf = (g: number) =>
    Array.from(new Set(graph.members.filter(([group, u]) => group === g && active(u)).map(([, u]) => u))).sort((a, b) => a - b)
  const recursive: Array<ReadonlyArray<number>> = []
  const direct: Array<ReadonlyArray<number>> = []
  const subgroups: Array<ReadonlyArray<number>> = []
  const isMember: Array<ReadonlyArray<boolean>> = []
  let depth = 0
  for (let g = 0; g < GROUPS; g++) {
    const below = reachable(edges, g)
    const all = new Set<number>()
    for (const b of below) for (const u of directOf(b)) all.add(u)
    recursive.push(Array.from(all).sort((a, b) => a - b))
    direct.push(directOf(g))
    subgroups.push(Array.from(below).filter((b) => b !== g).sort((a, b) => a - b))
    isMember.push(Array.from({ length: USERS }, (_, u) => u).filter(active).map((u) => all.has(u)))
    // Depth: the longest chain of subgroups below g (the graph is acyclic).
    const longest = (from: number): number => Math.max(0, ...Array.from(edges.get(from) ?? []).map((s) => 1 + longest(s)))
    depth = Math.max(depth, longest(g))
  }
  return { refused, recursive, direct, subgroups, isMember, depth }
}

const checkBackend = (name: keyof typeof backends) =>
  it.effect(`${name}: recursive membership equals the reference on random group graphs`, () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(backends[name]())
      const reached = { nested: 0, refusedEdge: 0 }
      const result = yield* Arbitrary.checkEffect(
        graphArb,
        (graph) =>
          Effect.map(Effect.provideContext(observe(graph), context), (observed) => {
            const { depth, ...reference } = expected(graph)
            if (JSON.stringify(observed) !== JSON.stringify(reference)) return false
            if (depth >= 2) reached.nested++
            if (reference.refused.some((r) => r)) reached.refusedEdge++
            return true
          }),
        checkOptions(RUNS)
      )
      assertPassed(result)
      assert.isAtLeast(reached.nested, 3, `samples with groups nested 2 deep: ${JSON.stringify(reached)}`)
      assert.isAtLeast(reached.refusedEdge, 3, `samples with a refused subgroup: ${JSON.stringify(reached)}`)
    }).pipe(Effect.scoped), { timeout: 240_000 })

describe("recursive group membership on every backend", () => {
  checkBackend("memory")
  checkBackend("PGlite")
  checkBackend("PostgreSQL")
})
