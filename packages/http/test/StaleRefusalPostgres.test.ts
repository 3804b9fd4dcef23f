/**
 * A refusal made from a kept access read is checked against the database
 * before it stands (`Authentication.refusalIsStale`): with several workers a
 * change made through another worker reaches this one by a notice, and a
 * request that arrives before it (a client that was just made an
 * administrator, or created a channel, through another worker) is answered
 * afresh, not refused from the old read. The other worker's change is
 * played here by a write whose notice never comes: triggers off, the
 * version moved by hand.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as DemoOrganization from "@teamchat/core/demo/DemoOrganization"
import * as CheckedEvents from "@teamchat/core/testing/CheckedEvents"
import * as TestDatabase from "@teamchat/core/testing/TestDatabase"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { accounts, layerServer, realmUrl, Server } from "./support/Harness.ts"
import type { Core } from "./support/Harness.ts"

const core = (clock: { readonly clock: Clock.Clock }) =>
  Layer.effectDiscard(DemoOrganization.seed(realmUrl)).pipe(
    Layer.provideMerge(CheckedEvents.layerSql().pipe(Layer.provideMerge(TestDatabase.postgresLayer()))),
    Layer.provideMerge(Layer.succeed(Clock.Clock, clock.clock))
  ) as Layer.Layer<Core, unknown>

describe("a refusal from a kept read, on PostgreSQL", () => {
  layer(layerServer(core), { timeout: "120 seconds" })((it) => {
    // Another worker's change whose notice is still on its way: a row copied with the triggers off,
    // and the organization's access version moved by hand.
    const copiedElsewhere = (table: "users" | "channels", fromId: number, changes: Record<string, string>) =>
      Effect.gen(function*() {
        const server = yield* Server
        return yield* server.core(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`SET LOCAL session_replication_role = replica`
            const [row] = yield* sql<{ id: number; realm_id: number }>`
              INSERT INTO ${sql(table)}
              SELECT (jsonb_populate_record(t, ${JSON.stringify(changes)}::jsonb
                || jsonb_build_object('id', (SELECT max(id) + 1000 FROM ${sql(table)})))).*
              FROM ${sql(table)} t WHERE id = ${fromId}
              RETURNING id, realm_id`
            yield* sql`UPDATE access_versions SET version = nextval('access_version_seq') WHERE realm_id = ${row!.realm_id}`
            return Number(row!.id)
          }))
        }) as unknown as Effect.Effect<number, unknown, Core>)
      })

    it.effect("a user added elsewhere is found; a channel created elsewhere can be sent to", () =>
      Effect.gen(function*() {
        const server = yield* Server
        const hamlet = yield* server.login(accounts.member)
        const othello = yield* server.login("othello@zulip.com")
        const getUser = (id: number) => server.fetch("GET", `/api/v1/users/${id}`, { as: hamlet })
        // Hamlet's requests are answered from a kept read.
        yield* getUser(othello.userId)
        yield* getUser(othello.userId)

        const added = yield* copiedElsewhere("users", othello.userId, {
          email: "cassio@zulip.com",
          delivery_email: "cassio@zulip.com",
          full_name: "Cassio",
          api_key: "cassio0123456789abcdefghijklmnop"
        })
        const found = yield* getUser(added)
        assert.deepStrictEqual([found.status, found.json.user?.full_name], [200, "Cassio"], JSON.stringify(found.json))

        const streams = yield* server.fetch("GET", "/api/v1/streams", { as: hamlet })
        const denmark = (streams.json.streams as Array<{ stream_id: number; name: string }>).find((c) => c.name === "Denmark")!
        const created = yield* copiedElsewhere("channels", denmark.stream_id, { name: "Created elsewhere" })
        const sent = yield* server.fetch("POST", "/api/v1/messages", {
          as: hamlet,
          form: { type: "stream", to: String(created), topic: "hello", content: "first" }
        })
        assert.strictEqual(sent.status, 200, JSON.stringify(sent.json))
      }))
  })
})
