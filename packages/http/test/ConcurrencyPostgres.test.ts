/**
 * Writes that race on PostgreSQL with two workers (support/concurrency/
 * TwoWorkers.ts): requests sent at once, alternating between two servers on
 * one fresh database (TEST_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test). Each test repeats its race, as a
 * race that is lost only sometimes still loses.
 *
 * What must hold: no 5xx; no change that was acknowledged is lost or undone
 * by another; the invariants (an active owner remains, the role and the
 * system groups agree); a transition made twice at once succeeds once.
 */
import { assert, describe, layer } from "@effect/vitest"
import { createHash } from "node:crypto"
import { messageId, userId } from "@teamchat/core/domain/Ids"
import type { UserId } from "@teamchat/core/domain/Ids"
import { GroupRepo, MessageRepo, RealmRepo, UserRepo } from "@teamchat/core/ports/Repositories"
import { Users } from "@teamchat/core/services/Users"
import { UserSettings } from "@teamchat/core/services/UserSettings"
import * as Effect from "effect/Effect"
import type { Credentials, Reply } from "./support/Harness.ts"
import { accounts, realmUrl, Server } from "./support/Harness.ts"
import { layerTwoWorkers } from "./support/concurrency/TwoWorkers.ts"

/** How many times each race is run. */
const rounds = 10

/** Sends the requests at once; their replies in the same order. */
const atOnce = (requests: ReadonlyArray<Effect.Effect<Reply>>) => Effect.all(requests, { concurrency: "unbounded" })

const noServerError = (replies: ReadonlyArray<Reply>) => {
  for (const reply of replies) assert.isBelow(reply.status, 500, reply.text)
}

const userRow = (id: number) =>
  Effect.gen(function*() {
    const server = yield* Server
    return (yield* server.core(UserRepo.use((users) => users.findById(userId(id)))))!
  })

/** The system groups `id` is a direct member of, by name. */
const roleGroupsOf = (id: number) =>
  Effect.gen(function*() {
    const server = yield* Server
    return yield* server.core(Effect.gen(function*() {
      const realm = (yield* RealmRepo.use((r) => r.list)).find((r) => r.url === realmUrl)!
      const groups = yield* GroupRepo.use((g) => g.listByRealm(realm.id))
      const membership = yield* GroupRepo.use((g) => g.membership(realm.id))
      return groups
        .filter((g) => g.is_system_group && (membership.members.get(g.id) ?? new Set()).has(userId(id) as UserId))
        .map((g) => g.name)
        .sort()
    }))
  })

/** An event queue of `as` for these event types; its id. */
const registerQueue = (as: Credentials, eventTypes: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const server = yield* Server
    const queue = yield* server.fetch("POST", "/api/v1/register", {
      as,
      form: { event_types: JSON.stringify(eventTypes) }
    })
    assert.strictEqual(queue.status, 200, queue.text)
    return queue.json.queue_id as string
  })

/** Every event in the queue so far. */
const queuedEvents = (as: Credentials, queueId: string) =>
  Effect.gen(function*() {
    const server = yield* Server
    const polled = yield* server.fetch("GET", "/api/v1/events", {
      as,
      query: { queue_id: queueId, last_event_id: "-1", dont_block: "true" }
    })
    assert.strictEqual(polled.status, 200, polled.text)
    return polled.json.events as Array<any>
  })

/** `count` new members of the demo organization, logged in. */
const freshMembers = (prefix: string, count: number) =>
  Effect.gen(function*() {
    const server = yield* Server
    const realm = yield* server.core(RealmRepo.use((r) => r.list)).pipe(
      Effect.map((all) => all.find((r) => r.url === realmUrl)!)
    )
    return yield* Effect.forEach(Array.from({ length: count }, (_, i) => `${prefix}-${i}@zulip.com`), (email) =>
      Effect.andThen(
        server.core(Users.use((users) => users.create(realm.id, { email, full_name: `Member ${email.split("@")[0]}`, role: 400 }))).pipe(Effect.orDie),
        server.login(email)
      ))
  })

/** Eight demo accounts, each changing only their own status and presence. */
const eightPeople = [
  "hamlet@zulip.com",
  "aaron@zulip.com",
  "iago@zulip.com",
  "shiva@zulip.com",
  "polonius@zulip.com",
  "desdemona@zulip.com",
  "ZOE@zulip.com",
  "cordelia@zulip.com"
]

describe("concurrent writes on PostgreSQL with two workers", () => {
  layer(layerTwoWorkers(), { timeout: "300 seconds", excludeTestServices: true })((it) => {
    it.effect("a user's PATCH /settings does not undo their deactivation", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const admin = yield* server.login(accounts.admin)
        const member = yield* server.login("cordelia@zulip.com")
        for (let round = 0; round < rounds; round++) {
          const replies = yield* atOnce([
            server.fetch("PATCH", "/api/v1/settings", {
              as: member,
              form: { timezone: round % 2 === 0 ? "Europe/Berlin" : "Asia/Tokyo", full_name: `Cordelia ${round}` }
            }),
            server.fetch("DELETE", `/api/v1/users/${member.userId}`, { as: admin })
          ])
          noServerError(replies)
          assert.strictEqual(replies[1]!.status, 200, replies[1]!.text)
          const row = yield* userRow(member.userId)
          assert.strictEqual(row.is_active, false, `round ${round}: the deactivation was undone`)
          const me = yield* server.fetch("GET", "/api/v1/users/me", { as: member })
          assert.strictEqual(me.status, 401, `round ${round}: ${me.text}`)
          if (replies[0]!.status === 200) assert.strictEqual(row.full_name, `Cordelia ${round}`)
          const back = yield* server.fetch("POST", `/api/v1/users/${member.userId}/reactivate`, { as: admin })
          assert.strictEqual(back.status, 200, back.text)
        }
      }))

    it.effect("a user's PATCH /settings does not undo their demotion; role and system groups agree", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const owner = yield* server.login(accounts.owner)
        const member = yield* server.login("othello@zulip.com")
        for (let round = 0; round < rounds; round++) {
          const up = yield* server.fetch("PATCH", `/api/v1/users/${member.userId}`, { as: owner, form: { role: "200" } })
          assert.strictEqual(up.status, 200, up.text)
          const replies = yield* atOnce([
            server.fetch("PATCH", "/api/v1/settings", { as: member, form: { full_name: `Othello ${round}` } }),
            server.fetch("PATCH", `/api/v1/users/${member.userId}`, { as: owner, form: { role: "400" } })
          ])
          noServerError(replies)
          assert.deepStrictEqual(replies.map((r) => r.status), [200, 200], replies.map((r) => r.text).join("\n"))
          const row = yield* userRow(member.userId)
          assert.strictEqual(row.role, 400, `round ${round}: the demotion was undone`)
          assert.strictEqual(row.full_name, `Othello ${round}`, `round ${round}: the rename was lost`)
          assert.deepStrictEqual(yield* roleGroupsOf(member.userId), ["role:fullmembers", "role:members"])
        }
      }))

    it.effect("two owners demoting or deactivating each other at once leave an owner", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const first = yield* server.login(accounts.owner)
        const second = yield* server.login("prospero@zulip.com")
        for (let round = 0; round < rounds; round++) {
          const promote = yield* server.fetch("PATCH", `/api/v1/users/${second.userId}`, {
            as: first,
            form: { role: "100" }
          })
          assert.strictEqual(promote.status, 200, promote.text)
          const deactivating = round % 2 === 1
          const replies = yield* atOnce(
            deactivating
              ? [
                server.fetch("DELETE", `/api/v1/users/${second.userId}`, { as: first }),
                server.fetch("DELETE", `/api/v1/users/${first.userId}`, { as: second })
              ]
              : [
                server.fetch("PATCH", `/api/v1/users/${second.userId}`, { as: first, form: { role: "200" } }),
                server.fetch("PATCH", `/api/v1/users/${first.userId}`, { as: second, form: { role: "200" } })
              ]
          )
          noServerError(replies)
          // The loser is refused: the only owner left (400), or, deactivated by the winner, no longer an account (401).
          const statuses = replies.map((r) => r.status).sort()
          assert.deepStrictEqual(statuses, [200, deactivating ? 401 : 400], replies.map((r) => r.text).join("\n"))
          const owners = [yield* userRow(first.userId), yield* userRow(second.userId)]
            .filter((u) => u.is_active && u.role === 100)
          assert.strictEqual(owners.length, 1, `round ${round}: ${replies.map((r) => r.text).join("\n")}`)
          // Back to the start: the first owner the only owner of the two, both active.
          const survivor = owners[0]!.id === first.userId ? first : second
          const other = survivor === first ? second : first
          if (deactivating) {
            const back = yield* server.fetch("POST", `/api/v1/users/${other.userId}/reactivate`, { as: survivor })
            assert.strictEqual(back.status, 200, back.text)
          }
          if (survivor === second) {
            const swap = yield* server.fetch("PATCH", `/api/v1/users/${first.userId}`, { as: second, form: { role: "100" } })
            assert.strictEqual(swap.status, 200, swap.text)
          }
          const down = yield* server.fetch("PATCH", `/api/v1/users/${second.userId}`, { as: first, form: { role: "400" } })
          assert.strictEqual(down.status, 200, down.text)
        }
      }))

    it.effect("8 PATCH /settings of different settings at once all stay", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const member = yield* server.login(accounts.member)
        const changes: ReadonlyArray<readonly [string, string, unknown]> = [
          ["twenty_four_hour_time", "true", true],
          ["left_side_userlist", "true", true],
          ["starred_message_counts", "false", false],
          ["fluid_layout_width", "true", true],
          ["high_contrast_mode", "true", true],
          ["enter_sends", "true", true],
          ["enable_sounds", "false", false],
          ["send_read_receipts", "false", false]
        ]
        for (let round = 0; round < rounds / 2; round++) {
          const replies = yield* atOnce(changes.map(([name, value]) =>
            server.fetch("PATCH", "/api/v1/settings", {
              as: member,
              form: { [name]: round % 2 === 0 ? value : String(value !== "true") }
            })
          ))
          noServerError(replies)
          assert.deepStrictEqual(replies.map((r) => r.status), changes.map(() => 200))
          const user = yield* userRow(member.userId)
          const stored = yield* server.core(UserSettings.use((s) => s.get(user)))
          for (const [name, , value] of changes) {
            assert.strictEqual(stored[name], round % 2 === 0 ? value : !value, `round ${round}: ${name} was lost`)
          }
        }
      }))

    it.effect("status changes and first presence pings of 8 users at once all succeed (no deadlock answered)", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const people = yield* Effect.forEach(eightPeople, (email) => server.login(email))
        for (let round = 0; round < rounds; round++) {
          const replies = yield* atOnce(people.flatMap((as, i) => [
            server.fetch("POST", "/api/v1/users/me/status", {
              as,
              form: { status_text: `round ${round}`, away: String((round + i) % 2 === 0) }
            }),
            server.fetch("POST", "/api/v1/users/me/presence", {
              as,
              form: { status: round % 2 === 0 ? "active" : "idle", new_user_input: "true" }
            })
          ]))
          noServerError(replies)
          assert.deepStrictEqual(replies.map((r) => r.status), replies.map(() => 200), replies.map((r) => r.text).join("\n"))
        }
      }))

    it.effect("8 role changes at once in one organization all succeed", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const owner = yield* server.login(accounts.owner)
        const people = yield* freshMembers("role", 8)
        for (let round = 0; round < rounds / 2; round++) {
          const role = round % 2 === 0 ? "300" : "400"
          const replies = yield* atOnce(people.map((person) =>
            server.fetch("PATCH", `/api/v1/users/${person.userId}`, { as: owner, form: { role } })
          ))
          noServerError(replies)
          assert.deepStrictEqual(replies.map((r) => r.status), replies.map(() => 200), replies.map((r) => r.text).join("\n"))
          for (const person of people) assert.strictEqual((yield* userRow(person.userId)).role, Number(role))
        }
      }))

    it.effect("profile fields: the summary limit and unique labels hold, and values set while a field goes answer 4xx", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const admin = yield* server.login(accounts.admin)
        const people = yield* Effect.forEach(eightPeople, (email) => server.login(email))
        const fields = () =>
          Effect.map(server.fetch("GET", "/api/v1/realm/profile_fields", { as: admin }), (r) => r.json.custom_fields as Array<any>)
        const create = (name: string, summary: boolean) =>
          server.fetch("POST", "/api/v1/realm/profile_fields", {
            as: admin,
            form: { name, hint: "", field_type: "1", display_in_profile_summary: String(summary) }
          })
        const summaryLimit = { result: "error", msg: "Only 2 custom profile fields can be displayed in the profile summary.", code: "BAD_REQUEST" }
        const labelTaken = { result: "error", msg: "A field with that label already exists.", code: "BAD_REQUEST" }
        for (let round = 0; round < rounds / 2; round++) {
          // The summary limit.
          for (const f of (yield* fields()).filter((f) => f.display_in_profile_summary === true)) {
            const off = yield* server.fetch("PATCH", `/api/v1/realm/profile_fields/${f.id}`, {
              as: admin,
              form: { display_in_profile_summary: "false" }
            })
            assert.strictEqual(off.status, 200, off.text)
          }
          const summary = yield* atOnce(Array.from({ length: 8 }, (_, i) => create(`Summary ${round}.${i}`, true)))
          noServerError(summary)
          assert.strictEqual(summary.filter((r) => r.status === 200).length, 2, summary.map((r) => r.text).join("\n"))
          for (const r of summary.filter((r) => r.status !== 200)) assert.deepStrictEqual(r.json, summaryLimit)
          assert.strictEqual((yield* fields()).filter((f) => f.display_in_profile_summary === true).length, 2)

          // One label: created at once, renamed to at once.
          const same = yield* atOnce(Array.from({ length: 8 }, () => create(`Same ${round}`, false)))
          noServerError(same)
          assert.strictEqual(same.filter((r) => r.status === 200).length, 1, same.map((r) => r.text).join("\n"))
          for (const r of same.filter((r) => r.status !== 200)) assert.deepStrictEqual(r.json, labelTaken)
          const own = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), (i) =>
            Effect.map(create(`Rename ${round}.${i}`, false), (r) => r.json.id as number))
          const renames = yield* atOnce(own.map((id) =>
            server.fetch("PATCH", `/api/v1/realm/profile_fields/${id}`, { as: admin, form: { name: `Renamed ${round}` } })
          ))
          noServerError(renames)
          assert.strictEqual(renames.filter((r) => r.status === 200).length, 1, renames.map((r) => r.text).join("\n"))
          for (const r of renames.filter((r) => r.status !== 200)) assert.deepStrictEqual(r.json, labelTaken)
          assert.strictEqual((yield* fields()).filter((f) => f.name === `Renamed ${round}`).length, 1)

          // A field deleted while people set their value of it.
          const doomed = own[0]!
          const racing = yield* atOnce([
            server.fetch("DELETE", `/api/v1/realm/profile_fields/${doomed}`, { as: admin }),
            ...people.map((as) =>
              server.fetch("PATCH", "/api/v1/users/me/profile_data", {
                as,
                form: { data: JSON.stringify([{ id: doomed, value: `value of ${as.email}` }]) }
              })
            )
          ])
          noServerError(racing)
          assert.strictEqual(racing[0]!.status, 200, racing[0]!.text)
          for (const r of racing.slice(1)) {
            if (r.status !== 200) {
              assert.deepStrictEqual(r.json, { result: "error", msg: `Field id ${doomed} not found.`, code: "BAD_REQUEST" })
            }
          }
        }
      }))

    it.effect("a topic moved to another channel while messages are sent to it: no 5xx, each send moved or after the move, events in commit order", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const iago = yield* server.login(accounts.admin)
        const hamlet = yield* server.login(accounts.member)
        const streamId = (name: string) =>
          Effect.map(server.fetch("GET", "/api/v1/get_stream_id", { as: iago, query: { stream: name } }), (reply) => {
            assert.strictEqual(reply.status, 200, reply.text)
            return reply.json.stream_id as number
          })
        const verona = yield* streamId("Verona")
        const denmark = yield* streamId("Denmark")
        const queue = yield* registerQueue(iago, ["message", "update_message"])
        const inTopic = (channel: number, topic: string) =>
          Effect.map(
            server.fetch("GET", "/api/v1/messages", {
              as: iago,
              query: {
                anchor: "oldest",
                num_before: "0",
                num_after: "100",
                narrow: JSON.stringify([{ operator: "channel", operand: channel }, { operator: "topic", operand: topic }])
              }
            }),
            (reply) => {
              assert.strictEqual(reply.status, 200, reply.text)
              return (reply.json.messages as Array<{ id: number }>).map((m) => m.id)
            }
          )
        for (let round = 0; round < rounds; round++) {
          const topic = `channel move race ${round}`
          const first = yield* server.fetch("POST", "/api/v1/messages", {
            as: hamlet,
            form: { type: "stream", to: String(verona), topic, content: "first" }
          })
          assert.strictEqual(first.status, 200, first.text)
          const firstId = first.json.id as number
          const sends = Array.from({ length: 8 }, (_, i) =>
            server.fetch("POST", "/api/v1/messages", {
              as: hamlet,
              form: { type: "stream", to: String(verona), topic, content: `during ${i}` }
            }))
          const move = server.fetch("PATCH", `/api/v1/messages/${firstId}`, {
            as: iago,
            form: { stream_id: String(denmark), propagate_mode: "change_all", send_notification_to_new_thread: "false" }
          })
          const replies = yield* atOnce([...sends.slice(0, 4), move, ...sends.slice(4)])
          noServerError(replies)
          for (const reply of replies) assert.strictEqual(reply.status, 200, reply.text)
          const sentIds = replies.filter((r) => r.json.id !== undefined).map((r) => r.json.id as number)
          // The log's order is the commit order: sends logged before the move's event moved, the rest stayed.
          const events = (yield* queuedEvents(iago, queue)).filter((e: any) =>
            (e.type === "message" && e.message.subject === topic) || (e.type === "update_message" && e.message_id === firstId)
          )
          const moveAt = events.findIndex((e: any) => e.type === "update_message")
          assert.isAtLeast(moveAt, 1)
          const before = events.slice(0, moveAt).map((e: any) => e.message.id as number).sort((a, b) => a - b)
          const after = events.slice(moveAt + 1).map((e: any) => e.message.id as number).sort((a, b) => a - b)
          assert.deepStrictEqual([...before, ...after].sort((a, b) => a - b), [firstId, ...sentIds].sort((a, b) => a - b))
          assert.deepStrictEqual(events[moveAt].message_ids, before)
          assert.deepStrictEqual(yield* inTopic(denmark, topic), before)
          assert.deepStrictEqual(yield* inTopic(verona, topic), after)
        }
      }))

    it.effect("8 edits of one message at once: all stay in its history, events in commit order; with prev_content_sha256 one wins", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const queue = yield* registerQueue(hamlet, ["update_message"])
        const edits: Array<any> = []
        for (let round = 0; round < rounds / 2; round++) {
          const sent = yield* server.fetch("POST", "/api/v1/messages", {
            as: hamlet,
            form: { type: "stream", to: "Verona", topic: `edit race ${round}`, content: "v0" }
          })
          assert.strictEqual(sent.status, 200, sent.text)
          const id = sent.json.id as number
          const replies = yield* atOnce(Array.from({ length: 8 }, (_, i) =>
            server.fetch("PATCH", `/api/v1/messages/${id}`, { as: hamlet, form: { content: `v${i + 1}` } })))
          noServerError(replies)
          for (const reply of replies) assert.strictEqual(reply.status, 200, reply.text)
          const read = yield* server.fetch("GET", `/api/v1/messages/${id}`, { as: hamlet })
          const history = read.json.message.edit_history as Array<{ prev_content: string }>
          assert.strictEqual(history.length, 8, read.text)
          // The events chain: each edit replaced what the one before it wrote.
          const events = (yield* queuedEvents(hamlet, queue)).filter((e: any) => e.message_id === id)
          assert.strictEqual(events.length, 8)
          assert.strictEqual(events[0].orig_content, "v0")
          for (let i = 1; i < events.length; i++) assert.strictEqual(events[i].orig_content, events[i - 1].content)
          assert.strictEqual(events[7].content, read.json.raw_content)
          // History, newest first, says the same.
          assert.deepStrictEqual(history.map((h) => h.prev_content), events.map((e: any) => e.orig_content).reverse())
          edits.push(...events)

          // 8 edits naming the same content at once: only the first finds it; the rest see its edit.
          const sha = createHash("sha256").update(read.json.raw_content as string).digest("hex")
          const guarded = yield* atOnce(Array.from({ length: 8 }, (_, i) =>
            server.fetch("PATCH", `/api/v1/messages/${id}`, {
              as: hamlet,
              form: { content: `guarded ${i}`, prev_content_sha256: sha }
            })))
          noServerError(guarded)
          assert.strictEqual(guarded.filter((r) => r.status === 200).length, 1, guarded.map((r) => r.text).join("\n"))
          for (const reply of guarded.filter((r) => r.status !== 200)) {
            assert.deepStrictEqual(reply.json, {
              result: "error",
              msg: "'prev_content_sha256' value does not match the expected value.",
              code: "EXPECTATION_MISMATCH"
            })
          }
        }
        assert.strictEqual(edits.length, (rounds / 2) * 8)
      }))

    it.effect("an invitation link revoked 8 times at once: one success, one event", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const admin = yield* server.login(accounts.admin)
        const queue = yield* registerQueue(admin, ["invites_changed"])
        for (let round = 0; round < rounds / 2; round++) {
          const made = yield* server.fetch("POST", "/api/v1/invites/multiuse", { as: admin, form: {} })
          assert.strictEqual(made.status, 200, made.text)
          const listed = yield* server.fetch("GET", "/api/v1/invites", { as: admin })
          const id = listed.json.invites.find((i: any) => i.link_url === made.json.invite_link).id
          const revokes = yield* atOnce(Array.from({ length: 8 }, () =>
            server.fetch("DELETE", `/api/v1/invites/multiuse/${id}`, { as: admin })))
          noServerError(revokes)
          assert.strictEqual(revokes.filter((r) => r.status === 200).length, 1, revokes.map((r) => r.text).join("\n"))
          for (const reply of revokes.filter((r) => r.status !== 200)) {
            assert.deepStrictEqual(reply.json, { result: "error", msg: "Invitation has already been revoked", code: "BAD_REQUEST" })
          }
        }
        const events = yield* queuedEvents(admin, queue)
        // Each round: one for the link made, one for its revocation.
        assert.strictEqual(events.filter((e: any) => e.type === "invites_changed").length, rounds)
      }))

    it.effect("a user deactivated or reactivated 8 times at once: one success, one event", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const admin = yield* server.login(accounts.admin)
        const target = yield* server.login("ZOE@zulip.com")
        const queue = yield* registerQueue(admin, ["realm_user"])
        for (let round = 0; round < rounds / 2; round++) {
          const down = yield* atOnce(Array.from({ length: 8 }, () =>
            server.fetch("DELETE", `/api/v1/users/${target.userId}`, { as: admin })))
          noServerError(down)
          assert.strictEqual(down.filter((r) => r.status === 200).length, 1, down.map((r) => r.text).join("\n"))
          const up = yield* atOnce(Array.from({ length: 8 }, () =>
            server.fetch("POST", `/api/v1/users/${target.userId}/reactivate`, { as: admin })))
          noServerError(up)
          assert.strictEqual(up.filter((r) => r.status === 200).length, 1, up.map((r) => r.text).join("\n"))
          for (const reply of up.filter((r) => r.status !== 200)) {
            assert.deepStrictEqual(reply.json, { result: "error", msg: "User is already active", code: "BAD_REQUEST" })
          }
        }
        const events = yield* queuedEvents(admin, queue)
        const activity = events
          .filter((e: any) => e.op === "update" && e.person?.user_id === target.userId && "is_active" in e.person)
          .map((e: any) => e.person.is_active)
        assert.deepStrictEqual(activity, Array.from({ length: rounds / 2 }, () => [false, true]).flat())
      }))
    it.effect("a user muted or unmuted 8 times at once: one success, Zulip's refusal for the others, one event", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const [muter, target] = yield* freshMembers("muting", 2)
        const queue = yield* registerQueue(muter!, ["muted_users", "update_message_flags"])
        const refusal = (msg: string) => ({ result: "error", msg, code: "BAD_REQUEST" })
        for (let round = 0; round < rounds / 2; round++) {
          // Something of the target's for the mute to mark read.
          const dm = yield* server.fetch("POST", "/api/v1/messages", {
            as: target!,
            form: { type: "direct", to: JSON.stringify([muter!.userId]), content: `round ${round}` }
          })
          assert.strictEqual(dm.status, 200, dm.text)
          const mutes = yield* atOnce(Array.from({ length: 8 }, () =>
            server.fetch("POST", `/api/v1/users/me/muted_users/${target!.userId}`, { as: muter! })))
          noServerError(mutes)
          assert.strictEqual(mutes.filter((r) => r.status === 200).length, 1, mutes.map((r) => r.text).join("\n"))
          for (const reply of mutes.filter((r) => r.status !== 200)) assert.deepStrictEqual(reply.json, refusal("User already muted"))
          const unmutes = yield* atOnce(Array.from({ length: 8 }, () =>
            server.fetch("DELETE", `/api/v1/users/me/muted_users/${target!.userId}`, { as: muter! })))
          noServerError(unmutes)
          assert.strictEqual(unmutes.filter((r) => r.status === 200).length, 1, unmutes.map((r) => r.text).join("\n"))
          for (const reply of unmutes.filter((r) => r.status !== 200)) assert.deepStrictEqual(reply.json, refusal("User is not muted"))
        }
        const events = yield* queuedEvents(muter!, queue)
        assert.deepStrictEqual(
          events.map((e: any) => e.type === "muted_users" ? e.muted_users.map((m: any) => m.id) : `read ${e.messages.length}`),
          Array.from({ length: rounds / 2 }, () => ["read 1", [target!.userId], []]).flat()
        )
      }))

    it.effect("a topic policy set 8 times at once: every request succeeds, one row, one user_topic event", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const [who] = yield* freshMembers("topics", 1)
        const streams = yield* server.fetch("GET", "/api/v1/streams", { as: who! })
        const verona = streams.json.streams.find((s: any) => s.name === "Verona").stream_id as number
        const queue = yield* registerQueue(who!, ["user_topic"])
        for (let round = 0; round < rounds / 2; round++) {
          const policy = String((round % 3) + 1)
          const replies = yield* atOnce(Array.from({ length: 8 }, (_, i) =>
            server.fetch("POST", "/api/v1/user_topics", {
              as: who!,
              form: { stream_id: String(verona), topic: i % 2 === 0 ? "Raced" : "RACED", visibility_policy: policy }
            })))
          noServerError(replies)
          for (const reply of replies) assert.deepStrictEqual(reply.json, { result: "success", msg: "" }, reply.text)
        }
        const events = yield* queuedEvents(who!, queue)
        assert.deepStrictEqual(events.map((e: any) => e.visibility_policy), [1, 2, 3, 1, 2])
        const state = yield* server.fetch("POST", "/api/v1/register", {
          as: who!,
          form: { fetch_event_types: JSON.stringify(["user_topic"]) }
        })
        assert.deepStrictEqual(state.json.user_topics.map((t: any) => [t.topic_name.toLowerCase(), t.visibility_policy]), [["raced", 2]])
      }))

    /** A fresh channel message of hamlet's in Verona; its id. */
    const freshMessage = (topic: string) =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const sent = yield* server.fetch("POST", "/api/v1/messages", {
          as: hamlet,
          form: { type: "stream", to: "Verona", topic, content: "react" }
        })
        assert.strictEqual(sent.status, 200, sent.text)
        return sent.json.id as number
      })

    const storedReactions = (id: number) =>
      Effect.flatMap(Server, (server) => server.core(MessageRepo.use((repo) => repo.reactions([messageId(id)]))))

    const reactionExists = { result: "error", msg: "Reaction already exists.", code: "REACTION_ALREADY_EXISTS" }

    it.effect("the same reaction added twice at once by one person: one success, one REACTION_ALREADY_EXISTS, one row, one event", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const cordelia = yield* server.login("cordelia@zulip.com")
        const queue = yield* registerQueue(cordelia, ["reaction"])
        const ids: Array<number> = []
        for (let round = 0; round < rounds; round++) {
          const id = yield* freshMessage(`twice ${round}`)
          ids.push(id)
          const replies = yield* atOnce([
            server.fetch("POST", `/api/v1/messages/${id}/reactions`, { as: cordelia, form: { emoji_name: "octopus" } }),
            server.fetch("POST", `/api/v1/messages/${id}/reactions`, {
              as: cordelia,
              form: { emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" }
            })
          ])
          noServerError(replies)
          assert.strictEqual(replies.filter((r) => r.status === 200).length, 1, replies.map((r) => r.text).join("\n"))
          for (const r of replies.filter((r) => r.status !== 200)) assert.deepStrictEqual(r.json, reactionExists)
          assert.deepStrictEqual<unknown>(yield* storedReactions(id), [
            { message_id: id, user_id: cordelia.userId, emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" }
          ])
        }
        const added = (yield* queuedEvents(cordelia, queue)).filter((e: any) => e.type === "reaction")
        assert.deepStrictEqual(added.map((e: any) => [e.op, e.message_id]), ids.map((id) => ["add", id]))
      }))

    it.effect("eight people voting for one emoji at once under different names: all succeed, one name (the first's), eight events", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const people = yield* Effect.forEach(eightPeople, (email) => server.login(email))
        const names = ["+1", "thumbs_up", "like"]
        for (let round = 0; round < rounds / 2; round++) {
          const id = yield* freshMessage(`votes ${round}`)
          const queue = yield* registerQueue(people[0]!, ["reaction"])
          const replies = yield* atOnce(people.map((as, i) =>
            server.fetch("POST", `/api/v1/messages/${id}/reactions`, {
              as,
              form: { emoji_name: names[i % names.length]!, emoji_code: "1f44d", reaction_type: "unicode_emoji" }
            })
          ))
          noServerError(replies)
          for (const r of replies) assert.strictEqual(r.status, 200, r.text)
          const stored = yield* storedReactions(id)
          assert.deepStrictEqual(stored.map((r) => r.user_id).sort((a, b) => a - b), people.map((p) => p.userId).sort((a, b) => a - b))
          // The first to commit named the emoji; every vote after it took that name.
          const first = stored[0]!
          const firstName = names[people.findIndex((p) => p.userId === first.user_id) % names.length]
          assert.deepStrictEqual(new Set(stored.map((r) => r.emoji_name)), new Set([firstName]))
          const events = (yield* queuedEvents(people[0]!, queue)).filter((e: any) => e.type === "reaction")
          assert.deepStrictEqual(events.map((e: any) => e.user_id), stored.map((r) => r.user_id))
          assert.isTrue(events.every((e: any) => e.emoji_name === firstName && e.message_id === id))
        }
      }))

    it.effect("a message deleted while reactions arrive: no 5xx, each reaction before it or refused, no reaction left behind", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const admin = yield* server.login(accounts.admin)
        const people = yield* Effect.forEach(eightPeople, (email) => server.login(email))
        const streams = yield* server.fetch("GET", "/api/v1/streams", { as: admin })
        const verona = streams.json.streams.find((s: any) => s.name === "Verona").stream_id as number
        for (let round = 0; round < rounds; round++) {
          const topic = `doomed ${round}`
          const id = yield* freshMessage(topic)
          const replies = yield* atOnce([
            ...people.map((as) =>
              server.fetch("POST", `/api/v1/messages/${id}/reactions`, { as, form: { emoji_name: "tada" } })
            ),
            server.fetch("POST", `/api/v1/streams/${verona}/delete_topic`, { as: admin, form: { topic_name: topic } })
          ])
          noServerError(replies)
          assert.strictEqual(replies.at(-1)!.status, 200, replies.at(-1)!.text)
          for (const r of replies.slice(0, -1)) {
            if (r.status !== 200) assert.deepStrictEqual(r.json, { result: "error", msg: "Invalid message(s)", code: "BAD_REQUEST" })
          }
          const gone = yield* server.fetch("GET", `/api/v1/messages/${id}`, { as: admin })
          assert.strictEqual(gone.status, 400, gone.text)
          assert.deepStrictEqual(yield* storedReactions(id), [])
          // Removing from the deleted message is refused as well.
          const late = yield* server.fetch("DELETE", `/api/v1/messages/${id}/reactions`, { as: people[0]!, form: { emoji_name: "tada" } })
          assert.deepStrictEqual(late.json, { result: "error", msg: "Invalid message(s)", code: "BAD_REQUEST" })
        }
      }))

    /** A message of `as` in a channel only it is subscribed to (made on first use); the message's id. */
    const messageIn = (as: Credentials, channel: string, content: string) =>
      Effect.gen(function*() {
        const server = yield* Server
        const subscribed = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
          as,
          form: { subscriptions: JSON.stringify([{ name: channel }]) }
        })
        assert.strictEqual(subscribed.status, 200, subscribed.text)
        const reply = yield* server.fetch("POST", "/api/v1/messages", {
          as,
          form: { type: "stream", to: channel, topic: "race", content }
        })
        assert.strictEqual(reply.status, 200, reply.text)
        return reply.json.id as number
      })

    const invalidMessages = { result: "error", msg: "Invalid message(s)", code: "BAD_REQUEST" }

    it.effect("a message deleted 8 times at once: one success, the others \"Invalid message(s)\", one delete_message event", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const queue = yield* registerQueue(hamlet, ["delete_message"])
        const ids: Array<number> = []
        for (let round = 0; round < rounds; round++) {
          const id = yield* messageIn(hamlet, "racing deletions", `round ${round}`)
          ids.push(id)
          const replies = yield* atOnce(Array.from({ length: 8 }, () =>
            server.fetch("DELETE", `/api/v1/messages/${id}`, { as: hamlet })))
          noServerError(replies)
          assert.strictEqual(replies.filter((r) => r.status === 200).length, 1, replies.map((r) => r.text).join("\n"))
          for (const reply of replies.filter((r) => r.status !== 200)) assert.deepStrictEqual(reply.json, invalidMessages)
        }
        const events = yield* queuedEvents(hamlet, queue)
        assert.deepStrictEqual(events.filter((e: any) => e.type === "delete_message").map((e: any) => e.message_id), ids)
      }))

    it.effect("a message deleted while others flag it read (with and without a row of theirs): no 5xx, the message gone", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        // Not subscribed: flagging adds a row (the rows' foreign key meets the deletion).
        const iago = yield* server.login(accounts.admin)
        const othello = yield* server.login("othello@zulip.com")
        yield* messageIn(othello, "racing flags", "othello subscribes")
        for (let round = 0; round < rounds; round++) {
          const id = yield* messageIn(hamlet, "racing flags", `round ${round}`)
          const flag = (as: Credentials) =>
            server.fetch("POST", "/api/v1/messages/flags", {
              as,
              form: { messages: JSON.stringify([id]), op: "add", flag: "read" }
            })
          const replies = yield* atOnce([
            flag(iago),
            flag(othello),
            server.fetch("DELETE", `/api/v1/messages/${id}`, { as: hamlet }),
            flag(iago),
            flag(othello)
          ])
          noServerError(replies)
          assert.strictEqual(replies[2]!.status, 200, replies[2]!.text)
          for (const reply of [replies[0]!, replies[1]!, replies[3]!, replies[4]!]) {
            if (reply.status === 200) assert.deepStrictEqual(reply.json, { result: "success", msg: "", messages: [id] })
            else assert.deepStrictEqual(reply.json, invalidMessages)
          }
          const after = yield* server.fetch("GET", `/api/v1/messages/${id}`, { as: othello })
          assert.deepStrictEqual(after.json, invalidMessages)
        }
      }))
  })
})
