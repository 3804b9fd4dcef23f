/**
 * The demo organization, mirroring Zulip's development server data so that
 * clients and scripts written against `zulipdev` work unchanged.
 *
 * @since 0.1.0
 */
import type { BotType, Role } from "../domain/Role.ts"
import { demoStringId } from "../permissions/DevLogin.ts"

/** @category models */
export interface DemoUser {
  readonly email: string
  readonly full_name: string
  readonly role: Role
  readonly timezone: string
}

/** @category models */
export interface DemoBot {
  readonly email: string
  readonly full_name: string
  readonly bot_type: BotType
  readonly owner: string
}

/** @category models */
export interface DemoChannel {
  readonly name: string
  readonly description: string
  readonly invite_only: boolean
  readonly is_web_public: boolean
}

/** @category constants */
export const realm = {
  string_id: demoStringId,
  name: "Zulip Dev",
  description: "The Zulip development environment default organization.  It's great for testing!",
  fake_email_domain: "zulipdev.com"
} as const

/** The password every demo account accepts at POST /fetch_api_key. @category constants */
export const password = "teamchat-demo"

/** The organization owner, created with the organization. @category constants */
export const owner: DemoUser = {
  email: "desdemona@zulip.com",
  full_name: "Desdemona",
  role: 100,
  timezone: "Canada/Newfoundland"
}

/** The other people, in the order Zulip's populate_db creates them. @category constants */
export const users: ReadonlyArray<DemoUser> = [
  { email: "ZOE@zulip.com", full_name: "Zoe", role: 400, timezone: "US/Eastern" },
  { email: "othello@zulip.com", full_name: "Othello, the Moor of Venice", role: 400, timezone: "US/Pacific" },
  { email: "iago@zulip.com", full_name: "Iago", role: 200, timezone: "US/Eastern" },
  { email: "prospero@zulip.com", full_name: "Prospero from The Tempest", role: 400, timezone: "" },
  { email: "cordelia@zulip.com", full_name: "Cordelia, Lear's daughter", role: 400, timezone: "UTC" },
  { email: "hamlet@zulip.com", full_name: "King Hamlet", role: 400, timezone: "" },
  { email: "AARON@zulip.com", full_name: "aaron", role: 400, timezone: "US/Pacific" },
  { email: "polonius@zulip.com", full_name: "Polonius", role: 600, timezone: "Asia/Shanghai" },
  { email: "shiva@zulip.com", full_name: "शिव", role: 300, timezone: "Asia/Kolkata" }
]

/** @category constants */
export const bots: ReadonlyArray<DemoBot> = [
  { email: "default-bot@zulip.com", full_name: "Zulip Default Bot", bot_type: 1, owner: "desdemona@zulip.com" },
  { email: "webhook-bot@zulip.com", full_name: "Zulip Webhook Bot", bot_type: 2, owner: "ZOE@zulip.com" },
  { email: "outgoing-webhook@zulip.com", full_name: "Outgoing Webhook", bot_type: 3, owner: "AARON@zulip.com" },
  { email: "commit-bot@zulip.com", full_name: "Zulip Commit Bot", bot_type: 1, owner: "desdemona@zulip.com" },
  { email: "trac-bot@zulip.com", full_name: "Zulip Trac Bot", bot_type: 1, owner: "desdemona@zulip.com" },
  { email: "nagios-bot@zulip.com", full_name: "Zulip Nagios Bot", bot_type: 1, owner: "desdemona@zulip.com" }
]

/**
 * Channels in the order whose prefixes populate_db hands out as
 * subscriptions (Zulip's own "Zulip" announcement channel is not modelled).
 *
 * @category constants
 */
export const channels: ReadonlyArray<DemoChannel> = [
  { name: "Verona", description: "A city in Italy", invite_only: false, is_web_public: false },
  { name: "Denmark", description: "A Scandinavian country", invite_only: false, is_web_public: false },
  { name: "Scotland", description: "Located in the United Kingdom", invite_only: false, is_web_public: false },
  { name: "Venice", description: "A northeastern Italian city", invite_only: false, is_web_public: false },
  { name: "Rome", description: "Yet another Italian city", invite_only: false, is_web_public: true },
  { name: "core team", description: "A private channel for core team members", invite_only: true, is_web_public: false },
  { name: "sandbox", description: "Experiment with Zulip here. :test_tube:", invite_only: false, is_web_public: false }
]

/**
 * populate_db's rule: people sorted by email (code-point order, so
 * upper-case addresses first); person i of n gets the first
 * floor(L * i / n) + 1 of the L channels.
 *
 * @category rules
 */
export const subscriptionPlan = (
  people: ReadonlyArray<string>,
  channelNames: ReadonlyArray<string>
): ReadonlyArray<readonly [email: string, channels: ReadonlyArray<string>]> => {
  const sorted = [...people].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return sorted.map((email, i) => [
    email,
    channelNames.slice(0, Math.floor((channelNames.length * i) / sorted.length) + 1)
  ] as const)
}
