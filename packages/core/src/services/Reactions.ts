/**
 * Emoji reactions: POST and DELETE /messages/{message_id}/reactions, and the
 * `reaction` event.
 *
 * Each request is one transaction with the message's row locked first
 * (Zulip's `lock_message`), so reactions to one message are decided one at
 * a time and a deletion of the message either waits for them or makes them
 * find no message ("Invalid message(s)"). An emoji named without its code
 * or type is looked up by name; a reaction with an emoji someone already
 * reacted with is a vote, which takes that reaction's name and is not
 * checked again; otherwise the triple must agree with itself. Reacting to
 * a message one has no row of (channel history) gives a `historical` row.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import { MessageId } from "../domain/Ids.ts"
import { FlagBits } from "../domain/Message.ts"
import type { Message, Reaction } from "../domain/Message.ts"
import type { Principal } from "../domain/Principal.ts"
import * as Errors from "../errors/Errors.ts"
import { MessageStore } from "../ports/MessageStore.ts"
import { MessageRepo, RealmRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { Events } from "./events/Events.ts"
import { makeAccessLoader } from "./internal/access.ts"
import type { AccessContext } from "./internal/access.ts"
import { checkEmojiTriple, lookupEmoji } from "./internal/emoji.ts"
import { messageActionAudience, modifiableMessage } from "./internal/messageAccess.ts"

/** POST /messages/{message_id}/reactions: the emoji by name, with its code and type when known. @category models */
export interface AddReaction {
  readonly emoji_name: string
  readonly emoji_code?: string | undefined
  readonly reaction_type?: string | undefined
}

/** DELETE /messages/{message_id}/reactions: the emoji by name or code; the type defaults to `unicode_emoji`. @category models */
export interface RemoveReaction {
  readonly emoji_name?: string | undefined
  readonly emoji_code?: string | undefined
  readonly reaction_type?: string | undefined
}

/** @category errors */
export type AddReactionError =
  | Errors.InvalidMessages
  | Errors.EmojiDoesNotExist
  | Errors.ReactionAlreadyExists
  | Errors.InvalidEmojiName
  | Errors.InvalidEmojiCode
  | Errors.InvalidEmojiType
  | Errors.InvalidCustomEmoji

/** @category errors */
export type RemoveReactionError =
  | Errors.InvalidMessages
  | Errors.EmojiNameOrCodeRequired
  | Errors.EmojiDoesNotExist
  | Errors.ReactionDoesNotExist

/** @category services */
export class Reactions extends Context.Service<Reactions, {
  /** POST /messages/{message_id}/reactions. */
  add(principal: Principal, messageId: number, request: AddReaction): Effect.Effect<void, AddReactionError>
  /** DELETE /messages/{message_id}/reactions. */
  remove(principal: Principal, messageId: number, request: RemoveReaction): Effect.Effect<void, RemoveReactionError>
}>()("teamchat/core/services/Reactions") {
  static readonly layer = Layer.effect(
    Reactions,
    Effect.gen(function*() {
      const loadAccess = yield* makeAccessLoader
      const messages = yield* MessageRepo
      const store = yield* MessageStore
      const realms = yield* RealmRepo
      const events = yield* Events
      const tx = yield* Transactor

      /**
       * Zulip's `access_message(..., lock_message=True, is_modifying_message=True)`:
       * the message, locked, when the user may change it; with whether the
       * user has a row of it.
       */
      const lockAccessible = Effect.fnUntraced(function*(principal: Principal, ctx: AccessContext, id: number) {
        const messageId = Option.getOrUndefined(MessageId.makeOption(id))
        if (messageId === undefined) return yield* new Errors.InvalidMessages()
        const message = yield* messages.findByIdForUpdate(messageId)
        const found = yield* modifiableMessage(messages, ctx, principal.user, message)
        if (found === undefined) return yield* new Errors.InvalidMessages()
        return { message: found.message, hasRow: found.flags !== undefined }
      })

      const publish = Effect.fnUntraced(function*(
        principal: Principal,
        ctx: AccessContext,
        message: Message,
        op: "add" | "remove",
        reaction: Reaction
      ) {
        const channel = message.channel_id === null ? undefined : ctx.channelsById.get(message.channel_id)
        const audience = yield* messageActionAudience(messages, ctx, channel, [message.id])
        const user = principal.user
        const event: EventOf<"reaction"> = {
          type: "reaction",
          op,
          user_id: user.id,
          // Deprecated, still read by older mobile clients.
          user: { user_id: user.id, email: user.email, full_name: user.full_name },
          message_id: message.id,
          emoji_name: reaction.emoji_name,
          emoji_code: reaction.emoji_code,
          reaction_type: reaction.reaction_type
        }
        yield* events.publish(ctx.state.realm.id, event, Audience.users(audience))
      })

      const contextOf = Effect.fnUntraced(function*(principal: Principal) {
        const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
        return yield* loadAccess(realm)
      })

      const add = Effect.fn("Reactions.add")((principal: Principal, id: number, request: AddReaction) =>
        tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* contextOf(principal)
          const { hasRow, message } = yield* lockAccessible(principal, ctx, id)
          let code = request.emoji_code
          let type = request.reaction_type
          if (code === undefined || type === undefined) {
            const found = yield* lookupEmoji(request.emoji_name)
            code ??= found.code
            type ??= found.type
          }
          const existing = yield* messages.reactions([message.id])
          if (existing.some((r) => r.user_id === principal.user.id && r.emoji_code === code && r.reaction_type === type)) {
            return yield* new Errors.ReactionAlreadyExists()
          }
          // A vote for an emoji already on the message keeps the name it was first given.
          const vote = existing.find((r) => r.emoji_code === code && r.reaction_type === type)
          const reaction: Reaction = {
            message_id: message.id,
            user_id: principal.user.id,
            emoji_name: vote?.emoji_name ?? request.emoji_name,
            emoji_code: code,
            reaction_type: vote?.reaction_type ?? (yield* checkEmojiTriple(request.emoji_name, code, type))
          }
          if (!hasRow) {
            yield* store.insertUserMessages([{
              user_id: principal.user.id,
              message_id: message.id,
              flags: FlagBits.read | FlagBits.historical
            }])
          }
          if (!(yield* store.addReaction(reaction))) return yield* new Errors.ReactionAlreadyExists()
          yield* publish(principal, ctx, message, "add", reaction)
        })))

      const remove = Effect.fn("Reactions.remove")((principal: Principal, id: number, request: RemoveReaction) =>
        tx.withTransaction(Effect.gen(function*() {
          const ctx = yield* contextOf(principal)
          const { message } = yield* lockAccessible(principal, ctx, id)
          let code = request.emoji_code
          if (code === undefined) {
            if (request.emoji_name === undefined) return yield* new Errors.EmojiNameOrCodeRequired()
            code = (yield* lookupEmoji(request.emoji_name)).code
          }
          const type = request.reaction_type ?? "unicode_emoji"
          // Any other type names no stored reaction.
          const removed = type === "unicode_emoji" || type === "realm_emoji" || type === "zulip_extra_emoji"
            ? yield* store.removeReaction({ message_id: message.id, user_id: principal.user.id, emoji_code: code, reaction_type: type })
            : undefined
          if (removed === undefined) return yield* new Errors.ReactionDoesNotExist()
          yield* publish(principal, ctx, message, "remove", removed)
        })))

      return Reactions.of({ add, remove })
    })
  )
}
