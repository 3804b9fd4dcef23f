/**
 * Errors of addressing: channels and users named by id or name, and what a message or topic may hold.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ZulipError from "./ZulipError.ts"

/**
 * @category channels
 * @since 0.1.0
 */
export class StreamDoesNotExist extends ZulipError.make<StreamDoesNotExist>()("StreamDoesNotExist", {
  code: "STREAM_DOES_NOT_EXIST",
  fields: { stream_id: Schema.Int },
  message: ({ stream_id }) => `Channel with ID '${stream_id}' does not exist`
}) {}

/**
 * The by-name variant of {@link StreamDoesNotExist}.
 *
 * @category channels
 * @since 0.1.0
 */
export class StreamNameDoesNotExist extends ZulipError.make<StreamNameDoesNotExist>()("StreamNameDoesNotExist", {
  code: "STREAM_DOES_NOT_EXIST",
  fields: { stream: Schema.String },
  message: ({ stream }) => `Channel '${stream}' does not exist`
}) {}

/**
 * A channel id the user cannot access (drafts).
 *
 * @category channels
 * @since 0.1.0
 */
export class InvalidChannelId extends ZulipError.make<InvalidChannelId>()("InvalidChannelId", {
  code: "BAD_REQUEST",
  message: "Invalid channel ID"
}) {}

/**
 * GET /get_stream_id: no channel of that name the user may see.
 *
 * @category channels
 * @since 0.1.0
 */
export class InvalidChannelName extends ZulipError.make<InvalidChannelName>()("InvalidChannelName", {
  code: "BAD_REQUEST",
  params: { stream: Schema.String },
  message: ({ stream }) => `Invalid channel name '${stream}'`
}) {}

/**
 * An unknown recipient user id (messages, scheduled messages, drafts).
 *
 * @category users
 * @since 0.1.0
 */
export class InvalidUserId extends ZulipError.make<InvalidUserId>()("InvalidUserId", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `Invalid user ID ${user_id}`
}) {}

/**
 * The colon form of {@link InvalidUserId}, sent for user-id lists (user group
 * members) and user-type custom profile field values.
 *
 * @category users
 * @since 0.1.0
 */
export class InvalidUserIdColon extends ZulipError.make<InvalidUserIdColon>()("InvalidUserIdColon", {
  code: "BAD_REQUEST",
  params: { user_id: Schema.Int },
  message: ({ user_id }) => `Invalid user ID: ${user_id}`
}) {}

/**
 * @category users
 * @since 0.1.0
 */
export class NoSuchUser extends ZulipError.make<NoSuchUser>()("NoSuchUser", {
  code: "BAD_REQUEST",
  message: "No such user"
}) {}

/**
 * @category messages
 * @since 0.1.0
 */
export class TopicNullBytes extends ZulipError.make<TopicNullBytes>()("TopicNullBytes", {
  code: "BAD_REQUEST",
  message: "Topic must not contain null bytes"
}) {}

/**
 * @category messages
 * @since 0.1.0
 */
export class MessageNullBytes extends ZulipError.make<MessageNullBytes>()("MessageNullBytes", {
  code: "BAD_REQUEST",
  message: "Message must not contain null bytes"
}) {}

/**
 * Every error class of this file, in the catalogue's order.
 *
 * @category catalogue
 * @since 0.1.0
 */
export const RecipientErrors = [
  StreamDoesNotExist,
  StreamNameDoesNotExist,
  InvalidChannelId,
  InvalidChannelName,
  InvalidUserId,
  InvalidUserIdColon,
  NoSuchUser,
  TopicNullBytes,
  MessageNullBytes
] as const
