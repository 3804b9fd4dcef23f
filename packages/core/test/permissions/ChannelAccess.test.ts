import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import type { Channel } from "../../src/domain/Channel.ts"
import type { GroupSettingValue } from "../../src/domain/GroupSetting.ts"
import { isNamed } from "../../src/domain/GroupSetting.ts"
import type { GroupId, UserId } from "../../src/domain/Ids.ts"
import { channelId, groupId, realmId, userId } from "../../src/domain/Ids.ts"
import type { Role as RoleType } from "../../src/domain/Role.ts"
import { isAdministrator, isGuest, Role, Roles } from "../../src/domain/Role.ts"
import type { User } from "../../src/domain/User.ts"
import type { AccessLevel, ChannelAccessInput } from "../../src/permissions/ChannelAccess.ts"
import {
  accessLevel,
  canAddSubscribers,
  canReadFullHistory,
  canRemoveSubscribers,
  canSubscribeSelf,
  hasContentAccess,
  hasMetadataAccess,
  isChannelAdministrator,
  spectatorCanAccess
} from "../../src/permissions/ChannelAccess.ts"
import { makeGroupIndex, membershipCheck } from "../../src/permissions/GroupMembership.ts"
import { checkReaching, checkReachingEffect, propertyOptions } from "../support/Properties.ts"
import { makeUser } from "../support/Users.ts"

// ---------------------------------------------------------------------------
// Fixtures: a realm with Zulip's system groups and one user per role.

const G = {
  nobody: groupId(1),
  owners: groupId(2),
  administrators: groupId(3),
  moderators: groupId(4),
  fullMembers: groupId(5),
  members: groupId(6),
  everyone: groupId(7),
  // A named group holding the member and the guest, used to grant channel permissions.
  helpers: groupId(8)
} as const

const owner = makeUser(1, Roles.owner)
const admin = makeUser(2, Roles.administrator)
const moderator = makeUser(3, Roles.moderator)
const member = makeUser(4, Roles.member)
const guest = makeUser(5, Roles.guest)
const bot = makeUser(6, Roles.member, { is_bot: true, bot_type: 1, bot_owner_id: userId(4) })
const deactivated = makeUser(7, Roles.member, { is_active: false })
const users: ReadonlyArray<User> = [owner, admin, moderator, member, guest, bot, deactivated]

const roleGroup = (role: RoleType): GroupId =>
  role === Roles.owner
    ? G.owners
    : role === Roles.administrator
    ? G.administrators
    : role === Roles.moderator
    ? G.moderators
    : role === Roles.member
    ? G.members
    : G.everyone

const index = makeGroupIndex(
  Object.values(G).map((id) => ({ id, deactivated: false })),
  {
    members: new Map<GroupId, ReadonlySet<UserId>>([
      ...Object.values(G).map((g) =>
        [g, new Set(users.filter((u) => roleGroup(u.role) === g).map((u) => u.id))] as const
      ),
      [G.helpers, new Set([member.id, guest.id])]
    ]),
    subgroups: new Map<GroupId, ReadonlySet<GroupId>>([
      [G.administrators, new Set([G.owners])],
      [G.moderators, new Set([G.administrators])],
      [G.fullMembers, new Set([G.moderators])],
      [G.members, new Set([G.fullMembers])],
      [G.everyone, new Set([G.members])]
    ])
  },
  (id) => users.find((u) => u.id === id)
)

// Zulip's defaults for a channel created by `creator`.
const makeChannel = (overrides: Partial<Channel> = {}, settings: Partial<Channel["settings"]> = {}): Channel => ({
  id: channelId(1),
  realm_id: realmId(1),
  name: "design",
  description: "",
  rendered_description: "",
  date_created: 0,
  creator_id: owner.id,
  invite_only: false,
  is_web_public: false,
  is_archived: false,
  history_public_to_subscribers: true,
  message_retention_days: null,
  topics_policy: "inherit",
  first_message_id: null,
  folder_id: null,
  is_recently_active: true,
  is_default: false,
  ...overrides,
  settings: {
    can_add_subscribers_group: G.nobody,
    can_remove_subscribers_group: G.administrators,
    can_administer_channel_group: { direct_members: [owner.id], direct_subgroups: [] },
    can_delete_any_message_group: G.administrators,
    can_delete_own_message_group: G.everyone,
    can_move_messages_out_of_channel_group: G.nobody,
    can_move_messages_within_channel_group: G.nobody,
    can_send_message_group: G.everyone,
    can_subscribe_group: G.nobody,
    can_resolve_topics_group: G.everyone,
    ...settings
  }
})

const publicChannel = makeChannel()
const privateChannel = makeChannel({ invite_only: true, history_public_to_subscribers: false })
const webPublicChannel = makeChannel({ is_web_public: true })
const realmSettings = { can_add_subscribers_group: G.members }

const inputFor = (user: User, channel: Channel, isSubscribed = false): ChannelAccessInput => ({
  user,
  channel,
  isSubscribed,
  inGroup: membershipCheck(index, user.id)
})

// ---------------------------------------------------------------------------
// Example-based tests, one block per role.

interface Expectation {
  readonly user: User
  readonly publicUnsubscribed: AccessLevel
  readonly privateUnsubscribed: AccessLevel
  readonly webPublic: AccessLevel
  readonly administersPrivate: boolean
  readonly addsToPublic: boolean
  readonly removesFromPrivate: boolean
}

const expectations: ReadonlyArray<readonly [string, Expectation]> = [
  ["owner", {
    user: owner,
    publicUnsubscribed: "content",
    privateUnsubscribed: "metadata",
    webPublic: "content",
    administersPrivate: true,
    addsToPublic: true,
    removesFromPrivate: true
  }],
  ["administrator", {
    user: admin,
    publicUnsubscribed: "content",
    privateUnsubscribed: "metadata",
    webPublic: "content",
    administersPrivate: true,
    addsToPublic: true,
    removesFromPrivate: true
  }],
  ["moderator", {
    user: moderator,
    publicUnsubscribed: "content",
    privateUnsubscribed: "none",
    webPublic: "content",
    administersPrivate: false,
    addsToPublic: true,
    removesFromPrivate: false
  }],
  ["member", {
    user: member,
    publicUnsubscribed: "content",
    privateUnsubscribed: "none",
    webPublic: "content",
    administersPrivate: false,
    addsToPublic: true,
    removesFromPrivate: false
  }],
  ["guest", {
    user: guest,
    publicUnsubscribed: "none",
    privateUnsubscribed: "none",
    webPublic: "content",
    administersPrivate: false,
    addsToPublic: false,
    removesFromPrivate: false
  }],
  ["bot (member role)", {
    user: bot,
    publicUnsubscribed: "content",
    privateUnsubscribed: "none",
    webPublic: "content",
    administersPrivate: false,
    addsToPublic: true,
    removesFromPrivate: false
  }]
]

describe("ChannelAccess examples by role", () => {
  for (const [name, e] of expectations) {
    describe(name, () => {
      it("public channel without a subscription", () => {
        assert.strictEqual(accessLevel(inputFor(e.user, publicChannel)), e.publicUnsubscribed)
        assert.strictEqual(canSubscribeSelf(inputFor(e.user, publicChannel)), e.publicUnsubscribed === "content")
        assert.strictEqual(canAddSubscribers(inputFor(e.user, publicChannel), realmSettings), e.addsToPublic)
      })

      it("private channel without a subscription", () => {
        const input = inputFor(e.user, privateChannel)
        assert.strictEqual(accessLevel(input), e.privateUnsubscribed)
        assert.isFalse(canSubscribeSelf(input))
        assert.isFalse(canReadFullHistory(input))
        assert.isFalse(canAddSubscribers(input, realmSettings))
        assert.strictEqual(isChannelAdministrator(input), e.administersPrivate)
        assert.strictEqual(canRemoveSubscribers(input), e.removesFromPrivate)
      })

      it("private channel with a subscription: content, but protected history", () => {
        const input = inputFor(e.user, privateChannel, true)
        assert.strictEqual(accessLevel(input), "content")
        assert.isFalse(canReadFullHistory(input))
        const sharedHistory = { ...privateChannel, history_public_to_subscribers: true }
        assert.isTrue(canReadFullHistory(inputFor(e.user, sharedHistory, true)))
      })

      it("web-public channel: content for everyone", () => {
        const input = inputFor(e.user, webPublicChannel)
        assert.strictEqual(accessLevel(input), e.webPublic)
        assert.isTrue(canReadFullHistory(input))
        assert.isTrue(canSubscribeSelf(input))
      })

      it("archiving the channel changes nothing", () => {
        for (const channel of [publicChannel, privateChannel, webPublicChannel]) {
          assert.strictEqual(
            accessLevel(inputFor(e.user, { ...channel, is_archived: true })),
            accessLevel(inputFor(e.user, channel))
          )
        }
      })
    })
  }

  it("a deactivated user has no access, even when subscribed to a web-public channel", () => {
    for (const channel of [publicChannel, privateChannel, webPublicChannel]) {
      const input = inputFor(deactivated, channel, true)
      assert.strictEqual(accessLevel(input), "none")
      assert.isFalse(isChannelAdministrator(input))
      assert.isFalse(canRemoveSubscribers(input))
    }
  })

  it("can_subscribe_group gives members of the group content access to a private channel", () => {
    const channel = makeChannel({ invite_only: true }, { can_subscribe_group: G.helpers })
    assert.strictEqual(accessLevel(inputFor(member, channel)), "content")
    assert.isTrue(canSubscribeSelf(inputFor(member, channel)))
    assert.isTrue(canReadFullHistory(inputFor(member, channel)))
    assert.isFalse(canAddSubscribers(inputFor(member, channel), { can_add_subscribers_group: G.nobody }))
    // The setting excludes guests even when they are in the group.
    assert.strictEqual(accessLevel(inputFor(guest, channel)), "none")
    // Administrators outside the group keep metadata only.
    assert.strictEqual(accessLevel(inputFor(admin, channel)), "metadata")
  })

  it("can_add_subscribers_group grants content access and adding others", () => {
    const channel = makeChannel({ invite_only: true }, { can_add_subscribers_group: G.helpers })
    const input = inputFor(member, channel)
    assert.strictEqual(accessLevel(input), "content")
    assert.isTrue(canAddSubscribers(input, { can_add_subscribers_group: G.nobody }))
    assert.isFalse(canAddSubscribers(inputFor(guest, channel, true), { can_add_subscribers_group: G.everyone }))
  })

  it("can_administer_channel_group grants metadata and administration, not content", () => {
    const channel = makeChannel({ invite_only: true }, {
      can_administer_channel_group: { direct_members: [member.id, guest.id], direct_subgroups: [] }
    })
    const input = inputFor(member, channel)
    assert.strictEqual(accessLevel(input), "metadata")
    assert.isTrue(isChannelAdministrator(input))
    assert.isTrue(canRemoveSubscribers(input))
    assert.isFalse(canAddSubscribers(input, realmSettings))
    assert.isFalse(isChannelAdministrator(inputFor(guest, channel)))
    assert.isTrue(canAddSubscribers(inputFor(member, channel, true), { can_add_subscribers_group: G.nobody }))
  })

  it("can_remove_subscribers_group needs metadata access", () => {
    const channel = makeChannel({ invite_only: true }, { can_remove_subscribers_group: G.members })
    assert.isFalse(canRemoveSubscribers(inputFor(member, channel)))
    assert.isTrue(canRemoveSubscribers(inputFor(member, channel, true)))
    assert.isTrue(canRemoveSubscribers(inputFor(member, { ...channel, invite_only: false })))
  })

  it("a guest subscribed to a public channel has content access", () => {
    assert.strictEqual(accessLevel(inputFor(guest, publicChannel, true)), "content")
    assert.isTrue(canReadFullHistory(inputFor(guest, publicChannel, true)))
  })

  it("spectators need a web-public channel and spectator access enabled", () => {
    assert.isTrue(spectatorCanAccess(webPublicChannel, { enable_spectator_access: true }))
    assert.isFalse(spectatorCanAccess(webPublicChannel, { enable_spectator_access: false }))
    assert.isFalse(spectatorCanAccess(publicChannel, { enable_spectator_access: true }))
    assert.isFalse(spectatorCanAccess(privateChannel, { enable_spectator_access: true }))
  })
})

// ---------------------------------------------------------------------------
// Properties over random users, channels, subscriptions and group memberships.
// Each channel setting is its own named group; `in*` says whether the user
// belongs to it, so every combination of memberships is reachable.

const bool = Arbitrary.schema(Schema.Boolean)

const S = {
  subscribe: groupId(101),
  addSubscribers: groupId(102),
  administer: groupId(103),
  removeSubscribers: groupId(104),
  realmAddSubscribers: groupId(105)
} as const

interface Scenario {
  readonly input: ChannelAccessInput
  readonly user: User
  readonly channel: Channel
}

const roleArb: Arbitrary.Arbitrary<RoleType> = Arbitrary.schema(Role)
const oneOf = <A>(values: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: values.length - 1 }))).pipe(
    Arbitrary.map((i) => values[i]!)
  )

/** What a scenario is drawn from; a property fixes the fields its case needs instead of filtering samples away. */
const scenarioFields = {
  role: roleArb,
  isBot: bool,
  active: bool,
  inviteOnly: bool,
  webPublic: bool,
  historyPublic: bool,
  archived: bool,
  subscribed: bool,
  memberships: Arbitrary.array(Arbitrary.schema(Schema.Literals(Object.values(S))), { maxLength: 5 })
}

const scenarioWhere = (fixed: Partial<typeof scenarioFields> = {}): Arbitrary.Arbitrary<Scenario> =>
  Arbitrary.all({ ...scenarioFields, ...fixed }).pipe(Arbitrary.map((s): Scenario => {
    // Zulip only allows web-public channels that are public with shared history.
    const channel = makeChannel({
      invite_only: s.webPublic ? false : s.inviteOnly,
      is_web_public: s.webPublic,
      history_public_to_subscribers: s.webPublic || !s.inviteOnly ? true : s.historyPublic,
      is_archived: s.archived
    }, {
      can_subscribe_group: S.subscribe,
      can_add_subscribers_group: S.addSubscribers,
      can_administer_channel_group: S.administer,
      can_remove_subscribers_group: S.removeSubscribers
    })
    const groups = new Set<GroupId>(s.memberships.map(groupId))
    const user = makeUser(42, s.role, { is_active: s.active, is_bot: s.isBot })
    const inGroup = (value: GroupSettingValue): boolean => isNamed(value) && groups.has(value)
    return { channel, user, input: { user, channel, isSubscribed: s.subscribed, inGroup } }
  }))

const scenarioArb = scenarioWhere()
const yes = Arbitrary.Constant(true)
const no = Arbitrary.Constant(false)

const realmArb = { can_add_subscribers_group: S.realmAddSubscribers }
const RUNS = 500
/** How many samples must reach each premise of an implication (of RUNS). */
const MIN_REACHED = 10
const runs = propertyOptions(RUNS)

describe("ChannelAccess properties", () => {
  it.effect("a guest never gets metadata or content access to an unsubscribed private channel", () =>
    checkReaching(
      scenarioWhere({ role: Arbitrary.Constant(Roles.guest), subscribed: no, inviteOnly: yes, webPublic: no }),
      { runs: RUNS, minimum: { "guest outside a private channel": RUNS } },
      (s) => {
        const { channel, isSubscribed, user } = s.input
        // The generator's promise, checked rather than trusted.
        assert.isTrue(isGuest(user.role) && !isSubscribed && channel.invite_only && !channel.is_web_public)
        assert.isFalse(hasMetadataAccess(s.input))
        assert.isFalse(hasContentAccess(s.input))
        assert.isFalse(canSubscribeSelf(s.input))
        return "guest outside a private channel"
      }
    ))

  it.effect("an active administrator always has metadata access", () =>
    checkReaching(
      scenarioWhere({ role: oneOf([Roles.owner, Roles.administrator]), active: yes }),
      { runs: RUNS, minimum: { owner: RUNS / 5, administrator: RUNS / 5 } },
      (s) => {
        const { user } = s.input
        assert.isTrue(user.is_active && isAdministrator(user.role))
        assert.isTrue(hasMetadataAccess(s.input))
        assert.isTrue(isChannelAdministrator(s.input))
        assert.isTrue(canRemoveSubscribers(s.input))
        return user.role === Roles.owner ? "owner" : "administrator"
      }
    ))

  // The implications below are checked on samples where their premise holds: each premise must be reached.
  it.effect("content access implies metadata access", () =>
    checkReaching(
      scenarioArb,
      { runs: RUNS, minimum: { content: MIN_REACHED, metadata: MIN_REACHED, none: MIN_REACHED } },
      (s) => {
        if (hasContentAccess(s.input)) assert.isTrue(hasMetadataAccess(s.input))
        const level = accessLevel(s.input)
        assert.strictEqual(level, hasContentAccess(s.input) ? "content" : hasMetadataAccess(s.input) ? "metadata" : "none")
        return level
      }
    ))

  it.effect("public channels: content for active members, for guests only when subscribed", () =>
    checkReaching(
      scenarioWhere({ inviteOnly: no, webPublic: no, active: yes }),
      { runs: RUNS, minimum: { "guest, subscribed": 20, "guest, not subscribed": 20, "not a guest": RUNS / 2 } },
      (s) => {
        const { channel, isSubscribed, user } = s.input
        assert.isTrue(!channel.invite_only && !channel.is_web_public && user.is_active)
        assert.strictEqual(hasContentAccess(s.input), isGuest(user.role) ? isSubscribed : true)
        return !isGuest(user.role) ? "not a guest" : isSubscribed ? "guest, subscribed" : "guest, not subscribed"
      }
    ))

  it.effect("web-public channels: content for every active user", () =>
    checkReaching(
      scenarioWhere({ webPublic: yes }),
      { runs: RUNS, minimum: { active: RUNS / 4, deactivated: RUNS / 4 } },
      (s) => {
        assert.isTrue(s.channel.is_web_public)
        assert.strictEqual(hasContentAccess(s.input), s.input.user.is_active)
        return s.input.user.is_active ? "active" : "deactivated"
      }
    ))

  it.effect("deactivated users get nothing", () =>
    checkReaching(
      scenarioWhere({ active: no }),
      { runs: RUNS, minimum: { deactivated: RUNS } },
      (s) => {
        assert.isFalse(s.input.user.is_active)
        assert.strictEqual(accessLevel(s.input), "none")
        assert.isFalse(isChannelAdministrator(s.input))
        assert.isFalse(canAddSubscribers(s.input, realmArb))
        assert.isFalse(canRemoveSubscribers(s.input))
        return "deactivated"
      }
    ))

  it.effect("derived permissions stay within access", () =>
    checkReachingEffect(
      scenarioArb,
      { runs: RUNS, minimum: { "reads full history": MIN_REACHED, "adds subscribers": MIN_REACHED, administers: MIN_REACHED } },
      (s) =>
        Effect.sync(() => {
          const reached: Array<string> = []
          const content = hasContentAccess(s.input)
          assert.strictEqual(canSubscribeSelf(s.input), content)
          if (canReadFullHistory(s.input)) reached.push("reads full history") && assert.isTrue(content)
          if (canAddSubscribers(s.input, realmArb)) reached.push("adds subscribers") && assert.isTrue(content)
          if (isChannelAdministrator(s.input)) reached.push("administers") && assert.isTrue(hasMetadataAccess(s.input))
          return reached
        })
    ))

  it.effect("guests never administer, add or remove subscribers", () =>
    checkReaching(
      // Every group membership included, so only the guest rule can refuse.
      scenarioWhere({ role: Arbitrary.Constant(Roles.guest) }),
      { runs: RUNS, minimum: { guest: RUNS } },
      (s) => {
        assert.isTrue(isGuest(s.input.user.role))
        assert.isFalse(isChannelAdministrator(s.input))
        assert.isFalse(canAddSubscribers(s.input, realmArb))
        assert.isFalse(canRemoveSubscribers(s.input))
        return "guest"
      }
    ))

  it.prop("archiving and being a bot change no access", { s: scenarioArb }, ({ s }) => {
    const user: User = { ...s.user, is_bot: !s.user.is_bot }
    const channel: Channel = { ...s.channel, is_archived: !s.channel.is_archived }
    const flipped: ChannelAccessInput = { ...s.input, user, channel }
    assert.strictEqual(accessLevel(flipped), accessLevel(s.input))
    assert.strictEqual(canAddSubscribers(flipped, realmArb), canAddSubscribers(s.input, realmArb))
    assert.strictEqual(canRemoveSubscribers(flipped), canRemoveSubscribers(s.input))
    assert.strictEqual(isChannelAdministrator(flipped), isChannelAdministrator(s.input))
  }, runs)

  it.effect("joining more groups never removes access", () =>
    checkReachingEffect(
      Arbitrary.all({ s: scenarioArb, extra: Arbitrary.schema(Schema.Literals(Object.values(S))) }),
      {
        runs: RUNS,
        minimum: {
          "adds subscribers": MIN_REACHED,
          "removes subscribers": MIN_REACHED,
          administers: MIN_REACHED,
          // rare with one extra group: most samples already have their access or need a subscription
          "more access": 2
        }
      },
      ({ extra, s }) =>
        Effect.sync(() => {
          const reached: Array<string> = []
          const more: ChannelAccessInput = { ...s.input, inGroup: (v) => s.input.inGroup(v) || v === extra }
          const rank = { none: 0, metadata: 1, content: 2 } as const
          assert.isTrue(rank[accessLevel(more)] >= rank[accessLevel(s.input)])
          if (rank[accessLevel(more)] > rank[accessLevel(s.input)]) reached.push("more access")
          if (canAddSubscribers(s.input, realmArb)) reached.push("adds subscribers") && assert.isTrue(canAddSubscribers(more, realmArb))
          if (canRemoveSubscribers(s.input)) reached.push("removes subscribers") && assert.isTrue(canRemoveSubscribers(more))
          if (isChannelAdministrator(s.input)) reached.push("administers") && assert.isTrue(isChannelAdministrator(more))
          return reached
        })
    ))
})
