/**
 * The event log's side of a transaction, on every backend: `append` wakes
 * waiters through `Transactor.afterCommit` (the one after-commit mechanism),
 * only once the transaction commits and never for one that rolled back; on
 * SQL, rows are stamped, and the log's grace period measured, by the Clock.
 * `read` takes exactly the window it is asked for (the memory log starts
 * it with a binary search).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Queue from "effect/Queue"
import * as SqlClient from "effect/sql/SqlClient"
import * as TestClock from "effect/testing/TestClock"
import { capabilitiesFrom, internOptions } from "../../src/domain/Event.ts"
import type { NewLoggedEvent, QueueRecord } from "../../src/domain/Event.ts"
import { realmId, userId } from "../../src/domain/Ids.ts"
import type { RealmId, UserId } from "../../src/domain/Ids.ts"
import type { Flag, Message } from "../../src/domain/Message.ts"
import { MemoryDatabase } from "../../src/memory/MemoryDatabase.ts"
import * as MemoryAccessCache from "../../src/memory/MemoryAccessCache.ts"
import * as MemoryEventStore from "../../src/memory/MemoryEventStore.ts"
import * as MemoryMessageStore from "../../src/memory/MemoryMessageStore.ts"
import * as MemoryRepositories from "../../src/memory/MemoryRepositories.ts"
import * as MemoryTransactor from "../../src/memory/MemoryTransactor.ts"
import { AccessCache } from "../../src/ports/AccessCache.ts"
import { decodeSignal, EventStore } from "../../src/ports/EventStore.ts"
import type { Signal } from "../../src/ports/EventStore.ts"
import { MessageStore } from "../../src/ports/MessageStore.ts"
import { MessageRepo } from "../../src/ports/Repositories.ts"
import type { Insert } from "../../src/ports/Repositories.ts"
import { Transactor } from "../../src/ports/Transactor.ts"
import * as Migrations from "../../src/sql/Migrations.ts"
import * as SqlAccessCache from "../../src/sql/SqlAccessCache.ts"
import * as SqlEventStore from "../../src/sql/SqlEventStore.ts"
import * as SqlMessageStore from "../../src/sql/SqlMessageStore.ts"
import * as SqlRepositories from "../../src/sql/SqlRepositories.ts"
import * as SqlTransactor from "../../src/sql/SqlTransactor.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

/** How many callbacks were registered through `Transactor.afterCommit`. */
class AfterCommitCount extends Context.Service<AfterCommitCount, { registered: number }>()("test/AfterCommitCount") {}

/** The backend's Transactor, counting what is registered with `afterCommit`. */
const countingTransactor = Layer.effect(
  Transactor,
  Effect.gen(function*() {
    const inner = yield* Transactor
    const count = yield* AfterCommitCount
    return Transactor.of({
      withTransaction: inner.withTransaction,
      beforeCommit: inner.beforeCommit,
      afterCommit: (effect) => Effect.suspend(() => {
        count.registered++
        return inner.afterCommit(effect)
      })
    })
  })
)

const counter = Layer.sync(AfterCommitCount, () => AfterCommitCount.of({ registered: 0 }))

/** An organization for the log's rows: SQL's `events.realm_id` references `realms`. */
const newRealm = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const name = `log${Math.floor(performance.now() * 1000)}`
  const [row] = yield* sql<{ id: unknown }>`
    INSERT INTO realms (string_id, name, description, url, fake_email_domain, deactivated, date_created, settings)
    VALUES (${name}, ${name}, '', ${`http://${name}.test`}, ${`${name}.test`}, false, 0, '{}'::jsonb)
    RETURNING id`
  return realmId(Number(row!.id))
}).pipe(Effect.orDie)

/** Users of `realm` to send and receive messages (SQL's `user_messages.user_id` references `users`). */
const newUsers = (realm: RealmId, count: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ids: Array<UserId> = []
    for (let i = 0; i < count; i++) {
      const email = `u${i}@${realm}.test`
      const [row] = yield* sql<{ id: unknown }>`
        INSERT INTO users (realm_id, delivery_email, email, full_name, role, is_bot, bot_type, bot_owner_id, is_active,
          timezone, avatar_source, avatar_version, date_joined, email_address_visibility, api_key, password_hash)
        VALUES (${realm}, ${email}, ${email}, ${`U${i}`}, 400, false, NULL, NULL, true, '', 'G', 1, 0, 1,
          ${`key${realm}x${i}`}, NULL)
        RETURNING id`
      ids.push(userId(Number(row!.id)))
    }
    return ids
  }).pipe(Effect.orDie)

let memoryRealms = 0

/** What the triggers of the organization's access tables do on a write to them. */
const moveAccessVersion = (realm: RealmId) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE access_versions SET version = nextval('access_version_seq') WHERE realm_id = ${realm}`
  }).pipe(Effect.orDie)

const backends = {
  memory: {
    layer: () =>
      MemoryMessageStore.layer.pipe(
        Layer.provideMerge(MemoryEventStore.layer),
        Layer.provideMerge(MemoryRepositories.messageRepo),
        Layer.provideMerge(MemoryAccessCache.layer),
        Layer.provideMerge(countingTransactor),
        Layer.provide(MemoryTransactor.layer),
        Layer.provideMerge(counter),
        Layer.provideMerge(MemoryDatabase.layer)
      ),
    // The in-memory log has no foreign keys: any fresh id.
    realm: Effect.sync(() => realmId(++memoryRealms)) as Effect.Effect<RealmId>,
    // Nor do its rows: any ids.
    users: (_realm: RealmId, count: number) =>
      Effect.succeed(Array.from({ length: count }, (_, i) => userId(i + 1))) as Effect.Effect<Array<UserId>>,
    // What a memory write to the organization's access tables does.
    moveAccessVersion: (realm: RealmId) =>
      MemoryDatabase.useSync((db) => {
        db.tables.accessVersions.set(realm, (db.tables.accessVersions.get(realm) ?? 0) + 1)
      }) as Effect.Effect<void>,
    sql: false
  },
  PGlite: {
    layer: () => sqlStack(TestDatabase.pgliteMigratedLayer()),
    realm: newRealm,
    users: newUsers,
    moveAccessVersion,
    sql: true
  },
  PostgreSQL: {
    layer: () => sqlStack(TestDatabase.postgresLayer()),
    realm: newRealm,
    users: newUsers,
    moveAccessVersion,
    sql: true
  }
}

function sqlStack<E>(database: Layer.Layer<SqlClient.SqlClient, E>) {
  const transactor = countingTransactor.pipe(Layer.provide(SqlTransactor.layer))
  return SqlMessageStore.layer.pipe(
    Layer.provideMerge(SqlEventStore.layer),
    Layer.provideMerge(SqlRepositories.messageRepo),
    Layer.provideMerge(SqlAccessCache.layer),
    Layer.provideMerge(transactor),
    Layer.provideMerge(counter),
    Layer.provide(Migrations.layer),
    Layer.provideMerge(database)
  )
}

const ping = (n: number): NewLoggedEvent => ({
  payload: { type: "alert_words", alert_words: [`w${n}`] },
  user_ids: [userId(1)],
  requires: null
})

/**
 * The signals about `realm` heard while `f` runs, read at the points `f`
 * chooses (on PostgreSQL this process also hears its own NOTIFY, later).
 */
const listening = <A, E, R>(realm: RealmId, f: (heard: ReadonlyArray<Signal>) => Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.gen(function*() {
    const heard: Array<Signal> = []
    yield* (yield* EventStore).onSignal((signal) => {
      if (signal._tag === "events" && signal.realm === realm) heard.push(signal)
    })
    return yield* f(heard)
  }))

/** Alert words `w${n}` for `to` (null: everyone). */
const note = (n: number, to: ReadonlyArray<UserId> | null): NewLoggedEvent => ({
  payload: { type: "alert_words", alert_words: [`w${n}`] },
  user_ids: to,
  requires: null
})

/** A queue of `user` (every event type, default options) read up to `cursor`. */
const queueOf = (id: string, realm: RealmId, user: UserId, cursor: number, blockedUntil: number): QueueRecord => ({
  id,
  realm_id: realm,
  user_id: user,
  options: internOptions({
    event_types: null,
    narrow: [],
    all_public_streams: false,
    client_capabilities: capabilitiesFrom(undefined),
    apply_markdown: false,
    client_gravatar: true,
    include_subscribers: "false",
    slim_presence: false
  }),
  created_at: 0,
  lifespan_secs: 600,
  last_connected: 0,
  blocked_until: blockedUntil,
  acked_id: -1,
  cursor_id: cursor,
  heartbeat_id: null
})

/** A direct message from `sender` to `to`. */
const directMessage = (realm: RealmId, sender: UserId, to: UserId, content: string): Insert<Message> => ({
  realm_id: realm,
  sender_id: sender,
  type: "private",
  channel_id: null,
  topic: "",
  dm_user_ids: [sender, to].sort((a, b) => a - b),
  content,
  rendered_content: `<p>${content}</p>`,
  date_sent: 1_700_000_000,
  client: "test",
  has_attachment: false,
  has_image: false,
  has_link: false,
  last_edit_time: null
})

/** A `message` event as a send builds it, before the message has an id. */
const messageEventOf = (user: UserId, flags: ReadonlyArray<Flag>): NewLoggedEvent => ({
  payload: {
    type: "message",
    message: {
      id: 0,
      sender_id: user,
      sender_email: "sender@example.test",
      sender_full_name: "Sender",
      sender_realm_str: "example",
      avatar_url: null,
      client: "test",
      content: "<p>hi</p>",
      content_type: "text/html",
      display_recipient: [],
      is_me_message: false,
      reactions: [],
      recipient_id: 1,
      subject: "",
      topic_links: [],
      submessages: [],
      timestamp: 0,
      type: "private"
    },
    flags,
    "~raw_content": "hi",
    "~gravatar_nullable": false
  },
  user_ids: [user],
  requires: null
})

for (const [name, backend] of Object.entries(backends)) {
  describe(`event log and transactions on ${name}`, () => {
    layer(backend.layer() as Layer.Layer<EventStore | MessageStore | MessageRepo | Transactor | AfterCommitCount | AccessCache | SqlClient.SqlClient>, {
      timeout: "120 seconds"
    })((it) => {
      it.effect("append registers its wake-up with Transactor.afterCommit and signals only after the commit", () =>
        Effect.flatMap(backend.realm, (realm) =>
          listening(realm, (heard) =>
          Effect.gen(function*() {
            const store = yield* EventStore
            const tx = yield* Transactor
            const count = yield* AfterCommitCount
            const before = count.registered
            const inside = yield* tx.withTransaction(Effect.gen(function*() {
              yield* store.append(realm, [ping(1), ping(2)])
              return heard.length
            }))
            assert.strictEqual(inside, 0, "no signal before the commit")
            assert.strictEqual(count.registered - before, 1)
            assert.deepStrictEqual(heard[0], { _tag: "events", realm, users: [1] })
            const logged = yield* store.read(realm, userId(1), 0)
            assert.deepStrictEqual(logged.map((e) => e.payload), [ping(1).payload, ping(2).payload])
          })
        )))

      it.effect("nothing is logged or signalled for a transaction that rolls back", () =>
        Effect.flatMap(backend.realm, (realm) =>
          listening(realm, (heard) =>
          Effect.gen(function*() {
            const store = yield* EventStore
            const tx = yield* Transactor
            const after = yield* store.highWaterMark(realm)
            const failed = yield* Effect.flip(tx.withTransaction(
              Effect.andThen(store.append(realm, [ping(3)]), Effect.fail("rolled back" as const))
            ))
            assert.strictEqual(failed, "rolled back")
            assert.deepStrictEqual(heard, [])
            assert.deepStrictEqual(yield* store.read(realm, userId(1), after), [])
          })
        )))

      // A send's write: 2 events go as plain VALUES on PGlite, 12 as the JSON
      // array every append of many rows uses.
      for (const count of [2, 12]) {
        it.effect(`MessageStore.send writes the message, its rows and its ${count} events at once, the events naming the new id`, () =>
          Effect.gen(function*() {
            const realm = yield* backend.realm
            const [sender, to] = yield* backend.users(realm, 2)
            return yield* listening(realm, (heard) =>
              Effect.gen(function*() {
                const store = yield* EventStore
                const messages = yield* MessageRepo
                const count_ = yield* AfterCommitCount
                const before = count_.registered
                const events = Array.from({ length: count }, (_, i) =>
                  i % 3 === 2 ? ping(i) : messageEventOf(i % 2 === 0 ? sender! : to!, i % 2 === 0 ? ["read"] : []))
                const row = directMessage(realm, sender!, to!, `hi ${count}`)
                const id = yield* (yield* MessageStore).send(realm, row, [{ user_id: sender!, flags: 1 }, { user_id: to!, flags: 0 }], events)
                assert.deepStrictEqual(yield* messages.findById(id), { ...row, id })
                assert.deepStrictEqual(
                  (yield* messages.recipients(id)).map((r) => [r.user_id, r.flags]),
                  [[sender, 1], [to, 0]].sort((a, b) => a[0]! - b[0]!)
                )
                // Events in the order given; only `message` objects get the id.
                const logged = [...(yield* store.read(realm, sender!, 0)), ...(yield* store.read(realm, to!, 0))]
                  .sort((a, b) => a.id - b.id)
                const expected = events.filter((e) => e.user_ids!.includes(sender!) || e.user_ids!.includes(to!))
                  .map((e) => e.payload.type === "message" ? { ...e.payload, message: { ...(e.payload as any).message, id } } : e.payload)
                assert.deepStrictEqual(logged.map((e) => e.payload), expected)
                assert.strictEqual(count_.registered - before, 1)
                assert.isTrue(heard.length >= 1, "waiters hear of it")
              })
            )
          }))
      }

      it.effect("MessageStore.send with an access version writes while it is current; once it moved, nothing at all (StaleAccess)", () =>
        Effect.gen(function*() {
          const realm = yield* backend.realm
          const [sender, to] = yield* backend.users(realm, 2)
          const access = yield* AccessCache
          // A fresh memory organization has no version until something writes to it.
          if ((yield* access.version(realm)) === null) yield* backend.moveAccessVersion(realm)
          const version = (yield* access.version(realm))!
          return yield* listening(realm, (heard) =>
            Effect.gen(function*() {
              const store = yield* EventStore
              const messages = yield* MessageRepo
              const rows = [{ user_id: to!, flags: 0 }]
              // Many events too: on PostgreSQL they take the form that locks and notifies.
              for (const events of [[messageEventOf(to!, [])], Array.from({ length: 12 }, () => messageEventOf(to!, []))]) {
                const row = directMessage(realm, sender!, to!, `current ${events.length}`)
                const id = yield* (yield* MessageStore).send(realm, row, rows, events, { accessVersion: version })
                assert.deepStrictEqual(yield* messages.findById(id), { ...row, id })
              }
              const logged = yield* store.read(realm, to!, 0)
              assert.strictEqual(logged.length, 13)
              const mark = yield* store.highWaterMark(realm)
              const newest = yield* messages.maxUserMessageId(to!)
              const heardBefore = heard.length
              // On PostgreSQL, what another process hears: the notices on a connection of its own.
              const pg = yield* Effect.serviceOption(PgClient.PgClient)
              const notices = Option.isSome(pg) ? yield* pg.value.listen(SqlEventStore.NotifyChannel) : undefined

              yield* backend.moveAccessVersion(realm)
              for (const events of [[messageEventOf(to!, [])], Array.from({ length: 12 }, () => messageEventOf(to!, []))]) {
                const stale = yield* Effect.flip(
                  (yield* MessageStore).send(realm, directMessage(realm, sender!, to!, "stale"), rows, events, { accessVersion: version })
                )
                assert.strictEqual(stale._tag, "StaleAccess")
              }
              assert.strictEqual(yield* store.highWaterMark(realm), mark)
              assert.deepStrictEqual(yield* store.read(realm, to!, mark), [])
              assert.strictEqual(yield* messages.maxUserMessageId(to!), newest)
              // No waiter woken for the write that did not happen: this
              // process's signals are dispatched as their writes commit.
              assert.strictEqual(heard.length, heardBefore)
              if (Option.isSome(pg) && notices !== undefined) {
                // Nor any notice sent to other processes. Notices arrive in
                // commit order: one sent after the refused writes, from
                // another connection, comes after any notice they sent.
                const sentinel: Signal = { _tag: "events", realm, users: [userId(999)] }
                yield* pg.value.notify(SqlEventStore.NotifyChannel, JSON.stringify({ r: realm, u: [999] }))
                const noticed: Array<Signal> = []
                for (;;) {
                  const signal = decodeSignal((yield* Queue.take(notices)).payload)
                  if (signal?._tag !== "events" || signal.realm !== realm) continue
                  noticed.push(signal)
                  if (signal.users?.[0] === 999) break
                }
                assert.deepStrictEqual(noticed, [sentinel])
              }
            })
          )
        }))

      it.effect("MessageStore.send in a transaction that rolls back leaves neither the message nor its events", () =>
        Effect.gen(function*() {
          const realm = yield* backend.realm
          const [sender, to] = yield* backend.users(realm, 2)
          return yield* listening(realm, (heard) =>
            Effect.gen(function*() {
              const store = yield* EventStore
              const messages = yield* MessageRepo
              const tx = yield* Transactor
              let written: number | undefined
              const failed = yield* Effect.flip(tx.withTransaction(Effect.gen(function*() {
                written = yield* (yield* MessageStore).send(realm, directMessage(realm, sender!, to!, "gone"), [
                  { user_id: to!, flags: 0 }
                ], [messageEventOf(to!, [])])
                return yield* Effect.fail("rolled back" as const)
              })))
              assert.strictEqual(failed, "rolled back")
              assert.isDefined(written)
              assert.isUndefined(yield* messages.findById(written as never))
              assert.deepStrictEqual(yield* store.read(realm, to!, 0), [])
              assert.deepStrictEqual(heard, [])
            })
          )
        }))

      if (name === "PostgreSQL") {
        it.effect("other processes hear a transaction's appends once it commits, in commit order, and never a rolled-back one", () =>
          Effect.scoped(Effect.gen(function*() {
            const store = yield* EventStore
            const tx = yield* Transactor
            const pg = yield* PgClient.PgClient
            const [first, second] = [yield* backend.realm, yield* backend.realm]
            // Another process's listener: a connection of its own.
            const notices = yield* pg.listen(SqlEventStore.NotifyChannel)
            const event = (user: number): NewLoggedEvent => ({ ...ping(user), user_ids: [userId(user)] })
            yield* Effect.flip(tx.withTransaction(Effect.andThen(store.append(first, [event(7)]), Effect.fail("rolled back"))))
            // Open while another organization's append commits: heard after it.
            yield* tx.withTransaction(Effect.gen(function*() {
              yield* store.append(first, [event(8)])
              yield* store.append(second, [event(9)])
            }).pipe(Effect.andThen(Effect.void)))
            yield* store.append(second, [event(10)])
            const heard = []
            for (let i = 0; i < 3; i++) heard.push(decodeSignal((yield* Queue.take(notices)).payload))
            assert.deepStrictEqual(heard, [
              { _tag: "events", realm: first, users: [8] },
              { _tag: "events", realm: second, users: [9] },
              { _tag: "events", realm: second, users: [10] }
            ])
          })).pipe(Effect.orDie))

        it.effect("this process hears its own appends and queue signals once, when they commit, not again by its NOTIFY", () =>
          Effect.gen(function*() {
            const realm = yield* backend.realm
            const [to] = yield* backend.users(realm, 1)
            const pg = yield* PgClient.PgClient
            return yield* Effect.scoped(Effect.gen(function*() {
              const store = yield* EventStore
              const heard: Array<Signal> = []
              const heardOther = yield* Deferred.make<void>()
              yield* store.onSignal((signal) => {
                if (signal._tag === "queue" || (signal._tag === "events" && signal.realm === realm)) heard.push(signal)
                if (signal._tag === "events" && signal.users?.[0] === 999) Deferred.doneUnsafe(heardOther, Exit.void)
              })
              yield* store.append(realm, [{ ...ping(1), user_ids: [to!] }])
              yield* (yield* MessageStore).send(realm, directMessage(realm, to!, to!, "to myself"), [{ user_id: to!, flags: 1 }], [
                messageEventOf(to!, ["read"])
              ])
              yield* store.signal({ _tag: "queue", queue: `echo-${realm}`, reason: "superseded", at: 1 })
              // Another process's notice, sent after those commits: this
              // process hears its notices in commit order, so by the time it
              // hears this one it has heard any of its own.
              const other: Signal = { _tag: "events", realm, users: [userId(999)] }
              yield* pg.notify(SqlEventStore.NotifyChannel, JSON.stringify({ r: realm, u: [999] }))
              yield* Deferred.await(heardOther)
              assert.deepStrictEqual(heard, [
                { _tag: "events", realm, users: [to] },
                { _tag: "events", realm, users: [to] },
                { _tag: "queue", queue: `echo-${realm}`, reason: "superseded", at: 1 },
                other
              ])
            }))
          }).pipe(Effect.orDie), 20_000)
        it.effect("heartbeat ids taken at once wait for an append in flight in their organization, and come after its event", () =>
          Effect.gen(function*() {
            const store = yield* EventStore
            const tx = yield* Transactor
            const sql = yield* SqlClient.SqlClient
            const [realm, other] = [yield* backend.realm, yield* backend.realm]
            const appended = yield* Deferred.make<number>()
            const gate = yield* Deferred.make<void>()
            const append = yield* Effect.forkChild(tx.withTransaction(Effect.gen(function*() {
              yield* store.append(realm, [note(30, null)])
              yield* Deferred.succeed(appended, yield* store.highWaterMark(realm))
              yield* Deferred.await(gate)
            })))
            const eventId = yield* Deferred.await(appended)
            // Asked in one turn: taken together.
            const heartbeats = yield* Effect.forEach([other, realm, other], (r) => Effect.forkChild(store.nextId(r)))
            // Until the batch waits for the organization's lock (the append holds it) ...
            const waiting = sql<{ n: number }>`
              SELECT count(*)::integer AS n FROM pg_locks
              WHERE locktype = 'advisory' AND NOT granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
            // (or, wrongly, the organization's heartbeat has its id first) ...
            const first = yield* Effect.raceFirst(
              Effect.as(waiting.pipe(Effect.repeat({ until: (rows) => rows[0]!.n > 0 })), "waits for the lock"),
              Effect.as(Fiber.join(heartbeats[1]!), "has its id")
            )
            assert.strictEqual(first, "waits for the lock")
            // ... the organization's heartbeat has no id; once the append commits, it has one after the event.
            assert.isUndefined(heartbeats[1]!.pollUnsafe())
            yield* Deferred.succeed(gate, undefined)
            yield* Fiber.join(append)
            const ids = yield* Fiber.joinAll(heartbeats)
            assert.strictEqual(new Set(ids).size, 3)
            assert.isTrue(ids.every((id) => id > eventId), `${ids} after ${eventId}`)
            assert.deepStrictEqual((yield* waiting)[0]!.n, 0)
          }).pipe(Effect.orDie), 20_000)
      }

      it.effect("read takes a window of the log: its organization's events for the user, after < id <= upTo, in id order", () =>
        Effect.gen(function*() {
          const store = yield* EventStore
          const [realm, other] = [yield* backend.realm, yield* backend.realm]
          const [first, second] = yield* backend.users(realm, 2)
          const [stranger] = yield* backend.users(other, 1)
          const start = yield* store.highWaterMark(realm)
          // Interleaved with another organization's events and with ids handed
          // out for nothing (heartbeats), so the realm's ids are not consecutive.
          for (let n = 0; n < 12; n++) {
            yield* store.append(realm, [note(n, n % 3 === 0 ? null : [n % 2 === 0 ? first! : second!])])
            if (n % 4 === 1) yield* store.append(other, [note(100 + n, [stranger!])])
            if (n % 5 === 2) yield* store.nextId(realm)
          }
          const all = yield* store.read(realm, first!, start)
          const words = (events: ReadonlyArray<{ readonly payload: unknown }>) =>
            events.map((e) => (e.payload as { alert_words: ReadonlyArray<string> }).alert_words[0])
          // Everyone's (every third) and the first user's own (the even others).
          assert.deepStrictEqual(words(all), ["w0", "w2", "w3", "w4", "w6", "w8", "w9", "w10"])
          const ids = all.map((e) => e.id)
          assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b))
          // Every window: from before the first to past the last, bounds on ids and between them.
          const bounds = [start, ...ids.flatMap((id) => [id - 1, id]), ids.at(-1)! + 1]
          for (const after of bounds) {
            assert.deepStrictEqual(yield* store.read(realm, first!, after), all.filter((e) => e.id > after), `after ${after}`)
            for (const upTo of bounds) {
              assert.deepStrictEqual(
                yield* store.read(realm, first!, after, upTo),
                all.filter((e) => e.id > after && e.id <= upTo),
                `after ${after}, up to ${upTo}`
              )
            }
          }
          assert.deepStrictEqual(words(yield* store.read(realm, second!, start)), ["w0", "w1", "w3", "w5", "w6", "w7", "w9", "w11"])
          assert.deepStrictEqual(words(yield* store.read(other, stranger!, start)), ["w101", "w105", "w109"])
        }).pipe(Effect.orDie))

      it.effect("reads, queue lookups and writes made at once (a wake's polls) answer and write as made one by one", () =>
        Effect.gen(function*() {
          const store = yield* EventStore
          const [realm, other] = [yield* backend.realm, yield* backend.realm]
          const users = yield* backend.users(realm, 3)
          const [stranger] = yield* backend.users(other, 1)
          const start = yield* store.highWaterMark(realm)
          const otherStart = yield* store.highWaterMark(other)
          for (let n = 0; n < 9; n++) {
            yield* store.append(realm, [note(n, n % 4 === 0 ? null : [users[n % 3]!])])
            if (n % 3 === 0) yield* store.append(other, [note(50 + n, [stranger!])])
          }
          const reads = [
            ...users.flatMap((user) => [{ realm, user, after: start }, { realm, user, after: start + 3 }]),
            { realm, user: users[0]!, after: start, upTo: start + 5 },
            { realm: other, user: stranger!, after: otherStart },
            { realm: other, user: users[1]!, after: otherStart }
          ]
          const readOne = (r: (typeof reads)[number]) => store.read(r.realm, r.user, r.after, "upTo" in r ? r.upTo : undefined)
          const alone: Array<ReadonlyArray<unknown>> = []
          for (const r of reads) alone.push(yield* readOne(r))
          const together = yield* Effect.all(reads.map(readOne), { concurrency: "unbounded" })
          assert.deepStrictEqual(together, alone)
          assert.isTrue(alone.some((events) => events.length > 1) && alone.some((events) => events.length === 0))

          const ids = users.map((_, i) => `batch-${realm}-${i}`)
          for (const [i, id] of ids.entries()) {
            yield* store.insertQueue(queueOf(id, realm, users[i]!, start, 0))
            yield* store.markBlocked(id, 1_000, 60_000)
          }
          // A lookup of a queue that does not exist, and one whose id is no plain word, among them.
          const lookups = [...ids, "no-such-queue", `"},{'`, ids[0]!]
          const found = yield* Effect.all(lookups.map((id) => store.findQueue(id)), { concurrency: "unbounded" })
          assert.deepStrictEqual(found.map((q) => q?.id), [...ids, undefined, undefined, ids[0]])
          assert.deepStrictEqual(found.map((q) => q?.blocked_until), [60_000, 60_000, 60_000, undefined, undefined, 60_000])
          yield* Effect.all([store.markUnblocked(ids[0]!), store.markUnblocked(ids[2]!), store.markUnblocked("no-such-queue")], {
            concurrency: "unbounded"
          })
          const after = yield* Effect.all(ids.map((id) => store.findQueue(id)), { concurrency: "unbounded" })
          assert.deepStrictEqual(after.map((q) => q?.blocked_until), [0, 60_000, 0])
          // Blocked marks and acknowledgements made at once, two of each on one
          // queue: the later call wins, as it would one by one.
          yield* Effect.all([
            store.markBlocked(ids[0]!, 2_000, 70_000),
            store.saveAck(ids[1]!, { acked_id: start + 1, cursor_id: start + 2, heartbeat_id: null }),
            store.markBlocked(ids[2]!, 3_000, 80_000),
            store.saveAck(ids[1]!, { acked_id: start + 3, cursor_id: start + 4, heartbeat_id: start + 5 }),
            store.markBlocked(ids[0]!, 4_000, 90_000)
          ], { concurrency: "unbounded" })
          const saved = yield* Effect.all(ids.map((id) => store.findQueue(id)), { concurrency: "unbounded" })
          assert.deepStrictEqual(
            saved.map((q) => [q?.last_connected, q?.blocked_until, q?.acked_id, q?.cursor_id, q?.heartbeat_id]),
            [
              [4_000, 90_000, -1, start, null],
              [1_000, 60_000, start + 3, start + 4, start + 5],
              [3_000, 80_000, -1, start, null]
            ]
          )

          // Heartbeats coming due together: fresh ids for both organizations
          // (one of them asked for three times), each after every event
          // logged so far and before the next one; then set at once, twice on
          // one queue (the later call wins) and beside an acknowledgement.
          const logged = Math.max(yield* store.highWaterMark(realm), yield* store.highWaterMark(other))
          const fresh = yield* Effect.all([realm, other, realm, realm].map((r) => store.nextId(r)), { concurrency: "unbounded" })
          assert.strictEqual(new Set(fresh).size, 4)
          assert.isTrue(fresh.every((id) => Number.isSafeInteger(id) && id > logged), `${fresh} after ${logged}`)
          yield* store.append(realm, [note(20, null)])
          const next = yield* store.highWaterMark(realm)
          assert.isTrue(fresh.every((id) => id < next), `${fresh} before ${next}`)
          yield* Effect.all([
            store.setHeartbeat(ids[0]!, fresh[0]!),
            store.setHeartbeat(ids[2]!, fresh[1]!),
            store.saveAck(ids[1]!, { acked_id: start + 6, cursor_id: start + 7, heartbeat_id: null }),
            store.setHeartbeat(ids[0]!, fresh[2]!)
          ], { concurrency: "unbounded" })
          const beating = yield* Effect.all(ids.map((id) => store.findQueue(id)), { concurrency: "unbounded" })
          assert.deepStrictEqual(
            beating.map((q) => [q?.acked_id, q?.cursor_id, q?.heartbeat_id]),
            [[-1, start, fresh[2]], [start + 6, start + 7, null], [-1, start, fresh[1]]]
          )
        }).pipe(Effect.orDie))

      if (backend.sql) {
        it.effect("inside a transaction, a read and a queue lookup run on its connection (not batched outside it): they see its rows", () =>
          Effect.gen(function*() {
            const store = yield* EventStore
            const tx = yield* Transactor
            const realm = yield* backend.realm
            const [user] = yield* backend.users(realm, 1)
            const start = yield* store.highWaterMark(realm)
            const seen = yield* tx.withTransaction(Effect.gen(function*() {
              yield* store.append(realm, [{ ...ping(7), user_ids: [user!] }])
              yield* store.insertQueue(queueOf(`tx-${realm}`, realm, user!, start, 5))
              yield* store.markUnblocked(`tx-${realm}`)
              return {
                events: (yield* store.read(realm, user!, start)).map((e) => e.payload),
                queue: (yield* store.findQueue(`tx-${realm}`))?.blocked_until
              }
            }))
            assert.deepStrictEqual(seen, { events: [ping(7).payload], queue: 0 })
          }).pipe(Effect.orDie), { timeout: 20_000 })

        it.effect("rows are stamped with the Clock's time, and the log's grace period follows it", () =>
          Effect.gen(function*() {
            const store = yield* EventStore
            const sql = yield* SqlClient.SqlClient
            const realm = yield* backend.realm
            yield* TestClock.adjust(5_000)
            yield* store.append(realm, [ping(4)])
            const rows = yield* sql<{ created_at: unknown }>`SELECT created_at FROM events WHERE realm_id = ${realm}`
            assert.deepStrictEqual(rows.map((r) => Number(r.created_at)), [5_000])
            // No queue is behind the row: only the two-minute grace keeps it.
            yield* TestClock.adjust(119_999)
            yield* store.pruneLog
            assert.strictEqual((yield* store.read(realm, userId(1), 0)).length, 1)
            yield* TestClock.adjust(2)
            yield* store.pruneLog
            assert.deepStrictEqual(yield* store.read(realm, userId(1), 0), [])
          }).pipe(Effect.orDie))
      }
    })
  })
}
