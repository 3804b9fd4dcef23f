/**
 * Channels: create, subscribe, and list with every GET /streams flag.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { SubscriptionColors } from "../../../src/domain/Channel.ts"
import type { Channel } from "../../../src/domain/Channel.ts"
import { channelId, userId } from "../../../src/domain/Ids.ts"
import type { User } from "../../../src/domain/User.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { ChannelRepo, SubscriptionRepo } from "../../../src/ports/Repositories.ts"
import { Channels, defaultListChannelsOptions } from "../../../src/services/Channels.ts"
import type { ListChannelsOptions, NewChannel } from "../../../src/services/Channels.ts"
import { Users } from "../../../src/services/Users.ts"
import type * as Teamchat from "../../../src/Teamchat.ts"
import type { Vitest } from "@effect/vitest"
import { unique, T0, only, fails, makeOrg, addUser, addBot, principal, names, withTestClock } from "./fixtures.ts"

export const channelsTests = (it: Vitest.MethodsNonLive<Teamchat.Services | Persistence>): void => {
  // --- Channels.create -------------------------------------------------------

  it.effect("Channels.create: every field and its defaults", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const org = yield* makeOrg()
      const channels = yield* Channels
      const g = org.groups
      const channel = yield* channels.create(org.realm.id, {
        name: "  General  ",
        description: "Tea & <b>\"cakes\"</b> at 5 o'clock",
        creator_id: org.owner.id
      })
      assert.deepStrictEqual(channel, {
        id: channel.id,
        realm_id: org.realm.id,
        name: "General",
        description: "Tea & <b>\"cakes\"</b> at 5 o'clock",
        rendered_description: "<p>Tea &amp; &lt;b&gt;\"cakes\"&lt;/b&gt; at 5 o'clock</p>",
        date_created: Math.floor(T0 / 1000),
        creator_id: org.owner.id,
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
        settings: {
          can_add_subscribers_group: g["role:nobody"],
          can_remove_subscribers_group: g["role:administrators"],
          can_administer_channel_group: { direct_members: [org.owner.id], direct_subgroups: [] },
          can_delete_any_message_group: g["role:nobody"],
          can_delete_own_message_group: g["role:everyone"],
          can_move_messages_out_of_channel_group: g["role:nobody"],
          can_move_messages_within_channel_group: g["role:nobody"],
          can_send_message_group: g["role:everyone"],
          can_subscribe_group: g["role:nobody"],
          can_resolve_topics_group: g["role:nobody"]
        }
      })
      assert.deepStrictEqual(yield* channels.findById(channel.id), channel)
      assert.deepStrictEqual(yield* channels.findByName(org.realm.id, "GENERAL"), channel)

      // Without a creator nobody administers it; empty descriptions render empty.
      const bare = yield* channels.create(org.realm.id, { name: "bare" })
      assert.strictEqual(bare.id, channel.id + 1)
      assert.strictEqual(bare.creator_id, null)
      assert.strictEqual(bare.settings.can_administer_channel_group, g["role:nobody"])
      assert.strictEqual(bare.description, "")
      assert.strictEqual(bare.rendered_description, "")

      // The rest of the inputs.
      const custom = yield* channels.create(org.realm.id, {
        name: "custom",
        is_web_public: true,
        message_retention_days: 30,
        topics_policy: "disable_empty_topic",
        is_default: true
      })
      assert.isTrue(custom.is_web_public)
      assert.strictEqual(custom.message_retention_days, 30)
      assert.strictEqual(custom.topics_policy, "disable_empty_topic")
      assert.isTrue(custom.is_default)
    }).pipe(withTestClock))

  it.effect("Channels.create: history_public_to_subscribers follows Zulip's rules", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const channels = yield* Channels
      const history = (input: Omit<NewChannel, "name">) =>
        channels.create(org.realm.id, { name: unique("h"), ...input }).pipe(
          Effect.map((c) => c.history_public_to_subscribers)
        )
      // Private channels hide history unless asked; public ones always share it.
      assert.isFalse(yield* history({ invite_only: true }))
      assert.isTrue(yield* history({ invite_only: true, history_public_to_subscribers: true }))
      assert.isFalse(yield* history({ invite_only: true, history_public_to_subscribers: false }))
      assert.isTrue(yield* history({}))
      assert.isTrue(yield* history({ history_public_to_subscribers: false }))
      assert.isTrue(yield* history({ is_web_public: true, history_public_to_subscribers: false }))
    }).pipe(withTestClock))

  it.effect("Channels.create: name and description limits, duplicates case-insensitively", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const channels = yield* Channels
      const create = (input: NewChannel) => channels.create(org.realm.id, input)
      yield* fails(create({ name: "" }), "BadRequest", "Channel name can't be empty.")
      yield* fails(create({ name: "   " }), "BadRequest", "Channel name can't be empty.")
      yield* fails(create({ name: "n".repeat(61) }), "BadRequest", "Channel name too long (limit: 60 characters).")
      yield* fails(
        create({ name: "long description", description: "d".repeat(1025) }),
        "BadRequest",
        "description is too long (limit: 1024 characters)"
      )
      const first = yield* create({ name: `  ${"n".repeat(60)}  `, description: "d".repeat(1024) })
      assert.strictEqual(first.name, "n".repeat(60))
      const general = yield* create({ name: "General" })
      yield* fails(create({ name: "general" }), "BadRequest", "Channel 'general' already exists")
      yield* fails(create({ name: " GENERAL " }), "BadRequest", "Channel 'GENERAL' already exists")
      // Nothing was written, and no id was used, by the failures.
      assert.deepStrictEqual((yield* (yield* ChannelRepo).listByRealm(org.realm.id)).map((c) => c.id), [
        first.id,
        general.id
      ])
      const next = yield* create({ name: "next" })
      assert.strictEqual(next.id, general.id + 1)
      // The creator must be a user of this organization.
      yield* fails(create({ name: "orphan", creator_id: userId(999_999_999) }), "BadRequest", "No such user")
      // Names are per organization.
      const other = yield* makeOrg()
      yield* fails(create({ name: "foreign", creator_id: other.owner.id }), "BadRequest", "No such user")
      assert.strictEqual((yield* channels.create(other.realm.id, { name: "general" })).name, "general")
    }).pipe(withTestClock))

  // --- Channels.subscribe -----------------------------------------------------

  it.effect("Channels.subscribe: idempotent, palette colours in order, kept across resubscription", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const channels = yield* Channels
      const subscriptionRepo = yield* SubscriptionRepo
      const a = yield* addUser(org, 400)
      const b = yield* addUser(org, 600)
      const created: Array<Channel> = []
      for (const name of ["one", "two", "three", "four"]) {
        created.push(yield* channels.create(org.realm.id, { name }))
      }
      const [one, two, three, four] = created as [Channel, Channel, Channel, Channel]
      assert.deepStrictEqual(yield* channels.subscribe(one.id, [a.id, b.id]), [a.id, b.id])
      assert.deepStrictEqual(yield* channels.subscribe(one.id, [a.id, b.id, a.id]), [])
      assert.deepStrictEqual(yield* channels.subscribe(one.id, []), [])
      assert.deepStrictEqual(yield* channels.subscribe(three.id, [a.id]), [a.id])
      assert.deepStrictEqual(yield* channels.subscribe(two.id, [b.id, a.id, b.id]), [b.id, a.id])

      const subs = yield* channels.subscriptionsOf(a.id)
      assert.deepStrictEqual(subs, [
        {
          user_id: a.id,
          channel_id: one.id,
          active: true,
          properties: {
            color: SubscriptionColors[0],
            pin_to_top: false,
            is_muted: false,
            desktop_notifications: null,
            email_notifications: null,
            push_notifications: null,
            audible_notifications: null,
            wildcard_mentions_notify: null
          }
        },
        { user_id: a.id, channel_id: two.id, active: true, properties: { ...subs[0]!.properties, color: SubscriptionColors[2] } },
        { user_id: a.id, channel_id: three.id, active: true, properties: { ...subs[0]!.properties, color: SubscriptionColors[1] } }
      ])
      assert.deepStrictEqual((yield* channels.subscriptionsOf(b.id)).map((s) => s.properties.color), [
        SubscriptionColors[0],
        SubscriptionColors[1]
      ])

      // An unsubscribed row keeps its colour, which stays taken; subscribing again reuses it.
      const row = (yield* subscriptionRepo.find(a.id, three.id))!
      yield* subscriptionRepo.upsert({ ...row, active: false, properties: { ...row.properties, is_muted: true } })
      assert.deepStrictEqual((yield* channels.subscriptionsOf(a.id)).map((s) => s.channel_id), [one.id, two.id])
      assert.deepStrictEqual(yield* channels.subscribe(four.id, [a.id]), [a.id])
      assert.strictEqual((yield* subscriptionRepo.find(a.id, four.id))!.properties.color, SubscriptionColors[3])
      assert.deepStrictEqual(yield* channels.subscribe(three.id, [a.id]), [a.id])
      assert.deepStrictEqual(yield* subscriptionRepo.find(a.id, three.id), {
        ...row,
        active: true,
        properties: { ...row.properties, is_muted: true }
      })
    }).pipe(withTestClock))

  it.effect("Channels.subscribe: unknown channels and users fail, and nothing is subscribed", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const channels = yield* Channels
      const a = yield* addUser(org, 400)
      const room = yield* channels.create(org.realm.id, { name: "room" })
      const missing = channelId(999_999_999)
      const error = yield* fails(
        channels.subscribe(missing, [a.id]),
        "StreamDoesNotExist",
        "Channel with ID '999999999' does not exist"
      )
      assert.strictEqual((error as unknown as { readonly stream_id: number }).stream_id, 999_999_999)
      yield* fails(channels.subscribe(room.id, [a.id, userId(999_999_999)]), "InvalidUserId", "Invalid user ID 999999999")
      const other = yield* makeOrg()
      yield* fails(channels.subscribe(room.id, [a.id, other.owner.id]), "InvalidUserId", `Invalid user ID ${other.owner.id}`)
      // The valid user listed first was rolled back with the rest.
      assert.deepStrictEqual(yield* channels.subscriptionsOf(a.id), [])
      assert.deepStrictEqual(yield* (yield* SubscriptionRepo).listByChannel(room.id), [])
    }).pipe(withTestClock))

  // --- Channels.list ----------------------------------------------------------

  it.effect("Channels.list: every GET /streams flag for every role", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg()
      const channels = yield* Channels
      const admin = yield* addUser(org, 200)
      const moderator = yield* addUser(org, 300)
      const member = yield* addUser(org, 400)
      const guest = yield* addUser(org, 600)
      const bot = yield* addBot(org, member)
      const owner = org.owner

      const make = (name: string, input: Omit<NewChannel, "name"> = {}) => channels.create(org.realm.id, { name, ...input })
      const alpha = yield* make("alpha")
      const beta = yield* make("Beta", { invite_only: true, creator_id: member.id })
      yield* make("gamma", { is_web_public: true })
      const delta = yield* make("delta", { is_default: true })
      const epsilon = yield* make("Epsilon", { invite_only: true })
      yield* make("zeta", { is_default: true })
      yield* channels.subscribe(alpha.id, [member.id])
      yield* channels.subscribe(beta.id, [member.id])
      yield* channels.subscribe(delta.id, [guest.id])
      yield* channels.subscribe(epsilon.id, [guest.id])
      const channelRepo = yield* ChannelRepo
      yield* channelRepo.update({ ...delta, is_archived: true })

      const listed = (user: User, options: ListChannelsOptions) =>
        Effect.flatMap(principal(user), (p) => channels.list(p, options)).pipe(Effect.map(names))
      const table: ReadonlyArray<readonly [string, ListChannelsOptions, Record<string, ReadonlyArray<string>>]> = [
        ["defaults", defaultListChannelsOptions, {
          owner: ["alpha", "gamma", "zeta"],
          admin: ["alpha", "gamma", "zeta"],
          moderator: ["alpha", "gamma", "zeta"],
          member: ["Beta", "alpha", "gamma", "zeta"],
          guest: ["Epsilon"],
          bot: ["alpha", "gamma", "zeta"]
        }],
        ["defaults with archived", { ...defaultListChannelsOptions, exclude_archived: false }, {
          owner: ["alpha", "delta", "gamma", "zeta"],
          admin: ["alpha", "delta", "gamma", "zeta"],
          moderator: ["alpha", "delta", "gamma", "zeta"],
          member: ["Beta", "alpha", "delta", "gamma", "zeta"],
          guest: ["Epsilon", "delta"],
          bot: ["alpha", "delta", "gamma", "zeta"]
        }],
        ["include_all", only({ include_all: true }), {
          owner: ["Beta", "Epsilon", "alpha", "gamma", "zeta"],
          admin: ["Beta", "Epsilon", "alpha", "gamma", "zeta"],
          moderator: ["alpha", "gamma", "zeta"],
          member: ["Beta", "alpha", "gamma", "zeta"],
          guest: ["Epsilon", "gamma"],
          bot: ["alpha", "gamma", "zeta"]
        }],
        ["include_all with archived", only({ include_all: true, exclude_archived: false }), {
          owner: ["Beta", "Epsilon", "alpha", "delta", "gamma", "zeta"],
          admin: ["Beta", "Epsilon", "alpha", "delta", "gamma", "zeta"],
          moderator: ["alpha", "delta", "gamma", "zeta"],
          member: ["Beta", "alpha", "delta", "gamma", "zeta"],
          guest: ["Epsilon", "delta", "gamma"],
          bot: ["alpha", "delta", "gamma", "zeta"]
        }],
        ["include_public", only({ include_public: true }), {
          owner: ["alpha", "gamma", "zeta"],
          admin: ["alpha", "gamma", "zeta"],
          moderator: ["alpha", "gamma", "zeta"],
          member: ["alpha", "gamma", "zeta"],
          guest: [],
          bot: ["alpha", "gamma", "zeta"]
        }],
        ["include_subscribed", only({ include_subscribed: true }), {
          owner: [],
          admin: [],
          moderator: [],
          member: ["Beta", "alpha"],
          guest: ["Epsilon"],
          bot: []
        }],
        ["include_web_public", only({ include_web_public: true }), {
          owner: ["gamma"],
          admin: ["gamma"],
          moderator: ["gamma"],
          member: ["gamma"],
          guest: ["gamma"],
          bot: ["gamma"]
        }],
        ["include_default", only({ include_default: true }), {
          owner: ["zeta"],
          admin: ["zeta"],
          moderator: ["zeta"],
          member: ["zeta"],
          guest: ["zeta"],
          bot: ["zeta"]
        }],
        ["include_owner_subscribed", only({ include_owner_subscribed: true }), {
          owner: [],
          admin: [],
          moderator: [],
          member: [],
          guest: [],
          bot: ["Beta", "alpha"]
        }],
        ["include_can_access_content", only({ include_can_access_content: true }), {
          owner: ["alpha", "gamma", "zeta"],
          admin: ["alpha", "gamma", "zeta"],
          moderator: ["alpha", "gamma", "zeta"],
          member: ["Beta", "alpha", "gamma", "zeta"],
          guest: ["Epsilon", "gamma"],
          bot: ["alpha", "gamma", "zeta"]
        }],
        ["nothing", only({}), { owner: [], admin: [], moderator: [], member: [], guest: [], bot: [] }]
      ]
      const viewers = { owner, admin, moderator, member, guest, bot }
      for (const [label, options, expected] of table) {
        for (const [role, user] of Object.entries(viewers)) {
          assert.deepStrictEqual(yield* listed(user, options), expected[role], `${label} as ${role}`)
        }
      }

      // is_default appears only with include_default.
      const p = yield* principal(owner)
      const plainList = yield* channels.list(p, defaultListChannelsOptions)
      assert.isTrue(plainList.every((c) => !("is_default" in c)))
      const withDefault = yield* channels.list(p, { ...defaultListChannelsOptions, include_default: true })
      assert.deepStrictEqual(withDefault.map((c) => [c.name, c.is_default]), [
        ["alpha", false],
        ["gamma", false],
        ["zeta", true]
      ])
    }).pipe(withTestClock))

  it.effect("Channels.list: the channel shape and subscriber counts of active users", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const org = yield* makeOrg()
      const channels = yield* Channels
      const users = yield* Users
      const a = yield* addUser(org, 400)
      const b = yield* addUser(org, 400)
      const c = yield* addUser(org, 600)
      const room = yield* channels.create(org.realm.id, {
        name: "room",
        description: "A *room*",
        invite_only: true,
        history_public_to_subscribers: true,
        creator_id: a.id,
        message_retention_days: 7
      })
      yield* channels.subscribe(room.id, [a.id, b.id, c.id])
      const g = org.groups
      const [listed] = yield* channels.list(yield* principal(a), only({ include_subscribed: true }))
      assert.deepStrictEqual(listed, {
        stream_id: room.id,
        name: "room",
        is_archived: false,
        description: "A *room*",
        rendered_description: "<p>A <em>room</em></p>",
        date_created: Math.floor(T0 / 1000),
        creator_id: a.id,
        invite_only: true,
        is_web_public: false,
        stream_post_policy: 1,
        is_announcement_only: false,
        message_retention_days: 7,
        history_public_to_subscribers: true,
        topics_policy: "inherit",
        first_message_id: null,
        folder_id: null,
        is_recently_active: true,
        can_add_subscribers_group: g["role:nobody"],
        can_remove_subscribers_group: g["role:administrators"],
        can_administer_channel_group: { direct_members: [a.id], direct_subgroups: [] },
        can_delete_any_message_group: g["role:nobody"],
        can_delete_own_message_group: g["role:everyone"],
        can_move_messages_out_of_channel_group: g["role:nobody"],
        can_move_messages_within_channel_group: g["role:nobody"],
        can_send_message_group: g["role:everyone"],
        can_subscribe_group: g["role:nobody"],
        can_resolve_topics_group: g["role:nobody"],
        subscriber_count: 3,
        stream_weekly_traffic: null
      })
      // Deactivated subscribers and inactive subscriptions do not count.
      yield* users.deactivate(b.id)
      const subscriptionRepo = yield* SubscriptionRepo
      yield* subscriptionRepo.upsert({ ...(yield* subscriptionRepo.find(c.id, room.id))!, active: false })
      const count = (yield* channels.list(yield* principal(a), only({ include_subscribed: true })))[0]!.subscriber_count
      assert.strictEqual(count, 1)
    }).pipe(withTestClock))
}
