/**
 * Messages: what a send, a narrowed read and a bulk flag change cost on the
 * embedded database, beside the raw SQL of the same rows in the same run.
 *
 * - send: POST /messages to a channel with 100 subscribers through the whole
 *   API (auth, parsing, permissions, rendering, flags, events), p50 and p99,
 *   next to inserting the same message and its 100 rows with two plain SQL
 *   statements in one transaction on the same database. The two alternate,
 *   one of each in turn, so neither gets a quieter stretch of the machine or
 *   caches warmed by a run of its own kind.
 * - read: GET /messages with a channel + topic narrow, 50 messages, p50.
 * - flags: POST /messages/flags/narrow marking 5,000 unread messages read.
 *
 * Everything runs in this process on PGlite (the default backend), with
 * requests handed to the web handler directly: no sockets, so the figures
 * are the server's own work.
 */
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import { realmId } from "@teamchat/core/domain/Ids"
import { UserRepo } from "@teamchat/core/ports/Repositories"
import { Channels } from "@teamchat/core/services/Channels"
import { Users } from "@teamchat/core/services/Users"
import { PgliteClient } from "@teamchat/core/sql/PgliteClient"
import * as Teamchat from "@teamchat/core/Teamchat"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import { makeWebHandler } from "../packages/http/src/Http.ts"
import type { Benchmark, Metric } from "./harness.ts"

const origin = "http://localhost:9991"
const subscriberCount = 100
const samples = 500

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!
}

/** Lets anything a request left running finish, so it is not timed in the next one. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1))

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`

export const messagesBenchmark: Benchmark = {
  name: "messages",
  description: "send to 100 subscribers vs raw SQL, narrowed read, flags on 5,000 messages (PGlite)",
  run: async (_options, log) => {
    const scope = Effect.runSync(Scope.make())
    const core = Teamchat.layerSql(Teamchat.layerSecretsTest).pipe(Layer.provideMerge(PgliteClient.layer({})))
    const context = await Effect.runPromise(Layer.buildWithScope(core, scope))
    const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(Effect.provideContext(effect, context) as Effect.Effect<A, E>)
    try {
      log("seeding the demo organization and 90 more subscribers")
      await run(DemoOrganization.seed(origin))
      const { channel: benchChannel, iago: iagoId } = await run(Effect.gen(function*() {
        const users = yield* Users
        const channels = yield* Channels
        const realm = realmId(1)
        const ids = []
        for (let i = 0; i < subscriberCount; i++) {
          const user = yield* users.create(realm, { email: `bench${i}@zulip.com`, full_name: `Bench ${i}`, role: 400 })
          ids.push(user.id)
        }
        const iago = yield* (yield* UserRepo).findByDeliveryEmail(realm, "iago@zulip.com")
        const created = yield* channels.create(realm, { name: "bench" })
        yield* channels.subscribe(created.id, [...ids, iago!.id])
        return { channel: created.id, iago: iago!.id }
      }))
      const { handler, dispose } = makeWebHandler(Layer.succeedContext(context), { demo: true, rateLimit: false })
      const call = async (method: string, path: string, auth: string, form?: Record<string, string>, query?: Record<string, string>) => {
        const url = new URL(path, origin)
        for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v)
        const response = await handler(new Request(url, {
          method,
          headers: { authorization: auth },
          ...(form === undefined ? {} : { body: new URLSearchParams(form) })
        }))
        const text = await response.text()
        if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text}`)
        return JSON.parse(text)
      }
      const login = await handler(new Request(`${origin}/api/v1/dev_fetch_api_key`, {
        method: "POST",
        body: new URLSearchParams({ username: "iago@zulip.com" })
      }))
      const key = ((await login.json()) as { api_key: string }).api_key
      const auth = basic("iago@zulip.com", key)
      const send = (i: number) =>
        call("POST", "/api/v1/messages", auth, { type: "stream", to: String(benchChannel), topic: `topic ${i % 10}`, content: `message ${i} with **bold** text` })

      const recipients = await run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ user_id: number }>`SELECT user_id FROM subscriptions WHERE channel_id = ${benchChannel} AND active`
        return rows.map((r) => Number(r.user_id))
      }))
      const rawInsert = (i: number) =>
        run(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql.withTransaction(Effect.gen(function*() {
            const [row] = yield* sql<{ id: number }>`
              INSERT INTO messages (realm_id, sender_id, type, channel_id, topic, dm_key, dm_user_ids, content,
                rendered_content, date_sent, client, has_attachment, has_image, has_link)
              VALUES (1, ${iagoId}, 'stream', ${benchChannel}, ${`topic ${i % 10}`}, NULL, '[]'::jsonb, ${`message ${i} with **bold** text`},
                ${`<p>message ${i} with <strong>bold</strong> text</p>`}, 1700000000, 'API', false, false, false)
              RETURNING id`
            yield* sql`INSERT INTO user_messages (user_id, message_id, flags)
              SELECT u, ${row!.id}, 0 FROM unnest(${sql.literal(`ARRAY[${recipients.join(",")}]::bigint[]`)}) AS u`
          }))
        }))

      // Sends and raw inserts alternate, so both see the same machine and
      // the same table sizes: the ratio is not skewed by a noisy stretch.
      log(`POST /messages to ${subscriberCount}+ subscribers and the raw SQL of the same rows, ${samples} of each, alternating`)
      for (let i = 0; i < 50; i++) {
        await send(i)
        await rawInsert(i)
      }
      const sendTimes: Array<number> = []
      const rawTimes: Array<number> = []
      for (let i = 0; i < samples; i++) {
        let t = performance.now()
        await send(i)
        sendTimes.push(performance.now() - t)
        await settle()
        t = performance.now()
        await rawInsert(i)
        rawTimes.push(performance.now() - t)
        await settle()
      }

      log("GET /messages with a channel + topic narrow, 50 messages")
      const narrow = JSON.stringify([{ operator: "channel", operand: benchChannel }, { operator: "topic", operand: "topic 3" }])
      const read = () => call("GET", "/api/v1/messages", auth, undefined, { anchor: "newest", num_before: "50", num_after: "0", narrow })
      for (let i = 0; i < 20; i++) await read()
      const readTimes: Array<number> = []
      for (let i = 0; i < 200; i++) {
        const t = performance.now()
        await read()
        readTimes.push(performance.now() - t)
      }

      log("POST /messages/flags/narrow marking 5,000 messages read")
      await run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE user_messages SET flags = flags & ~1 WHERE user_id = ${iagoId}`
        const [{ n }] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM user_messages WHERE user_id = ${iagoId} AND (flags & 1) = 0`
        for (let i = Number(n); i < 5000; i += 500) {
          yield* sql`WITH m AS (
              INSERT INTO messages (realm_id, sender_id, type, channel_id, topic, dm_key, dm_user_ids, content,
                rendered_content, date_sent, client, has_attachment, has_image, has_link)
              SELECT 1, ${iagoId}, 'stream', ${benchChannel}, 'filler', NULL, '[]'::jsonb, 'x', '<p>x</p>', 1700000000, 'API', false, false, false
              FROM generate_series(1, 500) RETURNING id)
            INSERT INTO user_messages (user_id, message_id, flags) SELECT ${iagoId}, id, 0 FROM m`
        }
      }))
      const t = performance.now()
      const flags = await call("POST", "/api/v1/messages/flags/narrow", auth, {
        anchor: "oldest",
        num_before: "0",
        num_after: "5000",
        narrow: JSON.stringify([{ operator: "is", operand: "unread" }]),
        op: "add",
        flag: "read"
      })
      const flagsMs = performance.now() - t
      log(`flags/narrow processed ${flags.processed_count}, updated ${flags.updated_count}`)
      await dispose()

      const sendP50 = percentile(sendTimes, 0.5)
      const rawP50 = percentile(rawTimes, 0.5)
      const metrics: Array<Metric> = [
        { name: "send p50 (ms)", value: sendP50, unit: "" },
        { name: "send p99 (ms)", value: percentile(sendTimes, 0.99), unit: "" },
        { name: "raw SQL insert p50 (ms)", value: rawP50, unit: "" },
        { name: "raw SQL insert p99 (ms)", value: percentile(rawTimes, 0.99), unit: "" },
        // Reported as raw/send so that, like every floor here, higher is better: 0.5 is "within 2x".
        { name: "send vs raw SQL p50 (raw/send; target: within 2x)", value: rawP50 / sendP50, unit: "", min: 0.5 },
        { name: "GET /messages narrowed p50 (ms)", value: percentile(readTimes, 0.5), unit: "" },
        { name: "flags/narrow 5,000 read (ms)", value: flagsMs, unit: "" }
      ]
      return metrics
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}
