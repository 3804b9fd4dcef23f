/**
 * The state behind the in-memory persistence layer: plain tables keyed by id,
 * with counters that hand out ids from 1 the way SQL identity columns do, so
 * memory and SQL runs of the same commands give the same ids. The messages
 * table keeps indexes as SQL's does, so that no request's work grows with
 * the number of messages.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import { Journal, JournaledMap, JournaledSet } from "./internal/Journal.ts"
import { MessageTables } from "./internal/MessageTables.ts"
import type { Attachment } from "../domain/Attachment.ts"
import type { AuditLogEntry } from "../domain/AuditLog.ts"
import type { Channel, Subscription } from "../domain/Channel.ts"
import type { CustomProfileField, ProfileFieldValue } from "../domain/CustomProfileField.ts"
import type { Draft } from "../domain/Draft.ts"
import type { Invitation } from "../domain/Invitation.ts"
import type { Reaction } from "../domain/Message.ts"
import type { Presence } from "../domain/Presence.ts"
import type { PushDevice } from "../domain/PushDevice.ts"
import type { Realm } from "../domain/Realm.ts"
import type { SavedSnippet } from "../domain/SavedSnippet.ts"
import type { ScheduledMessage } from "../domain/ScheduledMessage.ts"
import type { User } from "../domain/User.ts"
import type { UserGroup } from "../domain/UserGroup.ts"
import type { MutedUser, UserTopic } from "../domain/Muting.ts"
import type { UserStatus } from "../domain/UserStatus.ts"
import type { Submessage } from "../domain/Widget.ts"

/** @category models */
export interface MemoryTables {
  realms: Map<number, Realm>
  users: Map<number, User>
  groups: Map<number, UserGroup>
  /** `${group_id}:${user_id}` */
  groupMembers: Set<string>
  /** `${group_id}:${subgroup_id}` */
  groupSubgroups: Set<string>
  channels: Map<number, Channel>
  /** keyed by `${user_id}:${channel_id}` */
  subscriptions: Map<string, Subscription>
  /** Settings overrides by user id. */
  userSettings: Map<number, Readonly<Record<string, unknown>>>
  /** Alert words by user id, in insertion order. */
  alertWords: Map<number, ReadonlyArray<string>>
  /**
   * Messages and their per-user flags (Zulip's UserMessage rows), with the
   * indexes SQL keeps on them: every write goes through it, so the indexes
   * stay in step (see `internal/MessageTables.ts`).
   */
  messages: MessageTables
  /** Each message's submessages, ascending by id (SQL's `submessages`). */
  submessages: Map<number, ReadonlyArray<Submessage>>
  /** Reactions by message id, in the order they were added (SQL orders them by their id). */
  reactions: Map<number, ReadonlyArray<Reaction>>
  scheduledMessages: Map<number, ScheduledMessage>
  /** Status rows by user id. */
  userStatuses: Map<number, UserStatus>
  /** Presence rows by user id. */
  presence: Map<number, Presence>
  /** Topic policies per user id, keyed by channel id and lower-cased topic (each inner map replaced on write). */
  userTopics: Map<number, ReadonlyMap<string, UserTopic>>
  /** Muted users per user id, by muted user id (each inner map replaced on write). */
  mutedUsers: Map<number, ReadonlyMap<number, MutedUser>>
  /** The last presence update id per organization (a row, rolled back with its transaction). */
  presenceSequences: Map<number, number>
  profileFields: Map<number, CustomProfileField>
  /** keyed by `${field_id}:${user_id}` */
  profileFieldValues: Map<string, ProfileFieldValue>
  drafts: Map<number, Draft>
  savedSnippets: Map<number, SavedSnippet>
  /** Reusable invitation links by id. */
  invitations: Map<number, Invitation>
  /** keyed by `${user_id}:${push_account_id}` */
  pushDevices: Map<string, PushDevice>
  /** The audit log's rows by id. */
  auditLog: Map<number, AuditLogEntry>
  /** Uploaded files' rows by id. */
  attachments: Map<number, Attachment>
  /** The ids of the messages linking each attachment, by attachment id (each list replaced on write). */
  attachmentMessages: Map<number, ReadonlyArray<number>>
  /**
   * Each organization's access version (SQL's `access_versions`): moved by
   * every write to what access decisions read (see `accessChanged`), and
   * rolled back with its transaction like any row. See `MemoryAccessCache`.
   */
  accessVersions: Map<number, number>
  sequences: Record<
    | "realms"
    | "users"
    | "groups"
    | "channels"
    | "messages"
    | "submessages"
    | "scheduledMessages"
    | "profileFields"
    | "drafts"
    | "savedSnippets"
    | "invitations"
    | "auditLog"
    | "attachments",
    number
  >
}

const emptyTables = (journal: Journal): MemoryTables => ({
  realms: new JournaledMap(journal),
  users: new JournaledMap(journal),
  groups: new JournaledMap(journal),
  groupMembers: new JournaledSet(journal),
  groupSubgroups: new JournaledSet(journal),
  channels: new JournaledMap(journal),
  subscriptions: new JournaledMap(journal),
  userSettings: new JournaledMap(journal),
  alertWords: new JournaledMap(journal),
  messages: new MessageTables(journal),
  submessages: new JournaledMap(journal),
  reactions: new JournaledMap(journal),
  scheduledMessages: new JournaledMap(journal),
  userStatuses: new JournaledMap(journal),
  presence: new JournaledMap(journal),
  userTopics: new JournaledMap(journal),
  mutedUsers: new JournaledMap(journal),
  presenceSequences: new JournaledMap(journal),
  profileFields: new JournaledMap(journal),
  profileFieldValues: new JournaledMap(journal),
  drafts: new JournaledMap(journal),
  savedSnippets: new JournaledMap(journal),
  invitations: new JournaledMap(journal),
  pushDevices: new JournaledMap(journal),
  auditLog: new JournaledMap(journal),
  attachments: new JournaledMap(journal),
  attachmentMessages: new JournaledMap(journal),
  accessVersions: new JournaledMap(journal),
  sequences: {
    realms: 0,
    users: 0,
    groups: 0,
    channels: 0,
    messages: 0,
    submessages: 0,
    scheduledMessages: 0,
    profileFields: 0,
    drafts: 0,
    savedSnippets: 0,
    invitations: 0,
    auditLog: 0,
    attachments: 0
  }
})

/** @category services */
export class MemoryDatabase extends Context.Service<MemoryDatabase, {
  readonly tables: MemoryTables
  nextId(table: keyof MemoryTables["sequences"]): number
  /**
   * Moves the organization's access version: called by every write to
   * realms, users, groups and their edges, channels, subscriptions and alert
   * words (the tables SQL's `access_changed` trigger watches). `undefined`
   * (the row's organization is unknown) moves nothing, like the trigger.
   */
  accessChanged(realm: number | undefined): void
  /**
   * Opens a transaction (or a savepoint inside one): from now on every write
   * to the tables can be undone. Returns the mark `rollback` goes back to.
   */
  begin(): number
  /** Ends what `begin` opened, keeping its writes. */
  commit(): void
  /** Ends what `begin` opened (`mark`), undoing its writes; ids handed out stay used, like SQL sequences. */
  rollback(mark: number): void
}>()("teamchat/core/memory/MemoryDatabase") {
  static readonly layer = Layer.sync(MemoryDatabase, () => {
    const journal = new Journal()
    const tables = emptyTables(journal)
    // SQL's `access_version_seq`: never rolled back, so a version handed out
    // inside a rolled-back transaction is never seen again, and nothing read
    // inside it can pass for committed state.
    let accessClock = 0
    return MemoryDatabase.of({
      tables,
      nextId: (table) => ++tables.sequences[table],
      accessChanged: (realm) => {
        if (realm !== undefined) tables.accessVersions.set(realm, ++accessClock)
      },
      // Records are immutable values: undoing the containers' writes is
      // enough. Sequences are plain numbers, not journaled: like SQL
      // sequences, ids handed out by a rolled-back transaction stay used.
      begin: () => journal.begin(),
      commit: () => journal.commit(),
      rollback: (mark) => journal.rollback(mark)
    })
  })
}
