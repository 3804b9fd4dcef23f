/**
 * The organization's Welcome Bot: the sender of the welcome message a person
 * gets on joining through an invitation link.
 *
 * Like the Notification Bot (see `NotificationBot.ts`), Zulip's
 * cross-organization system bot welcome-bot@zulip.com becomes one bot user
 * per organization under that address, created on first use: a generic bot
 * without owner, named "Welcome Bot".
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { MessageId, RealmId } from "../domain/Ids.ts"
import type { Realm } from "../domain/Realm.ts"
import { BotTypes, Roles } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import { UserRepo } from "../ports/Repositories.ts"
import { Messages } from "./Messages.ts"
import type { SendError } from "./Messages.ts"
import { InternalClient } from "./NotificationBot.ts"
import { Users } from "./Users.ts"

/** @category constants */
export const WelcomeBotEmail = "welcome-bot@zulip.com"
/** @category constants */
export const WelcomeBotName = "Welcome Bot"

/**
 * The welcome message of an organization that set no text of its own
 * (teamchat's wording, Markdown).
 *
 * @category constructors
 */
export const defaultWelcomeMessage = (realm: Pick<Realm, "name">): string =>
  `Hello, and welcome to **${realm.name}**!\n\n` +
  "Channels are where conversations happen; each message has a topic, so several conversations " +
  "can go on in one channel without getting mixed up. You have been subscribed to the channels " +
  "your invitation named. Reply here any time; this conversation is only between you and me."

/** @category services */
export class WelcomeBot extends Context.Service<WelcomeBot, {
  /** The organization's bot, created when missing. */
  bot(realmId: RealmId): Effect.Effect<User>
  /** A direct message from the bot to `to`, through `Messages.send`. */
  welcome(realm: Realm, to: User, content: string): Effect.Effect<MessageId, SendError>
}>()("teamchat/core/services/WelcomeBot") {
  static readonly layer = Layer.effect(
    WelcomeBot,
    Effect.gen(function*() {
      const users = yield* Users
      const userRepo = yield* UserRepo
      const messages = yield* Messages

      const find = (realmId: RealmId) =>
        Effect.map(userRepo.findByDeliveryEmail(realmId, WelcomeBotEmail), (u) => (u?.is_bot === true ? u : undefined))

      const bot = Effect.fn("WelcomeBot.bot")(function*(realmId: RealmId) {
        const existing = yield* find(realmId)
        if (existing !== undefined) return existing
        return yield* users.create(realmId, {
          email: WelcomeBotEmail,
          full_name: WelcomeBotName,
          role: Roles.member,
          bot: { bot_type: BotTypes.generic, owner_id: null },
          systemBot: true
        }).pipe(
          Effect.catch((error) =>
            Effect.flatMap(find(realmId), (u) => (u !== undefined ? Effect.succeed(u) : Effect.die(error)))
          )
        )
      })

      const welcome = Effect.fn("WelcomeBot.welcome")(function*(realm: Realm, to: User, content: string) {
        const sender = yield* bot(realm.id)
        const sent = yield* messages.send({ user: sender, realm }, { type: "private", to: [to.id], content }, {
          client: InternalClient
        })
        return sent.id
      })

      return WelcomeBot.of({ bot, welcome })
    })
  )
}
