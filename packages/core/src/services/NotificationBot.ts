/**
 * The organization's Notification Bot: the sender of messages the server
 * itself writes to users (e.g. "your scheduled message was not sent").
 *
 * Zulip has one cross-organization system bot, notification-bot@zulip.com.
 * Here each organization gets its own bot user under that same address
 * (addresses are unique per organization, and clients recognise it),
 * created on first use: a generic bot without owner, named
 * "Notification Bot".
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { MessageId, RealmId, UserId } from "../domain/Ids.ts"
import { BotTypes, Roles } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import { RealmRepo, UserRepo } from "../ports/Repositories.ts"
import { Messages } from "./Messages.ts"
import type { SendError } from "./Messages.ts"
import { Users } from "./Users.ts"

/** @category constants */
export const NotificationBotEmail = "notification-bot@zulip.com"
/** @category constants */
export const NotificationBotName = "Notification Bot"
/** The `client` of the bot's messages (Zulip's internal sends). @category constants */
export const InternalClient = "Internal"

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
      const users = yield* Users
      const userRepo = yield* UserRepo
      const realms = yield* RealmRepo
      const messages = yield* Messages

      const find = (realmId: RealmId) =>
        Effect.map(userRepo.findByDeliveryEmail(realmId, NotificationBotEmail), (u) => (u?.is_bot === true ? u : undefined))

      const bot = Effect.fn("NotificationBot.bot")(function*(realmId: RealmId) {
        const existing = yield* find(realmId)
        if (existing !== undefined) return existing
        // Another transaction may create it first; then its row is used.
        return yield* users.create(realmId, {
          email: NotificationBotEmail,
          full_name: NotificationBotName,
          role: Roles.member,
          bot: { bot_type: BotTypes.generic, owner_id: null },
          systemBot: true
        }).pipe(
          Effect.catch((error) =>
            Effect.flatMap(find(realmId), (u) => (u !== undefined ? Effect.succeed(u) : Effect.die(error)))
          )
        )
      })

      const sendDirect = Effect.fn("NotificationBot.sendDirect")(function*(realmId: RealmId, to: UserId, content: string) {
        const realm = yield* realms.findById(realmId)
        if (realm === undefined) return yield* Effect.die(new Error(`realm ${realmId} missing`))
        const sender = yield* bot(realmId)
        const sent = yield* messages.send({ user: sender, realm }, { type: "private", to: [to], content }, {
          client: InternalClient
        })
        return sent.id
      })

      return NotificationBot.of({ bot, sendDirect })
    })
  )
}
