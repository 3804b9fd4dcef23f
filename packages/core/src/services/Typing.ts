/**
 * Typing notifications: POST /typing and `typing` events.
 *
 * Nothing is stored: a notification is only an event. Clients repeat
 * `start` while the user types and the indicator expires on its own
 * (register's `server_typing_*` periods), so the server keeps no state
 * between requests. The events go through the event log like every other
 * (a queue's pending events survive a restart; a stale `typing` is
 * harmless, the client's expiry period covers it).
 *
 * - Direct: to every participant (the sender among them, added last when
 *   `to` leaves them out) who is active and has `receives_typing_notifications`
 *   on; the event names them all as `recipients`.
 * - Channel: to the channel's active subscribers with
 *   `receives_typing_notifications` on, only on queues that declared the
 *   `stream_typing_notifications` capability (`Event.accepts`), and not at
 *   all in channels of more than `MaxChannelSizeForTyping` subscribers
 *   (Zulip's guard against fan-out in big channels).
 *
 * POST /messages/{message_id}/typing tells the same people that the sender
 * of a message is editing it (`typing_edit_message`): the participants of a
 * direct message, the subscribers of a channel's (same size guard, but no
 * capability: the event is a type of its own). Only who may edit the
 * message's content now may send it (Zulip's `validate_user_can_edit_message`
 * without the grace period of an edit).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Audience } from "../domain/Event.ts"
import { ChannelId, MessageId } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import type { Principal } from "../domain/Principal.ts"
import type { User } from "../domain/User.ts"
import { resolveSettings } from "../domain/UserSettings.ts"
import * as Errors from "../errors/Errors.ts"
import { hasContentAccess } from "../permissions/ChannelAccess.ts"
import { contentEditRefusal } from "../permissions/MessageEditing.ts"
import { MessageRepo, UserSettingsRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"
import { accessInput, accessOfRequest, makeAccessLoader, subscribersOf } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import { modifiableMessage } from "./internal/messageAccess.ts"
import { checkChannelSend } from "./Messages.ts"

/** Channels with more subscribers get no typing events (Zulip's `MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS`). @category constants */
export const MaxChannelSizeForTyping = 100

/** POST /typing, decoded: `type` with its legacy names folded. @category models */
export interface TypingRequest {
  readonly op: "start" | "stop"
  readonly type: "direct" | "stream"
  readonly to?: ReadonlyArray<number> | undefined
  readonly stream_id?: number | undefined
  readonly topic?: string | undefined
}

/** @category models */
export type TypingError = Errors.BadRequest | Errors.InvalidUserId | Errors.InvalidChannelId

/** @category models */
export type EditTypingError = Errors.BadRequest | Errors.InvalidMessages

/** @category services */
export class Typing extends Context.Service<Typing, {
  /** POST /typing: publishes the `typing` event to whoever should see it. */
  notify(principal: Principal, request: TypingRequest): Effect.Effect<void, TypingError>
  /** POST /messages/{message_id}/typing: publishes `typing_edit_message` about the message. */
  notifyEdit(principal: Principal, messageId: number, op: "start" | "stop"): Effect.Effect<void, EditTypingError>
}>()("teamchat/core/services/Typing") {
  static readonly layer = Layer.effect(
    Typing,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const settings = yield* UserSettingsRepo
      const messages = yield* MessageRepo
      const events = yield* Events
      const tx = yield* Transactor

      const settingOf = (user: User, name: "send_private_typing_notifications" | "send_stream_typing_notifications") =>
        Effect.map(settings.get(user.id), (overrides) => resolveSettings(overrides)[name] === true)

      /** The active users among `users` who receive typing notifications. */
      const receivers = Effect.fnUntraced(function*(users: ReadonlyArray<User>) {
        const active = users.filter((u) => u.is_active)
        const overrides = yield* settings.getMany(active.map((u) => u.id))
        return active
          .filter((u) => resolveSettings(overrides.get(u.id) ?? {}).receives_typing_notifications === true)
          .map((u) => u.id)
      })

      /** The subscribers told of typing in a channel; undefined beyond `MaxChannelSizeForTyping`. */
      const channelAudience = Effect.fnUntraced(function*(ctx: AccessContext, channelId: ChannelId) {
        const subscribers: Array<User> = []
        for (const id of subscribersOf(ctx, channelId)) {
          const user = ctx.state.usersById.get(id)
          if (user !== undefined && user.is_active) subscribers.push(user)
        }
        if (subscribers.length > MaxChannelSizeForTyping) return undefined
        return yield* receivers(subscribers)
      })

      const person = (user: User) => ({ user_id: user.id, email: user.email })

      const direct = Effect.fnUntraced(function*(ctx: AccessContext, sender: User, request: TypingRequest) {
        if (request.to === undefined) return yield* new Errors.BadRequest({ msg: "Missing 'to' argument" })
        if (request.to.length === 0) return yield* new Errors.BadRequest({ msg: "Empty 'to' list" })
        if (!(yield* settingOf(sender, "send_private_typing_notifications"))) {
          return yield* new Errors.BadRequest({ msg: "User has disabled typing notifications for direct messages" })
        }
        // Every id must name a user of the organization (deactivated ones too): a partial list would name another conversation.
        const ids = request.to.includes(sender.id) ? request.to : [...request.to, sender.id]
        const participants: Array<User> = []
        for (const id of ids) {
          const user = ctx.state.usersById.get(id as UserId)
          if (user === undefined) return yield* new Errors.InvalidUserId({ user_id: id })
          participants.push(user)
        }
        const audience = yield* receivers(participants)
        yield* events.publish(ctx.state.realm.id, {
          type: "typing",
          op: request.op,
          message_type: "direct",
          sender: person(sender),
          recipients: participants.map(person)
        }, Audience.users(audience))
      })

      const channel = Effect.fnUntraced(function*(ctx: AccessContext, sender: User, request: TypingRequest) {
        if (request.stream_id === undefined) return yield* new Errors.BadRequest({ msg: "Missing 'stream_id' argument" })
        if (request.topic === undefined) return yield* new Errors.BadRequest({ msg: "Missing topic" })
        if (!(yield* settingOf(sender, "send_stream_typing_notifications"))) {
          return yield* new Errors.BadRequest({ msg: "User has disabled typing notifications for channel messages" })
        }
        const target = ChannelId.makeOption(request.stream_id).pipe(
          Option.flatMapNullishOr((id) => ctx.channelsById.get(id)),
          Option.getOrUndefined
        )
        if (target === undefined || !hasContentAccess(accessInput(ctx, sender, target))) {
          return yield* new Errors.InvalidChannelId()
        }
        yield* checkChannelSend(ctx, sender, target)
        const audience = yield* channelAudience(ctx, target.id)
        if (audience === undefined) return
        yield* events.publish(ctx.state.realm.id, {
          type: "typing",
          op: request.op,
          message_type: "stream",
          sender: person(sender),
          stream_id: target.id,
          topic: request.topic
        }, Audience.users(audience))
      })

      const notify = Effect.fn("Typing.notify")(function*(principal: Principal, request: TypingRequest) {
        const ctx = yield* accessOfRequest(loadAccess, principal)
        const sender = ctx.state.usersById.get(principal.user.id) ?? principal.user
        // Nothing is written but the event, which goes out once this commits.
        const work: Effect.Effect<void, TypingError> = request.type === "direct"
          ? direct(ctx, sender, request)
          : channel(ctx, sender, request)
        yield* tx.withTransaction(work)
      })

      const notifyEdit = Effect.fn("Typing.notifyEdit")(function*(principal: Principal, messageId: number, op: "start" | "stop") {
        const id = Option.getOrUndefined(MessageId.makeOption(messageId))
        if (id === undefined) return yield* new Errors.InvalidMessages()
        const work = Effect.gen(function*() {
          const ctx = yield* accessOfRequest(loadAccess, principal)
          const sender = ctx.state.usersById.get(principal.user.id) ?? principal.user
          // Zulip's `access_message` for a change: an archived channel's message is refused too.
          const found = yield* modifiableMessage(messages, ctx, sender, yield* messages.findById(id))
          if (found === undefined) return yield* new Errors.InvalidMessages()
          const { message } = found
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          const refusal = contentEditRefusal(ctx.state.realm.settings, sender.id, message, now, 0)
          if (refusal !== undefined) return yield* new Errors.BadRequest({ msg: refusal })
          if (message.channel_id !== null) {
            if (!(yield* settingOf(sender, "send_stream_typing_notifications"))) {
              return yield* new Errors.BadRequest({ msg: "User has disabled typing notifications for channel messages" })
            }
            const audience = yield* channelAudience(ctx, message.channel_id)
            if (audience === undefined) return
            yield* events.publish(ctx.state.realm.id, {
              type: "typing_edit_message",
              op,
              sender_id: sender.id,
              message_id: message.id,
              recipient: { type: "channel", channel_id: message.channel_id, topic: message.topic }
            }, Audience.users(audience))
            return
          }
          if (!(yield* settingOf(sender, "send_private_typing_notifications"))) {
            return yield* new Errors.BadRequest({ msg: "User has disabled typing notifications for direct messages" })
          }
          // Zulip's order: a one-to-one message's sender, then its recipient (a message to oneself names
          // the sender twice); a group's participants by id.
          const participants = message.dm_user_ids
          const ids = participants.length > 2
            ? participants
            : [message.sender_id, participants.find((p) => p !== message.sender_id) ?? message.sender_id]
          const users: Array<User> = []
          for (const userId of ids) {
            const user = ctx.state.usersById.get(userId)
            if (user !== undefined) users.push(user)
          }
          const told = new Set(yield* receivers(users))
          // The event names only those told.
          const userIds = users.filter((u) => told.has(u.id)).map((u) => u.id)
          yield* events.publish(ctx.state.realm.id, {
            type: "typing_edit_message",
            op,
            sender_id: sender.id,
            message_id: message.id,
            recipient: { type: "direct", user_ids: userIds }
          }, Audience.users(userIds))
        })
        // Nothing is written but the event, which goes out once this commits.
        yield* tx.withTransaction(work)
      })

      return Typing.of({ notify, notifyEdit })
    })
  )
}
