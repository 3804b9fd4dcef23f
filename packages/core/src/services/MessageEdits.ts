/**
 * Editing messages: PATCH /messages/{message_id} (content edits, topic moves,
 * resolving, moves to another channel) and GET /messages/{message_id}/history.
 *
 * An edit reads the message under its row lock inside the request's
 * transaction, so two edits of one message run one after the other: each
 * sees the other's content (`prev_content_sha256`), each adds its own
 * history entry, and their events are logged in commit order. A topic move
 * of any size is a fixed number of statements: the topic's ids, one update
 * of the messages (with their history), one read of who has rows.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Audience } from "../domain/Event.ts"
import type { EditHistoryEntry, Message } from "../domain/Message.ts"
import { EmptyTopicDisplayName, flagNames, FlagBits, MaxMessageLength } from "../domain/Message.ts"
import { ChannelId, MessageId } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import type { Principal } from "../domain/Principal.ts"
import type { User } from "../domain/User.ts"
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import * as Errors from "../errors/Errors.ts"
import { render } from "../markdown/Markdown.ts"
import { contentEditRefusal } from "../permissions/MessageEditing.ts"
import { EventStore } from "../ports/EventStore.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import { ChannelRepo, MessageRepo, RealmRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { highlightHtmlDifferences } from "../views/HtmlDiff.ts"
import { displayTopic, isMeMessage } from "../views/MessageView.ts"
import { Events } from "./events/Events.ts"
import type { Publication } from "./events/Events.ts"
import { makeAccessLoader } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import { canReadChannelHistory, modifiableMessage, readableMessage } from "./internal/messageAccess.ts"
import { accessInput } from "./internal/access.ts"
import { hasContentAccess } from "../permissions/ChannelAccess.ts"
import { channelMoveAccess } from "./internal/channelMoveAccess.ts"
import { deleteMessagePublications, deleteMessages } from "./internal/messageDeletion.ts"
import { Messages, normalizeTopic, renderContextFor } from "./Messages.ts"
import { InternalClient, NotificationBot } from "./NotificationBot.ts"
import { mutedTopicsList } from "./Muting.ts"
import { relinkAttachments } from "./internal/attachments.ts"
import type { ApiAttachment } from "../domain/Attachment.ts"
import { AttachmentRepo } from "../ports/AttachmentRepo.ts"
import { MutingRepo } from "../ports/MutingRepo.ts"
import { VisibilityPolicy } from "../domain/Muting.ts"
import type { Channel } from "../domain/Channel.ts"
import {
  channelMoveLimitSeconds,
  channelMoveRefusal,
  EditLimitGraceSeconds,
  EditRefusals,
  isResolveOrUnresolve,
  mayPostIn,
  movesWithoutTimeLimit,
  ResolvedTopicPrefix,
  topicMoveRefusal
} from "../permissions/MessageEditing.ts"
import {
  isResolveNotice,
  movedAwayNotice,
  movedHereNotice,
  resolveNotice,
  silentMention,
  topicLink,
  topicNarrow
} from "../views/MoveNotices.ts"

/** How far an edit of a channel message reaches. @category models */
export type PropagateMode = "change_one" | "change_later" | "change_all"

/** PATCH /messages/{message_id}, decoded at the edge. @category models */
export interface EditRequest {
  readonly content?: string | undefined
  /** The new topic (`topic`, or legacy `subject`); "general chat" and "(no topic)" mean the empty topic. */
  readonly topic?: string | undefined
  /** The channel to move the message (and, with `propagate_mode`, its topic) to. */
  readonly stream_id?: number | undefined
  /** Default false. */
  readonly send_notification_to_old_thread?: boolean | undefined
  /** Default true. */
  readonly send_notification_to_new_thread?: boolean | undefined
  /** Default `change_one`; any other text is refused with Zulip's error. */
  readonly propagate_mode?: string | undefined
  readonly prev_content_sha256?: string | undefined
}

/** @category models */
export interface EditResult {
  /** The editor's uploads whose last link this edit removed (`relinkAttachments`). */
  readonly detached_uploads: ReadonlyArray<ApiAttachment>
}

/** One state of a message in GET /messages/{message_id}/history, oldest first. @category models */
export interface HistoryEntry {
  readonly topic: string
  readonly content: string
  readonly rendered_content: string
  readonly timestamp: number
  readonly user_id: number
  readonly prev_content?: string
  readonly prev_rendered_content?: string
  readonly content_html_diff?: string
  readonly prev_topic?: string
  readonly prev_stream?: number
  readonly stream?: number
}

/** What an edit can fail with. @category errors */
export type EditError =
  | Errors.BadRequest
  | Errors.InvalidChannelId
  | Errors.InvalidMessages
  | Errors.PrevContentMismatch
  | Errors.MoveTimeLimitExceeded

/** The most messages one topic move reads and moves (each in one statement). @category constants */
export const MaxTopicMove = 1_000_000

/**
 * How long a resolve or unresolve notice can be undone by deleting it
 * (Zulip's `RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS`, 60 in production).
 *
 * @category constants
 */
export const ResolveTopicUndoGracePeriodSeconds = 60

/** The edit service's settings. @category models */
export interface MessageEditsConfig {
  /** Seconds during which undoing a resolve (or an unresolve) deletes its notice instead of posting another. */
  readonly resolveTopicUndoGracePeriodSeconds: number
}

/** @category references */
export const MessageEditsConfig = Context.Reference<MessageEditsConfig>("teamchat/core/services/MessageEdits/Config", {
  defaultValue: () => ({ resolveTopicUndoGracePeriodSeconds: ResolveTopicUndoGracePeriodSeconds })
})

const propagateModes: ReadonlySet<string> = new Set(["change_one", "change_later", "change_all"])

/** What an emptied message reads as (Zulip stores it so, for channel messages and DMs alike). */
const DeletedContent = "(deleted)"

/** Zulip's normalisation of edited content: as a send's, but empty is "(deleted)". */
const normalizeEditedContent = (raw: string): string => {
  const body = raw.replace(/\s+$/u, "").replace(/^\n+/, "")
  if (body.length === 0) return DeletedContent
  const truncated = "\n[message truncated]"
  return body.length > MaxMessageLength ? body.slice(0, MaxMessageLength - truncated.length) + truncated : body
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

/** The channel a move may go to: one the editor has content access to (Zulip's `access_stream_by_id`), not archived. */
const destinationChannel = (ctx: AccessContext, editor: User, id: number): Channel | undefined => {
  const channel = Option.getOrUndefined(ChannelId.makeOption(id).pipe(Option.flatMapNullishOr((c) => ctx.channelsById.get(c))))
  if (channel === undefined || channel.is_archived || !hasContentAccess(accessInput(ctx, editor, channel))) return undefined
  return channel
}

/**
 * Zulip's `get_visibility_policy_after_merge`: the more visible of two
 * policies (followed, unmuted, none, muted, in that order) when a topic is
 * moved into one that has messages.
 */
const policyAfterMerge = (orig: VisibilityPolicy, target: VisibilityPolicy): VisibilityPolicy => {
  const both = [orig, target]
  if (both.includes(VisibilityPolicy.followed)) return VisibilityPolicy.followed
  if (both.includes(VisibilityPolicy.unmuted)) return VisibilityPolicy.unmuted
  if (both.includes(VisibilityPolicy.inherit)) return VisibilityPolicy.inherit
  return VisibilityPolicy.muted
}

/** The mention bits a rendering gives one user (the rest of a row's flags stay). */
const MentionFlagMask = FlagBits.mentioned | FlagBits.stream_wildcard_mentioned | FlagBits.topic_wildcard_mentioned |
  FlagBits.group_mentioned

/** @category services */
export class MessageEdits extends Context.Service<MessageEdits, {
  /** PATCH /messages/{message_id}. */
  edit(principal: Principal, id: number, request: EditRequest): Effect.Effect<EditResult, EditError>
  /** GET /messages/{message_id}/history. */
  history(
    principal: Principal,
    id: number,
    options: { readonly allow_empty_topic_name: boolean }
  ): Effect.Effect<ReadonlyArray<HistoryEntry>, Errors.InvalidMessages | Errors.EditHistoryDisabled>
}>()("teamchat/core/services/MessageEdits") {
  static readonly layer = Layer.effect(
    MessageEdits,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const messages = yield* MessageRepo
      const store = yield* MessageStore
      const realms = yield* RealmRepo
      const events = yield* Events
      const eventLog = yield* EventStore
      const tx = yield* Transactor
      const bot = yield* NotificationBot
      const sends = yield* Messages
      const muting = yield* MutingRepo
      const attachments = yield* AttachmentRepo

      /**
       * Whether the topic still has messages `user` can see (Zulip's
       * `bulk_access_stream_messages_query`): any, with the channel's history
       * readable; else one of the user's rows.
       */
      const hasVisibleMessages = (ctx: AccessContext, user: User, channel: Channel, topic: string) =>
        canReadChannelHistory(ctx, user, channel.id)
          ? Effect.map(messages.topicMessageIds(channel.id, topic, 1), (ids) => ids.length > 0)
          : messages.userHasTopic(user.id, channel.id, topic)

      /**
       * Topic policies follow a move of the whole topic (Zulip's `UserTopic`
       * handling in `do_update_message`): each user's policy of the old topic
       * goes to the new one, merged with theirs there when it has messages
       * (the more visible wins); users left without access to the
       * destination lose theirs. The `user_topic` events (and `muted_topics`
       * where the new topic's policy changed), in Zulip's order.
       */
      const moveTopicPolicies = Effect.fnUntraced(function*(input: {
        readonly ctx: AccessContext
        readonly origin: Channel
        readonly originTopic: string
        readonly target: Channel
        readonly targetTopic: string
        readonly targetHadMessages: boolean
        /** Users who cannot read the moved messages any more (a move to another channel). */
        readonly losingAccess: ReadonlySet<UserId>
        readonly now: number
      }) {
        const { ctx, origin, originTopic, target, targetTopic, now } = input
        // The log's lock before the policy rows (a `change_one` move has not taken it yet), as POST /user_topics takes
        // it: a policy written at once is read here, or written after this move commits.
        yield* eventLog.lockLog(ctx.state.realm.id)
        const publications: Array<Publication> = []
        const userTopicEvent = (channel: Channel, topic: string, policy: VisibilityPolicy) =>
          ({ type: "user_topic", stream_id: channel.id, topic_name: topic, last_updated: now, visibility_policy: policy }) as const
        const mutedTopics = Effect.fnUntraced(function*(user: UserId) {
          return { type: "muted_topics", muted_topics: mutedTopicsList(ctx, yield* muting.listTopics(user)) } as const
        })
        const originPolicies = new Map<UserId, VisibilityPolicy>()
        const cut: Array<UserId> = []
        for (const row of yield* muting.topicPolicies(origin.id, originTopic)) {
          const user = ctx.state.usersById.get(row.user_id)
          const keepsAccess = origin.id === target.id ||
            (!input.losingAccess.has(row.user_id) && user !== undefined &&
              hasContentAccess(accessInput(ctx, user, target)))
          if (keepsAccess) originPolicies.set(row.user_id, row.visibility_policy)
          else cut.push(row.user_id)
        }
        // No policy in a channel the user cannot read: theirs goes, as if the topic were deleted.
        for (const user of yield* muting.clearTopicPolicies(cut, origin.id, originTopic)) {
          publications.push(
            { event: yield* mutedTopics(user), audience: Audience.users([user]) },
            { event: userTopicEvent(origin, originTopic, VisibilityPolicy.inherit), audience: Audience.users([user]) }
          )
        }
        const targetPolicies = new Map<UserId, VisibilityPolicy>()
        for (const row of yield* muting.topicPolicies(target.id, targetTopic)) targetPolicies.set(row.user_id, row.visibility_policy)
        const users = [...new Set([...originPolicies.keys(), ...targetPolicies.keys()])].sort((a, b) => a - b)
        const next = new Map<VisibilityPolicy, Array<UserId>>()
        for (const user of users) {
          const from = originPolicies.get(user) ?? VisibilityPolicy.inherit
          const to = targetPolicies.get(user) ?? VisibilityPolicy.inherit
          const policy = input.targetHadMessages ? policyAfterMerge(from, to) : from
          if (policy === to) continue
          let list = next.get(policy)
          if (list === undefined) next.set(policy, list = [])
          list.push(user)
        }
        const leaving = users.filter((user) => (originPolicies.get(user) ?? VisibilityPolicy.inherit) !== VisibilityPolicy.inherit)
        const cleared = new Set(yield* muting.clearTopicPolicies(leaving, origin.id, originTopic))
        const changed = new Map<UserId, VisibilityPolicy>()
        for (const [policy, list] of next) {
          const written = policy === VisibilityPolicy.inherit
            ? yield* muting.clearTopicPolicies(list, target.id, targetTopic)
            : yield* muting.setTopicPolicies(target.id, targetTopic, list.map((user_id) => ({ user_id, visibility_policy: policy })), now)
          for (const user of written) changed.set(user, policy)
        }
        for (const user of users) {
          const audience = Audience.users([user])
          if (cleared.has(user)) {
            publications.push({ event: userTopicEvent(origin, originTopic, VisibilityPolicy.inherit), audience })
          }
          const policy = changed.get(user)
          if (policy !== undefined) {
            publications.push(
              { event: yield* mutedTopics(user), audience },
              { event: userTopicEvent(target, targetTopic, policy), audience }
            )
          }
        }
        return publications
      })
      // What the shared deletion reads and writes, bound once.
      const deletionContext = yield* Effect.context<MessageRepo | MessageStore | ChannelRepo>()

      /**
       * Zulip's undo grace: when the topic's last message is a resolve or
       * unresolve notice of the Notification Bot younger than the grace period,
       * undoing deletes it (with `delete_message`) instead of posting another.
       */
      const undoResolveNotice = Effect.fnUntraced(function*(
        ctx: AccessContext,
        actorId: UserId,
        channel: Channel,
        topic: string,
        now: number
      ) {
        const [lastId] = yield* messages.topicMessageIds(channel.id, topic, 1)
        if (lastId === undefined) return false
        const last = yield* messages.findById(lastId)
        if (last === undefined || !isResolveNotice(last.content)) return false
        const notificationBot = yield* bot.bot(ctx.state.realm.id)
        if (last.sender_id !== notificationBot.id) return false
        const { resolveTopicUndoGracePeriodSeconds } = yield* MessageEditsConfig
        if (now - last.date_sent > resolveTopicUndoGracePeriodSeconds) return false
        const { publications } = yield* Effect.provideContext(
          deleteMessages({ ctx, actorId, channel, messages: [last] }),
          deletionContext
        )
        yield* events.publishAll(ctx.state.realm.id, publications)
        return true
      })

      /** Who gets an action's events: everyone with a row, and a shared-history channel's subscribers (with flags `read`). */
      const audienceFlags = Effect.fnUntraced(function*(ctx: AccessContext, message: Message) {
        const flags = new Map<UserId, number>()
        for (const row of yield* messages.recipients(message.id)) flags.set(row.user_id, row.flags)
        if (message.channel_id !== null && ctx.channelsById.get(message.channel_id)?.history_public_to_subscribers === true) {
          for (const id of ctx.subscribers.get(message.channel_id) ?? []) {
            if (!flags.has(id) && ctx.state.usersById.get(id)?.is_active === true) flags.set(id, FlagBits.read)
          }
        }
        return flags
      })

      /** Who hears of a move to another channel: everyone with a row after it, and the subscribers who are told. */
      const channelMoveAudienceFlags = Effect.fnUntraced(function*(id: MessageId, subscribersTold: ReadonlyArray<UserId>) {
        const flags = new Map<UserId, number>()
        for (const row of yield* messages.recipients(id)) flags.set(row.user_id, row.flags)
        for (const user of subscribersTold) if (!flags.has(user)) flags.set(user, FlagBits.read)
        return flags
      })

      /** A channel message's link, as notices give it. */
      const messageUrl = (realmUrl: string, channel: Channel, topic: string, id: number) =>
        `${realmUrl}/${topicNarrow(channel.id, channel.name, topic)}/near/${id}`

      const edit = Effect.fn("MessageEdits.edit")(function*(principal: Principal, id: number, request: EditRequest) {
        const propagateMode = (request.propagate_mode ?? "change_one") as PropagateMode
        if (!propagateModes.has(propagateMode)) return yield* new Errors.BadRequest({ msg: "Invalid propagate_mode" })
        const messageId = Option.getOrUndefined(MessageId.makeOption(id))
        if (messageId === undefined) return yield* new Errors.InvalidMessages()
        return yield* tx.withTransaction(Effect.gen(function*() {
          const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
          const ctx = yield* loadAccess(realm)
          const editor = ctx.state.usersById.get(principal.user.id) ?? principal.user
          // The row lock first: a concurrent edit of this message waits here and then sees this one's result.
          const locked = yield* messages.findByIdForUpdate(messageId)
          if (locked === undefined) return yield* new Errors.InvalidMessages()
          // A move beyond this message reads its topic next: with the event log's lock (rows first, then the log, the
          // documented order) a send to the topic commits before the read, and moves, or after this move.
          if (propagateMode !== "change_one") yield* eventLog.lockLog(realm.id)
          const found = yield* modifiableMessage(messages, ctx, editor, locked)
          if (found === undefined) return yield* new Errors.InvalidMessages()
          const message = locked
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          if (request.content !== undefined) {
            const refusal = contentEditRefusal(realm.settings, editor.id, message, now)
            if (refusal !== undefined) return yield* new Errors.BadRequest({ msg: refusal })
          }
          // A topic equal to the current one changes nothing.
          let newTopic = request.topic === undefined ? undefined : yield* normalizeTopic(request.topic)
          if (newTopic === message.topic) newTopic = undefined
          // The message's own channel is no move.
          const newChannelId = request.stream_id === message.channel_id ? undefined : request.stream_id
          if (request.content === undefined && newTopic === undefined && newChannelId === undefined) {
            return yield* new Errors.BadRequest({ msg: "Nothing to change" })
          }
          if (message.channel_id === null && newChannelId !== undefined) {
            return yield* new Errors.BadRequest({ msg: EditRefusals.dmToChannel })
          }
          if (message.channel_id === null && newTopic !== undefined) {
            return yield* new Errors.BadRequest({ msg: "Direct messages cannot have topics." })
          }
          if (propagateMode !== "change_one" && newTopic === undefined && newChannelId === undefined) {
            return yield* new Errors.BadRequest({ msg: "Invalid propagate_mode without topic edit" })
          }
          if (newTopic === ResolvedTopicPrefix.trim() || newTopic === ResolvedTopicPrefix + EmptyTopicDisplayName) {
            return yield* new Errors.BadRequest({ msg: "General chat cannot be marked as resolved" })
          }
          if (request.content !== undefined && newChannelId !== undefined) {
            return yield* new Errors.BadRequest({ msg: EditRefusals.contentWithChannel })
          }
          // The destination: one the editor can read (else Zulip's "Invalid channel ID"), not archived.
          const destination = newChannelId === undefined ? undefined : destinationChannel(ctx, editor, newChannelId)
          if (newChannelId !== undefined && destination === undefined) return yield* new Errors.InvalidChannelId()
          if (request.prev_content_sha256 !== undefined && request.prev_content_sha256 !== sha256(message.content)) {
            return yield* new Errors.PrevContentMismatch()
          }
          const channel = message.channel_id === null ? undefined : ctx.channelsById.get(message.channel_id)
          const resolving = newTopic !== undefined && isResolveOrUnresolve(message.topic, newTopic)
          // Realm-wide, everyone may resolve topics (the organization's can_resolve_topics_group is role:everyone).
          if (newTopic !== undefined && channel !== undefined && !resolving) {
            const refusal = topicMoveRefusal(realm.settings, {
              role: editor.role,
              isMemberOf: (value) => ctx.state.index.isMemberOfValue(editor.id, value)
            }, channel, message, now)
            if (refusal !== undefined) return yield* new Errors.BadRequest({ msg: refusal })
          }
          const mover = { role: editor.role, isMemberOf: (value: GroupSettingValue) => ctx.state.index.isMemberOfValue(editor.id, value) }
          if (destination !== undefined && channel !== undefined) {
            const refusal = channelMoveRefusal(realm.settings, mover, channel, message, now)
            if (refusal !== undefined) return yield* new Errors.BadRequest({ msg: refusal })
            const isMemberOf = (userId: number, value: GroupSettingValue) => ctx.state.index.isMemberOfValue(userId as UserId, value)
            if (!mayPostIn(destination, isMemberOf, editor.id, editor.is_bot ? editor.bot_owner_id : null)) {
              return yield* new Errors.BadRequest({ msg: EditRefusals.cannotPost })
            }
          }
          // Where the messages go: the destination channel (or their own) and the new topic (or their own).
          const target = destination ?? channel
          const targetTopic = newTopic ?? message.topic
          const moves = newTopic !== undefined || destination !== undefined

          // Which messages move: the target, the later ones of its topic, or the whole topic.
          let moving: ReadonlyArray<MessageId> = []
          if (moves && channel !== undefined && target !== undefined) {
            if (propagateMode === "change_one") moving = [message.id]
            else {
              const inTopic = yield* messages.topicMessageIds(channel.id, message.topic, MaxTopicMove)
              let ids = propagateMode === "change_later" ? inTopic.filter((m) => m >= message.id) : inTopic
              // Protected history: only what the mover received.
              if (!channel.history_public_to_subscribers) {
                const mine = new Set((yield* messages.userMessages(editor.id, ids)).map((r) => r.message_id))
                ids = ids.filter((m) => mine.has(m))
              }
              moving = [...ids].sort((a, b) => a - b)
            }
            // The stricter of the limits that apply (Zulip checks the topic's and the channel's).
            const limits = [
              newTopic === undefined ? null : realm.settings.move_messages_within_stream_limit_seconds,
              destination === undefined ? null : channelMoveLimitSeconds(realm.settings)
            ].filter((l): l is number => l !== null)
            const limit = limits.length === 0 ? null : Math.min(...limits)
            if (propagateMode === "change_all" && !resolving && !movesWithoutTimeLimit(editor.role) && limit !== null) {
              const dated = yield* messages.findByIds(moving)
              const allowed = dated.filter((m) => now - m.date_sent <= limit + EditLimitGraceSeconds).map((m) => m.id)
              if (allowed.length < dated.length) {
                return yield* new Errors.MoveTimeLimitExceeded({
                  first_message_id_allowed_to_move: allowed.length === 0 ? null : Math.min(...allowed),
                  total_messages_in_topic: dated.length,
                  total_messages_allowed_to_move: allowed.length
                })
              }
            }
            const policy = target.topics_policy === "inherit" ? realm.settings.topics_policy : target.topics_policy
            if (targetTopic === "" && policy === "disable_empty_topic") {
              return yield* new Errors.BadRequest({
                msg: `Sending messages to the ${EmptyTopicDisplayName} is not allowed in this channel.`
              })
            }
            if (targetTopic !== "" && policy === "empty_topic_only") {
              return yield* new Errors.BadRequest({ msg: `Only the ${EmptyTopicDisplayName} topic is allowed in this channel.` })
            }
          }

          // The writes: the target (content, and its topic), then the rest of the move in one statement.
          const content = request.content === undefined ? undefined : normalizeEditedContent(request.content)
          const sender = ctx.state.usersById.get(message.sender_id) ?? editor
          const rendered = content === undefined ? undefined : render(content, renderContextFor(ctx, sender))
          const moveEntry = {
            ...(newTopic === undefined ? {} : { prev_topic: message.topic, topic: newTopic }),
            ...(destination === undefined || channel === undefined ? {} : { prev_stream: channel.id, stream: destination.id })
          }
          const lastMoved = destination !== undefined || (newTopic !== undefined && !resolving) ? now : undefined
          const newTopicHadMessages = moves && target !== undefined &&
            (yield* messages.topicMessageIds(target.id, targetTopic, 1)).length > 0
          let detached: ReadonlyArray<ApiAttachment> = []
          if (content !== undefined && rendered !== undefined) {
            const entry: EditHistoryEntry = {
              user_id: editor.id,
              timestamp: now,
              prev_content: message.content,
              prev_rendered_content: message.rendered_content,
              ...moveEntry
            }
            yield* store.edit(message.id, {
              content,
              rendered_content: rendered.html,
              has_attachment: rendered.hasAttachment,
              has_image: rendered.hasImage,
              has_link: rendered.hasLink,
              last_edit_time: now,
              ...(newTopic === undefined ? {} : { topic: newTopic }),
              ...(lastMoved === undefined ? {} : { last_moved_time: lastMoved }),
              edit_history: [entry, ...(message.edit_history ?? [])]
            })
            detached = yield* relinkAttachments(attachments, events.publishAll, { ...message, content }, message.content, editor.id)
          }
          if (moves && target !== undefined) {
            const rest = content === undefined ? moving : moving.filter((m) => m !== message.id)
            yield* store.move(rest, {
              channel_id: target.id,
              topic: targetTopic,
              entry: { user_id: editor.id, timestamp: now, ...moveEntry },
              last_moved_time: lastMoved
            })
          }

          // Another channel: rows go from those who leave the messages behind and come to those who only now receive them.
          const access = destination === undefined || channel === undefined
            ? undefined
            : channelMoveAccess(ctx, channel, destination)
          if (access !== undefined) {
            if (access.losingRows.length > 0) yield* store.deleteUserMessages(moving, access.losingRows)
            if (access.gainingRows.length > 0) {
              yield* store.insertUserMessages(access.gainingRows.flatMap((user_id) =>
                moving.map((message_id) => ({ user_id, message_id, flags: FlagBits.read }))
              ))
            }
          }

          // Who hears of it: everyone with a row for a changed message, and a shared-history channel's subscribers.
          const flags = access === undefined
            ? yield* audienceFlags(ctx, message)
            : yield* channelMoveAudienceFlags(message.id, access.subscribersTold)
          if (moving.length > 1) {
            for (const user of yield* messages.usersWithRows(moving)) if (!flags.has(user)) flags.set(user, FlagBits.read)
          }
          if (rendered !== undefined) {
            // Mentions follow the new content on every row (Zulip's update of the mention flags).
            const rows = yield* messages.recipients(message.id)
            const groupMentioned = new Set<UserId>()
            for (const groupId of rendered.mentionedGroupIds) {
              for (const member of ctx.state.index.recursiveMembers(groupId as never)) groupMentioned.add(member)
            }
            // A channel topic's wildcard reaches the topic's participants, as the send worked out: kept as it is.
            const keepsTopicWildcard = rendered.topicWildcard && message.type === "stream"
            for (const row of rows) {
              let bits = 0
              if (rendered.mentionedUserIds.has(row.user_id)) bits |= FlagBits.mentioned
              if (groupMentioned.has(row.user_id)) bits |= FlagBits.group_mentioned
              if (rendered.channelWildcard) bits |= FlagBits.stream_wildcard_mentioned
              if (rendered.topicWildcard && message.type === "private") bits |= FlagBits.topic_wildcard_mentioned
              if (keepsTopicWildcard) bits |= row.flags & FlagBits.topic_wildcard_mentioned
              const next = (row.flags & ~MentionFlagMask) | bits
              if (next === row.flags) continue
              const added = next & ~row.flags
              const removed = row.flags & ~next
              if (added !== 0) yield* store.updateFlags(row.user_id, [message.id], added, true)
              if (removed !== 0) yield* store.updateFlags(row.user_id, [message.id], removed, false)
              flags.set(row.user_id, next)
            }
          }

          const byFlags = new Map<number, Array<UserId>>()
          for (const [user, f] of flags) {
            let list = byFlags.get(f)
            if (list === undefined) byFlags.set(f, list = [])
            list.push(user)
          }
          const changed = {
            type: "update_message",
            user_id: editor.id,
            edit_timestamp: now,
            message_id: message.id,
            message_ids: moves ? moving : [message.id],
            rendering_only: false,
            ...(content === undefined || rendered === undefined ? {} : {
              orig_content: message.content,
              orig_rendered_content: message.rendered_content,
              content,
              rendered_content: rendered.html,
              is_me_message: isMeMessage(content)
            }),
            ...(channel === undefined ? {} : { stream_id: channel.id, stream_name: channel.name }),
            ...(moves ? { propagate_mode: propagateMode, orig_subject: message.topic } : {}),
            ...(newTopic === undefined ? {} : { subject: newTopic, topic_links: [] }),
            ...(destination === undefined ? {} : { new_stream_id: destination.id })
          } as const
          const publications: Array<Publication> = []
          // Those left without access hear the messages are gone from the old channel, as for a deletion.
          if (access !== undefined && channel !== undefined && access.losingAccess.length > 0) {
            publications.push(...deleteMessagePublications(moving, { channelId: channel.id, topic: message.topic }, access.losingAccess))
          }
          // The whole topic moved, as far as the mover can see (Zulip's `moved_all_visible_messages`).
          const movedAllVisible = moves && channel !== undefined &&
            (propagateMode === "change_all" || !(yield* hasVisibleMessages(ctx, editor, channel, message.topic)))
          // A rename that changes only letter case keeps the topic's policies where they are.
          const sameTopic = target !== undefined && channel !== undefined && target.id === channel.id &&
            targetTopic.toLowerCase() === message.topic.toLowerCase()
          if (movedAllVisible && channel !== undefined && target !== undefined && !sameTopic) {
            publications.push(...yield* moveTopicPolicies({
              ctx,
              origin: channel,
              originTopic: message.topic,
              target,
              targetTopic,
              targetHadMessages: newTopicHadMessages,
              losingAccess: new Set(access?.losingAccess ?? []),
              now
            }))
          }
          // Queues without the empty_topic_name capability see the empty topic as "general chat".
          const movedTo = moves ? targetTopic : undefined
          const namesEmptyTopic = movedTo !== undefined && (message.topic === "" || movedTo === "")
          for (const [f, users] of byFlags) {
            const audience = Audience.users(users.sort((a, b) => a - b))
            if (!namesEmptyTopic || movedTo === undefined) {
              publications.push({ event: { ...changed, flags: flagNames(f) }, audience })
              continue
            }
            publications.push(
              { event: { ...changed, flags: flagNames(f) }, audience, requires: { empty_topic_name: true } },
              {
                event: {
                  ...changed,
                  flags: flagNames(f),
                  orig_subject: displayTopic(message.topic, false),
                  ...(newTopic === undefined ? {} : { subject: displayTopic(movedTo, false) })
                },
                audience,
                requires: { empty_topic_name: false }
              }
            )
          }
          yield* events.publishAll(realm.id, publications)

          // Notification Bot's notices, in the same transaction.
          if (moves && channel !== undefined && target !== undefined) {
            const moverMention = silentMention(editor.full_name, editor.id)
            const post = (to: Channel, topic: string, text: string) =>
              Effect.flatMap(bot.bot(realm.id), (notificationBot) =>
                sends.send({ user: notificationBot, realm }, { type: "stream", to: to.id, topic, content: text }, {
                  client: InternalClient,
                  actingUser: editor
                })).pipe(Effect.asVoid, Effect.catch(() => Effect.void))
            if (resolving && destination === undefined && newTopic !== undefined) {
              // Zulip posts no resolve notice for an edit that also changes the content.
              if (content === undefined && !(yield* undoResolveNotice(ctx, editor.id, target, newTopic, now))) {
                yield* post(target, newTopic, resolveNotice(moverMention, newTopic === ResolvedTopicPrefix + message.topic))
              }
            } else {
              const input = {
                mover: moverMention,
                from: topicLink(channel.id, channel.name, message.topic),
                to: topicLink(target.id, target.name, targetTopic),
                count: moving.length,
                wholeTopic: movedAllVisible && !newTopicHadMessages,
                messageUrl: messageUrl(realm.url, target, targetTopic, message.id)
              }
              if (request.send_notification_to_new_thread ?? true) yield* post(target, targetTopic, movedHereNotice(input))
              if (request.send_notification_to_old_thread ?? false) {
                yield* post(channel, message.topic, movedAwayNotice({ ...input, wholeTopic: movedAllVisible }))
              }
            }
          }
          return { detached_uploads: detached } satisfies EditResult
        }))
      })

      const history = Effect.fn("MessageEdits.history")(function*(
        principal: Principal,
        id: number,
        options: { readonly allow_empty_topic_name: boolean }
      ) {
        const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
        const policy = realm.settings.message_edit_history_visibility_policy
        if (policy === "none") return yield* new Errors.EditHistoryDisabled()
        const ctx = yield* loadAccess(realm)
        const found = yield* readableMessage(messages, ctx, principal.user, id)
        const { message } = found
        const topicOf = (topic: string) => displayTopic(topic, options.allow_empty_topic_name)
        // Walk back from the message as it is: each stored entry says what it replaced.
        let content = message.content
        let rendered = message.rendered_content
        let topic = message.topic
        const entries: Array<HistoryEntry> = []
        for (const stored of message.edit_history ?? []) {
          const entry: Record<string, unknown> = {
            topic: topicOf(topic),
            content,
            rendered_content: rendered,
            timestamp: stored.timestamp,
            user_id: stored.user_id
          }
          if (stored.prev_content !== undefined && stored.prev_rendered_content !== undefined) {
            entry.prev_content = stored.prev_content
            entry.prev_rendered_content = stored.prev_rendered_content
            entry.content_html_diff = highlightHtmlDifferences(stored.prev_rendered_content, rendered)
            content = stored.prev_content
            rendered = stored.prev_rendered_content
          }
          if (stored.prev_topic !== undefined) {
            entry.prev_topic = topicOf(stored.prev_topic)
            topic = stored.prev_topic
          }
          if (stored.prev_stream !== undefined && stored.stream !== undefined) {
            entry.prev_stream = stored.prev_stream
            entry.stream = stored.stream
          }
          entries.push(entry as unknown as HistoryEntry)
        }
        entries.push({
          topic: topicOf(topic),
          content,
          rendered_content: rendered,
          timestamp: message.date_sent,
          user_id: message.sender_id
        })
        entries.reverse()
        if (policy === "all") return entries
        // "moves": content-only edits dropped, content diffs removed from the rest.
        return entries.filter((entry, i) => i === 0 || entry.prev_topic !== undefined || entry.prev_stream !== undefined)
          .map(({ prev_content: _c, prev_rendered_content: _r, content_html_diff: _d, ...rest }) => rest)
      })

      return MessageEdits.of({ edit, history })
    })
  )
}
