/**
 * Sending and reading messages: POST /messages, GET /messages, GET
 * /messages/{id}. Every send (by hand, by a bot, by the scheduled-message
 * worker) goes through `sendMany` (`send` is a batch of one), so rendering,
 * flags and events are the same whichever way a message arrives.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { Channel } from "../domain/Channel.ts"
import { messageId, MessageId } from "../domain/Ids.ts"
import type { ChannelId, UserId } from "../domain/Ids.ts"
import type { RealmId } from "../domain/Ids.ts"
import type { Message } from "../domain/Message.ts"
import {
  dmParticipants,
  EmptyTopicDisplayName,
  FlagBits,
  MaxMessageLength,
  MaxTopicLength,
  NoTopicText
} from "../domain/Message.ts"
import { isGuest } from "../domain/Role.ts"
import { isSystemBotEmail } from "../domain/EmailAddress.ts"
import type { User } from "../domain/User.ts"
import * as Errors from "../errors/Errors.ts"
import { Events } from "./events/Events.ts"
import { Audience, messageEvent } from "../domain/Event.ts"
import type { Publication } from "./events/Events.ts"
import { accessOfRequest, canAccessUser, isSubscribed, makeAccessLoader } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import { containsWord, render } from "../markdown/Markdown.ts"
import type { RenderContext } from "../markdown/Markdown.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import { AttachmentRepo } from "../ports/AttachmentRepo.ts"
import { claimAttachments, linksUploads } from "./internal/attachments.ts"
import { ChannelRepo, MessageRepo, SubscriptionRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { AccessCache, StaleAccess } from "../ports/AccessCache.ts"
import type { Insert } from "../ports/Repositories.ts"
import { gravatarNullable, searchMatches, toApiMessage } from "../views/MessageView.ts"
import { widgetContent, widgetFromContent, WidgetMsgType } from "../domain/Widget.ts"
import type { Submessage } from "../domain/Widget.ts"
import { lexemes } from "../narrow/NarrowPredicate.ts"
import type { ApiMessage, MessageViewContext } from "../views/MessageView.ts"
import type { Anchor } from "../ports/MessageSearch.ts"
import { HistoricalFlags, MessageSearch } from "../ports/MessageSearch.ts"
import type { NarrowParseError, NarrowResolveError } from "../narrow/Narrow.ts"
import { narrowMatches, narrowRange, readableMessage } from "./internal/messageAccess.ts"
import type { Principal } from "../domain/Principal.ts"

/** The `type` values clients send; `channel`/`direct` are the modern names. @category models */
export type SendType = "stream" | "channel" | "private" | "direct"

/** POST /messages, decoded at the edge. @category models */
export interface SendRequest {
  readonly type: SendType
  /**
   * Channel messages: a channel id or name (a one-element list is accepted).
   * Direct messages: user ids, or API email addresses (also comma-separated in one string).
   */
  readonly to: number | string | ReadonlyArray<number | string>
  /** Channel messages only; required there. `(no topic)` and "general chat" mean the empty topic. */
  readonly topic?: string | undefined
  readonly content: string
  /** Marks the message read for its sender; default: by the sending client (Zulip's heuristic). */
  readonly read_by_sender?: boolean | undefined
  /** With `local_id`: the sending client's queue gets `local_message_id` on its `message` event. */
  readonly queue_id?: string | undefined
  readonly local_id?: string | undefined
  /**
   * Undocumented (the `zulip_bots` runner sends it): JSON text of a widget
   * (`{"widget_type": "zform", "extra_data": {...}}`), stored as the
   * message's first submessage instead of what `/poll` or `/todo` would make.
   */
  readonly widget_content?: string | undefined
}

/** Where a validated message goes. @category models */
export type Destination =
  | { readonly _tag: "channel"; readonly channel: Channel; readonly topic: string }
  | { readonly _tag: "direct"; readonly recipients: ReadonlyArray<User>; readonly participants: ReadonlyArray<UserId> }

/**
 * A message that passed every check of a send, ready to be written. The
 * scheduled-message service stores these parts and re-validates at delivery.
 *
 * @category models
 */
export interface ValidatedMessage {
  readonly sender: User
  readonly destination: Destination
  /** Normalised content (trailing whitespace stripped, truncated to the limit). */
  readonly content: string
  readonly read_by_sender: boolean
  /** The widget submessage's content `widget_content` made, if given. */
  readonly widget?: string | undefined
}

/** Options of a send that do not come from the client. @category models */
export interface SendOptions {
  /** The sending client's name (`client` in the message); default "API". */
  readonly client?: string | undefined
  /** Seconds since the epoch; default: now from the Clock. */
  readonly dateSent?: number | undefined
  /**
   * An internal send on behalf of this user (Zulip's `acting_user` with
   * `mark_as_read_for_acting_user`): channel links render as they see them,
   * and the message starts read for them.
   */
  readonly actingUser?: User | undefined
}

/** One send of a batch. @category models */
export interface BatchItem {
  readonly principal: Principal
  readonly request: SendRequest
  readonly options?: SendOptions | undefined
}

/** What a send can fail with. @category errors */
export type SendError =
  | Errors.BadRequest
  | Errors.StreamDoesNotExist
  | Errors.StreamNameDoesNotExist
  | Errors.InvalidUserId
  | Errors.TooManyItems

/**
 * The most recipients (ids or emails) a direct message's `to` may name, as
 * any list parameter. Beyond it: "to is too long (limit: 10000 items)".
 *
 * @category constants
 */
export const MaxRecipients = 10_000

/**
 * Clients that are people at a full user interface: their messages start
 * read for the sender (Zulip's `default_read_by_sender`), unlike messages an
 * integration sends with the user's key.
 */
const interactiveClients = new Set([
  "website",
  "zulipmobile",
  "zulipflutter",
  "zulipandroid",
  "zulipios",
  "zulipdesktop",
  "zulipelectron",
  "zulipterminal",
  "snipe",
  "ios",
  "android"
])

/** @category predicates */
export const defaultReadBySender = (client: string): boolean => {
  const name = client.toLowerCase()
  return interactiveClients.has(name) || name.includes("desktop app")
}

const truncated = "\n[message truncated]"

/** Zulip's normalize_body: trailing whitespace and leading blank lines go; over-long content is cut. */
export const normalizeContent = (raw: string): Effect.Effect<string, Errors.BadRequest> => {
  const body = raw.replace(/\s+$/u, "").replace(/^\n+/, "")
  if (body.length === 0) return Effect.fail(new Errors.BadRequest({ msg: "Message must not be empty" }))
  if (body.includes("\u0000")) return Effect.fail(new Errors.BadRequest({ msg: "Message must not contain null bytes" }))
  return Effect.succeed(
    body.length > MaxMessageLength ? body.slice(0, MaxMessageLength - truncated.length) + truncated : body
  )
}

/**
 * A channel topic as stored: stripped, the empty topic's aliases read as "",
 * cut to the limit with "...".
 */
export const normalizeTopic = (raw: string): Effect.Effect<string, Errors.BadRequest> => {
  const topic = raw.trim()
  if (topic.includes("\u0000")) return Effect.fail(new Errors.BadRequest({ msg: "Topic must not contain null bytes" }))
  for (let i = 0; i < topic.length; i++) {
    const code = topic.charCodeAt(i)
    if (code < 0x20 || code === 0x7f || (code >= 0xfdd0 && code <= 0xfdef) || code === 0xfffe || code === 0xffff) {
      return Effect.fail(new Errors.BadRequest({ msg: `Invalid character in topic, at position ${i + 1}!` }))
    }
  }
  if (topic === NoTopicText || topic === EmptyTopicDisplayName) return Effect.succeed("")
  return Effect.succeed(topic.length > MaxTopicLength ? topic.slice(0, MaxTopicLength - 3) + "..." : topic)
}

/** The channel's topics policy with `inherit` resolved against the organization's. */
const effectiveTopicsPolicy = (channel: Channel, ctx: AccessContext) =>
  channel.topics_policy === "inherit" ? ctx.state.realm.settings.topics_policy : channel.topics_policy

const notAuthorized = (channel: Channel) =>
  new Errors.BadRequest({ msg: `Not authorized to send to channel '${channel.name}'` })

/** Zulip's `access_stream_for_send_message`, on one read of the organization. */
export const checkChannelSend = (ctx: AccessContext, sender: User, channel: Channel): Effect.Effect<void, Errors.BadRequest> => {
  // Zulip's system bots post anywhere but to an archived channel (`access_stream_for_send_message`).
  if (isSystemBot(sender)) return channel.is_archived ? Effect.fail(notAuthorized(channel)) : Effect.void
  const owner = sender.is_bot && sender.bot_owner_id !== null ? ctx.state.usersById.get(sender.bot_owner_id) : undefined
  const mayPost = (user: User) => ctx.state.index.isMemberOfValue(user.id, channel.settings.can_send_message_group)
  if (!mayPost(sender) && !(owner !== undefined && mayPost(owner))) {
    return Effect.fail(new Errors.BadRequest({ msg: "You do not have permission to post in this channel." }))
  }
  if (channel.is_archived) return Effect.fail(notAuthorized(channel))
  if (!channel.invite_only && !isGuest(sender.role)) return Effect.void
  if (isSubscribed(ctx, sender.id, channel.id)) return Effect.void
  if (owner !== undefined && isSubscribed(ctx, owner.id, channel.id)) return Effect.void
  return Effect.fail(notAuthorized(channel))
}

/**
 * Zulip's cross-realm system bots (the Notification Bot, the Welcome Bot:
 * `is_cross_realm_bot_email`): their sends skip the sender's channel access.
 */
const isSystemBot = (user: User): boolean => user.is_bot && isSystemBotEmail(user.delivery_email)

/** Reads `to` of a channel message: one id or name. */
const channelTarget = (to: SendRequest["to"]): Effect.Effect<number | string, Errors.BadRequest> => {
  if (Array.isArray(to)) {
    return to.length === 1
      ? Effect.succeed(to[0]!)
      : Effect.fail(new Errors.BadRequest({ msg: "Cannot send to multiple channels" }))
  }
  return Effect.succeed(to as number | string)
}

/** Reads `to` of a direct message: ids, or emails (also comma-separated in one string). */
const directTargets = (to: SendRequest["to"]): ReadonlyArray<number | string> => {
  if (Array.isArray(to)) return to
  if (typeof to === "number") return [to]
  return (to as string).split(",").map((s) => s.trim()).filter((s) => s.length > 0)
}

/**
 * The client name Zulip records for a request (`client` in messages): the
 * product token of the User-Agent, e.g. "ZulipMobile" for
 * "ZulipMobile/27.200 (Android 14)"; "API" without one.
 *
 * @category parsing
 */
export const clientName = (userAgent: string | undefined): string => {
  const token = (userAgent ?? "").trim().split(/[\s/]/, 1)[0] ?? ""
  return token.length === 0 ? "API" : token.slice(0, 30)
}

/**
 * `to` as sent: JSON (a number, a list, a quoted string) when it parses,
 * otherwise plain text (a channel name, comma-separated emails).
 *
 * @category parsing
 */
export const parseTo = (text: string): SendRequest["to"] => {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value === "number" || typeof value === "string") return value
    if (Array.isArray(value) && value.every((v) => typeof v === "number" || typeof v === "string")) {
      return value as ReadonlyArray<number | string>
    }
  } catch {
    // plain text
  }
  return text
}

/**
 * Where a read starts (`FetchRequest.anchor`): a message id, `newest`,
 * `oldest` or `first_unread`, e.g. `{ _tag: "newest" }`; `parseAnchor`
 * reads the API's text form.
 *
 * @category models
 */
export type { Anchor } from "../ports/MessageSearch.ts"

/** A message as the API shows it to one reader (`FetchResult.messages`, `message` events). @category models */
export type { ApiMessage } from "../views/MessageView.ts"

/** Zulip's stand-in for "after every message" (LARGER_THAN_MAX_MESSAGE_ID). @category constants */
export const LargerThanMaxMessageId = 10_000_000_000_000_000

/**
 * `anchor` as sent: a message id, or `newest`, `oldest`, `first_unread`.
 * Negative ids read as 0 and huge ones as after every message.
 *
 * @category parsing
 */
export const parseAnchor = (text: string): Effect.Effect<Anchor, Errors.InvalidAnchor> => {
  const trimmed = text.trim()
  if (trimmed === "newest" || trimmed === "oldest" || trimmed === "first_unread") return Effect.succeed({ _tag: trimmed })
  if (!/^-?[0-9]+$/.test(trimmed)) return Effect.fail(new Errors.InvalidAnchor())
  const n = Number(trimmed)
  return Effect.succeed({ _tag: "id", id: n < 0 ? 0 : Math.min(n, LargerThanMaxMessageId) })
}

/** GET /messages, decoded at the edge. @category models */
export interface FetchRequest {
  readonly anchor: Anchor
  readonly include_anchor: boolean
  readonly num_before: number
  readonly num_after: number
  /** The JSON value of `narrow` (null or [] for none). */
  readonly narrow: unknown
  readonly apply_markdown: boolean
  readonly client_gravatar: boolean
  readonly allow_empty_topic_name: boolean
}

/** @category models */
export interface FetchResult {
  readonly anchor: number
  readonly found_anchor: boolean
  readonly found_oldest: boolean
  readonly found_newest: boolean
  readonly history_limited: boolean
  readonly messages: ReadonlyArray<ApiMessage>
}

/** @category errors */
export type FetchError = Errors.BadRequest | Errors.AnchorExcludedMidRange | NarrowParseError | NarrowResolveError

/**
 * A message's fields in GET /messages/matches_narrow: its rendered content
 * and HTML-escaped topic, with a search's words highlighted as GET /messages
 * does.
 *
 * @category models
 */
export interface NarrowMatch {
  readonly match_content: string
  readonly match_subject: string
}

/** At most this many messages per GET /messages. @category constants */
export const MaxMessagesPerFetch = 5000

/** What the message view reads, from one read of the organization. */
export const viewContext = (ctx: AccessContext): MessageViewContext => ({
  realm: ctx.state.realm,
  usersById: ctx.state.usersById,
  channelsById: ctx.channelsById
})

/** The message's recipients with their initial flags. */
const recipientFlags = (
  ctx: AccessContext,
  validated: ValidatedMessage,
  rendered: ReturnType<typeof render>,
  alertWordsByUser: ReadonlyMap<UserId, ReadonlyArray<string>>,
  topicParticipants: ReadonlySet<UserId>,
  actingUserId: UserId | undefined
): Map<UserId, number> => {
  const { sender, destination } = validated
  const ids = new Set<UserId>()
  if (destination._tag === "channel") {
    for (const id of ctx.subscribers.get(destination.channel.id) ?? []) {
      if (ctx.state.usersById.get(id)?.is_active === true) ids.add(id)
    }
    // A system bot posting to a private channel it is not in gets no row of it.
    const senderHasAccess = !isSystemBot(sender) || !destination.channel.invite_only ||
      isSubscribed(ctx, sender.id, destination.channel.id)
    if (sender.is_active && senderHasAccess) ids.add(sender.id)
  } else {
    for (const id of destination.participants) ids.add(id)
  }
  const groupMentioned = new Set<UserId>()
  for (const groupId of rendered.mentionedGroupIds) {
    for (const id of ctx.state.index.recursiveMembers(groupId as never)) groupMentioned.add(id)
  }
  const out = new Map<UserId, number>()
  for (const id of ids) {
    let flags = destination._tag === "direct" ? FlagBits.is_private : 0
    if (id === sender.id && validated.read_by_sender) flags |= FlagBits.read
    if (id === actingUserId) flags |= FlagBits.read
    // A muted sender's message arrives read for the muter (Zulip's `mark_as_read` at send).
    if (id !== sender.id && ctx.mutes.get(id)?.has(sender.id) === true) flags |= FlagBits.read
    if (rendered.mentionedUserIds.has(id)) flags |= FlagBits.mentioned
    if (groupMentioned.has(id)) flags |= FlagBits.group_mentioned
    if (rendered.channelWildcard) flags |= FlagBits.stream_wildcard_mentioned
    if (rendered.topicWildcard && (topicParticipants.has(id) || destination._tag === "direct")) {
      flags |= FlagBits.topic_wildcard_mentioned
    }
    if (id !== sender.id && (alertWordsByUser.get(id) ?? []).some((word) => containsWord(rendered.html, word))) {
      flags |= FlagBits.has_alert_word
    }
    out.set(id, flags)
  }
  return out
}

/**
 * Render contexts by organization read and sender. An access read is kept
 * across requests while the organization is unchanged (`AccessCache`), and
 * the renderer keeps its name lookups per context object: so a sender's
 * next message reuses both instead of filtering every user, group and
 * channel again.
 */
const renderContexts = new WeakMap<AccessContext, WeakMap<User, RenderContext>>()

/** What the renderer may link and mention: the sender's view of the organization. */
export const renderContextFor = (ctx: AccessContext, sender: User): RenderContext => {
  let bySender = renderContexts.get(ctx)
  if (bySender === undefined) renderContexts.set(ctx, bySender = new WeakMap())
  let context = bySender.get(sender)
  if (context === undefined) bySender.set(sender, context = buildRenderContext(ctx, sender))
  return context
}

const buildRenderContext = (ctx: AccessContext, sender: User): RenderContext => ({
  users: ctx.state.users.filter((u) => canAccessUser(ctx, sender, u)).map((u) => ({
    id: u.id,
    full_name: u.full_name,
    is_active: u.is_active
  })),
  groups: ctx.state.groups.filter((g) => !g.is_system_group).map((g) => ({
    id: g.id,
    name: g.name,
    deactivated: g.deactivated
  })),
  channels: ctx.channels
    .filter((c) => !c.invite_only || isSubscribed(ctx, sender.id, c.id) || c.is_web_public)
    .map((c) => ({ id: c.id, name: c.name }))
})



const makeMessages = Effect.gen(function*() {
  const loadAccess = yield* makeAccessLoader
  const messages = yield* MessageRepo
  const store = yield* MessageStore
  const attachments = yield* AttachmentRepo
  const channels = yield* ChannelRepo
  const search = yield* MessageSearch
  const subscriptions = yield* SubscriptionRepo
  const events = yield* Events
  const tx = yield* Transactor
  const accessCache = yield* Effect.serviceOption(AccessCache)

  // The principal's organization was read for this request (authentication, or the delivery worker);
  // a send is a request's first read, so the state authentication verified is reused as is.
  const contextOf = (principal: Principal) => accessOfRequest(loadAccess, principal)

  const validateIn = Effect.fnUntraced(function*(
    ctx: AccessContext,
    principal: Principal,
    request: SendRequest,
    options: SendOptions | undefined
  ) {
    const sender = ctx.state.usersById.get(principal.user.id) ?? principal.user
    if (ctx.state.realm.deactivated) {
      return yield* new Errors.BadRequest({ msg: "This organization has been deactivated" })
    }
    if (!sender.is_active) return yield* new Errors.BadRequest({ msg: "Account is deactivated" })
    const content = yield* normalizeContent(request.content)
    const client = options?.client ?? "API"
    let destination: Destination
    if (request.type === "stream" || request.type === "channel") {
      if (request.topic === undefined) return yield* new Errors.BadRequest({ msg: "Missing topic" })
      const target = yield* channelTarget(request.to)
      // Only ids are keys of the map, so any other number finds nothing, as an invalid id should.
      const channel = typeof target === "number"
        ? ctx.channelsById.get(target as ChannelId)
        : ctx.channels.find((c) => c.name.toLowerCase() === target.trim().toLowerCase())
      if (channel === undefined) {
        return yield* (typeof target === "number"
          ? new Errors.StreamDoesNotExist({ stream_id: target })
          : new Errors.StreamNameDoesNotExist({ stream: target }))
      }
      yield* checkChannelSend(ctx, sender, channel)
      const topic = yield* normalizeTopic(request.topic)
      const policy = effectiveTopicsPolicy(channel, ctx)
      if (topic === "" && policy === "disable_empty_topic") {
        return yield* new Errors.BadRequest({
          msg: `Sending messages to the ${EmptyTopicDisplayName} topic is not allowed in this channel.`
        })
      }
      if (topic !== "" && policy === "empty_topic_only") {
        return yield* new Errors.BadRequest({
          msg: `Only the ${EmptyTopicDisplayName} topic is allowed in this channel.`
        })
      }
      destination = { _tag: "channel", channel, topic }
    } else {
      const targets = directTargets(request.to)
      if (targets.length > MaxRecipients) return yield* new Errors.TooManyItems({ var_name: "to", max_items: MaxRecipients })
      if (targets.length === 0) return yield* new Errors.BadRequest({ msg: "Message must have recipients" })
      const recipients: Array<User> = []
      const seen = new Set<UserId>()
      // The API email, as Zulip: a real address hidden from the sender does not match.
      let byEmail: Map<string, User> | undefined
      const findByEmail = (email: string) => {
        if (byEmail === undefined) {
          byEmail = new Map()
          for (const u of ctx.state.users) {
            const key = u.email.toLowerCase()
            if (!byEmail.has(key)) byEmail.set(key, u)
          }
        }
        return byEmail.get(email.trim().toLowerCase())
      }
      for (const target of targets) {
        const user = typeof target === "number" ? ctx.state.usersById.get(target as UserId) : findByEmail(target)
        if (user === undefined) {
          return yield* (typeof target === "number"
            ? new Errors.InvalidUserId({ user_id: target })
            : new Errors.BadRequest({ msg: `Invalid email '${target}'` }))
        }
        if (!user.is_active) return yield* new Errors.BadRequest({ msg: `'${user.email}' is no longer using Zulip.` })
        if (!canAccessUser(ctx, sender, user)) {
          return yield* new Errors.BadRequest({ msg: "You do not have permission to access some of the recipients." })
        }
        if (!seen.has(user.id)) {
          seen.add(user.id)
          recipients.push(user)
        }
      }
      destination = {
        _tag: "direct",
        recipients,
        participants: dmParticipants([...recipients.map((u) => u.id), sender.id])
      }
    }
    const validated: ValidatedMessage = {
      sender,
      destination,
      content,
      read_by_sender: request.read_by_sender ?? defaultReadBySender(client)
    }
    // Zulip checks a widget last, once the message could be sent.
    if (request.widget_content === undefined) return validated
    const widget = widgetFromContent(request.widget_content)
    if ("refusal" in widget) return yield* new Errors.BadRequest({ msg: widget.refusal })
    return { ...validated, widget: widget.content } satisfies ValidatedMessage
  })

  const validate = Effect.fn("Messages.validate")(function*(
    principal: Principal,
    request: SendRequest,
    options?: SendOptions
  ) {
    return yield* validateIn(yield* contextOf(principal), principal, request, options)
  })

  type Item = { readonly validated: ValidatedMessage; readonly request: SendRequest; readonly options: SendOptions | undefined }
  type Prepared = {
    readonly flags: Map<UserId, number>
    readonly row: Insert<Message>
    /** The content of the widget submessage the message makes (`widget_content`, `/poll`, `/todo`), if any. */
    readonly widget: string | undefined
  }

  /** Renders each message and works out its recipients' flags: everything a write needs but the id. */
  const prepare = Effect.fnUntraced(function*(ctx: AccessContext, items: ReadonlyArray<Item>) {
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const words = ctx.alertWords
    const prepared: Array<Prepared> = []
    for (const { options, validated } of items) {
      const { destination, sender } = validated
      const acting = options?.actingUser
      const rendered = render(
        validated.content,
        acting === undefined ? renderContextFor(ctx, sender) : {
          ...renderContextFor(ctx, sender),
          // Zulip links channels as the acting user sees them.
          channels: renderContextFor(ctx, acting).channels
        }
      )
      const topicParticipants = new Set<UserId>()
      if (rendered.topicWildcard && destination._tag === "channel") {
        const ids = yield* messages.topicMessageIds(destination.channel.id, destination.topic, 1000)
        for (const m of yield* messages.findByIds(ids)) topicParticipants.add(m.sender_id)
        topicParticipants.add(sender.id)
      }
      prepared.push({
        flags: recipientFlags(ctx, validated, rendered, words, topicParticipants, acting?.id),
        widget: validated.widget ?? widgetContent(validated.content),
        row: {
          realm_id: ctx.state.realm.id,
          sender_id: sender.id,
          type: destination._tag === "channel" ? "stream" : "private",
          channel_id: destination._tag === "channel" ? destination.channel.id : null,
          topic: destination._tag === "channel" ? destination.topic : "",
          dm_user_ids: destination._tag === "channel" ? [] : destination.participants,
          content: validated.content,
          rendered_content: rendered.html,
          date_sent: options?.dateSent ?? now,
          client: options?.client ?? "API",
          has_attachment: rendered.hasAttachment,
          has_image: rendered.hasImage,
          has_link: rendered.hasLink,
          last_edit_time: null
        }
      })
    }
    return prepared
  })

  const recipientRows = (flags: Map<UserId, number>) => Array.from(flags, ([user_id, f]) => ({ user_id, flags: f }))

  /** A message's `message` events: one per distinct flags value, to the users with those flags. */
  const publicationsOf = (
    view: MessageViewContext,
    message: Message,
    item: Item,
    flags: Map<UserId, number>,
    submessages: ReadonlyArray<Submessage> = []
  ) => {
    const { request, validated } = item
    const api = toApiMessage(
      message,
      view,
      { applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: true },
      undefined,
      { submessages }
    )
    const byFlags = new Map<number, Array<UserId>>()
    for (const [id, f] of flags) {
      let list = byFlags.get(f)
      if (list === undefined) byFlags.set(f, list = [])
      list.push(id)
    }
    const publications: Array<Publication> = []
    for (const [f, userIds] of byFlags) {
      const toSender = userIds.includes(validated.sender.id)
      publications.push({
        event: messageEvent(api, f, {
          rawContent: message.content,
          gravatarNullable: gravatarNullable(validated.sender),
          queueId: toSender ? request.queue_id : undefined,
          localId: toSender ? request.local_id : undefined
        }),
        audience: Audience.users(userIds)
      })
    }
    return publications
  }

  /**
   * Writes validated messages of one organization: one read of it, one
   * alert-word query, one insert of messages and of rows, one batch of events.
   */
  const write = Effect.fnUntraced(function*(ctx: AccessContext, items: ReadonlyArray<Item>) {
    const prepared = yield* prepare(ctx, items)
    const inserted = yield* store.insertMany(prepared.map((p) => ({ message: p.row, recipients: recipientRows(p.flags) })))
    // The uploads each message links are claimed with it.
    for (const message of inserted) yield* claimAttachments(attachments, events.publishAll, message)
    // A widget's first submessage is written with its message, from its sender.
    const widgets: Array<ReadonlyArray<Submessage>> = []
    for (const [i, message] of inserted.entries()) {
      const widget = prepared[i]!.widget
      widgets.push(
        widget === undefined ? [] : [
          yield* store.addSubmessage({
            message_id: message.id,
            sender_id: message.sender_id,
            msg_type: WidgetMsgType,
            content: widget
          })
        ]
      )
    }
    // Zulip records a channel's first message without an event.
    const firsts = new Map<ChannelId, Message>()
    for (const message of inserted) {
      if (message.channel_id !== null && !firsts.has(message.channel_id)) firsts.set(message.channel_id, message)
    }
    for (const [channelId, message] of firsts) {
      const channel = ctx.channelsById.get(channelId)
      if (channel !== undefined && channel.first_message_id === null) {
        yield* channels.update({ ...channel, first_message_id: message.id })
      }
    }
    const view = viewContext(ctx)
    const publications = inserted.flatMap((message, i) =>
      publicationsOf(view, message, items[i]!, prepared[i]!.flags, widgets[i])
    )
    yield* events.publishAll(ctx.state.realm.id, publications)
    return inserted
  })

  /** Stands for the id in a message's events until `MessageStore.send` writes the real one. */
  const idFilledInByTheWrite = messageId(1)

  /**
   * One message whose write is only the message, its rows and its events
   * (not a channel's first message, which also updates the channel): one
   * atomic write (`Events.publishMessage`), without a transaction around it.
   * Its events are built before the id exists; the write fills it in.
   */
  const writeOne = Effect.fnUntraced(function*(ctx: AccessContext, item: Item, accessVersion?: number) {
    const [prepared] = yield* prepare(ctx, [item])
    const { flags, row } = prepared!
    const publications = publicationsOf(viewContext(ctx), { ...row, id: idFilledInByTheWrite }, item, flags)
    const id = yield* events.publishMessage(
      ctx.state.realm.id,
      row,
      recipientRows(flags),
      publications,
      accessVersion === undefined ? undefined : { accessVersion }
    )
    return { ...row, id } satisfies Message
  })

  /** Whether `writeOne` does all `write` would (a widget's submessage needs the message's id first). */
  const writesAlone = (ctx: AccessContext, validated: ValidatedMessage): boolean => {
    if (validated.widget !== undefined || widgetContent(validated.content) !== undefined) return false
    // Claiming the uploads it links needs the message's id first.
    if (linksUploads(validated.content, ctx.state.realm.id)) return false
    if (validated.destination._tag === "direct") return true
    return ctx.channelsById.get(validated.destination.channel.id)?.first_message_id !== null
  }

  /**
   * One send: checked first, as the checks read nothing but the
   * organization, then written on its own when it can be. The organization
   * is read before any transaction begins: nothing is written before the
   * read, so inside it would be no fresher, and outside one an unchanged
   * organization costs no query on PGlite (`AccessCache`).
   *
   * `unchecked`: authenticated from a kept read nobody checked
   * (`Principal.access.unverified`, POST /messages on PostgreSQL). The send
   * is checked against that read and written by one statement that also
   * checks the organization's access version is still the read's, so it
   * costs no statement of its own for the version; `StaleAccess` when it
   * moved (nothing written), also for a refusal the stale read may have
   * caused. A channel's first message also updates the channel, in a
   * transaction: the version is read first, as a checked send reads it.
   */
  const sendWithAccess = Effect.fnUntraced(function*(item: BatchItem, unchecked: NonNullable<Principal["access"]> | undefined) {
    const realmId = item.principal.realm.id
    const ctx = unchecked === undefined ? yield* contextOf(item.principal) : unchecked.value
    const checks = validateIn(ctx, item.principal, item.request, item.options)
    const validated = unchecked === undefined ? yield* checks : yield* checks.pipe(
      Effect.catch((error) => Effect.andThen(checkVersion(realmId, unchecked.version, undefined), Effect.fail(error)))
    )
    const one = { validated, request: item.request, options: item.options }
    if (writesAlone(ctx, validated)) {
      const message = yield* writeOne(ctx, one, unchecked?.version)
      return { id: message.id, message }
    }
    if (unchecked !== undefined) yield* checkVersion(realmId, unchecked.version, undefined)
    const message = (yield* tx.withTransaction(write(ctx, [one])))[0]!
    return { id: message.id, message }
  })

  // A checked principal never meets a moved version here.
  const sendOne = (item: BatchItem) => sendWithAccess(item, undefined).pipe(Effect.catchTag("StaleAccess", Effect.die))

  const sendMany = Effect.fn("Messages.sendMany")(function*(items: ReadonlyArray<BatchItem>) {
    if (items.length === 1) return [yield* Effect.result(sendOne(items[0]!))]
    const byRealm = new Map<RealmId, Array<number>>()
    items.forEach((item, i) => {
      let list = byRealm.get(item.principal.realm.id)
      if (list === undefined) byRealm.set(item.principal.realm.id, list = [])
      list.push(i)
    })
    // Each organization is read before the transaction begins (see `sendOne`).
    const batches: Array<{ readonly ctx: AccessContext; readonly indexes: ReadonlyArray<number> }> = []
    for (const indexes of byRealm.values()) {
      batches.push({ ctx: yield* contextOf(items[indexes[0]!]!.principal), indexes })
    }
    return yield* tx.withTransaction(Effect.gen(function*() {
      const results: Array<Result.Result<{ readonly id: MessageId; readonly message: Message }, SendError>> = new Array(items.length)
      for (const { ctx, indexes } of batches) {
        const valid: Array<Item & { index: number }> = []
        for (const index of indexes) {
          const item = items[index]!
          const checked = yield* Effect.result(validateIn(ctx, item.principal, item.request, item.options))
          if (checked._tag === "Failure") results[index] = Result.fail(checked.failure)
          else valid.push({ index, validated: checked.success, request: item.request, options: item.options })
        }
        const inserted = yield* write(ctx, valid)
        inserted.forEach((message, i) => {
          results[valid[i]!.index] = Result.succeed({ id: message.id, message })
        })
      }
      return results
    }))
  })

  const send = Effect.fn("Messages.send")(function*(principal: Principal, request: SendRequest, options?: SendOptions) {
    return yield* sendOne({ principal, request, options })
  })

  const sendDeferred = Effect.fn("Messages.send")(function*(principal: Principal, request: SendRequest, options?: SendOptions) {
    const access = principal.access
    return access?.unverified === true
      ? yield* sendWithAccess({ principal, request, options }, access)
      : yield* sendOne({ principal, request, options })
  })

  /**
   * Fails with `StaleAccess` when the organization's access version is no
   * longer `version` (a principal's unchecked read, `AccessCache.deferrable`).
   */
  const checkVersion = (realmId: RealmId, version: number, seen: number | null | undefined) =>
    Effect.flatMap(
      seen !== undefined || Option.isNone(accessCache) ? Effect.succeed(seen) : accessCache.value.verify(realmId),
      (current) => (current === version ? Effect.void : Effect.fail(new StaleAccess()))
    )

  /** Rows of a page's messages grouped by message, each group in the order read (no statement for an empty page). */
  const byMessage = <A extends { readonly message_id: MessageId }>(
    ids: ReadonlyArray<MessageId>,
    read: (ids: ReadonlyArray<MessageId>) => Effect.Effect<ReadonlyArray<A>>
  ) =>
    ids.length === 0 ? Effect.succeed(new Map<MessageId, Array<A>>()) : Effect.map(read(ids), (all) => {
      const grouped = new Map<MessageId, Array<A>>()
      for (const row of all) {
        const list = grouped.get(row.message_id)
        if (list === undefined) grouped.set(row.message_id, [row])
        else list.push(row)
      }
      return grouped
    })

  const fetchRange = Effect.fn("Messages.fetch")(function*(
    principal: Principal,
    request: FetchRequest,
    unchecked: NonNullable<Principal["access"]> | undefined
  ) {
    if (request.num_before + request.num_after > MaxMessagesPerFetch) {
      return yield* new Errors.BadRequest({ msg: `Too many messages requested (maximum ${MaxMessagesPerFetch}).` })
    }
    if (request.num_before > 0 && request.num_after > 0 && !request.include_anchor) {
      return yield* new Errors.AnchorExcludedMidRange()
    }
    // `unchecked`: authenticated from a kept read nobody checked for this
    // request. The search's first statement reports the version at its own
    // snapshot, and a moved version (or a failure that stale state may have
    // caused) sends the request back to be authenticated again
    // (`AccessCache.deferrable`).
    const ctx = unchecked === undefined ? yield* contextOf(principal) : unchecked.value
    const ranged = narrowRange(
      { messages, subscriptions, search },
      ctx,
      principal.user,
      request.narrow,
      {
        anchor: request.anchor,
        numBefore: request.num_before,
        numAfter: request.num_after,
        includeAnchor: request.include_anchor
      },
      unchecked !== undefined
    )
    const { narrow, range } = unchecked === undefined ? yield* ranged : yield* ranged.pipe(
      Effect.catch((error) => Effect.andThen(checkVersion(principal.realm.id, unchecked.version, undefined), Effect.fail(error))),
      Effect.tap(({ range }) => checkVersion(principal.realm.id, unchecked.version, range.accessVersion))
    )
    const pageIds = range.messages.map((row) => row.message.id)
    const reactionsById = yield* byMessage(pageIds, messages.reactions)
    const search_ = narrow.terms.find((t) => t._tag === "Search")
    const searchWords = search_ === undefined ? undefined : lexemes(search_.query)
    const options = {
      applyMarkdown: request.apply_markdown,
      clientGravatar: request.client_gravatar,
      allowEmptyTopicName: request.allow_empty_topic_name
    }
    const submessages = yield* byMessage(pageIds, store.submessages)
    return {
      anchor: range.anchor,
      found_anchor: range.found_anchor,
      found_oldest: range.found_oldest,
      found_newest: range.found_newest,
      history_limited: false,
      messages: range.messages.map((row) => {
        const view = toApiMessage(row.message, viewContext(ctx), options, row.flags, {
          reactions: reactionsById.get(row.message.id),
          submessages: submessages.get(row.message.id)
        })
        return searchWords === undefined ? view : { ...view, ...searchMatches(row.message, searchWords) }
      })
    } satisfies FetchResult
  })

  // A checked principal never meets a moved version here.
  const fetch = (principal: Principal, request: FetchRequest): Effect.Effect<FetchResult, FetchError> =>
    fetchRange(principal, request, undefined).pipe(Effect.catchTag("StaleAccess", Effect.die))

  const fetchDeferred = (principal: Principal, request: FetchRequest): Effect.Effect<FetchResult, FetchError | StaleAccess> =>
    principal.access?.unverified === true ? fetchRange(principal, request, principal.access) : fetch(principal, request)

  const getById = Effect.fn("Messages.getById")(function*(
    principal: Principal,
    id: number,
    options: { readonly apply_markdown: boolean; readonly allow_empty_topic_name: boolean }
  ) {
    const ctx = yield* contextOf(principal)
    const found = yield* readableMessage(messages, ctx, principal.user, id)
    const { message } = found
    const flags = found.flags ?? HistoricalFlags
    return {
      message: toApiMessage(message, viewContext(ctx), {
        applyMarkdown: options.apply_markdown,
        clientGravatar: false,
        allowEmptyTopicName: options.allow_empty_topic_name
      }, flags, { reactions: yield* messages.reactions([message.id]), submessages: yield* store.submessages([message.id]) }),
      raw_content: message.content
    }
  })

  const matchesNarrow = Effect.fn("Messages.matchesNarrow")(function*(
    principal: Principal,
    ids: ReadonlyArray<number>,
    rawNarrow: unknown
  ) {
    const ctx = yield* contextOf(principal)
    const { narrow, rows } = yield* narrowMatches({ messages, subscriptions, search }, ctx, principal.user, rawNarrow, ids)
    const searchTerm = narrow.terms.find((t) => t._tag === "Search")
    // Without a search, no word is highlighted: the rendered content and the escaped topic.
    const words = searchTerm === undefined ? [] : lexemes(searchTerm.query)
    const matches: Record<string, NarrowMatch> = {}
    for (const row of rows) matches[String(row.message.id)] = searchMatches(row.message, words)
    return matches
  })

  // POST /messages/render: the sender's view of the organization, nothing written.
  const renderPreview = Effect.fn("Messages.render")(function*(principal: Principal, content: string) {
    const ctx = yield* contextOf(principal)
    const sender = ctx.state.usersById.get(principal.user.id) ?? principal.user
    return render(content, renderContextFor(ctx, sender)).html
  })

  return Messages.of({
    validate,
    send,
    sendDeferred,
    sendMany,
    fetch,
    fetchDeferred,
    getById,
    matchesNarrow,
    render: renderPreview
  })
})

/** @category services */
export class Messages extends Context.Service<Messages, {
  /** Every check of a send, without writing anything. */
  validate(principal: Principal, request: SendRequest, options?: SendOptions): Effect.Effect<ValidatedMessage, SendError>
  /** POST /messages: validates, writes the message and its rows in one transaction, publishes after commit. */
  send(
    principal: Principal,
    request: SendRequest,
    options?: SendOptions
  ): Effect.Effect<{ readonly id: MessageId; readonly message: Message }, SendError>
  /**
   * POST /messages for a principal that may be authenticated from a kept
   * read nobody checked (`Principal.access.unverified`): `StaleAccess`,
   * with nothing written, when the organization's access moved since;
   * authenticate again and send with `send`.
   */
  sendDeferred(
    principal: Principal,
    request: SendRequest,
    options?: SendOptions
  ): Effect.Effect<{ readonly id: MessageId; readonly message: Message }, SendError | StaleAccess>
  /**
   * Several sends in one transaction (the scheduled-message worker's
   * batches): each item is validated on its own and fails alone; the valid
   * ones are written together. Results are in the order given.
   */
  sendMany(
    items: ReadonlyArray<BatchItem>
  ): Effect.Effect<ReadonlyArray<Result.Result<{ readonly id: MessageId; readonly message: Message }, SendError>>>
  /** GET /messages. */
  fetch(principal: Principal, request: FetchRequest): Effect.Effect<FetchResult, FetchError>
  /**
   * GET /messages for a principal that may be authenticated from a kept
   * read nobody checked (`Principal.access.unverified`): `StaleAccess` when
   * the organization's access moved since; authenticate again and retry.
   */
  fetchDeferred(principal: Principal, request: FetchRequest): Effect.Effect<FetchResult, FetchError | StaleAccess>
  /** GET /messages/{message_id}. */
  getById(
    principal: Principal,
    id: number,
    options: { readonly apply_markdown: boolean; readonly allow_empty_topic_name: boolean }
  ): Effect.Effect<{ readonly message: ApiMessage; readonly raw_content: string }, Errors.InvalidMessages>
  /**
   * GET /messages/matches_narrow: of `ids`, those the user received that
   * match the narrow, by id, with their search highlights.
   */
  matchesNarrow(
    principal: Principal,
    ids: ReadonlyArray<number>,
    narrow: unknown
  ): Effect.Effect<Readonly<Record<string, NarrowMatch>>, NarrowParseError | NarrowResolveError>
  /** POST /messages/render: the HTML `content` would have as the user's message; nothing is stored or sent. */
  render(principal: Principal, content: string): Effect.Effect<string>
}>()("teamchat/core/services/Messages") {
  static readonly layer = Layer.effect(Messages, makeMessages)
}
