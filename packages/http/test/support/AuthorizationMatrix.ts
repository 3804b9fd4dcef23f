/**
 * The authorization matrix, written once and run on every core backend: for
 * every operation of the served OpenAPI document, who may call it and what
 * each caller gets back.
 *
 * The table is `matrix` (`support/matrix/Rows.ts`, rows by area in
 * `support/matrix/`). A row names an operation as the document spells it
 * (`POST /messages/flags`: the method and the path without `/api/v1`), builds a
 * valid request for it (fresh channels, messages, queues and scheduled
 * messages where the operation changes state, so no case depends on another),
 * and states by hand, from Zulip's behaviour, the status and body each
 * principal gets: exact error bodies for refusals, the status and the key
 * facts of the body for successes. The principals: nobody (no credentials), a
 * deactivated user, the owner, an administrator, a moderator, a member, a guest
 * and a generic bot owned by the member. A refusal must also have written
 * nothing: the organization's records and event log (support/Fingerprint.ts)
 * are as they were before it.
 *
 * The first test reads the served document: it fails for an operation without
 * a row and for a row naming an operation that is not served.
 */
import { assert, describe, layer } from "@effect/vitest"
import { channelId, userId } from "@teamchat/core/domain/Ids"
import { ChannelRepo, RealmRepo } from "@teamchat/core/ports/Repositories"
import { Users } from "@teamchat/core/services/Users"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Backend, Credentials, Reply } from "./Harness.ts"
import { accounts, demoLayer, demoPassword, layerServer, makeRequest, realmUrl, Server } from "./Harness.ts"
import { changedParts, fingerprint } from "./Fingerprint.ts"
import { matrix } from "./matrix/Rows.ts"
import type { Account, AccountFixture, Call, ChannelFixture, Expected, Fixture, Principal, Row } from "./matrix/Table.ts"
import { principals } from "./matrix/Table.ts"

// -----------------------------------------------------------------------------
// the fixture

export class MatrixFixture extends Context.Service<MatrixFixture, Fixture>()("@teamchat/http/test/MatrixFixture") {}

/** The roles the demo organization has accounts for. */
const demoRoles = ["owner", "admin", "moderator", "member", "guest"] as const

const makeFixture = Effect.gen(function*() {
  const server = yield* Server
  const realm = yield* server.core(Effect.map(RealmRepo.use((repo) => repo.list), (all) => all.find((r) => r.url === realmUrl)!))
  const logins: Partial<Record<Account, AccountFixture>> = {}
  for (const role of demoRoles) logins[role] = yield* server.login(accounts[role])
  const member = logins.member!

  // The accounts the demo lacks: a generic bot owned by the member, and a
  // member whose key was issued before the account was deactivated.
  yield* server.core(Users.use((users) =>
    users.create(realm.id, {
      email: "matrix-bot@zulip.com",
      full_name: "Matrix Bot",
      role: 400,
      bot: { bot_type: 1, owner_id: userId(member.userId) }
    })
  ))
  logins.bot = yield* server.login("matrix-bot@zulip.com")
  yield* server.core(Users.use((users) =>
    users.create(realm.id, {
      email: "matrix-deactivated@zulip.com",
      full_name: "Matrix Deactivated",
      role: 400,
      password: demoPassword
    })
  ))
  const deactivated = yield* server.login("matrix-deactivated@zulip.com")
  yield* server.core(Users.use((users) => users.deactivate(userId(deactivated.userId))))
  logins.deactivated = deactivated
  const accountsOf = logins as Record<Account, AccountFixture>

  const bystander = yield* server.login("othello@zulip.com")
  const loginOf = (as: Account | "bystander") => (as === "bystander" ? bystander : accountsOf[as])

  let counter = 0
  const unique = (prefix: string) => `${prefix} ${++counter}`

  const call = (as: Account | "bystander", method: string, path: string, request: Call) =>
    Effect.map(
      server.fetch(method, `/api/v1${request.path ?? path}`, { as: loginOf(as), query: request.query, form: request.form }),
      (reply) => {
        assert.strictEqual(reply.status, 200, `fixture: ${method} ${path} as ${as}: ${reply.text}`)
        return reply.json
      }
    )

  const channel = (
    subscribers: ReadonlyArray<Account | "bystander">,
    options: { readonly inviteOnly?: boolean } = {}
  ) =>
    Effect.gen(function*() {
      const name = unique(options.inviteOnly === true ? "matrix private" : "matrix public")
      yield* call("owner", "POST", "/users/me/subscriptions", {
        form: {
          subscriptions: JSON.stringify([{ name }]),
          principals: JSON.stringify(subscribers.map((a) => loginOf(a).userId)),
          invite_only: String(options.inviteOnly === true)
        }
      })
      const found = yield* server.core(ChannelRepo.use((repo) => repo.findByName(realm.id, name)))
      const topic = "matrix"
      const sent = yield* call(subscribers[0]!, "POST", "/messages", {
        form: { type: "stream", to: String(found!.id), topic, content: `a message in ${name}` }
      })
      return { id: channelId(found!.id), name, messageId: sent.id as number, topic } satisfies ChannelFixture
    })

  const made = new Map<string, unknown>()
  const once = <A>(key: string, make: Effect.Effect<A>): Effect.Effect<A> =>
    Effect.suspend(() =>
      made.has(key)
        ? Effect.succeed(made.get(key) as A)
        : Effect.tap(make, (value) => Effect.sync(() => made.set(key, value)))
    )

  return MatrixFixture.of({
    server,
    accounts: accountsOf,
    bystander,
    everyoneChannel: yield* channel(["owner", "admin", "moderator", "member", "guest", "bot"]),
    publicChannel: yield* channel(["bystander"]),
    privateChannel: yield* channel(["bystander"], { inviteOnly: true }),
    unique,
    channel,
    once,
    call,
    nowSeconds: () => Math.floor(server.clock.now() / 1000)
  })
})

/** The matrix's fixture over a server (the demo organization on it). */
export const layerMatrixOn = (server: Layer.Layer<Server, unknown>) =>
  Layer.effect(MatrixFixture, makeFixture).pipe(Layer.provideMerge(server))

const layerMatrix = (backend: Backend) => layerMatrixOn(layerServer((clock) => demoLayer(backend, clock)))

// -----------------------------------------------------------------------------
// checking one case

/** The call's request (a multipart body for its files); the answer, JSON or not. */
export const sendCall = (
  server: Server["Service"],
  method: string,
  path: string,
  as: Credentials | undefined,
  call: Call
): Effect.Effect<Reply> => {
  let body: FormData | undefined
  if (call.files !== undefined) {
    body = new FormData()
    for (const [key, value] of Object.entries(call.form ?? {})) body.append(key, value)
    for (const file of call.files) body.append(file.field, new Blob([file.content], { type: file.type }), file.name)
  }
  const request = makeRequest(method, path, {
    as,
    query: call.query,
    ...(body === undefined ? { form: call.form } : { body })
  })
  return Effect.promise(async () => {
    const response = await server.handler(request)
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  })
}

export const methodOf = (row: Row) => row.operation.split(" ")[0]!
export const pathOf = (row: Row) => row.operation.split(" ")[1]!

/** The fields of `actual` that `expected` names. */
const pick = (actual: any, expected: Record<string, unknown>) =>
  Object.fromEntries(Object.keys(expected).map((key) => [key, actual?.[key]]))

const check = (row: Row, reply: Reply, fixture: Fixture, principal: Principal, call: Call) => {
  const expected: Expected = row.expect[principal]
  const context = `${reply.status} ${reply.text.slice(0, 1000)}`
  assert.strictEqual(reply.status, expected.status, context)
  if ("text" in expected) {
    assert.strictEqual(reply.text, expected.text, context)
  } else if ("body" in expected) {
    const body = typeof expected.body === "function" ? expected.body(fixture, principal, call) : expected.body
    assert.deepStrictEqual(reply.json, body, context)
  } else {
    const facts = { result: "success", msg: "", ...expected.facts(fixture, principal, call) }
    const source = row.digest === undefined ? reply.json : { ...reply.json, ...row.digest(reply.json, fixture, call) }
    assert.deepStrictEqual(pick(source, facts), facts, context)
  }
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    assert.strictEqual(reply.headers.get(name), value, `header ${name}: ${context}`)
  }
}

const runCase = (row: Row, principal: Principal) =>
  Effect.flatMap(MatrixFixture, (fixture) =>
    row.restore === undefined ? checkCase(fixture, row, principal) : Effect.ensuring(checkCase(fixture, row, principal), row.restore(fixture)))

const checkCase = (fixture: Fixture, row: Row, principal: Principal) =>
  Effect.gen(function*() {
    // Nobody and the deactivated user send what the member would.
    const builder: Account = principal === "anonymous" || principal === "deactivated" ? "member" : principal
    const request = yield* row.request(fixture, builder, principal)
    // A refusal writes nothing: the organization is as it was before.
    const refusal = row.expect[principal].status >= 400
    const before = refusal ? yield* fixture.server.core(fingerprint()) : undefined
    const reply = yield* sendCall(
      fixture.server,
      methodOf(row),
      `${row.outsideApi === true ? "" : "/api/v1"}${request.path ?? pathOf(row)}`,
      principal === "anonymous" ? undefined : fixture.accounts[principal],
      request
    )
    check(row, reply, fixture, principal, request)
    if (before !== undefined) {
      const changed = changedParts(before, yield* fixture.server.core(fingerprint()))
      assert.deepStrictEqual(changed, [], `the refused request wrote: ${changed.join(", ")}`)
    }
  })

// -----------------------------------------------------------------------------
// the coverage check

/** `METHOD /path` for every operation of the served document, paths without `/api/v1`. */
const servedOperations = (document: any): ReadonlyArray<string> =>
  Object.entries<any>(document.paths ?? {}).flatMap(([path, item]) =>
    ["get", "post", "put", "patch", "delete"]
      .filter((method) => item[method] !== undefined)
      .map((method) => `${method.toUpperCase()} ${path.replace(/^\/api\/v1/, "")}`)
  )

const coverageReport = (missing: ReadonlyArray<string>, stale: ReadonlyArray<string>) =>
  [
    ...(missing.length === 0 ? [] : [
      `Served operations without a row in the authorization matrix:\n${missing.map((o) => `  ${o}`).join("\n")}\n` +
      "Add a row for each to the area's file in packages/http/test/support/matrix/ (listed in matrix/Rows.ts):\n" +
      "`operation` as written above, a `request` that builds a valid call (fresh state if it writes), and in\n" +
      "`expect` the status and body every principal (anonymous, deactivated, owner, admin, moderator, member,\n" +
      "guest, bot) gets in Zulip. See \"Authorization matrix\" in docs/testing.md."
    ]),
    ...(stale.length === 0 ? [] : [
      `Rows of the authorization matrix naming no served operation:\n${stale.map((o) => `  ${o}`).join("\n")}\n` +
      "Fix the row's `operation` (METHOD and the document's path without /api/v1, e.g. `GET /messages/{message_id}`)\n" +
      "or remove the row with the route."
    ])
  ].join("\n\n")

// -----------------------------------------------------------------------------
// the suite

const caseName = (row: Row, principal: Principal) =>
  `${row.operation} as ${principal}${row.scenario === undefined ? "" : `, ${row.scenario}`}`

export const authorizationMatrix = (backend: Backend) =>
  describe(`authorization matrix on ${backend}`, () => {
    layer(layerMatrix(backend), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("every served operation has a row, and every row names a served operation", () =>
        Effect.gen(function*() {
          const server = yield* Server
          const document = yield* server.fetch("GET", "/api/v1/openapi.json")
          assert.strictEqual(document.status, 200, document.text)
          const served = servedOperations(document.json)
          assert.isAbove(served.length, 0, "the document lists operations")
          const rows = new Set(matrix.map((row) => row.operation))
          const missing = served.filter((operation) => !rows.has(operation))
          const stale = [...rows].filter((operation) => !served.includes(operation))
          assert.strictEqual(coverageReport(missing, stale), "")
        }))

      for (const row of matrix) {
        for (const principal of principals) {
          it.effect(caseName(row, principal), () => runCase(row, principal))
        }
      }
    })
  })
