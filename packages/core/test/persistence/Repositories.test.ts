/**
 * The repository contract on every backend: memory, PGlite and PostgreSQL
 * (a fresh database per block on the server named by TEST_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/test), plus the convenience
 * layers of Persistence.ts on a database that outlives one layer.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Migrator from "effect/sql/Migrator"
import type * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { groupId } from "../../src/domain/Ids.ts"
import type { Realm } from "../../src/domain/Realm.ts"
import * as Migrations from "../../src/sql/Migrations.ts"
import * as Persistence from "../../src/persistence/Persistence.ts"
import { RealmRepo } from "../../src/persistence/Repositories.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { repositoryContract } from "./RepositoryContract.ts"

repositoryContract("memory", () => Persistence.layerMemory)

repositoryContract("PGlite", () => Persistence.layerSql.pipe(Layer.provide(TestDatabase.pgliteLayer())))

repositoryContract("PostgreSQL", () => Persistence.layerSql.pipe(Layer.provide(TestDatabase.postgresLayer())))

const realm = (string_id: string): Omit<Realm, "id"> => ({
  string_id,
  name: string_id,
  description: "",
  url: `http://${string_id}.localhost`,
  fake_email_domain: `${string_id}.localhost`,
  deactivated: false,
  date_created: 1_700_000_000_000,
  settings: {
    email_address_visibility: 1,
    enable_spectator_access: false,
    invite_required: true,
    emails_restricted_to_domains: false,
    email_auth_enabled: true,
    allow_message_editing: true,
    enable_read_receipts: false,
    require_unique_names: false,
    waiting_period_threshold: 0,
    message_retention_days: null,
    topics_policy: "inherit",
    can_access_all_users_group: groupId(1),
    can_create_groups: groupId(1),
    can_manage_all_groups: groupId(1),
    can_create_public_channel_group: groupId(1),
    can_create_private_channel_group: groupId(1),
    can_create_web_public_channel_group: groupId(1),
    can_add_subscribers_group: groupId(1),
    can_invite_users_group: groupId(1),
    can_move_messages_between_channels_group: groupId(1),
    can_move_messages_between_topics_group: groupId(1),
    can_delete_any_message_group: groupId(1),
    can_delete_own_message_group: groupId(1),
    can_mention_many_users_group: { direct_members: [], direct_subgroups: [] }
  }
})

/** Opens `open()` twice: data written the first time is there the second, and no migration runs again. */
const reopen = <E>(open: () => Layer.Layer<Persistence.Persistence | SqlClient.SqlClient, E>) =>
  Effect.gen(function*() {
    const first = yield* Effect.gen(function*() {
      return yield* (yield* RealmRepo).insert(realm("persisted"))
    }).pipe(Effect.provide(open()))
    assert.strictEqual(first.id, 1)

    const [list, rerun] = yield* Effect.gen(function*() {
      return [yield* (yield* RealmRepo).list, yield* Migrator.make({})({ loader: Migrations.loader })] as const
    }).pipe(Effect.provide(open()))
    assert.deepStrictEqual(list, [first])
    assert.deepStrictEqual(rerun, [])
  })

describe("Persistence convenience layers", () => {
  it.effect("layerPglite(dataDir) migrates once and keeps data across reopenings", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "teamchat-pglite-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      yield* reopen(() => Persistence.layerPglite(dir))
    }), 120_000)

  layer(TestDatabase.postgresLayer(), { timeout: "60 seconds" })("layerPostgres", (it) => {
    it.effect("layerPostgres(url) migrates once and keeps data across reopenings", () =>
      Effect.gen(function*() {
        const database = yield* TestDatabase.TestDatabase
        yield* reopen(() => Persistence.layerPostgres(database.url, { maxConnections: 2 }))
      }))
  })
})
