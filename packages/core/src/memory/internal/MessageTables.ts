/**
 * The messages and their per-user rows (Zulip's UserMessage) in memory,
 * with the indexes the SQL schema keeps on them (`sql/Migrations.ts`,
 * `0004_messages`), so that no read walks the whole table:
 *
 * | here | SQL |
 * |---|---|
 * | messages by channel, by channel and lower-cased topic | `messages_channel_topic_idx` |
 * | by sender | `messages_sender_idx` |
 * | direct messages by conversation (`dm_user_ids`) | `messages_dm_key_idx` |
 * | direct messages by participant | `messages_dm_user_ids_idx` (GIN) |
 * | a message's recipients | `user_messages_message_id_idx` |
 * | a user's rows, ascending | the primary key `(user_id, message_id)` |
 * | a user's unread and starred rows | `user_messages_unread_idx`, `user_messages_starred_idx` |
 * | a user's mentioned, alerted and direct-message rows | (none: Zulip's partial indexes of the same flags) |
 *
 * Every write goes through this class, which keeps the indexes with the
 * rows; all of them are journaled (`SortedIds`, `JournaledMap`), so a
 * rollback undoes both. The maps here are unordered (`ordered: false`):
 * reads go by key or through an index, never by insertion order.
 *
 * `examined` counts the messages and rows reads have looked at, for tests
 * to check that a read's work does not grow with the table.
 *
 * @internal
 */
import type { Message } from "../../domain/Message.ts"
import { FlagBits, MentionBits } from "../../domain/Message.ts"
import { pgLower } from "../../narrow/NarrowPredicate.ts"
import type { Journal } from "./Journal.ts"
import { JournaledMap } from "./Journal.ts"
import { SortedIds } from "./SortedIds.ts"

/** A user's rows and the partial indexes over them. */
export interface UserRows {
  readonly all: SortedIds
  /** `(flags & read) = 0`. */
  readonly unread: SortedIds
  readonly starred: SortedIds
  /** Any of `MentionBits`. */
  readonly mentioned: SortedIds
  readonly alerted: SortedIds
  /** Rows of direct messages (`type = 'private'`). */
  readonly direct: SortedIds
}

/** The conversation of a direct message: its participants' ids, as SQL's `dm_key`. */
export const dmKey = (participants: ReadonlyArray<number>): string => participants.join(",")

export class MessageTables {
  private readonly journal: Journal
  private readonly messages: JournaledMap<number, Message>
  /** Flags by message id, per user id. */
  private readonly rows: JournaledMap<number, JournaledMap<number, number>>
  /** Users with a row, per message id, in the order their rows were written. */
  private readonly recipientsOf: JournaledMap<number, ReadonlyArray<number>>
  private readonly byChannel = new Map<number, SortedIds>()
  private readonly byTopic = new Map<number, Map<string, SortedIds>>()
  private readonly bySender = new Map<number, SortedIds>()
  private readonly byDm = new Map<string, SortedIds>()
  private readonly byDmParticipant = new Map<number, SortedIds>()
  private readonly byUser = new Map<number, UserRows>()
  /** Never written: what an index without the key reads as. */
  readonly none: SortedIds
  private readonly noRows: UserRows

  /** Messages and rows looked at by reads (see the module's comment). */
  examined = 0

  constructor(journal: Journal) {
    this.journal = journal
    this.messages = new JournaledMap(journal, { ordered: false })
    this.rows = new JournaledMap(journal, { ordered: false })
    this.recipientsOf = new JournaledMap(journal, { ordered: false })
    this.none = new SortedIds(journal)
    const none = this.none
    this.noRows = { all: none, unread: none, starred: none, mentioned: none, alerted: none, direct: none }
  }

  get size(): number {
    return this.messages.size
  }

  /** The message with this id, counted as examined. */
  examine(id: number): Message | undefined {
    this.examined++
    return this.messages.get(id)
  }

  /** The message with this id (a lookup by key, not counted). */
  get(id: number): Message | undefined {
    return this.messages.get(id)
  }

  /** The user's flags by message id. */
  rowsOf(user: number): ReadonlyMap<number, number> | undefined {
    return this.rows.get(user)
  }

  /** The user ids with a row for the message, in the order their rows were written. */
  recipients(id: number): ReadonlyArray<number> {
    return this.recipientsOf.get(id) ?? []
  }

  inChannel(channel: number): SortedIds {
    return this.byChannel.get(channel) ?? this.none
  }

  /** A channel's messages with this topic; `lowerTopic` lower-cased by `pgLower`. */
  inTopic(channel: number, lowerTopic: string): SortedIds {
    return this.byTopic.get(channel)?.get(lowerTopic) ?? this.none
  }

  sentBy(user: number): SortedIds {
    return this.bySender.get(user) ?? this.none
  }

  /** The direct messages of exactly these participants (sorted, as `dm_user_ids`). */
  inConversation(participants: ReadonlyArray<number>): SortedIds {
    return this.byDm.get(dmKey(participants)) ?? this.none
  }

  /** The direct messages whose participants include the user. */
  directWith(user: number): SortedIds {
    return this.byDmParticipant.get(user) ?? this.none
  }

  /** The user's rows and their partial indexes (empty ones for a user without rows). */
  userRows(user: number): UserRows {
    return this.byUser.get(user) ?? this.noRows
  }

  // ---------------------------------------------------------------------------
  // Writes

  /** Inserts the message (its id already assigned) and one row per recipient. */
  insert(message: Message, recipients: ReadonlyArray<{ readonly user_id: number; readonly flags: number }>): void {
    this.messages.set(message.id, message)
    if (message.channel_id !== null) {
      add(this.byChannel, message.channel_id, this.journal, message.id)
      let topics = this.byTopic.get(message.channel_id)
      if (topics === undefined) this.byTopic.set(message.channel_id, topics = new Map())
      add(topics, pgLower(message.topic), this.journal, message.id)
    }
    add(this.bySender, message.sender_id, this.journal, message.id)
    if (message.type === "private") {
      add(this.byDm, dmKey(message.dm_user_ids), this.journal, message.id)
      for (const user of message.dm_user_ids) add(this.byDmParticipant, user, this.journal, message.id)
    }
    if (recipients.length === 0) return
    this.recipientsOf.set(message.id, Array.from(new Set(recipients.map((r) => r.user_id))))
    for (const r of recipients) this.writeRow(r.user_id, message.id, r.flags)
  }

  /** Writes the user's row for the message, creating it if it does not exist. */
  setFlags(user: number, id: number, flags: number): void {
    if (this.rows.get(user)?.has(id) !== true) this.recipientsOf.set(id, [...this.recipients(id), user])
    this.writeRow(user, id, flags)
  }

  /** Writes a row and its index entries; a new row's recipient entry is the caller's. */
  private writeRow(user: number, id: number, flags: number): void {
    let own = this.rows.get(user)
    if (own === undefined) this.rows.set(user, own = new JournaledMap(this.journal, { ordered: false }))
    const previous = own.get(id)
    if (previous === flags) return
    own.set(id, flags)
    let indexes = this.byUser.get(user)
    if (indexes === undefined) this.byUser.set(user, indexes = this.newUserRows())
    if (previous === undefined) {
      indexes.all.add(id)
      if (this.messages.get(id)?.type === "private") indexes.direct.add(id)
    }
    const was = previous ?? 0
    flip(indexes.unread, id, previous !== undefined && (was & FlagBits.read) === 0, (flags & FlagBits.read) === 0)
    flip(indexes.starred, id, (was & FlagBits.starred) !== 0, (flags & FlagBits.starred) !== 0)
    flip(indexes.mentioned, id, (was & MentionBits) !== 0, (flags & MentionBits) !== 0)
    flip(indexes.alerted, id, (was & FlagBits.has_alert_word) !== 0, (flags & FlagBits.has_alert_word) !== 0)
  }

  /** Deletes the message, its rows and its index entries. */
  delete(id: number): void {
    const message = this.messages.get(id)
    if (message === undefined) return
    this.messages.delete(id)
    if (message.channel_id !== null) {
      this.byChannel.get(message.channel_id)?.delete(id)
      this.byTopic.get(message.channel_id)?.get(pgLower(message.topic))?.delete(id)
    }
    this.bySender.get(message.sender_id)?.delete(id)
    if (message.type === "private") {
      this.byDm.get(dmKey(message.dm_user_ids))?.delete(id)
      for (const user of message.dm_user_ids) this.byDmParticipant.get(user)?.delete(id)
    }
    for (const user of this.recipients(id)) {
      this.rows.get(user)?.delete(id)
      const indexes = this.byUser.get(user)
      if (indexes === undefined) continue
      for (const index of [indexes.all, indexes.unread, indexes.starred, indexes.mentioned, indexes.alerted, indexes.direct]) {
        index.delete(id)
      }
    }
    this.recipientsOf.delete(id)
  }

  private newUserRows(): UserRows {
    const journal = this.journal
    return {
      all: new SortedIds(journal),
      unread: new SortedIds(journal),
      starred: new SortedIds(journal),
      mentioned: new SortedIds(journal),
      alerted: new SortedIds(journal),
      direct: new SortedIds(journal)
    }
  }
}

/**
 * Adds `id` to the index under `key`, creating it. An index created inside
 * a transaction that rolls back stays, empty: it reads as no entries.
 */
const add = <K>(indexes: Map<K, SortedIds>, key: K, journal: Journal, id: number): void => {
  let index = indexes.get(key)
  if (index === undefined) indexes.set(key, index = new SortedIds(journal))
  index.add(id)
}

const flip = (index: SortedIds, id: number, was: boolean, is: boolean): void => {
  if (was === is) return
  if (is) index.add(id)
  else index.delete(id)
}
