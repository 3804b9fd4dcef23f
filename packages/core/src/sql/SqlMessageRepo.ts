/**
 * The messages and their per-user rows (`user_messages`, with the flags) on
 * SQL. The event log (`SqlEventStore.appendMessage`) writes messages with
 * this file's columns, and the search (`SqlMessageSearch`) reads them with
 * its select list and decoder.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { ChannelId, MessageId, UserId } from "../domain/Ids.ts"
import type { Message, MessageType, UserMessage } from "../domain/Message.ts"
import { MessageRepo } from "../ports/Repositories.ts"
import type { Insert } from "../ports/Repositories.ts"
import { bool, idOrNull, int, intOrNull, json, jsonText, str } from "./internal/Columns.ts"
import type { Row } from "./internal/Columns.ts"
import { makeTable } from "./internal/Table.ts"
import { inIds } from "./SqlArrays.ts"

/**
 * Every column but the generated `search_tsv`, which must never be written.
 * Also the event log's `appendMessage` (SqlEventStore) writes messages with it.
 *
 * @internal
 */
export const messageColumns = (message: Insert<Message>) => ({
  realm_id: message.realm_id,
  sender_id: message.sender_id,
  type: message.type,
  channel_id: message.channel_id,
  topic: message.topic,
  dm_key: message.type === "private" ? message.dm_user_ids.join(",") : null,
  dm_user_ids: jsonText(message.dm_user_ids),
  content: message.content,
  rendered_content: message.rendered_content,
  date_sent: message.date_sent,
  client: message.client,
  has_attachment: message.has_attachment,
  has_image: message.has_image,
  has_link: message.has_link,
  last_edit_time: message.last_edit_time
})

/** The names `messageColumns` writes. */
export const messageColumnNames: ReadonlyArray<keyof ReturnType<typeof messageColumns>> = [
  "realm_id",
  "sender_id",
  "type",
  "channel_id",
  "topic",
  "dm_key",
  "dm_user_ids",
  "content",
  "rendered_content",
  "date_sent",
  "client",
  "has_attachment",
  "has_image",
  "has_link",
  "last_edit_time"
]

/**
 * The columns a Message decodes from, qualified by `alias`; never `*`, so the
 * tsvector stays in the database.
 *
 * @internal
 */
export const messageSelectList = (alias: string): string =>
  // The id and every written column but `dm_key`, which only indexes direct messages.
  ["id", ...messageColumnNames.filter((column) => column !== "dm_key")].map((column) => `${alias}.${column}`).join(", ")

/** @internal */
export const decodeMessage = (row: Row): Message => ({
  id: fromRow.messageId(int(row.id)),
  realm_id: fromRow.realmId(int(row.realm_id)),
  sender_id: fromRow.userId(int(row.sender_id)),
  type: str(row.type) as MessageType,
  channel_id: idOrNull(row.channel_id, fromRow.channelId),
  topic: str(row.topic),
  dm_user_ids: json<Array<unknown>>(row.dm_user_ids).map((id) => fromRow.userId(int(id))),
  content: str(row.content),
  rendered_content: str(row.rendered_content),
  date_sent: int(row.date_sent),
  client: str(row.client),
  has_attachment: bool(row.has_attachment),
  has_image: bool(row.has_image),
  has_link: bool(row.has_link),
  last_edit_time: intOrNull(row.last_edit_time)
})

const decodeUserMessage = (row: Row): UserMessage => ({
  user_id: fromRow.userId(int(row.user_id)),
  message_id: fromRow.messageId(int(row.message_id)),
  flags: int(row.flags)
})

/** @category layers */
export const layer: Layer.Layer<MessageRepo, never, SqlClient.SqlClient> = Layer.effect(
  MessageRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const messages = makeTable(sql, { repo: "MessageRepo", table: "messages", decode: decodeMessage })
    const columns = sql.literal(messageSelectList("m"))
    const messageColumnList = sql.literal(["id", ...messageColumnNames].join(", "))
    // A message's rows as one JSON parameter: a hundred recipients would
    // otherwise be three hundred bind parameters to build and parse.
    const insertRows = (rows: ReadonlyArray<readonly [number, number, number]>, onConflict = sql``) =>
      rows.length === 0 ? Effect.void : sql`
        INSERT INTO user_messages (user_id, message_id, flags)
        SELECT (r->>0)::bigint, (r->>1)::bigint, (r->>2)::int FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) AS r
        ${onConflict}`

    const insertOne = Effect.fn("MessageRepo.insert")(
      function*(
        row: Insert<Message>,
        recipients: ReadonlyArray<{ readonly user_id: UserId; readonly flags: number }>
      ) {
        // The message and its rows in one statement (a send's hottest write).
        const [inserted] = yield* sql<{ id: unknown }>`
          WITH m AS (INSERT INTO messages ${sql.insert(messageColumns(row))} RETURNING id),
          r AS (
            INSERT INTO user_messages (user_id, message_id, flags)
            SELECT (e->>0)::bigint, m.id, (e->>1)::int
            FROM m, jsonb_array_elements(${JSON.stringify(recipients.map((r) => [r.user_id, r.flags]))}::jsonb) AS e
          )
          SELECT id FROM m`
        return { ...row, id: fromRow.messageId(int(inserted!.id)) } satisfies Message
      },
      Effect.orDie
    )

    return MessageRepo.of({
      insert: insertOne,
      insertMany: Effect.fn("MessageRepo.insertMany")(
        function*(
          items: ReadonlyArray<{
            readonly message: Insert<Message>
            readonly recipients: ReadonlyArray<{ readonly user_id: UserId; readonly flags: number }>
          }>
        ) {
          if (items.length === 0) return []
          if (items.length === 1) return [yield* insertOne(items[0]!.message, items[0]!.recipients)]
          // Ids first, so each row's id is known whatever order RETURNING would give.
          const ids = (yield* sql<{ id: unknown }>`
            SELECT nextval(pg_get_serial_sequence('messages', 'id')) AS id FROM generate_series(1, ${items.length})`)
            .map((r) => fromRow.messageId(int(r.id)))
            .sort((a, b) => a - b)
          const inserted: Array<Message> = items.map((item, i) => ({ ...item.message, id: ids[i]! }))
          // The rows as one JSON parameter, however many (a batch of thousands
          // would pass the protocol's 32767 bind parameters).
          const messageRows = inserted.map((m) => ({ id: m.id, ...messageColumns(m), dm_user_ids: m.dm_user_ids }))
          yield* sql`
            INSERT INTO messages (${messageColumnList})
            SELECT ${messageColumnList} FROM jsonb_populate_recordset(NULL::messages, ${JSON.stringify(messageRows)}::jsonb)`
          yield* insertRows(items.flatMap((item, i) => item.recipients.map((r) => [r.user_id, ids[i]!, r.flags] as const)))
          return inserted
        },
        Effect.orDie
      ),
      findById: messages.one("findById", (id: MessageId) => sql<Row>`SELECT ${columns} FROM messages m WHERE m.id = ${id}`),
      findByIds: Effect.fn("MessageRepo.findByIds")(function*(ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return []
        const rows = yield* sql<Row>`SELECT ${columns} FROM messages m WHERE ${inIds(sql, "m.id", ids)} ORDER BY m.id`
        return rows.map(decodeMessage)
      }, Effect.orDie),
      userMessages: Effect.fn("MessageRepo.userMessages")(function*(user: UserId, ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return []
        const rows = yield* sql<Row>`
          SELECT user_id, message_id, flags FROM user_messages
          WHERE user_id = ${user} AND ${inIds(sql, "message_id", ids)}
          ORDER BY message_id`
        return rows.map(decodeUserMessage)
      }, Effect.orDie),
      recipients: Effect.fn("MessageRepo.recipients")(function*(message: MessageId) {
        const rows = yield* sql<Row>`
          SELECT user_id, message_id, flags FROM user_messages WHERE message_id = ${message} ORDER BY user_id`
        return rows.map(decodeUserMessage)
      }, Effect.orDie),
      insertUserMessages: Effect.fn("MessageRepo.insertUserMessages")(function*(rows: ReadonlyArray<UserMessage>) {
        if (!Arr.isReadonlyArrayNonEmpty(rows)) return
        yield* insertRows(rows.map((r) => [r.user_id, r.message_id, r.flags] as const), sql`ON CONFLICT (user_id, message_id) DO NOTHING`)
      }, Effect.orDie),
      updateFlags: Effect.fn("MessageRepo.updateFlags")(
        function*(user: UserId, ids: ReadonlyArray<MessageId>, mask: number, add: boolean) {
          if (ids.length === 0) return []
          // Only rows whose bits actually change are touched and returned.
          const rows = add
            ? yield* sql<{ message_id: unknown }>`
                UPDATE user_messages SET flags = flags | ${mask}::integer
                WHERE user_id = ${user} AND ${inIds(sql, "message_id", ids)}
                  AND (flags & ${mask}::integer) <> ${mask}::integer
                RETURNING message_id`
            : yield* sql<{ message_id: unknown }>`
                UPDATE user_messages SET flags = flags & ~(${mask}::integer)
                WHERE user_id = ${user} AND ${inIds(sql, "message_id", ids)}
                  AND (flags & ${mask}::integer) <> 0
                RETURNING message_id`
          return rows.map((r) => fromRow.messageId(int(r.message_id))).sort((a, b) => a - b)
        },
        Effect.orDie
      ),
      listByFlags: Effect.fn("MessageRepo.listByFlags")(function*(user: UserId, mask: number, value: number) {
        const rows = yield* sql<Row>`
          SELECT ${columns}, um.flags AS um_flags
          FROM user_messages um JOIN messages m ON m.id = um.message_id
          WHERE um.user_id = ${user} AND (um.flags & ${mask}::integer) = ${value & mask}::integer
          ORDER BY m.id`
        return rows.map((row) => ({ message: decodeMessage(row), flags: int(row.um_flags) }))
      }, Effect.orDie),
      delete: Effect.fn("MessageRepo.delete")(function*(ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return
        yield* sql`DELETE FROM user_messages WHERE ${inIds(sql, "message_id", ids)}`
        yield* sql`DELETE FROM messages WHERE ${inIds(sql, "id", ids)}`
      }, Effect.orDie),
      topicMessageIds: Effect.fn("MessageRepo.topicMessageIds")(
        function*(channel: ChannelId, topic: string, limit: number) {
          const rows = yield* sql<{ id: unknown }>`
            SELECT id FROM messages
            WHERE channel_id = ${channel} AND lower(topic) = lower(${topic})
            ORDER BY id DESC LIMIT ${Math.max(0, limit)}`
          return rows.map((r) => fromRow.messageId(int(r.id)))
        },
        Effect.orDie
      ),
      oldestInChannel: Effect.fn("MessageRepo.oldestInChannel")(function*(channel: ChannelId) {
        const rows = yield* sql<{ id: unknown }>`
          SELECT id FROM messages WHERE channel_id = ${channel} ORDER BY id LIMIT 1`
        return rows.length === 0 ? null : fromRow.messageId(int(rows[0]!.id))
      }, Effect.orDie),
      maxUserMessageId: Effect.fn("MessageRepo.maxUserMessageId")(function*(user: UserId) {
        const rows = yield* sql<{ id: unknown }>`
          SELECT max(message_id) AS id FROM user_messages WHERE user_id = ${user}`
        return intOrNull(rows[0]?.id) ?? -1
      }, Effect.orDie),
      recentDmConversations: Effect.fn("MessageRepo.recentDmConversations")(function*(user: UserId, limit: number) {
        const rows = yield* sql<{ dm_key: unknown; max_id: unknown }>`
          SELECT m.dm_key, max(m.id) AS max_id
          FROM user_messages um JOIN messages m ON m.id = um.message_id
          WHERE um.user_id = ${user} AND m.dm_key IS NOT NULL
          GROUP BY m.dm_key
          ORDER BY max_id DESC
          LIMIT ${Math.max(0, limit)}`
        return rows.map((r) => ({
          dm_user_ids: str(r.dm_key).split(",").map((id) => fromRow.userId(int(id))),
          max_message_id: fromRow.messageId(int(r.max_id))
        }))
      }, Effect.orDie)
    })
  })
)
