/**
 * User groups over the wire, written once and run on every core backend:
 * every `/user_groups` endpoint as each role (owner, administrator,
 * moderator, member, guest, bot) with exact bodies, the group rules
 * (defaults, names, setting values, compare-and-set, nesting, cycles,
 * deactivation and its objections, reactivation), the `user_group` events
 * with the `include_deactivated_groups` capability rule, and
 * `realm_user_groups` in POST /register.
 *
 * The tests share the demo organization, so each one makes its own groups
 * under unique names and states ids relative to what it made.
 */
import { assert, describe, layer } from "@effect/vitest"
import { GroupRepo, RealmRepo, UserRepo } from "@teamchat/core/ports/Repositories"
import * as Effect from "effect/Effect"
import { listen as listenTo } from "./EventListener.ts"
import type { Backend, Credentials, Reply, Role } from "./Harness.ts"
import { accounts, demoLayer, layerServer, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const error = (msg: string, extra: object = {}) => ({ result: "error", msg, code: "BAD_REQUEST", ...extra })
const guestError = error("Not allowed for guest users")
const botError = error("This endpoint does not accept bot requests.")
const insufficient = error("Insufficient permission")
const roles: ReadonlyArray<Role> = ["owner", "admin", "moderator", "member", "guest", "bot"]
/** What a guest and a bot get from every group endpoint. */
const refusedCallers: Partial<Record<Role, object>> = { guest: guestError, bot: botError }

let counter = 0
const uniqueName = (prefix: string) => `${prefix}-${process.pid % 10000}-${++counter}`

const expectReply = (reply: Reply, status: number, body: unknown, label?: string) => {
  assert.strictEqual(reply.status, status, `${label ?? ""} ${reply.text}`)
  assert.deepStrictEqual(reply.json, body, label)
}

export const userGroupsContract = (backend: Backend) =>
  describe(`user groups over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "180 seconds" })((it) => {
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const login = (email: string) => Effect.flatMap(Server, (server) => server.login(email))
      const call = (who: Credentials, method: string, path: string, form?: Record<string, string>) =>
        Effect.flatMap(Server, (server) =>
          server.fetch(method, `/api/v1${path}`, method === "GET" ? { as: who, query: form } : { as: who, form }))

      /** Creates a group as `who` (must succeed) and returns its id. */
      const createGroup = (who: Credentials, form: Record<string, string> = {}) =>
        Effect.map(
          call(who, "POST", "/user_groups/create", { name: uniqueName("team"), description: "A team", members: "[]", ...form }),
          (reply) => {
            assert.strictEqual(reply.status, 200, reply.text)
            assert.deepStrictEqual(Object.keys(reply.json).sort(), ["group_id", "msg", "result"])
            return reply.json.group_id as number
          }
        )

      const groupOf = (who: Credentials, id: number) =>
        Effect.map(call(who, "GET", "/user_groups", { include_deactivated_groups: "true" }), (reply) =>
          reply.json.user_groups.find((g: { id: number }) => g.id === id))

      /** System group ids by name, from storage. */
      const systemGroups = Effect.flatMap(Server, (server) =>
        server.core(Effect.gen(function*() {
          const owner = yield* (yield* UserRepo).findById((yield* server.login(accounts.owner)).userId as never)
          const all = yield* (yield* GroupRepo).listByRealm(owner!.realm_id)
          return Object.fromEntries(all.filter((g) => g.is_system_group).map((g) => [g.name, g.id as number])) as Record<string, number>
        })))

      /** A queue of `who` for user_group events; returns a reader of what arrived since the last read. */
      const listen = (who: Credentials, capabilities: Record<string, boolean> = {}) =>
        listenTo(who, ["user_group"], { client_capabilities: JSON.stringify(capabilities) })

      // -------------------------------------------------------------------
      // GET /user_groups

      it.effect("GET /user_groups as every role: the system groups exactly; guests and bots refused", () =>
        Effect.gen(function*() {
          const g = yield* systemGroups
          const order = ["role:nobody", "role:owners", "role:administrators", "role:moderators", "role:fullmembers", "role:members", "role:everyone", "role:internet"]
          const descriptions = [
            "Nobody",
            "Owners of this organization",
            "Administrators of this organization, including owners",
            "Moderators of this organization, including administrators",
            "Members of this organization, not including new accounts and guests",
            "Members of this organization, not including guests",
            "Everyone in this organization, including guests",
            "Everyone on the Internet"
          ]
          const ids = order.map((name) => g[name]!)
          assert.deepStrictEqual(ids, [...ids].sort((a, b) => a - b), "system groups are created in Zulip's order")
          const owner = yield* as("owner")
          const admin = yield* as("admin")
          const moderator = yield* as("moderator")
          const guest = yield* as("guest")
          const expectedDirect: Record<string, ReadonlyArray<number>> = {
            "role:owners": [owner.userId],
            "role:administrators": [admin.userId],
            "role:moderators": [moderator.userId],
            "role:everyone": [guest.userId]
          }
          for (const role of roles) {
            const reply = yield* call(yield* as(role), "GET", "/user_groups")
            if (refusedCallers[role] !== undefined) {
              expectReply(reply, 400, refusedCallers[role], role)
              continue
            }
            assert.strictEqual(reply.status, 200, reply.text)
            const system = reply.json.user_groups.filter((x: { is_system_group: boolean }) => x.is_system_group)
            assert.deepStrictEqual(system.map((x: { name: string }) => x.name), order, role)
            system.forEach((x: Record<string, unknown>, i: number) => {
              const { members, ...rest } = x
              assert.deepStrictEqual(rest, {
                id: ids[i],
                name: order[i],
                description: descriptions[i],
                direct_subgroup_ids: i >= 2 ? [ids[i - 1]] : [],
                creator_id: null,
                date_created: null,
                is_system_group: true,
                can_add_members_group: g["role:nobody"],
                can_join_group: g["role:nobody"],
                can_leave_group: g["role:nobody"],
                can_manage_group: g["role:nobody"],
                can_mention_group: g["role:nobody"],
                can_remove_members_group: g["role:nobody"],
                deactivated: false
              }, `${role}: ${order[i]}`)
              const expected = expectedDirect[order[i]!]
              if (expected !== undefined) assert.deepStrictEqual(members, expected, `${role}: ${order[i]} members`)
            })
            assert.deepStrictEqual(Object.keys(reply.json).sort(), ["msg", "result", "user_groups"])
          }
          // Members are listed as direct members of role:members and role:fullmembers, never of internet or nobody.
          const list = (yield* call(owner, "GET", "/user_groups")).json.user_groups
          const hamlet = yield* as("member")
          const named = (n: string) => list.find((x: { name: string }) => x.name === n)
          assert.include(named("role:members").members, hamlet.userId)
          assert.deepStrictEqual(named("role:nobody").members, [])
          assert.deepStrictEqual(named("role:internet").members, [])
        }))

      it.effect("GET /user_groups: deactivated groups only with include_deactivated_groups", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const id = yield* createGroup(owner)
          expectReply(yield* call(owner, "POST", `/user_groups/${id}/deactivate`), 200, success())
          const listed = (query?: Record<string, string>) =>
            Effect.map(call(owner, "GET", "/user_groups", query), (r) => r.json.user_groups.map((x: { id: number }) => x.id))
          assert.notInclude(yield* listed(), id)
          assert.notInclude(yield* listed({ include_deactivated_groups: "false" }), id)
          assert.include(yield* listed({ include_deactivated_groups: "true" }), id)
          expectReply(yield* call(owner, "GET", "/user_groups", { include_deactivated_groups: "yes" }), 400,
            error("include_deactivated_groups is not valid JSON"))
        }))

      // -------------------------------------------------------------------
      // POST /user_groups/create

      it.effect("POST /user_groups/create as every role under the default can_create_groups (role:members)", () =>
        Effect.gen(function*() {
          const g = yield* systemGroups
          for (const role of roles) {
            const who = yield* as(role)
            const name = uniqueName(`by-${role}`)
            const reply = yield* call(who, "POST", "/user_groups/create", { name, description: "d", members: "[]" })
            if (refusedCallers[role] !== undefined) {
              expectReply(reply, 400, refusedCallers[role], role)
              continue
            }
            assert.strictEqual(reply.status, 200, `${role}: ${reply.text}`)
            const id = reply.json.group_id as number
            expectReply(reply, 200, success({ group_id: id }), role)
            const group = yield* groupOf(who, id)
            assert.deepStrictEqual(group, {
              id,
              name,
              description: "d",
              members: [],
              direct_subgroup_ids: [],
              creator_id: who.userId,
              date_created: group.date_created,
              is_system_group: false,
              can_add_members_group: { direct_members: [who.userId], direct_subgroups: [] },
              can_join_group: g["role:nobody"],
              can_leave_group: g["role:everyone"],
              can_manage_group: { direct_members: [who.userId], direct_subgroups: [] },
              can_mention_group: g["role:everyone"],
              can_remove_members_group: g["role:nobody"],
              deactivated: false
            }, role)
            assert.isTrue(Number.isInteger(group.date_created))
          }
        }))

      it.effect("POST /user_groups/create: the add event to everyone, guests included, with the group as listed", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const othello = yield* login("othello@zulip.com")
          const readers = [yield* listen(yield* as("owner")), yield* listen(yield* as("guest")), yield* listen(member, { include_deactivated_groups: true })]
          const id = yield* createGroup(member, {
            name: uniqueName("evented"),
            members: JSON.stringify([othello.userId, member.userId]),
            can_mention_group: JSON.stringify({ direct_members: [othello.userId], direct_subgroups: [] })
          })
          const group = yield* groupOf(member, id)
          assert.deepStrictEqual(group.members, [member.userId, othello.userId].sort((a, b) => a - b))
          for (const read of readers) assert.deepStrictEqual(yield* read, [{ type: "user_group", op: "add", group }])
        }))

      it.effect("POST /user_groups/create: names, members, subgroups and setting values refused with Zulip's texts", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const g = yield* systemGroups
          const taken = uniqueName("taken")
          yield* createGroup(member, { name: taken })
          const cases: ReadonlyArray<readonly [Record<string, string>, object]> = [
            [{ name: " " }, error("User group name can't be empty!")],
            [{ name: "n".repeat(101) }, error("User group name cannot exceed 100 characters.")],
            [{ name: "role:x" }, error("User group name cannot start with 'role:'.")],
            [{ name: "@x" }, error("User group name cannot start with '@'.")],
            [{ name: taken }, error(`User group '${taken}' already exists.`)],
            [{ members: "[999999]" }, error("Invalid user ID: 999999")],
            [{ members: "1" }, error("members is not a list")],
            [{ members: "[\"a\"]" }, error("members[0] is not an integer")],
            [{ subgroups: "[999999]" }, error("Invalid user group ID: 999999")],
            [{ can_manage_group: String(g["role:everyone"]) }, error("'can_manage_group' setting cannot be set to 'role:everyone' group.")],
            [{ can_manage_group: String(g["role:internet"]) }, error("'can_manage_group' setting cannot be set to 'role:internet' group.")],
            [{ can_mention_group: String(g["role:owners"]) }, error("'can_mention_group' setting cannot be set to 'role:owners' group.")],
            [{ can_join_group: "999999" }, error("Invalid user group ID: 999999")],
            [{ can_join_group: "{\"direct_members\":[999999],\"direct_subgroups\":[]}" }, error("Invalid user ID: 999999")],
            [{ can_join_group: "{\"direct_members\":[]}" }, error("Invalid can_join_group")],
            [{ can_join_group: "nope" }, error("can_join_group is not valid JSON")]
          ]
          for (const [form, body] of cases) {
            const reply = yield* call(member, "POST", "/user_groups/create", { name: uniqueName("bad"), description: "d", members: "[]", ...form })
            assert.strictEqual(reply.status, 400, `${JSON.stringify(form)}: ${reply.text}`)
            assert.deepStrictEqual(reply.json, body, JSON.stringify(form))
          }
          const missing = yield* call(member, "POST", "/user_groups/create", { name: uniqueName("m"), description: "d" })
          expectReply(missing, 400, { result: "error", msg: "Missing 'members' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "members" })
        }))

      it.effect("POST /user_groups/create: can_create_groups set to role:moderators, per role", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const g = yield* systemGroups
          const setCreate = (value: number) =>
            server.core(Effect.gen(function*() {
              const realms = yield* RealmRepo
              const owner = yield* (yield* UserRepo).findById((yield* server.login(accounts.owner)).userId as never)
              const realm = (yield* realms.findById(owner!.realm_id))!
              yield* realms.update({ ...realm, settings: { ...realm.settings, can_create_groups: value as never } })
            }))
          yield* setCreate(g["role:moderators"]!)
          const expected: Record<Role, number> = { owner: 200, admin: 200, moderator: 200, member: 400, guest: 400, bot: 400 }
          for (const role of roles) {
            const reply = yield* call(yield* as(role), "POST", "/user_groups/create", { name: uniqueName("mod"), description: "", members: "[]" })
            assert.strictEqual(reply.status, expected[role], `${role}: ${reply.text}`)
            if (role === "member") assert.deepStrictEqual(reply.json, insufficient)
          }
          yield* setCreate(g["role:members"]!)
        }))

      // -------------------------------------------------------------------
      // PATCH /user_groups/{id}

      it.effect("PATCH /user_groups/{id} as every role: the creator and owners (can_manage_all_groups) only", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const id = yield* createGroup(member)
          const expected: Record<Role, object> = {
            owner: success(),
            admin: insufficient,
            moderator: insufficient,
            member: success(),
            guest: guestError,
            bot: botError
          }
          for (const role of roles) {
            const reply = yield* call(yield* as(role), "PATCH", `/user_groups/${id}`, { description: `by ${role}` })
            expectReply(reply, role === "owner" || role === "member" ? 200 : 400, expected[role], role)
          }
          assert.strictEqual((yield* groupOf(member, id)).description, "by member")
          const othello = yield* login("othello@zulip.com")
          expectReply(yield* call(othello, "PATCH", `/user_groups/${id}`, { description: "x" }), 400, insufficient)
        }))

      it.effect("PATCH /user_groups/{id}: compare-and-set, no new data, system and unknown groups, events per field", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const owner = yield* as("owner")
          const g = yield* systemGroups
          const id = yield* createGroup(member)
          const read = yield* listen(yield* as("moderator"))
          expectReply(yield* call(member, "PATCH", `/user_groups/${id}`), 400, error("No new data supplied"))
          expectReply(
            yield* call(member, "PATCH", `/user_groups/${id}`, {
              description: "never",
              can_join_group: JSON.stringify({ new: g["role:members"], old: g["role:everyone"] })
            }),
            400,
            { result: "error", msg: "'old' value does not match the expected value.", code: "EXPECTATION_MISMATCH", field_name: "old" }
          )
          assert.deepStrictEqual(yield* read, [])
          const name = uniqueName("renamed")
          expectReply(
            yield* call(member, "PATCH", `/user_groups/${id}`, {
              name,
              description: "new description",
              can_join_group: JSON.stringify({ new: g["role:members"], old: g["role:nobody"] }),
              can_leave_group: JSON.stringify({ new: g["role:everyone"] })
            }),
            200,
            success()
          )
          assert.deepStrictEqual(yield* read, [
            { type: "user_group", op: "update", group_id: id, data: { name } },
            { type: "user_group", op: "update", group_id: id, data: { description: "new description" } },
            { type: "user_group", op: "update", group_id: id, data: { can_join_group: g["role:members"] } }
          ])
          expectReply(
            yield* call(member, "PATCH", `/user_groups/${id}`, { can_manage_group: JSON.stringify({ new: g["role:everyone"] }) }),
            400,
            error("'can_manage_group' setting cannot be set to 'role:everyone' group.")
          )
          expectReply(yield* call(member, "PATCH", `/user_groups/${id}`, { can_manage_group: "{\"old\":1}" }), 400,
            {
            result: "error",
            msg: "Missing 'can_manage_group[\"new\"]' argument",
            code: "REQUEST_VARIABLE_MISSING",
            var_name: "can_manage_group[\"new\"]"
          })
          expectReply(yield* call(owner, "PATCH", `/user_groups/${g["role:members"]}`, { description: "x" }), 400, insufficient)
          expectReply(yield* call(owner, "PATCH", "/user_groups/999999", { description: "x" }), 400, error("Invalid user group"))
          assert.deepStrictEqual(yield* read, [])
        }))

      // -------------------------------------------------------------------
      // Members and subgroups

      it.effect("POST /user_groups/{id}/members as every role: managers add and remove; events to everyone", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const othello = yield* login("othello@zulip.com")
          const id = yield* createGroup(member)
          const read = yield* listen(yield* as("guest"))
          const expected: Record<Role, object> = {
            owner: success(),
            admin: insufficient,
            moderator: insufficient,
            member: success(),
            guest: guestError,
            bot: botError
          }
          for (const role of roles) {
            const who = yield* as(role)
            const add = yield* call(who, "POST", `/user_groups/${id}/members`, { add: JSON.stringify([othello.userId]) })
            assert.deepStrictEqual(add.json, expected[role], role)
            if (add.status === 200) {
              assert.deepStrictEqual(yield* read, [{ type: "user_group", op: "add_members", group_id: id, user_ids: [othello.userId] }])
              expectReply(yield* call(who, "POST", `/user_groups/${id}/members`, { add: JSON.stringify([othello.userId]) }), 400,
                error(`User ${othello.userId} is already a member of this group`))
              expectReply(yield* call(who, "POST", `/user_groups/${id}/members`, { delete: JSON.stringify([othello.userId]) }), 200, success())
              assert.deepStrictEqual(yield* read, [{ type: "user_group", op: "remove_members", group_id: id, user_ids: [othello.userId] }])
            }
          }
          expectReply(yield* call(member, "POST", `/user_groups/${id}/members`, { delete: JSON.stringify([othello.userId]) }), 400,
            error(`There is no member '${othello.userId}' in this user group`))
          expectReply(yield* call(member, "POST", `/user_groups/${id}/members`, { add: "[999999]" }), 400, error("Invalid user ID: 999999"))
          expectReply(yield* call(member, "POST", `/user_groups/${id}/members`, {}), 400,
            error("Nothing to do. Specify at least one of \"add\", \"delete\", \"add_subgroups\" or \"delete_subgroups\"."))
          expectReply(yield* call(member, "POST", "/user_groups/999999/members", { add: "[1]" }), 400, error("Invalid user group"))
          assert.deepStrictEqual(yield* read, [])
        }))

      it.effect("Joining and leaving: can_join_group and can_leave_group for oneself only", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const g = yield* systemGroups
          const othello = yield* login("othello@zulip.com")
          const cordelia = yield* login("cordelia@zulip.com")
          const id = yield* createGroup(member)
          const join = (who: Credentials, ids: ReadonlyArray<number>) =>
            call(who, "POST", `/user_groups/${id}/members`, { add: JSON.stringify(ids) })
          expectReply(yield* join(othello, [othello.userId]), 400, insufficient)
          expectReply(
            yield* call(member, "PATCH", `/user_groups/${id}`, { can_join_group: JSON.stringify({ new: g["role:members"] }) }),
            200,
            success()
          )
          expectReply(yield* join(othello, [othello.userId]), 200, success())
          expectReply(yield* join(othello, [cordelia.userId]), 400, insufficient)
          expectReply(yield* call(othello, "POST", `/user_groups/${id}/members`, { delete: JSON.stringify([othello.userId]) }), 200, success())
          // Guests are refused before any group setting is looked at.
          expectReply(yield* join(yield* as("guest"), [(yield* as("guest")).userId]), 400, guestError)
          const members = yield* call(member, "GET", `/user_groups/${id}/members`)
          expectReply(members, 200, success({ members: [] }))
        }))

      it.effect("Subgroups: add and remove through both endpoints, nesting, cycles, events", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const othello = yield* login("othello@zulip.com")
          const cordelia = yield* login("cordelia@zulip.com")
          const leaf = yield* createGroup(member, { members: JSON.stringify([cordelia.userId]) })
          const middle = yield* createGroup(member, { members: JSON.stringify([othello.userId]), subgroups: JSON.stringify([leaf]) })
          const top = yield* createGroup(member)
          const read = yield* listen(yield* as("owner"))
          expectReply(yield* call(member, "POST", `/user_groups/${top}/subgroups`, { add: JSON.stringify([middle]) }), 200, success())
          assert.deepStrictEqual(yield* read, [{ type: "user_group", op: "add_subgroups", group_id: top, direct_subgroup_ids: [middle] }])
          const sorted = (ids: Array<number>) => ids.sort((a, b) => a - b)
          expectReply(yield* call(member, "GET", `/user_groups/${top}/members`), 200, success({ members: sorted([othello.userId, cordelia.userId]) }))
          expectReply(yield* call(member, "GET", `/user_groups/${top}/members`, { direct_member_only: "true" }), 200, success({ members: [] }))
          expectReply(yield* call(member, "GET", `/user_groups/${top}/subgroups`), 200, success({ subgroups: sorted([middle, leaf]) }))
          expectReply(yield* call(member, "GET", `/user_groups/${top}/subgroups`, { direct_subgroup_only: "true" }), 200, success({ subgroups: [middle] }))
          expectReply(yield* call(member, "GET", `/user_groups/${top}/members/${cordelia.userId}`), 200, success({ is_user_group_member: true }))
          expectReply(yield* call(member, "GET", `/user_groups/${top}/members/${cordelia.userId}`, { direct_member_only: "true" }), 200,
            success({ is_user_group_member: false }))
          expectReply(yield* call(member, "POST", `/user_groups/${leaf}/subgroups`, { add: JSON.stringify([top]) }), 400,
            error(`User group ${leaf} is already a subgroup of one of the passed subgroups.`))
          expectReply(yield* call(member, "POST", `/user_groups/${top}/subgroups`, { add: JSON.stringify([middle]) }), 400,
            error(`User group ${middle} is already a subgroup of this group.`))
          expectReply(yield* call(member, "POST", `/user_groups/${top}/subgroups`, { delete: JSON.stringify([leaf]) }), 400,
            error(`User group ${leaf} is not a subgroup of this group.`))
          expectReply(yield* call(member, "POST", `/user_groups/${top}/subgroups`, {}), 400,
            error("Nothing to do. Specify at least one of \"add\" or \"delete\"."))
          expectReply(yield* call(member, "POST", `/user_groups/${top}/members`, { delete_subgroups: JSON.stringify([middle]) }), 200, success())
          assert.deepStrictEqual(yield* read, [{ type: "user_group", op: "remove_subgroups", group_id: top, direct_subgroup_ids: [middle] }])
          expectReply(yield* call(member, "GET", `/user_groups/${top}/members`), 200, success({ members: [] }))
        }))

      it.effect("Reads as every role: members, membership and subgroups; unknown ids", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const othello = yield* login("othello@zulip.com")
          const id = yield* createGroup(member, { members: JSON.stringify([othello.userId]) })
          for (const role of roles) {
            const who = yield* as(role)
            const refused = refusedCallers[role]
            const replies = [
              [yield* call(who, "GET", `/user_groups/${id}/members`), success({ members: [othello.userId] })],
              [yield* call(who, "GET", `/user_groups/${id}/members/${othello.userId}`), success({ is_user_group_member: true })],
              [yield* call(who, "GET", `/user_groups/${id}/subgroups`), success({ subgroups: [] })]
            ] as const
            for (const [reply, body] of replies) expectReply(reply, refused === undefined ? 200 : 400, refused ?? body, role)
          }
          expectReply(yield* call(member, "GET", "/user_groups/999999/members"), 400, error("Invalid user group"))
          expectReply(yield* call(member, "GET", `/user_groups/${id}/members/999999`), 400, error("No such user"))
          const bot = yield* as("bot")
          expectReply(yield* call(member, "GET", `/user_groups/${id}/members/${bot.userId}`), 400, error("No such user"))
          const notDigits = yield* call(member, "GET", "/user_groups/abc/members")
          assert.strictEqual(notDigits.status, 404)
        }))

      // -------------------------------------------------------------------
      // Deactivation

      it.effect("POST /user_groups/{id}/deactivate as every role; events by capability; reactivation", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const expected: Record<Role, object> = {
            owner: success(),
            admin: insufficient,
            moderator: insufficient,
            member: success(),
            guest: guestError,
            bot: botError
          }
          for (const role of roles) {
            const id = yield* createGroup(member)
            const reply = yield* call(yield* as(role), "POST", `/user_groups/${id}/deactivate`)
            assert.deepStrictEqual(reply.json, expected[role], role)
          }
          const id = yield* createGroup(member)
          const modern = yield* listen(yield* as("owner"), { include_deactivated_groups: true })
          const legacy = yield* listen(yield* as("guest"))
          expectReply(yield* call(member, "POST", `/user_groups/${id}/deactivate`), 200, success())
          assert.deepStrictEqual(yield* modern, [{ type: "user_group", op: "update", group_id: id, data: { deactivated: true } }])
          assert.deepStrictEqual(yield* legacy, [{ type: "user_group", op: "remove", group_id: id }])
          expectReply(yield* call(member, "POST", `/user_groups/${id}/deactivate`), 400, error("User group is deactivated."))
          // A deactivated group cannot be a setting value or a subgroup.
          const other = yield* createGroup(member)
          assert.deepStrictEqual((yield* modern).map((e) => e.op), ["add"])
          assert.deepStrictEqual((yield* legacy).map((e) => e.op), ["add"])
          expectReply(yield* call(member, "PATCH", `/user_groups/${other}`, { can_mention_group: JSON.stringify({ new: id }) }), 400,
            error("User group is deactivated."))
          expectReply(yield* call(member, "POST", `/user_groups/${other}/subgroups`, { add: JSON.stringify([id]) }), 400,
            error("User group is deactivated."))
          // deactivated=true changes nothing; false reactivates.
          expectReply(yield* call(member, "PATCH", `/user_groups/${id}`, { deactivated: "true" }), 200, success())
          assert.deepStrictEqual(yield* modern, [])
          expectReply(yield* call(member, "PATCH", `/user_groups/${id}`, { deactivated: "false" }), 200, success())
          const group = yield* groupOf(member, id)
          assert.strictEqual(group.deactivated, false)
          assert.deepStrictEqual(yield* modern, [{ type: "user_group", op: "update", group_id: id, data: { deactivated: false } }])
          assert.deepStrictEqual(yield* legacy, [{ type: "user_group", op: "add", group }])
          expectReply(yield* call(member, "PATCH", `/user_groups/${other}`, { can_mention_group: JSON.stringify({ new: id }) }), 200, success())
        }))

      it.effect("POST /user_groups/{id}/deactivate: CANNOT_DEACTIVATE_GROUP_IN_USE with its objections", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const used = yield* createGroup(member)
          const supergroup = yield* createGroup(member, { subgroups: JSON.stringify([used]) })
          const user = yield* createGroup(member, { can_mention_group: String(used) })
          expectReply(yield* call(member, "POST", `/user_groups/${used}/deactivate`), 400, {
            result: "error",
            msg: "Cannot deactivate user group in use.",
            code: "CANNOT_DEACTIVATE_GROUP_IN_USE",
            objections: [
              { type: "subgroup", supergroup_ids: [supergroup] },
              { type: "user_group", group_id: user, settings: ["can_mention_group"] }
            ]
          })
          expectReply(yield* call(member, "POST", `/user_groups/${supergroup}/members`, { delete_subgroups: JSON.stringify([used]) }), 200, success())
          expectReply(yield* call(member, "POST", `/user_groups/${user}/deactivate`), 200, success())
          expectReply(yield* call(member, "POST", `/user_groups/${used}/deactivate`), 200, success())
        }))

      // -------------------------------------------------------------------
      // POST /register

      it.effect("POST /register: realm_user_groups is GET /user_groups, deactivated groups by capability", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const member = yield* as("member")
          const id = yield* createGroup(member)
          expectReply(yield* call(member, "POST", `/user_groups/${id}/deactivate`), 200, success())
          const register = (capabilities: object) =>
            Effect.map(
              server.fetch("POST", "/api/v1/register", {
                as: member,
                form: { fetch_event_types: JSON.stringify(["realm_user_groups"]), client_capabilities: JSON.stringify(capabilities) }
              }),
              (r) => r.json.realm_user_groups
            )
          assert.deepStrictEqual(yield* register({}), (yield* call(member, "GET", "/user_groups")).json.user_groups)
          assert.deepStrictEqual(
            yield* register({ include_deactivated_groups: true }),
            (yield* call(member, "GET", "/user_groups", { include_deactivated_groups: "true" })).json.user_groups
          )
        }))
    })
  })
