/**
 * The channel subscriptions on SQL. Rows come back by channel id, then user
 * id.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { Subscription } from "../domain/Channel.ts"
import { fromRow } from "../domain/Ids.ts"
import type { ChannelId, RealmId, UserId } from "../domain/Ids.ts"
import { AccessCache } from "../ports/AccessCache.ts"
import { SubscriptionRepo } from "../ports/Repositories.ts"
import { bool, boolOrNull, int, str } from "./internal/Columns.ts"
import type { Row } from "./internal/Columns.ts"
import { makeTable } from "./internal/Table.ts"
import { inIds, jsonList } from "./SqlArrays.ts"

const columns = (sub: Subscription) => ({
  user_id: sub.user_id,
  channel_id: sub.channel_id,
  active: sub.active,
  color: sub.properties.color,
  pin_to_top: sub.properties.pin_to_top,
  is_muted: sub.properties.is_muted,
  desktop_notifications: sub.properties.desktop_notifications,
  email_notifications: sub.properties.email_notifications,
  push_notifications: sub.properties.push_notifications,
  audible_notifications: sub.properties.audible_notifications,
  wildcard_mentions_notify: sub.properties.wildcard_mentions_notify
})

const decodeSubscription = (row: Row): Subscription => ({
  user_id: fromRow.userId(int(row.user_id)),
  channel_id: fromRow.channelId(int(row.channel_id)),
  active: bool(row.active),
  properties: {
    color: str(row.color),
    pin_to_top: bool(row.pin_to_top),
    is_muted: bool(row.is_muted),
    desktop_notifications: boolOrNull(row.desktop_notifications),
    email_notifications: boolOrNull(row.email_notifications),
    push_notifications: boolOrNull(row.push_notifications),
    audible_notifications: boolOrNull(row.audible_notifications),
    wildcard_mentions_notify: boolOrNull(row.wildcard_mentions_notify)
  }
})

/** @category layers */
export const layer: Layer.Layer<SubscriptionRepo, never, SqlClient.SqlClient | AccessCache> = Layer.effect(
  SubscriptionRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const subscriptions = makeTable(sql, { repo: "SubscriptionRepo", table: "subscriptions", decode: decodeSubscription })
    const { changed } = yield* AccessCache
    // One statement for any number of rows: the rows as one JSON parameter.
    const upsertMany = Effect.fn("SubscriptionRepo.upsertMany")(function*(subs: ReadonlyArray<Subscription>) {
      if (subs.length === 0) return
      yield* sql`
        INSERT INTO subscriptions (user_id, channel_id, active, color, pin_to_top, is_muted, desktop_notifications,
          email_notifications, push_notifications, audible_notifications, wildcard_mentions_notify)
        SELECT r.user_id, r.channel_id, r.active, r.color, r.pin_to_top, r.is_muted, r.desktop_notifications,
          r.email_notifications, r.push_notifications, r.audible_notifications, r.wildcard_mentions_notify
        FROM jsonb_to_recordset(${jsonList(subs.map(columns))}::jsonb) AS r(
          user_id bigint, channel_id bigint, active boolean, color text, pin_to_top boolean, is_muted boolean,
          desktop_notifications boolean, email_notifications boolean, push_notifications boolean,
          audible_notifications boolean, wildcard_mentions_notify boolean)
        ON CONFLICT (user_id, channel_id) DO UPDATE SET
          active = EXCLUDED.active,
          color = EXCLUDED.color,
          pin_to_top = EXCLUDED.pin_to_top,
          is_muted = EXCLUDED.is_muted,
          desktop_notifications = EXCLUDED.desktop_notifications,
          email_notifications = EXCLUDED.email_notifications,
          push_notifications = EXCLUDED.push_notifications,
          audible_notifications = EXCLUDED.audible_notifications,
          wildcard_mentions_notify = EXCLUDED.wildcard_mentions_notify`
      // The rows name channels, not organizations.
      yield* changed(undefined)
    }, Effect.orDie)
    return SubscriptionRepo.of({
      upsert: (sub: Subscription) => upsertMany([sub]),
      upsertMany,
      listByUsers: Effect.fn("SubscriptionRepo.listByUsers")(function*(users: ReadonlyArray<UserId>) {
        if (users.length === 0) return []
        const rows = yield* sql<Row>`
          SELECT * FROM subscriptions WHERE ${inIds(sql, "user_id", users)} ORDER BY channel_id, user_id`
        return rows.map(decodeSubscription)
      }, Effect.orDie),
      find: subscriptions.one(
        "find",
        (user: UserId, channel: ChannelId) =>
          sql<Row>`SELECT * FROM subscriptions WHERE user_id = ${user} AND channel_id = ${channel}`
      ),
      listByUser: subscriptions.all("listByUser", (user: UserId) =>
        sql<Row>`
          SELECT * FROM subscriptions WHERE user_id = ${user} ORDER BY channel_id, user_id`),
      listByChannel: subscriptions.all("listByChannel", (channel: ChannelId) =>
        sql<Row>`
          SELECT * FROM subscriptions WHERE channel_id = ${channel} ORDER BY channel_id, user_id`),
      listByRealm: subscriptions.all("listByRealm", (realm: RealmId) =>
        sql<Row>`
          SELECT s.* FROM subscriptions s
          JOIN channels c ON c.id = s.channel_id
          WHERE c.realm_id = ${realm}
          ORDER BY s.channel_id, s.user_id`)
    })
  })
)
