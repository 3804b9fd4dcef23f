/**
 * A user's personal visibility settings: POST /user_topics (a topic's
 * policy: muted, unmuted, followed, or none) and POST / DELETE
 * /users/me/muted_users/{muted_user_id}, with their events to the user's own
 * clients. Register's `user_topics`, `muted_topics` and `muted_users` and the
 * unread counts read the same rows (`Register`, `internal/messageState.ts`).
 *
 * Muting someone marks their messages read for the muter, in the same
 * transaction, with the `update_message_flags` event Zulip sends. Mutes are
 * also part of the organization's access read (`AccessContext.mutes`), from
 * which a send marks a muted sender's later messages read for the muter and
 * read receipts leave out both sides of a mute.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Channel } from "../domain/Channel.ts"
import { Audience } from "../domain/Event.ts"
import { ChannelId } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import { EmptyTopicDisplayName, FlagBits } from "../domain/Message.ts"
import { isVisibilityPolicy, VisibilityPolicy } from "../domain/Muting.ts"
import type { UserTopic } from "../domain/Muting.ts"
import type { Principal } from "../domain/Principal.ts"
import {
  BadRequest,
  CannotMuteSelf,
  IncompatibleParameters,
  InsufficientPermission,
  InvalidChannelId,
  InvalidChannelName,
  InvalidVisibilityPolicy,
  NoSuchUser,
  UserAlreadyMuted,
  UserNotMuted
} from "../errors/Errors.ts"
import { hasContentAccess } from "../permissions/ChannelAccess.ts"
import { userAccessVerdict } from "../permissions/UserAccess.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import { EventStore } from "../ports/EventStore.ts"
import { MutingRepo } from "../ports/MutingRepo.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"
import { accessInput, accessOfRequest, canAccessUser, makeAccessLoader } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"

/** A topic name's limit, in characters (Zulip's `MAX_TOPIC_NAME_LENGTH`). @category constants */
export const MaxTopicLength = 60

/** POST /user_topics, decoded at the edge. @category models */
export interface UserTopicRequest {
  readonly stream_id: number
  readonly topic: string
  readonly visibility_policy: number
}

/** @category errors */
export type UserTopicError = BadRequest | InvalidVisibilityPolicy | InvalidChannelId

/**
 * Legacy PATCH /users/me/subscriptions/muted_topics, decoded at the edge:
 * the channel by id or by name (exactly one of them).
 *
 * @category models
 */
export interface MutedTopicRequest {
  readonly stream_id?: number | undefined
  readonly stream?: string | undefined
  readonly topic: string
  readonly op: "add" | "remove"
}

/** @category errors */
export type MutedTopicError = BadRequest | IncompatibleParameters | InvalidChannelId | InvalidChannelName

/** @category errors */
export type MuteTargetError = NoSuchUser | InsufficientPermission

/**
 * The legacy `muted_topics` list: `[channel name, topic, unix time]` of
 * every muted topic in a channel that is not archived.
 *
 * @category views
 */
export const mutedTopicsList = (
  ctx: AccessContext,
  rows: ReadonlyArray<UserTopic>
): Array<readonly [string, string, number]> => {
  const list: Array<readonly [string, string, number]> = []
  for (const row of rows) {
    if (row.visibility_policy !== VisibilityPolicy.muted) continue
    const channel = ctx.channelsById.get(row.channel_id)
    if (channel === undefined || channel.is_archived) continue
    list.push([channel.name, row.topic_name, row.last_updated])
  }
  return list
}

/** @category services */
export class Muting extends Context.Service<Muting, {
  /** POST /user_topics. */
  updateUserTopic(principal: Principal, request: UserTopicRequest): Effect.Effect<void, UserTopicError>
  /**
   * Legacy PATCH /users/me/subscriptions/muted_topics: `add` sets the
   * topic's policy to muted, `remove` clears it, as POST /user_topics with
   * policy 1 and 0 (same events; nothing changes and nothing is sent when
   * the topic already has that policy). `remove` needs only the channel to
   * exist; an unknown one is Zulip's "Topic is not muted".
   */
  updateMutedTopic(principal: Principal, request: MutedTopicRequest): Effect.Effect<void, MutedTopicError>
  /** POST /users/me/muted_users/{muted_user_id}. */
  muteUser(principal: Principal, mutedUserId: number): Effect.Effect<void, CannotMuteSelf | MuteTargetError | UserAlreadyMuted>
  /** DELETE /users/me/muted_users/{muted_user_id}. */
  unmuteUser(principal: Principal, mutedUserId: number): Effect.Effect<void, MuteTargetError | UserNotMuted>
}>()("teamchat/core/services/Muting") {
  static readonly layer = Layer.effect(
    Muting,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const repo = yield* MutingRepo
      const store = yield* MessageStore
      const events = yield* Events
      const tx = yield* Transactor
      const eventLog = yield* EventStore

      const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

      const topicTooLong = (topic: string) =>
        Array.from(topic).length > MaxTopicLength
          ? Effect.fail(new BadRequest({ msg: `topic is too long (limit: ${MaxTopicLength} characters)` }))
          : Effect.void

      /** Sets (or clears, with 0) a topic's policy in a transaction's read; the events when it changed. */
      const setPolicy = Effect.fnUntraced(function*(
        ctx: AccessContext,
        principal: Principal,
        channel: Channel,
        topic: string,
        policy: VisibilityPolicy
      ) {
        const user = principal.user
        const now = yield* nowSeconds
        const changed = policy === VisibilityPolicy.inherit
          ? yield* repo.clearTopicPolicy(user.id, channel.id, topic)
          : yield* repo.setTopicPolicy({
            user_id: user.id,
            channel_id: channel.id,
            topic_name: topic,
            visibility_policy: policy,
            last_updated: now
          })
        if (!changed) return
        const audience = Audience.users([user.id])
        yield* events.publishAll(principal.realm.id, [
          { event: { type: "muted_topics", muted_topics: mutedTopicsList(ctx, yield* repo.listTopics(user.id)) }, audience },
          {
            event: { type: "user_topic", stream_id: channel.id, topic_name: topic, last_updated: now, visibility_policy: policy },
            audience
          }
        ])
      })

      const channelById = (ctx: AccessContext, id: number) =>
        ChannelId.makeOption(id).pipe(
          Option.flatMapNullishOr((channelId) => ctx.channelsById.get(channelId)),
          Option.getOrUndefined
        )

      const updateUserTopic = Effect.fn("Muting.updateUserTopic")(function*(principal: Principal, request: UserTopicRequest) {
        // Zulip's parameter order: the topic's length, then the policy, then the channel.
        yield* topicTooLong(request.topic)
        const policy = request.visibility_policy
        if (!isVisibilityPolicy(policy)) return yield* new InvalidVisibilityPolicy()
        const topic = request.topic === EmptyTopicDisplayName ? "" : request.topic
        const user = principal.user
        yield* tx.withTransaction(Effect.gen(function*() {
          // The event log's lock before the row: a topic move (which takes it first, then reads and rewrites the
          // topic's policies) commits before this write, or reads it; never a deadlock on the row between them.
          yield* eventLog.lockLog(principal.realm.id)
          const ctx = yield* accessOfRequest(loadAccess, principal)
          const channel = channelById(ctx, request.stream_id)
          if (channel === undefined) return yield* new InvalidChannelId()
          // Clearing needs only the channel to exist, so a policy can be dropped after losing access.
          if (policy !== VisibilityPolicy.inherit && !hasContentAccess(accessInput(ctx, user, channel))) {
            return yield* new InvalidChannelId()
          }
          yield* setPolicy(ctx, principal, channel, topic, policy)
        }))
      })

      const updateMutedTopic = Effect.fn("Muting.updateMutedTopic")(function*(principal: Principal, request: MutedTopicRequest) {
        yield* topicTooLong(request.topic)
        // Zulip's `check_for_exactly_one_stream_arg`.
        if (request.stream_id === undefined && request.stream === undefined) {
          return yield* new BadRequest({ msg: "Missing 'stream_id' argument" })
        }
        if (request.stream_id !== undefined && request.stream !== undefined) {
          return yield* new IncompatibleParameters({ parameters: "stream_id, stream" })
        }
        const user = principal.user
        yield* tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* accessOfRequest(loadAccess, principal)
          const caller = ctx.state.usersById.get(user.id) ?? user
          const name = request.stream
          const channel = name === undefined
            ? channelById(ctx, request.stream_id!)
            : ctx.channels.find((c) => c.name.toLowerCase() === name.toLowerCase())
          if (request.op === "remove") {
            // Unmuting needs only the channel to exist (access may have been lost since).
            if (channel === undefined) return yield* new BadRequest({ msg: "Topic is not muted" })
            return yield* setPolicy(ctx, principal, channel, request.topic, VisibilityPolicy.inherit)
          }
          if (channel === undefined || !hasContentAccess(accessInput(ctx, caller, channel))) {
            return yield* (name === undefined ? new InvalidChannelId() : new InvalidChannelName({ stream: name }))
          }
          yield* setPolicy(ctx, principal, channel, request.topic, VisibilityPolicy.muted)
        }))
      })

      /** Zulip's `access_user_by_id` with bots and deactivated users allowed. */
      const target = Effect.fnUntraced(function*(ctx: AccessContext, principal: Principal, mutedUserId: number) {
        const caller = ctx.state.usersById.get(principal.user.id) ?? principal.user
        const user = ctx.state.users.find((u) => u.id === mutedUserId)
        const canAccess = user !== undefined && canAccessUser(ctx, caller, user)
        switch (userAccessVerdict(caller, user, canAccess, { allowBots: true, allowDeactivated: true, forAdmin: false })) {
          case "ok":
            return user!
          case "insufficient_permission":
            return yield* new InsufficientPermission()
          default:
            return yield* new NoSuchUser()
        }
      })

      const publishMutedUsers = (principal: Principal) =>
        Effect.flatMap(repo.listMuted(principal.user.id), (rows) =>
          events.publish(
            principal.realm.id,
            { type: "muted_users", muted_users: rows.map((row) => ({ id: row.muted_user_id, timestamp: row.date_muted })) },
            Audience.users([principal.user.id])
          ))

      const muteUser = Effect.fn("Muting.muteUser")(function*(principal: Principal, mutedUserId: number) {
        if (mutedUserId === principal.user.id) return yield* new CannotMuteSelf()
        yield* tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* accessOfRequest(loadAccess, principal)
          const muted = yield* target(ctx, principal, mutedUserId)
          const userId: UserId = principal.user.id
          // The insert decides: of two mutes at once, the second finds the first's row.
          if (!(yield* repo.mute({ user_id: userId, muted_user_id: muted.id, date_muted: yield* nowSeconds }))) {
            return yield* new UserAlreadyMuted()
          }
          const unread = yield* repo.unreadFrom(userId, muted.id)
          const read = unread.length === 0 ? [] : yield* store.updateFlags(userId, unread, FlagBits.read, true)
          if (read.length > 0) {
            yield* events.publish(
              principal.realm.id,
              { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: read, all: false },
              Audience.users([userId])
            )
          }
          yield* publishMutedUsers(principal)
        }))
      })

      const unmuteUser = Effect.fn("Muting.unmuteUser")(function*(principal: Principal, mutedUserId: number) {
        yield* tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* accessOfRequest(loadAccess, principal)
          const muted = yield* target(ctx, principal, mutedUserId)
          if (!(yield* repo.unmute(principal.user.id, muted.id))) return yield* new UserNotMuted()
          yield* publishMutedUsers(principal)
        }))
      })

      return Muting.of({ updateUserTopic, updateMutedTopic, muteUser, unmuteUser })
    })
  )
}
