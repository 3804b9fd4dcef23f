/**
 * The organization's Notification Bot: the sender of messages the server
 * itself writes to users (e.g. "your scheduled message was not sent").
 * A system bot (see `SystemBot.ts`) named "Notification Bot" under Zulip's
 * notification-bot@zulip.com.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { MessageId, RealmId, UserId } from "../domain/Ids.ts"
import type { User } from "../domain/User.ts"
import { RealmRepo } from "../ports/Repositories.ts"
import type { SendError } from "./Messages.ts"
import * as SystemBot from "./SystemBot.ts"

/** @category constants */
export const NotificationBotEmail = "notification-bot@zulip.com"
/** @category constants */
export const NotificationBotName = "Notification Bot"
/** The `client` of the bot's messages (Zulip's internal sends). @category constants */
export const InternalClient = SystemBot.InternalClient

/** @category services */
export class NotificationBot extends Context.Service<NotificationBot, {
  /** The organization's bot, created when missing. */
  bot(realmId: RealmId): Effect.Effect<User>
  /** A direct message from the bot to one user, through `Messages.send`. */
  sendDirect(realmId: RealmId, to: UserId, content: string): Effect.Effect<MessageId, SendError>
}>()("teamchat/core/services/NotificationBot") {
  static readonly layer = Layer.effect(
    NotificationBot,
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const system = yield* SystemBot.make({ email: NotificationBotEmail, full_name: NotificationBotName })

      const sendDirect = Effect.fn("NotificationBot.sendDirect")(function*(realmId: RealmId, to: UserId, content: string) {
        const realm = yield* realms.findById(realmId)
        if (realm === undefined) return yield* Effect.die(new Error(`realm ${realmId} missing`))
        return yield* system.sendDirect(realm, to, content)
      })

      return NotificationBot.of({ bot: system.bot, sendDirect })
    })
  )
}
