/**
 * Organizations: creation (with the system groups and the owner) and lookup.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import type { GroupId, RealmId } from "../domain/Ids.ts"
import { DefaultMessageContentDeleteLimitSeconds } from "../domain/Realm.ts"
import type { Realm, RealmSettings } from "../domain/Realm.ts"
import { EmailVisibilities } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import { SystemGroups, systemGroupIdsOf } from "../domain/UserGroup.ts"
import type { SystemGroupIds, SystemGroupName } from "../domain/UserGroup.ts"
import { BadRequest } from "../errors/Errors.ts"
import { GroupRepo, RealmRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { AuditLog } from "./AuditLog.ts"
import { Users } from "./Users.ts"
import type { NewUser, NewUserError } from "./Users.ts"

/** @category models */
export interface NewOrganization {
  readonly string_id: string
  readonly name: string
  readonly description?: string
  /** Public base URL, e.g. "http://localhost:9991". */
  readonly url: string
  readonly fake_email_domain?: string
  readonly settings?: Partial<Omit<RealmSettings, `can_${string}`>>
  /** Created as the organization owner; omitted for internal organizations of system bots. */
  readonly owner?: Omit<NewUser, "role">
  /** The demo seed's organization (`Realm.demo`, default false). */
  readonly demo?: boolean
}

/** @category models */
export interface CreatedOrganization {
  readonly realm: Realm
  readonly owner: User | undefined
}

/** The system group ids of an organization, by name (defined with the groups). @category models */
export type { SystemGroupIds }

const stringIdPattern = /^[a-z0-9][a-z0-9-]{0,39}$/

/** @category services */
export class Organizations extends Context.Service<Organizations, {
  create(input: NewOrganization): Effect.Effect<CreatedOrganization, BadRequest | NewUserError>
  findById(id: RealmId): Effect.Effect<Realm | undefined>
  findByStringId(stringId: string): Effect.Effect<Realm | undefined>
  list: Effect.Effect<ReadonlyArray<Realm>>
  systemGroups(id: RealmId): Effect.Effect<SystemGroupIds>
}>()("teamchat/core/services/Organizations") {
  static readonly layer = Layer.effect(
    Organizations,
    Effect.gen(function*() {
      const realms = yield* RealmRepo
      const groups = yield* GroupRepo
      const users = yield* Users
      const tx = yield* Transactor
      const audit = yield* AuditLog

      const systemGroups = Effect.fn("Organizations.systemGroups")(function*(id: RealmId) {
        return systemGroupIdsOf(yield* groups.listByRealm(id))
      })

      const create = Effect.fn("Organizations.create")(function*(input: NewOrganization) {
        if (!stringIdPattern.test(input.string_id)) {
          return yield* new BadRequest({ msg: "Subdomain can only have lowercase letters, numbers, and '-'s." })
        }
        if (input.name.trim().length === 0) {
          return yield* new BadRequest({ msg: "Organization name can't be empty." })
        }
        return yield* tx.withTransaction(Effect.gen(function*() {
          if ((yield* realms.findByStringId(input.string_id)) !== undefined) {
            return yield* new BadRequest({ msg: "Subdomain is already in use. Please choose a different one." })
          }
          const now = yield* Clock.currentTimeMillis
          // The system groups need the realm's id, and its settings name them:
          // until they exist, each group setting holds the empty anonymous
          // group (nobody, as role:nobody will), replaced below.
          const nobody: GroupSettingValue = { direct_members: [], direct_subgroups: [] }
          const realm = yield* realms.insert({
            string_id: input.string_id,
            name: input.name.trim(),
            description: input.description ?? "",
            url: input.url,
            fake_email_domain: input.fake_email_domain ?? new URL(input.url).hostname,
            deactivated: false,
            demo: input.demo ?? false,
            date_created: now,
            settings: {
              email_address_visibility: EmailVisibilities.everyone,
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
              message_content_delete_limit_seconds: DefaultMessageContentDeleteLimitSeconds,
              ...input.settings,
              can_access_all_users_group: nobody,
              can_create_groups: nobody,
              can_manage_all_groups: nobody,
              can_create_public_channel_group: nobody,
              can_create_private_channel_group: nobody,
              can_create_web_public_channel_group: nobody,
              can_add_subscribers_group: nobody,
              can_invite_users_group: nobody,
              can_move_messages_between_channels_group: nobody,
              can_move_messages_between_topics_group: nobody,
              can_delete_any_message_group: nobody,
              can_delete_own_message_group: nobody,
              can_mention_many_users_group: nobody
            }
          })
          const ids: Partial<Record<SystemGroupName, GroupId>> = {}
          let previous: GroupId | undefined
          for (const { name, description } of SystemGroups) {
            const group = yield* groups.insert({
              realm_id: realm.id,
              name,
              description,
              is_system_group: true,
              creator_id: null,
              date_created: null,
              deactivated: false,
              // role:nobody is created first, then names itself (below).
              settings: {
                can_add_members_group: ids["role:nobody"] ?? nobody,
                can_join_group: ids["role:nobody"] ?? nobody,
                can_leave_group: ids["role:nobody"] ?? nobody,
                can_manage_group: ids["role:nobody"] ?? nobody,
                can_mention_group: ids["role:nobody"] ?? nobody,
                can_remove_members_group: ids["role:nobody"] ?? nobody
              }
            })
            ids[name] = group.id
            if (name === "role:nobody") {
              yield* groups.update({
                ...group,
                settings: {
                  can_add_members_group: group.id,
                  can_join_group: group.id,
                  can_leave_group: group.id,
                  can_manage_group: group.id,
                  can_mention_group: group.id,
                  can_remove_members_group: group.id
                }
              })
            } else if (previous !== undefined && name !== "role:owners") {
              yield* groups.addSubgroups(group.id, [previous])
            }
            previous = group.id
          }
          const g = ids as SystemGroupIds
          const withGroups: Realm = {
            ...realm,
            settings: {
              ...realm.settings,
              can_access_all_users_group: g["role:everyone"],
              can_create_groups: g["role:members"],
              can_manage_all_groups: g["role:owners"],
              can_create_public_channel_group: g["role:members"],
              can_create_private_channel_group: g["role:members"],
              can_create_web_public_channel_group: g["role:owners"],
              can_add_subscribers_group: g["role:members"],
              can_invite_users_group: g["role:members"],
              can_move_messages_between_channels_group: g["role:members"],
              can_move_messages_between_topics_group: g["role:everyone"],
              can_delete_any_message_group: g["role:administrators"],
              can_delete_own_message_group: g["role:everyone"],
              can_mention_many_users_group: g["role:administrators"]
            }
          }
          yield* realms.update(withGroups)
          // The operator's act (the command line): no acting user. The system
          // groups come with the organization and are not logged apart.
          yield* audit.record(withGroups.id, null, [{ event_type: "realm_created" }])
          const owner = input.owner === undefined
            ? undefined
            : yield* users.create(withGroups.id, { ...input.owner, role: 100 })
          return { realm: withGroups, owner }
        }))
      })

      return Organizations.of({
        create,
        findById: (id) => realms.findById(id),
        findByStringId: (stringId) => realms.findByStringId(stringId),
        list: realms.list,
        systemGroups
      })
    })
  )
}
