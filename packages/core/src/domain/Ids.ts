/**
 * Branded identifiers. Every id is a positive safe integer on the wire; the
 * brand keeps a channel id from being passed where a user id is expected,
 * and an id is branded only here, after its check.
 *
 * - Input from outside (a client, a notification payload) is checked with
 *   the schema: `UserId.makeOption(n)`, or decoded with `Schema.decodeUnknown*`.
 * - Ids the code makes itself (a counter, a test fixture) use the checked
 *   constructors `userId(n)` etc., which throw on a non-id: a bug where the id
 *   is made, a defect inside an Effect.
 * - SQL rows use {@link fromRow}, the one unchecked path (see there why).
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** `Schema.Int` is a safe integer; ids start at 1. */
const PositiveSafeInt = Schema.Int.check(Schema.isGreaterThan(0))

/** @category ids */
export const RealmId = PositiveSafeInt.pipe(Schema.brand("RealmId"))
/** @category ids */
export type RealmId = typeof RealmId.Type

/** @category ids */
export const UserId = PositiveSafeInt.pipe(Schema.brand("UserId"))
/** @category ids */
export type UserId = typeof UserId.Type

/** @category ids */
export const GroupId = PositiveSafeInt.pipe(Schema.brand("GroupId"))
/** @category ids */
export type GroupId = typeof GroupId.Type

/** @category ids */
export const ChannelId = PositiveSafeInt.pipe(Schema.brand("ChannelId"))
/** @category ids */
export type ChannelId = typeof ChannelId.Type

/** @category ids */
export const MessageId = PositiveSafeInt.pipe(Schema.brand("MessageId"))
/** @category ids */
export type MessageId = typeof MessageId.Type

/** A widget's submessage (polls, to-do lists). @category ids */
export const SubmessageId = PositiveSafeInt.pipe(Schema.brand("SubmessageId"))
/** @category ids */
export type SubmessageId = typeof SubmessageId.Type

/** @category ids */
export const FolderId = PositiveSafeInt.pipe(Schema.brand("FolderId"))
/** @category ids */
export type FolderId = typeof FolderId.Type

/** @category ids */
export const ProfileFieldId = PositiveSafeInt.pipe(Schema.brand("ProfileFieldId"))
/** @category ids */
export type ProfileFieldId = typeof ProfileFieldId.Type

/** Re-exported by `ScheduledMessage.ts`, its record's module. @category ids */
export const ScheduledMessageId = PositiveSafeInt.pipe(Schema.brand("ScheduledMessageId"))
/** @category ids */
export type ScheduledMessageId = typeof ScheduledMessageId.Type

/** Re-exported by `Draft.ts`, its record's module. @category ids */
export const DraftId = PositiveSafeInt.pipe(Schema.brand("DraftId"))
/** @category ids */
export type DraftId = typeof DraftId.Type

/** Re-exported by `SavedSnippet.ts`, its record's module. @category ids */
export const SavedSnippetId = PositiveSafeInt.pipe(Schema.brand("SavedSnippetId"))
/** @category ids */
export type SavedSnippetId = typeof SavedSnippetId.Type
/** An uploaded file (Zulip's Attachment). Re-exported by `Attachment.ts`. @category ids */
export const AttachmentId = PositiveSafeInt.pipe(Schema.brand("AttachmentId"))
/** @category ids */
export type AttachmentId = typeof AttachmentId.Type
/** A reusable invitation link (Zulip's MultiuseInvite). @category ids */
export const InvitationId = PositiveSafeInt.pipe(Schema.brand("InvitationId"))
/** @category ids */
export type InvitationId = typeof InvitationId.Type
/** A row of the audit log (Zulip's RealmAuditLog). Re-exported by `AuditLog.ts`. @category ids */
export const AuditLogId = PositiveSafeInt.pipe(Schema.brand("AuditLogId"))
/** @category ids */
export type AuditLogId = typeof AuditLogId.Type

const checked = <A>(name: string, schema: { readonly makeOption: (n: number) => Option.Option<A> }) => (n: number): A =>
  Option.getOrThrowWith(schema.makeOption(n), () => new Error(`Not a ${name}: ${n}`))

/**
 * Checked constructors, for ids the code makes itself: each throws on
 * anything but a positive safe integer.
 *
 * @category constructors
 */
export const realmId: (n: number) => RealmId = checked("RealmId", RealmId)
/** @category constructors */
export const userId: (n: number) => UserId = checked("UserId", UserId)
/** @category constructors */
export const groupId: (n: number) => GroupId = checked("GroupId", GroupId)
/** @category constructors */
export const channelId: (n: number) => ChannelId = checked("ChannelId", ChannelId)
/** @category constructors */
export const messageId: (n: number) => MessageId = checked("MessageId", MessageId)
/** @category constructors */
export const submessageId: (n: number) => SubmessageId = checked("SubmessageId", SubmessageId)
/** @category constructors */
export const folderId: (n: number) => FolderId = checked("FolderId", FolderId)
/** @category constructors */
export const scheduledMessageId: (n: number) => ScheduledMessageId = checked("ScheduledMessageId", ScheduledMessageId)
/** @category constructors */
export const profileFieldId: (n: number) => ProfileFieldId = checked("ProfileFieldId", ProfileFieldId)
/** @category constructors */
export const draftId: (n: number) => DraftId = checked("DraftId", DraftId)
/** @category constructors */
export const savedSnippetId: (n: number) => SavedSnippetId = checked("SavedSnippetId", SavedSnippetId)
/** @category constructors */
export const attachmentId: (n: number) => AttachmentId = checked("AttachmentId", AttachmentId)
/** @category constructors */
export const invitationId: (n: number) => InvitationId = checked("InvitationId", InvitationId)
/** @category constructors */
export const auditLogId: (n: number) => AuditLogId = checked("AuditLogId", AuditLogId)

/**
 * Ids read from SQL rows, unchecked: the values come from identity columns
 * (positive by construction) or columns written from checked ids, and every
 * read decodes them (a page of messages carries thousands), where the
 * schema's check costs about ten times the rest of a row's id handling.
 * The only unchecked way to an id; nothing but the SQL adapter's row
 * decoders uses it.
 *
 * @internal
 * @category constructors
 */
export const fromRow = {
  realmId: (n: number): RealmId => n as RealmId,
  userId: (n: number): UserId => n as UserId,
  groupId: (n: number): GroupId => n as GroupId,
  channelId: (n: number): ChannelId => n as ChannelId,
  messageId: (n: number): MessageId => n as MessageId,
  submessageId: (n: number): SubmessageId => n as SubmessageId,
  folderId: (n: number): FolderId => n as FolderId,
  scheduledMessageId: (n: number): ScheduledMessageId => n as ScheduledMessageId,
  profileFieldId: (n: number): ProfileFieldId => n as ProfileFieldId,
  draftId: (n: number): DraftId => n as DraftId,
  savedSnippetId: (n: number): SavedSnippetId => n as SavedSnippetId,
  attachmentId: (n: number): AttachmentId => n as AttachmentId,
  invitationId: (n: number): InvitationId => n as InvitationId,
  auditLogId: (n: number): AuditLogId => n as AuditLogId
} as const
