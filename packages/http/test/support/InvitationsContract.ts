/**
 * Reusable invitation links over the wire, written once and run on every
 * core backend: POST /invites/multiuse, GET /invites and DELETE
 * /invites/multiuse/{id} per role with Zulip's texts (views/invite.py), the
 * `invites_changed` event to administrators and the link's maker, and the
 * join page at `/join/<key>/` (form, CSRF token, bad input shown again with
 * nothing written, expired / revoked / unknown links, the account it makes
 * with its role, channels, groups and Welcome Bot message, its events, and
 * POST /fetch_api_key with the new credentials).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { listen } from "./EventListener.ts"
import type { Backend, Credentials, Role } from "./Harness.ts"
import { accounts, demoLayer, layerServer, makeRequest, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const badRequest = (msg: string, code = "BAD_REQUEST") => ({ result: "error", msg, code })
const linkPattern = /^http:\/\/localhost:9991\/join\/([a-z0-9]{24})\/$/

/** A page of the join flow: status, headers and HTML. */
interface Page {
  readonly status: number
  readonly headers: Headers
  readonly html: string
}

export const invitationsContract = (backend: Backend) =>
  describe(`reusable invitation links on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const login = (email: string) => Effect.flatMap(Server, (server) => server.login(email))

      const createLink = (who: Credentials, form: Record<string, string> = {}) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/invites/multiuse", { as: who, form }))
      const listLinks = (who: Credentials) => Effect.flatMap(Server, (server) => server.fetch("GET", "/api/v1/invites", { as: who }))
      const revokeLink = (who: Credentials, id: number | string) =>
        Effect.flatMap(Server, (server) => server.fetch("DELETE", `/api/v1/invites/multiuse/${id}`, { as: who }))

      /** A link made by `who`: its URL, key and id (from the owner's GET /invites). */
      const made = (who: Credentials, form: Record<string, string> = {}) =>
        Effect.gen(function*() {
          const reply = yield* createLink(who, form)
          assert.strictEqual(reply.status, 200, reply.text)
          const link = reply.json.invite_link as string
          const key = linkPattern.exec(link)![1]!
          const owner = yield* as("owner")
          const listed = (yield* listLinks(owner)).json.invites as Array<Record<string, any>>
          const entry = listed.find((i) => i.link_url === link)!
          return { link, key, id: entry.id as number, entry }
        })

      const page = (method: "GET" | "POST", key: string, options: { form?: Record<string, string>; cookie?: string } = {}) =>
        Effect.gen(function*() {
          const server = yield* Server
          const request = makeRequest(method, `/join/${key}/`, {
            ...(options.form === undefined ? {} : { form: options.form }),
            ...(options.cookie === undefined ? {} : { headers: { cookie: options.cookie } })
          })
          const response = yield* Effect.promise(() => server.handler(request))
          const html = yield* Effect.promise(() => response.text())
          return { status: response.status, headers: response.headers, html } satisfies Page
        })

      /** Opens the join page and returns what a browser would send back: the cookie and the hidden token. */
      const openForm = (key: string) =>
        Effect.gen(function*() {
          const form = yield* page("GET", key)
          assert.strictEqual(form.status, 200, form.html)
          const cookie = form.headers.get("set-cookie")!.split(";")[0]!
          const token = /name="teamchat_join_csrf" value="([^"]+)"/.exec(form.html)![1]!
          return { form, cookie, token }
        })

      const submit = (key: string, fields: Record<string, string>) =>
        Effect.gen(function*() {
          const { cookie, token } = yield* openForm(key)
          return yield* page("POST", key, { form: { teamchat_join_csrf: token, ...fields }, cookie })
        })

      const userCount = Effect.flatMap(as("owner"), (owner) =>
        Effect.flatMap(Server, (server) =>
          Effect.map(server.fetch("GET", "/api/v1/users", { as: owner }), (reply) => (reply.json.members as Array<unknown>).length)))

      it.effect("an administrator makes a member link; it is listed with Zulip's fields and announced to administrators", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const admin = yield* as("admin")
          const member = yield* as("member")
          const adminPoll = yield* listen(admin, ["invites_changed"])
          const ownerPoll = yield* listen(owner, ["invites_changed"])
          const memberPoll = yield* listen(member, ["invites_changed"])
          const server = yield* Server
          const now = Math.floor(server.clock.now() / 1000)
          const reply = yield* createLink(admin)
          assert.strictEqual(reply.status, 200, reply.text)
          assert.deepStrictEqual(Object.keys(reply.json).sort(), ["invite_link", "msg", "result"])
          assert.match(reply.json.invite_link, linkPattern)
          assert.deepStrictEqual(yield* adminPoll, [{ type: "invites_changed" }])
          assert.deepStrictEqual(yield* ownerPoll, [{ type: "invites_changed" }])
          assert.deepStrictEqual(yield* memberPoll, [])
          const listed = (yield* listLinks(owner)).json
          const entry = (listed.invites as Array<Record<string, unknown>>).find((i) => i.link_url === reply.json.invite_link)
          assert.deepStrictEqual(entry, {
            invited_by_user_id: admin.userId,
            invited: now,
            expiry_date: now + 14400 * 60,
            id: entry!.id,
            link_url: reply.json.invite_link,
            invited_as: 400,
            is_multiuse: true
          })
          assert.isAbove(entry!.id as number, 0)
          // The maker sees it too; a member manages none.
          assert.isTrue(((yield* listLinks(admin)).json.invites as Array<{ id: number }>).some((i) => i.id === entry!.id))
          assert.deepStrictEqual((yield* listLinks(member)).json, success({ invites: [] }))
        }))

      it.effect("who may make a link, and which roles they may invite", () =>
        Effect.gen(function*() {
          const before = yield* userCount
          const expectations: ReadonlyArray<readonly [Role, Record<string, string>, number, unknown]> = [
            ["moderator", {}, 400, badRequest("Insufficient permission")],
            ["member", {}, 400, badRequest("Insufficient permission")],
            ["guest", {}, 400, badRequest("Not allowed for guest users")],
            ["bot", {}, 400, badRequest("This endpoint does not accept bot requests.")],
            ["admin", { invite_as: "100" }, 400, badRequest("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL")],
            ["admin", { invite_as: "500" }, 400, badRequest("Invalid invite_as")],
            ["admin", { invite_as: "\"400\"" }, 400, badRequest("invite_as is not an integer")],
            ["guest", { invite_as: "500" }, 400, badRequest("Not allowed for guest users")]
          ]
          for (const [role, form, status, body] of expectations) {
            const reply = yield* createLink(yield* as(role), form)
            assert.strictEqual(reply.status, status, `${role} ${JSON.stringify(form)}: ${reply.text}`)
            assert.deepStrictEqual(reply.json, body, `${role} ${JSON.stringify(form)}`)
          }
          for (const [role, invite_as] of [["owner", "100"], ["owner", "200"], ["admin", "200"], ["admin", "300"], ["admin", "600"]] as const) {
            const { entry } = yield* made(yield* as(role), { invite_as })
            assert.strictEqual(entry.invited_as, Number(invite_as))
          }
          assert.strictEqual(yield* userCount, before)
        }))

      it.effect("channels, groups, expiry and the welcome text are checked", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const admin = yield* as("admin")
          const member = yield* as("member")
          const owner = yield* as("owner")
          // A private channel only the member is in: the administrator cannot read it.
          const created = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: member,
            form: { subscriptions: JSON.stringify([{ name: "hamlet's secrets" }]), invite_only: "true" }
          })
          assert.strictEqual(created.status, 200, created.text)
          const streams = (yield* server.fetch("GET", "/api/v1/streams", { as: owner, query: { include_all: "true" } })).json.streams as Array<{ stream_id: number; name: string }>
          const secret = streams.find((s) => s.name === "hamlet's secrets")!
          const verona = streams.find((s) => s.name === "Verona")!
          const groups = (yield* server.fetch("GET", "/api/v1/user_groups", { as: owner })).json.user_groups as Array<{ id: number; name: string; is_system_group: boolean }>
          const membersGroup = groups.find((g) => g.name === "role:members")!
          const cases: ReadonlyArray<readonly [Record<string, string>, unknown]> = [
            [{ stream_ids: "[999999]" }, badRequest("Invalid channel ID 999999. No invites were sent.")],
            [
              { stream_ids: JSON.stringify([verona.stream_id, secret.stream_id]) },
              badRequest(`Invalid channel ID ${secret.stream_id}. No invites were sent.`)
            ],
            [{ stream_ids: "[1.5]" }, badRequest("stream_ids[0] is not an integer")],
            [{ group_ids: "[999999]" }, badRequest("Invalid user group")],
            [{ group_ids: JSON.stringify([membersGroup.id]) }, badRequest("Insufficient permission")],
            [{ invite_expires_in_minutes: "\"soon\"" }, badRequest("invite_expires_in_minutes is not an integer")],
            [{ invite_expires_in_minutes: String(1_440_000_000_000) }, badRequest("invite_expires_in_minutes is too large")],
            // A positive integer or null, as Zulip's PositiveInt.
            [{ invite_expires_in_minutes: "-5" }, badRequest("invite_expires_in_minutes is too small")],
            [{ invite_expires_in_minutes: "0" }, badRequest("invite_expires_in_minutes is too small")],
            [{ include_realm_default_subscriptions: "1" }, badRequest("include_realm_default_subscriptions is not a boolean")],
            [{ welcome_message_custom_text: "x".repeat(8001) }, badRequest("welcome_message_custom_text is too long (limit: 8000 characters)")]
          ]
          const before = (yield* listLinks(owner)).json.invites.length
          for (const [form, body] of cases) {
            const reply = yield* createLink(admin, form)
            assert.strictEqual(reply.status, 400, `${JSON.stringify(form).slice(0, 80)}: ${reply.text}`)
            assert.deepStrictEqual(reply.json, body)
          }
          assert.strictEqual((yield* listLinks(owner)).json.invites.length, before, "no refused request made a link")
          // Limits that pass: 8000 characters, never expiring, one minute.
          const now = Math.floor(server.clock.now() / 1000)
          const forever = yield* made(admin, { invite_expires_in_minutes: "null", welcome_message_custom_text: "y".repeat(8000) })
          assert.strictEqual(forever.entry.expiry_date, null)
          const minute = yield* made(admin, { invite_expires_in_minutes: "1" })
          assert.strictEqual(minute.entry.expiry_date, now + 60)
          // Once past its expiry a link is no longer listed.
          server.clock.advance(61_000)
          const listed = (yield* listLinks(owner)).json.invites as Array<{ id: number }>
          assert.isFalse(listed.some((i) => i.id === minute.id))
          assert.isTrue(listed.some((i) => i.id === forever.id))
        }))

      it.effect("revoking: the maker or an administrator (an owner for owner links), once", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const admin = yield* as("admin")
          const ownerPoll = yield* listen(owner, ["invites_changed"])
          const ownersOwnerLink = yield* made(owner, { invite_as: "100" })
          const ownersMemberLink = yield* made(owner)
          yield* ownerPoll
          assert.deepStrictEqual((yield* revokeLink(yield* as("guest"), ownersMemberLink.id)).json, badRequest("Not allowed for guest users"))
          assert.deepStrictEqual((yield* revokeLink(yield* as("bot"), ownersMemberLink.id)).json, badRequest("This endpoint does not accept bot requests."))
          assert.deepStrictEqual((yield* revokeLink(yield* as("member"), ownersMemberLink.id)).json, badRequest("Must be an organization administrator"))
          assert.deepStrictEqual((yield* revokeLink(yield* as("moderator"), ownersMemberLink.id)).json, badRequest("Must be an organization administrator"))
          assert.deepStrictEqual(
            (yield* revokeLink(admin, ownersOwnerLink.id)).json,
            badRequest("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL")
          )
          assert.deepStrictEqual((yield* revokeLink(admin, 999999)).json, badRequest("No such invitation"))
          assert.deepStrictEqual(yield* ownerPoll, [], "refusals announce nothing")
          const revoked = yield* revokeLink(admin, ownersMemberLink.id)
          assert.strictEqual(revoked.status, 200, revoked.text)
          assert.deepStrictEqual(revoked.json, success())
          assert.deepStrictEqual(yield* ownerPoll, [{ type: "invites_changed" }])
          assert.deepStrictEqual((yield* revokeLink(owner, ownersMemberLink.id)).json, badRequest("Invitation has already been revoked"))
          assert.deepStrictEqual((yield* revokeLink(owner, ownersOwnerLink.id)).json, success())
          const listed = (yield* listLinks(owner)).json.invites as Array<{ id: number }>
          assert.isFalse(listed.some((i) => i.id === ownersMemberLink.id || i.id === ownersOwnerLink.id))
        }))

      it.effect("the join page makes the account: role, channels, defaults, groups, welcome message, events, login", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const owner = yield* as("owner")
          const admin = yield* as("admin")
          // A default channel and a group the administrator can add to.
          const created = yield* server.fetch("POST", "/api/v1/users/me/subscriptions", {
            as: owner,
            form: { subscriptions: JSON.stringify([{ name: "newcomers" }]), is_default_stream: "true" }
          })
          assert.strictEqual(created.status, 200, created.text)
          const group = yield* server.fetch("POST", "/api/v1/user_groups/create", {
            as: admin,
            form: { name: "invitees", description: "joined by link", members: JSON.stringify([admin.userId]) }
          })
          assert.strictEqual(group.status, 200, group.text)
          const groupId = group.json.group_id as number
          const streams = (yield* server.fetch("GET", "/api/v1/streams", { as: owner })).json.streams as Array<{ stream_id: number; name: string }>
          const denmark = streams.find((s) => s.name === "Denmark")!
          const newcomers = streams.find((s) => s.name === "newcomers")!
          const link = yield* made(admin, {
            invite_as: "300",
            stream_ids: JSON.stringify([denmark.stream_id]),
            group_ids: JSON.stringify([groupId]),
            include_realm_default_subscriptions: "true",
            welcome_message_custom_text: "Welcome, <b>friend</b>! Read #**Denmark** first."
          })

          const observer = yield* login("cordelia@zulip.com")
          const poll = yield* listen(observer, ["realm_user", "user_group", "subscription"])

          const { form } = yield* openForm(link.key)
          assert.strictEqual(form.headers.get("content-type"), "text/html; charset=utf-8")
          assert.strictEqual(form.headers.get("cache-control"), "no-store")
          assert.strictEqual(form.headers.get("referrer-policy"), "no-referrer")
          assert.match(form.headers.get("set-cookie")!, /^teamchat_join_csrf=[A-Za-z0-9_-]{43}; Path=\/join\/; HttpOnly; SameSite=Strict$/)
          assert.include(form.html, "<h1>Join Zulip Dev</h1>")
          assert.include(form.html, "as a moderator")
          assert.include(form.html, `<label for="full_name">Full name</label>`)
          assert.include(form.html, `<label for="email">Email</label>`)
          assert.include(form.html, `<label for="password">Password</label>`)

          const joined = yield* submit(link.key, { full_name: "Ophelia", email: "ophelia@zulip.com", password: "nunnery-2026" })
          assert.strictEqual(joined.status, 200, joined.html)
          assert.include(joined.html, "Your account <strong>ophelia@zulip.com</strong> is ready.")

          // The new credentials work.
          const key = yield* server.fetch("POST", "/api/v1/fetch_api_key", {
            form: { username: "ophelia@zulip.com", password: "nunnery-2026" }
          })
          assert.strictEqual(key.status, 200, key.text)
          const ophelia = { email: "ophelia@zulip.com", apiKey: key.json.api_key as string }
          const userId = key.json.user_id as number
          const me = (yield* server.fetch("GET", "/api/v1/users/me", { as: ophelia })).json
          assert.strictEqual(me.role, 300)
          assert.strictEqual(me.full_name, "Ophelia")
          const subs = (yield* server.fetch("GET", "/api/v1/users/me/subscriptions", { as: ophelia })).json.subscriptions as Array<{ name: string }>
          assert.deepStrictEqual(subs.map((s) => s.name), ["Denmark", "newcomers"])
          const members = (yield* server.fetch("GET", `/api/v1/user_groups/${groupId}/members`, { as: ophelia })).json.members
          assert.deepStrictEqual(members, [admin.userId, userId].sort((a, b) => a - b))

          // The Welcome Bot's message, with the link's text.
          const messages = (yield* server.fetch("GET", "/api/v1/messages", {
            as: ophelia,
            query: { anchor: "newest", num_before: "10", num_after: "0", apply_markdown: "false" }
          })).json.messages as Array<Record<string, any>>
          assert.strictEqual(messages.length, 1)
          assert.strictEqual(messages[0]!.sender_email, "welcome-bot@zulip.com")
          assert.strictEqual(messages[0]!.sender_full_name, "Welcome Bot")
          assert.strictEqual(messages[0]!.type, "private")
          assert.strictEqual(messages[0]!.content, "Welcome, <b>friend</b>! Read #**Denmark** first.")

          // Events, after the commit: the new person, the channels' peers, the group.
          const events = yield* poll
          const add = events.find((e) => e.type === "realm_user" && e.op === "add") as Record<string, any>
          assert.strictEqual(add.person.user_id, userId)
          assert.strictEqual(add.person.full_name, "Ophelia")
          assert.strictEqual(add.person.role, 300)
          assert.deepStrictEqual(
            events.filter((e) => e.type === "subscription").map((e) => [e.op, e.stream_ids, e.user_ids]),
            [["peer_add", [denmark.stream_id], [userId]], ["peer_add", [newcomers.stream_id], [userId]]]
          )
          assert.deepStrictEqual(events.filter((e) => e.type === "user_group"), [
            { type: "user_group", op: "add_members", group_id: groupId, user_ids: [userId] }
          ])

          // The link is reusable.
          const second = yield* submit(link.key, { full_name: "Laertes", email: "laertes@zulip.com", password: "revenge-2026" })
          assert.strictEqual(second.status, 200, second.html)
        }))

      it.effect("bad form input shows the form again with the reason, escaped, and writes nothing", () =>
        Effect.gen(function*() {
          const admin = yield* as("admin")
          const link = yield* made(admin)
          const before = yield* userCount
          const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
            [{ full_name: "Hamlet Again", email: "hamlet@zulip.com", password: "long enough" }, "Email &#39;hamlet@zulip.com&#39; already in use"],
            [{ full_name: "Short", email: "short@zulip.com", password: "12345" }, "The password is too weak."],
            // 5 characters in 6 UTF-16 code units: characters count, as in PATCH /settings and the CLI.
            [{ full_name: "Short", email: "short@zulip.com", password: "abcd😀" }, "The password is too weak."],
            [{ full_name: "Welcome", email: "welcome-bot@zulip.com", password: "long enough" }, "welcome-bot@zulip.com is reserved for system bots"],
            [{ full_name: "   ", email: "blank@zulip.com", password: "long enough" }, "Name must not be empty!"],
            [{ full_name: "No Address", email: "not an address", password: "long enough" }, "Enter a valid email address."]
          ]
          for (const [fields, message] of cases) {
            const shown = yield* submit(link.key, fields)
            assert.strictEqual(shown.status, 400, shown.html)
            assert.include(shown.html, `<p class="error" role="alert" id="join-error">${message}</p>`)
            assert.notInclude(shown.html, fields.password!)
          }
          // What was typed comes back escaped.
          const typed = yield* submit(link.key, { full_name: "<script>alert(1)</script> & co", email: "x@y.z", password: "1" })
          assert.strictEqual(typed.status, 400)
          assert.include(typed.html, `value="&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"`)
          assert.notInclude(typed.html, "<script>")
          assert.strictEqual(yield* userCount, before)
        }))

      it.effect("the form is refused without its token, or with another one", () =>
        Effect.gen(function*() {
          const link = yield* made(yield* as("admin"))
          const before = yield* userCount
          const fields = { full_name: "Forged", email: "forged@zulip.com", password: "long enough" }
          const { cookie, token } = yield* openForm(link.key)
          // Another token of the same length: its last character changed (never to itself).
          const otherToken = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`
          for (
            const options of [
              { form: fields },
              { form: { ...fields, teamchat_join_csrf: token } },
              { form: fields, cookie },
              { form: { ...fields, teamchat_join_csrf: otherToken }, cookie }
            ]
          ) {
            const refused = yield* page("POST", link.key, options)
            assert.strictEqual(refused.status, 403, refused.html)
            assert.include(refused.html, "This form has expired or was not sent from the invitation page.")
          }
          assert.strictEqual(yield* userCount, before)
        }))

      it.effect("unknown, expired and revoked links show a page saying so", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const admin = yield* as("admin")
          for (const key of ["abcdefghijklmnopqrstuvwx", "short", "<b>"]) {
            const unknown = yield* page("GET", encodeURIComponent(key))
            assert.strictEqual(unknown.status, 404, key)
            assert.include(unknown.html, "This invitation link is not valid.")
            assert.notInclude(unknown.html, "<b>")
          }
          const revoked = yield* made(admin)
          const { cookie, token } = yield* openForm(revoked.key)
          assert.deepStrictEqual((yield* revokeLink(admin, revoked.id)).json, success())
          const shown = yield* page("GET", revoked.key)
          assert.strictEqual(shown.status, 410)
          assert.include(shown.html, "This invitation link has been revoked.")
          // A form opened before the revocation no longer makes an account.
          const late = yield* page("POST", revoked.key, {
            form: { teamchat_join_csrf: token, full_name: "Late", email: "late@zulip.com", password: "long enough" },
            cookie
          })
          assert.strictEqual(late.status, 410)
          const expiring = yield* made(admin, { invite_expires_in_minutes: "5" })
          server.clock.advance(5 * 60_000 + 1000)
          const expired = yield* page("GET", expiring.key)
          assert.strictEqual(expired.status, 410)
          assert.include(expired.html, "This invitation link has expired.")
          const never = yield* made(admin, { invite_expires_in_minutes: "null" })
          server.clock.advance(1000 * 24 * 3600_000)
          assert.strictEqual((yield* page("GET", never.key)).status, 200)
          // The path without its final slash is the same page.
          const response = yield* Effect.promise(() => server.handler(makeRequest("GET", `/join/${never.key}`)))
          assert.strictEqual(response.status, 200)
          assert.include(yield* Effect.promise(() => response.text()), "<h1>Join Zulip Dev</h1>")
        }))

      /** A person who joined through a link made by `maker` with `form`, logged in with their password. */
      const joinedAs = (maker: Credentials, form: Record<string, string>, name: string) =>
        Effect.gen(function*() {
          const server = yield* Server
          const link = yield* made(maker, form)
          const email = `${name.toLowerCase()}@zulip.com`
          const joined = yield* submit(link.key, { full_name: name, email, password: "elsinore-2026" })
          assert.strictEqual(joined.status, 200, joined.html)
          const key = yield* server.fetch("POST", "/api/v1/fetch_api_key", { form: { username: email, password: "elsinore-2026" } })
          assert.strictEqual(key.status, 200, key.text)
          return { email, apiKey: key.json.api_key as string, userId: key.json.user_id as number } satisfies Credentials & { userId: number }
        })

      const setRole = (who: Credentials, target: number, role: number) =>
        Effect.flatMap(Server, (server) =>
          Effect.map(server.fetch("PATCH", `/api/v1/users/${target}`, { as: who, form: { role: JSON.stringify(role) } }), (reply) => {
            assert.deepStrictEqual(reply.json, success(), reply.text)
          }))

      const roleOf = (email: string, password: string) =>
        Effect.gen(function*() {
          const server = yield* Server
          const key = (yield* server.fetch("POST", "/api/v1/fetch_api_key", { form: { username: email, password } })).json
          return (yield* server.fetch("GET", "/api/v1/users/me", { as: { email, apiKey: key.api_key as string } })).json.role as number
        })

      const makerRefusal = `<h1>This invitation link cannot be used</h1>
<p role="alert">The person who made this invitation link may no longer invite people with it. Ask for a new one.</p>`

      it.effect("a link grants only what its maker may still invite: owner links need an owner, administrator links an administrator", () =>
        Effect.gen(function*() {
          const owner = yield* as("owner")
          const gertrude = yield* joinedAs(owner, { invite_as: "100" }, "Gertrude")
          const ownerLink = yield* made(gertrude, { invite_as: "100" })
          const adminLink = yield* made(gertrude, { invite_as: "200" })
          const memberLink = yield* made(gertrude)
          // A form opened while the maker was an owner.
          const { cookie, token } = yield* openForm(ownerLink.key)
          const before = yield* userCount

          yield* setRole(owner, gertrude.userId, 200)
          const refused = yield* page("GET", ownerLink.key)
          assert.strictEqual(refused.status, 410, refused.html)
          assert.include(refused.html, makerRefusal)
          const late = yield* page("POST", ownerLink.key, {
            form: { teamchat_join_csrf: token, full_name: "Claudius", email: "claudius@zulip.com", password: "long enough" },
            cookie
          })
          assert.strictEqual(late.status, 410, late.html)
          assert.include(late.html, makerRefusal)
          assert.strictEqual(yield* userCount, before, "the refused join wrote nothing")
          // An administrator may still invite administrators and members.
          const admin = yield* submit(adminLink.key, { full_name: "Voltemand", email: "voltemand@zulip.com", password: "long enough" })
          assert.strictEqual(admin.status, 200, admin.html)
          assert.strictEqual(yield* roleOf("voltemand@zulip.com", "long enough"), 200)

          // A moderator may invite nobody (the organization's invitation group is its administrators).
          yield* setRole(owner, gertrude.userId, 300)
          for (const link of [adminLink, memberLink]) {
            const shown = yield* page("GET", link.key)
            assert.strictEqual(shown.status, 410, shown.html)
            assert.include(shown.html, makerRefusal)
            const posted = yield* page("POST", link.key, {
              form: { teamchat_join_csrf: token, full_name: "Cornelius", email: "cornelius@zulip.com", password: "long enough" },
              cookie
            })
            assert.strictEqual(posted.status, 410, posted.html)
            assert.include(posted.html, makerRefusal)
          }
          assert.strictEqual(yield* userCount, before + 1)

          // The check is of the maker's current rights: an owner again, the owner link works again.
          yield* setRole(owner, gertrude.userId, 100)
          const again = yield* submit(ownerLink.key, { full_name: "Reynaldo", email: "reynaldo@zulip.com", password: "long enough" })
          assert.strictEqual(again.status, 200, again.html)
          assert.strictEqual(yield* roleOf("reynaldo@zulip.com", "long enough"), 100)
        }))

      it.effect("deactivating a maker expires their links, as Zulip does, and announces it to administrators", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const owner = yield* as("owner")
          const admin = yield* as("admin")
          const horatio = yield* joinedAs(owner, { invite_as: "200" }, "Horatio")
          const link = yield* made(horatio)
          const forever = yield* made(horatio, { invite_expires_in_minutes: "null" })
          const ownersLink = yield* made(owner)
          const { cookie, token } = yield* openForm(link.key)
          const poll = yield* listen(admin, ["invites_changed"])
          const before = yield* userCount

          const deactivated = yield* server.fetch("DELETE", `/api/v1/users/${horatio.userId}`, { as: owner })
          assert.deepStrictEqual(deactivated.json, success(), deactivated.text)
          assert.deepStrictEqual(yield* poll, [{ type: "invites_changed" }])
          const listed = (yield* listLinks(owner)).json.invites as Array<{ id: number }>
          assert.deepStrictEqual(
            [link.id, forever.id, ownersLink.id].filter((id) => listed.some((i) => i.id === id)),
            [ownersLink.id],
            "only the other maker's link is still listed"
          )
          const expiredPage = `<h1>This invitation link cannot be used</h1>
<p role="alert">This invitation link has expired. Ask the person who invited you for a new one.</p>`
          for (const key of [link.key, forever.key]) {
            const shown = yield* page("GET", key)
            assert.strictEqual(shown.status, 410, shown.html)
            assert.include(shown.html, expiredPage)
          }
          const late = yield* page("POST", link.key, {
            form: { teamchat_join_csrf: token, full_name: "Marcellus", email: "marcellus@zulip.com", password: "long enough" },
            cookie
          })
          assert.strictEqual(late.status, 410, late.html)
          assert.include(late.html, expiredPage)
          assert.strictEqual(yield* userCount, before)

          // Reactivating the maker does not bring the links back.
          const reactivated = yield* server.fetch("POST", `/api/v1/users/${horatio.userId}/reactivate`, { as: owner })
          assert.deepStrictEqual(reactivated.json, success(), reactivated.text)
          assert.strictEqual((yield* page("GET", forever.key)).status, 410)
          assert.strictEqual((yield* page("GET", ownersLink.key)).status, 200)
        }))

      it.effect("without a custom text the Welcome Bot sends the organization's default", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const link = yield* made(yield* as("owner"), { invite_as: "600" })
          const joined = yield* submit(link.key, { full_name: "Rosencrantz", email: "rosencrantz@zulip.com", password: "guildenstern" })
          assert.strictEqual(joined.status, 200, joined.html)
          const key = (yield* server.fetch("POST", "/api/v1/fetch_api_key", {
            form: { username: "rosencrantz@zulip.com", password: "guildenstern" }
          })).json
          const who = { email: "rosencrantz@zulip.com", apiKey: key.api_key as string }
          assert.strictEqual((yield* server.fetch("GET", "/api/v1/users/me", { as: who })).json.role, 600)
          const messages = (yield* server.fetch("GET", "/api/v1/messages", {
            as: who,
            query: { anchor: "newest", num_before: "10", num_after: "0", apply_markdown: "false" }
          })).json.messages as Array<Record<string, any>>
          assert.strictEqual(messages.length, 1)
          assert.strictEqual(messages[0]!.sender_email, "welcome-bot@zulip.com")
          assert.match(messages[0]!.content, /^Hello, and welcome to \*\*Zulip Dev\*\*!/)
          assert.deepStrictEqual((yield* server.fetch("GET", "/api/v1/users/me/subscriptions", { as: who })).json.subscriptions, [])
        }))
    })

    layer(
      layerServer((clock) => demoLayer(backend, clock), {
        rateLimit: { requests: 1000, windowSeconds: 60 },
        joinRateLimit: { requests: 2, windowSeconds: 60 }
      }),
      { timeout: "120 seconds" }
    )((it) => {
      it.effect("join attempts are rate limited per client address", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const admin = yield* server.login(accounts.admin)
          const link = (yield* server.fetch("POST", "/api/v1/invites/multiuse", { as: admin })).json.invite_link as string
          const key = linkPattern.exec(link)![1]!
          const post = Effect.gen(function*() {
            const response = yield* Effect.promise(() =>
              server.handler(makeRequest("POST", `/join/${key}/`, { form: { full_name: "x", email: "x", password: "x" } }))
            )
            return { status: response.status, retry: response.headers.get("retry-after"), html: yield* Effect.promise(() => response.text()) }
          })
          assert.strictEqual((yield* post).status, 403)
          assert.strictEqual((yield* post).status, 403)
          const limited = yield* post
          assert.strictEqual(limited.status, 429)
          assert.strictEqual(limited.retry, "60")
          assert.include(limited.html, "Too many attempts from your address.")
          server.clock.advance(60_000)
          assert.strictEqual((yield* post).status, 403)
        }))
    })
  })
