/**
 * Every write to `messages`, `user_messages` and `reactions` on SQL. A send is one
 * statement with its events (the log's part comes from `SqlEventLog`); the
 * other writes are set-based, a fixed number of statements whatever the
 * number of messages or rows.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { NewLoggedEvent } from "../domain/Event.ts"
import { fromRow } from "../domain/Ids.ts"
import type { Submessage } from "../domain/Widget.ts"
import type { MessageId, RealmId, UserId } from "../domain/Ids.ts"
import { FlagBits } from "../domain/Message.ts"
import type { Message, Reaction, UserMessage } from "../domain/Message.ts"
import { StaleAccess } from "../ports/AccessCache.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import type { MessageEdit, MessageMove, NewMessage, ReactionKey, ReadScope, Recipient } from "../ports/MessageStore.ts"
import type { Insert } from "../ports/Repositories.ts"
import { int, jsonText } from "./internal/Columns.ts"
import type { Row } from "./internal/Columns.ts"
import { inIds } from "./SqlArrays.ts"
import { SqlEventLog } from "./SqlEventStore.ts"
import { decodeMessage, decodeReaction, messageColumnNames, messageColumns, messageSelectList } from "./SqlMessageRepo.ts"

/** @category layers */
export const layer: Layer.Layer<MessageStore, never, SqlClient.SqlClient | SqlEventLog> = Layer.effect(
  MessageStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const log = yield* SqlEventLog
    const selected = sql.literal(messageSelectList("m"))
    const messageColumnList = sql.literal(["id", ...messageColumnNames].join(", "))
    // Rows as one JSON parameter: a hundred recipients would otherwise be
    // three hundred bind parameters to build and parse.
    const insertRows = (rows: ReadonlyArray<readonly [number, number, number]>, onConflict = sql``) =>
      rows.length === 0 ? Effect.void : sql`
        INSERT INTO user_messages (user_id, message_id, flags)
        SELECT (r->>0)::bigint, (r->>1)::bigint, (r->>2)::int FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) AS r
        ${onConflict}`

    // The rows' ids and flags as two array literals (integers only): on
    // PGlite cheaper to read than the pairs of a JSON array (a hundred rows:
    // about 0.2 ms of the send).
    const intArray = (values: ReadonlyArray<number>) => `{${values.map((n) => Math.trunc(n)).join(",")}}`
    /**
     * The message, its rows and its events in one statement: alone it is its
     * own transaction, so a send needs no BEGIN and COMMIT around it (three
     * round trips fewer on PostgreSQL, two statements fewer on PGlite).
     */
    const insertMessage = (
      realmId: RealmId,
      now: number,
      row: Insert<Message>,
      recipients: ReadonlyArray<Recipient>,
      events: ReadonlyArray<NewLoggedEvent>,
      accessVersion: number | undefined
    ) => {
      // Every part of the write reads `ok`'s one row, or none when the
      // organization's access moved since `accessVersion`: then the
      // statement writes, locks and notifies nothing (one snapshot for the
      // check and the write).
      const ok = accessVersion === undefined ? "" : " FROM ok"
      const logged = log.messageEvents(realmId, now, events, accessVersion !== undefined)
      // INSERT … SELECT, so that `ok` can gate it (the columns' types still
      // type the parameters, as for VALUES).
      const columns = messageColumns(row)
      const statement = sql<{ id: unknown }>`
        WITH ${
        accessVersion === undefined
          ? sql.literal("")
          : sql`ok AS (SELECT 1 FROM access_versions WHERE realm_id = ${realmId} AND version = ${accessVersion}),`
      }
        m AS (
          INSERT INTO messages (${sql.literal(messageColumnNames.join(", "))})
          SELECT ${sql.join(", ", false)(messageColumnNames.map((name) => sql`${columns[name]}`))}${sql.literal(ok)}
          RETURNING id
        ),
        r AS (
          INSERT INTO user_messages (user_id, message_id, flags)
          SELECT r.u, m.id, r.f FROM m, unnest(${intArray(recipients.map((r) => r.user_id))}::bigint[],
            ${intArray(recipients.map((r) => r.flags))}::int[]) AS r(u, f)
        )${logged.ctes}
        SELECT id FROM m`
      return { statement, afterCommit: logged.afterCommit }
    }

    const send = (
      realmId: RealmId,
      row: Insert<Message>,
      recipients: ReadonlyArray<Recipient>,
      events: ReadonlyArray<NewLoggedEvent>,
      options?: { readonly accessVersion?: number }
    ) =>
      Effect.gen(function*() {
        const write = insertMessage(realmId, yield* Clock.currentTimeMillis, row, recipients, events, options?.accessVersion)
        const [inserted] = yield* Effect.orDie(write.statement)
        if (inserted === undefined) return yield* new StaleAccess()
        yield* write.afterCommit
        return fromRow.messageId(Number(inserted.id))
      })

    const insertOne = Effect.fn("MessageStore.insert")(
      function*(row: Insert<Message>, recipients: ReadonlyArray<Recipient>) {
        // The message and its rows in one statement.
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

    const decodeSubmessage = (row: Row): Submessage => ({
      id: fromRow.submessageId(int(row.id)),
      message_id: fromRow.messageId(int(row.message_id)),
      sender_id: fromRow.userId(int(row.sender_id)),
      msg_type: String(row.msg_type),
      content: String(row.content)
    })

    const ascendingIds = (rows: ReadonlyArray<{ readonly id: unknown }>) =>
      rows.map((r) => fromRow.messageId(int(r.id))).sort((a, b) => a - b)

    return MessageStore.of({
      send,
      insert: insertOne,
      insertMany: Effect.fn("MessageStore.insertMany")(function*(items: ReadonlyArray<NewMessage>) {
        if (items.length === 0) return []
        if (items.length === 1) return [yield* insertOne(items[0]!.message, items[0]!.recipients)]
        // Ids first, so each row's id is known whatever order RETURNING would give.
        const ids = ascendingIds(
          yield* sql<{ id: unknown }>`
            SELECT nextval(pg_get_serial_sequence('messages', 'id')) AS id FROM generate_series(1, ${items.length})`
        )
        const inserted: Array<Message> = items.map((item, i) => ({ ...item.message, id: ids[i]! }))
        // The rows as one JSON parameter, however many (a batch of thousands
        // would pass the protocol's 32767 bind parameters).
        const messageRows = inserted.map((m) => ({
          id: m.id,
          ...messageColumns(m),
          dm_user_ids: m.dm_user_ids,
          edit_history: m.edit_history ?? null
        }))
        yield* sql`
          INSERT INTO messages (${messageColumnList})
          SELECT ${messageColumnList} FROM jsonb_populate_recordset(NULL::messages, ${JSON.stringify(messageRows)}::jsonb)`
        yield* insertRows(items.flatMap((item, i) => item.recipients.map((r) => [r.user_id, ids[i]!, r.flags] as const)))
        return inserted
      }, Effect.orDie),
      insertUserMessages: Effect.fn("MessageStore.insertUserMessages")(function*(rows: ReadonlyArray<UserMessage>) {
        if (!Arr.isReadonlyArrayNonEmpty(rows)) return
        yield* insertRows(rows.map((r) => [r.user_id, r.message_id, r.flags] as const), sql`ON CONFLICT (user_id, message_id) DO NOTHING`)
      }, Effect.orDie),
      updateFlags: Effect.fn("MessageStore.updateFlags")(
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
      // One UPDATE over the unread index, joined to the messages only for a
      // channel or topic: the whole backlog in one statement.
      markRead: Effect.fn("MessageStore.markRead")(function*(user: UserId, within?: ReadScope) {
        const read = FlagBits.read
        const rows = within === undefined
          ? yield* sql<{ message_id: unknown }>`
              UPDATE user_messages SET flags = flags | ${read}::integer
              WHERE user_id = ${user} AND (flags & ${read}::integer) = 0
              RETURNING message_id`
          : yield* sql<{ message_id: unknown }>`
              UPDATE user_messages um SET flags = um.flags | ${read}::integer
              FROM messages m
              WHERE um.user_id = ${user} AND (um.flags & ${read}::integer) = 0
                AND m.id = um.message_id AND m.channel_id = ${within.channel_id}
                ${within.topic === undefined ? sql`` : sql`AND lower(m.topic) = lower(${within.topic})`}
              RETURNING um.message_id`
        return rows.map((r) => fromRow.messageId(int(r.message_id))).sort((a, b) => a - b)
      }, Effect.orDie),
      // The search vector is a generated column: it follows the new topic and content.
      edit: Effect.fn("MessageStore.edit")(function*(id: MessageId, edit: MessageEdit) {
        const changes = Object.fromEntries(
          Object.entries(edit)
            .filter(([, value]) => value !== undefined)
            .map(([key, value]) => [key, key === "edit_history" ? jsonText(value) : value])
        )
        const rows = yield* sql<Row>`
          UPDATE messages m SET ${sql.update(changes)} WHERE m.id = ${id} RETURNING ${selected}`
        return rows.length === 0 ? undefined : decodeMessage(rows[0]!)
      }, Effect.orDie),
      move: Effect.fn("MessageStore.move")(function*(ids: ReadonlyArray<MessageId>, to: MessageMove) {
        if (ids.length === 0) return []
        return ascendingIds(
          yield* sql<{ id: unknown }>`
            UPDATE messages SET channel_id = ${to.channel_id}, topic = ${to.topic},
              last_moved_time = COALESCE(${to.last_moved_time ?? null}::bigint, last_moved_time),
              edit_history = jsonb_build_array(${jsonText(to.entry)}::jsonb) || COALESCE(edit_history, '[]'::jsonb)
            WHERE ${inIds(sql, "id", ids)} AND channel_id IS NOT NULL
            RETURNING id`
        )
      }, Effect.orDie),
      // The rows go with their message (`ON DELETE CASCADE`): one statement.
      delete: Effect.fn("MessageStore.delete")(function*(ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return []
        return ascendingIds(yield* sql<{ id: unknown }>`DELETE FROM messages WHERE ${inIds(sql, "id", ids)} RETURNING id`)
      }, Effect.orDie),
      deleteUserMessages: Effect.fn("MessageStore.deleteUserMessages")(
        function*(ids: ReadonlyArray<MessageId>, userIds: ReadonlyArray<UserId>) {
          if (ids.length === 0 || userIds.length === 0) return
          yield* sql`DELETE FROM user_messages WHERE ${inIds(sql, "message_id", ids)} AND ${inIds(sql, "user_id", userIds)}`
        },
        Effect.orDie
      ),
      // KEY SHARE: a deletion waits for the transaction; other submessages and edits do not.
      lockMessage: Effect.fn("MessageStore.lockMessage")(function*(id: MessageId) {
        const rows = yield* sql`SELECT id FROM messages WHERE id = ${id} FOR KEY SHARE`
        return rows.length > 0
      }, Effect.orDie),
      addSubmessage: Effect.fn("MessageStore.addSubmessage")(function*(row: Insert<Submessage>) {
        const [inserted] = yield* sql<Row>`
          INSERT INTO submessages (message_id, sender_id, msg_type, content)
          VALUES (${row.message_id}, ${row.sender_id}, ${row.msg_type}, ${row.content})
          RETURNING id, message_id, sender_id, msg_type, content`
        return decodeSubmessage(inserted!)
      }, Effect.orDie),
      submessages: Effect.fn("MessageStore.submessages")(function*(ids: ReadonlyArray<MessageId>) {
        if (ids.length === 0) return []
        const rows = yield* sql<Row>`
          SELECT id, message_id, sender_id, msg_type, content FROM submessages
          WHERE ${inIds(sql, "message_id", ids)} ORDER BY id`
        return rows.map(decodeSubmessage)
      }, Effect.orDie),
      addReaction: Effect.fn("MessageStore.addReaction")(function*(reaction: Reaction) {
        const rows = yield* sql`
          INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type)
          VALUES (${reaction.message_id}, ${reaction.user_id}, ${reaction.emoji_name}, ${reaction.emoji_code}, ${reaction.reaction_type})
          ON CONFLICT (message_id, user_id, emoji_code, reaction_type) DO NOTHING
          RETURNING id`
        return rows.length > 0
      }, Effect.orDie),
      removeReaction: Effect.fn("MessageStore.removeReaction")(function*(key: ReactionKey) {
        const rows = yield* sql<Row>`
          DELETE FROM reactions
          WHERE message_id = ${key.message_id} AND user_id = ${key.user_id}
            AND emoji_code = ${key.emoji_code} AND reaction_type = ${key.reaction_type}
          RETURNING message_id, user_id, emoji_name, emoji_code, reaction_type`
        return rows.length === 0 ? undefined : decodeReaction(rows[0]!)
      }, Effect.orDie)
    })
  })
)
