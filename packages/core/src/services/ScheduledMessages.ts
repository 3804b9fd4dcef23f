/**
 * Scheduled messages: GET/POST /scheduled_messages and PATCH/DELETE
 * /scheduled_messages/{id}, with their `scheduled_messages` events (to the
 * sender only). Sending is `ScheduledDelivery`'s job.
 *
 * A message is validated exactly like a send (`Messages.validate`) when it
 * is scheduled and whenever its recipient, topic or content is edited; the
 * worker validates again at delivery, since permissions may have changed.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { UserId } from "../domain/Ids.ts"
import { directRecipientIds, toApiScheduledMessage } from "../domain/ScheduledMessage.ts"
import { ScheduledMessageId } from "../domain/ScheduledMessage.ts"
import type { ApiScheduledMessage, ScheduledMessage } from "../domain/ScheduledMessage.ts"
import type { User } from "../domain/User.ts"
import {
  InvalidParameter,
  NothingToChange,
  RecipientListUserIdsOnly,
  ScheduledDeliveryTimeNotInFuture,
  ScheduledMessageAlreadySent,
  ScheduledMessageNotFound,
  ScheduledRecipientRequired,
  ScheduledTopicRequired
} from "../errors/Errors.ts"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import { Events } from "./events/Events.ts"
import { makeAccessLoader } from "./internal/access.ts"
import { render } from "../markdown/Markdown.ts"
import type { Insert } from "../ports/Repositories.ts"
import { RealmRepo } from "../ports/Repositories.ts"
import { ScheduledMessageRepo } from "../ports/ScheduledMessageRepo.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Messages, renderContextFor } from "./Messages.ts"
import type { SendError, SendRequest, SendType, ValidatedMessage } from "./Messages.ts"
import type { Principal } from "../domain/Principal.ts"

/** A recipient as clients send it: a channel id, or user ids (emails are refused). @category models */
export type ScheduledRecipient = number | ReadonlyArray<number | string>

/** POST /scheduled_messages, decoded. @category models */
export interface ScheduleRequest {
  readonly type: SendType
  readonly to: ScheduledRecipient
  readonly content: string
  /** Channel messages; "(no topic)" and "general chat" mean the empty topic. */
  readonly topic?: string | undefined
  /** Seconds since the epoch; must be in the future. */
  readonly scheduled_delivery_timestamp: number
  /**
   * Absent: read for the sender when sent from an interactive client (the
   * `Messages.validate` default), except for a message to oneself only.
   */
  readonly read_by_sender?: boolean | undefined
}

/** PATCH /scheduled_messages/{id}, decoded; every field optional. @category models */
export interface ScheduleUpdate {
  readonly type?: SendType | undefined
  readonly to?: ScheduledRecipient | undefined
  readonly content?: string | undefined
  readonly topic?: string | undefined
  readonly scheduled_delivery_timestamp?: number | undefined
}

/** Who is scheduling: the client name as for a send. @category models */
export interface ScheduleOptions {
  /** The sending client's name; default "API". */
  readonly client?: string | undefined
}

/** @category errors */
export type ScheduleError = SendError | ScheduledDeliveryTimeNotInFuture | RecipientListUserIdsOnly | InvalidParameter

/** @category errors */
export type UpdateError =
  | ScheduleError
  | NothingToChange
  | ScheduledRecipientRequired
  | ScheduledTopicRequired
  | ScheduledMessageNotFound
  | ScheduledMessageAlreadySent

/** The stored message type of a `type` parameter. @category constructors */
export const storedType = (type: SendType): "stream" | "private" =>
  type === "channel" || type === "stream" ? "stream" : "private"

/** @category services */
export class ScheduledMessages extends Context.Service<ScheduledMessages, {
  /** GET /scheduled_messages: the caller's undelivered messages (failed included). */
  list(principal: Principal): Effect.Effect<ReadonlyArray<ApiScheduledMessage>>
  /** The same list for any user: POST /register's `scheduled_messages`. */
  listForUser(userId: UserId): Effect.Effect<ReadonlyArray<ApiScheduledMessage>>
  /** POST /scheduled_messages. */
  create(principal: Principal, request: ScheduleRequest, options?: ScheduleOptions): Effect.Effect<ScheduledMessageId, ScheduleError>
  /** PATCH /scheduled_messages/{id}. */
  update(
    principal: Principal,
    id: number,
    request: ScheduleUpdate,
    options?: ScheduleOptions
  ): Effect.Effect<void, UpdateError>
  /** DELETE /scheduled_messages/{id}. */
  remove(principal: Principal, id: number): Effect.Effect<void, ScheduledMessageNotFound>
  /**
   * A waiter for the next committed create or edit in this process, taken
   * before the delivery worker reads the next delivery time so that no
   * change slips in between. Other processes' changes are found by the
   * worker's periodic re-check.
   */
  readonly nextChange: Effect.Effect<Effect.Effect<void>>
}>()("teamchat/core/services/ScheduledMessages") {
  static readonly layer = Layer.effect(
    ScheduledMessages,
    Effect.gen(function*() {
      const messages = yield* Messages
      const repo = yield* ScheduledMessageRepo
      const realms = yield* RealmRepo
      const events = yield* Events
      const tx = yield* Transactor
      const loadAccess = yield* makeAccessLoader

      let changed = Deferred.makeUnsafe<void>()
      const notifyChange = Effect.sync(() => {
        const done = changed
        changed = Deferred.makeUnsafe<void>()
        Deferred.doneUnsafe(done, Exit.void)
      })

      const publish = (sender: UserId, realm: Principal["realm"], event: EventOf<"scheduled_messages">) =>
        events.publish(realm.id, event, Audience.users([sender]))

      const requireFuture = Effect.fnUntraced(function*(timestamp: number) {
        const now = yield* Clock.currentTimeMillis
        if (timestamp * 1000 <= now) return yield* new ScheduledDeliveryTimeNotInFuture()
      })

      /** The `to` of a send request: channel ids as given, user ids deduplicated; emails refused. */
      const recipient = (
        type: "stream" | "private",
        to: ScheduledRecipient
      ): Effect.Effect<SendRequest["to"], RecipientListUserIdsOnly | InvalidParameter> => {
        const list = typeof to === "number" ? [to] : to
        if (type === "stream") {
          return list.every((x) => typeof x === "number")
            ? Effect.succeed(to)
            : Effect.fail(new InvalidParameter({ var_name: "to" }))
        }
        if (!list.every((x) => typeof x === "number")) return Effect.fail(new RecipientListUserIdsOnly())
        return Effect.succeed(Array.from(new Set(list)))
      }

      /** The stored parts of a validated message, rendered as the sender sees the organization now. */
      const fromValidated = Effect.fnUntraced(function*(principal: Principal, validated: ValidatedMessage) {
        const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
        const ctx = yield* loadAccess(realm)
        const destination = validated.destination
        return {
          type: destination._tag === "channel" ? "stream" : "private",
          channel_id: destination._tag === "channel" ? destination.channel.id : null,
          topic: destination._tag === "channel" ? destination.topic : "",
          dm_user_ids: destination._tag === "channel" ? [] : destination.participants,
          content: validated.content,
          rendered_content: render(validated.content, renderContextFor(ctx, validated.sender)).html
        } satisfies Partial<ScheduledMessage>
      })

      const isSelfOnly = (sender: User, validated: ValidatedMessage) =>
        validated.destination._tag === "direct" &&
        validated.destination.participants.every((id) => id === sender.id)

      const listForUser = Effect.fn("ScheduledMessages.listForUser")(function*(userId: UserId) {
        return (yield* repo.listUndelivered(userId)).map(toApiScheduledMessage)
      })

      const create = Effect.fn("ScheduledMessages.create")(function*(
        principal: Principal,
        request: ScheduleRequest,
        options?: ScheduleOptions
      ) {
        yield* requireFuture(request.scheduled_delivery_timestamp)
        const type = storedType(request.type)
        const client = options?.client ?? "API"
        const validated = yield* messages.validate(principal, {
          type,
          to: yield* recipient(type, request.to),
          topic: request.topic,
          content: request.content,
          read_by_sender: request.read_by_sender
        }, { client })
        // Zulip's default: read for the sender when typed in a full client,
        // but a note to oneself stays unread (it is a reminder).
        const readBySender = request.read_by_sender ??
          (validated.read_by_sender && !isSelfOnly(principal.user, validated))
        return yield* tx.withTransaction(Effect.gen(function*() {
          const parts = yield* fromValidated(principal, validated)
          const row: Insert<ScheduledMessage> = {
            realm_id: principal.realm.id,
            sender_id: principal.user.id,
            ...parts,
            scheduled_timestamp: request.scheduled_delivery_timestamp,
            read_by_sender: readBySender,
            client,
            delivered: false,
            delivered_message_id: null,
            failed: false,
            failure_message: null
          }
          const inserted = yield* repo.insert(row)
          yield* publish(principal.user.id, principal.realm, { type: "scheduled_messages", op: "add", scheduled_messages: [toApiScheduledMessage(inserted)] })
          yield* tx.afterCommit(notifyChange)
          return inserted.id
        }))
      })

      /** The caller's row, locked for the transaction; someone else's is "not found". */
      const access = Effect.fnUntraced(function*(principal: Principal, id: number) {
        const row = yield* Option.match(ScheduledMessageId.makeOption(id), {
          onNone: () => Effect.succeed(undefined),
          onSome: repo.lock
        })
        if (row === undefined || row.sender_id !== principal.user.id) return yield* new ScheduledMessageNotFound()
        return row
      })

      const update = Effect.fn("ScheduledMessages.update")(function*(
        principal: Principal,
        id: number,
        request: ScheduleUpdate,
        options?: ScheduleOptions
      ) {
        // Zulip's order of checks: the request itself first, then the row.
        if (
          request.type === undefined && request.to === undefined && request.topic === undefined &&
          request.content === undefined && request.scheduled_delivery_timestamp === undefined
        ) {
          return yield* new NothingToChange()
        }
        if (request.type !== undefined && request.to === undefined) return yield* new ScheduledRecipientRequired()
        const newType = request.type === undefined ? undefined : storedType(request.type)
        if (newType === "stream" && request.topic === undefined) return yield* new ScheduledTopicRequired()
        if (request.scheduled_delivery_timestamp !== undefined) yield* requireFuture(request.scheduled_delivery_timestamp)
        const client = options?.client ?? "API"
        yield* tx.withTransaction(Effect.gen(function*() {
          const row = yield* access(principal, id)
          if (row.delivered) return yield* new ScheduledMessageAlreadySent()
          // A failed message goes back to pending only with a new time.
          if (row.failed && request.scheduled_delivery_timestamp === undefined) {
            return yield* new ScheduledDeliveryTimeNotInFuture()
          }
          let next: ScheduledMessage = row
          const type = newType ?? row.type
          // A topic on a direct message is ignored.
          const topicChanged = request.topic !== undefined && type === "stream"
          if (request.type !== undefined || request.to !== undefined || request.content !== undefined || topicChanged) {
            const to = request.to !== undefined
              ? yield* recipient(type, request.to)
              : type === "stream"
              ? row.channel_id ?? 0
              : directRecipientIds(row)
            const validated = yield* messages.validate(principal, {
              type,
              to,
              topic: request.topic ?? row.topic,
              content: request.content ?? row.content,
              read_by_sender: row.read_by_sender
            }, { client })
            next = { ...next, ...(yield* fromValidated(principal, validated)) }
          }
          next = {
            ...next,
            scheduled_timestamp: request.scheduled_delivery_timestamp ?? row.scheduled_timestamp,
            client,
            failed: false,
            failure_message: null
          }
          yield* repo.update(next)
          yield* publish(principal.user.id, principal.realm, { type: "scheduled_messages", op: "update", scheduled_message: toApiScheduledMessage(next) })
          yield* tx.afterCommit(notifyChange)
        }))
      })

      const remove = Effect.fn("ScheduledMessages.remove")((principal: Principal, id: number) =>
        tx.withTransaction(Effect.gen(function*() {
          const row = yield* access(principal, id)
          yield* repo.delete(row.id)
          yield* publish(principal.user.id, principal.realm, { type: "scheduled_messages", op: "remove", scheduled_message_id: row.id })
        }))
      )

      return ScheduledMessages.of({
        list: (principal) => listForUser(principal.user.id),
        listForUser,
        create,
        update,
        remove,
        nextChange: Effect.sync(() => Deferred.await(changed))
      })
    })
  )
}
