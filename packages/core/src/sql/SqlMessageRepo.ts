/**
 * Reads of the messages and their per-user rows (`user_messages`, with the
 * flags) on SQL. The message store (`SqlMessageStore`) writes messages with
 * this file's columns, and the search (`SqlMessageSearch`) reads them with
 * its select list and decoder.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { fromRow } from "../domain/Ids.ts"
import type { ChannelId, MessageId, UserId } from "../domain/Ids.ts"
import type { Message, MessageType, Reaction, UserMessage } from "../domain/Message.ts"
import { MessageRepo } from "../ports/Repositories.ts"
import type { Insert } from "../ports/Repositories.ts"
import { bool, idOrNull, int, intOrNull, json, jsonText, str } from "./internal/Columns.ts"
import type { Row } from "./internal/Columns.ts"
import { makeTable } from "./internal/Table.ts"
import { inIds } from "./SqlArrays.ts"

/**
 * Every column but the generated `search_tsv`, which must never be written;
 * `SqlMessageStore` writes messages with it.
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
  last_edit_time: message.last_edit_time,
  last_moved_time: message.last_moved_time ?? null,
  edit_history: message.edit_history === undefined ? null : jsonText(message.edit_history)
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
  "last_edit_time",
  "last_moved_time",
  "edit_history"
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
export const decodeMessage = (row: Row): Message => {
  const message: Message = {
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
  }
  // Absent, not null, when never moved or edited (as the domain has it).
  const moved = intOrNull(row.last_moved_time)
  const history = row.edit_history === null || row.edit_history === undefined ? undefined : json<Message["edit_history"]>(row.edit_history)
  if (moved === null && history === undefined) return message
  return {
    ...message,
    ...(moved === null ? {} : { last_moved_time: moved }),
    ...(history === undefined ? {} : { edit_history: history })
  }
}

/** @internal */
export const decodeReaction = (row: Row): Reaction => ({
  message_id: fromRow.messageId(int(row.message_id)),
  user_id: fromRow.userId(int(row.user_id)),
  emoji_name: str(row.emoji_name),
  emoji_code: str(row.emoji_code),
  reaction_type: str(row.reaction_type) as Reaction["reaction_type"]
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
    return MessageRepo.of({
      findById: messages.one("findById", (id: MessageId) => sql<Row>`SELECT ${columns} FROM messages m WHERE m.id = ${id}`),
      // NO KEY UPDATE: a DELETE of the message waits for it, foreign-key
      // checks of rows naming the message (a historical row) do not.
      findByIdForUpdate: messages.one(
        "findByIdForUpdate",
        (id: MessageId) => sql<Row>`SELECT ${columns} FROM messages m WHERE m.id = ${id} FOR NO KEY UPDATE`
      ),
      reactions: Effect.fn("MessageRepo.reactions")(function*(ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return []
        const rows = yield* sql<Row>`
          SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions
          WHERE ${inIds(sql, "message_id", ids)}
          ORDER BY message_id, id`
        return rows.map(decodeReaction)
      }, Effect.orDie),
      findByIds: Effect.fn("MessageRepo.findByIds")(function*(ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return []
        const rows = yield* sql<Row>`SELECT ${columns} FROM messages m WHERE ${inIds(sql, "m.id", ids)} ORDER BY m.id`
        return rows.map(decodeMessage)
      }, Effect.orDie),
      findByIdsLocked: Effect.fn("MessageRepo.findByIdsLocked")(
        function*(ids: ReadonlyArray<MessageId>, mode: "update" | "share") {
          if (ids.length === 0) return []
          const lock = sql.literal(mode === "update" ? "FOR UPDATE" : "FOR KEY SHARE")
          const rows = yield* sql<Row>`
            SELECT ${columns} FROM messages m WHERE ${inIds(sql, "m.id", ids)} ORDER BY m.id ${lock}`
          return rows.map(decodeMessage)
        },
        Effect.orDie
      ),
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
      usersWithRows: Effect.fn("MessageRepo.usersWithRows")(function*(ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return []
        const rows = yield* sql<Row>`
          SELECT DISTINCT user_id FROM user_messages WHERE ${inIds(sql, "message_id", ids)} ORDER BY user_id`
        return rows.map((row) => fromRow.userId(int(row.user_id)))
      }, Effect.orDie),
      listByFlags: Effect.fn("MessageRepo.listByFlags")(function*(user: UserId, mask: number, value: number) {
        const rows = yield* sql<Row>`
          SELECT ${columns}, um.flags AS um_flags
          FROM user_messages um JOIN messages m ON m.id = um.message_id
          WHERE um.user_id = ${user} AND (um.flags & ${mask}::integer) = ${value & mask}::integer
          ORDER BY m.id`
        return rows.map((row) => ({ message: decodeMessage(row), flags: int(row.um_flags) }))
      }, Effect.orDie),
      userHasTopic: Effect.fn("MessageRepo.userHasTopic")(
        function*(user: UserId, channel: ChannelId, topic: string) {
          const rows = yield* sql`
            SELECT 1 FROM user_messages um JOIN messages m ON m.id = um.message_id
            WHERE um.user_id = ${user} AND m.channel_id = ${channel} AND lower(m.topic) = lower(${topic})
            LIMIT 1`
          return rows.length > 0
        },
        Effect.orDie
      ),
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
      channelTopics: Effect.fn("MessageRepo.channelTopics")(function*(channel: ChannelId, receivedBy: UserId | null) {
        const rows = receivedBy === null
          ? yield* sql<{ topic: unknown; max_id: unknown }>`
            SELECT topic, max(id) AS max_id FROM messages WHERE channel_id = ${channel} GROUP BY topic`
          : yield* sql<{ topic: unknown; max_id: unknown }>`
            SELECT m.topic, max(m.id) AS max_id
            FROM messages m JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${receivedBy}
            WHERE m.channel_id = ${channel} GROUP BY m.topic`
        return rows.map((r) => ({ topic: str(r.topic), max_id: fromRow.messageId(int(r.max_id)) }))
      }, Effect.orDie),
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
