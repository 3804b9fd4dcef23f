/**
 * The organization's Welcome Bot: the sender of the welcome message a person
 * gets on joining through an invitation link.
 *
 * A system bot (see `SystemBot.ts`) named "Welcome Bot" under Zulip's
 * welcome-bot@zulip.com.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { MessageId, RealmId } from "../domain/Ids.ts"
import type { Realm } from "../domain/Realm.ts"
import type { User } from "../domain/User.ts"
import type { SendError } from "./Messages.ts"
import * as SystemBot from "./SystemBot.ts"

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
    Effect.map(SystemBot.make({ email: WelcomeBotEmail, full_name: WelcomeBotName }), (system) =>
      WelcomeBot.of({
        bot: system.bot,
        welcome: (realm, to, content) => system.sendDirect(realm, to.id, content)
      }))
  )
}
