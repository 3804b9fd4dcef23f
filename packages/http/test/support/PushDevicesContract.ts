/**
 * E2EE push registration over the wire, written once and run on every core
 * backend: POST /mobile_push/register per role, every parameter's refusal
 * with Zulip's text, `PUSH_SERVICE_NOT_CONFIGURED` without a bouncer, the
 * forward to a bouncer served by the test on 127.0.0.1 (its answers,
 * failures, timeouts and a refused connection), the `push_device` events
 * and register's `push_devices`.
 *
 * The servers with a bouncer run on a clock whose timers move only when
 * the test says (`timers: "manual"`): an answer is never late by accident,
 * and the one that never comes times out when the test moves the clock by
 * the client's timeout. Retries follow each other at once (no backoff).
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PushBouncerClient from "../../src/PushBouncerClient.ts"
import { expectReply } from "./EventListener.ts"
import type { Backend, Credentials, ManualClock, Role } from "./Harness.ts"
import { accounts, demoLayer, layerServer, Server } from "./Harness.ts"
import * as TestBouncer from "./TestBouncer.ts"

const success = { result: "success", msg: "" }
const badRequest = (msg: string) => ({ result: "error", msg, code: "BAD_REQUEST" })
const notConfigured = {
  result: "error",
  msg: "Server is not configured to use push notification service.",
  code: "PUSH_SERVICE_NOT_CONFIGURED"
}
const clientTimings = { timeoutMillis: 30_000, retries: 2, retryBaseMillis: 0 }

/** Valid parameters for an account; `overrides` replace or (undefined) remove some. */
const form = (pushAccountId: number, overrides: Record<string, string | undefined> = {}) => {
  const base: Record<string, string | undefined> = {
    token_kind: "fcm",
    push_account_id: String(pushAccountId),
    push_public_key: "cHVzaC1wdWJsaWMta2V5LTMyLWJ5dGVzLWxvbmcuLi4=",
    bouncer_public_key: "key-ok",
    encrypted_push_registration: "ZW5jcnlwdGVkIHJlZ2lzdHJhdGlvbg==",
    ...overrides
  }
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(base)) if (value !== undefined) out[key] = value
  return out
}

type Event = Record<string, unknown>

const helpers = () => {
  const as = (role: Role) => Effect.flatMap(Server, (server) => server.login(accounts[role]))
  const post = (who: Credentials, body: Record<string, string>) =>
    Effect.flatMap(Server, (server) => server.fetch("POST", "/api/v1/mobile_push/register", { as: who, form: body }))
  const devices = (who: Credentials) =>
    Effect.flatMap(Server, (server) =>
      Effect.map(
        server.fetch("POST", "/api/v1/register", { as: who, form: { fetch_event_types: JSON.stringify(["push_device"]) } }),
        (reply) => {
          assert.strictEqual(reply.status, 200, reply.text)
          return reply.json.push_devices as Record<string, unknown>
        }
      ))
  /**
   * A `push_device` queue for `who`: `next` waits (a long poll) for the
   * next events; `drain` takes what is there without waiting.
   */
  const queue = (who: Credentials) =>
    Effect.gen(function*() {
      const server = yield* Server
      const reply = yield* server.fetch("POST", "/api/v1/register", {
        as: who,
        form: { event_types: JSON.stringify(["push_device"]) }
      })
      assert.strictEqual(reply.status, 200, reply.text)
      const queueId = reply.json.queue_id as string
      let last = -1
      const poll = (block: boolean) =>
        Effect.gen(function*() {
          const got = yield* server.fetch("GET", "/api/v1/events", {
            as: who,
            query: { queue_id: queueId, last_event_id: String(last), ...(block ? {} : { dont_block: "true" }) }
          })
          assert.strictEqual(got.status, 200, got.text)
          const events = got.json.events as Array<Event & { id: number }>
          if (events.length > 0) last = events[events.length - 1]!.id
          return events.filter((e) => e.type !== "heartbeat").map(({ id: _id, ...rest }) => rest as Event)
        })
      /** Events until one settles `pushAccountId` (status other than pending). */
      const untilSettled = (pushAccountId: number) =>
        Effect.gen(function*() {
          const seen: Array<Event> = []
          while (!seen.some((e) => e.push_account_id === String(pushAccountId) && e.status !== "pending")) {
            seen.push(...(yield* poll(true)))
          }
          return seen
        })
      return { untilSettled, drain: poll(false) }
    })
  return { as, post, devices, queue }
}

const pending = (id: number) => ({ type: "push_device", push_account_id: String(id), status: "pending" })
const active = (id: number) => ({ type: "push_device", push_account_id: String(id), status: "active" })
const failed = (id: number, error_code: string) => ({ type: "push_device", push_account_id: String(id), status: "failed", error_code })

/** The demo organization with the bouncer client pointed at `url`. */
const withBouncer = (backend: Backend, clock: ManualClock, url: string) =>
  demoLayer(backend, clock).pipe(Layer.provide(PushBouncerClient.layer({ url, ...clientTimings })))

export const pushDevicesContract = (backend: Backend) =>
  describe(`E2EE push registration over HTTP on ${backend}`, () => {
    describe("without a push service", () => {
      layer(layerServer((clock) => demoLayer(backend, clock)), { timeout: "120 seconds" })((it) => {
        const { as, devices, post } = helpers()

        it.effect("every person is told the server has no push service; nothing is stored", () =>
          Effect.gen(function*() {
            for (const role of ["owner", "admin", "moderator", "member", "guest"] as const) {
              const who = yield* as(role)
              expectReply(yield* post(who, form(1)), 400, notConfigured)
              assert.deepStrictEqual(yield* devices(who), {})
            }
          }))

        it.effect("a bot is refused as a bot, and bad parameters are refused first", () =>
          Effect.gen(function*() {
            const bot = yield* as("bot")
            expectReply(yield* post(bot, form(1)), 400, badRequest("This endpoint does not accept bot requests."))
            const member = yield* as("member")
            expectReply(yield* post(member, form(1, { token_kind: "gcm" })), 400, badRequest("Invalid token_kind"))
            expectReply(
              yield* post(member, form(1, { push_public_key: "not base64" })),
              400,
              badRequest("Invalid push_public_key")
            )
          }))
      })
    })

    describe("with a bouncer", () => {
      const bouncer: { current?: TestBouncer.TestBouncer } = {}
      const core = (clock: ManualClock) =>
        Layer.unwrap(Effect.map(TestBouncer.start, (started) => {
          bouncer.current = started
          return withBouncer(backend, clock, started.url)
        }))
      layer(layerServer(core, {}, { timers: "manual" }), { timeout: "120 seconds" })((it) => {
        const { as, devices, post, queue } = helpers()
        const requestsFor = (id: number) => bouncer.current!.requestsFor(id)

        it.effect("every person registers: pending, forwarded after the request, then active", () =>
          Effect.gen(function*() {
            const roles = ["owner", "admin", "moderator", "member", "guest"] as const
            for (const [index, role] of roles.entries()) {
              const id = 100 + index
              const who = yield* as(role)
              const events = yield* queue(who)
              expectReply(yield* post(who, form(id, { token_kind: index % 2 === 0 ? "fcm" : "apns" })), 200, success)
              assert.deepStrictEqual(yield* events.untilSettled(id), [pending(id), active(id)], role)
              assert.deepStrictEqual(requestsFor(id), [{
                method: "POST",
                path: "/api/v1/remotes/push/e2ee/register",
                contentType: "application/json",
                body: {
                  push_account_id: id,
                  bouncer_public_key: "key-ok",
                  encrypted_push_registration: "ZW5jcnlwdGVkIHJlZ2lzdHJhdGlvbg=="
                }
              }], role)
              assert.deepStrictEqual(yield* devices(who), { [String(id)]: { status: "active", error_code: null } }, role)
            }
          }))

        it.effect("the events go to the device owner's clients only", () =>
          Effect.gen(function*() {
            const member = yield* as("member")
            const admin = yield* as("admin")
            const mine = yield* queue(member)
            const theirs = yield* queue(admin)
            expectReply(yield* post(member, form(200)), 200, success)
            assert.deepStrictEqual(yield* mine.untilSettled(200), [pending(200), active(200)])
            assert.deepStrictEqual(yield* theirs.drain, [])
            // The admin sees only their own devices in register.
            const adminDevices = yield* devices(admin)
            assert.isUndefined(adminDevices["200"])
          }))

        it.effect("registering a pending or active account again changes nothing", () =>
          Effect.gen(function*() {
            const member = yield* as("member")
            const events = yield* queue(member)
            expectReply(yield* post(member, form(300)), 200, success)
            assert.deepStrictEqual(yield* events.untilSettled(300), [pending(300), active(300)])
            // Same account, other keys: still the first registration.
            expectReply(yield* post(member, form(300, { bouncer_public_key: "key-retired", token_kind: "apns" })), 200, success)
            // A second account settles after any forward the repeat could have started.
            expectReply(yield* post(member, form(301)), 200, success)
            assert.deepStrictEqual(yield* events.untilSettled(301), [pending(301), active(301)])
            assert.strictEqual(requestsFor(300).length, 1)
            const state = yield* devices(member)
            assert.deepStrictEqual(state["300"], { status: "active", error_code: null })
          }))

        it.effect("the bouncer's refusals fail the device with its code; a new registration can fix it", () =>
          Effect.gen(function*() {
            const member = yield* as("member")
            const events = yield* queue(member)
            const cases = [
              [400, "key-retired", "INVALID_BOUNCER_PUBLIC_KEY"],
              [401, "key-expired", "REQUEST_EXPIRED"],
              [402, "key-garbled", "BAD_REQUEST"]
            ] as const
            for (const [id, key, code] of cases) {
              expectReply(yield* post(member, form(id, { bouncer_public_key: key })), 200, success)
              assert.deepStrictEqual(yield* events.untilSettled(id), [pending(id), failed(id, code)], key)
              // A 4xx answer is final: one request.
              assert.strictEqual(requestsFor(id).length, 1, key)
            }
            assert.deepStrictEqual(
              Object.fromEntries(Object.entries(yield* devices(member)).filter(([id]) => id.startsWith("40"))),
              {
                "400": { status: "failed", error_code: "INVALID_BOUNCER_PUBLIC_KEY" },
                "401": { status: "failed", error_code: "REQUEST_EXPIRED" },
                "402": { status: "failed", error_code: "BAD_REQUEST" }
              }
            )
            // Registering a failed account again is a new registration.
            expectReply(yield* post(member, form(400)), 200, success)
            assert.deepStrictEqual(yield* events.untilSettled(400), [pending(400), active(400)])
            assert.strictEqual(requestsFor(400).length, 2)
            assert.deepStrictEqual((yield* devices(member))["400"], { status: "active", error_code: null })
          }))

        it.effect("5xx answers and timeouts are retried, then fail the device", () =>
          Effect.gen(function*() {
            const guest = yield* as("guest")
            const events = yield* queue(guest)
            expectReply(yield* post(guest, form(500, { bouncer_public_key: "key-500" })), 200, success)
            assert.deepStrictEqual(yield* events.untilSettled(500), [
              pending(500),
              failed(500, "INTERNAL_SERVER_ERROR_ON_BOUNCER")
            ])
            assert.strictEqual(requestsFor(500).length, 3)

            expectReply(yield* post(guest, form(501, { bouncer_public_key: "key-flaky" })), 200, success)
            assert.deepStrictEqual(yield* events.untilSettled(501), [pending(501), active(501)])
            assert.strictEqual(requestsFor(501).length, 2)

            expectReply(yield* post(guest, form(502, { bouncer_public_key: "key-slow" })), 200, success)
            // Each attempt gets no answer; moving the clock by the timeout ends it.
            const server = yield* Server
            for (const attempt of [1, 2, 3]) {
              yield* bouncer.current!.received(502, attempt)
              server.clock.advance(clientTimings.timeoutMillis)
            }
            assert.deepStrictEqual(yield* events.untilSettled(502), [pending(502), failed(502, "FAILED_TO_CONNECT_BOUNCER")])
            assert.strictEqual(requestsFor(502).length, 3)
          }))

        it.effect("an answer that is not the bouncer's JSON fails the device without retrying", () =>
          Effect.gen(function*() {
            const owner = yield* as("owner")
            const events = yield* queue(owner)
            for (const [id, key] of [[600, "key-html"], [601, "key-no-id"]] as const) {
              expectReply(yield* post(owner, form(id, { bouncer_public_key: key })), 200, success)
              assert.deepStrictEqual(yield* events.untilSettled(id), [
                pending(id),
                failed(id, "INTERNAL_SERVER_ERROR_ON_BOUNCER")
              ])
              assert.strictEqual(requestsFor(id).length, 1, key)
            }
          }))

        it.effect("every parameter is checked with Zulip's text; nothing is stored or forwarded", () =>
          Effect.gen(function*() {
            const member = yield* as("member")
            for (const name of ["token_kind", "push_account_id", "push_public_key", "bouncer_public_key", "encrypted_push_registration"]) {
              expectReply(yield* post(member, form(700, { [name]: undefined })), 400, {
                result: "error",
                msg: `Missing '${name}' argument`,
                code: "REQUEST_VARIABLE_MISSING",
                var_name: name
              })
            }
            const refusals: ReadonlyArray<readonly [Record<string, string>, string]> = [
              [{ token_kind: "gcm" }, "Invalid token_kind"],
              [{ token_kind: "FCM" }, "Invalid token_kind"],
              [{ push_account_id: "abc" }, "push_account_id is not valid JSON"],
              [{ push_account_id: "1.5" }, "push_account_id is not an integer"],
              [{ push_account_id: "\"700\"" }, "push_account_id is not an integer"],
              [{ push_public_key: "" }, "Invalid push_public_key"],
              [{ push_public_key: "abc" }, "Invalid push_public_key"],
              [{ push_public_key: "ab-_" }, "Invalid push_public_key"],
              [{ push_public_key: "YWJj ZA==" }, "Invalid push_public_key"],
              [{ push_public_key: "YQ=a" }, "Invalid push_public_key"],
              [{ encrypted_push_registration: "" }, "Invalid encrypted_push_registration"],
              [{ encrypted_push_registration: "Z===" }, "Invalid encrypted_push_registration"],
              [{ encrypted_push_registration: "{\"token\":\"x\"}" }, "Invalid encrypted_push_registration"]
            ]
            for (const [overrides, msg] of refusals) {
              expectReply(yield* post(member, form(700, overrides)), 400, badRequest(msg))
            }
            const bot = yield* as("bot")
            expectReply(yield* post(bot, form(701)), 400, badRequest("This endpoint does not accept bot requests."))
            assert.isUndefined((yield* devices(member))["700"])
            assert.deepStrictEqual(yield* devices(bot), {})
            assert.strictEqual(requestsFor(700).length + requestsFor(701).length, 0)
          }))
      })
    })

    describe("with a bouncer that refuses connections", () => {
      const core = (clock: ManualClock) =>
        Layer.unwrap(Effect.map(TestBouncer.refusingUrl, (url) => withBouncer(backend, clock, url)))
      layer(layerServer(core, {}, { timers: "manual" }), { timeout: "120 seconds" })((it) => {
        const { as, devices, post, queue } = helpers()

        it.effect("the device fails with FAILED_TO_CONNECT_BOUNCER; the request itself succeeded", () =>
          Effect.gen(function*() {
            const moderator = yield* as("moderator")
            const events = yield* queue(moderator)
            expectReply(yield* post(moderator, form(800)), 200, success)
            assert.deepStrictEqual(yield* events.untilSettled(800), [pending(800), failed(800, "FAILED_TO_CONNECT_BOUNCER")])
            assert.deepStrictEqual(yield* devices(moderator), {
              "800": { status: "failed", error_code: "FAILED_TO_CONNECT_BOUNCER" }
            })
          }))
      })
    })
  })
