/**
 * User groups: listing, creation, updates (name, description, the six
 * group settings with compare-and-set, reactivation), membership and
 * subgroups, and deactivation, with Zulip's rules and `user_group` events.
 *
 * Every write runs in one transaction that first takes the organization's
 * group-write lock (`GroupRepo.lockGroups`) and then reads the state it
 * decides from, so concurrent requests see each other's committed work: an
 * expected `old` value, a free name and the absence of a subgroup cycle are
 * still true when written. Events are published inside the transaction and
 * delivered once it commits.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { valueChange } from "../domain/AuditLog.ts"
import type { AuditChange } from "../domain/AuditLog.ts"
import { Audience } from "../domain/Event.ts"
import type { EventOf } from "../domain/Event.ts"
import type { UserGroupUpdateData } from "../domain/events/UserGroupEvents.ts"
import type { GroupSettingValue } from "../domain/GroupSetting.ts"
import { equivalent, isNamed, normalize } from "../domain/GroupSetting.ts"
import type { GroupId, UserId } from "../domain/Ids.ts"
import type { Principal } from "../domain/Principal.ts"
import type { Realm } from "../domain/Realm.ts"
import { isGuest } from "../domain/Role.ts"
import type { User } from "../domain/User.ts"
import type { GroupPermissionSettings, UserGroup } from "../domain/UserGroup.ts"
import { systemGroupIdsOf } from "../domain/UserGroup.ts"
import {
  BadRequest,
  BotsNotAllowed,
  CannotDeactivateGroupInUse,
  ExpectationMismatch,
  GroupMembersNothingToDo,
  GroupSettingCannotBeEveryone,
  GroupSettingCannotBeInternet,
  GroupSettingCannotBeOwners,
  InsufficientPermission,
  InvalidSubgroupId,
  InvalidUserGroup,
  InvalidUserIdColon,
  NoNewData,
  NoSuchUser,
  NotASubgroup,
  NotAllowedForGuests,
  SubgroupAlreadyMember,
  SubgroupCycle,
  SubgroupsNothingToDo,
  UserAlreadyGroupMember,
  UserGroupDeactivated,
  UserGroupNameEmpty,
  UserGroupNameExists,
  UserGroupNameReservedPrefix,
  UserGroupNameTooLong,
  UserNotGroupMember
} from "../errors/Errors.ts"
import {
  canAddMembers,
  canAddSubgroups,
  canCreateGroups,
  canManageGroup,
  canRemoveMembers,
  canRemoveSubgroups,
  defaultGroupSettings,
  groupObjections,
  GroupSettingNames,
  GroupSettingRules,
  systemGroupRefusal,
  wouldCycle
} from "../permissions/UserGroupPermissions.ts"
import type { Actor, GroupSettingName } from "../permissions/UserGroupPermissions.ts"
import { ChannelRepo, GroupRepo, RealmRepo } from "../ports/Repositories.ts"
import { Transactor } from "../ports/Transactor.ts"
import { toApiUserGroup, toApiUserGroupWith } from "../views/UserGroupView.ts"
import type { ApiUserGroup } from "../views/UserGroupView.ts"
import { AuditLog } from "./AuditLog.ts"
import { Events } from "./events/Events.ts"
import { accessOfRequest, makeAccessLoader } from "./internal/access.ts"
import { makeOrganizationStateLoader } from "./internal/organizationState.ts"
import type { OrganizationState } from "./internal/organizationState.ts"

/** A group-setting value as a client sends it (ids not checked yet). @category models */
export type SettingValueInput = number | {
  readonly direct_members: ReadonlyArray<number>
  readonly direct_subgroups: ReadonlyArray<number>
}

/** POST /user_groups/create. @category models */
export interface NewUserGroup {
  readonly name: string
  readonly description: string
  readonly members: ReadonlyArray<number>
  readonly subgroups?: ReadonlyArray<number> | undefined
  readonly settings?: Partial<Record<GroupSettingName, SettingValueInput>> | undefined
}

/** One `{new, old}` setting of PATCH /user_groups/{id}. @category models */
export interface SettingChange {
  readonly new: SettingValueInput
  readonly old?: SettingValueInput | undefined
}

/** PATCH /user_groups/{id}. @category models */
export interface UserGroupChanges {
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly settings?: Partial<Record<GroupSettingName, SettingChange>> | undefined
  readonly deactivated?: boolean | undefined
}

/** POST /user_groups/{id}/members. @category models */
export interface MembershipChanges {
  readonly add?: ReadonlyArray<number> | undefined
  readonly delete?: ReadonlyArray<number> | undefined
  readonly add_subgroups?: ReadonlyArray<number> | undefined
  readonly delete_subgroups?: ReadonlyArray<number> | undefined
}

/** POST /user_groups/{id}/subgroups. @category models */
export interface SubgroupChanges {
  readonly add?: ReadonlyArray<number> | undefined
  readonly delete?: ReadonlyArray<number> | undefined
}

/** Zulip's `require_member_or_admin`: every group endpoint refuses guests and bots. @category models */
export type CallerError = NotAllowedForGuests | BotsNotAllowed

/** A group-setting value that names what does not exist or may not be used. @category models */
export type SettingValueError =
  | InvalidUserIdColon
  | InvalidSubgroupId
  | UserGroupDeactivated
  | GroupSettingCannotBeInternet
  | GroupSettingCannotBeEveryone
  | GroupSettingCannotBeOwners

/** @category models */
export type NameError = UserGroupNameEmpty | UserGroupNameTooLong | UserGroupNameReservedPrefix | UserGroupNameExists

/** Finding a group to change. @category models */
export type AccessError = InvalidUserGroup | InsufficientPermission | UserGroupDeactivated

/** @category models */
export type MembershipError =
  | CallerError
  | AccessError
  | GroupMembersNothingToDo
  | SubgroupsNothingToDo
  | InvalidUserIdColon
  | InvalidSubgroupId
  | UserAlreadyGroupMember
  | UserNotGroupMember
  | SubgroupAlreadyMember
  | NotASubgroup
  | SubgroupCycle

/** The longest group name. @category constants */
export const MaxGroupNameLength = 100

/** Names no group may start with (mention and narrow syntax). @category constants */
export const ReservedGroupNamePrefixes = ["@", "role:", "user:", "stream:", "channel:"] as const

/** Zulip's `check_user_group_name`. @category validation */
export const checkGroupName = (name: string): UserGroupNameEmpty | UserGroupNameTooLong | UserGroupNameReservedPrefix | undefined => {
  if (name.trim() === "") return new UserGroupNameEmpty()
  if (name.length > MaxGroupNameLength) return new UserGroupNameTooLong()
  const prefix = ReservedGroupNamePrefixes.find((p) => name.startsWith(p))
  return prefix === undefined ? undefined : new UserGroupNameReservedPrefix({ prefix })
}

const ascending = (a: number, b: number) => a - b
const unique = <A extends number>(ids: ReadonlyArray<A>): Array<A> => Array.from(new Set(ids)).sort(ascending)

const requireMemberOrAdmin = (user: User): Effect.Effect<void, CallerError> => {
  if (isGuest(user.role)) return Effect.fail(new NotAllowedForGuests())
  if (user.is_bot) return Effect.fail(new BotsNotAllowed())
  return Effect.void
}

/** Zulip's rows for users joining or leaving a group: one per user. */
const membersAudit = (group: GroupId, users: ReadonlyArray<UserId>, added: boolean): Array<AuditChange> =>
  users.map((user) => ({
    event_type: added ? "user_group_direct_user_membership_added" : "user_group_direct_user_membership_removed",
    modified_user_id: user,
    modified_user_group_id: group
  }))

/**
 * Zulip's rows for subgroups added or removed: one on the group naming them
 * all, and one on each subgroup naming the group.
 */
const subgroupsAudit = (group: GroupId, subgroups: ReadonlyArray<GroupId>, added: boolean): Array<AuditChange> =>
  subgroups.length === 0 ? [] : [
    {
      event_type: added ? "user_group_direct_subgroup_membership_added" : "user_group_direct_subgroup_membership_removed",
      modified_user_group_id: group,
      extra_data: { subgroup_ids: [...subgroups] }
    },
    ...subgroups.map((subgroup): AuditChange => ({
      event_type: added ? "user_group_direct_supergroup_membership_added" : "user_group_direct_supergroup_membership_removed",
      modified_user_group_id: subgroup,
      extra_data: { supergroup_ids: [group] }
    }))
  ]

/** @category services */
export class UserGroups extends Context.Service<UserGroups, {
  /** GET /user_groups */
  list(principal: Principal, options: { readonly includeDeactivated: boolean }): Effect.Effect<ReadonlyArray<ApiUserGroup>, CallerError>
  /** POST /user_groups/create: the new group's id. */
  create(
    principal: Principal,
    input: NewUserGroup
  ): Effect.Effect<GroupId, CallerError | InsufficientPermission | NameError | SettingValueError>
  /** PATCH /user_groups/{id} */
  update(
    principal: Principal,
    groupId: number,
    changes: UserGroupChanges
  ): Effect.Effect<void, CallerError | AccessError | NoNewData | NameError | SettingValueError | ExpectationMismatch>
  /** POST /user_groups/{id}/deactivate */
  deactivate(principal: Principal, groupId: number): Effect.Effect<void, CallerError | AccessError | CannotDeactivateGroupInUse>
  /** POST /user_groups/{id}/members */
  updateMembers(principal: Principal, groupId: number, changes: MembershipChanges): Effect.Effect<void, MembershipError>
  /** POST /user_groups/{id}/subgroups */
  updateSubgroups(principal: Principal, groupId: number, changes: SubgroupChanges): Effect.Effect<void, MembershipError>
  /** GET /user_groups/{id}/members: active members, direct or recursive, ascending. */
  members(
    principal: Principal,
    groupId: number,
    options: { readonly directOnly: boolean }
  ): Effect.Effect<ReadonlyArray<UserId>, CallerError | InvalidUserGroup>
  /** GET /user_groups/{id}/members/{user_id} */
  isMember(
    principal: Principal,
    groupId: number,
    userId: number,
    options: { readonly directOnly: boolean }
  ): Effect.Effect<boolean, CallerError | InvalidUserGroup | NoSuchUser | BadRequest>
  /** GET /user_groups/{id}/subgroups: direct, or every recursive subgroup but the group itself. */
  subgroups(
    principal: Principal,
    groupId: number,
    options: { readonly directOnly: boolean }
  ): Effect.Effect<ReadonlyArray<GroupId>, CallerError | InvalidUserGroup>
}>()("teamchat/core/services/UserGroups") {
  static readonly layer = Layer.effect(
    UserGroups,
    Effect.gen(function*() {
      const loadState = yield* makeOrganizationStateLoader
      const loadAccess = yield* makeAccessLoader
      const groups = yield* GroupRepo
      const channels = yield* ChannelRepo
      const realms = yield* RealmRepo
      const events = yield* Events
      const tx = yield* Transactor
      const audit = yield* AuditLog

      /** The organization as stored now (the caller's copy may predate a change). */
      const currentState = Effect.fnUntraced(function*(principal: Principal) {
        const realm = (yield* realms.findById(principal.realm.id)) ?? principal.realm
        return yield* loadState(realm)
      })

      /**
       * The organization for a read that decides no write: the read
       * authentication found current for the request (`accessOfRequest`), or
       * the kept read while the organization's access version holds. Every
       * write to users, groups or their members moves that version.
       */
      const readState = (principal: Principal) => Effect.map(accessOfRequest(loadAccess, principal), (ctx) => ctx.state)

      /**
       * Takes the group-write lock, then reads the state the write decides
       * from: the kept read of the organization while its access version
       * (read after the lock, so it counts every committed write) is still
       * the read's, else a fresh one. Authentication keeps that read current,
       * so a request's write usually reads one version.
       */
      const lockedState = Effect.fnUntraced(function*(principal: Principal) {
        yield* groups.lockGroups(principal.realm.id)
        return (yield* loadAccess(principal.realm)).state
      })

      const findGroup = (state: OrganizationState, id: number): UserGroup | undefined =>
        state.groups.find((g) => g.id === id)

      /** The caller as stored now (role changes apply at once). */
      const actorOf = (state: OrganizationState, principal: Principal): Actor =>
        state.usersById.get(principal.user.id) ?? principal.user

      const forRead = (state: OrganizationState, id: number): Effect.Effect<UserGroup, InvalidUserGroup> => {
        const group = findGroup(state, id)
        return group === undefined ? Effect.fail(new InvalidUserGroup()) : Effect.succeed(group)
      }

      /** Zulip's `access_user_group_for_update`. */
      const forUpdate = (
        state: OrganizationState,
        id: number,
        permitted: (group: UserGroup) => boolean,
        options: { readonly allowDeactivated: boolean }
      ): Effect.Effect<UserGroup, AccessError> => {
        const group = findGroup(state, id)
        if (group === undefined) return Effect.fail(new InvalidUserGroup())
        if (group.is_system_group) return Effect.fail(new InsufficientPermission())
        if (group.deactivated && !options.allowDeactivated) return Effect.fail(new UserGroupDeactivated())
        if (!permitted(group)) return Effect.fail(new InsufficientPermission())
        return Effect.succeed(group)
      }

      /** Active users of the organization, by the ids given (Zulip's `user_ids_to_users`). */
      const activeUsers = (state: OrganizationState, ids: ReadonlyArray<number>): Effect.Effect<Array<UserId>, InvalidUserIdColon> => {
        const out: Array<UserId> = []
        for (const id of ids) {
          const user = state.usersById.get(id as UserId)
          if (user === undefined || !user.is_active) return Effect.fail(new InvalidUserIdColon({ user_id: id }))
          out.push(user.id)
        }
        return Effect.succeed(unique(out))
      }

      /** Groups of the organization, by the ids given; deactivated ones only where allowed. */
      const existingGroups = (
        state: OrganizationState,
        ids: ReadonlyArray<number>,
        options: { readonly allowDeactivated: boolean }
      ): Effect.Effect<Array<GroupId>, InvalidSubgroupId | UserGroupDeactivated> => {
        const out: Array<GroupId> = []
        for (const id of ids) {
          const group = findGroup(state, id)
          if (group === undefined) return Effect.fail(new InvalidSubgroupId({ group_id: id }))
          if (group.deactivated && !options.allowDeactivated) return Effect.fail(new UserGroupDeactivated())
          out.push(group.id)
        }
        return Effect.succeed(unique(out))
      }

      /** Zulip's `access_user_group_for_setting`: a value checked, in its canonical form. */
      const resolveSetting = Effect.fnUntraced(function*(
        state: OrganizationState,
        name: GroupSettingName,
        input: SettingValueInput
      ): Effect.fn.Return<GroupSettingValue, SettingValueError> {
        let value: GroupSettingValue
        if (typeof input === "number") {
          const [id] = yield* existingGroups(state, [input], { allowDeactivated: false })
          value = id!
        } else {
          value = normalize({
            direct_members: yield* activeUsers(state, input.direct_members),
            direct_subgroups: yield* existingGroups(state, input.direct_subgroups, { allowDeactivated: false })
          })
        }
        if (isNamed(value)) {
          const group = findGroup(state, value)
          switch (systemGroupRefusal(GroupSettingRules[name], group?.is_system_group ? group.name : undefined)) {
            case "role:internet":
              return yield* new GroupSettingCannotBeInternet({ setting_name: name })
            case "role:everyone":
              return yield* new GroupSettingCannotBeEveryone({ setting_name: name })
            case "role:owners":
              return yield* new GroupSettingCannotBeOwners({ setting_name: name })
          }
        }
        return value
      })

      /** A stated value read for comparison only: ids as given, in canonical form. */
      const asValue = (input: SettingValueInput): GroupSettingValue =>
        typeof input === "number"
          ? input as GroupId
          : normalize({
            direct_members: input.direct_members as ReadonlyArray<UserId>,
            direct_subgroups: input.direct_subgroups as ReadonlyArray<GroupId>
          })

      const checkNameFree = (state: OrganizationState, name: string): Effect.Effect<void, UserGroupNameExists> =>
        state.groups.some((g) => g.name === name) ? Effect.fail(new UserGroupNameExists({ name })) : Effect.void

      const publish = (realmId: Realm["id"], event: EventOf<"user_group">) => events.publish(realmId, event, Audience.realm)

      const list = Effect.fn("UserGroups.list")(function*(principal: Principal, options: { readonly includeDeactivated: boolean }) {
        yield* requireMemberOrAdmin(principal.user)
        const state = yield* readState(principal)
        return state.groups
          .filter((g) => options.includeDeactivated || !g.deactivated)
          .map((g) => toApiUserGroup(g, state.index))
      })

      const create = Effect.fn("UserGroups.create")(function*(principal: Principal, input: NewUserGroup) {
        yield* requireMemberOrAdmin(principal.user)
        return yield* tx.withTransaction(Effect.gen(function*() {
          const state = yield* lockedState(principal)
          const realm = state.realm
          if (!canCreateGroups(state.index, realm, actorOf(state, principal))) return yield* new InsufficientPermission()
          const members = yield* activeUsers(state, input.members)
          const nameProblem = checkGroupName(input.name)
          if (nameProblem !== undefined) return yield* nameProblem
          const given: Partial<Record<GroupSettingName, GroupSettingValue>> = {}
          for (const name of GroupSettingNames) {
            const raw = input.settings?.[name]
            if (raw !== undefined) given[name] = yield* resolveSetting(state, name, raw)
          }
          const subgroups = yield* existingGroups(state, input.subgroups ?? [], { allowDeactivated: false })
          yield* checkNameFree(state, input.name)
          const now = yield* Clock.currentTimeMillis
          const direct = { members, subgroups }
          const group = yield* groups.insert({
            realm_id: realm.id,
            name: input.name,
            description: input.description,
            is_system_group: false,
            creator_id: principal.user.id,
            date_created: now,
            deactivated: false,
            settings: defaultGroupSettings(principal.user.id, systemGroupIdsOf(state.groups), given)
          }, direct)
          yield* audit.record(realm.id, principal.user.id, [
            { event_type: "user_group_created", modified_user_group_id: group.id },
            ...membersAudit(group.id, members, true),
            ...subgroupsAudit(group.id, subgroups, true)
          ])
          // Zulip's do_send_create_user_group_event: the group as written,
          // its members (active, ascending) and subgroups as checked above.
          yield* publish(realm.id, { type: "user_group", op: "add", group: toApiUserGroupWith(group, direct) })
          return group.id
        }))
      })

      const update = Effect.fn("UserGroups.update")(function*(principal: Principal, groupId: number, changes: UserGroupChanges) {
        yield* requireMemberOrAdmin(principal.user)
        const settingChanges = GroupSettingNames.filter((name) => changes.settings?.[name] !== undefined)
        if (
          changes.name === undefined && changes.description === undefined && settingChanges.length === 0 &&
          changes.deactivated === undefined
        ) return yield* new NoNewData()
        yield* tx.withTransaction(Effect.gen(function*() {
          const state = yield* lockedState(principal)
          const actor = actorOf(state, principal)
          const group = yield* forUpdate(state, groupId, (g) => canManageGroup(state.index, state.realm, actor, g), {
            allowDeactivated: true
          })
          let updated: UserGroup = group
          const announced: Array<UserGroupUpdateData> = []
          const audited: Array<AuditChange> = []
          if (changes.name !== undefined && changes.name !== group.name) {
            const nameProblem = checkGroupName(changes.name)
            if (nameProblem !== undefined) return yield* nameProblem
            yield* checkNameFree(state, changes.name)
            updated = { ...updated, name: changes.name }
            announced.push({ name: changes.name })
            audited.push({
              event_type: "user_group_name_changed",
              modified_user_group_id: group.id,
              extra_data: valueChange(group.name, changes.name)
            })
          }
          if (changes.description !== undefined && changes.description !== group.description) {
            updated = { ...updated, description: changes.description }
            announced.push({ description: changes.description })
            audited.push({
              event_type: "user_group_description_changed",
              modified_user_group_id: group.id,
              extra_data: valueChange(group.description, changes.description)
            })
          }
          const settings: Record<string, GroupSettingValue> = { ...group.settings }
          for (const name of settingChanges) {
            const change = changes.settings![name]!
            const current = group.settings[name]
            if (change.old !== undefined && !equivalent(asValue(change.old), current)) {
              return yield* new ExpectationMismatch({ field_name: "old" })
            }
            if (equivalent(asValue(change.new), current)) continue
            const value = yield* resolveSetting(state, name, change.new)
            if (equivalent(value, current)) continue
            settings[name] = value
            announced.push({ [name]: value })
            audited.push({
              event_type: "user_group_group_based_setting_changed",
              modified_user_group_id: group.id,
              extra_data: valueChange(current, value, name)
            })
          }
          updated = { ...updated, settings: settings as GroupPermissionSettings }
          const reactivate = changes.deactivated === false && group.deactivated
          if (reactivate) updated = { ...updated, deactivated: false }
          if (announced.length === 0 && !reactivate) return
          yield* groups.update(updated)
          if (reactivate) audited.push({ event_type: "user_group_reactivated", modified_user_group_id: group.id })
          yield* audit.record(group.realm_id, principal.user.id, audited)
          for (const data of announced) yield* publish(group.realm_id, { type: "user_group", op: "update", group_id: group.id, data })
          if (reactivate) {
            // Clients that keep deactivated groups get the flag; the others
            // were told the group was removed, so they get it back whole.
            yield* publish(group.realm_id, { type: "user_group", op: "update", group_id: group.id, data: { deactivated: false } })
            yield* events.publish(
              group.realm_id,
              { type: "user_group", op: "add", group: toApiUserGroup(updated, state.index) },
              Audience.realm,
              { include_deactivated_groups: false }
            )
          }
        }))
      })

      const deactivate = Effect.fn("UserGroups.deactivate")(function*(principal: Principal, groupId: number) {
        yield* requireMemberOrAdmin(principal.user)
        yield* tx.withTransaction(Effect.gen(function*() {
          const state = yield* lockedState(principal)
          const actor = actorOf(state, principal)
          const group = yield* forUpdate(state, groupId, (g) => canManageGroup(state.index, state.realm, actor, g), {
            allowDeactivated: false
          })
          const objections = groupObjections(
            group.id,
            state.index,
            state.groups,
            yield* channels.listByRealm(state.realm.id),
            state.realm
          )
          if (objections.length > 0) return yield* new CannotDeactivateGroupInUse({ objections })
          yield* groups.update({ ...group, deactivated: true })
          yield* audit.record(group.realm_id, principal.user.id, [{ event_type: "user_group_deactivated", modified_user_group_id: group.id }])
          // The accepts rule of the queues sends each client one of the two.
          yield* publish(group.realm_id, { type: "user_group", op: "update", group_id: group.id, data: { deactivated: true } })
          yield* publish(group.realm_id, { type: "user_group", op: "remove", group_id: group.id })
        }))
      })

      /** One part of a membership request, on the state as the previous parts left it. */
      const addUsers = Effect.fnUntraced(function*(principal: Principal, groupId: number, ids: ReadonlyArray<number>) {
        const state = yield* currentState(principal)
        const actor = actorOf(state, principal)
        const group = yield* forUpdate(state, groupId, (g) => canAddMembers(state.index, state.realm, actor, g, ids), {
          allowDeactivated: true
        })
        const users = yield* activeUsers(state, ids)
        const direct = new Set(state.index.directMembers(group.id))
        const already = users.find((id) => direct.has(id))
        if (already !== undefined) return yield* new UserAlreadyGroupMember({ user_id: already })
        yield* groups.addMembers(group.id, users)
        yield* publish(group.realm_id, { type: "user_group", op: "add_members", group_id: group.id, user_ids: users })
        return membersAudit(group.id, users, true)
      })

      const removeUsers = Effect.fnUntraced(function*(principal: Principal, groupId: number, ids: ReadonlyArray<number>) {
        const state = yield* currentState(principal)
        const actor = actorOf(state, principal)
        const group = yield* forUpdate(state, groupId, (g) => canRemoveMembers(state.index, state.realm, actor, g, ids), {
          allowDeactivated: true
        })
        const users = yield* activeUsers(state, ids)
        const direct = new Set(state.index.directMembers(group.id))
        const missing = users.find((id) => !direct.has(id))
        if (missing !== undefined) return yield* new UserNotGroupMember({ user_id: missing })
        yield* groups.removeMembers(group.id, users)
        yield* publish(group.realm_id, { type: "user_group", op: "remove_members", group_id: group.id, user_ids: users })
        return membersAudit(group.id, users, false)
      })

      const addSubgroups = Effect.fnUntraced(function*(principal: Principal, groupId: number, ids: ReadonlyArray<number>) {
        const state = yield* currentState(principal)
        const actor = actorOf(state, principal)
        const group = yield* forUpdate(state, groupId, (g) => canAddSubgroups(state.index, state.realm, actor, g), {
          allowDeactivated: true
        })
        const subgroups = yield* existingGroups(state, ids, { allowDeactivated: false })
        const direct = new Set(state.index.directSubgroups(group.id))
        const already = subgroups.find((id) => direct.has(id))
        if (already !== undefined) return yield* new SubgroupAlreadyMember({ group_id: already })
        if (wouldCycle(state.index, group.id, subgroups)) return yield* new SubgroupCycle({ group_id: group.id })
        yield* groups.addSubgroups(group.id, subgroups)
        yield* publish(group.realm_id, {
          type: "user_group",
          op: "add_subgroups",
          group_id: group.id,
          direct_subgroup_ids: subgroups
        })
        return subgroupsAudit(group.id, subgroups, true)
      })

      const removeSubgroups = Effect.fnUntraced(function*(principal: Principal, groupId: number, ids: ReadonlyArray<number>) {
        const state = yield* currentState(principal)
        const actor = actorOf(state, principal)
        const group = yield* forUpdate(state, groupId, (g) => canRemoveSubgroups(state.index, state.realm, actor, g), {
          allowDeactivated: true
        })
        const subgroups = yield* existingGroups(state, ids, { allowDeactivated: true })
        const direct = new Set(state.index.directSubgroups(group.id))
        const missing = subgroups.find((id) => !direct.has(id))
        if (missing !== undefined) return yield* new NotASubgroup({ group_id: missing })
        yield* groups.removeSubgroups(group.id, subgroups)
        yield* publish(group.realm_id, {
          type: "user_group",
          op: "remove_subgroups",
          group_id: group.id,
          direct_subgroup_ids: subgroups
        })
        return subgroupsAudit(group.id, subgroups, false)
      })

      /** The parts of a membership request in Zulip's order, all in one transaction. */
      const applyMembership = (principal: Principal, groupId: number, changes: MembershipChanges) =>
        tx.withTransaction(Effect.gen(function*() {
          yield* groups.lockGroups(principal.realm.id)
          // The parts' rows are written together, once every part has passed.
          const audited: Array<AuditChange> = []
          if ((changes.add ?? []).length > 0) audited.push(...yield* addUsers(principal, groupId, changes.add!))
          if ((changes.delete ?? []).length > 0) audited.push(...yield* removeUsers(principal, groupId, changes.delete!))
          if ((changes.add_subgroups ?? []).length > 0) audited.push(...yield* addSubgroups(principal, groupId, changes.add_subgroups!))
          if ((changes.delete_subgroups ?? []).length > 0) {
            audited.push(...yield* removeSubgroups(principal, groupId, changes.delete_subgroups!))
          }
          yield* audit.record(principal.realm.id, principal.user.id, audited)
        }))

      const isEmpty = (ids: ReadonlyArray<number> | undefined) => ids === undefined || ids.length === 0

      const updateMembers = Effect.fn("UserGroups.updateMembers")(function*(
        principal: Principal,
        groupId: number,
        changes: MembershipChanges
      ) {
        yield* requireMemberOrAdmin(principal.user)
        if (isEmpty(changes.add) && isEmpty(changes.delete) && isEmpty(changes.add_subgroups) && isEmpty(changes.delete_subgroups)) {
          return yield* new GroupMembersNothingToDo()
        }
        yield* applyMembership(principal, groupId, changes)
      })

      const updateSubgroups = Effect.fn("UserGroups.updateSubgroups")(function*(
        principal: Principal,
        groupId: number,
        changes: SubgroupChanges
      ) {
        yield* requireMemberOrAdmin(principal.user)
        if (isEmpty(changes.add) && isEmpty(changes.delete)) return yield* new SubgroupsNothingToDo()
        yield* applyMembership(principal, groupId, { add_subgroups: changes.add, delete_subgroups: changes.delete })
      })

      const members = Effect.fn("UserGroups.members")(function*(
        principal: Principal,
        groupId: number,
        options: { readonly directOnly: boolean }
      ) {
        yield* requireMemberOrAdmin(principal.user)
        const state = yield* readState(principal)
        const group = yield* forRead(state, groupId)
        return options.directOnly ? state.index.directMembers(group.id) : state.index.recursiveMembers(group.id)
      })

      const isMember = Effect.fn("UserGroups.isMember")(function*(
        principal: Principal,
        groupId: number,
        userId: number,
        options: { readonly directOnly: boolean }
      ) {
        yield* requireMemberOrAdmin(principal.user)
        const state = yield* readState(principal)
        const group = yield* forRead(state, groupId)
        // Zulip's `access_user_by_id`: bots are not users here.
        const target = state.usersById.get(userId as UserId)
        if (target === undefined || target.is_bot) return yield* new NoSuchUser()
        if (!target.is_active) return yield* new BadRequest({ msg: "User is deactivated" })
        return options.directOnly
          ? state.index.directMembers(group.id).includes(target.id)
          : state.index.isMember(target.id, group.id)
      })

      const subgroups = Effect.fn("UserGroups.subgroups")(function*(
        principal: Principal,
        groupId: number,
        options: { readonly directOnly: boolean }
      ) {
        yield* requireMemberOrAdmin(principal.user)
        const state = yield* readState(principal)
        const group = yield* forRead(state, groupId)
        return options.directOnly
          ? state.index.directSubgroups(group.id)
          : state.index.recursiveSubgroups(group.id).filter((id) => id !== group.id)
      })

      return UserGroups.of({ list, create, update, deactivate, updateMembers, updateSubgroups, members, isMember, subgroups })
    })
  )
}
