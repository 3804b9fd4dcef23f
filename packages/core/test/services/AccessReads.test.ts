/**
 * The organization's access state is read once per request: a send after
 * authentication reuses the read authentication found current, instead of
 * checking the organization's access version again (on PostgreSQL, one
 * query per send). A GET /messages authenticated with the check deferred
 * (`AccessCache.deferrable`, PostgreSQL) reads it in its search instead, and
 * answers afresh when it moved; a POST /messages checks it in its write,
 * which writes nothing when it moved. Asking for the version costs no
 * statement while the process hears the database's access notices: an
 * authenticated request answered from the kept read sends none (on
 * PostgreSQL it sent the version read until the notices were pushed).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { RealmId } from "../../src/domain/Ids.ts"
import type { Principal } from "../../src/domain/Principal.ts"
import { AccessCache } from "../../src/ports/AccessCache.ts"
import * as Persistence from "../../src/Persistence.ts"
import { Authentication } from "../../src/services/Authentication.ts"
import { Messages } from "../../src/services/Messages.ts"
import type { FetchRequest } from "../../src/services/Messages.ts"
import { ChannelRepo, GroupRepo, RealmRepo, UserRepo } from "../../src/ports/Repositories.ts"
import { Channels, defaultListChannelsOptions } from "../../src/services/Channels.ts"
import { UserGroups } from "../../src/services/UserGroups.ts"
import { Register } from "../../src/services/Register.ts"
import { Subscriptions } from "../../src/services/Subscriptions.ts"
import { Users } from "../../src/services/Users.ts"
import * as SqlAccessCache from "../../src/sql/SqlAccessCache.ts"
import { AccessNotices } from "../../src/sql/SqlAccessCache.ts"
import * as Teamchat from "../../src/Teamchat.ts"
import * as CheckedEvents from "../../src/testing/CheckedEvents.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { makeOrg } from "../events/fixtures.ts"
import { statementsOf } from "../support/Statements.ts"

/** How many times the services asked for an organization's access version (kept or verified). */
class VersionReads extends Context.Service<VersionReads, { count: number }>()("test/VersionReads") {}

/** How many times the services listed an organization's groups (part of every read of its state, and of its system groups). */
class GroupReads extends Context.Service<GroupReads, { count: number }>()("test/GroupReads") {}

/** `f`, counting each run of its effect in `counter`. */
const counted = <Args extends ReadonlyArray<unknown>, A, E, R>(
  f: (...args: Args) => Effect.Effect<A, E, R>,
  counter: { count: number }
) =>
(...args: Args) =>
  Effect.suspend(() => {
    counter.count++
    return f(...args)
  })

/** The SQL AccessCache, counting version reads. */
const countingCache = Layer.effect(
  AccessCache,
  Effect.gen(function*() {
    const inner = yield* AccessCache
    const reads = yield* VersionReads
    return AccessCache.of({ ...inner, version: counted(inner.version, reads), verify: counted(inner.verify, reads) })
  })
).pipe(Layer.provide(SqlAccessCache.layer), Layer.provideMerge(Layer.sync(VersionReads, () => ({ count: 0 }))))

/** The SQL GroupRepo, counting group lists. */
const countingGroups = Layer.effect(
  GroupRepo,
  Effect.gen(function*() {
    const inner = yield* GroupRepo
    return GroupRepo.of({ ...inner, listByRealm: counted(inner.listByRealm, yield* GroupReads) })
  })
).pipe(Layer.provideMerge(Layer.sync(GroupReads, () => ({ count: 0 }))))

const stack = <E>(database: Layer.Layer<SqlClient.SqlClient, E>) =>
  Teamchat.layerServices.pipe(
    Layer.provideMerge(CheckedEvents.layer),
    Layer.provideMerge(countingGroups),
    Layer.provideMerge(countingCache),
    Layer.provideMerge(Persistence.layerSql),
    Layer.provide(Teamchat.layerSecretsTest),
    Layer.provideMerge(database)
  )

const backends = {
  PGlite: () => stack(TestDatabase.pgliteMigratedLayer()),
  PostgreSQL: () => stack(TestDatabase.postgresLayer())
}

for (const [name, make] of Object.entries(backends)) {
  describe(`access reads on ${name}`, () => {
    layer(make(), { timeout: "120 seconds" })((it) => {
      it.effect("an authenticated send reads the access version once: at authentication", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const messages = yield* Messages
          const reads = yield* VersionReads
          const member = org.member.user
          const sendAs = Effect.gen(function*() {
            const principal = yield* auth.basic(member.delivery_email, member.api_key)
            return yield* messages.send(principal, { type: "private", to: [org.other.user.id], content: "hello" })
          })
          // The first request finds the key in the database and reads the organization.
          yield* sendAs
          const before = reads.count
          const sent = yield* sendAs
          assert.strictEqual(reads.count - before, 1)
          assert.strictEqual(sent.message.sender_id, member.id)
          assert.strictEqual(sent.message.content, "hello")
          // A principal not made by authentication is read as before.
          const again = reads.count
          yield* messages.send(org.member, { type: "private", to: [org.other.user.id], content: "again" })
          assert.strictEqual(reads.count - again, 1)
        }))

      it.effect("an authenticated request answered from the kept read sends no statement, and one write later reads the version once", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const users = yield* Users
          const member = org.member.user
          const request = Effect.flatMap(
            auth.basic(member.delivery_email, member.api_key),
            (principal) => users.getById(principal, org.other.user.id, { clientGravatar: false, includeCustomProfileFields: false })
          )
          const notices = yield* AccessNotices
          yield* notices.whenListening
          // The notices of the organization's creation may still be on their way (on a loaded
          // machine): a notice sent after them arrives after them, as notices come in commit order.
          const sentinel = RealmId.make(999_999)
          const settled = yield* notices.nextNotice(sentinel)
          yield* (yield* SqlClient.SqlClient)`SELECT pg_notify('teamchat_access', ${String(sentinel)})`
          yield* settled
          // The first request finds the key in the database and reads the organization.
          yield* request
          const kept = yield* statementsOf(request)
          assert.deepStrictEqual(kept.statements, [])
          assert.strictEqual(kept.result.full_name, "Other")
          // A write of this process: the next request reads the version, then the organization, once.
          // (Its notice, heard too, comes back asynchronously: waited for, so it does not drop the new read.)
          const heard = yield* notices.nextNotice(org.realm.id)
          yield* users.administer(org.admin, org.other.user.id, { full_name: "Renamed" })
          yield* heard
          const after = yield* statementsOf(request)
          assert.strictEqual(after.result.full_name, "Renamed")
          assert.strictEqual(after.statements[0], `SELECT version FROM access_versions WHERE realm_id = ${org.realm.id}`)
          assert.deepStrictEqual((yield* statementsOf(request)).statements, [])
        }))

      it.effect("a refusal made from a kept read is checked against the database: a change whose notice has not come is seen", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const users = yield* Users
          const sql = yield* SqlClient.SqlClient
          const member = org.member.user
          const viewOther = (principal: Principal) =>
            users.getById(principal, org.other.user.id, { clientGravatar: false, includeCustomProfileFields: false })
          const notices = yield* AccessNotices
          yield* notices.whenListening
          // The notices of the organization's creation first (a sentinel notice comes after them).
          const settled = yield* notices.nextNotice(RealmId.make(999_999))
          yield* sql`SELECT pg_notify('teamchat_access', '999999')`
          yield* settled
          yield* Effect.flatMap(auth.basic(member.delivery_email, member.api_key), viewOther)
          const kept = yield* statementsOf(auth.basic(member.delivery_email, member.api_key))
          assert.deepStrictEqual(kept.statements, []) // from the kept read
          assert.isFalse(yield* auth.refusalIsStale(kept.result))
          // Another process's change whose notice is still on its way: written with the triggers off,
          // the version moved by hand (no notice is sent).
          yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`SET LOCAL session_replication_role = replica`
            yield* sql`UPDATE users SET full_name = 'Renamed elsewhere' WHERE id = ${org.other.user.id}`
            yield* sql`UPDATE access_versions SET version = nextval('access_version_seq') WHERE realm_id = ${org.realm.id}`
          }))
          // Without a notice the kept read still answers...
          const stale = yield* auth.basic(member.delivery_email, member.api_key)
          assert.strictEqual((yield* viewOther(stale)).full_name, "Other")
          // ...but a refusal made from it is found stale, and the next authentication reads afresh.
          assert.isTrue(yield* auth.refusalIsStale(stale))
          const fresh = yield* auth.basic(member.delivery_email, member.api_key)
          assert.strictEqual((yield* viewOther(fresh)).full_name, "Renamed elsewhere")
          assert.isFalse(yield* auth.refusalIsStale(fresh))
        }))

      it.effect("GET /user_groups and a group's member and subgroup reads answer from the read authentication found current", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const groups = yield* UserGroups
          const reads = yield* GroupReads
          const member = org.member.user
          const authenticate = auth.basic(member.delivery_email, member.api_key)
          const readAll = (principal: Principal) =>
            Effect.gen(function*() {
              const listed = yield* groups.list(principal, { includeDeactivated: false })
              const team = listed.find((g) => g.name === "team")
              const members = team === undefined ? [] : yield* groups.members(principal, team.id, { directOnly: true })
              const everyone = listed.find((g) => g.name === "role:everyone")!
              return {
                names: listed.map((g) => g.name).filter((n) => !n.startsWith("role:")),
                members,
                isMember: yield* groups.isMember(principal, everyone.id, member.id, { directOnly: false }),
                subgroups: yield* groups.subgroups(principal, everyone.id, { directOnly: true })
              }
            })

          // The first request reads the organization: authentication keeps it.
          const first = yield* authenticate
          const before = reads.count
          const answered = yield* readAll(first)
          assert.strictEqual(reads.count - before, 0)
          assert.deepStrictEqual(answered.names, [])
          assert.isTrue(answered.isMember)
          assert.isAbove(answered.subgroups.length, 0)

          // A write moves the organization's version: the next request reads it anew, once, and sees it.
          yield* groups.create(org.admin, { name: "team", description: "", members: [member.id, org.other.user.id] })
          const beforeSecond = reads.count
          const second = yield* authenticate
          const after = yield* readAll(second)
          assert.strictEqual(reads.count - beforeSecond, 1)
          assert.deepStrictEqual(after.names, ["team"])
          const ascending = (ids: ReadonlyArray<number>) => [...ids].sort((a, b) => a - b)
          assert.deepStrictEqual(ascending(after.members), ascending([member.id, org.other.user.id]))

          // Written through the repository, as another process would: only the organization's version tells.
          const team = (yield* (yield* GroupRepo).findByName(org.realm.id, "team"))!
          yield* (yield* GroupRepo).addMembers(team.id, [org.admin.user.id])
          const withAdmin = ascending([member.id, org.other.user.id, org.admin.user.id])
          // The first request after it reads the organization once; the next reads nothing.
          for (const expectedReads of [1, 0]) {
            const principal = yield* authenticate
            const beforeRead = reads.count
            const joined = yield* readAll(principal)
            assert.strictEqual(reads.count - beforeRead, expectedReads)
            assert.deepStrictEqual(ascending(joined.members), withAdmin)
          }
        }))

      it.effect("GET /users and GET /users/{id|email} answer from the kept read, and a guest sees a new channel's members after joining it", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const users = yield* Users
          const channels = yield* Channels
          const reads = yield* GroupReads
          const guest = org.guest.user
          const options = { clientGravatar: false, includeCustomProfileFields: false }
          const authenticate = auth.basic(guest.delivery_email, guest.api_key)
          // Guests see themselves, bots and whoever shares a channel with them.
          const seen = (principal: Principal) =>
            Effect.gen(function*() {
              const listed = yield* users.list(principal.realm, principal.user, options)
              const byId = yield* Effect.result(users.getById(principal, org.other.user.id, options))
              const byEmail = yield* Effect.result(users.getByEmail(principal, org.other.user.delivery_email, options))
              return {
                people: listed.filter((u) => !u.is_bot).map((u) => u.full_name).sort(),
                byId: byId._tag === "Success" ? byId.success.full_name : byId.failure._tag,
                byEmail: byEmail._tag === "Success" ? byEmail.success.full_name : byEmail.failure._tag
              }
            })

          // Only members see everybody.
          const realms = yield* RealmRepo
          const members = (yield* (yield* GroupRepo).findByName(org.realm.id, "role:members"))!
          const stored = (yield* realms.findById(org.realm.id))!
          yield* realms.update({ ...stored, settings: { ...stored.settings, can_access_all_users_group: members.id } })

          /**
           * What a request sees, and how many reads of the organization it made: after a write,
           * the first request reads it (authentication finds the key in the database), the next
           * reuses that read.
           */
          const request = Effect.gen(function*() {
            const principal = yield* authenticate
            const before = reads.count
            const answer = yield* seen(principal)
            return { answer, reads: reads.count - before }
          })

          const first = yield* request
          assert.deepStrictEqual(first.answer, { people: ["Guest"], byId: "NoSuchUser", byEmail: "NoSuchUser" })
          assert.deepStrictEqual(yield* request, { ...first, reads: 0 })

          const shared = yield* channels.create(org.realm.id, { name: "shared with the guest" })
          yield* channels.subscribe(shared.id, [guest.id, org.other.user.id])
          const joined = yield* request
          assert.deepStrictEqual(joined.answer, { people: ["Guest", "Other"], byId: "Other", byEmail: "Other" })
          assert.deepStrictEqual(yield* request, { ...joined, reads: 0 })
        }))

      it.effect("GET /streams answers from the read authentication found current, and lists a new channel with its subscribers on the next request", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const channels = yield* Channels
          const reads = yield* GroupReads
          const member = org.member.user
          const request = Effect.gen(function*() {
            const principal = yield* auth.basic(member.delivery_email, member.api_key)
            const before = reads.count
            const listed = yield* channels.list(principal, defaultListChannelsOptions)
            return {
              channels: listed.map((c) => `${c.name}: ${c.subscriber_count}`),
              reads: reads.count - before
            }
          })

          const first = yield* request
          assert.deepStrictEqual(first.channels, [])
          assert.strictEqual(first.reads, 0)
          const created = yield* channels.create(org.realm.id, { name: "listed" })
          yield* channels.subscribe(created.id, [member.id, org.other.user.id, org.guest.user.id])
          // Deactivated through the repository, as another process would: only the organization's version tells.
          const userRepo = yield* UserRepo
          yield* userRepo.update({ ...(yield* userRepo.findById(org.guest.user.id))!, is_active: false })
          // The first request after it reads the organization once; the next reads nothing.
          assert.deepStrictEqual(yield* request, { channels: ["listed: 2"], reads: 1 })
          assert.deepStrictEqual(yield* request, { channels: ["listed: 2"], reads: 0 })
        }))

      it.effect("GET /users/me/subscriptions reads only the caller's subscriptions beside the read authentication found current", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const channels = yield* Channels
          const subscriptions = yield* Subscriptions
          const reads = yield* GroupReads
          const versions = yield* VersionReads
          const member = org.member.user
          const created = yield* channels.create(org.realm.id, { name: "mine" })
          yield* channels.subscribe(created.id, [member.id, org.other.user.id])
          const request = Effect.gen(function*() {
            const principal = yield* auth.basic(member.delivery_email, member.api_key)
            const before = { groups: reads.count, versions: versions.count }
            const listed = yield* subscriptions.list(principal, { includeSubscribers: true })
            return {
              subscriptions: listed.map((s) => `${s.name}: ${s.subscribers?.length}`),
              reads: { groups: reads.count - before.groups, versions: versions.count - before.versions }
            }
          })
          // The first request after the writes finds the key in the database, and reads the organization.
          assert.deepStrictEqual((yield* request).subscriptions, ["mine: 2"])
          assert.deepStrictEqual(yield* request, { subscriptions: ["mine: 2"], reads: { groups: 0, versions: 0 } })
        }))

      it.effect("POST /register takes the organization's system groups from its access read, not from a list of its own", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const register = yield* Register
          const reads = yield* GroupReads
          const server = { zulip_version: "11.0", zulip_feature_level: 400, zulip_merge_base: "11.0", base_url: "http://localhost" }
          const registerOnce = Effect.gen(function*() {
            const before = reads.count
            const state = yield* register.register(org.member, { fetch_event_types: ["realm", "subscription"] }, server)
            return { reads: reads.count - before, policy: state.realm_can_set_delete_message_policy_group }
          })
          // The first one reads the organization (makeOrg's writes moved it); the next reuses that read.
          const first = yield* registerOnce
          const moderators = (yield* (yield* GroupRepo).findByName(org.realm.id, "role:moderators"))!
          assert.strictEqual(first.policy, moderators.id)
          assert.deepStrictEqual(yield* registerOnce, { ...first, reads: 0 })
        }))

      it.effect("a GET /messages authenticated with the check deferred reads the version in its search, and fails stale when it moved", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const messages = yield* Messages
          const channels = yield* Channels
          const reads = yield* VersionReads
          const member = org.member.user
          const channel = yield* channels.create(org.realm.id, { name: "deferred" })
          yield* channels.subscribe(channel.id, [member.id])
          const principal = yield* auth.basic(member.delivery_email, member.api_key)
          yield* messages.send(principal, { type: "stream", to: channel.id, topic: "t", content: "hello" })
          const request: FetchRequest = {
            anchor: { _tag: "newest" },
            include_anchor: true,
            num_before: 10,
            num_after: 0,
            narrow: [{ operator: "channel", operand: channel.id }],
            apply_markdown: true,
            client_gravatar: false,
            allow_empty_topic_name: false
          }
          const deferred = auth.basic(member.delivery_email, member.api_key, { deferAccessCheck: true })
          yield* messages.fetch(yield* auth.basic(member.delivery_email, member.api_key), request)
          const before = reads.count
          const first = yield* deferred
          assert.strictEqual(first.access?.unverified, name === "PostgreSQL" ? true : undefined)
          const page = yield* messages.fetchDeferred(first, request)
          assert.deepStrictEqual(page.messages.map((m) => m.display_recipient), ["deferred"])
          // PostgreSQL: no read of its own; PGlite: authentication's, which costs no statement there.
          assert.strictEqual(reads.count - before, name === "PostgreSQL" ? 0 : 1)

          // Renamed behind the services' back: the kept read is stale.
          const repo = yield* ChannelRepo
          yield* repo.update({ ...(yield* repo.findById(channel.id))!, name: "deferred, renamed" })
          const second = yield* deferred
          const result = yield* Effect.result(messages.fetchDeferred(second, request))
          if (name === "PostgreSQL") {
            assert.strictEqual(result._tag, "Failure")
            assert.strictEqual(result._tag === "Failure" ? result.failure._tag : undefined, "StaleAccess")
          }
          // Authenticated again with the check, the read is the new one.
          const again = yield* messages.fetchDeferred(yield* auth.basic(member.delivery_email, member.api_key), request)
          assert.deepStrictEqual(again.messages.map((m) => m.display_recipient), ["deferred, renamed"])
          if (name !== "PostgreSQL") {
            assert.strictEqual(result._tag, "Success")
            assert.deepStrictEqual(result._tag === "Success" ? result.success.messages.map((m) => m.display_recipient) : [], ["deferred, renamed"])
          }
        }))

      it.effect("a POST /messages authenticated with the check deferred checks the version in its write, and writes nothing when it moved", () =>
        Effect.gen(function*() {
          const org = yield* makeOrg
          const auth = yield* Authentication
          const messages = yield* Messages
          const channels = yield* Channels
          const repo = yield* ChannelRepo
          const reads = yield* VersionReads
          const member = org.member.user
          const postgres = name === "PostgreSQL"
          const channel = yield* channels.create(org.realm.id, { name: "deferred sends" })
          yield* channels.subscribe(channel.id, [member.id])
          const deferred = auth.basic(member.delivery_email, member.api_key, { deferAccessCheck: true })
          const to = (content: string, topic = "t") => ({ type: "stream", to: channel.id, topic, content } as const)
          const inTopic = Effect.gen(function*() {
            const principal = yield* auth.basic(member.delivery_email, member.api_key)
            const page = yield* messages.fetch(principal, {
              anchor: { _tag: "newest" },
              include_anchor: true,
              num_before: 20,
              num_after: 0,
              narrow: [{ operator: "channel", operand: channel.id }],
              apply_markdown: false,
              client_gravatar: false,
              allow_empty_topic_name: false
            })
            return page.messages.map((m) => m.content)
          })

          // A checked read first: the organization as it is now is kept.
          assert.deepStrictEqual(yield* inTopic, [])
          // The channel's first message updates the channel too: its version is read first.
          const before = reads.count
          const first = yield* deferred
          assert.strictEqual(first.access?.unverified, postgres ? true : undefined)
          yield* messages.sendDeferred(first, to("first"))
          // PostgreSQL: the send's; PGlite: authentication's, which costs no statement there.
          assert.strictEqual(reads.count - before, 1)
          // Which moved the version (the channel's first message id): read again, checked.
          assert.deepStrictEqual(yield* inTopic, ["first"])
          // Any later one: no read at all on PostgreSQL.
          const beforeSecond = reads.count
          const second = yield* deferred
          const sent = yield* messages.sendDeferred(second, to("second"))
          assert.strictEqual(reads.count - beforeSecond, postgres ? 0 : 1)
          assert.strictEqual(sent.message.content, "second")
          // A refusal with the version unchanged is the refusal (the version read to tell).
          const refused = yield* Effect.flip(messages.sendDeferred(yield* deferred, { ...to("x"), to: 999_999 }))
          assert.strictEqual(refused._tag, "StreamDoesNotExist")

          // Renamed behind the services' back: the kept read is stale.
          const stored = (yield* repo.findById(channel.id))!
          yield* repo.update({ ...stored, name: "deferred sends, renamed" })
          const stale = yield* deferred
          const result = yield* Effect.result(messages.sendDeferred(stale, to("stale")))
          // And a refusal the stale read may have caused is stale too.
          const staleRefusal = yield* Effect.result(messages.sendDeferred(stale, { ...to("x"), to: 999_999 }))
          if (postgres) {
            assert.strictEqual(result._tag === "Failure" ? result.failure._tag : result._tag, "StaleAccess")
            assert.strictEqual(staleRefusal._tag === "Failure" ? staleRefusal.failure._tag : staleRefusal._tag, "StaleAccess")
            assert.deepStrictEqual(yield* inTopic, ["first", "second"])
          } else {
            assert.strictEqual(result._tag, "Success")
            assert.strictEqual(staleRefusal._tag === "Failure" ? staleRefusal.failure._tag : staleRefusal._tag, "StreamDoesNotExist")
            assert.deepStrictEqual(yield* inTopic, ["first", "second", "stale"])
          }
          // Authenticated again with the check, the send goes through.
          yield* messages.sendDeferred(yield* auth.basic(member.delivery_email, member.api_key), to("again"))
          assert.strictEqual((yield* inTopic).at(-1), "again")
        }))
    })
  })
}
