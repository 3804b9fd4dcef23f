/**
 * DELETE /messages/{message_id}: deleting one message.
 *
 * The message is read under a row lock first, so two deletions of it (or a
 * deletion and a write that adds rows to it) run one after the other on
 * PostgreSQL: the later deletion finds nothing and answers "Invalid
 * message(s)", as it would for any deleted message. Who may delete what is
 * `permissions/MessageDeletion.ts`; the deletion and its events are shared
 * with delete_topic (`internal/messageDeletion.ts`).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { MessageId } from "../domain/Ids.ts"
import type { Principal } from "../domain/Principal.ts"
import { CannotDeleteMessage, InvalidMessages, MessageDeleteTimeLimitPassed } from "../errors/Errors.ts"
import { hasGroupPermission } from "../permissions/GroupMembership.ts"
import { deletionDecision } from "../permissions/MessageDeletion.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import { ChannelRepo, MessageRepo, RealmRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"
import { makeAccessLoader } from "./internal/access.ts"
import { modifiableMessage } from "./internal/messageAccess.ts"
import { deleteMessages } from "./internal/messageDeletion.ts"

/** @category errors */
export type DeleteMessageError = InvalidMessages | CannotDeleteMessage | MessageDeleteTimeLimitPassed

/** @category services */
export class MessageDeletion extends Context.Service<MessageDeletion, {
  /** DELETE /messages/{message_id}: the message and everything attached to it, announced by `delete_message`. */
  deleteMessage(principal: Principal, messageId: number): Effect.Effect<void, DeleteMessageError>
}>()("teamchat/core/services/MessageDeletion") {
  static readonly layer = Layer.effect(
    MessageDeletion,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const messages = yield* MessageRepo
      const realms = yield* RealmRepo
      const events = yield* Events
      const tx = yield* Transactor
      // What the shared deletion reads and writes, bound once.
      const context = yield* Effect.context<MessageRepo | MessageStore | ChannelRepo>()

      const deleteMessage = Effect.fn("MessageDeletion.deleteMessage")(function*(principal: Principal, id: number) {
        const messageId = Option.getOrUndefined(MessageId.makeOption(id))
        if (messageId === undefined) return yield* new InvalidMessages()
        yield* tx.withTransaction(Effect.gen(function*() {
          const [locked] = yield* messages.findByIdsLocked([messageId], "update")
          const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
          const ctx = yield* loadAccess(realm)
          const user = principal.user
          const found = yield* modifiableMessage(messages, ctx, user, locked)
          if (found === undefined) return yield* new InvalidMessages()
          const { channel, message } = found
          const sender = ctx.state.usersById.get(message.sender_id)
          const decision = deletionDecision({
            userId: user.id,
            sender: { id: message.sender_id, bot_owner_id: sender?.bot_owner_id ?? null },
            realm: realm.settings,
            channel: channel?.settings,
            holds: (value, options) => hasGroupPermission(ctx.state.index, user, value, options),
            ageSeconds: (yield* Clock.currentTimeMillis) / 1000 - message.date_sent
          })
          if (decision === "not_permitted") return yield* new CannotDeleteMessage()
          if (decision === "time_limit_passed") return yield* new MessageDeleteTimeLimitPassed()
          const { publications } = yield* Effect.provideContext(
            deleteMessages({ ctx, actorId: user.id, channel, messages: [message] }),
            context
          )
          yield* events.publishAll(realm.id, publications)
        }))
      })

      return MessageDeletion.of({ deleteMessage })
    })
  )
}
