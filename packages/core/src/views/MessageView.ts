/**
 * How a message looks through the API (GET /messages, `message` events):
 * the fields the clients read (`client-surface.md`: type stream/private,
 * `subject`, `display_recipient`, sender fields, `content_type`, flags,
 * reactions, …).
 *
 * @since 0.1.0
 */
import type { Channel } from "../domain/Channel.ts"
import type { ChannelId, UserId } from "../domain/Ids.ts"
import type { Message, Reaction } from "../domain/Message.ts"
import type { MessageReaction, Submessage, TopicLink } from "../domain/events/MessageEvents.ts"
import { EmptyTopicDisplayName, flagNames } from "../domain/Message.ts"
import type { EditHistoryEntry } from "../domain/Message.ts"
import type { Realm } from "../domain/Realm.ts"
import { EmailVisibilities } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import type { Submessage as StoredSubmessage } from "../domain/Widget.ts"
import { escapeHtml } from "../markdown/Description.ts"
import { avatarUrl } from "./UserView.ts"

/** One participant of a direct message, as `display_recipient` lists it. @category models */
export interface DisplayRecipientUser {
  readonly id: number
  readonly email: string
  readonly full_name: string
  readonly is_mirror_dummy: boolean
}

/** @category models */
export interface ApiMessage {
  readonly id: number
  readonly sender_id: number
  readonly sender_email: string
  readonly sender_full_name: string
  readonly sender_realm_str: string
  readonly avatar_url: string | null
  readonly client: string
  readonly content: string
  readonly content_type: "text/html" | "text/x-markdown"
  readonly display_recipient: string | ReadonlyArray<DisplayRecipientUser>
  readonly is_me_message: boolean
  readonly reactions: ReadonlyArray<typeof MessageReaction.Type>
  readonly recipient_id: number
  readonly subject: string
  readonly topic_links: ReadonlyArray<typeof TopicLink.Type>
  readonly submessages: ReadonlyArray<typeof Submessage.Type>
  readonly timestamp: number
  readonly type: "stream" | "private"
  readonly stream_id?: number
  readonly last_edit_timestamp?: number
  readonly last_moved_timestamp?: number
  readonly edit_history?: ReadonlyArray<EditHistoryEntry>
  readonly flags?: ReadonlyArray<string>
  /** Search narrows: the content and topic with matches in `<span class="highlight">`. */
  readonly match_content?: string
  readonly match_subject?: string
}

/** What the view reads besides the message. @category models */
export interface MessageViewContext {
  readonly realm: Realm
  readonly usersById: ReadonlyMap<UserId, User>
  readonly channelsById: ReadonlyMap<ChannelId, Channel>
}

/** @category models */
export interface MessageViewOptions {
  readonly applyMarkdown: boolean
  readonly clientGravatar: boolean
  /** false: the empty topic is shown as "general chat" (clients before feature level 334). */
  readonly allowEmptyTopicName: boolean
}

/** Whether the sender's avatar may be sent as null to a `client_gravatar` client (the client computes it). */
export const gravatarNullable = (sender: User): boolean =>
  sender.avatar_source === "G" && sender.email_address_visibility === EmailVisibilities.everyone

/** Zulip's /me convention. @category predicates */
export const isMeMessage = (content: string): boolean => /^\/me( |$)/.test(content)

/**
 * A stable recipient id: Zulip numbers recipients separately; clients only
 * compare them, so channels and conversations get disjoint stable numbers.
 */
const recipientId = (message: Message): number => {
  if (message.channel_id !== null) return message.channel_id * 2
  let hash = 0
  for (const id of message.dm_user_ids) hash = (hash * 31 + id) % 1_000_000_007
  return hash * 2 + 1
}

/** The participants of a direct message as `display_recipient` lists them, by id. */
export const displayRecipients = (
  message: Message,
  usersById: ReadonlyMap<UserId, User>
): ReadonlyArray<DisplayRecipientUser> =>
  message.dm_user_ids.map((id) => {
    const user = usersById.get(id)
    return {
      id,
      email: user?.email ?? "",
      full_name: user?.full_name ?? "Unknown user",
      is_mirror_dummy: false
    }
  })

/** A submessage as message objects list it. @category views */
export const apiSubmessage = (s: StoredSubmessage): typeof Submessage.Type => ({
  id: s.id,
  message_id: s.message_id,
  sender_id: s.sender_id,
  msg_type: s.msg_type,
  content: s.content
})

/** The topic as a client sees it. @category views */
export const displayTopic = (topic: string, allowEmptyTopicName: boolean): string =>
  topic === "" && !allowEmptyTopicName ? EmptyTopicDisplayName : topic

const isMove = (entry: EditHistoryEntry) => entry.prev_topic !== undefined || entry.prev_stream !== undefined

/**
 * A message's `edit_history` as the organization lets its members see it
 * (`message_edit_history_visibility_policy`): all of it, only its moves
 * (without their content fields), or none; undefined when there is nothing
 * to show.
 *
 * @category views
 */
export const visibleEditHistory = (
  message: Message,
  realm: Realm,
  allowEmptyTopicName: boolean
): ReadonlyArray<EditHistoryEntry> | undefined => {
  const policy = realm.settings.message_edit_history_visibility_policy
  if (message.edit_history === undefined || policy === "none") return undefined
  const entries = policy === "all"
    ? message.edit_history
    : message.edit_history.filter(isMove).map(({ prev_content: _c, prev_rendered_content: _r, ...move }) => move)
  if (entries.length === 0) return undefined
  return allowEmptyTopicName ? entries : entries.map((entry) => {
    if (entry.prev_topic === undefined && entry.topic === undefined) return entry
    return {
      ...entry,
      ...(entry.prev_topic === undefined ? {} : { prev_topic: displayTopic(entry.prev_topic, false) }),
      ...(entry.topic === undefined ? {} : { topic: displayTopic(entry.topic, false) })
    }
  })
}

/**
 * A message as the API returns it; `flags` (a stored flag set) is added when
 * given (GET /messages; `message` events carry flags beside the message);
 * `reactions` are the message's, in the order they were added.
 *
 * @category views
 */
export const toApiMessage = (
  message: Message,
  context: MessageViewContext,
  options: MessageViewOptions,
  flags?: number,
  /** What is stored beside the message: its reactions in the order added, its submessages ascending by id. */
  attached: {
    readonly reactions?: ReadonlyArray<Reaction> | undefined
    readonly submessages?: ReadonlyArray<StoredSubmessage> | undefined
  } = {}
): ApiMessage => {
  const sender = context.usersById.get(message.sender_id)
  const channel = message.channel_id === null ? undefined : context.channelsById.get(message.channel_id)
  const out: Record<string, unknown> = {
    id: message.id,
    sender_id: message.sender_id,
    sender_email: sender?.email ?? "",
    sender_full_name: sender?.full_name ?? "Unknown user",
    sender_realm_str: context.realm.string_id,
    avatar_url: sender === undefined
      ? null
      : options.clientGravatar && gravatarNullable(sender)
      ? null
      : avatarUrl(sender, context.realm),
    client: message.client,
    content: options.applyMarkdown ? message.rendered_content : message.content,
    content_type: options.applyMarkdown ? "text/html" : "text/x-markdown",
    display_recipient: message.type === "stream" ? (channel?.name ?? "") : displayRecipients(message, context.usersById),
    is_me_message: isMeMessage(message.content),
    reactions: (attached.reactions ?? []).map((r) => ({
      emoji_name: r.emoji_name,
      emoji_code: r.emoji_code,
      reaction_type: r.reaction_type,
      user_id: r.user_id
    })),
    recipient_id: recipientId(message),
    subject: message.type === "stream" ? displayTopic(message.topic, options.allowEmptyTopicName) : "",
    topic_links: [],
    submessages: (attached.submessages ?? []).map(apiSubmessage),
    timestamp: message.date_sent,
    type: message.type
  }
  if (message.channel_id !== null) out.stream_id = message.channel_id
  if (message.last_edit_time !== null) out.last_edit_timestamp = message.last_edit_time
  if (message.last_moved_time !== undefined) out.last_moved_timestamp = message.last_moved_time
  const history = visibleEditHistory(message, context.realm, options.allowEmptyTopicName)
  if (history !== undefined) out.edit_history = history
  if (flags !== undefined) out.flags = flagNames(flags)
  return out as unknown as ApiMessage
}

// Entities (`&amp;`) are matched first so that their letters are never highlighted.
const highlightWords = (text: string, words: ReadonlySet<string>): string =>
  text.replace(/&#?\w+;|[\p{L}\p{N}_]+/gu, (word) =>
    !word.startsWith("&") && words.has(word.toLowerCase()) ? `<span class="highlight">${word}</span>` : word)

/**
 * Zulip's search highlighting: every searched word in the rendered content
 * (text only, never inside a tag) and in the topic, wrapped in
 * `<span class="highlight">`.
 *
 * @category views
 */
export const searchMatches = (
  message: Message,
  words: ReadonlyArray<string>
): { readonly match_content: string; readonly match_subject: string } => {
  const set = new Set(words.map((w) => w.toLowerCase()))
  const content = message.rendered_content.split(/(<[^>]*>)/).map((part) =>
    part.startsWith("<") ? part : highlightWords(part, set)
  ).join("")
  return { match_content: content, match_subject: highlightWords(escapeHtml(message.topic), set) }
}
