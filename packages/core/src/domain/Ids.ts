/**
 * Branded identifiers. Every id is a positive integer on the wire; the brand
 * keeps a channel id from being passed where a user id is expected.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

/** @category ids */
export const RealmId = PositiveInt.pipe(Schema.brand("RealmId"))
/** @category ids */
export type RealmId = typeof RealmId.Type

/** @category ids */
export const UserId = PositiveInt.pipe(Schema.brand("UserId"))
/** @category ids */
export type UserId = typeof UserId.Type

/** @category ids */
export const GroupId = PositiveInt.pipe(Schema.brand("GroupId"))
/** @category ids */
export type GroupId = typeof GroupId.Type

/** @category ids */
export const ChannelId = PositiveInt.pipe(Schema.brand("ChannelId"))
/** @category ids */
export type ChannelId = typeof ChannelId.Type

/** @category ids */
export const MessageId = PositiveInt.pipe(Schema.brand("MessageId"))
/** @category ids */
export type MessageId = typeof MessageId.Type

/** @category ids */
export const FolderId = PositiveInt.pipe(Schema.brand("FolderId"))
/** @category ids */
export type FolderId = typeof FolderId.Type

/**
 * Unsafe constructors for ids that come from trusted storage (a database row,
 * an in-memory counter). Input from clients is decoded with the schemas above.
 *
 * @category constructors
 */
export const realmId = (n: number): RealmId => n as RealmId
/** @category constructors */
export const userId = (n: number): UserId => n as UserId
/** @category constructors */
export const groupId = (n: number): GroupId => n as GroupId
/** @category constructors */
export const channelId = (n: number): ChannelId => n as ChannelId
/** @category constructors */
export const messageId = (n: number): MessageId => n as MessageId
