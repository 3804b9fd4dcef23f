/**
 * Every write to the messages and their per-user rows (`user_messages`,
 * with the flags) goes through this port: sends, scheduled deliveries,
 * imports, flag changes, edits, moves and deletions, and the messages'
 * submessages (widgets' data), which it also reads, and emoji reactions
 * (deleted with their message). Other reads stay with
 * `MessageRepo` and `MessageSearch`; the event log stays with `EventStore`,
 * which a send writes to in the same atomic unit as its message.
 *
 * Like the repositories it checks nothing (services do, inside their
 * transaction); storage failures are defects. The implementations are
 * `memory/MemoryMessageStore.ts` and `sql/SqlMessageStore.ts`; the contract
 * suite in `test/persistence/MessageStore.test.ts` runs on every backend.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { NewLoggedEvent } from "../domain/Event.ts"
import type { ChannelId, MessageId, RealmId, UserId } from "../domain/Ids.ts"
import type { EditHistoryEntry, Message, Reaction, UserMessage } from "../domain/Message.ts"
import type { Submessage } from "../domain/Widget.ts"
import type { StaleAccess } from "./AccessCache.ts"
import type { Insert } from "./Repositories.ts"

/** A recipient's row as a message is written: the user and the row's first flags. @category models */
export interface Recipient {
  readonly user_id: UserId
  readonly flags: number
}

/** What names one user's reaction to a message: the emoji by code and type. @category models */
export type ReactionKey = Omit<Reaction, "emoji_name">

/** A message to insert with its rows. @category models */
export interface NewMessage {
  readonly message: Insert<Message>
  readonly recipients: ReadonlyArray<Recipient>
}

/**
 * The fields an edit may change (any subset) and the edit's time. Content
 * goes with its rendering and the `has_*` flags derived from it.
 *
 * @category models
 */
export interface MessageEdit {
  readonly content?: string
  readonly rendered_content?: string
  readonly has_attachment?: boolean
  readonly has_image?: boolean
  readonly has_link?: boolean
  readonly topic?: string
  /** The time of a content edit (a move leaves it). */
  readonly last_edit_time?: number
  readonly last_moved_time?: number
  /** The message's whole history, newest first (the caller holds the message's row lock). */
  readonly edit_history?: ReadonlyArray<EditHistoryEntry>
}

/**
 * Where moved channel messages go, and the history entry each of them gets
 * (first in its `edit_history`). A move that is not a resolve also sets
 * `last_moved_time`.
 *
 * @category models
 */
export interface MessageMove {
  readonly channel_id: ChannelId
  readonly topic: string
  readonly entry: EditHistoryEntry
  readonly last_moved_time?: number | undefined
}

/** Where `markRead` marks: a channel, or one topic of it. @category models */
export interface ReadScope {
  readonly channel_id: ChannelId
  readonly topic?: string | undefined
}

/** @category services */
export class MessageStore extends Context.Service<MessageStore, {
  /**
   * A new message with its rows and the events announcing it, written as
   * one atomic unit: part of the current transaction, or on its own when
   * there is none (on SQL one statement, so a send needs no explicit
   * transaction and its round trips). Every event whose payload has a
   * `message` object gets the new message's id as that object's `id`.
   * Waiters are signalled after commit (as `EventStore.append`).
   *
   * With `accessVersion` (a send authenticated from a kept read nobody
   * checked, `AccessCache.deferrable`), the write checks the organization's
   * access version as part of itself and fails with `StaleAccess`, having
   * written nothing, when the version is no longer that one.
   */
  send(
    realmId: RealmId,
    message: Insert<Message>,
    recipients: ReadonlyArray<Recipient>,
    events: ReadonlyArray<NewLoggedEvent>,
    options?: { readonly accessVersion?: number }
  ): Effect.Effect<MessageId, StaleAccess>
  /** Inserts one message and its rows, without events. */
  insert(message: Insert<Message>, recipients: ReadonlyArray<Recipient>): Effect.Effect<Message>
  /**
   * Inserts many messages with their rows (a batch of scheduled deliveries,
   * an import) in a number of statements that does not grow with the batch;
   * ids ascend in the order given.
   */
  insertMany(items: ReadonlyArray<NewMessage>): Effect.Effect<ReadonlyArray<Message>>
  /** Inserts rows that do not exist yet (e.g. `historical` rows when starring channel history). */
  insertUserMessages(rows: ReadonlyArray<UserMessage>): Effect.Effect<void>
  /**
   * Sets (`add`) or clears the bits of `mask` on the user's rows among `ids`;
   * returns the ids whose flags changed, ascending.
   */
  updateFlags(userId: UserId, ids: ReadonlyArray<MessageId>, mask: number, add: boolean): Effect.Effect<ReadonlyArray<MessageId>>
  /**
   * Marks read every unread row of the user, or only those of a channel, or
   * of one of its topics (compared case-insensitively), in one statement
   * whatever the backlog; returns the ids marked, ascending.
   */
  markRead(userId: UserId, within?: ReadScope): Effect.Effect<ReadonlyArray<MessageId>>
  /** Changes the given fields of one message; returns it as edited, undefined when there is none. */
  edit(id: MessageId, edit: MessageEdit): Effect.Effect<Message | undefined>
  /**
   * Moves the channel messages among `ids` to a channel and topic (direct
   * messages are left alone); returns the ids moved, ascending. Their rows
   * stay: who gains or loses access is the caller's (`insertUserMessages`,
   * `deleteUserMessages`).
   */
  move(ids: ReadonlyArray<MessageId>, to: MessageMove): Effect.Effect<ReadonlyArray<MessageId>>
  /** Deletes the messages among `ids` and all their rows and submessages; returns the ids deleted, ascending. */
  delete(ids: ReadonlyArray<MessageId>): Effect.Effect<ReadonlyArray<MessageId>>
  /** Deletes the rows of these users for these messages (users who lost access after a move). */
  deleteUserMessages(ids: ReadonlyArray<MessageId>, userIds: ReadonlyArray<UserId>): Effect.Effect<void>
  /**
   * Locks the message against deletion until the transaction ends (SQL: a
   * key-share row lock), so that a submessage written after checking it
   * always has its message; false when there is no such message.
   */
  lockMessage(id: MessageId): Effect.Effect<boolean>
  /** Inserts a submessage; its id is the next of the table's, so ids ascend in insertion order. */
  addSubmessage(submessage: Insert<Submessage>): Effect.Effect<Submessage>
  /** The submessages of these messages, ascending by id. */
  submessages(ids: ReadonlyArray<MessageId>): Effect.Effect<ReadonlyArray<Submessage>>
  /**
   * Adds a reaction unless the user already reacted to the message with
   * that emoji (the same code and type); returns whether it was added.
   */
  addReaction(reaction: Reaction): Effect.Effect<boolean>
  /** Removes the user's reaction with that emoji; returns it, undefined when there was none. */
  removeReaction(key: ReactionKey): Effect.Effect<Reaction | undefined>
}>()("teamchat/core/ports/MessageStore") {}
