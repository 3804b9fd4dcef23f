/**
 * The channels on SQL.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { Channel, ChannelPermissionSettings } from "../domain/Channel.ts"
import { fromRow } from "../domain/Ids.ts"
import type { RealmId } from "../domain/Ids.ts"
import type { TopicsPolicy } from "../domain/Realm.ts"
import { AccessCache } from "../ports/AccessCache.ts"
import { ChannelRepo } from "../ports/Repositories.ts"
import type { Insert } from "../ports/Repositories.ts"
import { bool, idOrNull, int, intOrNull, json, jsonText, str } from "./internal/Columns.ts"
import type { Row } from "./internal/Columns.ts"
import { makeTable } from "./internal/Table.ts"
import { jsonList } from "./SqlArrays.ts"

const columns = (channel: Insert<Channel>) => ({
  realm_id: channel.realm_id,
  name: channel.name,
  description: channel.description,
  rendered_description: channel.rendered_description,
  date_created: channel.date_created,
  creator_id: channel.creator_id,
  invite_only: channel.invite_only,
  is_web_public: channel.is_web_public,
  is_archived: channel.is_archived,
  history_public_to_subscribers: channel.history_public_to_subscribers,
  message_retention_days: channel.message_retention_days,
  topics_policy: channel.topics_policy,
  first_message_id: channel.first_message_id,
  folder_id: channel.folder_id,
  is_recently_active: channel.is_recently_active,
  is_default: channel.is_default,
  settings: jsonText(channel.settings)
})

const decodeChannel = (row: Row): Channel => ({
  id: fromRow.channelId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  name: str(row.name),
  description: str(row.description),
  rendered_description: str(row.rendered_description),
  date_created: int(row.date_created),
  creator_id: idOrNull(row.creator_id, fromRow.userId),
  invite_only: bool(row.invite_only),
  is_web_public: bool(row.is_web_public),
  is_archived: bool(row.is_archived),
  history_public_to_subscribers: bool(row.history_public_to_subscribers),
  message_retention_days: intOrNull(row.message_retention_days),
  topics_policy: str(row.topics_policy) as TopicsPolicy,
  first_message_id: idOrNull(row.first_message_id, fromRow.messageId),
  folder_id: idOrNull(row.folder_id, fromRow.folderId),
  is_recently_active: bool(row.is_recently_active),
  is_default: bool(row.is_default),
  settings: json<ChannelPermissionSettings>(row.settings)
})

/** The first key of `ChannelRepo.lockNames`'s advisory locks (the second is the organization). */
const ChannelNamesLock = 0x6368616e // "chan"

/** @category layers */
export const layer: Layer.Layer<ChannelRepo, never, SqlClient.SqlClient | AccessCache> = Layer.effect(
  ChannelRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const channels = makeTable(sql, { repo: "ChannelRepo", table: "channels", decode: decodeChannel })
    const { changed } = yield* AccessCache
    const insert = channels.insert(columns, fromRow.channelId)
    const update = channels.update(columns)
    return ChannelRepo.of({
      insert: (row) => Effect.tap(insert(row), (channel) => changed(channel.realm_id)),
      // One statement for any number: the rows as one JSON parameter, in
      // order; their ids are matched back by name (unique in an organization).
      insertMany: Effect.fn("ChannelRepo.insertMany")(function*(rows: ReadonlyArray<Insert<Channel>>) {
        if (rows.length === 0) return []
        const inserted = yield* sql<{ id: unknown; realm_id: unknown; name: unknown }>`
          INSERT INTO channels (realm_id, name, description, rendered_description, date_created, creator_id,
            invite_only, is_web_public, is_archived, history_public_to_subscribers, message_retention_days,
            topics_policy, first_message_id, folder_id, is_recently_active, is_default, settings)
          SELECT r.realm_id, r.name, r.description, r.rendered_description, r.date_created, r.creator_id,
            r.invite_only, r.is_web_public, r.is_archived, r.history_public_to_subscribers, r.message_retention_days,
            r.topics_policy, r.first_message_id, r.folder_id, r.is_recently_active, r.is_default, r.settings::jsonb
          FROM ROWS FROM (jsonb_to_recordset(${jsonList(rows.map(columns))}::jsonb) AS (
            realm_id bigint, name text, description text, rendered_description text, date_created bigint,
            creator_id bigint, invite_only boolean, is_web_public boolean, is_archived boolean,
            history_public_to_subscribers boolean, message_retention_days integer, topics_policy text,
            first_message_id bigint, folder_id bigint, is_recently_active boolean, is_default boolean,
            settings text)) WITH ORDINALITY AS r(
            realm_id, name, description, rendered_description, date_created, creator_id, invite_only, is_web_public,
            is_archived, history_public_to_subscribers, message_retention_days, topics_policy, first_message_id,
            folder_id, is_recently_active, is_default, settings, n)
          ORDER BY r.n
          RETURNING id, realm_id, name`
        yield* changed(rows.every((row) => row.realm_id === rows[0]!.realm_id) ? rows[0]!.realm_id : undefined)
        const ids = new Map(inserted.map((r) => [`${int(r.realm_id)}:${str(r.name).toLowerCase()}`, int(r.id)]))
        return rows.map((row): Channel => ({
          ...row,
          id: fromRow.channelId(ids.get(`${row.realm_id}:${row.name.toLowerCase()}`)!)
        }))
      }, Effect.orDie),
      update: (channel) => Effect.andThen(update(channel), changed(channel.realm_id)),
      findById: channels.findById,
      findByName: channels.one("findByName", (realm: RealmId, name: string) =>
        sql<Row>`
          SELECT * FROM channels
          WHERE realm_id = ${realm} AND lower(name) = lower(${name})
          ORDER BY id LIMIT 1`),
      listByRealm: channels.listByRealm,
      lockNames: channels.realmLock("lockNames", ChannelNamesLock)
    })
  })
)
