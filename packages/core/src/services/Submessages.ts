/**
 * POST /submessage: data attached to a message, the votes, options and tasks
 * of its widget (`domain/Widget.ts`). A widget's first submessage is written
 * with its message (`Messages`); this adds the ones after it.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Audience } from "../domain/Event.ts"
import { MessageId } from "../domain/Ids.ts"
import type { SubmessageId } from "../domain/Ids.ts"
import type { Principal } from "../domain/Principal.ts"
import { checkWidgetData, parseSubmessageContent, widgetTypeOf } from "../domain/Widget.ts"
import { BadRequest, InvalidMessages, InvalidSubmessageJson, SubmessageNotAllowed } from "../errors/Errors.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import { MessageRepo, RealmRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"
import { makeAccessLoader } from "./internal/access.ts"
import { messageActionAudience, modifiableMessage } from "./internal/messageAccess.ts"

/** What POST /submessage asks for. @category models */
export interface SubmessageRequest {
  readonly message_id: number
  readonly msg_type: string
  /** JSON text, stored as sent. */
  readonly content: string
}

/** @category models */
export type SubmessageError = InvalidMessages | SubmessageNotAllowed | InvalidSubmessageJson | BadRequest

/** @category services */
export class Submessages extends Context.Service<Submessages, {
  /**
   * POST /submessage: checks access (a message in an archived channel is
   * refused like an inaccessible one), that the first submessage of a
   * message comes from its sender, and the data against the message's
   * widget; stores it and announces it (`submessage`) after commit.
   */
  add(principal: Principal, request: SubmessageRequest): Effect.Effect<SubmessageId, SubmessageError>
}>()("teamchat/core/services/Submessages") {
  static readonly layer = Layer.effect(
    Submessages,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const messages = yield* MessageRepo
      const store = yield* MessageStore
      const realms = yield* RealmRepo
      const events = yield* Events
      const tx = yield* Transactor

      const add = Effect.fn("Submessages.add")(function*(principal: Principal, request: SubmessageRequest) {
        const id = Option.getOrUndefined(MessageId.makeOption(request.message_id))
        if (id === undefined) return yield* new InvalidMessages()
        return yield* tx.withTransaction(Effect.gen(function*() {
          // Locked first: a deletion waits until the submessage commits, or happened before.
          if (!(yield* store.lockMessage(id))) return yield* new InvalidMessages()
          const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
          const ctx = yield* loadAccess(realm)
          const found = yield* modifiableMessage(messages, ctx, principal.user, yield* messages.findById(id))
          if (found === undefined) return yield* new InvalidMessages()
          const { channel, message } = found
          const existing = yield* store.submessages([id])
          const isAuthor = message.sender_id === principal.user.id
          if (!isAuthor && !existing.some((s) => s.sender_id === message.sender_id)) {
            return yield* new SubmessageNotAllowed()
          }
          const parsed = parseSubmessageContent(request.content)
          if (parsed === undefined) return yield* new InvalidSubmessageJson()
          const refusal = checkWidgetData(widgetTypeOf(existing), parsed.value, isAuthor)
          if (refusal !== undefined) return yield* new BadRequest({ msg: refusal })
          const submessage = yield* store.addSubmessage({
            message_id: id,
            sender_id: principal.user.id,
            msg_type: request.msg_type,
            content: request.content
          })
          const audience = yield* messageActionAudience(messages, ctx, channel, [id])
          yield* events.publish(realm.id, {
            type: "submessage",
            msg_type: submessage.msg_type,
            message_id: submessage.message_id,
            submessage_id: submessage.id,
            sender_id: submessage.sender_id,
            content: submessage.content
          }, Audience.users(audience))
          return submessage.id
        }))
      })

      return Submessages.of({ add })
    })
  )
}
