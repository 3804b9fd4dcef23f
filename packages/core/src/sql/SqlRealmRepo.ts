/**
 * The organizations (`realms`) on SQL.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { Realm, RealmSettings } from "../domain/Realm.ts"
import { AccessCache } from "../ports/AccessCache.ts"
import { RealmRepo } from "../ports/Repositories.ts"
import type { Insert } from "../ports/Repositories.ts"
import { bool, int, json, jsonText, str } from "./internal/Columns.ts"
import type { Row } from "./internal/Columns.ts"
import { makeTable } from "./internal/Table.ts"

const columns = (realm: Insert<Realm>) => ({
  string_id: realm.string_id,
  name: realm.name,
  description: realm.description,
  url: realm.url,
  fake_email_domain: realm.fake_email_domain,
  deactivated: realm.deactivated,
  demo: realm.demo,
  date_created: realm.date_created,
  settings: jsonText(realm.settings)
})

/** A `realms` row as a Realm (also the users' `findByApiKeyWithRealm`). @internal */
export const decodeRealm = (row: Row): Realm => ({
  id: fromRow.realmId(int(row.id)),
  string_id: str(row.string_id),
  name: str(row.name),
  description: str(row.description),
  url: str(row.url),
  fake_email_domain: str(row.fake_email_domain),
  deactivated: bool(row.deactivated),
  demo: bool(row.demo),
  date_created: int(row.date_created),
  settings: json<RealmSettings>(row.settings)
})

/** @category layers */
export const layer: Layer.Layer<RealmRepo, never, SqlClient.SqlClient | AccessCache> = Layer.effect(
  RealmRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const realms = makeTable(sql, { repo: "RealmRepo", table: "realms", decode: decodeRealm })
    const { changed } = yield* AccessCache
    const insert = realms.insert(columns, fromRow.realmId)
    const update = realms.update(columns)
    return RealmRepo.of({
      insert: (row) => Effect.tap(insert(row), (realm) => changed(realm.id)),
      update: (realm) => Effect.andThen(update(realm), changed(realm.id)),
      findById: realms.findById,
      findByStringId: realms.one(
        "findByStringId",
        (stringId: string) => sql<Row>`SELECT * FROM realms WHERE string_id = ${stringId} ORDER BY id LIMIT 1`
      ),
      list: realms.all("list", () => sql<Row>`SELECT * FROM realms ORDER BY id`)()
    })
  })
)
