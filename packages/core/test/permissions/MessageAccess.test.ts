/**
 * Who may read or change a message, and who hears of an action on it
 * (section 1 of the messaging reference), as tables: every role against
 * every kind of channel, history setting, row and archived state, for both
 * purposes; then the audience for each kind of message.
 */
import { assert, describe, it } from "@effect/vitest"
import type { GroupSettingValue } from "../../src/domain/GroupSetting.ts"
import { groupId, userId } from "../../src/domain/Ids.ts"
import type { UserId } from "../../src/domain/Ids.ts"
import { Roles } from "../../src/domain/Role.ts"
import type { User } from "../../src/domain/User.ts"
import type { AccessChannel } from "../../src/permissions/ChannelAccess.ts"
import { actionAudience, hasMessageAccess } from "../../src/permissions/MessageAccess.ts"
import type { MessageAccessInput, MessageAccessPurpose } from "../../src/permissions/MessageAccess.ts"
import { makeUser } from "../support/Users.ts"

const nobody = groupId(1)
const granting = groupId(2)

const roles: ReadonlyArray<readonly [string, User]> = [
  ["owner", makeUser(1, Roles.owner)],
  ["administrator", makeUser(2, Roles.administrator)],
  ["moderator", makeUser(3, Roles.moderator)],
  ["member", makeUser(4, Roles.member)],
  ["guest", makeUser(5, Roles.guest)],
  ["bot", makeUser(6, Roles.member, { is_bot: true, bot_type: 1, bot_owner_id: userId(4) })],
  ["deactivated", makeUser(7, Roles.member, { is_active: false })]
]

/** The kinds of message: direct, or a channel message by what the channel is to the user. */
type Kind =
  | "direct"
  | "public"
  | "web-public"
  | "private"
  | "private, subscribed"
  | "public, subscribed"
  | "private, in its subscribe group"
  | "private, in its add-subscribers group"
const kinds: ReadonlyArray<Kind> = [
  "direct",
  "public",
  "public, subscribed",
  "web-public",
  "private",
  "private, subscribed",
  "private, in its subscribe group",
  "private, in its add-subscribers group"
]

const channelOf = (kind: Kind, historyPublic: boolean): AccessChannel => ({
  invite_only: kind.startsWith("private"),
  is_web_public: kind === "web-public",
  history_public_to_subscribers: historyPublic,
  settings: {
    can_add_subscribers_group: kind === "private, in its add-subscribers group" ? granting : nobody,
    can_administer_channel_group: nobody,
    can_remove_subscribers_group: nobody,
    can_subscribe_group: kind === "private, in its subscribe group" ? granting : nobody
  }
})

const inputOf = (user: User, kind: Kind, historyPublic: boolean, hasRow: boolean, archived: boolean): MessageAccessInput => ({
  hasRow,
  channel: kind === "direct" ? undefined : {
    user,
    channel: channelOf(kind, historyPublic),
    isSubscribed: kind.endsWith("subscribed"),
    inGroup: (value: GroupSettingValue) => value === granting,
    isArchived: archived
  }
})

/**
 * What the reference says, case by case: a direct message needs a row;
 * a channel message needs an active user with content access (subscribed,
 * web-public, or, not a guest, public or in a granting group), plus a row
 * with protected history; a change refuses archived channels.
 */
const expected = (
  purpose: MessageAccessPurpose,
  user: User,
  kind: Kind,
  historyPublic: boolean,
  hasRow: boolean,
  archived: boolean
): boolean => {
  if (kind === "direct") return hasRow
  if (purpose === "modify" && archived) return false
  if (!user.is_active) return false
  const guest = user.role === Roles.guest
  const content = kind.endsWith("subscribed") || kind === "web-public" ||
    (!guest && kind !== "private")
  return content && (historyPublic || hasRow)
}

describe("hasMessageAccess", () => {
  for (const [roleName, user] of roles) {
    for (const kind of kinds) {
      it(`${roleName}, ${kind}: every history, row, archived state and purpose`, () => {
        for (const purpose of ["read", "modify"] as const) {
          for (const historyPublic of [true, false]) {
            for (const hasRow of [true, false]) {
              for (const archived of [false, true]) {
                const input = inputOf(user, kind, historyPublic, hasRow, archived)
                assert.strictEqual(
                  hasMessageAccess(purpose, input),
                  expected(purpose, user, kind, historyPublic, hasRow, archived),
                  `${purpose}, history ${historyPublic ? "shared" : "protected"}, ${hasRow ? "row" : "no row"}${
                    archived ? ", archived" : ""
                  }`
                )
              }
            }
          }
        }
      })
    }
  }

  // The cases the reference names, spelled out.
  const member = roles[3]![1]
  const guest = roles[4]![1]
  const named: ReadonlyArray<readonly [string, MessageAccessPurpose, MessageAccessInput, boolean]> = [
    ["a direct message one received", "read", inputOf(member, "direct", true, true, false), true],
    ["a direct message one did not receive", "read", inputOf(member, "direct", true, false, false), false],
    ["a public channel's message, never received, as a member", "read", inputOf(member, "public", true, false, false), true],
    ["a public channel's message, received, as an unsubscribed guest", "read", inputOf(guest, "public", true, true, false), false],
    ["protected history, received, unsubscribed since", "read", inputOf(member, "private", false, true, false), false],
    ["protected history, received, still subscribed", "read", inputOf(member, "private, subscribed", false, true, false), true],
    ["protected history, subscribed, sent before joining", "read", inputOf(member, "private, subscribed", false, false, false), false],
    ["shared history, subscribed, sent before joining", "read", inputOf(member, "private, subscribed", true, false, false), true],
    ["shared history, received, unsubscribed since", "read", inputOf(member, "private", true, true, false), false],
    ["an archived channel's message, read", "read", inputOf(member, "public, subscribed", true, true, true), true],
    ["an archived channel's message, changed", "modify", inputOf(member, "public, subscribed", true, true, true), false],
    ["a direct message is never archived", "modify", inputOf(member, "direct", true, true, true), true]
  ]
  it.each(named)("%s", (_name, purpose, input, allowed) => {
    assert.strictEqual(hasMessageAccess(purpose, input), allowed)
  })
})

describe("actionAudience", () => {
  const ids = (...n: ReadonlyArray<number>): ReadonlyArray<UserId> => n.map(userId)
  // 1-3 subscribers (3 deactivated), 4 a member with a row, 5 a guest with a row, 6 deactivated with a row.
  const subscribers = ids(3, 1, 2)
  const rowHolders = ids(2, 4, 5, 6)
  const isActive = (id: UserId) => id !== 3 && id !== 6
  const isGuest = (id: UserId) => id === 5
  const channel = (invite_only: boolean, history_public_to_subscribers: boolean) => ({
    channel: { invite_only, history_public_to_subscribers },
    subscribers
  })
  const cases: ReadonlyArray<readonly [string, Parameters<typeof actionAudience>[0]["channel"], ReadonlyArray<UserId>]> = [
    ["a direct message: those with a row", undefined, ids(2, 4, 5)],
    ["a public channel: subscribers and the non-guests with a row", channel(false, true), ids(1, 2, 4)],
    ["a private channel with shared history: subscribers", channel(true, true), ids(1, 2)],
    ["a private channel with protected history: subscribers with a row", channel(true, false), ids(2)],
    ["a public channel with protected history: subscribers with a row", channel(false, false), ids(2)]
  ]
  it.each(cases)("%s (active users, ascending)", (_name, channel, audience) => {
    assert.deepStrictEqual(actionAudience({ rowHolders, channel, isActive, isGuest }), audience)
  })
})
