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
 * Every write goes through this class (called by `MemoryMessageStore`),
 * which keeps the indexes with the rows. Inside a transaction each write (an
 * insert with its rows, a row's flags, an edit or move, a deletion with its
 * rows) records one undo for all it changed, so
 * a rollback undoes rows and indexes together at the cost of one record
 * per write rather than one per entry.
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

/** A recipient's row as written. */
interface Recipient {
  readonly user_id: number
  readonly flags: number
}

/** The conversation of a direct message: its participants' ids, as SQL's `dm_key`. */
export const dmKey = (participants: ReadonlyArray<number>): string => participants.join(",")

/** Never written: what an index without the key reads as. */
const none = new SortedIds()
const noRows: UserRows = { all: none, unread: none, starred: none, mentioned: none, alerted: none, direct: none }

export class MessageTables {
  private readonly journal: Journal
  private readonly messages = new Map<number, Message>()
  /** Flags by message id, per user id. */
  private readonly rows = new Map<number, Map<number, number>>()
  /** Users with a row, per message id, in the order their rows were written. */
  private readonly recipientsOf = new Map<number, Array<number>>()
  private readonly byChannel = new Map<number, SortedIds>()
  private readonly byTopic = new Map<number, Map<string, SortedIds>>()
  private readonly bySender = new Map<number, SortedIds>()
  private readonly byDm = new Map<string, SortedIds>()
  private readonly byDmParticipant = new Map<number, SortedIds>()
  private readonly byUser = new Map<number, UserRows>()
  readonly none: SortedIds = none

  /** Messages and rows looked at by reads (see the module's comment). */
  examined = 0

  constructor(journal: Journal) {
    this.journal = journal
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
    return this.byChannel.get(channel) ?? none
  }

  /** A channel's messages with this topic; `lowerTopic` lower-cased by `pgLower`. */
  inTopic(channel: number, lowerTopic: string): SortedIds {
    return this.byTopic.get(channel)?.get(lowerTopic) ?? none
  }

  sentBy(user: number): SortedIds {
    return this.bySender.get(user) ?? none
  }

  /** The direct messages of exactly these participants (sorted, as `dm_user_ids`). */
  inConversation(participants: ReadonlyArray<number>): SortedIds {
    return this.byDm.get(dmKey(participants)) ?? none
  }

  /** The direct messages whose participants include the user. */
  directWith(user: number): SortedIds {
    return this.byDmParticipant.get(user) ?? none
  }

  /** The user's rows and their partial indexes (empty ones for a user without rows). */
  userRows(user: number): UserRows {
    return this.byUser.get(user) ?? noRows
  }

  // ---------------------------------------------------------------------------
  // Writes: each records its undo while a transaction is open

  /** Inserts the message (its id already assigned, not in use) and one row per recipient. */
  insert(message: Message, recipients: ReadonlyArray<Recipient>): void {
    this.insertWithRows(message, recipients)
    if (this.journal.recording) this.journal.record(() => this.deleteWithRows(message.id))
  }

  /** Writes the user's row for the message, creating it if it does not exist. */
  setFlags(user: number, id: number, flags: number): void {
    if (this.rows.get(user)?.get(id) === flags) return
    const direct = this.messages.get(id)?.type === "private"
    const previous = this.writeRow(user, id, flags, direct)
    if (previous === undefined) {
      const recipients = this.recipientsOf.get(id)
      if (recipients === undefined) this.recipientsOf.set(id, [user])
      else recipients.push(user)
    }
    if (this.journal.recording) {
      this.journal.record(() => (previous === undefined ? this.removeRow(user, id) : this.writeRow(user, id, previous, direct)))
    }
  }

  /** Deletes the message, its rows and its index entries. */
  delete(id: number): void {
    const message = this.messages.get(id)
    if (message === undefined) return
    const rows = this.recipients(id).map((user): Recipient => ({ user_id: user, flags: this.rows.get(user)!.get(id)! }))
    this.deleteWithRows(id)
    if (this.journal.recording) this.journal.record(() => this.insertWithRows(message, rows))
  }

  /**
   * Replaces a message by a new version of it (same id, sender and type: an
   * edit or a move), moving its channel and topic index entries.
   */
  replace(message: Message): void {
    const previous = this.messages.get(message.id)
    if (previous === undefined) return
    this.reindex(previous, message)
    if (this.journal.recording) this.journal.record(() => this.reindex(message, previous))
  }

  /** Deletes the user's row for the message, if any. */
  deleteRow(user: number, id: number): void {
    const flags = this.rows.get(user)?.get(id)
    if (flags === undefined) return
    const direct = this.messages.get(id)?.type === "private"
    this.removeRow(user, id)
    if (this.journal.recording) {
      this.journal.record(() => {
        this.writeRow(user, id, flags, direct)
        const recipients = this.recipientsOf.get(id)
        if (recipients === undefined) this.recipientsOf.set(id, [user])
        else recipients.push(user)
      })
    }
  }

  private reindex(from: Message, to: Message): void {
    const id = to.id
    this.messages.set(id, to)
    if (from.channel_id === to.channel_id && pgLower(from.topic) === pgLower(to.topic)) return
    if (from.channel_id !== null) {
      this.byChannel.get(from.channel_id)?.delete(id)
      this.byTopic.get(from.channel_id)?.get(pgLower(from.topic))?.delete(id)
    }
    if (to.channel_id !== null) {
      add(this.byChannel, to.channel_id, id)
      let topics = this.byTopic.get(to.channel_id)
      if (topics === undefined) this.byTopic.set(to.channel_id, topics = new Map())
      add(topics, pgLower(to.topic), id)
    }
  }

  private insertWithRows(message: Message, recipients: ReadonlyArray<Recipient>): void {
    const id = message.id
    this.messages.set(id, message)
    if (message.channel_id !== null) {
      add(this.byChannel, message.channel_id, id)
      let topics = this.byTopic.get(message.channel_id)
      if (topics === undefined) this.byTopic.set(message.channel_id, topics = new Map())
      add(topics, pgLower(message.topic), id)
    }
    add(this.bySender, message.sender_id, id)
    if (message.type === "private") {
      add(this.byDm, dmKey(message.dm_user_ids), id)
      for (const user of message.dm_user_ids) add(this.byDmParticipant, user, id)
    }
    if (recipients.length === 0) return
    const direct = message.type === "private"
    const users: Array<number> = []
    for (const r of recipients) {
      // A user listed twice has one row, with the last flags given.
      if (this.writeRow(r.user_id, id, r.flags, direct) === undefined) users.push(r.user_id)
    }
    this.recipientsOf.set(id, users)
  }

  private deleteWithRows(id: number): void {
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
    for (const user of this.recipients(id)) this.dropRow(user, id)
    this.recipientsOf.delete(id)
  }

  /**
   * Writes a row and its index entries (`direct`: the message is a direct
   * message); returns the row's flags before, undefined for a new row.
   */
  private writeRow(user: number, id: number, flags: number, direct: boolean): number | undefined {
    let own = this.rows.get(user)
    if (own === undefined) this.rows.set(user, own = new Map())
    const previous = own.get(id)
    own.set(id, flags)
    let indexes = this.byUser.get(user)
    if (indexes === undefined) this.byUser.set(user, indexes = newUserRows())
    if (previous === undefined) {
      indexes.all.add(id)
      if (direct) indexes.direct.add(id)
      if ((flags & FlagBits.read) === 0) indexes.unread.add(id)
      if ((flags & FlagBits.starred) !== 0) indexes.starred.add(id)
      if ((flags & MentionBits) !== 0) indexes.mentioned.add(id)
      if ((flags & FlagBits.has_alert_word) !== 0) indexes.alerted.add(id)
      return undefined
    }
    flip(indexes.unread, id, (previous & FlagBits.read) === 0, (flags & FlagBits.read) === 0)
    flip(indexes.starred, id, (previous & FlagBits.starred) !== 0, (flags & FlagBits.starred) !== 0)
    flip(indexes.mentioned, id, (previous & MentionBits) !== 0, (flags & MentionBits) !== 0)
    flip(indexes.alerted, id, (previous & FlagBits.has_alert_word) !== 0, (flags & FlagBits.has_alert_word) !== 0)
    return previous
  }

  /** Undoes a row's creation: the row, its index entries and its recipient entry. */
  private removeRow(user: number, id: number): void {
    this.dropRow(user, id)
    const recipients = this.recipientsOf.get(id)
    if (recipients === undefined) return
    const at = recipients.lastIndexOf(user)
    if (at >= 0) recipients.splice(at, 1)
    if (recipients.length === 0) this.recipientsOf.delete(id)
  }

  /** The row and its index entries. */
  private dropRow(user: number, id: number): void {
    this.rows.get(user)?.delete(id)
    const indexes = this.byUser.get(user)
    if (indexes === undefined) return
    indexes.all.delete(id)
    indexes.unread.delete(id)
    indexes.starred.delete(id)
    indexes.mentioned.delete(id)
    indexes.alerted.delete(id)
    indexes.direct.delete(id)
  }
}

const newUserRows = (): UserRows => ({
  all: new SortedIds(),
  unread: new SortedIds(),
  starred: new SortedIds(),
  mentioned: new SortedIds(),
  alerted: new SortedIds(),
  direct: new SortedIds()
})

/** Adds `id` to the index under `key`, creating it (an index left empty by a rollback reads as none). */
const add = <K>(indexes: Map<K, SortedIds>, key: K, id: number): void => {
  let index = indexes.get(key)
  if (index === undefined) indexes.set(key, index = new SortedIds())
  index.add(id)
}

const flip = (index: SortedIds, id: number, was: boolean, is: boolean): void => {
  if (was === is) return
  if (is) index.add(id)
  else index.delete(id)
}
