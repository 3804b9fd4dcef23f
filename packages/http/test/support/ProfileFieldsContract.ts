/**
 * Custom profile fields over the wire, written once and run on every core
 * backend: GET, POST and PATCH /realm/profile_fields, PATCH and DELETE
 * /realm/profile_fields/{id}, PATCH /users/me/profile_data and the
 * administrator's `profile_data` in PATCH /users/{id}; per role, with Zulip's
 * exact texts, the `custom_profile_fields` and `realm_user` events, register's
 * `custom_profile_fields` and `realm_users[].profile_data`, and `profile_data`
 * in GET /users, /users/{id} and /users/me.
 *
 * Tests share one server: each deletes the fields it made.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Backend, Credentials } from "./Harness.ts"
import { expectReply as expect, listen } from "./EventListener.ts"
import { accounts, demoLayer, layerServer, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const error = (msg: string, code = "BAD_REQUEST") => ({ result: "error", msg, code })
const administratorRequired = error("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL")

type Role = keyof typeof accounts
const roles = Object.keys(accounts) as ReadonlyArray<Role>
const administrators: ReadonlyArray<Role> = ["owner", "admin"]

interface Field {
  readonly id: number
  readonly name: string
  readonly type: number
  readonly hint: string
  readonly field_data: string
  readonly order: number
  readonly required: boolean
  readonly editable_by_user: boolean
  readonly display_in_profile_summary?: true
}

export const profileFieldsContract = (backend: Backend) =>
  describe(`custom profile fields over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const login = (email: string) => Effect.flatMap(Server, (server) => server.login(email))
      const request = (method: string, path: string, who: Credentials, form?: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch(method, `/api/v1${path}`, { as: who, form }))

      const fields = (who?: Credentials) =>
        Effect.gen(function*() {
          const reply = yield* request("GET", "/realm/profile_fields", who ?? (yield* as("member")))
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json.custom_fields as Array<Field>
        })

      /** Creates a field as the owner and returns its id. */
      const create = (form: Record<string, string>) =>
        Effect.gen(function*() {
          const reply = yield* request("POST", "/realm/profile_fields", yield* as("owner"), form)
          assert.strictEqual(reply.status, 200, reply.text)
          assert.deepStrictEqual(Object.keys(reply.json).sort(), ["id", "msg", "result"])
          return reply.json.id as number
        })

      const remove = (ids: ReadonlyArray<number>) =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          for (const id of ids) expect(yield* request("DELETE", `/realm/profile_fields/${id}`, owner), 200, success())
        })

      const profileData = (who: Credentials, userId: number) =>
        Effect.gen(function*() {
          const reply = yield* request("GET", `/users/${userId}?include_custom_profile_fields=true`, who)
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json.user.profile_data as Record<string, unknown>
        })

      const select = JSON.stringify({ "0": { text: "Vim", order: "1" }, "1": { text: "Emacs", order: "2" } })

      it.effect("POST: administrators create each of the eight types; everyone reads them; one event with the whole list", () =>
        Effect.gen(function*() {
          const member = yield* as("member")
          const events = yield* listen(member, ["custom_profile_fields"])
          for (const role of roles) {
            if (administrators.includes(role)) continue
            expect(
              yield* request("POST", "/realm/profile_fields", yield* as(role), { name: "Nope", field_type: "1" }),
              400,
              administratorRequired
            )
          }
          assert.deepStrictEqual(yield* fields(), [])
          assert.deepStrictEqual(yield* events, [])

          const phone = yield* create({ name: "Phone", hint: "Work phone", field_type: "1" })
          const bio = yield* create({ name: "Biography", field_type: "2", required: "true" })
          const editor = yield* create({ name: "Editor", field_type: "3", field_data: select, editable_by_user: "false" })
          const birthday = yield* create({ name: "Birthday", field_type: "4", display_in_profile_summary: "true" })
          const site = yield* create({ name: "Website", field_type: "5" })
          const mentor = yield* create({ name: "Mentor", field_type: "6" })
          const blog = yield* create({
            name: "Blog",
            field_type: "7",
            field_data: JSON.stringify({ subtype: "custom", url_pattern: "https://blog.example/%(username)s" })
          })
          const pronouns = yield* create({ name: "Pronouns", hint: "What to call you", field_type: "8" })
          const base = { hint: "", field_data: "", required: false, editable_by_user: true }
          const expected: Array<Field> = [
            { ...base, id: phone, name: "Phone", type: 1, hint: "Work phone", order: phone },
            { ...base, id: bio, name: "Biography", type: 2, order: bio, required: true },
            { ...base, id: editor, name: "Editor", type: 3, field_data: select, order: editor, editable_by_user: false },
            { ...base, id: birthday, name: "Birthday", type: 4, order: birthday, display_in_profile_summary: true },
            { ...base, id: site, name: "Website", type: 5, order: site },
            { ...base, id: mentor, name: "Mentor", type: 6, order: mentor },
            {
              ...base,
              id: blog,
              name: "Blog",
              type: 7,
              field_data: JSON.stringify({ subtype: "custom", url_pattern: "https://blog.example/%(username)s" }),
              order: blog
            },
            { ...base, id: pronouns, name: "Pronouns", type: 8, hint: "What to call you", order: pronouns }
          ]
          for (const role of roles) assert.deepStrictEqual(yield* fields(yield* as(role)), expected, role)
          const received = yield* events
          assert.strictEqual(received.length, 8)
          assert.deepStrictEqual(received[7], { type: "custom_profile_fields", fields: expected })
          assert.deepStrictEqual(received[0], { type: "custom_profile_fields", fields: expected.slice(0, 1) })

          // Register's state carries the same list.
          const server = yield* Server
          const registered = yield* server.fetch("POST", "/api/v1/register", {
            as: member,
            form: { fetch_event_types: JSON.stringify(["custom_profile_fields"]) }
          })
          assert.deepStrictEqual(registered.json.custom_profile_fields, expected)
          yield* remove([phone, bio, editor, birthday, site, mentor, blog, pronouns])
          assert.deepStrictEqual(yield* fields(), [])
        }))

      it.effect("POST: Zulip's refusals for labels, types, the profile summary and field_data; nothing is created", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const post = (form: Record<string, string>) => request("POST", "/realm/profile_fields", owner, form)
          const existing = yield* create({ name: "Taken", field_type: "1", display_in_profile_summary: "true" })
          const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
            [{ name: "  ", field_type: "1" }, "Label cannot be blank."],
            [{ field_type: "1" }, "Label cannot be blank."],
            [{ name: "x".repeat(41), field_type: "1" }, "name is too long (limit: 40 characters)"],
            [{ name: "Hinted", hint: "h".repeat(81), field_type: "1" }, "hint is too long (limit: 80 characters)"],
            [{ name: "Typeless", field_type: "9" }, "Invalid field type."],
            [{ name: "Taken", field_type: "1" }, "A field with that label already exists."],
            [{ name: "Options", field_type: "3", field_data: "{}" }, "Field must have at least one choice."],
            [
              { name: "Options", field_type: "3", field_data: JSON.stringify({ a: { text: "A", order: "1" }, b: { text: "A", order: "2" } }) },
              "Field must not have duplicate choices."
            ],
            [{ name: "Options", field_type: "3", field_data: JSON.stringify({ a: { text: "A" } }) }, "order key is missing from field_data"],
            [{ name: "Options", field_type: "3", field_data: JSON.stringify({ a: { text: " ", order: "1" } }) }, "field_data[\"text\"] cannot be blank."],
            [{ name: "Options", field_type: "3", field_data: JSON.stringify({ a: "A" }) }, "field_data contains a value that is not an allowed_type"],
            [{ name: "Options", field_type: "3", field_data: JSON.stringify({ " ": { text: "A", order: "1" } }) }, "'value' cannot be blank."],
            [{ name: "Account", field_type: "7", field_data: "{}" }, "subtype key is missing from field_data"],
            [{ name: "Account", field_type: "7", field_data: JSON.stringify({ subtype: "myspace" }) }, "Invalid external account type"],
            [{ name: "Account", field_type: "7", field_data: JSON.stringify({ subtype: "custom" }) }, "Custom external account must define URL pattern"],
            [
              { name: "Account", field_type: "7", field_data: JSON.stringify({ subtype: "custom", url_pattern: "https://x.example/" }) },
              "URL pattern must contain '%(username)s'."
            ],
            [
              { name: "Account", field_type: "7", field_data: JSON.stringify({ subtype: "custom", url_pattern: "nowhere %(username)s" }) },
              "field_data[\"url_pattern\"] is not a URL"
            ],
            [{ name: "Typed", field_type: "one" }, "field_type is not valid JSON"],
            [{ name: "Typed" }, "Missing 'field_type' argument"]
          ]
          for (const [form, msg] of cases) {
            const reply = yield* post(form)
            assert.strictEqual(reply.status, 400, JSON.stringify(form))
            assert.strictEqual(reply.json.msg, msg, JSON.stringify(form))
          }
          // The summary: long text and person pickers never; at most two fields.
          expect(
            yield* post({ name: "Long", field_type: "2", display_in_profile_summary: "true" }),
            400,
            error("Field type not supported for display in profile summary.")
          )
          expect(
            yield* post({ name: "People", field_type: "6", display_in_profile_summary: "true" }),
            400,
            error("Field type not supported for display in profile summary.")
          )
          const shown = yield* create({ name: "Shown", field_type: "1", display_in_profile_summary: "true" })
          expect(
            yield* post({ name: "Third", field_type: "1", display_in_profile_summary: "true" }),
            400,
            error("Only 2 custom profile fields can be displayed in the profile summary.")
          )
          assert.deepStrictEqual((yield* fields()).map((f) => f.name), ["Taken", "Shown"])
          yield* remove([existing, shown])
        }))

      it.effect("built-in external accounts take their label and hint; only their flags change", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const github = yield* create({ field_type: "7", field_data: JSON.stringify({ subtype: "github" }) })
          assert.deepStrictEqual(yield* fields(), [{
            id: github,
            name: "GitHub",
            type: 7,
            hint: "Enter your GitHub username",
            field_data: JSON.stringify({ subtype: "github" }),
            order: github,
            required: false,
            editable_by_user: true
          }])
          const patch = (form: Record<string, string>) => request("PATCH", `/realm/profile_fields/${github}`, owner, form)
          expect(yield* patch({ name: "Code" }), 400, error("Default custom field cannot be updated."))
          expect(yield* patch({ hint: "Your handle" }), 400, error("Default custom field cannot be updated."))
          expect(yield* patch({ display_in_profile_summary: "true", required: "true" }), 200, success())
          const [after] = yield* fields()
          assert.deepStrictEqual([after!.name, after!.display_in_profile_summary, after!.required], ["GitHub", true, true])
          yield* remove([github])
        }))

      it.effect("PATCH, reorder and DELETE: administrators only, with Zulip's not-found and order texts", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const iago = yield* as("admin")
          const a = yield* create({ name: "Alpha", field_type: "1" })
          const b = yield* create({ name: "Beta", field_type: "1" })
          const c = yield* create({ name: "Gamma", field_type: "1" })
          for (const role of roles) {
            if (administrators.includes(role)) continue
            const who = yield* as(role)
            expect(yield* request("PATCH", `/realm/profile_fields/${a}`, who, { name: "Nope" }), 400, administratorRequired)
            expect(yield* request("DELETE", `/realm/profile_fields/${a}`, who), 400, administratorRequired)
            expect(yield* request("PATCH", "/realm/profile_fields", who, { order: JSON.stringify([c, b, a]) }), 400, administratorRequired)
          }
          assert.deepStrictEqual((yield* fields()).map((f) => [f.name, f.order]), [["Alpha", a], ["Beta", b], ["Gamma", c]])

          expect(yield* request("PATCH", `/realm/profile_fields/${a}`, iago, { name: "Alef", hint: "First" }), 200, success())
          expect(yield* request("PATCH", `/realm/profile_fields/${a}`, iago, { name: "Beta" }), 400, error("A field with that label already exists."))
          expect(yield* request("PATCH", `/realm/profile_fields/${a}`, iago, { name: " " }), 400, error("Label cannot be blank."))
          expect(yield* request("PATCH", "/realm/profile_fields/99999", iago, { name: "X" }), 400, error("Field id 99999 not found."))
          expect(yield* request("DELETE", "/realm/profile_fields/99999", iago), 400, error("Field id 99999 not found."))
          expect(
            yield* request("DELETE", "/realm/profile_fields/99999999999999999999", iago),
            400,
            error("Field id 99999999999999999999 not found.")
          )

          const events = yield* listen(yield* as("guest"), ["custom_profile_fields"])
          expect(yield* request("PATCH", "/realm/profile_fields", owner, { order: JSON.stringify([c, a]) }), 400, error("Invalid order mapping."))
          expect(yield* request("PATCH", "/realm/profile_fields", owner, { order: JSON.stringify([c, a, b]) }), 200, success())
          const reordered = yield* fields()
          assert.deepStrictEqual(reordered.map((f) => [f.name, f.hint, f.order]), [["Gamma", "", 0], ["Alef", "First", 1], ["Beta", "", 2]])
          assert.deepStrictEqual(yield* events, [{ type: "custom_profile_fields", fields: reordered }])

          expect(yield* request("DELETE", `/realm/profile_fields/${b}`, iago), 200, success())
          assert.deepStrictEqual((yield* fields()).map((f) => f.name), ["Gamma", "Alef"])
          assert.deepStrictEqual(yield* events, [{ type: "custom_profile_fields", fields: yield* fields() }])
          yield* remove([a, c])
        }))

      it.effect("PATCH /users/me/profile_data: values by type, rendered Markdown, events, profile_data wherever users are read", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const othello = yield* login("othello@zulip.com")
          const cordelia = yield* login("cordelia@zulip.com")
          const phone = yield* create({ name: "Phone", field_type: "1" })
          const bio = yield* create({ name: "Biography", field_type: "2" })
          const editor = yield* create({ name: "Editor", field_type: "3", field_data: select })
          const birthday = yield* create({ name: "Birthday", field_type: "4" })
          const site = yield* create({ name: "Website", field_type: "5" })
          const mentor = yield* create({ name: "Mentor", field_type: "6" })
          const events = yield* listen(othello, ["realm_user"])
          const data = (entries: ReadonlyArray<{ id: number; value: unknown }>) => ({ data: JSON.stringify(entries) })
          const update = (who: Credentials, entries: ReadonlyArray<{ id: number; value: unknown }>) =>
            request("PATCH", "/users/me/profile_data", who, data(entries))

          expect(
            yield* update(hamlet, [
              { id: phone, value: "+1 **555**" },
              { id: bio, value: "Prince of *Denmark*" },
              { id: editor, value: "1" },
              { id: birthday, value: "1600-04-23" },
              { id: site, value: "https://hamlet.example/" },
              { id: mentor, value: [othello.userId, cordelia.userId] }
            ]),
            200,
            success()
          )
          const expected = {
            [phone]: { value: "+1 **555**", rendered_value: "<p>+1 <strong>555</strong></p>" },
            [bio]: { value: "Prince of *Denmark*", rendered_value: "<p>Prince of <em>Denmark</em></p>" },
            [editor]: { value: "1" },
            [birthday]: { value: "1600-04-23" },
            [site]: { value: "https://hamlet.example/" },
            [mentor]: { value: JSON.stringify([othello.userId, cordelia.userId]) }
          }
          assert.deepStrictEqual(yield* profileData(othello, hamlet.userId), expected)
          const server = yield* Server
          assert.deepStrictEqual((yield* server.fetch("GET", "/api/v1/users/me", { as: hamlet })).json.profile_data, expected)
          const listed = yield* server.fetch("GET", "/api/v1/users", { as: othello, query: { include_custom_profile_fields: "true" } })
          const members = listed.json.members as Array<{ user_id: number; profile_data?: unknown; is_bot: boolean }>
          assert.deepStrictEqual(members.find((m) => m.user_id === hamlet.userId)!.profile_data, expected)
          assert.deepStrictEqual(members.find((m) => m.user_id === othello.userId)!.profile_data, {})
          const withoutFields = yield* server.fetch("GET", "/api/v1/users", { as: othello })
          assert.isFalse((withoutFields.json.members as Array<object>).some((m) => "profile_data" in m))
          const registered = yield* server.fetch("POST", "/api/v1/register", {
            as: othello,
            form: { fetch_event_types: JSON.stringify(["realm_user"]) }
          })
          const users = registered.json.realm_users as Array<{ user_id: number; profile_data: unknown }>
          assert.deepStrictEqual(users.find((u) => u.user_id === hamlet.userId)!.profile_data, expected)

          assert.deepStrictEqual(yield* events, [
            { id: phone, value: "+1 **555**", rendered_value: "<p>+1 <strong>555</strong></p>" },
            { id: bio, value: "Prince of *Denmark*", rendered_value: "<p>Prince of <em>Denmark</em></p>" },
            { id: editor, value: "1" },
            { id: birthday, value: "1600-04-23" },
            { id: site, value: "https://hamlet.example/" },
            { id: mentor, value: JSON.stringify([othello.userId, cordelia.userId]) }
          ].map((custom_profile_field) => ({
            type: "realm_user",
            op: "update",
            person: { user_id: hamlet.userId, custom_profile_field }
          })))

          // The same value again changes nothing; an empty one clears.
          expect(yield* update(hamlet, [{ id: phone, value: "+1 **555**" }, { id: editor, value: "" }]), 200, success())
          assert.deepStrictEqual(yield* events, [
            { type: "realm_user", op: "update", person: { user_id: hamlet.userId, custom_profile_field: { id: editor, value: null } } }
          ])
          assert.isFalse(String(editor) in (yield* profileData(othello, hamlet.userId)))
          yield* remove([phone, bio, editor, birthday, site, mentor])
          assert.deepStrictEqual(yield* profileData(othello, hamlet.userId), {})
        }))

      it.effect("PATCH /users/me/profile_data: Zulip's refusals by type, field and caller; nothing half-written", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const bot = yield* as("bot")
          const iago = yield* as("admin")
          const webhookBot = yield* login("webhook-bot@zulip.com")
          const phone = yield* create({ name: "Phone", field_type: "1" })
          const bio = yield* create({ name: "Biography", field_type: "2" })
          const editor = yield* create({ name: "Editor", field_type: "3", field_data: select })
          const birthday = yield* create({ name: "Birthday", field_type: "4" })
          const site = yield* create({ name: "Website", field_type: "5" })
          const mentor = yield* create({ name: "Mentor", field_type: "6" })
          const locked = yield* create({ name: "Badge", field_type: "1", editable_by_user: "false" })
          const update = (who: Credentials, entries: ReadonlyArray<{ id: number; value: unknown }>) =>
            request("PATCH", "/users/me/profile_data", who, { data: JSON.stringify(entries) })
          const refused = (entries: ReadonlyArray<{ id: number; value: unknown }>, msg: string) =>
            Effect.gen(function*() {
              // A valid first entry, so a refusal that wrote it would show.
              expect(yield* update(hamlet, [{ id: phone, value: "written?" }, ...entries]), 400, error(msg))
            })
          yield* refused([{ id: 99999, value: "x" }], "Field id 99999 not found.")
          yield* refused([{ id: phone, value: "x".repeat(51) }], "Phone is too long (limit: 50 characters)")
          yield* refused([{ id: bio, value: "x".repeat(501) }], "Biography is too long (limit: 500 characters)")
          yield* refused([{ id: editor, value: "7" }], "'7' is not a valid choice for 'Editor'.")
          yield* refused([{ id: birthday, value: "1600-02-30" }], "Birthday is not a date")
          yield* refused([{ id: site, value: "hamlet" }], "Website is not a URL")
          yield* refused([{ id: phone, value: [1] }], "Phone is not a string")
          yield* refused([{ id: mentor, value: "me" }], "User IDs is not a list")
          yield* refused([{ id: mentor, value: [99999] }], "Invalid user ID: 99999")
          yield* refused([{ id: mentor, value: [webhookBot.userId] }], `User with ID ${webhookBot.userId} is a bot`)
          yield* refused([{ id: locked, value: "Gold" }], "You are not allowed to change this field. Contact an administrator to update it.")
          assert.deepStrictEqual(yield* profileData(iago, hamlet.userId), {})
          expect(yield* update(bot, [{ id: phone, value: "x" }]), 400, error("This endpoint does not accept bot requests."))
          const badJson = yield* request("PATCH", "/users/me/profile_data", hamlet, { data: "[{\"id\": 1}]" })
          assert.strictEqual(badJson.status, 400)
          // Administrators edit locked fields too.
          expect(yield* update(iago, [{ id: locked, value: "Gold" }]), 200, success())
          assert.deepStrictEqual(yield* profileData(hamlet, iago.userId), { [locked]: { value: "Gold", rendered_value: "<p>Gold</p>" } })
          yield* remove([phone, bio, editor, birthday, site, mentor, locked])
        }))

      it.effect("PATCH /users/{id} profile_data: administrators set and clear anyone's values; a deactivated mentor is refused", () =>
        Effect.gen(function*() {
          const iago = yield* as("admin")
          const hamlet = yield* as("member")
          const othello = yield* login("othello@zulip.com")
          const badge = yield* create({ name: "Badge", field_type: "1", editable_by_user: "false" })
          const mentor = yield* create({ name: "Mentor", field_type: "6" })
          const patch = (who: Credentials, entries: ReadonlyArray<{ id: number; value: unknown }>) =>
            request("PATCH", `/users/${othello.userId}`, who, { profile_data: JSON.stringify(entries) })
          for (const role of ["moderator", "member", "guest", "bot"] as const) {
            expect(yield* patch(yield* as(role), [{ id: badge, value: "Gold" }]), 400, error("Insufficient permission"))
          }
          expect(yield* patch(iago, [{ id: badge, value: "Gold" }, { id: mentor, value: [hamlet.userId] }]), 200, success())
          assert.deepStrictEqual(yield* profileData(hamlet, othello.userId), {
            [badge]: { value: "Gold", rendered_value: "<p>Gold</p>" },
            [mentor]: { value: JSON.stringify([hamlet.userId]) }
          })
          // A name and values in one request: a bad value writes neither.
          const named = (yield* request("GET", `/users/${othello.userId}`, iago)).json.user.full_name
          const reply = yield* request("PATCH", `/users/${othello.userId}`, iago, {
            full_name: "Othello renamed",
            profile_data: JSON.stringify([{ id: badge, value: null }, { id: 99999, value: "x" }])
          })
          expect(reply, 400, error("Field id 99999 not found."))
          assert.strictEqual((yield* request("GET", `/users/${othello.userId}`, iago)).json.user.full_name, named)
          assert.deepStrictEqual(Object.keys(yield* profileData(hamlet, othello.userId)).sort(), [String(badge), String(mentor)].sort())

          const prospero = yield* login("prospero@zulip.com")
          expect(yield* request("DELETE", `/users/${prospero.userId}`, iago), 200, success())
          expect(yield* patch(iago, [{ id: mentor, value: [prospero.userId] }]), 400, error(`User with ID ${prospero.userId} is deactivated`))
          expect(yield* request("POST", `/users/${prospero.userId}/reactivate`, iago), 200, success())

          expect(yield* patch(iago, [{ id: badge, value: null }, { id: mentor, value: [] }]), 200, success())
          assert.deepStrictEqual(yield* profileData(hamlet, othello.userId), {})
          yield* remove([badge, mentor])
        }))

      it.effect("options removed from a list drop the values that chose them", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const hamlet = yield* as("member")
          const editor = yield* create({ name: "Editor", field_type: "3", field_data: select })
          expect(yield* request("PATCH", "/users/me/profile_data", hamlet, { data: JSON.stringify([{ id: editor, value: "1" }]) }), 200, success())
          const vimOnly = JSON.stringify({ "0": { text: "Vim", order: "1" } })
          expect(yield* request("PATCH", `/realm/profile_fields/${editor}`, owner, { field_data: vimOnly }), 200, success())
          assert.strictEqual((yield* fields())[0]!.field_data, vimOnly)
          assert.deepStrictEqual(yield* profileData(owner, hamlet.userId), {})
          yield* remove([editor])
        }))
    })
  })
