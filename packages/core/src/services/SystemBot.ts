/**
 * The organization's system bots (the Welcome Bot, the Notification Bot):
 * the one find-or-create both use, and their direct messages.
 *
 * Zulip's cross-organization system bots (welcome-bot@zulip.com,
 * notification-bot@zulip.com) become one bot user per organization under
 * that same address (addresses are unique per organization, and clients
 * recognise them), created on first use: a generic bot without owner. Only
 * they may take those addresses (`Users.create`'s `systemBot`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { MessageId, RealmId, UserId } from "../domain/Ids.ts"
import type { Realm } from "../domain/Realm.ts"
import { BotTypes, Roles } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import { UserRepo } from "../ports/Repositories.ts"
import { Messages } from "./Messages.ts"
import type { SendError } from "./Messages.ts"
import { Users } from "./Users.ts"

/** The `client` of the bots' messages (Zulip's internal sends). @category constants */
export const InternalClient = "Internal"

/** Which system bot: its address and name. @category models */
export interface SystemBotSpec {
  readonly email: string
  readonly full_name: string
}

/** One system bot of every organization, as `make` builds it. @category models */
export interface SystemBot {
  /** The organization's bot, created when missing. */
  readonly bot: (realmId: RealmId) => Effect.Effect<User>
  /** A direct message from the bot to one user, through `Messages.send`. */
  readonly sendDirect: (realm: Realm, to: UserId, content: string) => Effect.Effect<MessageId, SendError>
}

/**
 * The bot `spec` names, bound to the layer's services. Concurrent first
 * uses, in one process or several, end with one bot: `Users.create` takes
 * the organization's address lock and refuses a taken address, and the
 * refused call then finds the row the other committed.
 *
 * @category constructors
 */
export const make = (spec: SystemBotSpec): Effect.Effect<SystemBot, never, Users | UserRepo | Messages> =>
  Effect.gen(function*() {
    const users = yield* Users
    const userRepo = yield* UserRepo
    const messages = yield* Messages

    const find = (realmId: RealmId) =>
      Effect.map(userRepo.findByDeliveryEmail(realmId, spec.email), (u) => (u?.is_bot === true ? u : undefined))

    const bot = Effect.fn("SystemBot.bot")(function*(realmId: RealmId) {
      const existing = yield* find(realmId)
      if (existing !== undefined) return existing
      return yield* users.create(realmId, {
        email: spec.email,
        full_name: spec.full_name,
        role: Roles.member,
        bot: { bot_type: BotTypes.generic, owner_id: null },
        systemBot: true
      }).pipe(
        // Another transaction created it first: its row is the bot.
        Effect.catch((error) =>
          Effect.flatMap(find(realmId), (u) => (u !== undefined ? Effect.succeed(u) : Effect.die(error)))
        )
      )
    })

    const sendDirect = Effect.fn("SystemBot.sendDirect")(function*(realm: Realm, to: UserId, content: string) {
      const sender = yield* bot(realm.id)
      const sent = yield* messages.send({ user: sender, realm }, { type: "private", to: [to], content }, {
        client: InternalClient
      })
      return sent.id
    })

    return { bot, sendDirect }
  })
