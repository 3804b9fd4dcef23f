/**
 * The runner of the model-based equivalence of the persistence backends:
 * random command sequences (valid and invalid) run through the services on
 * the in-memory backend and on SQL (PGlite, PostgreSQL) must give the same
 * result for every command (errors included) and the same observable state
 * afterwards. Each area of commands (one file beside this one) says how its
 * commands are drawn, how each runs and what a client can observe of it.
 *
 * Every service is built with `CheckedEvents`, so each event published in a
 * run is checked against its schema; the event log each user would receive
 * is part of the compared state.
 *
 * Each SQL block keeps one database for the whole property and empties it
 * (TRUNCATE … RESTART IDENTITY) before every run, so ids restart at 1 like
 * a fresh memory database and runs are repeatable, as shrinking requires.
 * The services layer itself is rebuilt per run over that database.
 */
import { assert, layer } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import { TestClock } from "effect/testing"
import { channelId, userId } from "../../../src/domain/Ids.ts"
import type { ChannelId, GroupId, RealmId, UserId } from "../../../src/domain/Ids.ts"
import type { Principal } from "../../../src/domain/Principal.ts"
import type { Role } from "../../../src/domain/Role.ts"
import type { User } from "../../../src/domain/User.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { PushBouncer } from "../../../src/ports/PushBouncer.ts"
import { EventStore } from "../../../src/ports/EventStore.ts"
import { RealmRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { Channels } from "../../../src/services/Channels.ts"
import { Organizations } from "../../../src/services/Organizations.ts"
import { Users } from "../../../src/services/Users.ts"
import type * as Teamchat from "../../../src/Teamchat.ts"
import * as CheckedEvents from "../../../src/testing/CheckedEvents.ts"
import { checkReachingEffect } from "../../support/Properties.ts"

// -----------------------------------------------------------------------------
// what commands draw from

/** Indexes into what the run created so far; 6 and 7 name things that do not exist. */
export const Index = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 7 }))
export const RoleCode = Schema.Literals([100, 200, 300, 400, 600])
export const Indexes = Schema.Array(Index).check(Schema.isMaxLength(3))

/**
 * Indexes of the commands that should mostly succeed: what the run created
 * so far, except 5, which names a thing that does not exist (rarer than
 * Index's 6 and 7).
 */
export const Pick = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 7 }))
export const Picks = Schema.Array(Pick).check(Schema.isMaxLength(3))
export const MissingPick = 5

/** Picks from a small pool; `n` values, the first ones valid, the later ones not. */
export const Pool = (n: number) => Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: n - 1 }))

export const password = "equivalence"

/** The services and repositories a step may use. */
export type Env = Teamchat.Services | Persistence

/** What a step did: a value, an error as the client would see it, or why it was not run. */
export type Outcome = { readonly ok: unknown } | { readonly error: unknown } | { readonly skipped: string }

/** A command: a tagged struct of draw indexes. */
export interface Command {
  readonly _tag: string
  readonly [key: string]: unknown
}

/** Something an area created. */
export interface Remembered {
  readonly id: number
  readonly owner: UserId
  readonly key?: string
}

/** What an area created so far (a list it may push to). */
export const remembered = (w: World, area: string): Array<Remembered> => {
  let list = w.memo.get(area)
  if (list === undefined) w.memo.set(area, list = [])
  return list
}

/**
 * The thing at Pick `which` (5 or none yet: a missing id) and who acts on it:
 * its owner, or (`byOther` 3) someone else.
 */
export const rememberedAt = (w: World, area: string, which: number, byOther: number) => {
  const list = remembered(w, area)
  if (which === MissingPick || list.length === 0) return { id: 900_000 + which, by: w.ownerId, key: "missing" }
  const target = list[which % list.length]!
  const other = w.userIds.find((id) => id !== target.owner) ?? target.owner
  return { id: target.id, by: byOther === 3 ? other : target.owner, key: target.key ?? "missing" }
}

/** What the commands of a run refer to, and helpers to act as its users. */
export interface World {
  readonly realmId: RealmId
  readonly ownerId: UserId
  readonly systemGroups: Readonly<Record<string, GroupId>>
  readonly userIds: Array<UserId>
  readonly channelIds: Array<ChannelId>
  readonly groupIds: Array<GroupId>
  readonly messageIds: Array<number>
  readonly scheduledIds: Array<{ readonly id: number; readonly sender: UserId }>
  /** What an area remembers of its own: the ids it created, whose they are, and anything else. */
  readonly memo: Map<string, Array<Remembered>>
  /** The user or channel at an Index (6 and 7: missing). */
  readonly user: (i: number) => UserId
  readonly channel: (i: number) => ChannelId
  /** The user, channel or id at a Pick (5: missing). */
  readonly userAt: (i: number) => UserId
  readonly channelAt: (i: number) => ChannelId
  readonly pickFrom: <A extends number>(list: ReadonlyArray<A>, i: number, missing: (n: number) => A) => A
  readonly principalOf: (id: UserId) => Effect.Effect<Principal, never, Env>
  /** The caller, as authentication would let them in: an active user, or nobody. */
  readonly callerById: (id: UserId) => Effect.Effect<Principal | undefined, never, Env>
  /**
   * Runs `f` as an administrator's command: `i` below 4 is the owner, the
   * others are the user at Pick `i` (refused unless an administrator).
   */
  readonly asAdministrator: <R>(
    i: number,
    f: (principal: Principal) => Effect.Effect<Outcome, never, R>
  ) => Effect.Effect<Outcome, never, R | Env>
  /** Runs `f` as the user at Pick `i`, or skips the command when there is no such active user. */
  readonly asCaller: <R>(
    i: number,
    f: (principal: Principal) => Effect.Effect<Outcome, never, R>
  ) => Effect.Effect<Outcome, never, R | Env>
  /** Seconds since the epoch on the script's clock. */
  readonly now: Effect.Effect<number>
}

/** One area of commands. */
export interface Area {
  readonly name: string
  /** Each command's schema with how often it is drawn. */
  readonly commands: ReadonlyArray<readonly [number, Schema.Codec<any>]>
  /** Runs one of this area's commands; undefined for a command of another area. */
  readonly step: (world: World, command: Command, n: number) => Effect.Effect<Outcome, never, Env> | undefined
  /** What a client can observe of this area once the script ran, through the services' reads. */
  readonly observe?: (world: World, viewers: ReadonlyArray<Principal>) => Effect.Effect<unknown, unknown, Env>
  /**
   * The label of a successful step, counted by `reach`; undefined: not
   * counted (by default the command's tag).
   */
  readonly reached?: (command: Command, result: { readonly ok: unknown }) => string | undefined
}

export const tagOf = (schema: Schema.Codec<any>): string =>
  (schema as unknown as { fields: { _tag: { schema: { literal: string } } } }).fields._tag.schema.literal

/** A weighted choice among the areas' commands; `only` keeps some of them. */
export const weightedCommand = (areas: ReadonlyArray<Area>, only?: ReadonlySet<string>): Arbitrary.Arbitrary<Command> => {
  const table: Array<Arbitrary.Arbitrary<Command>> = []
  for (const area of areas) {
    for (const [weight, schema] of area.commands) {
      if (only !== undefined && !only.has(tagOf(schema))) continue
      const arbitrary = Arbitrary.schema(schema as Schema.Codec<Command>)
      for (let i = 0; i < weight; i++) table.push(arbitrary)
    }
  }
  // A wide range reduced modulo the table: small integer ranges are drawn
  // with their bounds favoured, which would favour the first and last command.
  return Arbitrary.flatMap(Arbitrary.schema(Pool(1_000_000)), (i) => table[i % table.length]!)
}

// -----------------------------------------------------------------------------
// the organization before the script

/** The organization's settings and what exists before the script runs. */
export const Scenario = Schema.Struct({
  email_address_visibility: Schema.Literals([1, 2, 3, 4, 5]),
  waiting_period_threshold: Pool(3),
  people: Schema.Array(RoleCode).check(Schema.isMaxLength(4)),
  rooms: Schema.Array(
    Schema.Struct({ name: Pool(8), invite_only: Schema.Boolean, is_web_public: Schema.Boolean, members: Indexes })
  )
    // At least one channel to send to (scripts may still create none of their own).
    .check(Schema.isMinLength(1), Schema.isMaxLength(3))
})
export type Scenario = typeof Scenario.Type

export const scenario = Arbitrary.schema(Scenario)

/**
 * An organization with people of every role but guest in a public channel,
 * so that most commands of a script can succeed.
 */
export const busyScenario = scenario.pipe(Arbitrary.map((s): Scenario => ({
  ...s,
  people: [...s.people, 400 as const, 600 as const].slice(0, Math.max(2, s.people.length)),
  rooms: [{ name: 3, invite_only: false, is_web_public: false, members: [0, 1, 2] }, ...s.rooms].slice(0, 3)
})))

export const channelName = (kind: number) =>
  ["general", "General", "GENERAL", "Room 0", "ünïcode", "ÜNÏCODE", "  spaced  ", "n".repeat(61)][kind]!

// -----------------------------------------------------------------------------
// running a script

interface ZulipLike {
  readonly _tag: string
  readonly wire: unknown
}

/** Password hashes are salted at random: compared by presence only. */
export const withoutHash = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutHash)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => k === "password_hash" ? [k, v !== null] : [k, withoutHash(v)])
  )
}

/** What a command did: its value, or its error as the client would see it. */
export const outcome = <A, E extends ZulipLike, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<Outcome, never, R> =>
  Effect.match(effect, {
    onSuccess: (value): Outcome => ({ ok: withoutHash(value === undefined ? null : value) }),
    onFailure: (error): Outcome => ({ error: { tag: error._tag, wire: error.wire } })
  })

/** Runs one scenario through whatever services are provided and reports everything observable. */
const runScenario = (areas: ReadonlyArray<Area>, setup: Scenario, script: ReadonlyArray<Command>) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const users = yield* Users
    const channels = yield* Channels
    const realms = yield* RealmRepo
    const userRepo = yield* UserRepo

    const { owner, realm } = yield* organizations.create({
      string_id: "equivalence",
      name: "Equivalence",
      url: "http://equivalence.test",
      settings: {
        email_address_visibility: setup.email_address_visibility,
        waiting_period_threshold: setup.waiting_period_threshold
      },
      owner: { email: "owner@equiv.test", full_name: "Owner", password, timezone: "UTC" }
    })
    const systemGroups = yield* organizations.systemGroups(realm.id)
    const userIds: Array<UserId> = [owner!.id]
    const channelIds: Array<ChannelId> = []
    const pick = <A extends number>(list: ReadonlyArray<A>, i: number, missing: (n: number) => A): A =>
      i >= 6 || list.length === 0 ? missing(900_000 + i) : list[i % list.length]!
    const pickFrom = <A extends number>(list: ReadonlyArray<A>, i: number, missing: (n: number) => A): A =>
      i === MissingPick || list.length === 0 ? missing(900_000 + i) : list[i % list.length]!
    const principalOf = (id: UserId) =>
      Effect.gen(function*() {
        const u = (yield* userRepo.findById(id))!
        return { user: u, realm: (yield* realms.findById(realm.id))! } satisfies Principal
      })
    const callerById = (id: UserId) =>
      Effect.gen(function*() {
        const found = yield* userRepo.findById(id)
        return found === undefined || !found.is_active ? undefined : yield* principalOf(found.id)
      })
    const asUser = <R>(id: UserId, f: (principal: Principal) => Effect.Effect<Outcome, never, R>) =>
      Effect.flatMap(
        callerById(id),
        (principal): Effect.Effect<Outcome, never, R> =>
          principal === undefined ? Effect.succeed({ skipped: "no such active user" }) : f(principal)
      )
    const world: World = {
      realmId: realm.id,
      ownerId: owner!.id,
      systemGroups,
      userIds,
      channelIds,
      groupIds: [systemGroups["role:members"]],
      messageIds: [],
      scheduledIds: [],
      memo: new Map(),
      user: (i) => pick(userIds, i, userId),
      channel: (i) => pick(channelIds, i, channelId),
      userAt: (i) => pickFrom(userIds, i, userId),
      channelAt: (i) => pickFrom(channelIds, i, channelId),
      pickFrom,
      principalOf,
      callerById,
      asCaller: (i, f) => asUser(pickFrom(userIds, i, userId), f),
      asAdministrator: (i, f) => asUser(i < 4 ? owner!.id : pickFrom(userIds, i, userId), f),
      now: Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))
    }

    const step = (command: Command, n: number): Effect.Effect<Outcome, never, Env> => {
      for (const area of areas) {
        const run = area.step(world, command, n)
        if (run !== undefined) return run
      }
      throw new Error(`no area runs ${command._tag}`)
    }

    const log: Array<unknown> = []
    // What exists before the script: people, then channels with members.
    for (const [i, role] of setup.people.entries()) {
      const person = yield* users.create(realm.id, {
        email: `member${i}@equiv.test`,
        full_name: `Member ${i}`,
        role: role as Role,
        password
      })
      userIds.push(person.id)
    }
    for (const room of setup.rooms) {
      const created = yield* outcome(channels.create(realm.id, {
        name: channelName(room.name),
        invite_only: room.invite_only,
        is_web_public: room.is_web_public && !room.invite_only,
        creator_id: owner!.id
      }))
      log.push(created)
      if (!("ok" in created)) continue
      const id = (created.ok as { id: ChannelId }).id
      channelIds.push(id)
      log.push(yield* outcome(channels.subscribe(id, room.members.map(world.user))))
    }
    const steps: Array<Outcome> = []
    for (const [n, command] of script.entries()) steps.push(yield* step(command, n))
    return { log: [...log, ...steps], steps, state: yield* observe(areas, world) }
  })

/** Everything a client could tell apart: the shared state, then each area's. */
const observe = (areas: ReadonlyArray<Area>, world: World) =>
  Effect.gen(function*() {
    const store = yield* EventStore
    const realm = (yield* (yield* RealmRepo).findById(world.realmId))!
    const rows = yield* (yield* UserRepo).listByRealm(world.realmId)
    const viewers = rows.filter((u: User) => u.is_active).map((user): Principal => ({ user, realm }))
    const byArea: Record<string, unknown> = {}
    for (const area of areas) {
      if (area.observe !== undefined) byArea[area.name] = yield* area.observe(world, viewers)
    }
    return {
      realm,
      users: withoutHash(rows),
      // The event log as each user would receive it (ids may differ in gaps).
      events: yield* Effect.forEach(rows, (u) =>
        Effect.map(store.read(world.realmId, u.id, 0), (events) => events.map(({ id: _id, ...event }) => event))),
      byArea
    }
  })

// -----------------------------------------------------------------------------
// backends

/**
 * A push bouncer that answers at once: a device id for an even push account,
 * the bouncer's refusal for an odd one.
 */
const bouncer = Layer.succeed(PushBouncer)({
  register: (registration) =>
    Effect.succeed(
      registration.push_account_id % 2 === 0
        ? { _tag: "Registered" as const, device_id: 1000 + registration.push_account_id }
        : { _tag: "Failed" as const, error_code: "INVALID_BOUNCER_PUBLIC_KEY" }
    )
})

/**
 * One run on a backend: the services built with the live clock (so their
 * background fibers never see the script's time jumps) and fresh (new
 * memory tables, a new key sequence), the script under a TestClock of its own.
 */
export const runOn = <E, R>(
  services: Layer.Layer<Teamchat.Services | Persistence, E, R>,
  areas: ReadonlyArray<Area>,
  setup: Scenario,
  script: ReadonlyArray<Command>
) =>
  runScenario(areas, setup, script).pipe(
    Effect.provide(TestClock.layer()),
    Effect.provide(Layer.fresh(services.pipe(Layer.provide(bouncer)))),
    Effect.orDie
  )

export const memory = () => CheckedEvents.layerMemory()
const onSql = () => CheckedEvents.layerSql()

/** Empties every table (not the migration log) and restarts the identity sequences. */
const truncateAll = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ tablename: string }>`
    SELECT tablename FROM pg_tables
    WHERE schemaname = current_schema() AND tablename NOT LIKE 'effect_sql_%'`
  if (tables.length === 0) return
  yield* sql.unsafe(`TRUNCATE TABLE ${tables.map((t) => `"${t.tablename}"`).join(", ")} RESTART IDENTITY CASCADE`)
}).pipe(Effect.orDie)

/** The labels of the successful steps of a run. */
const successes = (areas: ReadonlyArray<Area>, script: ReadonlyArray<Command>, steps: ReadonlyArray<Outcome>) => {
  const labels = new Set<string>()
  script.forEach((command, i) => {
    const result = steps[i]
    if (result === undefined || !("ok" in result)) return
    const area = areas.find((a) => a.commands.some(([, schema]) => tagOf(schema) === command._tag))
    const label = area?.reached === undefined ? command._tag : area.reached(command, result)
    if (label !== undefined) labels.add(label)
  })
  return [...labels]
}

/** A kind of script and the successes it must reach. */
export interface Scripts {
  readonly label: string
  readonly areas: ReadonlyArray<Area>
  readonly setup: Arbitrary.Arbitrary<Scenario>
  readonly script: Arbitrary.Arbitrary<ReadonlyArray<Command>>
  /** Labels of successful steps each script kind must reach, as a share of the runs (at least one run). */
  readonly reach?: { readonly labels: ReadonlyArray<string>; readonly share: number }
}

/** `TEAMCHAT_EQUIVALENCE_RUNS` overrides the number of scripts per backend, for a deeper search. */
export const runs = (fallback: number) => Number(process.env.TEAMCHAT_EQUIVALENCE_RUNS ?? fallback)

/** The property on one SQL backend: memory and it agree on every command and on the final state. */
export const equivalence = (
  name: string,
  database: () => Layer.Layer<SqlClient.SqlClient, unknown>,
  scripts: Scripts,
  runCount: number
) =>
  layer(database(), { timeout: "120 seconds", excludeTestServices: true })(name, (it) => {
    it.effect(`memory and ${name} agree on every command and on the final state (${scripts.label})`, () =>
      Effect.asVoid(checkReachingEffect(
        Arbitrary.all({ setup: scripts.setup, script: scripts.script }),
        {
          runs: runCount,
          maxShrinks: 40,
          minimum: Object.fromEntries(
            (scripts.reach?.labels ?? []).map((label) => [label, Math.max(1, Math.floor(runCount * scripts.reach!.share))])
          )
        },
        ({ script, setup }) =>
          Effect.gen(function*() {
            const expected = yield* runOn(memory(), scripts.areas, setup, script)
            yield* truncateAll
            const actual = yield* runOn(onSql(), scripts.areas, setup, script)
            assert.deepStrictEqual(actual.log, expected.log, "command results")
            assert.deepStrictEqual(actual.state, expected.state, "final state")
            return successes(scripts.areas, script, expected.steps)
          })
      )), { timeout: 600_000 })
  })
