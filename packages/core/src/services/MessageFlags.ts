/**
 * Personal message flags: POST /messages/flags (by ids) and POST
 * /messages/flags/narrow (a range of a narrow), with `update_message_flags`
 * events to the user's queues; the deprecated POST /mark_all_as_read,
 * /mark_stream_as_read and /mark_topic_as_read; and who has read a message
 * (GET /messages/{id}/read_receipts).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { UserId } from "../domain/Ids.ts"
import { ChannelId, MessageId, messageId } from "../domain/Ids.ts"
import type { Flag, Message } from "../domain/Message.ts"
import {
  AllFlags,
  EditableFlags,
  EmptyTopicDisplayName,
  flagBit,
  FlagBits,
  MentionBits,
  NonApiFlags
} from "../domain/Message.ts"
import { resolveSettings } from "../domain/UserSettings.ts"
import * as Errors from "../errors/Errors.ts"
import { Events } from "./events/Events.ts"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import type { MessageDetails } from "../domain/events/MessageEvents.ts"
import { accessInput, makeAccessLoader } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import type { Anchor } from "../ports/MessageSearch.ts"
import { MessageSearch } from "../ports/MessageSearch.ts"
import type { NarrowParseError, NarrowResolveError } from "../narrow/Narrow.ts"
import { canReadFullHistory, hasContentAccess } from "../permissions/ChannelAccess.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import { MutingRepo } from "../ports/MutingRepo.ts"
import { isMutedTopic, topicKey } from "../domain/Muting.ts"
import type { VisibilityPolicy } from "../domain/Muting.ts"
import { MessageRepo, RealmRepo, SubscriptionRepo, UserSettingsRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { narrowRange, readableMessage } from "./internal/messageAccess.ts"
import type { Principal } from "../domain/Principal.ts"

/** `add` or `remove`. @category models */
export type FlagOperation = "add" | "remove"

/** POST /messages/flags/narrow, decoded at the edge. @category models */
export interface FlagsByNarrowRequest {
  readonly anchor: Anchor
  readonly include_anchor: boolean
  readonly num_before: number
  readonly num_after: number
  /** The raw JSON value of `narrow` (null or [] for none). */
  readonly narrow: unknown
  readonly op: string
  readonly flag: string
}

/** @category models */
export interface FlagsByNarrowResult {
  readonly processed_count: number
  readonly updated_count: number
  readonly first_processed_id: number | null
  readonly last_processed_id: number | null
  readonly found_oldest: boolean
  readonly found_newest: boolean
  readonly ignored_because_not_subscribed_channels?: ReadonlyArray<number>
}

/** At most this many messages per flags/narrow request (Zulip's bound on one transaction). */
export const MaxFlagsNarrowMessages = 5000

/**
 * Zulip's clamping of a flags/narrow range: the total stays within 5000 and
 * `num_before` keeps at least half of it when both sides ask for much.
 *
 * @category rules
 */
export const clampRange = (numBefore: number, numAfter: number): { numBefore: number; numAfter: number } => {
  const before = Math.min(numBefore, Math.max(MaxFlagsNarrowMessages - numAfter, MaxFlagsNarrowMessages / 2))
  return { numBefore: before, numAfter: Math.min(numAfter, MaxFlagsNarrowMessages - before) }
}

/** Checks a flag name and operation the way Zulip does, in its order. @category validation */
export const checkFlagRequest = (
  op: string,
  flag: string
): Effect.Effect<{ readonly op: FlagOperation; readonly flag: Flag }, Errors.InvalidFlag | Errors.FlagNotEditable | Errors.InvalidFlagOperation> => {
  if (!(AllFlags as ReadonlyArray<string>).includes(flag) || NonApiFlags.has(flag as Flag)) {
    return Effect.fail(new Errors.InvalidFlag({ flag }))
  }
  if (!EditableFlags.has(flag as Flag)) return Effect.fail(new Errors.FlagNotEditable({ flag }))
  if (op !== "add" && op !== "remove") return Effect.fail(new Errors.InvalidFlagOperation({ operation: op }))
  return Effect.succeed({ op, flag: flag as Flag })
}

/**
 * What an `update_message_flags` remove-read event says of each message, so
 * clients can restore unread counts: `unmuted_stream_msg` is whether it
 * counts (Zulip's `is_row_muted`: muted topics, and muted channels unless
 * the topic is unmuted or followed).
 */
const messageDetails = (
  mutedChannels: ReadonlySet<ChannelId>,
  topicPolicies: ReadonlyMap<string, VisibilityPolicy>,
  userId: UserId,
  message: Message,
  flags: number
): MessageDetails => {
  const mentioned = (flags & MentionBits) !== 0 ? { mentioned: true } : {}
  return message.type === "private"
    ? { type: "private", user_ids: message.dm_user_ids.filter((id) => id !== userId), ...mentioned }
    : {
      type: "stream",
      stream_id: message.channel_id!,
      topic: message.topic,
      unmuted_stream_msg: !isMutedTopic(
        mutedChannels.has(message.channel_id!),
        topicPolicies.get(topicKey(message.channel_id!, message.topic))
      ),
      ...mentioned
    }
}

/** @category errors */
export type MarkReadError = Errors.InvalidChannelId | Errors.NoSuchTopic

/** @category errors */
export type FlagsError =
  | Errors.InvalidFlag
  | Errors.FlagNotEditable
  | Errors.InvalidFlagOperation
  | Errors.InvalidMessages

/** @category services */
export class MessageFlags extends Context.Service<MessageFlags, {
  /** POST /messages/flags: returns the ids as given. */
  update(
    principal: Principal,
    request: { readonly messages: ReadonlyArray<number>; readonly op: string; readonly flag: string }
  ): Effect.Effect<{ readonly messages: ReadonlyArray<number> }, FlagsError>
  /** POST /messages/flags/narrow. */
  updateByNarrow(
    principal: Principal,
    request: FlagsByNarrowRequest
  ): Effect.Effect<FlagsByNarrowResult, FlagsError | Errors.AnchorExcludedMidRange | NarrowParseError | NarrowResolveError>
  /**
   * POST /mark_all_as_read: every unread message of the user, in one
   * statement, so `complete` is always true (Zulip stops batching at a time
   * budget and answers false).
   */
  markAllAsRead(principal: Principal): Effect.Effect<{ readonly complete: boolean }>
  /** POST /mark_stream_as_read. */
  markChannelAsRead(principal: Principal, channelId: number): Effect.Effect<void, MarkReadError>
  /** POST /mark_topic_as_read (`general chat` names the empty topic). */
  markTopicAsRead(principal: Principal, channelId: number, topicName: string): Effect.Effect<void, MarkReadError>
  /** GET /messages/{message_id}/read_receipts: ids of the users whose read may be shown, ascending. */
  readReceipts(
    principal: Principal,
    messageId: number
  ): Effect.Effect<{ readonly user_ids: ReadonlyArray<number> }, Errors.InvalidMessages | Errors.ReadReceiptsDisabled>
}>()("teamchat/core/services/MessageFlags") {
  static readonly layer = Layer.effect(
    MessageFlags,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const messages = yield* MessageRepo
      const store = yield* MessageStore
      const search = yield* MessageSearch
      const subscriptions = yield* SubscriptionRepo
      const muting = yield* MutingRepo
      const realms = yield* RealmRepo
      const events = yield* Events
      const tx = yield* Transactor
      const userSettings = yield* UserSettingsRepo

      const contextOf = Effect.fnUntraced(function*(principal: Principal) {
        const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
        return yield* loadAccess(realm)
      })

      /**
       * Applies the change to messages the user may read; messages without a
       * row get a `historical` one first (channel history read without
       * having received it). Returns the ids whose flags changed.
       */
      const apply = Effect.fnUntraced(function*(
        ctx: AccessContext,
        principal: Principal,
        ids: ReadonlyArray<MessageId>,
        op: FlagOperation,
        flag: Flag
      ) {
        const user = principal.user
        const rows = yield* messages.userMessages(user.id, ids)
        const have = new Set(rows.map((r) => r.message_id))
        const missing = ids.filter((id) => !have.has(id))
        if (missing.length > 0) {
          // Locked: a deletion in flight commits first (and the message is
          // then missing here) or waits for these rows.
          const found = yield* messages.findByIdsLocked(missing, "share")
          if (found.length !== new Set(missing).size) return yield* new Errors.InvalidMessages()
          for (const message of found) {
            const channel = message.channel_id === null ? undefined : ctx.channelsById.get(message.channel_id)
            if (channel === undefined || message.realm_id !== ctx.state.realm.id) return yield* new Errors.InvalidMessages()
            const input = accessInput(ctx, user, channel)
            if (!hasContentAccess(input) || !canReadFullHistory(input)) return yield* new Errors.InvalidMessages()
          }
          // Zulip's default historical flags; the change itself is applied
          // below, with the other rows, so it is counted and announced.
          yield* store.insertUserMessages(found.map((m) => ({
            user_id: user.id,
            message_id: m.id,
            flags: FlagBits.read | FlagBits.historical
          })))
        }
        let targets: ReadonlyArray<MessageId> = ids
        let ignored: ReadonlyArray<number> | undefined
        const bit = flagBit(flag)
        let details: Record<string, MessageDetails> | undefined
        if (flag === "read" && op === "remove") {
          // Unread messages live only in subscribed channels.
          const found = yield* messages.findByIds(ids)
          const skipped = new Set<number>()
          const kept = new Set<number>()
          for (const m of found) {
            if (m.channel_id !== null && ctx.subscriptions.get(user.id)?.has(m.channel_id) !== true) skipped.add(m.channel_id)
            else kept.add(m.id)
          }
          targets = ids.filter((id) => kept.has(id))
          ignored = Array.from(skipped).sort((a, b) => a - b)
          const changed = yield* store.updateFlags(user.id, targets, bit, false)
          const byId = new Map(found.map((m) => [m.id as number, m]))
          const flagsById = new Map((yield* messages.userMessages(user.id, changed)).map((r) => [r.message_id as number, r.flags]))
          const muted = new Set<ChannelId>()
          for (const sub of yield* subscriptions.listByUser(user.id)) if (sub.properties.is_muted) muted.add(sub.channel_id)
          const policies = new Map<string, VisibilityPolicy>()
          for (const row of yield* muting.listTopics(user.id)) policies.set(topicKey(row.channel_id, row.topic_name), row.visibility_policy)
          details = {}
          for (const id of changed) {
            details[String(id)] = messageDetails(muted, policies, user.id, byId.get(id)!, flagsById.get(id) ?? 0)
          }
          return { changed, ignored, details }
        }
        const changed = yield* store.updateFlags(user.id, targets, bit, op === "add")
        return { changed, ignored, details }
      })

      const publish = (
        principal: Principal,
        op: FlagOperation,
        flag: Flag,
        changed: ReadonlyArray<MessageId>,
        details: Record<string, MessageDetails> | undefined
      ) => {
        if (changed.length === 0) return Effect.void
        const event: EventOf<"update_message_flags"> = op === "add"
          ? { type: "update_message_flags", op, operation: op, flag, messages: changed, all: false }
          : {
            type: "update_message_flags",
            op,
            operation: op,
            flag,
            messages: changed,
            all: false,
            ...(details === undefined ? {} : { message_details: details })
          }
        return events.publish(principal.realm.id, event, Audience.users([principal.user.id]))
      }

      const update = Effect.fn("MessageFlags.update")(function*(
        principal: Principal,
        request: { readonly messages: ReadonlyArray<number>; readonly op: string; readonly flag: string }
      ) {
        const { op, flag } = yield* checkFlagRequest(request.op, request.flag)
        const ids = Array.from(new Set(request.messages.filter((n) => n > 0))).map(messageId)
        if (request.messages.some((n) => n <= 0)) return yield* new Errors.InvalidMessages()
        yield* tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* contextOf(principal)
          const { changed, details } = yield* apply(ctx, principal, ids, op, flag)
          yield* publish(principal, op, flag, changed, details)
        }))
        return { messages: request.messages }
      })

      const updateByNarrow = Effect.fn("MessageFlags.updateByNarrow")(function*(
        principal: Principal,
        request: FlagsByNarrowRequest
      ) {
        if (request.num_before > 0 && request.num_after > 0 && !request.include_anchor) {
          return yield* new Errors.AnchorExcludedMidRange()
        }
        const { op, flag } = yield* checkFlagRequest(request.op, request.flag)
        const { numBefore, numAfter } = clampRange(request.num_before, request.num_after)
        return yield* tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* contextOf(principal)
          const { range } = yield* narrowRange(
            { messages, subscriptions, search },
            ctx,
            principal.user,
            request.narrow,
            { anchor: request.anchor, numBefore, numAfter, includeAnchor: request.include_anchor }
          )
          const ids = range.messages.map((m) => m.message.id)
          const { changed, details, ignored } = yield* apply(ctx, principal, ids, op, flag)
          yield* publish(principal, op, flag, changed, details)
          const result: FlagsByNarrowResult = {
            processed_count: ids.length,
            updated_count: changed.length,
            first_processed_id: ids.length === 0 ? null : ids[0]!,
            last_processed_id: ids.length === 0 ? null : ids[ids.length - 1]!,
            found_oldest: range.found_oldest,
            found_newest: range.found_newest,
            ...(flag === "read" && op === "remove" ? { ignored_because_not_subscribed_channels: ignored ?? [] } : {})
          }
          return result
        }))
      })

      const publishRead = (principal: Principal, messages: ReadonlyArray<MessageId>, all: boolean) =>
        events.publish(
          principal.realm.id,
          { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages, all },
          Audience.users([principal.user.id])
        )

      const markAllAsRead = Effect.fn("MessageFlags.markAllAsRead")(function*(principal: Principal) {
        yield* tx.withTransaction(Effect.gen(function*() {
          yield* store.markRead(principal.user.id)
          // Zulip announces it whether or not anything was unread, without the ids.
          yield* publishRead(principal, [], true)
        }))
        return { complete: true }
      })

      /** The channel if the user may read it (Zulip's `access_stream_by_id`), else "Invalid channel ID". */
      const readableChannel = Effect.fnUntraced(function*(ctx: AccessContext, principal: Principal, channelId: number) {
        const channel = Option.getOrUndefined(
          Option.flatMapNullishOr(ChannelId.makeOption(channelId), (id) => ctx.channelsById.get(id))
        )
        if (channel === undefined || !hasContentAccess(accessInput(ctx, principal.user, channel))) {
          return yield* new Errors.InvalidChannelId()
        }
        return channel
      })

      const markWithin = (principal: Principal, channelId: number, topicName: string | undefined) =>
        tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* contextOf(principal)
          const channel = yield* readableChannel(ctx, principal, channelId)
          let topic: string | undefined
          if (topicName !== undefined) {
            topic = topicName === EmptyTopicDisplayName ? "" : topicName
            if (!(yield* messages.userHasTopic(principal.user.id, channel.id, topic))) {
              return yield* new Errors.NoSuchTopic({ topic })
            }
          }
          const marked = yield* store.markRead(principal.user.id, { channel_id: channel.id, topic })
          if (marked.length > 0) yield* publishRead(principal, marked, false)
        }))

      const markChannelAsRead = Effect.fn("MessageFlags.markChannelAsRead")(function*(principal: Principal, channelId: number) {
        yield* markWithin(principal, channelId, undefined)
      })

      const markTopicAsRead = Effect.fn("MessageFlags.markTopicAsRead")(
        function*(principal: Principal, channelId: number, topicName: string) {
          yield* markWithin(principal, channelId, topicName)
        }
      )

      const readReceipts = Effect.fn("MessageFlags.readReceipts")(function*(principal: Principal, id: number) {
        const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
        const ctx = yield* loadAccess(realm)
        const found = yield* readableMessage(messages, ctx, principal.user, id)
        if (!realm.settings.enable_read_receipts) return yield* new Errors.ReadReceiptsDisabled()
        // Active readers other than the sender (bots too; the requester too), leaving out both
        // sides of the requester's mutes.
        const requester = principal.user.id
        const mutedByRequester = ctx.mutes.get(requester)
        const readers = (yield* messages.recipients(found.message.id))
          .filter((row) =>
            (row.flags & FlagBits.read) !== 0 &&
            row.user_id !== found.message.sender_id &&
            ctx.state.usersById.get(row.user_id)?.is_active === true &&
            mutedByRequester?.has(row.user_id) !== true &&
            ctx.mutes.get(row.user_id)?.has(requester) !== true
          )
          .map((row) => row.user_id)
        const overrides = yield* userSettings.getMany(readers)
        const user_ids = readers
          .filter((user) => resolveSettings(overrides.get(user) ?? {}).send_read_receipts !== false)
          .sort((a, b) => a - b)
        return { user_ids }
      })

      return MessageFlags.of({ update, updateByNarrow, markAllAsRead, markChannelAsRead, markTopicAsRead, readReceipts })
    })
  )
}
