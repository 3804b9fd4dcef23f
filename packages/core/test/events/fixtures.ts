/**
 * Shared setup of the event tests: the whole core over a persistence layer,
 * and helpers that create an organization with a few users.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Realm } from "../../src/domain/Realm.ts"
import type { Role } from "../../src/domain/Role.ts"
import type { User } from "../../src/domain/User.ts"
import { EventQueues } from "../../src/services/events/EventQueues.ts"
import type { GetEventsParams, RegisterQueueParams } from "../../src/services/events/EventQueues.ts"
import * as Persistence from "../../src/Persistence.ts"
import * as CheckedEvents from "../../src/testing/CheckedEvents.ts"
import { Organizations } from "../../src/services/Organizations.ts"
import { Users } from "../../src/services/Users.ts"
import type { ClientEvent } from "../../src/domain/Event.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

/** Every core service over the given persistence (test secrets), every published event checked against its schema. */
export const core = <E, R>(persistence: Layer.Layer<Persistence.Persistence, E, R>) =>
  CheckedEvents.layerServices(persistence)

export const backends = {
  memory: () => core(Persistence.layerMemory),
  PGlite: () => core(Persistence.layerSql.pipe(Layer.provide(TestDatabase.pgliteMigratedLayer()))),
  PostgreSQL: () => core(Persistence.layerSql.pipe(Layer.provide(TestDatabase.postgresLayer())))
}

let counter = 0
export const unique = (prefix: string) => `${prefix}${process.pid % 1000}x${++counter}`

export interface Org {
  readonly realm: Realm
  readonly owner: Principal
  readonly member: Principal
  readonly other: Principal
  readonly admin: Principal
  readonly guest: Principal
}

/** A fresh organization: owner, admin, two members and a guest. */
export const makeOrg = Effect.gen(function*() {
  const organizations = yield* Organizations
  const users = yield* Users
  const id = unique("org")
  const { owner, realm } = yield* organizations.create({
    string_id: id,
    name: `Org ${id}`,
    url: `http://${id}.example.test`,
    owner: { email: `owner@${id}.test`, full_name: "Owner" }
  })
  const make = (name: string, role: Role) =>
    Effect.map(users.create(realm.id, { email: `${name}@${id}.test`, full_name: name, role }), (user: User) => ({ realm, user }))
  return {
    realm,
    owner: { realm, user: owner! },
    admin: yield* make("Admin", 200),
    member: yield* make("Member", 400),
    other: yield* make("Other", 400),
    guest: yield* make("Guest", 600)
  } satisfies Org
})

/** An event read back in a test, its fields looked up by name (a test checks those it cares about). */
export type TestEvent = ClientEvent & { readonly [key: string]: unknown }

/** The words of an `alert_words` event (undefined for any other). */
export const alertWordsOf = (event: ClientEvent): ReadonlyArray<string> | undefined =>
  event.type === "alert_words" ? event.alert_words : undefined

/** Registers a queue and returns a dont_block reader for it. */
export const openQueue = (principal: Principal, params: RegisterQueueParams = {}) =>
  Effect.gen(function*() {
    const queues = yield* EventQueues
    const queue = yield* queues.register(principal, params)
    let last = -1
    /** Everything pending, acknowledging what the previous call returned. */
    const drain = Effect.gen(function*() {
      const { events } = yield* queues.getEvents(principal, { queue_id: queue.id, last_event_id: last, dont_block: true })
      if (events.length > 0) last = events[events.length - 1]!.id
      return events as ReadonlyArray<TestEvent>
    })
    const get = (params: Omit<GetEventsParams, "queue_id">) => queues.getEvents(principal, { queue_id: queue.id, ...params })
    return { queue, drain, get }
  })

/** The events without their ids, for exact comparisons. */
export const withoutIds = (events: ReadonlyArray<{ readonly id: number }>) =>
  events.map(({ id: _id, ...rest }) => rest)
