/**
 * Saved snippets over the wire, written once and run on every core backend:
 * GET and POST /saved_snippets, PATCH and DELETE
 * /saved_snippets/{saved_snippet_id}, register's `saved_snippets` and the
 * `saved_snippets` events, per role, with Zulip's texts for every refusal
 * and nothing written (and nothing announced) by a refused request.
 *
 * Facts from Zulip: title and content are stripped and may not be blank;
 * a title holds at most 60 characters and a content 10000; the parameters
 * are checked (content first) before the snippet is looked up; an edit with
 * neither title nor content succeeds, changes nothing and sends no event;
 * another user's snippet is a 404 "Saved snippet does not exist." (code
 * BAD_REQUEST); `date_created` is the server's time in seconds. Guests and
 * bots keep snippets like everyone else.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { openQueue } from "./EventListener.ts"
import type { Backend, Credentials, Role } from "./Harness.ts"
import { accounts, demoLayer, layerServer, Server } from "./Harness.ts"

const success = (data: object = {}) => ({ result: "success", msg: "", ...data })
const badRequest = (msg: string) => ({ result: "error", msg, code: "BAD_REQUEST" })

const roles: ReadonlyArray<Role> = ["owner", "admin", "moderator", "member", "guest", "bot"]

export const savedSnippetsContract = (backend: Backend) =>
  describe(`saved snippets over HTTP on ${backend}`, () => {
    layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
      const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
      const login = (email: string) => Effect.flatMap(Server, (server) => server.login(email))

      const create = (who: Credentials, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/saved_snippets", { as: who, form }))
      const edit = (who: Credentials, id: number | string, form: Record<string, string>) =>
        Effect.flatMap(Server, (server) => server.fetch("PATCH", `/api/v1/saved_snippets/${id}`, { as: who, form }))
      const remove = (who: Credentials, id: number | string) =>
        Effect.flatMap(Server, (server) => server.fetch("DELETE", `/api/v1/saved_snippets/${id}`, { as: who }))
      const listed = (who: Credentials) =>
        Effect.flatMap(Server, (server) =>
          Effect.map(server.fetch("GET", "/api/v1/saved_snippets", { as: who }), (reply) => {
            assert.strictEqual(reply.status, 200, reply.text)
            assert.deepStrictEqual(Object.keys(reply.json).sort(), ["msg", "result", "saved_snippets"])
            return reply.json.saved_snippets as Array<Record<string, unknown>>
          }))

      /** Registers for `saved_snippets`: the initial state and the queue's poll. */
      const register = (who: Credentials) =>
        Effect.map(
          openQueue(who, ["saved_snippets"]),
          ({ poll, state }) => ({ snippets: state.saved_snippets as Array<Record<string, unknown>>, poll })
        )

      it.effect("every role keeps snippets: created, listed, edited, deleted, announced to its own clients only", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const cordelia = yield* login("cordelia@zulip.com")
          const bystander = yield* register(cordelia)
          for (const role of roles) {
            const who = yield* as(role)
            const queue = yield* register(who)
            assert.deepStrictEqual(queue.snippets, [], role)
            const madeAt = Math.floor(server.clock.now() / 1000)
            const created = yield* create(who, { title: `  Welcome (${role}) `, content: "\n **Welcome** to the organization.  " })
            assert.strictEqual(created.status, 200, `${role}: ${created.text}`)
            const id = created.json.saved_snippet_id as number
            assert.deepStrictEqual(created.json, success({ saved_snippet_id: id }))
            const first = {
              id,
              title: `Welcome (${role})`,
              content: "**Welcome** to the organization.",
              date_created: madeAt
            }
            assert.deepStrictEqual(yield* queue.poll, [{ type: "saved_snippets", op: "add", saved_snippet: first }])
            assert.deepStrictEqual(yield* listed(who), [first])
            assert.deepStrictEqual((yield* register(who)).snippets, [first])

            // A later snippet is listed after, with the time it was made.
            server.clock.advance(1000)
            const second = (yield* create(who, { title: "Later", content: "Later" })).json.saved_snippet_id as number
            assert.deepStrictEqual(yield* listed(who), [first, {
              id: second,
              title: "Later",
              content: "Later",
              date_created: madeAt + 1
            }])
            yield* queue.poll

            // Only what is given changes.
            assert.deepStrictEqual((yield* edit(who, id, { title: " New title " })).json, success())
            const renamed = { ...first, title: "New title" }
            assert.deepStrictEqual(yield* queue.poll, [{ type: "saved_snippets", op: "update", saved_snippet: renamed }])
            assert.deepStrictEqual((yield* edit(who, id, { content: "New content" })).json, success())
            const rewritten = { ...renamed, content: "New content" }
            assert.deepStrictEqual(yield* queue.poll, [{ type: "saved_snippets", op: "update", saved_snippet: rewritten }])
            assert.deepStrictEqual((yield* edit(who, id, { title: "Both", content: "Both" })).json, success())
            const both = { ...first, title: "Both", content: "Both" }
            assert.deepStrictEqual(yield* queue.poll, [{ type: "saved_snippets", op: "update", saved_snippet: both }])
            // Neither: a success that changes and announces nothing.
            assert.deepStrictEqual((yield* edit(who, id, {})).json, success())
            assert.deepStrictEqual(yield* queue.poll, [])
            assert.deepStrictEqual((yield* listed(who))[0], both)

            for (const snippetId of [id, second]) {
              assert.deepStrictEqual((yield* remove(who, snippetId)).json, success())
              assert.deepStrictEqual(yield* queue.poll, [{
                type: "saved_snippets",
                op: "remove",
                saved_snippet_id: snippetId
              }])
            }
            assert.deepStrictEqual(yield* listed(who), [])
          }
          assert.deepStrictEqual(yield* bystander.poll, [])
        }))

      it.effect("bad titles and contents are refused with Zulip's texts and write nothing", () =>
        Effect.gen(function*() {
          const who = yield* login("ZOE@zulip.com")
          const queue = yield* register(who)
          const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
            [{ title: "   ", content: "fine" }, "title cannot be blank"],
            [{ title: "fine", content: " \n " }, "content cannot be blank"],
            // Content is checked first.
            [{ title: "", content: "" }, "content cannot be blank"],
            [{ title: "t".repeat(61), content: "fine" }, "title is too long (limit: 60 characters)"],
            [{ title: "fine", content: "c".repeat(10001) }, "content is too long (limit: 10000 characters)"]
          ]
          for (const [form, msg] of cases) {
            const reply = yield* create(who, form)
            assert.strictEqual(reply.status, 400, `${msg}: ${reply.text}`)
            assert.deepStrictEqual(reply.json, badRequest(msg))
          }
          // At the limits, once stripped.
          const atLimit = yield* create(who, { title: ` ${"t".repeat(60)} `, content: "c".repeat(10000) })
          assert.strictEqual(atLimit.status, 200, atLimit.text)
          const id = atLimit.json.saved_snippet_id as number
          yield* queue.poll
          for (const [form, msg] of cases) {
            const reply = yield* edit(who, id, form)
            assert.strictEqual(reply.status, 400, `${msg}: ${reply.text}`)
            assert.deepStrictEqual(reply.json, badRequest(msg))
          }
          // The parameters are checked before the snippet is looked up.
          assert.deepStrictEqual((yield* edit(who, 999999, { title: " " })).json, badRequest("title cannot be blank"))
          const missing = yield* create(who, { title: "only a title" })
          assert.strictEqual(missing.status, 400)
          assert.deepStrictEqual(missing.json, {
            result: "error",
            msg: "Missing 'content' argument",
            code: "REQUEST_VARIABLE_MISSING",
            var_name: "content"
          })
          assert.deepStrictEqual(yield* listed(who), [{
            id,
            title: "t".repeat(60),
            content: "c".repeat(10000),
            date_created: Math.floor((yield* Server).clock.now() / 1000)
          }])
          assert.deepStrictEqual(yield* queue.poll, [])
          yield* remove(who, id)
        }))

      it.effect("unknown ids and other users' snippets are 404 \"Saved snippet does not exist.\"", () =>
        Effect.gen(function*() {
          const hamlet = yield* as("member")
          const iago = yield* as("admin")
          const id = (yield* create(hamlet, { title: "mine", content: "mine" })).json.saved_snippet_id as number
          const queue = yield* register(hamlet)
          for (const [who, target] of [[iago, id], [hamlet, 999999], [iago, "99999999999999999999"]] as const) {
            const patched = yield* edit(who, target, { title: "theirs" })
            assert.strictEqual(patched.status, 404, patched.text)
            assert.deepStrictEqual(patched.json, badRequest("Saved snippet does not exist."))
            const removed = yield* remove(who, target)
            assert.strictEqual(removed.status, 404, removed.text)
            assert.deepStrictEqual(removed.json, badRequest("Saved snippet does not exist."))
          }
          assert.deepStrictEqual((yield* listed(hamlet)).map((s) => s.title), ["mine"])
          assert.deepStrictEqual(yield* queue.poll, [])
          yield* remove(hamlet, id)
        }))
    })
  })
