/**
 * The events services emit, with their exact payloads and audiences, and
 * the services behind them (subscriptions, settings, alert words), on the
 * in-memory backend.
 */
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { RealmRepo } from "../../src/ports/Repositories.ts"
import { AlertWords } from "../../src/services/AlertWords.ts"
import { Channels } from "../../src/services/Channels.ts"
import { Organizations } from "../../src/services/Organizations.ts"
import { Subscriptions } from "../../src/services/Subscriptions.ts"
import { Users } from "../../src/services/Users.ts"
import { UserSettings } from "../../src/services/UserSettings.ts"
import { backends, makeOrg, openQueue, withoutIds } from "./fixtures.ts"

const types = (events: ReadonlyArray<{ readonly type: string; readonly op?: unknown }>) =>
  events.map((e) => (e.op === undefined ? e.type : `${e.type}/${String(e.op)}`))

layer(backends.memory())("emitters", (it) => {
  it.effect("realm_user add on user creation, with the real address only for viewers allowed to see it", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const users = yield* Users
      const admin = yield* openQueue(org.admin)
      const member = yield* openQueue(org.member)
      // Organization default: everyone sees real addresses; make the new user's admins-only.
      const realms = yield* RealmRepo
      yield* realms.update({ ...org.realm, settings: { ...org.realm.settings, email_address_visibility: 3 } })
      const created = yield* users.create(org.realm.id, { email: "new@x.test", full_name: "New Person", role: 400, timezone: "UTC" })
      const [a] = yield* admin.drain
      const [m] = yield* member.drain
      assert.strictEqual(a!.type, "realm_user")
      assert.strictEqual(a!.op, "add")
      const person = a!.person as Record<string, unknown>
      assert.strictEqual(person.user_id, created.id)
      assert.strictEqual(person.delivery_email, "new@x.test")
      assert.strictEqual(person.email, `user${created.id}@${org.realm.fake_email_domain}`)
      assert.strictEqual(person.full_name, "New Person")
      assert.strictEqual(person.role, 400)
      assert.strictEqual(person.is_active, true)
      assert.deepStrictEqual(person.profile_data, {})
      assert.isString(person.avatar_url)
      assert.strictEqual((m!.person as Record<string, unknown>).delivery_email, null)
    }))

  it.effect("guests with limited user access get no add (user_list_incomplete) or an Unknown user placeholder", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const organizations = yield* Organizations
      const realms = yield* RealmRepo
      const ids = yield* organizations.systemGroups(org.realm.id)
      yield* realms.update({ ...org.realm, settings: { ...org.realm.settings, can_access_all_users_group: ids["role:members"] } })
      const incomplete = yield* openQueue(org.guest, { client_capabilities: { user_list_incomplete: true } })
      const legacy = yield* openQueue(org.guest)
      const created = yield* (yield* Users).create(org.realm.id, { email: "n2@x.test", full_name: "Hidden", role: 400 })
      assert.deepStrictEqual(yield* incomplete.drain, [])
      const [placeholder] = yield* legacy.drain
      const person = placeholder!.person as Record<string, unknown>
      assert.strictEqual(person.user_id, created.id)
      assert.strictEqual(person.full_name, "Unknown user")
    }))

  it.effect("role changes and deactivation: realm_user update person forms; peer_remove first", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const users = yield* Users
      const channels = yield* Channels
      const channel = yield* channels.create(org.realm.id, { name: "Room", creator_id: org.owner.user.id })
      yield* channels.subscribe(channel.id, [org.member.user.id, org.other.user.id])
      const q = yield* openQueue(org.admin)
      yield* users.changeRole(org.member.user.id, 300)
      yield* users.deactivate(org.member.user.id)
      yield* users.reactivate(org.member.user.id)
      const events = withoutIds(yield* q.drain)
      const uid = org.member.user.id
      assert.deepStrictEqual(events, [
        { type: "realm_user", op: "update", person: { user_id: uid, role: 300 } },
        { type: "subscription", op: "peer_remove", stream_ids: [channel.id], user_ids: [uid] },
        { type: "realm_user", op: "update", person: { user_id: uid, is_active: false } },
        { type: "realm_user", op: "update", person: { user_id: uid, is_active: true } },
        { type: "subscription", op: "peer_add", stream_ids: [channel.id], user_ids: [uid] }
      ])
    }))

  it.effect("stream create reaches exactly the users with metadata access", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const channels = yield* Channels
      const [admin, member, guest] = [yield* openQueue(org.admin), yield* openQueue(org.member), yield* openQueue(org.guest)]
      const secret = yield* channels.create(org.realm.id, { name: "Secret", invite_only: true, creator_id: org.owner.user.id })
      const open = yield* channels.create(org.realm.id, { name: "Open", creator_id: org.owner.user.id })
      const web = yield* channels.create(org.realm.id, { name: "Web", is_web_public: true, creator_id: org.owner.user.id })
      const ids = (events: ReadonlyArray<Record<string, unknown>>) =>
        events.map((e) => (e.streams as Array<{ stream_id: number }>)[0]!.stream_id)
      assert.deepStrictEqual(ids(yield* admin.drain), [secret.id, open.id, web.id])
      assert.deepStrictEqual(ids(yield* member.drain), [open.id, web.id])
      assert.deepStrictEqual(ids(yield* guest.drain), [web.id])
      const [event] = yield* openQueue(org.admin).pipe(Effect.flatMap((q) =>
        Effect.andThen(channels.create(org.realm.id, { name: "Shape", creator_id: null }), q.drain)
      ))
      const stream = (event!.streams as Array<Record<string, unknown>>)[0]!
      for (const key of ["stream_id", "name", "description", "rendered_description", "date_created", "invite_only", "is_web_public", "history_public_to_subscribers", "stream_post_policy", "is_archived", "subscriber_count", "stream_weekly_traffic", "can_subscribe_group"]) {
        assert.property(stream, key)
      }
    }))

  it.effect("stream update: name and description, to users who can see the channel; administrators only", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const channels = yield* Channels
      const channel = yield* channels.create(org.realm.id, { name: "Old", creator_id: org.owner.user.id })
      const member = yield* openQueue(org.member)
      const guest = yield* openQueue(org.guest)
      yield* channels.update(org.admin, channel.id, { name: "New", description: "Hi **there**" })
      assert.deepStrictEqual(withoutIds(yield* member.drain), [
        { type: "stream", op: "update", property: "name", value: "New", stream_id: channel.id, name: "Old" },
        {
          type: "stream",
          op: "update",
          property: "description",
          value: "Hi **there**",
          rendered_description: "<p>Hi <strong>there</strong></p>",
          stream_id: channel.id,
          name: "New"
        }
      ])
      assert.deepStrictEqual(yield* guest.drain, [])
      const denied = yield* Effect.flip(channels.update(org.member, channel.id, { name: "Mine" }))
      assert.strictEqual(denied.msg, "You do not have permission to administer this channel.")
    }))

  it.effect("subscribe by name: creates, answers Zulip's shape, emits add / peer_add / stream create", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const subs = yield* Subscriptions
      const other = yield* openQueue(org.other)
      const guest = yield* openQueue(org.guest)
      const result = yield* subs.subscribe(org.member, { subscriptions: [{ name: "fresh", description: "New one" }] })
      assert.deepStrictEqual(result, { subscribed: { [String(org.member.user.id)]: ["fresh"] }, already_subscribed: {} })
      const again = yield* subs.subscribe(org.member, { subscriptions: [{ name: "Fresh" }] })
      assert.deepStrictEqual(again, { subscribed: {}, already_subscribed: { [String(org.member.user.id)]: ["fresh"] } })
      const mine = yield* openQueue(org.member, { include_subscribers: true })
      const plain = yield* openQueue(org.member)
      yield* subs.subscribe(org.owner, {
        subscriptions: [{ name: "fresh" }],
        principals: [org.member.user.id, org.other.user.id]
      }).pipe(Effect.ignore)
      const otherEvents = yield* other.drain
      // The channel's creation, the member's subscription, then its own.
      assert.deepStrictEqual(types(otherEvents), ["stream/create", "subscription/peer_add", "subscription/add"])
      const add = (otherEvents[2]!.subscriptions as Array<Record<string, unknown>>)[0]!
      assert.strictEqual(add.name, "fresh")
      assert.strictEqual(add.description, "New one")
      assert.strictEqual(add.color, "#76ce90")
      assert.strictEqual(add.in_home_view, true)
      const fresh = (yield* mine.drain)
      assert.deepStrictEqual(fresh.map((e) => e.op), ["peer_add"])
      assert.deepStrictEqual(fresh[0]!.user_ids, [org.other.user.id])
      assert.strictEqual((yield* plain.drain).length, 1)
      // The guest never learns of the public channel.
      assert.deepStrictEqual(yield* guest.drain, [])
      // Subscribing the guest: stream create for it, then its subscription.
      const guestResult = yield* subs.subscribe(org.owner, { subscriptions: [{ name: "fresh" }], principals: [org.guest.user.email] })
      assert.deepStrictEqual(guestResult.subscribed, { [String(org.guest.user.id)]: ["fresh"] })
      assert.deepStrictEqual(types(yield* guest.drain), ["stream/create", "subscription/add"])
    }))

  it.effect("subscription add carries subscribers only for include_subscribers queues", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const subs = yield* Subscriptions
      const withSubs = yield* openQueue(org.member, { include_subscribers: true })
      const without = yield* openQueue(org.member)
      yield* subs.subscribe(org.member, { subscriptions: [{ name: "lists" }] })
      const [, a] = yield* withSubs.drain
      const [, b] = yield* without.drain
      assert.deepStrictEqual((a!.subscriptions as Array<Record<string, unknown>>)[0]!.subscribers, [org.member.user.id])
      assert.notProperty((b!.subscriptions as Array<Record<string, unknown>>)[0]!, "subscribers")
    }))

  it.effect("private channels: unauthorized names, fatal or not; guests cannot create", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const subs = yield* Subscriptions
      yield* subs.subscribe(org.owner, { subscriptions: [{ name: "hidden" }], invite_only: true })
      const fatal = yield* Effect.flip(subs.subscribe(org.member, { subscriptions: [{ name: "hidden" }] }))
      assert.strictEqual(fatal.msg, "Unable to access channel (hidden).")
      const soft = yield* subs.subscribe(org.member, {
        subscriptions: [{ name: "hidden" }, { name: "visible" }],
        authorization_errors_fatal: false
      })
      assert.deepStrictEqual(soft, {
        subscribed: { [String(org.member.user.id)]: ["visible"] },
        already_subscribed: {},
        unauthorized: ["hidden"]
      })
      const guest = yield* Effect.flip(subs.subscribe(org.guest, { subscriptions: [{ name: "guestmade" }] }))
      assert.strictEqual(guest.msg, "Insufficient permission")
      const long = yield* Effect.flip(subs.subscribe(org.member, { subscriptions: [{ name: "x".repeat(61) }] }))
      assert.strictEqual(long.msg, "Channel name too long (limit: 60 characters).")
    }))

  it.effect("unsubscribe: removed / not_removed, subscription remove and peer_remove, unknown names", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const subs = yield* Subscriptions
      yield* subs.subscribe(org.owner, { subscriptions: [{ name: "a1" }, { name: "b1" }], principals: [org.member.user.id, org.other.user.id] })
      const mine = yield* openQueue(org.member)
      const peer = yield* openQueue(org.other)
      const result = yield* subs.unsubscribe(org.member, { subscriptions: ["a1"] })
      assert.deepStrictEqual(result, { removed: ["a1"], not_removed: [] })
      assert.deepStrictEqual(yield* subs.unsubscribe(org.member, { subscriptions: ["a1"] }), { removed: [], not_removed: ["a1"] })
      const [removal] = yield* mine.drain
      assert.deepStrictEqual(removal!.subscriptions, [{ name: "a1", stream_id: (removal!.subscriptions as Array<{ stream_id: number }>)[0]!.stream_id }])
      const [peerRemove] = yield* peer.drain
      assert.strictEqual(peerRemove!.op, "peer_remove")
      assert.deepStrictEqual(peerRemove!.user_ids, [org.member.user.id])
      const missing = yield* Effect.flip(subs.unsubscribe(org.member, { subscriptions: ["nope"] }))
      assert.deepStrictEqual(missing.wire, { result: "error", msg: "Channel 'nope' does not exist", code: "STREAM_DOES_NOT_EXIST", stream: "nope" })
      const forbidden = yield* Effect.flip(subs.unsubscribe(org.member, { subscriptions: ["b1"], principals: [org.other.user.id] }))
      assert.strictEqual(forbidden.msg, "Insufficient permission")
      const listed = yield* subs.list(org.other, { includeSubscribers: true })
      assert.deepStrictEqual(listed.map((s) => s.name), ["a1", "b1"])
      assert.deepStrictEqual(listed[0]!.subscribers, [org.other.user.id])
    }))

  it.effect("subscription properties: legacy in_home_view, two events for is_muted, validation texts", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const subs = yield* Subscriptions
      yield* subs.subscribe(org.member, { subscriptions: [{ name: "props" }] })
      const id = (yield* subs.list(org.member, { includeSubscribers: false }))[0]!.stream_id
      const q = yield* openQueue(org.member)
      yield* subs.updateProperties(org.member, [
        { stream_id: id, property: "in_home_view", value: false },
        { stream_id: id, property: "pin_to_top", value: true },
        { stream_id: id, property: "color", value: "#f00f00" }
      ])
      assert.deepStrictEqual(withoutIds(yield* q.drain), [
        { type: "subscription", op: "update", property: "in_home_view", value: false, stream_id: id },
        { type: "subscription", op: "update", property: "is_muted", value: true, stream_id: id },
        { type: "subscription", op: "update", property: "pin_to_top", value: true, stream_id: id },
        { type: "subscription", op: "update", property: "color", value: "#f00f00", stream_id: id }
      ])
      const listed = (yield* subs.list(org.member, { includeSubscribers: false }))[0]!
      assert.strictEqual(listed.is_muted, true)
      assert.strictEqual(listed.in_home_view, false)
      const texts = yield* Effect.forEach([
        { stream_id: id, property: "bogus", value: true },
        { stream_id: id, property: "color", value: "red" },
        { stream_id: id, property: "pin_to_top", value: "yes" },
        { stream_id: 999_999, property: "pin_to_top", value: true }
      ], (change) => Effect.map(Effect.flip(subs.updateProperties(org.member, [change])), (e) => e.msg))
      assert.deepStrictEqual(texts, [
        "Unknown subscription property: bogus",
        "color is not a valid hex color code",
        "pin_to_top is not a boolean",
        "Invalid channel ID"
      ])
      yield* subs.subscribe(org.other, { subscriptions: [{ name: "theirs" }] })
      const theirs = (yield* subs.list(org.other, { includeSubscribers: false }))[0]!.stream_id
      const notSubscribed = yield* Effect.flip(subs.updateProperties(org.member, [{ stream_id: theirs, property: "pin_to_top", value: true }]))
      assert.strictEqual(notSubscribed.msg, `Not subscribed to channel ID ${theirs}`)
    }))

  it.effect("user settings: defaults, updates, user_settings and legacy events, validation", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const settings = yield* UserSettings
      const initial = yield* settings.get(org.member.user)
      assert.strictEqual(initial.emojiset, "google")
      assert.strictEqual(initial.web_home_view, "inbox")
      assert.strictEqual(initial.user_list_style, 3)
      assert.strictEqual(initial.twenty_four_hour_time, false)
      const modern = yield* openQueue(org.member, { client_capabilities: { user_settings_object: true } })
      const legacy = yield* openQueue(org.member)
      const watcher = yield* openQueue(org.other)
      yield* settings.update(org.member, { default_language: "de", enable_sounds: false, timezone: "Europe/Berlin", full_name: " Mem Ber " })
      const email = org.member.user.email
      const uid = org.member.user.id
      assert.deepStrictEqual(withoutIds(yield* modern.drain), [
        { type: "realm_user", op: "update", person: { user_id: uid, full_name: "Mem Ber" } },
        { type: "user_settings", op: "update", property: "default_language", value: "de", language_name: "Deutsch" },
        { type: "user_settings", op: "update", property: "enable_sounds", value: false },
        { type: "user_settings", op: "update", property: "timezone", value: "Europe/Berlin" },
        { type: "realm_user", op: "update", person: { email, user_id: uid, timezone: "Europe/Berlin" } }
      ])
      assert.deepStrictEqual(types(yield* legacy.drain), [
        "realm_user/update",
        "user_settings/update",
        "update_display_settings",
        "user_settings/update",
        "update_global_notifications",
        "user_settings/update",
        "update_display_settings",
        "realm_user/update"
      ])
      assert.deepStrictEqual(types(yield* watcher.drain), ["realm_user/update", "realm_user/update"])
      const after = yield* settings.get({ ...org.member.user, timezone: "Europe/Berlin" })
      assert.strictEqual(after.default_language, "de")
      assert.strictEqual(after.enable_sounds, false)
      // Unchanged values emit nothing.
      yield* settings.update(org.member, { enable_sounds: false })
      assert.deepStrictEqual(yield* modern.drain, [])
      const errors = yield* Effect.forEach([
        { default_language: "xx" },
        { notification_sound: "bogus" },
        { email_notifications_batching_period_seconds: 0 },
        { color_scheme: 9 },
        { enter_sends: "yes" },
        { web_font_size_px: 1.5 },
        { timezone: "Mars/Olympus" },
        { full_name: "a" },
        { new_password: "abcdefgh", old_password: "wrong" }
      ], (change) => Effect.map(Effect.flip(settings.update(org.member, change)), (e) => e.msg))
      assert.deepStrictEqual(errors, [
        "Invalid default_language",
        "Invalid notification sound 'bogus'",
        "Invalid email batching period: 0 seconds",
        "Invalid color_scheme",
        "enter_sends is not a boolean",
        "web_font_size_px is not an integer",
        "Not a recognized time zone",
        "Name too short!",
        "Wrong password!"
      ])
    }))

  it.effect("email visibility changes announce new_email and delivery_email", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const settings = yield* UserSettings
      const admin = yield* openQueue(org.admin)
      const member = yield* openQueue(org.other)
      yield* settings.update(org.member, { email_address_visibility: 3 })
      const uid = org.member.user.id
      const placeholder = `user${uid}@${org.realm.fake_email_domain}`
      assert.deepStrictEqual(withoutIds(yield* admin.drain), [
        { type: "realm_user", op: "update", person: { user_id: uid, new_email: placeholder } }
      ])
      assert.deepStrictEqual(withoutIds(yield* member.drain), [
        { type: "realm_user", op: "update", person: { user_id: uid, new_email: placeholder } },
        { type: "realm_user", op: "update", person: { user_id: uid, delivery_email: null } }
      ])
    }))

  it.effect("alert words: sorted lists, the alert_words event, length limit", () =>
    Effect.gen(function*() {
      const org = yield* makeOrg
      const alertWords = yield* AlertWords
      const q = yield* openQueue(org.member)
      assert.deepStrictEqual(yield* alertWords.add(org.member, ["zeta", " alpha ", "", "Zeta"]), ["alpha", "zeta"])
      assert.deepStrictEqual(yield* alertWords.remove(org.member, ["ZETA"]), ["alpha"])
      assert.deepStrictEqual(yield* alertWords.list(org.member.user.id), ["alpha"])
      assert.deepStrictEqual(withoutIds(yield* q.drain), [
        { type: "alert_words", alert_words: ["alpha", "zeta"] },
        { type: "alert_words", alert_words: ["alpha"] }
      ])
      const long = yield* Effect.flip(alertWords.add(org.member, ["ok", "x".repeat(101)]))
      assert.strictEqual(long.msg, "alert_words[1] is too long (limit: 100 characters)")
    }))
})
