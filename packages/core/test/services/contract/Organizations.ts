/**
 * Organizations.create on a fresh database: exact ids and values of a first
 * organization, refused inputs, and a failing owner rolling everything back.
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { groupId, realmId, userId } from "../../../src/domain/Ids.ts"
import { SystemGroups } from "../../../src/domain/UserGroup.ts"
import type { Persistence } from "../../../src/Persistence.ts"
import { GroupRepo, UserRepo } from "../../../src/ports/Repositories.ts"
import { KeyGenerator } from "../../../src/services/KeyGenerator.ts"
import { Organizations } from "../../../src/services/Organizations.ts"
import type { NewOrganization } from "../../../src/services/Organizations.ts"
import { Users } from "../../../src/services/Users.ts"
import type * as Teamchat from "../../../src/Teamchat.ts"
import type { Vitest } from "@effect/vitest"
import { T0, fails, directGroups, recursiveGroups, withTestClock } from "./fixtures.ts"

export const organizationsTests = (it: Vitest.MethodsNonLive<Teamchat.Services | Persistence>): void => {
  it.effect("Organizations.create: realm, system groups, settings and owner, exactly", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const organizations = yield* Organizations
      const users = yield* Users
      const groupRepo = yield* GroupRepo
      // The first key the deterministic generator hands out goes to the
      // owner. (Layer.fresh: a generator of our own, not the services' one.)
      const firstKey = yield* KeyGenerator.use((g) => g.token(32)).pipe(
        Effect.provide(Layer.fresh(KeyGenerator.layerTest))
      )

      const { owner, realm } = yield* organizations.create({
        string_id: "acme",
        name: "  Acme Corp  ",
        url: "https://chat.acme.test:8443/",
        owner: { email: " Boss@Acme.test ", full_name: "  The Boss ", password: "hunter2", timezone: "Europe/Paris" }
      })

      const g = (n: number) => groupId(n)
      assert.deepStrictEqual(realm, {
        id: realm.id,
        string_id: "acme",
        name: "Acme Corp",
        description: "",
        url: "https://chat.acme.test:8443/",
        fake_email_domain: "chat.acme.test",
        deactivated: false,
        demo: false,
        date_created: T0,
        settings: {
          email_address_visibility: 1,
          enable_spectator_access: false,
          invite_required: true,
          emails_restricted_to_domains: false,
          email_auth_enabled: true,
          allow_message_editing: true,
          message_content_edit_limit_seconds: 600,
          move_messages_within_stream_limit_seconds: 604800,
          move_messages_between_streams_limit_seconds: 604800,
          message_edit_history_visibility_policy: "all",
          enable_read_receipts: false,
          require_unique_names: false,
          waiting_period_threshold: 0,
          message_retention_days: -1,
          topics_policy: "allow_empty_topic",
          message_content_delete_limit_seconds: 600,
          can_access_all_users_group: g(7),
          can_create_groups: g(6),
          can_manage_all_groups: g(2),
          can_create_public_channel_group: g(6),
          can_create_private_channel_group: g(6),
          can_create_web_public_channel_group: g(2),
          can_add_subscribers_group: g(6),
          can_invite_users_group: g(6),
          can_move_messages_between_channels_group: g(6),
          can_move_messages_between_topics_group: g(7),
          can_delete_any_message_group: g(3),
          can_delete_own_message_group: g(7),
          can_mention_many_users_group: g(3)
        }
      })
      assert.strictEqual(realm.id, 1)
      assert.deepStrictEqual(yield* organizations.findById(realm.id), realm)
      assert.deepStrictEqual(yield* organizations.findByStringId("acme"), realm)
      assert.deepStrictEqual(yield* organizations.list, [realm])

      // System groups: created in order, so ids 1..8, each (from
      // administrators on) nesting the previous one; every setting role:nobody.
      const groups = yield* groupRepo.listByRealm(realm.id)
      assert.deepStrictEqual(
        groups,
        SystemGroups.map(({ description, name }, i) => ({
          id: g(i + 1),
          realm_id: realm.id,
          name,
          description,
          is_system_group: true,
          creator_id: null,
          date_created: null,
          deactivated: false,
          settings: {
            can_add_members_group: g(1),
            can_join_group: g(1),
            can_leave_group: g(1),
            can_manage_group: g(1),
            can_mention_group: g(1),
            can_remove_members_group: g(1)
          }
        }))
      )
      assert.deepStrictEqual(groups.map((x) => x.name), [
        "role:nobody",
        "role:owners",
        "role:administrators",
        "role:moderators",
        "role:fullmembers",
        "role:members",
        "role:everyone",
        "role:internet"
      ])
      assert.deepStrictEqual(yield* organizations.systemGroups(realm.id), {
        "role:nobody": g(1),
        "role:owners": g(2),
        "role:administrators": g(3),
        "role:moderators": g(4),
        "role:fullmembers": g(5),
        "role:members": g(6),
        "role:everyone": g(7),
        "role:internet": g(8)
      })
      const membership = yield* groupRepo.membership(realm.id)
      const sorted = (map: ReadonlyMap<number, ReadonlySet<number>>) =>
        Array.from(map.entries()).map(([k, v]) => [k, Array.from(v).sort((a, b) => a - b)]).sort(
          (a, b) => (a[0] as number) - (b[0] as number)
        )
      // owners ⊂ administrators ⊂ moderators ⊂ fullmembers ⊂ members ⊂ everyone ⊂ internet; nobody has none.
      assert.deepStrictEqual(sorted(membership.subgroups), [[3, [2]], [4, [3]], [5, [4]], [6, [5]], [7, [6]], [8, [7]]])
      assert.deepStrictEqual(sorted(membership.members), [[2, [1]]])

      // The owner.
      assert.isDefined(owner)
      const { password_hash, ...rest } = owner!
      assert.deepStrictEqual(rest, {
        id: userId(1),
        realm_id: realm.id,
        delivery_email: "Boss@Acme.test",
        email: "Boss@Acme.test",
        full_name: "The Boss",
        role: 100,
        is_bot: false,
        bot_type: null,
        bot_owner_id: null,
        is_active: true,
        timezone: "Europe/Paris",
        avatar_source: "G",
        avatar_version: 1,
        date_joined: T0,
        email_address_visibility: 1,
        api_key: firstKey,
        can_change_user_emails: false
      })
      assert.match(password_hash!, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
      assert.isTrue(yield* users.checkPassword(owner!, "hunter2"))
      assert.isFalse(yield* users.checkPassword(owner!, "hunter3"))
      assert.deepStrictEqual(yield* users.findById(owner!.id), owner)
      assert.deepStrictEqual(yield* users.findByEmail(realm.id, "boss@ACME.TEST"), owner)
      assert.deepStrictEqual(yield* recursiveGroups(realm.id, owner!.id), [
        "role:owners",
        "role:administrators",
        "role:moderators",
        "role:fullmembers",
        "role:members",
        "role:everyone",
        "role:internet"
      ])
    }).pipe(withTestClock))

  it.effect("Organizations.create: invalid and duplicate string ids, empty names; nothing is created", () =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const before = yield* organizations.list
      const base = { name: "X", url: "http://x.test" }
      const pattern = "Subdomain can only have lowercase letters, numbers, and '-'s."
      const refused: ReadonlyArray<{ readonly case: string; readonly input: NewOrganization; readonly msg: string }> = [
        { case: "an upper-case letter", input: { ...base, string_id: "Acme2" }, msg: pattern },
        { case: "an underscore", input: { ...base, string_id: "acme_2" }, msg: pattern },
        { case: "empty", input: { ...base, string_id: "" }, msg: pattern },
        { case: "41 characters", input: { ...base, string_id: "a".repeat(41) }, msg: pattern },
        {
          case: "already in use",
          input: { ...base, string_id: "acme" },
          msg: "Subdomain is already in use. Please choose a different one."
        },
        {
          case: "a blank name",
          input: { ...base, string_id: "acme3", name: "   " },
          msg: "Organization name can't be empty."
        }
      ]
      for (const row of refused) {
        yield* fails(organizations.create(row.input), "BadRequest", row.msg, row.case)
      }
      assert.deepStrictEqual(yield* organizations.list, before)
      // None of the failures consumed an id.
      const { realm } = yield* organizations.create({ ...base, string_id: "a".repeat(40) })
      assert.strictEqual(realm.id, before[before.length - 1]!.id + 1)
      assert.strictEqual(realm.fake_email_domain, "x.test")
    }).pipe(withTestClock))

  it.effect("Organizations.create: a failing owner rolls the whole organization back", () =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const groupRepo = yield* GroupRepo
      const userRepo = yield* UserRepo
      const last = (yield* organizations.list).at(-1)!
      const lastGroup = (yield* groupRepo.listByRealm(last.id)).at(-1)!

      yield* fails(
        organizations.create({
          string_id: "rolled-back",
          name: "Rolled back",
          url: "http://rb.test",
          owner: { email: "owner@rb.test", full_name: "Bad|12" }
        }),
        "NameInvalidFormat",
        "Invalid format!"
      )
      assert.strictEqual(yield* organizations.findByStringId("rolled-back"), undefined)
      assert.deepStrictEqual((yield* organizations.list).at(-1), last)
      assert.deepStrictEqual(yield* userRepo.listByRealm(realmId(last.id + 1)), [])
      assert.deepStrictEqual(yield* groupRepo.listByRealm(realmId(last.id + 1)), [])

      // The realm and group ids the failed attempt took stay used, like
      // SQL sequences, on every backend alike.
      const { owner, realm } = yield* organizations.create({
        string_id: "rolled-back",
        name: "Rolled back",
        url: "http://rb.test",
        owner: { email: "owner@rb.test", full_name: "Good" }
      })
      assert.strictEqual(realm.id, last.id + 2)
      assert.deepStrictEqual(
        (yield* groupRepo.listByRealm(realm.id)).map((g) => g.id),
        Array.from({ length: 8 }, (_, i) => lastGroup.id + 9 + i)
      )
      assert.strictEqual(owner!.role, 100)
      assert.strictEqual(owner!.password_hash, null)
      assert.deepStrictEqual(yield* directGroups(realm.id, owner!.id), ["role:owners"])
    }).pipe(withTestClock))
}
