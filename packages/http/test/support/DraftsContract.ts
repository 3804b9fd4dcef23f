/**
 * Drafts over the wire, written once and run on every core backend: GET and
 * POST /drafts, PATCH and DELETE /drafts/{draft_id}, register's `drafts` and
 * the `drafts` events, per role, with Zulip's texts for every refusal and
 * nothing written (and nothing announced) by a refused request.
 *
 * Facts from Zulip: a draft is addressed to one channel the user can read,
 * to users (stored as the other participants, or the user alone), or to
 * nobody (`""`); a direct draft to nobody is unaddressed; only a channel
 * draft keeps its topic, cut at 60 characters with "..."; `timestamp` is
 * whole seconds, the server's time when absent; GET lists the oldest edit
 * first, register the newest first; another user's draft is a 404 "Draft
 * does not exist" (code BAD_REQUEST); with `enable_drafts_synchronization`
 * off every endpoint answers "User has disabled synchronizing drafts."
 * before reading its parameters, and turning it off deletes the drafts
 * without events. Guests and bots keep drafts like everyone else.
 */
import { assert, describe, layer } from "@effect/vitest"
import { channelId as toChannelId, realmId } from "@teamchat/core/domain/Ids"
import { ChannelRepo, RealmRepo } from "@teamchat/core/ports/Repositories"
import { Organizations } from "@teamchat/core/services/Organizations"
import { Users } from "@teamchat/core/services/Users"
import * as Effect from "effect/Effect"
import { openQueue } from "./EventListener.ts"
import type { Backend, Credentials, Role } from "./Harness.ts"
import { accounts, demoLayer, epoch, layerServer, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const badRequest = (msg: string) => ({ result: "error", msg, code: "BAD_REQUEST" })

/** The demo clock's start, in seconds: drafts sent without a time get it. */
const now = epoch / 1000

const roles: ReadonlyArray<Role> = ["owner", "admin", "moderator", "member", "guest", "bot"]

export const draftsContract = (backend: Backend) =>
  describe(`drafts over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const login = (email: string) => Effect.flatMap(Server, (server) => server.login(email))

      const create = (who: Credentials, drafts: unknown) =>
        Effect.flatMap(Server, (server) =>
          server.fetch("POST", "/api/v1/drafts", {
            as: who,
            form: { drafts: typeof drafts === "string" ? drafts : JSON.stringify(drafts) }
          }))
      const edit = (who: Credentials, id: number | string, draft: unknown) =>
        Effect.flatMap(Server, (server) =>
          server.fetch("PATCH", `/api/v1/drafts/${id}`, {
            as: who,
            form: { draft: typeof draft === "string" ? draft : JSON.stringify(draft) }
          }))
      const remove = (who: Credentials, id: number | string) =>
        Effect.flatMap(Server, (server) => server.fetch("DELETE", `/api/v1/drafts/${id}`, { as: who }))
      const list = (who: Credentials) => Effect.flatMap(Server, (server) => server.fetch("GET", "/api/v1/drafts", { as: who }))
      const listed = (who: Credentials) => Effect.map(list(who), (reply) => reply.json.drafts as Array<Record<string, unknown>>)
      const settings = (who: Credentials, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("PATCH", "/api/v1/settings", { as: who, form }))

      /** Registers for `drafts`: the initial state and the queue's poll (new events since the last poll). */
      const register = (who: Credentials) =>
        Effect.map(openQueue(who, ["drafts"]), ({ poll, state }) => ({ drafts: state.drafts as Array<Record<string, unknown>>, poll }))

      const channelId = (name: string) =>
        Effect.gen(function*() {
          const server = yield* Server
          const owner = yield* as("owner")
          const reply = yield* server.fetch("GET", "/api/v1/streams", { as: owner, query: { include_all: "true" } })
          const channel = reply.json.streams.find((s: { name: string }) => s.name === name)
          assert.isDefined(channel, name)
          return channel.stream_id as number
        })

      /** A channel only its creator (the owner) is subscribed to. */
      const ownersChannel = (name: string, inviteOnly: boolean) =>
        Effect.gen(function*() {
          const server = yield* Server
          const owner = yield* as("owner")
          const reply = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: owner,
            form: { subscriptions: JSON.stringify([{ name }]), invite_only: String(inviteOnly) }
          })
          assert.strictEqual(reply.status, 200, reply.text)
          return yield* channelId(name)
        })

      it.effect("every role keeps drafts: created, listed, announced to its own clients and registered", () =>
        Effect.gen(function*() {
          const verona = yield* channelId("Verona")
          const hamlet = yield* as("member")
          const cordelia = yield* login("cordelia@zulip.com")
          const bystander = yield* register(cordelia)
          for (const role of roles) {
            const who = yield* as(role)
            const before = yield* register(who)
            assert.deepStrictEqual(before.drafts, [], role)
            const reply = yield* create(who, [
              { type: "stream", to: [verona], topic: `plans (${role})`, content: "Let's meet  \n\n", timestamp: 1595479019 },
              { type: "private", to: [hamlet.userId], topic: "ignored", content: "\n\nHello there" },
              { type: "", to: [], topic: "", content: "Unaddressed thought", timestamp: 1595479020.75 }
            ])
            assert.strictEqual(reply.status, 200, `${role}: ${reply.text}`)
            const ids = reply.json.ids as Array<number>
            assert.deepStrictEqual(reply.json, success({ ids }))
            assert.strictEqual(ids.length, 3)
            assert.isTrue(ids[0]! < ids[1]! && ids[1]! < ids[2]!)
            // For the member himself this is a note to self: the same `to`.
            const stored = [
              { id: ids[0], type: "stream", to: [verona], topic: `plans (${role})`, content: "Let's meet", timestamp: 1595479019 },
              { id: ids[1], type: "private", to: [hamlet.userId], topic: "", content: "Hello there", timestamp: now },
              { id: ids[2], type: "", to: [], topic: "", content: "Unaddressed thought", timestamp: 1595479020 }
            ]
            assert.deepStrictEqual(yield* before.poll, [{ type: "drafts", op: "add", drafts: stored }], role)
            // GET: oldest edit first, with the count.
            const got = yield* list(who)
            assert.strictEqual(got.status, 200)
            assert.deepStrictEqual(got.json, success({ count: 3, drafts: [stored[0], stored[2], stored[1]] }))
            // Register: newest first.
            assert.deepStrictEqual((yield* register(who)).drafts, [stored[1], stored[2], stored[0]])
            // Clean up so the next role starts empty; each removal is announced.
            for (const id of ids) assert.deepStrictEqual((yield* remove(who, id)).json, success())
            assert.deepStrictEqual(
              yield* before.poll,
              ids.map((id) => ({ type: "drafts", op: "remove", draft_id: id }))
            )
            assert.deepStrictEqual(yield* listed(who), [])
          }
          // Nobody else hears of anyone's drafts.
          assert.deepStrictEqual(yield* bystander.poll, [])
        }))

      it.effect("addresses are normalised as Zulip stores them", () =>
        Effect.gen(function*() {
          const verona = yield* channelId("Verona")
          const who = yield* login("ZOE@zulip.com")
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const longTopic = "t".repeat(70)
          const reply = yield* create(who, [
            // A note to self, however often the user is named.
            { type: "private", to: [who.userId, who.userId], topic: "", content: "note to self" },
            // One other person, with the user named too: the other person.
            { type: "private", to: [who.userId, hamlet.userId, hamlet.userId], topic: "", content: "one on one" },
            // A group: the others, ascending.
            { type: "private", to: [iago.userId, who.userId, hamlet.userId], topic: "", content: "group" },
            // A direct draft to nobody is unaddressed.
            { type: "private", to: [], topic: "x", content: "to nobody" },
            // An unaddressed draft drops its `to` and topic.
            { type: "", to: [verona], topic: "dropped", content: "loose" },
            // A channel topic is cut at 60 characters.
            { type: "stream", to: [verona], topic: longTopic, content: "long topic" },
            { type: "stream", to: [verona], topic: "", content: "empty topic" }
          ])
          assert.strictEqual(reply.status, 200, reply.text)
          const ids = reply.json.ids as Array<number>
          const group = [iago.userId, hamlet.userId].sort((a, b) => a - b)
          assert.deepStrictEqual(yield* listed(who), [
            { id: ids[0], type: "private", to: [who.userId], topic: "", content: "note to self", timestamp: now },
            { id: ids[1], type: "private", to: [hamlet.userId], topic: "", content: "one on one", timestamp: now },
            { id: ids[2], type: "private", to: group, topic: "", content: "group", timestamp: now },
            { id: ids[3], type: "", to: [], topic: "", content: "to nobody", timestamp: now },
            { id: ids[4], type: "", to: [], topic: "", content: "loose", timestamp: now },
            { id: ids[5], type: "stream", to: [verona], topic: "t".repeat(57) + "...", content: "long topic", timestamp: now },
            { id: ids[6], type: "stream", to: [verona], topic: "", content: "empty topic", timestamp: now }
          ])
        }))

      it.effect("PATCH replaces a draft and announces it; DELETE removes it", () =>
        Effect.gen(function*() {
          const verona = yield* channelId("Verona")
          const denmark = yield* channelId("Denmark")
          const who = yield* login("othello@zulip.com")
          const hamlet = yield* as("member")
          const [id] = (yield* create(who, [{ type: "stream", to: [verona], topic: "a", content: "first" }])).json.ids
          const queue = yield* register(who)
          const replaced = { type: "stream", to: [denmark], topic: "b", content: "second", timestamp: 1700000000 }
          const reply = yield* edit(who, id, replaced)
          assert.strictEqual(reply.status, 200, reply.text)
          assert.deepStrictEqual(reply.json, success())
          assert.deepStrictEqual(yield* listed(who), [{ id, ...replaced }])
          assert.deepStrictEqual(yield* queue.poll, [{ type: "drafts", op: "update", draft: { id, ...replaced } }])
          // Re-addressed to a person; the time is the server's when absent.
          assert.deepStrictEqual(
            (yield* edit(who, id, { type: "private", to: [hamlet.userId], topic: "b", content: "third" })).json,
            success()
          )
          const third = { id, type: "private", to: [hamlet.userId], topic: "", content: "third", timestamp: now }
          assert.deepStrictEqual(yield* listed(who), [third])
          assert.deepStrictEqual(yield* queue.poll, [{ type: "drafts", op: "update", draft: third }])
          assert.deepStrictEqual((yield* remove(who, id)).json, success())
          assert.deepStrictEqual(yield* queue.poll, [{ type: "drafts", op: "remove", draft_id: id }])
          assert.deepStrictEqual(yield* listed(who), [])
        }))

      it.effect("unknown ids and other users' drafts are 404 \"Draft does not exist\"", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const [id] = (yield* create(hamlet, [{ type: "", to: [], topic: "", content: "mine" }])).json.ids
          const queue = yield* register(hamlet)
          const draft = { type: "", to: [], topic: "", content: "theirs" }
          for (const [who, target] of [[iago, id], [hamlet, 999999], [iago, "99999999999999999999"]] as const) {
            const patched = yield* edit(who, target, draft)
            assert.strictEqual(patched.status, 404, patched.text)
            assert.deepStrictEqual(patched.json, badRequest("Draft does not exist"))
            const removed = yield* remove(who, target)
            assert.strictEqual(removed.status, 404, removed.text)
            assert.deepStrictEqual(removed.json, badRequest("Draft does not exist"))
          }
          // A path that is no id is no route.
          assert.strictEqual((yield* remove(hamlet, "abc")).status, 404)
          assert.deepStrictEqual(yield* listed(hamlet), [{ id, type: "", to: [], topic: "", content: "mine", timestamp: now }])
          assert.deepStrictEqual(yield* queue.poll, [])
          yield* remove(hamlet, id)
        }))

      it.effect("bad drafts are refused with Zulip's texts; a batch with one bad draft writes none", () =>
        Effect.gen(function*() {
          const verona = yield* channelId("Verona")
          const publicChannel = yield* ownersChannel("drafts public", false)
          const privateChannel = yield* ownersChannel("drafts private", true)
          const archivedChannel = yield* ownersChannel("drafts archived", false)
          const server = yield* Server
          yield* server.core(Effect.gen(function*() {
            const channels = yield* ChannelRepo
            const channel = (yield* channels.findById(toChannelId(archivedChannel)))!
            yield* channels.update({ ...channel, is_archived: true })
          }))
          const who = yield* as("member")
          const guest = yield* as("guest")
          const admin = yield* as("admin")
          const good = { type: "stream", to: [verona], topic: "fine", content: "fine" }
          const queue = yield* register(who)
          const cases: ReadonlyArray<readonly [Credentials, unknown, string]> = [
            [who, [good, { type: "stream", to: [], topic: "t", content: "c" }], "Must specify exactly 1 channel ID for channel messages"],
            [who, [good, { type: "stream", to: [verona, verona], topic: "t", content: "c" }], "Must specify exactly 1 channel ID for channel messages"],
            [who, [good, { type: "stream", to: [999999], topic: "t", content: "c" }], "Invalid channel ID"],
            [who, [good, { type: "stream", to: [0], topic: "t", content: "c" }], "Invalid channel ID"],
            [who, [{ type: "stream", to: [privateChannel], topic: "t", content: "c" }], "Invalid channel ID"],
            // Administrators see a private channel's metadata, not its messages.
            [admin, [{ type: "stream", to: [privateChannel], topic: "t", content: "c" }], "Invalid channel ID"],
            // An archived channel is no address, for its subscriber too.
            [who, [{ type: "stream", to: [archivedChannel], topic: "t", content: "c" }], "Invalid channel ID"],
            [yield* as("owner"), [{ type: "stream", to: [archivedChannel], topic: "t", content: "c" }], "Invalid channel ID"],
            // Guests reach only the channels they are in.
            [guest, [{ type: "stream", to: [publicChannel], topic: "t", content: "c" }], "Invalid channel ID"],
            [who, [good, { type: "private", to: [who.userId, 999999], topic: "", content: "c" }], "Invalid user ID 999999"],
            [who, [good, { type: "stream", to: [verona], topic: "a\u0000b", content: "c" }], "Topic must not contain null bytes"],
            [who, [good, { type: "", to: [], topic: "", content: "a\u0000b" }], "Message must not contain null bytes"],
            [who, [good, { type: "", to: [], topic: "", content: "c", timestamp: -1 }], "Timestamp must not be negative."],
            [who, [good, { id: 5, type: "", to: [], topic: "", content: "c" }], "Argument \"id\" at drafts[1] is unexpected"],
            [who, [good, { type: "", to: [], topic: "", content: "  \n " }], "drafts[1][\"content\"] cannot be blank"],
            [who, [good, { type: "channel", to: [verona], topic: "", content: "c" }], "Invalid drafts[1][\"type\"]"],
            [who, [good, { type: "", to: ["x"], topic: "", content: "c" }], "drafts[1][\"to\"][0] is not an integer"],
            [who, [good, { type: "", to: [], topic: 5, content: "c" }], "drafts[1][\"topic\"] is not a string"],
            [who, [good, { type: "", to: [], topic: "", content: "c", timestamp: "soon" }], "drafts[1][\"timestamp\"] is not an integer"],
            [who, [good, { type: "", to: [], topic: "", content: "c", timestamp: 1e20 }], "drafts[1][\"timestamp\"] is too large"],
            [who, { type: "", to: [], topic: "", content: "c" }, "drafts is not a list"],
            [who, "[{", "drafts is not valid JSON"]
          ]
          for (const [as, drafts, msg] of cases) {
            const reply = yield* create(as, drafts)
            assert.strictEqual(reply.status, 400, `${msg}: ${reply.text}`)
            assert.deepStrictEqual(reply.json, badRequest(msg))
          }
          const missing = yield* Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/drafts", { as: who }))
          assert.strictEqual(missing.status, 400)
          assert.deepStrictEqual(missing.json, {
            result: "error",
            msg: "Missing 'drafts' argument",
            code: "REQUEST_VARIABLE_MISSING",
            var_name: "drafts"
          })
          // Nothing was written and nothing announced.
          assert.deepStrictEqual(yield* listed(who), [])
          assert.deepStrictEqual(yield* listed(guest), [])
          assert.deepStrictEqual(yield* listed(admin), [])
          assert.deepStrictEqual(yield* queue.poll, [])
          // A refused edit leaves the draft as it was.
          const [id] = (yield* create(who, [good])).json.ids
          yield* queue.poll
          const refused = yield* edit(who, id, { type: "stream", to: [], topic: "t", content: "changed" })
          assert.deepStrictEqual(refused.json, badRequest("Must specify exactly 1 channel ID for channel messages"))
          const noDraft = yield* Effect.flatMap(Server, (server) => server.fetch("PATCH", `/api/v1/drafts/${id}`, { as: who }))
          assert.strictEqual(noDraft.status, 400)
          assert.deepStrictEqual(noDraft.json, {
            result: "error",
            msg: "Missing 'draft' argument",
            code: "REQUEST_VARIABLE_MISSING",
            var_name: "draft"
          })
          const blank = yield* edit(who, id, { type: "", to: [], topic: "", content: "" })
          assert.deepStrictEqual(blank.json, badRequest("draft[\"content\"] cannot be blank"))
          assert.deepStrictEqual(yield* listed(who), [{ id, ...good, timestamp: now }])
          assert.deepStrictEqual(yield* queue.poll, [])
          yield* remove(who, id)
        }))

      it.effect("with syncing off every endpoint refuses first, and the stored drafts are gone without events", () =>
        Effect.gen(function*() {
          const who = yield* login("prospero@zulip.com")
          const [id] = (yield* create(who, [{ type: "", to: [], topic: "", content: "kept?" }])).json.ids
          const queue = yield* register(who)
          assert.deepStrictEqual((yield* settings(who, { enable_drafts_synchronization: "false" })).json, success())
          const events = yield* queue.poll
          assert.deepStrictEqual(events.filter((e) => e.type === "drafts"), [])
          const disabled = badRequest("User has disabled synchronizing drafts.")
          for (const reply of [
            yield* list(who),
            yield* create(who, [{ type: "", to: [], topic: "", content: "c" }]),
            // Refused before the parameters are read.
            yield* create(who, "not json"),
            yield* edit(who, id, { type: "", to: [], topic: "", content: "c" }),
            yield* edit(who, 999999, "not json"),
            yield* remove(who, id)
          ]) {
            assert.strictEqual(reply.status, 400, reply.text)
            assert.deepStrictEqual(reply.json, disabled)
          }
          assert.deepStrictEqual((yield* register(who)).drafts, [])
          // Back on: the old drafts stayed deleted.
          assert.deepStrictEqual((yield* settings(who, { enable_drafts_synchronization: "true" })).json, success())
          assert.deepStrictEqual(yield* listed(who), [])
          assert.deepStrictEqual((yield* remove(who, id)).json, badRequest("Draft does not exist"))
        }))

      /** A new member of the demo organization, made through the core. */
      const newMember = (email: string) =>
        Effect.gen(function*() {
          const server = yield* Server
          return yield* server.core(Users.use((users) =>
            users.create(realmId(1), { email, full_name: email.split("@")[0]!, role: 400 })
          ))
        })

      it.effect("a direct draft to a deactivated user is refused with Zulip's text", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const gone = yield* newMember("drafts-gone@zulip.com")
          yield* server.core(Users.use((users) => users.deactivate(gone.id)))
          const who = yield* as("member")
          const reply = yield* create(who, [{ type: "private", to: [gone.id], topic: "", content: "hello?" }])
          assert.strictEqual(reply.status, 400, reply.text)
          assert.deepStrictEqual(reply.json, badRequest(`'${gone.email}' is no longer using Zulip.`))
          assert.deepStrictEqual(yield* listed(who), [])
        }))

      it.effect("register sends the 1,000 most recently edited drafts, newest first; GET sends them all", () =>
        Effect.gen(function*() {
          const user = yield* newMember("many-drafts@zulip.com")
          const who = yield* login(user.delivery_email)
          // Edited at 1, 2, …, 1001 seconds, sent in a shuffled order.
          const times = Array.from({ length: 1001 }, (_, i) => ((i * 389) % 1001) + 1)
          const reply = yield* create(who, times.map((t) => ({ type: "", to: [], topic: "", content: `at ${t}`, timestamp: t })))
          assert.strictEqual(reply.status, 200, reply.text)
          const ids = reply.json.ids as Array<number>
          const idAt = new Map(times.map((t, i) => [t, ids[i]!]))
          const draftAt = (t: number) => ({ id: idAt.get(t), type: "", to: [], topic: "", content: `at ${t}`, timestamp: t })
          const registered = (yield* register(who)).drafts
          assert.deepStrictEqual(registered, Array.from({ length: 1000 }, (_, i) => draftAt(1001 - i)))
          const all = yield* list(who)
          assert.strictEqual(all.json.count, 1001)
          assert.deepStrictEqual(all.json.drafts, Array.from({ length: 1001 }, (_, i) => draftAt(i + 1)))
        }))

      it.effect("a batch of 10,000 drafts (the most a list parameter holds) is written whole, over several statements", () =>
        Effect.gen(function*() {
          const user = yield* newMember("batch-drafts@zulip.com")
          const who = yield* login(user.delivery_email)
          const count = 10_000
          const reply = yield* create(
            who,
            Array.from({ length: count }, (_, i) => ({ type: "", to: [], topic: "", content: `d${i}`, timestamp: i }))
          )
          assert.strictEqual(reply.status, 200, reply.text.slice(0, 300))
          const ids = reply.json.ids as Array<number>
          assert.strictEqual(ids.length, count)
          for (let i = 1; i < count; i++) assert.isTrue(ids[i]! > ids[i - 1]!)
          const all = yield* list(who)
          assert.strictEqual(all.json.count, count)
          assert.deepStrictEqual(
            all.json.drafts.map((d: { id: number; content: string }) => [d.id, d.content]),
            ids.map((id, i) => [id, `d${i}`])
          )
        }))

      it.effect("a guest who may not see a user cannot address a draft to them", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const loner = yield* newMember("drafts-loner@zulip.com")
          const guest = yield* as("guest")
          const owner = yield* as("owner")
          /** Who may see every user: the organization's members (guests see only people they share a channel with). */
          const setAccess = (group: "role:members" | "role:everyone") =>
            server.core(Effect.gen(function*() {
              const groups = yield* (yield* Organizations).systemGroups(loner.realm_id)
              const realms = yield* RealmRepo
              const realm = (yield* realms.findById(loner.realm_id))!
              yield* realms.update({ ...realm, settings: { ...realm.settings, can_access_all_users_group: groups[group] } })
            }))
          const draft = [{ type: "private", to: [loner.id], topic: "", content: "hello" }]
          // Everyone sees everyone by default.
          const allowed = yield* create(guest, draft)
          assert.strictEqual(allowed.status, 200, allowed.text)
          yield* remove(guest, allowed.json.ids[0])
          yield* setAccess("role:members")
          const refused = yield* create(guest, draft)
          assert.strictEqual(refused.status, 400, refused.text)
          assert.deepStrictEqual(refused.json, badRequest("You do not have permission to access some of the recipients."))
          assert.deepStrictEqual(yield* listed(guest), [])
          // Members are not limited.
          const ownerDraft = yield* create(owner, draft)
          assert.strictEqual(ownerDraft.status, 200, ownerDraft.text)
          yield* remove(owner, ownerDraft.json.ids[0])
          yield* setAccess("role:everyone")
        }))

      it.effect("an empty batch creates nothing", () =>
        Effect.gen(function*() {
          const who = yield* login("AARON@zulip.com")
          const reply = yield* create(who, [])
          assert.strictEqual(reply.status, 200, reply.text)
          assert.deepStrictEqual(reply.json, success({ ids: [] }))
          assert.deepStrictEqual(yield* listed(who), [])
        }))
    })
  })
