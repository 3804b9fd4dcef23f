/**
 * What every area of the service contract shares: unique names, organizations
 * and users made through the services, the exact-failure check, and the
 * group and view helpers.
 */
import { assert } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"
import type { RealmId, UserId } from "../../../src/domain/Ids.ts"
import type { Realm, RealmSettings } from "../../../src/domain/Realm.ts"
import type { Role } from "../../../src/domain/Role.ts"
import type { User } from "../../../src/domain/User.ts"
import { makeGroupIndex } from "../../../src/permissions/GroupMembership.ts"
import { GroupRepo, RealmRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import type { ListChannelsOptions } from "../../../src/services/Channels.ts"
import { Organizations } from "../../../src/services/Organizations.ts"
import type { NewOrganization, SystemGroupIds } from "../../../src/services/Organizations.ts"
import { Users } from "../../../src/services/Users.ts"
import type { Principal } from "../../../src/domain/Principal.ts"
import type { NewUser } from "../../../src/services/Users.ts"
import type { ApiUser, ViewOptions } from "../../../src/views/UserView.ts"


let counter = 0
/** A value no other test (of any backend in this process) uses; valid as a string_id. */
export const unique = (prefix: string): string => `${prefix}${process.pid % 10000}-${++counter}`

export const plain: ViewOptions = { clientGravatar: false, includeCustomProfileFields: false }
export const gravatar: ViewOptions = { clientGravatar: true, includeCustomProfileFields: false }

export const day = 24 * 60 * 60 * 1000
/** 2024-01-15T10:30:00.123Z */
export const T0 = Date.UTC(2024, 0, 15, 10, 30, 0, 123)

/** Every GET /streams flag off except exclude_archived; tests turn on what they exercise. */
export const only = (flags: Partial<ListChannelsOptions>): ListChannelsOptions => ({
  include_public: false,
  include_web_public: false,
  include_subscribed: false,
  exclude_archived: true,
  include_all: false,
  include_default: false,
  include_owner_subscribed: false,
  include_can_access_content: false,
  ...flags
})

export class Rollback extends Data.TaggedError("Rollback")<{ readonly user: User }> {}

export interface ZulipFailure {
  readonly _tag: string
  readonly msg: string
}

/**
 * Runs `effect`, expecting it to fail with `tag` and the exact message `msg`;
 * returns the error. `label` names the case in a table of cases.
 */
export const fails = <A, E extends ZulipFailure, R>(
  effect: Effect.Effect<A, E, R>,
  tag: string,
  msg: string,
  label?: string
) =>
  Effect.flip(effect).pipe(Effect.tap((error) =>
    Effect.sync(() => {
      assert.strictEqual(error._tag, tag, label)
      assert.strictEqual(error.msg, msg, label)
    })
  ))

export const gravatarUrl = (email: string, version = 1) =>
  `https://secure.gravatar.com/avatar/${
    createHash("md5").update(email.toLowerCase()).digest("hex")
  }?d=identicon&version=${version}`

export interface Org {
  readonly realm: Realm
  readonly owner: User
  readonly groups: SystemGroupIds
  /** Domain of this organization's real addresses. */
  readonly domain: string
}

export const makeOrg = (overrides: Partial<NewOrganization> = {}) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const id = unique("org")
    const domain = `${id}.test`
    const { owner, realm } = yield* organizations.create({
      string_id: id,
      name: `Organization ${id}`,
      url: `http://${id}.chat.test:9991`,
      owner: { email: `owner@${domain}`, full_name: "Owner", password: "owner-secret", timezone: "UTC" },
      ...overrides
    })
    const groups = yield* organizations.systemGroups(realm.id)
    return { realm, owner: owner!, groups, domain } satisfies Org
  })

/** Overrides of the defaults below; an `undefined` value removes the field. */
export type UserOverrides = { readonly [K in keyof NewUser]?: NewUser[K] | undefined }

export const addUser = (org: Org, role: Role, overrides: UserOverrides = {}) =>
  Users.use((users) => {
    const input: Record<string, unknown> = {
      email: `${unique("u")}@${org.domain}`,
      full_name: `Person ${role}`,
      role,
      password: "pw",
      ...overrides
    }
    for (const key of Object.keys(input)) if (input[key] === undefined) delete input[key]
    return users.create(org.realm.id, input as unknown as NewUser)
  })

export const addBot = (org: Org, owner: User, overrides: UserOverrides = {}) =>
  addUser(org, 400, { full_name: "Some Bot", bot: { bot_type: 1, owner_id: owner.id }, password: undefined, ...overrides })

/** The current state of a user and its organization, as an authenticated request would see it. */
export const principal = (user: User) =>
  Effect.gen(function*() {
    const fresh = yield* (yield* UserRepo).findById(user.id)
    const realm = yield* (yield* RealmRepo).findById(user.realm_id)
    return { user: fresh!, realm: realm! } satisfies Principal
  })

export const updateRealmSettings = (realmId: RealmId, settings: Partial<RealmSettings>) =>
  Effect.gen(function*() {
    const realms = yield* RealmRepo
    const realm = (yield* realms.findById(realmId))!
    yield* realms.update({ ...realm, settings: { ...realm.settings, ...settings } })
  })

/** Names of the groups the user is a direct member of, in group id order. */
export const directGroups = (realmId: RealmId, user: UserId) =>
  Effect.gen(function*() {
    const groups = yield* GroupRepo
    const all = yield* groups.listByRealm(realmId)
    const membership = yield* groups.membership(realmId)
    return all.filter((g) => membership.members.get(g.id)?.has(user) === true).map((g) => g.name)
  })

/** Names of the groups the user belongs to recursively (active users only), in group id order. */
export const recursiveGroups = (realmId: RealmId, user: UserId) =>
  Effect.gen(function*() {
    const groups = yield* GroupRepo
    const all = yield* groups.listByRealm(realmId)
    const membership = yield* groups.membership(realmId)
    const users = new Map((yield* (yield* UserRepo).listByRealm(realmId)).map((u) => [u.id, u]))
    const index = makeGroupIndex(all, membership, (id) => users.get(id))
    const names = new Map(all.map((g) => [g.id, g.name]))
    return index.membershipGroups(user).map((id) => names.get(id)!)
  })

export const names = (channels: ReadonlyArray<{ readonly name: string }>) => channels.map((c) => c.name)
export const userIds = (members: ReadonlyArray<ApiUser>) => members.map((m) => m.user_id)

/**
 * A TestClock of the test's own. The blocks' layers run with the live clock
 * (`excludeTestServices`), so background fibers such as the event queues'
 * garbage collector never see the time jumps tests make here.
 */
export const withTestClock = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, TestClock.layer())
