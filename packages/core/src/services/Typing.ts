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
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Audience } from "../domain/Event.ts"
import { ChannelId } from "../domain/Ids.ts"
import type { UserId } from "../domain/Ids.ts"
import type { Principal } from "../domain/Principal.ts"
import type { User } from "../domain/User.ts"
import { resolveSettings } from "../domain/UserSettings.ts"
import * as Errors from "../errors/Errors.ts"
import { hasContentAccess } from "../permissions/ChannelAccess.ts"
import { UserSettingsRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"
import { accessInput, accessOfRequest, makeAccessLoader, subscribersOf } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
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

/** @category services */
export class Typing extends Context.Service<Typing, {
  /** POST /typing: publishes the `typing` event to whoever should see it. */
  notify(principal: Principal, request: TypingRequest): Effect.Effect<void, TypingError>
}>()("teamchat/core/services/Typing") {
  static readonly layer = Layer.effect(
    Typing,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const settings = yield* UserSettingsRepo
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
        const subscribers: Array<User> = []
        for (const id of subscribersOf(ctx, target.id)) {
          const user = ctx.state.usersById.get(id)
          if (user !== undefined && user.is_active) subscribers.push(user)
        }
        if (subscribers.length > MaxChannelSizeForTyping) return
        const audience = yield* receivers(subscribers)
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

      return Typing.of({ notify })
    })
  )
}
